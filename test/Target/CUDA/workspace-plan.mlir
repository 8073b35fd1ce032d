// The workspace plan: an intermediate takes a slot of its size and type
// whose value no later kernel reads, or a new one; values of other sizes
// never share a slot; returned values need none.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s

// Four kernels, three intermediates of one size: k2's result takes k0's
// slot, free once k1 has read it; k1's result is read until k3.
// CHECK-LABEL: // ===== chain.cu =====
// CHECK-LABEL: sinter_status chain_forward(
// CHECK: char *const slot0 = cursor;
// CHECK-NEXT: cursor += sinterAlign(static_cast<size_t>((B * 64)) * sizeof(float));
// CHECK-NEXT: char *const slot1 = cursor;
// CHECK-NEXT: cursor += sinterAlign(static_cast<size_t>((B * 64)) * sizeof(float));
// CHECK-NOT: slot2
// CHECK: float *const k0_r0 = reinterpret_cast<float *>(slot0);
// CHECK-NEXT: float *const k1_r0 = reinterpret_cast<float *>(slot1);
// CHECK-NEXT: float *const k2_r0 = reinterpret_cast<float *>(slot0);
// CHECK-NEXT: SINTER_RT_TRY(launch_chain_k0_pointwise(ctx, stream, x, k0_r0, B));
// CHECK-NEXT: SINTER_RT_TRY(launch_chain_k1_pointwise(ctx, stream, k0_r0, k1_r0, B));
// CHECK-NEXT: SINTER_RT_TRY(launch_chain_k2_pointwise(ctx, stream, k1_r0, k2_r0, B));
// CHECK-NEXT: SINTER_RT_TRY(launch_chain_k3_pointwise(ctx, stream, k2_r0, k1_r0, y, B));
// CHECK-NEXT: return SINTER_OK;
module @chain attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %a = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%v: tensor<?x64xf32>):
      %r = sinter.relu %v : tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    %b = sinter.kernel pointwise(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%v: tensor<?x64xf32>):
      %r = sinter.exp %v : tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    %c = sinter.kernel pointwise(%b) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%v: tensor<?x64xf32>):
      %r = sinter.neg %v : tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    %y = sinter.kernel pointwise(%c, %b) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%v: tensor<?x64xf32>, %w: tensor<?x64xf32>):
      %r = sinter.add %v, %w : tensor<?x64xf32>, tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    return %y : tensor<?x64xf32>
  }
}

// -----

// k2's result may not take k0's slot, free by then: its size differs.
// CHECK-LABEL: // ===== sizes.cu =====
// CHECK-LABEL: sinter_status sizes_forward(
// CHECK: char *const slot0 = cursor;
// CHECK-NEXT: cursor += sinterAlign(static_cast<size_t>((B * 64)) * sizeof(float));
// CHECK-NEXT: char *const slot1 = cursor;
// CHECK-NEXT: cursor += sinterAlign(static_cast<size_t>(B) * sizeof(float));
// CHECK-NEXT: char *const slot2 = cursor;
// CHECK-NEXT: cursor += sinterAlign(static_cast<size_t>(B) * sizeof(float));
// CHECK-NOT: slot3
// CHECK: float *const k0_r0 = reinterpret_cast<float *>(slot0);
// CHECK-NEXT: float *const k1_r0 = reinterpret_cast<float *>(slot1);
// CHECK-NEXT: float *const k2_r0 = reinterpret_cast<float *>(slot2);
// CHECK-NOT: slot
// CHECK: return SINTER_OK;
module @sizes attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x1xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %a = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%v: tensor<?x64xf32>):
      %r = sinter.relu %v : tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    %s = sinter.kernel row_reduction(%a) : (tensor<?x64xf32>) -> tensor<?x1xf32> {
    ^bb0(%v: tensor<?x64xf32>):
      %r = sinter.sum %v dims [1] keepdim : tensor<?x64xf32>
      sinter.yield %r : tensor<?x1xf32>
    }
    %c = sinter.kernel pointwise(%s) : (tensor<?x1xf32>) -> tensor<?x1xf32> {
    ^bb0(%v: tensor<?x1xf32>):
      %r = sinter.exp %v : tensor<?x1xf32>
      sinter.yield %r : tensor<?x1xf32>
    }
    %y = sinter.kernel pointwise(%c) : (tensor<?x1xf32>) -> tensor<?x1xf32> {
    ^bb0(%v: tensor<?x1xf32>):
      %r = sinter.neg %v : tensor<?x1xf32>
      sinter.yield %r : tensor<?x1xf32>
    }
    return %y : tensor<?x1xf32>
  }
}
