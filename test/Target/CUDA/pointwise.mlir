// Pointwise kernels: broadcasting through coordinates, the float4 path and
// its host-side conditions, outputs smaller than the loop, shape ops.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s
// RUN: sinterc %S/Inputs/models/reshaped_outputs.sinter -emit=cuda | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: // ===== bias_act.h =====
// Full-size input, a row-vector param and a scalar: rows of 64, so the
// vector path reads the param with float4 too.
// CHECK-LABEL: //   bias_act_k0_pointwise: add, mul, gelu
// CHECK: __global__ void __launch_bounds__(256)
// CHECK-NEXT: bias_act_k0_pointwise(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ b,
// CHECK-NEXT: float *__restrict__ y, int64_t B, int vec) {
// CHECK: const int64_t n = (B * 64);
// CHECK: if (vec) {
// CHECK: for (int64_t q = dev::globalThreadIndex(); q < n / 4; q += dev::gridStride()) {
// CHECK: const int64_t i = q * 4;
// CHECK: const int64_t [[COL:i[0-9]+]] = i % 64;
// CHECK: dev::loadFloat4(x + i);
// CHECK: dev::loadFloat4(b + [[COL]]);
// CHECK: #pragma unroll
// CHECK-NEXT: for (int l = 0; l < 4; ++l) {
// CHECK: = {{.*}} * 0.5f;
// CHECK: dev::geluErf(
// CHECK: dev::storeFloat4(y + i, make_float4(y_out[0], y_out[1], y_out[2], y_out[3]));
// CHECK: begin = n / 4 * 4;
// CHECK: for (int64_t i = begin + dev::globalThreadIndex(); i < n; i += dev::gridStride()) {
// CHECK: y[i] = v{{[0-9]+}};
// The host checks the row length and every float4 pointer.
// CHECK: static sinter_status launch_bias_act_k0_pointwise(
// CHECK: const int vec = 64 % 4 == 0 &&
// CHECK-NEXT: sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(b, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(y, SINTER_RT_VECTOR_ALIGNMENT);
// CHECK: sinter::launchDependent(
// CHECK-NEXT: bias_act_k0_pointwise, coverBlocks(work, 256), 256, 0, stream, x, b, y, B,
// CHECK-NEXT: vec);
// CHECK: return sinter_rt_check_launch(ctx, "bias_act_k0_pointwise");
module @bias_act attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %b: tensor<64xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %half = sinter.constant dense<5.000000e-01> : tensor<f32>
    %0 = sinter.kernel pointwise(%x, %b) : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>, %c: tensor<64xf32>):
      %1 = sinter.add %a, %c : tensor<?x64xf32>, tensor<64xf32>
      %h = sinter.constant dense<5.000000e-01> : tensor<f32>
      %2 = sinter.mul %1, %h : tensor<?x64xf32>, tensor<f32>
      %3 = sinter.gelu %2 : tensor<?x64xf32>
      sinter.yield %3 : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}
// -----

// Two inputs of the same [B, 64], nothing broadcast: blocks of 128 threads,
// each loading its two float4 groups of every input before it computes and
// stores them; the grid covers half the groups.
// CHECK-LABEL: // ===== grouped.h =====
// CHECK: __global__ void __launch_bounds__(128)
// CHECK: for (int64_t p = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x; p < n / 4;
// CHECK-NEXT: p += static_cast<int64_t>(gridDim.x) * 256) {
// CHECK-NEXT: float4 [[XG:x_g[0-9]*]][2] = {};
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int g = 0; g < 2; ++g)
// CHECK-NEXT: if (p + g * 128 < n / 4)
// CHECK-NEXT: [[XG]][g] = dev::loadFloat4(x + (p + g * 128) * 4);
// CHECK-NEXT: float4 [[YG:y_g[0-9]*]][2] = {};
// CHECK: [[YG]][g] = dev::loadFloat4(y + (p + g * 128) * 4);
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int g = 0; g < 2; ++g) {
// CHECK-NEXT: const int64_t q = p + g * 128;
// CHECK-NEXT: if (q < n / 4) {
// CHECK-NEXT: const int64_t i = q * 4;
// CHECK-NOT: dev::loadFloat4
// CHECK: = [[XG]][g];
// CHECK: = [[YG]][g];
// CHECK: dev::storeFloat4(out + i,
// CHECK: const int64_t work = vec ? (n / 4 + 1) / 2 : n;
// CHECK: coverBlocks(work, 128), 128,
module @grouped attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %y: tensor<?x64xf32> {sinter.role = "input", sinter.name = "y", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "out", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x, %y) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>, %c: tensor<?x64xf32>):
      %1 = sinter.silu %a : tensor<?x64xf32>
      %2 = sinter.mul %1, %c : tensor<?x64xf32>, tensor<?x64xf32>
      sinter.yield %2 : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}

