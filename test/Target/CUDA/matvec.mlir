// Matvec kernels: a product with one output column is a dot product per
// row in a row kernel (deterministic team reduction), with its epilogue;
// other thin products go to the library GEMM.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s

// CHECK-LABEL: // ===== projection.h =====
// CHECK: //   projection_k0_matvec: matmul, add
// CHECK-NEXT: //       dot product per row: one block of 256 threads per row
// CHECK: projection_k0_matvec(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ v,
// CHECK-NEXT: float *__restrict__ y, int64_t B, int vec) {
// With both operands 16-byte aligned, float4 loads (K = 3000 = 4 * 750).
// CHECK: const int64_t [[ROW:i[0-9]+]] = r * 3000;
// CHECK: if (vec) { // float4 loads of both operands
// CHECK-NEXT: for (int64_t j = tid; j < 750; j += kThreads) {
// CHECK-NEXT: const float4 [[A:a[0-9]+]] = dev::loadFloat4(x + [[ROW]] + 4 * j);
// CHECK-NEXT: const float4 [[B:b[0-9]+]] = dev::loadFloat4(v + 4 * j);
// CHECK-NEXT: [[ACC0:acc[0-9]+]] = [[ACC0]] + [[A]].x * [[B]].x + [[A]].y * [[B]].y + [[A]].z * [[B]].z + [[A]].w * [[B]].w;
// Else 12 steps of a block of 256 threads over the row, unrolled.
// CHECK: if (!vec) {
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 12; ++k) if (const int j = tid + k * kThreads; j < 3000) {
// CHECK: const float [[X:v[0-9]+]] = x[{{i[0-9]+}}];
// CHECK: const float [[V:v[0-9]+]] = v[j];
// CHECK: const float [[P:v[0-9]+]] = [[X]] * [[V]];
// CHECK: [[ACC:acc[0-9]+]] = [[ACC]] + [[P]];
// CHECK: const float [[DOT:red[0-9]+]] = teamReduce<kThreads, dev::SumOp>([[ACC]]);
// CHECK: = [[DOT]] + 1.0f;
// CHECK: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(v, SINTER_RT_VECTOR_ALIGNMENT);
// CHECK-NEXT: return launch_projection_k0_matvec_rows<256>(ctx, stream, x, v, y, B, vec);
module @projection attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x3000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %v: tensor<3000x1xf32> {sinter.role = "param", sinter.name = "v", sinter.dim_names = ["", ""]})
      -> (tensor<?x1xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel matvec(%x, %v) : (tensor<?x3000xf32>, tensor<3000x1xf32>) -> tensor<?x1xf32> {
    ^bb0(%a: tensor<?x3000xf32>, %b: tensor<3000x1xf32>):
      %m = sinter.matmul %a, %b : tensor<?x3000xf32>, tensor<3000x1xf32>
      %one = sinter.constant dense<1.000000e+00> : tensor<f32>
      %s = sinter.add %m, %one : tensor<?x1xf32>, tensor<f32>
      sinter.yield %s : tensor<?x1xf32>
    }
    return %0 : tensor<?x1xf32>
  }
}
// -----

// CHECK-LABEL: // ===== row_vector.h =====
// A row vector times a matrix: the library GEMM.
// CHECK: //   row_vector_k0_matvec: matmul
// CHECK-NEXT: //       cuBLAS GEMM
// CHECK: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_N, 1, N, 3000, 1.0f, x,
// CHECK-NEXT: 3000, w, N, 0.0f, y, N));
module @row_vector attributes {sinter.dims = {N = 8 : i64}} {
  func.func @forward(%x: tensor<1x3000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]},
                     %w: tensor<3000x?xf32> {sinter.role = "input", sinter.name = "w", sinter.dim_names = ["", "N"]})
      -> (tensor<1x?xf32> {sinter.name = "y", sinter.dim_names = ["", "N"]}) {
    %0 = sinter.kernel matvec(%x, %w) : (tensor<1x3000xf32>, tensor<3000x?xf32>) -> tensor<1x?xf32> {
    ^bb0(%a: tensor<1x3000xf32>, %b: tensor<3000x?xf32>):
      %m = sinter.matmul %a, %b : tensor<1x3000xf32>, tensor<3000x?xf32>
      sinter.yield %m : tensor<1x?xf32>
    }
    return %0 : tensor<1x?xf32>
  }
}
