// Column kernels: statistics over the leading dim without atomics
// (per-slice partials, then an ordered fold), then a pointwise apply step.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s

// CHECK-LABEL: // ===== batch_norm.h =====
// Training batch_norm as decomposed: the mean, then the variance of
// x - mean, then the normalization. A split_reduction plan (written here)
// computes the variance in a second pass after the mean.
// CHECK: //   batch_norm_k0_column_reduction: mean, sub, mul, mean, add, rsqrt, mul
// CHECK-NEXT: //       2 reduction(s): per-slice partials, ordered fold, then pointwise apply
// The slices: about 512 blocks in all, rounded down to one wave (528) where
// rounding up would overshoot it (251 column blocks: 2 slices, not 3).
// CHECK: int64_t sinterColumnSplits(int64_t rows, int64_t lanes, int64_t blocks) {
// CHECK-NEXT: int64_t splits = (512 + blocks - 1) / blocks;
// CHECK-NEXT: if (splits > 1 && splits * blocks > 528)
// CHECK-NEXT: splits = 528 / blocks > 1 ? 528 / blocks : 1;
// CHECK-NEXT: const int64_t most = (rows + 8 * lanes - 1) / (8 * lanes);
// The first level: the mean's partials over slices of the batch, at least 4
// blocks a multiprocessor (64 registers a thread at most).
// CHECK: /// Partial mean over dims [0] of [B, 96], per column and slice of rows.
// CHECK-NEXT: __global__ void __launch_bounds__(256, 4)
// CHECK-NEXT: batch_norm_k0_column_reduction_partial0(
// CHECK-NEXT: const float *__restrict__ x, double *__restrict__ partial, int64_t B,
// CHECK-NEXT: int64_t splits) {
// CHECK: dev::Accumulator<dev::SumOp, float> accumulator;
// 96 columns: a block covers 128, its two lanes of threads split the rows.
// CHECK: const int64_t column = static_cast<int64_t>(blockIdx.x) * 128 + threadIdx.x % 128;
// CHECK: if (column < 96) {
// CHECK-NEXT: const int64_t step = splits * 2;
// Eight rows in flight per thread, combined as a tree, then in runs of 8
// chunks (blocked accumulation); the loads stay inside the bound check.
// CHECK-NEXT: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 2 + threadIdx.x / 128; q0 < B; q0 += 8 * step) {
// CHECK-NEXT: float chunk[8];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 8; ++k) {
// CHECK-NEXT: chunk[k] = dev::SumOp::identity();
// CHECK-NEXT: if (q0 + k * step < B) {
// CHECK-NEXT: const int64_t q = q0 + k * step;
// CHECK-NEXT: const int64_t [[X:i[0-9]+]] = q * 96 + column;
// CHECK-NEXT: = x[[[X]]];
// CHECK: accumulator.push(dev::treeCombine<dev::SumOp, 8>(chunk));
// CHECK: float acc = accumulator.result();
// CHECK: __shared__ float slices[2][128];
// CHECK: const int64_t first = static_cast<int64_t>(blockIdx.x) * 128 + threadIdx.x;
// A sum's partials are doubles: the lanes of the block add in double.
// CHECK: double total = static_cast<double>(slices[0][threadIdx.x]);
// CHECK: total = dev::SumDoubleOp()(total, static_cast<double>(slices[k][threadIdx.x]));
// CHECK: partial[blockIdx.y * 96 + first] = total;
// The fold (a kernel of its own: the batch is symbolic): a block per column
// (96 of them) strides the slices and combines them in a fixed tree, in
// double; the mean divides by the batch size in double and rounds once.
// CHECK: batch_norm_k0_column_reduction_final0(
// CHECK-NEXT: const double *__restrict__ partial, float *__restrict__ stats, int64_t B,
// CHECK-NEXT: int64_t splits) {
// CHECK: for (int64_t p = blockIdx.x; p < 96; p += gridDim.x) {
// CHECK: for (int64_t s = threadIdx.x; s < splits; s += 256)
// CHECK: total = dev::blockReduce<256, dev::SumDoubleOp>(total);
// CHECK: stats[p] = static_cast<float>(total / static_cast<double>(B));
// The second level reads the first's result.
// CHECK: batch_norm_k0_column_reduction_partial1(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ stats0,
// CHECK-NEXT: double *__restrict__ partial, int64_t B, int64_t splits) {
// CHECK: = stats0[column];
// The apply step is a pointwise kernel reading the statistics, which vary
// along the innermost dim: 6 blocks per multiprocessor (the plan's
// apply_min_blocks), and each thread of its float4 path walks 4 rows at one
// group of four columns (apply_rows_per_thread) and loads the statistics
// once for them (from L2 once per row of x, they were 4 bytes of L2 reads
// for each byte of x).
// CHECK: __global__ void __launch_bounds__(256, 6)
// CHECK-NEXT: batch_norm_k0_column_reduction_apply(
// CHECK-NEXT: const float *__restrict__ x, const float *__restrict__ stats0,
// CHECK-NEXT: const float *__restrict__ stats1, float *__restrict__ y, int64_t B,
// CHECK-NEXT: int vec) {
// CHECK: for (int64_t q = dev::globalThreadIndex(); q < (n / 96 + 3) / 4 * (96 / 4); q += dev::gridStride()) {
// CHECK-NEXT: const int64_t column = (q % (96 / 4)) * 4;
// CHECK-NEXT: const float4 stats0_v04 = dev::loadFloat4(stats0 + column);
// CHECK: const float4 stats1_v04 = dev::loadFloat4(stats1 + column);
// CHECK: for (int k = 0; k < 4; ++k) {
// CHECK-NEXT: const int64_t j = (q / (96 / 4)) * 4 + k;
// CHECK-NEXT: if (j < (n / 96)) {
// CHECK-NEXT: const int64_t i = j * 96 + column;
// CHECK: const float4 x_v04 = dev::loadFloat4(x + i);
// CHECK-NOT: stats0 +
// The normalization is rounded once: x - mean and var + eps exact as pairs,
// the rsqrt to 44 bits (errors below eager PyTorch's, whose scale is one
// rounded float).
// CHECK: const dev::FloatPair [[VAR:p[0-9]+]] = dev::twoSum(stats1_v0[l], 1e-05f);
// CHECK-NEXT: const dev::FloatPair [[SCALE:p[0-9]+]] = dev::rsqrtPair([[VAR]]);
// CHECK-NEXT: = dev::mulPair(dev::twoSum(x_v0[l], -(stats0_v0[l])), [[SCALE]]);
// CHECK: dev::storeFloat4(y + i,
// The grid covers the groups of four columns times the blocks of 4 rows.
// CHECK: const int64_t work = vec ? (n / 96 + 3) / 4 * (96 / 4) : n;
// CHECK: static sinter_status launch_batch_norm_k0_column_reduction(
// CHECK-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
// CHECK-NEXT: float *__restrict__ y, int64_t B, void *scratch) {
// CHECK: const int64_t splits0 = sinterColumnSplits(B, 2, (96 + 127) / 128);
// CHECK: const dim3 grid0(static_cast<unsigned>((96 + 127) / 128),
// CHECK-NEXT: static_cast<unsigned>(splits0));
// CHECK-NEXT: sinter::launchDependent(
// CHECK-NEXT: batch_norm_k0_column_reduction_partial0, grid0, 256, 0, stream, x,
// CHECK-NEXT: partial0, B, splits0);
// CHECK: sinter::launchDependent(
// CHECK: batch_norm_k0_column_reduction_final0, 96, 256, 0, stream, partial0,
// CHECK-NEXT: stats0, B, splits0);
// CHECK: return launch_batch_norm_k0_column_reduction_apply(
// CHECK-NEXT: ctx, stream, x, stats0, stats1, y, B);
module @batch_norm attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x96xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x96xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel column_reduction(%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 1, cached = [], passes = 3, launches = 5, epilogue = none, min_blocks = 4, apply_min_blocks = 6, apply_rows_per_thread = 4, chunk_loads = 8>} : (tensor<?x96xf32>) -> tensor<?x96xf32> {
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

// CHECK-LABEL: // ===== batch_norm_welford.h =====
// The same statistics as the planner plans them (split_welford): one pass of
// Welford states per column and slice, in blocked runs; the fold writes the
// mean and the variance, and no second partial kernel reads the input again.
// 96 columns, a multiple of 4: each thread reads runs of 4 adjacent columns
// (a float4 per row), chunks of four rows per column (their mean and squared
// deviations, one division), and keeps an accumulator per column. States
// combine with dev::ColumnWelfordOp (the weight from the fast division).
// CHECK: //       2 reduction(s) (1 variance(s) in Welford states): per-slice partials, ordered fold, then pointwise apply
// CHECK-LABEL: batch_norm_welford_k0_column_reduction_partial0(
// CHECK-NEXT: const float *__restrict__ x, dev::Welford *__restrict__ partial, int64_t B,
// CHECK-NEXT: int64_t splits, int vec) {
// CHECK: dev::Accumulator<dev::ColumnWelfordOp, dev::Welford> accumulator[4];
// CHECK-NEXT: const int64_t column = static_cast<int64_t>(blockIdx.x) * 128 + 4 * (threadIdx.x % 32);
// CHECK: const int64_t step = splits * 8;
// CHECK: float chunk[16];
// CHECK-NEXT: int rows = 0;
// CHECK: chunk[4 * l + k] = dev::SumOp::identity();
// CHECK: const int64_t [[X:i[0-9]+]] = q * 96 + column;
// CHECK-NEXT: const float4 x_run04 = vec ? dev::loadFloat4(x + [[X]])
// CHECK: chunk[4 * l + k] = x_run0[l];
// CHECK: ++rows;
// CHECK: accumulator[l].push(dev::welfordOfChunk<4>(chunk + 4 * l, rows));
// The block's table holds each thread's 4 columns; a thread per column
// folds the 8 lanes.
// CHECK: __shared__ dev::Welford slices[8][128];
// CHECK: slices[threadIdx.x / 32][4 * (threadIdx.x % 32) + l] = accumulator[l].result();
// 8 lanes fold in double, and the partial rounds once.
// CHECK: dev::WelfordDouble total = dev::widen(slices[0][threadIdx.x]);
// CHECK-NEXT: for (int k = 1; k < 8; ++k)
// CHECK-NEXT: total = dev::WelfordDoubleOp()(total, dev::widen(slices[k][threadIdx.x]));
// CHECK-NEXT: partial[blockIdx.y * 96 + first] = dev::narrow(total);
// CHECK-LABEL: batch_norm_welford_k0_column_reduction_final0(
// CHECK-NEXT: const dev::Welford *__restrict__ partial, float *__restrict__ stats,
// CHECK-NEXT: float *__restrict__ variance, int64_t B, int64_t splits) {
// The fold is in double, the mean and the variance round once.
// CHECK: dev::WelfordDouble total = dev::WelfordDoubleOp::identity();
// CHECK: total = dev::WelfordDoubleOp()(total, dev::widen(partial[s * 96 + p]));
// CHECK-NEXT: total = dev::blockReduce<256, dev::WelfordDoubleOp>(total);
// CHECK: stats[p] = static_cast<float>(total.mean);
// CHECK-NEXT: variance[p] = static_cast<float>(total.m2 / static_cast<double>(B));
// CHECK-NOT: _partial1
// CHECK: batch_norm_welford_k0_column_reduction_apply(
// CHECK: const int64_t splits0 = sinterColumnSplits(B, 8, (96 + 127) / 128);
// CHECK: sinter::launchDependent(
// CHECK: batch_norm_welford_k0_column_reduction_final0, 96, 256, 0, stream,
// CHECK-NEXT: partial0, stats0, stats1, B, splits0);
// CHECK-NOT: _partial1
// CHECK: return launch_batch_norm_welford_k0_column_reduction_apply(
module @batch_norm_welford attributes {sinter.dims = {B = 8 : i64}} {
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

// CHECK-LABEL: // ===== column_sum.h =====
// Wide rows (2001 columns, not a multiple of 4: scalar loads): a block
// covers 256 adjacent columns with one lane of threads, and writes its
// partials without a fold through shared memory. 8 blocks of columns leave
// up to 128 slices a column: a block of the final kernel covers 32 columns,
// its 8 lanes of threads each fold every 8th slice in slice order
// (blocked), then the lanes fold in lane order.
// CHECK-LABEL: column_sum_k0_column_reduction_partial0(
// CHECK: const int64_t column = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x % 256;
// CHECK: const int64_t step = splits * 1;
// CHECK-NEXT: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 1 + threadIdx.x / 256; q0 < B; q0 += 8 * step) {
// CHECK-NOT: __shared__
// CHECK: if (column < 2001) {
// CHECK-NEXT: partial[blockIdx.y * 2001 + column] = total;
// CHECK-LABEL: column_sum_k0_column_reduction_final0(
// CHECK: __shared__ double lanes[8][32];
// CHECK: const int64_t p = p0 + threadIdx.x % 32;
// CHECK-NEXT: dev::Accumulator<dev::SumDoubleOp, double> accumulator;
// CHECK-NEXT: if (p < 2001)
// CHECK-NEXT: for (int64_t s = threadIdx.x / 32; s < splits; s += 8)
// CHECK-NEXT: accumulator.push(partial[s * 2001 + p]);
// CHECK-NEXT: lanes[threadIdx.x / 32][threadIdx.x % 32] = accumulator.result();
// CHECK: double total = lanes[0][threadIdx.x];
// CHECK-NEXT: for (int k = 1; k < 8; ++k)
// CHECK-NEXT: total = dev::SumDoubleOp()(total, lanes[k][threadIdx.x]);
// CHECK-NEXT: stats[p] = static_cast<float>(total);
// CHECK: const int64_t splits0 = sinterColumnSplits(B, 1, (2001 + 255) / 256);
// CHECK: sinter::launchDependent(
// CHECK: column_sum_k0_column_reduction_final0, gridBlocks(ctx, 2001, 32), 256, 0,
// CHECK-NEXT: stream, partial0, stats0, splits0);
module @column_sum attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x2001xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<1x2001xf32> {sinter.name = "s", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x2001xf32>) -> tensor<1x2001xf32> {
    ^bb0(%a: tensor<?x2001xf32>):
      %s = sinter.sum %a dims [0] keepdim : tensor<?x2001xf32>
      sinter.yield %s : tensor<1x2001xf32>
    }
    return %0 : tensor<1x2001xf32>
  }
}
// -----

