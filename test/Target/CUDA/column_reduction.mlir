// Column kernels: statistics over the leading dim without atomics
// (per-slice partials, then an ordered fold), then a pointwise apply step.
// RUN: sinterc %s -emit=cuda --model=batch_norm | FileCheck %s

// Training batch_norm as decomposed: the mean, then the variance of
// x - mean, then the normalization.
// CHECK: //   batch_norm_k0_column_reduction: mean, sub, mul, mean, add, rsqrt, mul
// CHECK-NEXT: //       2 reduction(s): per-slice partials, ordered fold, then pointwise apply
// CHECK: int64_t sinterColumnSplits(int64_t rows, int64_t lanes, int64_t blocks) {
// The first level: the mean's partials over slices of the batch.
// CHECK: /// Partial mean over dims [0] of [B, 96], per column and slice of rows.
// CHECK: batch_norm_k0_column_reduction_partial0(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ partial, int64_t B,
// CHECK-NEXT: int64_t splits) {
// CHECK: dev::Cascade<dev::SumOp, float> cascade;
// 96 columns: a block covers 128, its two lanes of threads split the rows.
// CHECK: const int64_t column = static_cast<int64_t>(blockIdx.x) * 128 + threadIdx.x % 128;
// CHECK: if (column < 96) {
// CHECK-NEXT: const int64_t step = splits * 2;
// Eight rows in flight per thread, combined as a tree, then pairwise across
// chunks; the loads stay inside the bound check.
// CHECK-NEXT: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 2 + threadIdx.x / 128; q0 < B; q0 += 8 * step) {
// CHECK-NEXT: float chunk[8];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int u = 0; u < 8; ++u) {
// CHECK-NEXT: chunk[u] = dev::SumOp::identity();
// CHECK-NEXT: if (q0 + u * step < B) {
// CHECK-NEXT: const int64_t q = q0 + u * step;
// CHECK-NEXT: const int64_t [[X:i[0-9]+]] = q * 96 + column;
// CHECK-NEXT: = x[[[X]]];
// CHECK: cascade.push(dev::treeCombine<dev::SumOp, 8>(chunk));
// CHECK: float acc = cascade.result();
// CHECK: __shared__ float slices[2][128];
// CHECK: total = dev::SumOp()(total, slices[k][threadIdx.x]);
// CHECK: partial[blockIdx.y * 96 + column] = total;
// The fold: a block per column (96 of them) strides the slices and combines
// them in a fixed tree; the mean divides by the batch size.
// CHECK: batch_norm_k0_column_reduction_final0(
// CHECK-NEXT: const float *__restrict__ partial, float *__restrict__ stats, int64_t B,
// CHECK-NEXT: int64_t splits) {
// CHECK: for (int64_t p = blockIdx.x; p < 96; p += gridDim.x) {
// CHECK: for (int64_t s = threadIdx.x; s < splits; s += 256)
// CHECK: total = dev::blockReduce<256, dev::SumOp>(total);
// CHECK: total = total / static_cast<float>(B);
// The second level reads the first's result.
// CHECK: batch_norm_k0_column_reduction_partial1(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ stats0,
// CHECK-NEXT: float *__restrict__ partial, int64_t B, int64_t splits) {
// CHECK: = stats0[column];
// The apply step is a pointwise kernel reading the statistics.
// CHECK: batch_norm_k0_column_reduction_apply(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ stats0,
// CHECK-NEXT: const float *__restrict__ stats1, float *__restrict__ y, int64_t B,
// CHECK-NEXT: int vec) {
// CHECK: static sinter_status launch_batch_norm_k0_column_reduction(
// CHECK-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
// CHECK-NEXT: float *__restrict__ y, int64_t B, void *scratch) {
// CHECK: const int64_t splits0 = sinterColumnSplits(B, 2, (96 + 127) / 128);
// CHECK: const dim3 grid0(static_cast<unsigned>((96 + 127) / 128),
// CHECK-NEXT: static_cast<unsigned>(splits0));
// CHECK-NEXT: batch_norm_k0_column_reduction_partial0<<<grid0, 256, 0, stream>>>(
// CHECK-NEXT: x, partial0, B, splits0);
// CHECK: batch_norm_k0_column_reduction_final0<<<96, 256, 0, stream>>>(
// CHECK-NEXT: partial0, stats0, B, splits0);
// CHECK: return launch_batch_norm_k0_column_reduction_apply(
// CHECK-NEXT: ctx, stream, x, stats0, stats1, y, B);
module @batch_norm attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x96xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x96xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x96xf32>) -> tensor<?x96xf32> {
    ^bb0(%a: tensor<?x96xf32>):
      %m = sinter.mean %a dims [0] keepdim : tensor<?x96xf32>
      %d = sinter.sub %a, %m : tensor<?x96xf32>, tensor<1x96xf32>
      %sq = sinter.mul %d, %d : tensor<?x96xf32>, tensor<?x96xf32>
      %v = sinter.mean %sq dims [0] keepdim : tensor<?x96xf32>
      %eps = sinter.constant dense<9.99999974E-6> : tensor<f32>
      %ve = sinter.add %v, %eps : tensor<1x96xf32>, tensor<f32>
      %r = sinter.rsqrt %ve : tensor<1x96xf32>
      %n = sinter.mul %d, %r : tensor<?x96xf32>, tensor<1x96xf32>
      sinter.yield %n : tensor<?x96xf32>
    }
    return %0 : tensor<?x96xf32>
  }
}