// -----

// A hand-written elementwise plan of block 0 (chosen at launch): 256 threads,
// each loading its two groups.
// CHECK-LABEL: // ===== grouped_block_zero.h =====
// CHECK: __global__ void __launch_bounds__(256)
// CHECK: for (int g = 0; g < 2; ++g)
// CHECK-NEXT: if (p + g * 256 < n / 4)
// CHECK: coverBlocks(work, 256), 256,
module @grouped_block_zero attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x) {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 0, rows_per_block = 0, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, chunk_loads = 2>} : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>):
      %1 = sinter.exp %a : tensor<?x64xf32>
      sinter.yield %1 : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}

// -----

// CHECK-LABEL: // ===== column_scale.h =====
// A per-row column [B, 1] over rows of odd length: a float4 group may
// straddle two rows of 4097, so the input and output move as float4 groups
// and each lane reads the column at its own row; the scalar loop finishes
// the tail, or every element where x or out0 is not 16-byte aligned (the
// column's alignment does not matter).
// CHECK-LABEL: //   column_scale_k0_pointwise: mul, exp
// CHECK: column_scale_k0_pointwise(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ scale,
// CHECK-NEXT: float *__restrict__ out0, int64_t B, int vec) {
// CHECK: if (vec) {
// CHECK: const float4 [[X:x_v[0-9]+]] = dev::loadFloat4(x + i);
// CHECK: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: const int64_t [[LANEROW:i[0-9]+]] = (i + l) / 4097;
// CHECK-NEXT: = scale[[[LANEROW]]];
// CHECK: dev::storeFloat4(out0 + i,
// CHECK: const int64_t [[ROW:i[0-9]+]] = i / 4097;
// CHECK: = scale[[[ROW]]];
// CHECK: expf(
// CHECK: out0[i] =
// CHECK: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(out0, SINTER_RT_VECTOR_ALIGNMENT);
module @column_scale attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x4097xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %s: tensor<?x1xf32> {sinter.role = "input", sinter.name = "scale", sinter.dim_names = ["B", ""]})
      -> (tensor<?x4097xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x, %s) : (tensor<?x4097xf32>, tensor<?x1xf32>) -> tensor<?x4097xf32> {
    ^bb0(%a: tensor<?x4097xf32>, %c: tensor<?x1xf32>):
      %1 = sinter.mul %a, %c : tensor<?x4097xf32>, tensor<?x1xf32>
      %2 = sinter.exp %1 : tensor<?x4097xf32>
      sinter.yield %2 : tensor<?x4097xf32>
    }
    return %0 : tensor<?x4097xf32>
  }
}
// -----

// CHECK-LABEL: // ===== two_shapes.h =====
// An output smaller than the loop is written where its broadcast
// coordinates are 0.
// CHECK-LABEL: two_shapes_k0_pointwise(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ w,
// CHECK-NEXT: float *__restrict__ out0, float *__restrict__ out1, int64_t B) {
// CHECK: out0[i] =
// CHECK: const int64_t [[ROW:i[0-9]+]] = i / 32;
// CHECK: if ([[ROW]] == 0) {
// CHECK: out1[{{.*}}] = v{{[0-9]+}};
module @two_shapes attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x32xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<32xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = [""]})
      -> (tensor<?x32xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}, tensor<32xf32> {sinter.name = "out1", sinter.dim_names = [""]}) {
    %0:2 = sinter.kernel pointwise(%x, %w) : (tensor<?x32xf32>, tensor<32xf32>) -> (tensor<?x32xf32>, tensor<32xf32>) {
    ^bb0(%a: tensor<?x32xf32>, %c: tensor<32xf32>):
      %e = sinter.exp %c : tensor<32xf32>
      %1 = sinter.mul %a, %e : tensor<?x32xf32>, tensor<32xf32>
      sinter.yield %1, %e : tensor<?x32xf32>, tensor<32xf32>
    }
    return %0#0, %0#1 : tensor<?x32xf32>, tensor<32xf32>
  }
}
// -----