// CHECK-LABEL: // ===== column_sum_wide.h =====
// 65536 columns: 256 blocks of columns leave at most 4 slices a column, too
// few for lanes: the final kernel folds a column a thread, in slice order
// (blocked).
// CHECK-LABEL: column_sum_wide_k0_column_reduction_final0(
// CHECK-NOT: __shared__
// CHECK: for (int64_t p = dev::globalThreadIndex(); p < 65536; p += dev::gridStride()) {
// CHECK-NEXT: dev::Accumulator<dev::SumDoubleOp, double> accumulator;
// CHECK-NEXT: for (int64_t s = 0; s < splits; ++s)
// CHECK-NEXT: accumulator.push(partial[s * 65536 + p]);
// CHECK-NEXT: double total = accumulator.result();
// CHECK: sinter::launchDependent(
// CHECK: column_sum_wide_k0_column_reduction_final0, gridBlocks(ctx, 65536, 256),
// CHECK-NEXT: 256, 0, stream, partial0, stats0, splits0);
module @column_sum_wide attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x65536xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<1x65536xf32> {sinter.name = "s", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x65536xf32>) -> tensor<1x65536xf32> {
    ^bb0(%a: tensor<?x65536xf32>):
      %s = sinter.sum %a dims [0] keepdim : tensor<?x65536xf32>
      sinter.yield %s : tensor<1x65536xf32>
    }
    return %0 : tensor<1x65536xf32>
  }
}
// -----