// -----

// Wide rows (2000 columns): a block covers 256 adjacent columns with one lane
// of threads, and writes its partials without a fold through shared memory;
// so many columns are folded one per thread, pairwise in slice order.
// RUN: sinterc %s -emit=cuda --model=column_sum | FileCheck %s --check-prefix=WIDE
// WIDE-LABEL: column_sum_k0_column_reduction_partial0(
// WIDE: const int64_t column = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x % 256;
// WIDE: const int64_t step = splits * 1;
// WIDE-NEXT: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 1 + threadIdx.x / 256; q0 < B; q0 += 8 * step) {
// WIDE-NOT: __shared__
// WIDE: if (column < 2000)
// WIDE-NEXT: partial[blockIdx.y * 2000 + column] = acc;
// WIDE: dev::Cascade<dev::SumOp, float> cascade;
// WIDE-NEXT: for (int64_t s = 0; s < splits; ++s)
// WIDE-NEXT: cascade.push(partial[s * 2000 + p]);
// WIDE-NEXT: float total = cascade.result();
// WIDE: const int64_t splits0 = sinterColumnSplits(B, 1, (2000 + 255) / 256);
// WIDE: column_sum_k0_column_reduction_final0<<<gridBlocks(ctx, 2000, 256), 256, 0, stream>>>(
module @column_sum attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x2000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<1x2000xf32> {sinter.name = "s", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x2000xf32>) -> tensor<1x2000xf32> {
    ^bb0(%a: tensor<?x2000xf32>):
      %s = sinter.sum %a dims [0] keepdim : tensor<?x2000xf32>
      sinter.yield %s : tensor<1x2000xf32>
    }
    return %0 : tensor<1x2000xf32>
  }
}

// -----

// argmin over the batch: (value, index) partials, folded with the runtime's
// dev::ArgMinOp (and no ArgMaxOp; the runtime defines ArgValue and its warp
// shuffles, so the generated file defines none of them); the final kernel
// writes the indices straight into the output, with no apply kernel.
// RUN: sinterc %s -emit=cuda --model=column_argmin | FileCheck %s --check-prefix=ARGMIN
// ARGMIN-NOT: ArgMaxOp
// ARGMIN-NOT: struct ArgValue
// ARGMIN-NOT: shuffleDown(
// ARGMIN-NOT: struct ArgMinOp
// ARGMIN-LABEL: column_argmin_k0_column_reduction_partial0(
// ARGMIN-NEXT: const float *__restrict__ x, dev::ArgValue *__restrict__ partial, int64_t B,
// ARGMIN: dev::Cascade<dev::ArgMinOp, dev::ArgValue> cascade;
// ARGMIN: chunk[u] = dev::ArgValue{{{.*}}, q};
// ARGMIN: cascade.push(dev::treeCombine<dev::ArgMinOp, 8>(chunk));
// ARGMIN: __shared__ dev::ArgValue slices[4][64];
// ARGMIN-LABEL: column_argmin_k0_column_reduction_final0(
// ARGMIN-NEXT: const dev::ArgValue *__restrict__ partial, int64_t *__restrict__ stats,
// ARGMIN: total = dev::blockReduce<256, dev::ArgMinOp>(total);
// ARGMIN: stats[p] = total.index;
// ARGMIN-NOT: _apply
// ARGMIN: int64_t *const stats0 = y;
// ARGMIN: dev::ArgValue *const partial0 = reinterpret_cast<dev::ArgValue *>(cursor);
// ARGMIN: return SINTER_OK;
// ARGMIN-NOT: ArgMaxOp
module @column_argmin attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<64xi64> {sinter.name = "y", sinter.dim_names = [""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x64xf32>) -> tensor<64xi64> {
    ^bb0(%a: tensor<?x64xf32>):
      %i = sinter.argmin %a dims [0] : tensor<?x64xf32>
      sinter.yield %i : tensor<64xi64>
    }
    return %0 : tensor<64xi64>
  }
}

// -----

// Training batch_norm statistics over [N, C, H, W] (dims 0, 2, 3 strided
// around the kept channel): the innermost dim is reduced, so each block's
// threads split one channel's elements (adjacent threads read adjacent
// addresses) and combine them with a block-wide tree.
// RUN: sinterc %s -emit=cuda --model=nchw_mean | FileCheck %s --check-prefix=NCHW
// NCHW-LABEL: nchw_mean_k0_column_reduction_partial0(
// NCHW: const int64_t column = blockIdx.x;
// NCHW: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 256 + threadIdx.x; q0 < (B * 20); q0 += 8 * step) {
// NCHW: acc = dev::blockReduce<256, dev::SumOp>(acc);
// NCHW-NEXT: if (threadIdx.x == 0)
// NCHW-NEXT: partial[blockIdx.y * 3 + column] = acc;
// NCHW: total = total / static_cast<float>((B * 20));
module @nchw_mean attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x3x4x5xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", "", ""]})
      -> (tensor<1x3x1x1xf32> {sinter.name = "m", sinter.dim_names = ["", "", "", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x3x4x5xf32>) -> tensor<1x3x1x1xf32> {
    ^bb0(%a: tensor<?x3x4x5xf32>):
      %m = sinter.mean %a dims [0, 2, 3] keepdim : tensor<?x3x4x5xf32>
      sinter.yield %m : tensor<1x3x1x1xf32>
    }
    return %0 : tensor<1x3x1x1xf32>
  }
}