// CHECK-LABEL: // ===== transposed.h =====
// A transposed input is read through permuted coordinates; a reshape
// goes through the linear index. No vector path with shape ops.
// CHECK-LABEL: transposed_k0_pointwise(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ y,
// CHECK-NEXT: float *__restrict__ out0, int64_t B) {
// CHECK-NOT: vec
// CHECK: const int64_t [[X:i[0-9]+]] = (i / 96) * 96 + (i % 8) * 12 + (i / 8) % 12;
// CHECK: = x[[[X]]];
// CHECK: = y[i];
module @transposed attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x8x12xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", ""]},
                     %y: tensor<?x12x8xf32> {sinter.role = "input", sinter.name = "y", sinter.dim_names = ["B", "", ""]})
      -> (tensor<?x96xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x, %y) : (tensor<?x8x12xf32>, tensor<?x12x8xf32>) -> tensor<?x96xf32> {
    ^bb0(%a: tensor<?x8x12xf32>, %b: tensor<?x12x8xf32>):
      %t = sinter.transpose %a perm [0, 2, 1] : tensor<?x8x12xf32>
      %s = sinter.add %t, %b : tensor<?x12x8xf32>, tensor<?x12x8xf32>
      %r = sinter.reshape %s : tensor<?x12x8xf32> -> tensor<?x96xf32>
      sinter.yield %r : tensor<?x96xf32>
    }
    return %0 : tensor<?x96xf32>
  }
}
// -----

// CHECK-LABEL: // ===== dense.h =====
// A dense constant becomes a __device__ array; a constant operand of the
// kernel is folded in, not passed.
// CHECK: __device__ const float dense_const0[4] = {
// CHECK-NEXT: 1.0f, 2.0f, -0.5f, 0.25f,
// CHECK-NEXT: };
// CHECK: dense_k0_pointwise(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ out0, int64_t B, int vec) {
// CHECK: const int64_t [[K:i[0-9]+]] = i % 4 + l;
// CHECK-NEXT: = dense_const0[[[K]]];
// CHECK: SINTER_RT_TRY(launch_dense_k0_pointwise(ctx, stream, x, out0, B));
module @dense attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x4xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}) {
    %c = sinter.constant dense<[1.0, 2.0, -0.5, 0.25]> : tensor<4xf32>
    %0 = sinter.kernel pointwise(%x, %c) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32> {
    ^bb0(%a: tensor<?x4xf32>, %b: tensor<4xf32>):
      %1 = sinter.mul %a, %b : tensor<?x4xf32>, tensor<4xf32>
      sinter.yield %1 : tensor<?x4xf32>
    }
    return %0 : tensor<?x4xf32>
  }
}
// -----

// CHECK-LABEL: // ===== library_math.h =====
// erf, expm1 and log1p are the accurate library functions; sign is ATen's
// (0 < x) - (x < 0) from the runtime.
// CHECK-LABEL: //   library_math_k0_pointwise: erf, expm1, log1p, sign
// CHECK: [[E:v[0-9]+]] = erff(
// CHECK: [[M:v[0-9]+]] = expm1f([[E]]);
// CHECK: [[L:v[0-9]+]] = log1pf([[M]]);
// CHECK: = dev::sign([[L]]);
module @library_math attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>):
      %1 = sinter.erf %a : tensor<?x64xf32>
      %2 = sinter.expm1 %1 : tensor<?x64xf32>
      %3 = sinter.log1p %2 : tensor<?x64xf32>
      %4 = sinter.sign %3 : tensor<?x64xf32>
      sinter.yield %4 : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}

// -----

// CHECK-LABEL: // ===== library_rounding.h =====
// exp2, log2, log10, sin and cos are the accurate library functions (never
// the __ intrinsics); round is rintf (halfway cases to even, torch.round).
// CHECK-LABEL: //   library_rounding_k0_pointwise: exp2, log2, log10, sin, cos, floor, ceil, round, trunc
// CHECK: [[A:v[0-9]+]] = exp2f(
// CHECK: [[B:v[0-9]+]] = log2f([[A]]);
// CHECK: [[C:v[0-9]+]] = log10f([[B]]);
// CHECK: [[D:v[0-9]+]] = sinf([[C]]);
// CHECK: [[E:v[0-9]+]] = cosf([[D]]);
// CHECK: [[F:v[0-9]+]] = floorf([[E]]);
// CHECK: [[G:v[0-9]+]] = ceilf([[F]]);
// CHECK: [[H:v[0-9]+]] = rintf([[G]]);
// CHECK: = truncf([[H]]);
module @library_rounding attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>):
      %1 = sinter.exp2 %a : tensor<?x64xf32>
      %2 = sinter.log2 %1 : tensor<?x64xf32>
      %3 = sinter.log10 %2 : tensor<?x64xf32>
      %4 = sinter.sin %3 : tensor<?x64xf32>
      %5 = sinter.cos %4 : tensor<?x64xf32>
      %6 = sinter.floor %5 : tensor<?x64xf32>
      %7 = sinter.ceil %6 : tensor<?x64xf32>
      %8 = sinter.round %7 : tensor<?x64xf32>
      %9 = sinter.trunc %8 : tensor<?x64xf32>
      sinter.yield %9 : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}