// CHECK-LABEL: // ===== column_argmin.h =====
// argmin over the batch: (value, index) partials (4 adjacent columns a
// thread, the index of the row), folded with the runtime's
// dev::ArgMinOp (and no ArgMaxOp; the runtime defines ArgValue and its warp
// shuffles, so the generated file defines none of them); the final kernel
// writes the indices straight into the output, with no apply kernel.
// CHECK-NOT: ArgMaxOp
// CHECK-NOT: struct ArgValue
// CHECK-NOT: shuffleDown(
// CHECK-NOT: struct ArgMinOp
// CHECK-LABEL: column_argmin_k0_column_reduction_partial0(
// CHECK-NEXT: const float *__restrict__ x, dev::ArgValue *__restrict__ partial, int64_t B,
// The result does not depend on the order: no blocked runs.
// CHECK: dev::ExactAccumulator<dev::ArgMinOp, dev::ArgValue> accumulator[4];
// A chunk holds the values only, its slots give the row indices (q0 + u *
// step for slot u, the identity's value past the rows): a tree in order.
// CHECK: float chunk[16];
// CHECK: chunk[4 * l + k] = dev::ArgMinOp::identity().value;
// CHECK: chunk[4 * l + k] = x_run0[l];
// CHECK: accumulator[l].push(dev::argTreeCombine<dev::LessThan, 4, 1>(chunk + 4 * l, q0, step));
// CHECK: __shared__ dev::ArgValue slices[16][64];
// CHECK-LABEL: column_argmin_k0_column_reduction_final0(
// CHECK-NEXT: const dev::ArgValue *__restrict__ partial, int64_t *__restrict__ stats,
// CHECK: total = dev::blockReduce<256, dev::ArgMinOp>(total);
// CHECK: stats[p] = total.index;
// CHECK-NOT: _apply
// CHECK: int64_t *const stats0 = y;
// CHECK: dev::ArgValue *const partial0 = reinterpret_cast<dev::ArgValue *>(cursor);
// CHECK: return SINTER_OK;
// CHECK-NOT: ArgMaxOp
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

