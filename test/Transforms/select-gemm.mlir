// RUN: sinter-opt %s --split-input-file --sinter-select-gemm | FileCheck %s
// RUN: sinterc %sinter_src_root/examples/gemm_bias_relu.sinter -emit=fused | FileCheck %s --check-prefix=SINTERC
// RUN: sinterc %sinter_src_root/examples/gemm_bias_relu.sinter -emit=fused --fp32-gemm=sgemm | FileCheck %s --check-prefix=SGEMM
// RUN: sinterc %sinter_src_root/examples/gemm_bias_relu.sinter -emit=fused --print-fusion-plan -o /dev/null | FileCheck %s --check-prefix=PLAN

// sinterc runs the pass after kernel formation for --precision=f32 (the
// default) unless --fp32-gemm=sgemm, and the fusion plan names the choice.
// SINTERC: sinter.kernel gemm(%arg0, %arg1, %arg2) {plan = #sinter.plan<{{.*}}>, sinter.gemm_algorithm = "3xtf32"}
// SGEMM-NOT: sinter.gemm_algorithm
// PLAN:      k0      gemm {{.*}} matmul, add, relu
// PLAN-NEXT: total
// PLAN-NEXT: k0: GEMM as 3xtf32 (TF32 tensor cores at fp32 accuracy on sm_90; cuBLAS SGEMM elsewhere and for shapes the runtime's rule gives to SGEMM)

// x @ w^T with a param w: the GEMM runs as 3xTF32, with and without an
// epilogue.

// CHECK-LABEL: module @param_weight
// CHECK: sinter.kernel gemm(%arg0, %arg1, %arg2) {sinter.gemm_algorithm = "3xtf32"}
module @param_weight {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x"},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w"},
                     %b: tensor<512xf32> {sinter.role = "param", sinter.name = "b"})
      -> (tensor<?x512xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel gemm(%x, %w, %b) : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>, %d: tensor<512xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      %s = sinter.add %m, %d : tensor<?x512xf32>, tensor<512xf32>
      %r = sinter.relu %s : tensor<?x512xf32>
      sinter.yield %r : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}

// -----

// A prepared weight (computed once in @prepare) and an explicit transpose
// are as good; the GEMM of @prepare itself is left to cuBLAS.

// CHECK-LABEL: module @prepared_weight
// CHECK: func.func @prepare
// CHECK-NOT: sinter.gemm_algorithm
// CHECK: func.func @forward
// CHECK: sinter.kernel gemm(%arg0, %arg1) {sinter.gemm_algorithm = "3xtf32"}
module @prepared_weight {
  func.func @prepare(%w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w"},
                     %v: tensor<512x512xf32> {sinter.role = "param", sinter.name = "v"})
      -> tensor<512x256xf32> {
    %0 = sinter.kernel gemm(%v, %w) : (tensor<512x512xf32>, tensor<512x256xf32>) -> tensor<512x256xf32> {
    ^bb0(%a: tensor<512x512xf32>, %c: tensor<512x256xf32>):
      %t = sinter.transpose %c perm [1, 0] : tensor<512x256xf32>
      %m = sinter.matmul %a, %t transpose_b : tensor<512x512xf32>, tensor<256x512xf32>
      sinter.yield %m : tensor<512x256xf32>
    }
    return %0 : tensor<512x256xf32>
  }
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x"},
                     %p: tensor<512x256xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64})
      -> (tensor<?x512xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel gemm(%x, %p) : (tensor<?x256xf32>, tensor<512x256xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>):
      %t = sinter.transpose %c perm [1, 0] : tensor<512x256xf32>
      %m = sinter.matmul %a, %t : tensor<?x256xf32>, tensor<256x512xf32>
      sinter.yield %m : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}

// -----

// Not as 3xTF32: a weight that is an input (it would be split on every
// call), a weight used as stored (x @ w, not K-major), and a transposed x.

// CHECK-LABEL: module @not_candidates
// CHECK-NOT: sinter.gemm_algorithm
module @not_candidates {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x"},
                     %y: tensor<512x256xf32> {sinter.role = "input", sinter.name = "y"},
                     %z: tensor<256x128xf32> {sinter.role = "input", sinter.name = "z"},
                     %w: tensor<256x512xf32> {sinter.role = "param", sinter.name = "w"},
                     %v: tensor<64x256xf32> {sinter.role = "param", sinter.name = "v"})
      -> (tensor<?x512xf32> {sinter.name = "a"}, tensor<?x512xf32> {sinter.name = "b"},
          tensor<128x64xf32> {sinter.name = "c"}) {
    %0 = sinter.kernel gemm(%x, %y) : (tensor<?x256xf32>, tensor<512x256xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      sinter.yield %m : tensor<?x512xf32>
    }
    %1 = sinter.kernel gemm(%x, %w) : (tensor<?x256xf32>, tensor<256x512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<256x512xf32>):
      %m = sinter.matmul %a, %c : tensor<?x256xf32>, tensor<256x512xf32>
      sinter.yield %m : tensor<?x512xf32>
    }
    %2 = sinter.kernel gemm(%z, %v) : (tensor<256x128xf32>, tensor<64x256xf32>) -> tensor<128x64xf32> {
    ^bb0(%a: tensor<256x128xf32>, %c: tensor<64x256xf32>):
      %m = sinter.matmul %a, %c transpose_a transpose_b : tensor<256x128xf32>, tensor<64x256xf32>
      sinter.yield %m : tensor<128x64xf32>
    }
    return %0, %1, %2 : tensor<?x512xf32>, tensor<?x512xf32>, tensor<128x64xf32>
  }
}
