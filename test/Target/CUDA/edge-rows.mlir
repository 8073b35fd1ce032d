// Rows that are not a multiple of 4 long, read from HBM by every pass,
// where the plan's vector width is 4: each loop takes the row's float4
// groups from its first 16-byte boundary (vecHead elements in) when the
// host finds the buffers aligned, then a scalar loop over the edges left
// (every element where they are not). The statistics and the outputs with
// whole rows alike. (The planner's choice: plan-kernels.mlir @edge_rows; a
// mean, a sum of squares and a max at 5, 7 and 7001 on the GPU:
// Inputs/models/edge_rows.sinter, compiled by compile-test-models.test.)
// RUN: sinter-translate --sinter-to-cuda %s | FileCheck %s

// CHECK-LABEL: edge_softmax_k0_row_reduction(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ y, int64_t B, int vec) {
// CHECK: const int64_t [[BASE:i[0-9]+]] = r * 7001;
// CHECK-NEXT: const int64_t vecHead = (4 - ([[BASE]] & 3)) & 3;
// CHECK-NEXT: const int64_t vecGroups = (7001 - vecHead) / 4;
// CHECK-NEXT: const int64_t vecEdges = 7001 - 4 * vecGroups;
// CHECK-NEXT: if (vec) { // float4 loads
// CHECK-NEXT: #pragma unroll 4
// CHECK-NEXT: for (int64_t q = tid; q < vecGroups; q += kThreads) {
// CHECK-NEXT: const float4 {{x_v[0-9]+}}4 = dev::loadFloat4(x + [[BASE]] + vecHead + 4 * q);
// CHECK: { // Scalars: the edges where vec, else every element.
// CHECK-NEXT: for (int64_t k = tid; k < (vec ? vecEdges : 7001); k += kThreads) {
// CHECK-NEXT: const int64_t j = vec && k >= vecHead ? k + 4 * vecGroups : k;
// The row's declarations come once; the sum's pass and the outputs reuse
// them. The sum keeps an accumulator per lane of the float4 groups (the
// edges add into the first), combined as a tree.
// CHECK-NOT: const int64_t vecHead
// CHECK: float [[SUM:acc[0-9]+]][4] = {dev::SumOp::identity(),
// CHECK: for (int64_t q = tid; q < vecGroups; q += kThreads) {
// CHECK: [[SUM]][l] = [[SUM]][l] + {{v[0-9]+}};
// CHECK: for (int64_t k = tid; k < (vec ? vecEdges : 7001); k += kThreads) {
// CHECK: [[SUM]][0] = [[SUM]][0] + {{v[0-9]+}};
// CHECK: teamReduce<kThreads, dev::SumOp>(dev::treeCombine<dev::SumOp, 4>([[SUM]]))
// CHECK: for (int64_t q = tid; q < vecGroups; q += kThreads) {
// CHECK: dev::storeFloat4(y + [[BASE]] + vecHead + 4 * q, make_float4(y_out[0], y_out[1], y_out[2], y_out[3]));
// CHECK: { // Scalars: the edges where vec, else every element.
// CHECK-NEXT: for (int64_t k = tid; k < (vec ? vecEdges : 7001); k += kThreads) {
// CHECK-NEXT: const int64_t j = vec && k >= vecHead ? k + 4 * vecGroups : k;
// CHECK: y[{{i[0-9]+}}] =
// The host checks both buffers' alignment.
// CHECK: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(y, SINTER_RT_VECTOR_ALIGNMENT);
module @edge_softmax attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x7001xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x7001xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 3, launches = 1, epilogue = none>} : (tensor<?x7001xf32>) -> tensor<?x7001xf32> {
    ^bb0(%a: tensor<?x7001xf32>):
      %m = sinter.max %a dims [1] keepdim : tensor<?x7001xf32>
      %d = sinter.sub %a, %m : tensor<?x7001xf32>, tensor<?x1xf32>
      %e = sinter.exp %d : tensor<?x7001xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<?x7001xf32>
      %y = sinter.div %e, %s : tensor<?x7001xf32>, tensor<?x1xf32>
      sinter.yield %y : tensor<?x7001xf32>
    }
    return %0 : tensor<?x7001xf32>
  }
}