// CHECK-LABEL: // ===== nchw_mean.h =====
// Training batch_norm statistics over [N, C, H, W] (dims 0, 2, 3 strided
// around the kept channel): the innermost dim is reduced, so each block's
// threads split one channel's elements (adjacent threads read adjacent
// addresses) and combine them with a block-wide tree, in double. H * W
// (25) is no multiple of 4: scalar loads.
// CHECK-LABEL: nchw_mean_k0_column_reduction_partial0(
// CHECK: const int64_t column = blockIdx.x;
// CHECK: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 256 + threadIdx.x; q0 < (B * 25); q0 += 8 * step) {
// CHECK: const double total = dev::blockReduce<256, dev::SumDoubleOp>(static_cast<double>(acc));
// CHECK-NEXT: if (threadIdx.x == 0)
// CHECK-NEXT: partial[blockIdx.y * 3 + column] = total;
// CHECK: stats[p] = static_cast<float>(total / static_cast<double>((B * 25)));
module @nchw_mean attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x3x5x5xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", "", ""]})
      -> (tensor<1x3x1x1xf32> {sinter.name = "m", sinter.dim_names = ["", "", "", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<?x3x5x5xf32>) -> tensor<1x3x1x1xf32> {
    ^bb0(%a: tensor<?x3x5x5xf32>):
      %m = sinter.mean %a dims [0, 2, 3] keepdim : tensor<?x3x5x5xf32>
      sinter.yield %m : tensor<1x3x1x1xf32>
    }
    return %0 : tensor<1x3x1x1xf32>
  }
}