// Outputs whose shapes do not broadcast to one (t [12, B] and its flat
// reshape [12 * B], Inputs/models/reshaped_outputs.sinter): each shape gets
// its own grid-stride loop in the one kernel, launched for the longer.
// LOOPS: reshaped_outputs_k0_pointwise(
// LOOPS: const int64_t n = (B * 12);
// LOOPS: for (int64_t i = begin + dev::globalThreadIndex(); i < n; i += dev::gridStride()) {
// LOOPS: t[i] = v{{[0-9]+}};
// LOOPS: const int64_t n1 = (B * 12);
// LOOPS-NEXT: for (int64_t i = dev::globalThreadIndex(); i < n1; i += dev::gridStride()) {
// LOOPS: out1[i] = v{{[0-9]+}};
// LOOPS: const int64_t work = n1 > n ? n1 : n;

// -----

// A division by a splat zero (fast mode folds `x / (x - x)` to it) is a
// product with an infinity of the zero's sign, which is the same for every
// x: nvcc rejects a division by a literal zero under -Werror all-warnings
// (#39-D "division by zero").
// CHECK-LABEL: // ===== by_zero.h =====
// CHECK: by_zero_k0_pointwise(
// CHECK: const float [[A:v[0-9]+]] = {{.*}} * INFINITY;
// CHECK-NEXT: const float {{v[0-9]+}} = [[A]] * -INFINITY;
// CHECK-NOT: / 0.0f
// CHECK-NOT: / -0.0f
module @by_zero {
  func.func @forward(%x: tensor<8xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = [""]})
      -> (tensor<8xf32> {sinter.name = "y", sinter.dim_names = [""]}) {
    %0 = sinter.kernel pointwise(%x) : (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<8xf32>):
      %z = sinter.constant dense<0.000000e+00> : tensor<f32>
      %n = sinter.constant dense<-0.000000e+00> : tensor<f32>
      %1 = sinter.div %a, %z : tensor<8xf32>, tensor<f32>
      %2 = sinter.div %1, %n : tensor<8xf32>, tensor<f32>
      sinter.yield %2 : tensor<8xf32>
    }
    return %0 : tensor<8xf32>
  }
}
// -----

// CHECK-LABEL: // ===== channel_scale.h =====
// A per-channel scale over [B, 3, 6, 6]: rows of 6 are no float4 groups,
// but a channel's 36 elements are, so the four lanes of an aligned group
// share the channel: its index and weight are read once a group, outside
// the lanes' loop, and each lane takes its own row and column.
// CHECK-LABEL: channel_scale_k0_pointwise(
// CHECK: const int64_t i = q * 4;
// CHECK: const int64_t [[C:i[0-9]+]] = (i / 36) % 3;
// CHECK-NEXT: const float [[W:v[0-9]+]] = w[[[C]]];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: = x_v{{[0-9]+}}[l] * [[W]];
module @channel_scale attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x3x6x6xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", "", ""]},
                     %w: tensor<3x1x1xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", "", ""]})
      -> (tensor<?x3x6x6xf32> {sinter.name = "out0", sinter.dim_names = ["B", "", "", ""]}) {
    %0 = sinter.kernel pointwise(%x, %w) : (tensor<?x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<?x3x6x6xf32> {
    ^bb0(%a: tensor<?x3x6x6xf32>, %b: tensor<3x1x1xf32>):
      %1 = sinter.mul %a, %b : tensor<?x3x6x6xf32>, tensor<3x1x1xf32>
      sinter.yield %1 : tensor<?x3x6x6xf32>
    }
    return %0 : tensor<?x3x6x6xf32>
  }
}
