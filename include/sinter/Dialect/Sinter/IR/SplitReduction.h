//===- SplitReduction.h - How a split reduction divides its rows -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The slices a split reduction divides the rows of each column into: one
// rule for sinter-plan-kernels, which sizes the fold from it, and for the
// generated host code, which launches that many blocks per column group
// (the CUDA emitter writes sinterColumnSplits from these constants).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SPLITREDUCTION_H
#define SINTER_DIALECT_SINTER_IR_SPLITREDUCTION_H

#include <algorithm>
#include <cstdint>

namespace mlir::sinter {

/// The partial blocks a split reduction aims for in all: about one wave of
/// 256-thread blocks at 4 per SM on the H100's 132 SMs (528). With 1024 (two
/// waves, the second short of a full one) argmax over the first dim of
/// [16384, 4096] ran at 0.881 of the copy bandwidth, with 512 at 0.930; every
/// split case of the sweep ran as fast or faster.
inline constexpr int64_t kSplitTargetBlocks = 512;
/// One wave of those blocks (528): where rounding the slices up to reach
/// kSplitTargetBlocks would overshoot it, they round down to fit it. A sum
/// over the middle dim of [64, 999, 1001] (251 column blocks) ran at 0.77
/// of copy in 3 slices (753 blocks, the second wave less than half full),
/// 0.87 in 2 (502), 0.83 in 6 (1506) on the H100.
inline constexpr int64_t kSplitWaveBlocks = 528;
/// The most slices a streamed row kernel (a plan's row_slices) cuts a row
/// into: one partial a thread of a block of up to 1024 threads.
inline constexpr int64_t kMaxRowSlices = 1024;
/// The most blocks a multiprocessor of a streamed row kernel's persistent
/// grid (a plan's stream_blocks): as many as 64-thread blocks fill.
inline constexpr int64_t kMaxStreamBlocks = 32;
/// The rows (or runs of 4) each thread of a partial block reads at least.
inline constexpr int64_t kSplitRowsPerThread = 8;
/// The loads a thread of a partial kernel issues before it combines them
/// (the plan's chunk_loads): elements, or runs of 4. Fewer runs: chunks of
/// 16 values keep a partial kernel of runs along the rows near 48
/// registers, 5 blocks of 256 threads per SM, where 8 runs took 80 and 3
/// blocks, and ran slower on the H100. Online softmax states push their
/// chunks, rescaling a state's sum only where a chunk raises the max
/// (OnlineSoftmaxAccumulator), so 8 runs are slower for them too:
/// logsumexp over the columns of [16384, 4096] took 0.1016 ms with 4
/// against 0.1086 ms with 8 (0.873 and 0.816 of the copy bandwidth).
inline constexpr int64_t kChunkElements = 8;
inline constexpr int64_t kChunkRuns = 4;
/// Wide chunks: runs of 4 a thread of a partial kernel of one slice and
/// many blocks issues, and the blocks a multiprocessor it then asks for
/// (80 registers a thread; PlanSplitReductions.cpp says where).
inline constexpr int64_t kWideChunkRuns = 8;
inline constexpr int64_t kWideChunkMinBlocks = 3;
/// The most loads of a chunk (the verifier's bound).
inline constexpr int64_t kMaxChunkLoads = 16;
static_assert(kChunkElements >= kSplitRowsPerThread);

/// The most slices a column is split into.
inline constexpr int64_t kMaxSplits = 1024;

/// The partials a thread of the last block folds at most under the plan's
/// last_block_folds (256 threads; columns_per_block times the slices).
inline constexpr int64_t kMaxFoldPerThread = 32;

/// The elements of the inputs of the reduced shape that a thread of a strip
/// (the plan's apply_in_strip) holds in registers, at most: its loads (the
/// reduced elements over 256 / columns_per_block lanes) times those inputs.
inline constexpr int64_t kMaxStripFloats = 32;

/// The bytes of the inputs of the reduced shape that a strip stages in
/// shared memory (the plan's cached operands under apply_in_strip), at
/// most: three blocks a multiprocessor. Softmax over the middle dim of
/// [32, 16, 512, 256] (64 KiB strips of 32 columns) ran at 1.16x
/// torch.compile staged, 0.91x as a split online softmax (the H100).
inline constexpr int64_t kMaxStripSharedBytes = 64 * 1024;
/// The blocks a multiprocessor that such strips ask for (min_blocks): as
/// many as their shared memory allows, so that each thread may use 85
/// registers (64 spilled).
inline constexpr int64_t kStagedStripMinBlocks = 3;

/// Columns of at most kSplitRowsPerThread rows, one lane a column (odd
/// columns, no float4 runs), have one slice: each thread of the partial
/// kernel finishes `columns_per_thread` of them (up to this many), enough
/// that it has kColumnLoadsInFlight loads in flight at least. The mean over
/// the first dim of [3, 22369621] ran at 0.63 of copy with a column a
/// thread, 1.02 with 4 or 8 (the H100).
inline constexpr int64_t kMaxColumnsPerThread = 8;
inline constexpr int64_t kColumnLoadsInFlight = 12;

/// The reduced elements of a position of [A, R, C] reduced along R (R * C)
/// from which a block reads a kept run of C (a power of two below a line;
/// 16 a thread of 256), and below which a warp reads it (warp runs, C from
/// kMinWarpRunChannels to kMaxWarpRunChannels). sinter-stage-reductions
/// splits longer R of other C into stages below it.
inline constexpr int64_t kMinRunBlockElements = 16 * 256;

/// The positions of A each warp of a warp-run kernel reduces at most (the
/// plan's warp_runs; see KernelPlanAttr), and the kept runs (C) it takes:
/// 2 to 16 elements, so that each channel has two lanes at least.
inline constexpr int64_t kMaxWarpRuns = 8;
inline constexpr int64_t kMinWarpRunChannels = 2;
inline constexpr int64_t kMaxWarpRunChannels = 16;

/// The slices for `blocks` blocks along the columns whose threads split each
/// slice of `rows` rows into `lanes`: about kSplitTargetBlocks blocks in all
/// but at most one wave (kSplitWaveBlocks) where fewer slices fit one, at
/// least kSplitRowsPerThread rows a thread. A function of the shape only,
/// so that results do not depend on the GPU.
inline constexpr int64_t getColumnSplits(int64_t rows, int64_t lanes,
                                         int64_t blocks) {
  int64_t splits = (kSplitTargetBlocks + blocks - 1) / blocks;
  if (splits > 1 && splits * blocks > kSplitWaveBlocks)
    splits = std::max<int64_t>(1, kSplitWaveBlocks / blocks);
  const int64_t most =
      (rows + kSplitRowsPerThread * lanes - 1) / (kSplitRowsPerThread * lanes);
  splits = std::min(splits, most);
  return std::clamp<int64_t>(splits, 1, kMaxSplits);
}

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_SPLITREDUCTION_H