// -----

// CHECK-LABEL: // ===== nchw_batch_norm.h =====
// Training batch_norm over [N, C, H, W] with its per-channel affine in one
// column kernel. W is a multiple of 4, so the plan's vector width is 4: the
// Welford partials read runs of 4 adjacent elements (a float4 where the
// launch finds x aligned, 4 scalar loads otherwise), 4 runs per chunk.
// CHECK-LABEL: nchw_batch_norm_k0_column_reduction_partial0(
// CHECK: int64_t splits, int vec) {
// CHECK: for (int64_t q0 = static_cast<int64_t>(blockIdx.y) * 256 + threadIdx.x; q0 < (B * 8) / 4; q0 += 4 * step) {
// CHECK: float chunk[16];
// CHECK: const int64_t q = (q0 + k * step) * 4;
// CHECK: const float4 x_run04 = vec ? dev::loadFloat4(x + [[I:i[0-9]+]]) : make_float4(x[[[I]] + 0], x[[[I]] + 1], x[[[I]] + 2], x[[[I]] + 3]);
// CHECK: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: chunk[4 * k + l] = x_run0[l];
// CHECK: rows += 4;
// CHECK: accumulator.push(dev::welfordOfChunk<16>(chunk, rows));
// The apply step reads the weight [C] as the [C, 1, 1] view that its
// reshape makes (no shape op left), so it keeps the float4 path, one
// channel index per four elements.
// Its statistics are one per channel, a scalar per float4 group: no
// register bound.
// CHECK: nchw_batch_norm_k0_column_reduction_final0(
// CHECK: __global__ void __launch_bounds__(256)
// CHECK-NEXT: nchw_batch_norm_k0_column_reduction_apply(
// CHECK: if (vec) {
// CHECK: const float4 x_v04 = dev::loadFloat4(x + i);
// CHECK: const int64_t [[C:i[0-9]+]] = (i / 8) % 4;
// CHECK: const float [[W:v[0-9]+]] = w[[[C]]];
// CHECK: for (int l = 0; l < 4; ++l) {
// CHECK: * [[W]];
// CHECK: dev::storeFloat4(y + i,
// The launch checks the alignment once and splits a quarter as many loads.
// CHECK-LABEL: static sinter_status launch_nchw_batch_norm_k0_column_reduction(
// CHECK: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK: const int64_t splits0 = sinterColumnSplits((B * 8) / 4, 256, (4 + 0) / 1);
// CHECK: sinter::launchDependent(
// CHECK-NEXT: nchw_batch_norm_k0_column_reduction_partial0, grid0, 256, 0, stream, x, w,
// CHECK-NEXT: partial0, B, splits0, vec);
module @nchw_batch_norm attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x4x2x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", "", ""]},
                     %w: tensor<4xf32> {sinter.role = "param", sinter.name = "w"})
      -> (tensor<?x4x2x4xf32> {sinter.name = "y", sinter.dim_names = ["B", "", "", ""]}) {
    %0 = sinter.kernel column_reduction(%x, %w) : (tensor<?x4x2x4xf32>, tensor<4xf32>) -> tensor<?x4x2x4xf32> {
    ^bb0(%a: tensor<?x4x2x4xf32>, %g: tensor<4xf32>):
      %m = sinter.mean %a dims [0, 2, 3] keepdim : tensor<?x4x2x4xf32>
      %d = sinter.sub %a, %m : tensor<?x4x2x4xf32>, tensor<1x4x1x1xf32>
      %sq = sinter.mul %d, %d : tensor<?x4x2x4xf32>, tensor<?x4x2x4xf32>
      %v = sinter.mean %sq dims [0, 2, 3] keepdim : tensor<?x4x2x4xf32>
      %r = sinter.rsqrt %v : tensor<1x4x1x1xf32>
      %n = sinter.mul %d, %r : tensor<?x4x2x4xf32>, tensor<1x4x1x1xf32>
      %gc = sinter.reshape %g : tensor<4xf32> -> tensor<4x1x1xf32>
      %y = sinter.mul %n, %gc : tensor<?x4x2x4xf32>, tensor<4x1x1xf32>
      sinter.yield %y : tensor<?x4x2x4xf32>
    }
    return %0 : tensor<?x4x2x4xf32>
  }
}

// -----

// CHECK-LABEL: // ===== welford_fold.h =====
// A static var over the first dim of [20, 3]: one slice a column, so the
// plan's last_block_folds (wide states fold in the last block only so). The
// partial kernel takes the results and the tickets. Launched with one slice,
// a block stores its columns' results itself, and no block folds; with more
// slices, the last block of a column group to finish folds the Welford
// states of its 4 columns in 64 lanes of slices (read from L2, in double)
// and rounds once: one launch, no final kernel.
// CHECK-LABEL: welford_fold_k0_column_reduction_partial0(
// CHECK-NEXT: const float *__restrict__ x, dev::Welford *__restrict__ partial,
// CHECK-NEXT: float *__restrict__ stats, float *__restrict__ variance,
// CHECK-NEXT: unsigned *__restrict__ tickets, int64_t splits) {
// CHECK: if (splits > 1) {
// CHECK-NEXT: partial[blockIdx.y * 3 + first] = total;
// CHECK-NEXT: } else {
// CHECK-NEXT: // One slice: the block's total is its column's result.
// CHECK-NEXT: const int64_t p = first;
// CHECK-NEXT: stats[p] = static_cast<float>(total.mean);
// CHECK-NEXT: variance[p] = static_cast<float>(total.m2 / static_cast<double>(20));
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // The last block of the column group to finish folds every slice's partials
// CHECK-NEXT: // (one slice stored its results above).
// CHECK-NEXT: if (splits == 1 || !dev::arrivesLast(tickets))
// CHECK-NEXT: return;
// CHECK: const int64_t p = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x % 4;
// CHECK-NEXT: dev::Accumulator<dev::WelfordDoubleOp, dev::WelfordDouble> fold;
// CHECK-NEXT: if (p < 3)
// CHECK-NEXT: for (int64_t s = threadIdx.x / 4; s < splits; s += 64)
// CHECK-NEXT: fold.push(dev::widen(dev::loadFromL2(partial + s * 3 + p)));
// CHECK-NEXT: dev::WelfordDouble total = dev::foldLanes<256, 4, dev::WelfordDoubleOp>(fold.result(), splits);
// CHECK-NEXT: if (threadIdx.x < 4 && p < 3) {
// CHECK-NEXT: stats[p] = static_cast<float>(total.mean);
// CHECK-NEXT: variance[p] = static_cast<float>(total.m2 / static_cast<double>(20));
// CHECK-NOT: welford_fold_k0_column_reduction_final0
// CHECK: float *__restrict__ v, void *scratch, unsigned *tickets) {
// CHECK: sinter::launchDependent(
// CHECK-NEXT: welford_fold_k0_column_reduction_partial0, grid0, 256, 0, stream, x,
// CHECK-NEXT: partial0, stats0, stats1, tickets, splits0);
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_launch(ctx, "welford_fold_k0_column_reduction_partial0"));
// CHECK-NEXT: return SINTER_OK;
module @welford_fold {
  func.func @forward(%x: tensor<20x3xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
      -> (tensor<1x3xf32> {sinter.name = "v", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<20x3xf32>) -> tensor<1x3xf32> {
    ^bb0(%a: tensor<20x3xf32>):
      %m = sinter.mean %a dims [0] keepdim : tensor<20x3xf32>
      %d = sinter.sub %a, %m : tensor<20x3xf32>, tensor<1x3xf32>
      %sq = sinter.mul %d, %d : tensor<20x3xf32>, tensor<20x3xf32>
      %v = sinter.mean %sq dims [0] keepdim : tensor<20x3xf32>
      sinter.yield %v : tensor<1x3xf32>
    }
    return %0 : tensor<1x3xf32>
  }
}

// -----

// CHECK-LABEL: // ===== strided_runs.h =====
// A max over N, H and W of a static [2, 3, 5, 7]: H and W are adjacent
// reduced dims, so their coordinates come from one division and remainder
// by H * W (not by H and W apart), and the reduced position, of an input
// of fewer than 2^32 elements, is 32-bit (its divisions by sizes that are
// no powers of two a multiply-high).
// CHECK-LABEL: strided_runs_k0_column_reduction_partial0(
// CHECK: const uint32_t q = static_cast<uint32_t>(q0 + k * step);
// CHECK-NEXT: const int64_t [[X:i[0-9]+]] = (q / 35) * 105 + column * 35 + q % 35;
// CHECK-NEXT: = x[[[X]]];
module @strided_runs {
  func.func @forward(%x: tensor<2x3x5x7xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", "", "", ""]})
      -> (tensor<3xf32> {sinter.name = "m", sinter.dim_names = [""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<2x3x5x7xf32>) -> tensor<3xf32> {
    ^bb0(%a: tensor<2x3x5x7xf32>):
      %m = sinter.max %a dims [0, 2, 3] : tensor<2x3x5x7xf32>
      sinter.yield %m : tensor<3xf32>
    }
    return %0 : tensor<3xf32>
  }
}

// -----

// CHECK-LABEL: // ===== wide_chunks.h =====
// Argmax over the 150 classes of [16, 150, 25600]: one slice over 1600
// blocks, 38 runs a thread, so the plan's chunk_loads is 8: each thread
// issues 8 float4 runs before it combines them (32 values, a tree of 8 a
// column), at 3 blocks a multiprocessor.
// CHECK: __global__ void __launch_bounds__(256, 3)
// CHECK-NEXT: wide_chunks_k0_column_reduction_partial0(
// CHECK: q0 < 150; q0 += 8 * step) {
// CHECK-NEXT: float chunk[32];
// CHECK: for (int k = 0; k < 8; ++k) {
// CHECK: chunk[8 * l + k] = dev::ArgMaxOp::identity().value;
// CHECK: dev::argTreeCombine<dev::GreaterThan, 8, 1>(chunk + 8 * l, q0, step)
module @wide_chunks {
  func.func @forward(%x: tensor<16x150x25600xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", "", ""]})
      -> (tensor<16x25600xi64> {sinter.name = "a", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<16x150x25600xf32>) -> tensor<16x25600xi64> {
    ^bb0(%v: tensor<16x150x25600xf32>):
      %a = sinter.argmax %v dims [1] : tensor<16x150x25600xf32>
      sinter.yield %a : tensor<16x25600xi64>
    }
    return %0 : tensor<16x25600xi64>
  }
}

// -----

// CHECK-LABEL: // ===== runs_across_rows.h =====
// A sum over N, H and W of [2, 3, 6, 10]: H * W (60) is a multiple of 4, W
// is not, so the float4 runs go along H and W at the linear index (one
// division and remainder by 60), crossing rows of W.
// CHECK-LABEL: runs_across_rows_k0_column_reduction_partial0(
// CHECK: q0 < 120 / 4; q0 += 4 * step) {
// CHECK: const uint32_t q = static_cast<uint32_t>((q0 + k * step) * 4);
// CHECK-NEXT: const int64_t [[I:i[0-9]+]] = (q / 60) * 180 + column * 60 + q % 60;
// CHECK-NEXT: const float4 x_run04 = vec ? dev::loadFloat4(x + [[I]]) : make_float4(x[[[I]] + 0], x[[[I]] + 1], x[[[I]] + 2], x[[[I]] + 3]);
module @runs_across_rows {
  func.func @forward(%x: tensor<2x3x6x10xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", "", "", ""]})
      -> (tensor<3xf32> {sinter.name = "s", sinter.dim_names = [""]}) {
    %0 = sinter.kernel column_reduction(%x) : (tensor<2x3x6x10xf32>) -> tensor<3xf32> {
    ^bb0(%a: tensor<2x3x6x10xf32>):
      %s = sinter.sum %a dims [0, 2, 3] : tensor<2x3x6x10xf32>
      sinter.yield %s : tensor<3xf32>
    }
    return %0 : tensor<3xf32>
  }
}
