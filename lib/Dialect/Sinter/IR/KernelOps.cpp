//===- KernelOps.cpp - sinter.kernel and its plan -------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The geometry of a reduction, the verifier of a kernel's region and of
// the plan that sinter-plan-kernels attaches to it.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ReductionRuns.h"
#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"
#include "sinter/Dialect/Sinter/IR/ThreadTiles.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ReductionGeometry mlir::sinter::classifyReduction(ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> dims) {
  // The non-unit dims, each marked reduced or kept, in order.
  SmallVector<bool> reduced;
  for (auto [index, size] : llvm::enumerate(shape))
    if (size != 1)
      reduced.push_back(llvm::is_contained(dims, static_cast<int64_t>(index)));
  if (llvm::all_of(reduced, [](bool r) { return r; }))
    return reduced.empty() ? ReductionGeometry::trailing
                           : ReductionGeometry::all;
  // The runs of equal marks: kept-reduced (trailing), reduced-kept (leading),
  // kept-reduced-kept (middle); more runs are strided.
  SmallVector<bool> runs;
  for (bool r : reduced)
    if (runs.empty() || runs.back() != r)
      runs.push_back(r);
  if (runs.size() == 1)
    return ReductionGeometry::trailing; // Only unit dims are reduced.
  if (runs.size() == 2)
    return runs.front() ? ReductionGeometry::leading
                        : ReductionGeometry::trailing;
  if (runs.size() == 3 && !runs.front())
    return ReductionGeometry::middle;
  return ReductionGeometry::strided;
}

//===----------------------------------------------------------------------===//
// KernelPlanAttr
//===----------------------------------------------------------------------===//

/// Whether `strategy` can generate a kernel whose reductions lie as
/// `geometry`: row strategies need trailing dims, a split reduction any
/// (few long rows are split too), the elementwise strategy none; a library
/// GEMM's epilogue may be any.
static bool isStrategyForGeometry(KernelStrategy strategy,
                                  ReductionGeometry geometry) {
  switch (strategy) {
  case KernelStrategy::elementwise:
    return geometry == ReductionGeometry::none;
  case KernelStrategy::subwarp_per_row:
  case KernelStrategy::warp_per_row:
  case KernelStrategy::block_per_row:
  case KernelStrategy::row_by_length:
    return geometry == ReductionGeometry::trailing;
  case KernelStrategy::split_reduction:
  case KernelStrategy::split_welford:
  case KernelStrategy::split_online_softmax:
    return geometry != ReductionGeometry::none;
  case KernelStrategy::library_gemm:
    return true;
  }
  llvm_unreachable("unknown strategy");
}

/// The threads a multiprocessor runs at most (compute capability 7.0 to
/// 9.0), which the blocks that launch bounds ask for must fit.
static constexpr int64_t kMaxThreadsPerSM = 2048;
/// Threads per block of the apply step of a split reduction.
static constexpr int64_t kApplyThreads = 256;

/// Checks the blocks per multiprocessor that a plan's launch bounds ask
/// for: none for a library GEMM (no generated kernel of its own), an apply
/// step only for a split reduction, and as many blocks as a multiprocessor
/// can hold where the block's threads are static.
static LogicalResult
verifyMinBlocks(function_ref<InFlightDiagnostic()> emitError,
                KernelStrategy strategy, int64_t block, int64_t rowsPerBlock,
                int64_t minBlocks, int64_t applyMinBlocks) {
  if (minBlocks < 0 || applyMinBlocks < 0)
    return emitError() << "min_blocks " << minBlocks << " and apply_min_blocks "
                       << applyMinBlocks << " must be non-negative";
  if (minBlocks != 0 && strategy == KernelStrategy::library_gemm)
    return emitError() << "min_blocks " << minBlocks
                       << ": a library GEMM has no launch bounds";
  bool split = isSplitStrategy(strategy);
  if (applyMinBlocks != 0 && !split)
    return emitError() << "apply_min_blocks " << applyMinBlocks
                       << ": only a split reduction has an apply step";
  // A row kernel's block holds `rows_per_block` teams of `block` threads
  // (a sub-warp team: lanes), other kernels' `block` threads.
  bool rows = strategy == KernelStrategy::subwarp_per_row ||
              strategy == KernelStrategy::warp_per_row ||
              strategy == KernelStrategy::block_per_row;
  int64_t threads = rows ? block * rowsPerBlock : block;
  if (threads != 0 && minBlocks * threads > kMaxThreadsPerSM)
    return emitError() << "min_blocks " << minBlocks << " of " << threads
                       << " threads: more than the " << kMaxThreadsPerSM
                       << " threads of a multiprocessor";
  if (applyMinBlocks * kApplyThreads > kMaxThreadsPerSM)
    return emitError() << "apply_min_blocks " << applyMinBlocks << " of "
                       << kApplyThreads << " threads: more than the "
                       << kMaxThreadsPerSM << " threads of a multiprocessor";
  return success();
}

LogicalResult KernelPlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, KernelStrategy strategy,
    ReductionGeometry geometry, int64_t block, int64_t rowsPerBlock,
    int64_t columnsPerBlock, int64_t vectorWidth, DenseI64ArrayAttr cached,
    int64_t passes, int64_t launches, EpilogueForm epilogue, bool singlePass,
    bool registers, bool lastBlockFolds, int64_t minBlocks,
    int64_t applyMinBlocks, int64_t applyRowsPerThread, bool applyInFold,
    int64_t cluster, int64_t rowSlices, int64_t streamLag, int64_t streamBlocks,
    bool applyInStrip, bool tileRows, int64_t columnsPerThread,
    int64_t rowsPerThread, int64_t chunkLoads, DenseI64ArrayAttr heldParams,
    int64_t warpRuns) {
  if (!isStrategyForGeometry(strategy, geometry))
    return emitError() << "strategy " << stringifyKernelStrategy(strategy)
                       << " cannot reduce "
                       << stringifyReductionGeometry(geometry) << " dims";
  bool subwarp = strategy == KernelStrategy::subwarp_per_row;
  if (subwarp && (block < 1 || block > 16 || !llvm::isPowerOf2_64(block)))
    return emitError() << "subwarp_per_row with " << block
                       << " lanes per row: expected a power of two from 1 "
                          "to 16";
  if (!subwarp && block != 0 && (block < 32 || block > 1024 || block % 32 != 0))
    return emitError() << "block of " << block
                       << " threads: expected whole warps, at most 1024 (or "
                          "0: chosen at launch)";
  bool rows = strategy == KernelStrategy::warp_per_row ||
              strategy == KernelStrategy::block_per_row || subwarp;
  if (rows != (block != 0 && rowsPerBlock > 0) &&
      strategy != KernelStrategy::library_gemm)
    return emitError() << "rows_per_block " << rowsPerBlock << " and block "
                       << block << " do not fit strategy "
                       << stringifyKernelStrategy(strategy);
  bool split = isSplitStrategy(strategy);
  if (split !=
      (columnsPerBlock > 0 && (256 % columnsPerBlock == 0 || warpRuns != 0)))
    return emitError()
           << "columns_per_block " << columnsPerBlock
           << ": a split reduction needs a divisor of 256 (any under "
              "warp_runs), other "
              "strategies 0";
  if (vectorWidth != 1 && vectorWidth != 4)
    return emitError() << "vector width " << vectorWidth << ": expected 1 or 4";
  if (!cached || llvm::any_of(cached.asArrayRef(),
                              [](int64_t index) { return index < 0; }))
    return emitError() << "cached operand indices must be non-negative";
  if (!cached.empty() && !rows && strategy != KernelStrategy::row_by_length &&
      !applyInStrip)
    return emitError() << "only row kernels and strips (apply_in_strip) "
                          "cache operands";
  if (passes < 1 || launches < 1)
    return emitError() << "passes and launches must be at least 1";
  if (singlePass && !rows && strategy != KernelStrategy::row_by_length)
    return emitError() << "only row kernels compute statistics in a single "
                          "pass";
  if ((epilogue != EpilogueForm::none) &&
      strategy != KernelStrategy::library_gemm)
    return emitError() << "only a library GEMM has an epilogue form";
  // Rows in registers are float4 groups at a count per thread fixed by the
  // team. (A sub-warp team that does not hold its rows there walks rows
  // that are not float4 groups: of 3 elements, of 7.)
  if (registers && (!rows || vectorWidth != 4))
    return emitError() << "rows in registers need a row strategy of a static "
                          "team and vector width 4";
  if (lastBlockFolds && !split)
    return emitError() << "only a split reduction's last block folds its "
                          "partials";
  if (applyRowsPerThread < 1 || applyRowsPerThread > 64 ||
      (applyRowsPerThread != 1 && !split))
    return emitError() << "apply_rows_per_thread " << applyRowsPerThread
                       << ": expected 1 to 64, and 1 but for a split "
                          "reduction's apply step";
  if (applyInFold && !split)
    return emitError() << "only a split reduction's fold computes the apply "
                          "step";
  if (applyInFold && (applyMinBlocks != 0 || applyRowsPerThread != 1))
    return emitError() << "apply_in_fold: the apply step launches no kernel "
                          "of its own (apply_min_blocks 0 and "
                          "apply_rows_per_thread 1 expected)";
  if (cluster != 1 &&
      (cluster < 2 || cluster > 8 || !llvm::isPowerOf2_64(cluster)))
    return emitError() << "cluster of " << cluster
                       << " blocks: expected a power of two from 2 to 8 (or "
                          "1: none)";
  if (rowSlices < 1 || rowSlices > kMaxRowSlices)
    return emitError() << "row_slices " << rowSlices << ": expected 2 to "
                       << kMaxRowSlices << " (or 1: none)";
  // A cluster shares a row that its blocks cache in shared memory, a slice
  // each, walked by whole blocks.
  if (cluster != 1 &&
      (strategy != KernelStrategy::block_per_row || rowsPerBlock != 1 ||
       cached.empty() || registers || singlePass || rowSlices != 1))
    return emitError() << "a cluster of " << cluster
                       << " blocks shares a row of block_per_row (one row a "
                          "block) that it caches, without rows in "
                          "registers, single-pass statistics or row_slices";
  // Streamed slices are read from HBM, then from L2, a block each; each
  // row's statistics are folded from one partial a thread of the block.
  if (rowSlices != 1 && (strategy != KernelStrategy::block_per_row ||
                         rowsPerBlock != 1 || !cached.empty() || registers ||
                         singlePass || passes != 1 || rowSlices > block))
    return emitError() << "row_slices " << rowSlices
                       << " streams rows of block_per_row (one row a block) "
                          "read once from HBM (passes 1), without cached "
                          "operands, rows in registers or single-pass "
                          "statistics, in at most as many slices as the "
                          "block has threads";
  if (rowSlices != 1 ? streamLag < rowSlices : streamLag != 0)
    return emitError() << "stream_lag " << streamLag
                       << ": expected at least row_slices (" << rowSlices
                       << ") where rows are streamed, else 0";
  // A strip's block reads every reduced element of its columns and then
  // writes the apply step's outputs over them itself: one launch, one read
  // of HBM, no partials to fold, by a persistent grid.
  if (applyInStrip &&
      (!split || lastBlockFolds || applyInFold || applyMinBlocks != 0 ||
       applyRowsPerThread != 1 || vectorWidth != 1 || passes != 1 ||
       launches != 1 || columnsPerBlock < 8 || block != 256))
    return emitError() << "apply_in_strip: a split reduction of 256 threads "
                          "over strips of 8 or more positions, one pass and "
                          "one launch, vector width 1, without a fold or an "
                          "apply step of its own";
  // A tile holds the block's rows of each cached operand, one after
  // another, which the block copies as float4 groups: each tile starts at a
  // multiple of four floats. A block has at most 1024 threads.
  if (tileRows &&
      (!(subwarp || strategy == KernelStrategy::warp_per_row) ||
       rowsPerBlock % 4 != 0 || block * rowsPerBlock / rowsPerThread > 1024 ||
       cached.empty() || registers || vectorWidth != 1 || passes != 1))
    return emitError() << "tile_rows: rows of subwarp_per_row or "
                          "warp_per_row, a multiple of 4 a block of at most "
                          "1024 threads, cached operands, not in registers, "
                          "vector width 1 and passes 1";
  // A thread's tile of rows in registers: a lane a row, 256 threads a
  // block; 2 rows (of 2, 6, 10, 14 elements) or 4 (of odd lengths) make
  // float4 groups.
  if (rowsPerThread != 1 &&
      (!tileRows || !subwarp || block != 1 ||
       (rowsPerThread != 2 && rowsPerThread != 4) ||
       rowsPerBlock != kThreadTileThreads * rowsPerThread))
    return emitError() << "rows_per_thread " << rowsPerThread
                       << ": expected 2 or 4 (or 1) with tile_rows, a lane a "
                          "row and rows_per_block "
                       << kThreadTileThreads << " times it";
  // Several columns a thread: each thread finishes its columns, every
  // reduced element of each read at once (one slice, no fold of partials);
  // scalar loads, 256 apart.
  if (columnsPerThread != 1 &&
      (columnsPerThread < 2 || columnsPerThread > kMaxColumnsPerThread ||
       !llvm::isPowerOf2_64(columnsPerThread) ||
       (strategy != KernelStrategy::split_reduction &&
        strategy != KernelStrategy::split_welford) ||
       columnsPerBlock != 256 || vectorWidth != 1 || !lastBlockFolds ||
       applyInStrip))
    return emitError() << "columns_per_thread " << columnsPerThread
                       << ": expected a power of two from 2 to "
                       << kMaxColumnsPerThread
                       << " (or 1) for split_reduction or split_welford "
                          "over 256 columns a block, vector width 1, whose "
                          "last block folds (one slice), not in strips";
  // A partial kernel's thread issues a chunk of loads, then combines them:
  // every split strategy has one; several columns a thread load all of a
  // column's reduced elements (at most kSplitRowsPerThread) as one chunk.
  // An elementwise thread may load several float4 groups before it
  // computes them.
  bool elementwiseGroups = strategy == KernelStrategy::elementwise &&
                           vectorWidth == 4 && chunkLoads != 0;
  if (isSplitStrategy(strategy) || elementwiseGroups
          ? !llvm::isPowerOf2_64(chunkLoads) || chunkLoads < 2 ||
                chunkLoads > kMaxChunkLoads ||
                (columnsPerThread > 1 && chunkLoads < kSplitRowsPerThread)
          : chunkLoads != 0)
    return emitError() << "chunk_loads " << chunkLoads
                       << ": expected a power of two from 2 to "
                       << kMaxChunkLoads << " for a split strategy (at least "
                       << kSplitRowsPerThread
                       << " with several columns a thread) or an elementwise "
                          "kernel of vector width 4, else 0";
  // Params held across a thread's rows: rows in registers of a team of a
  // warp or fewer (which walk many rows a thread), operands not cached.
  if (heldParams && !heldParams.empty()) {
    if (!registers || (strategy != KernelStrategy::subwarp_per_row &&
                       strategy != KernelStrategy::warp_per_row))
      return emitError() << "held_params need rows in registers of "
                            "subwarp_per_row or warp_per_row";
    ArrayRef<int64_t> held = heldParams.asArrayRef();
    for (auto [i, index] : llvm::enumerate(held))
      if (index < 0 || (i > 0 && index <= held[i - 1]) ||
          llvm::is_contained(cached.asArrayRef(), index))
        return emitError() << "held_params: expected increasing operand "
                              "indices, none of them cached";
  }
  // A warp-run kernel: whole positions of A a warp, 8 warps a block, C
  // channels each, one launch that finishes its columns.
  if (warpRuns != 0 &&
      (warpRuns < 1 || warpRuns > kMaxWarpRuns ||
       (strategy != KernelStrategy::split_reduction &&
        strategy != KernelStrategy::split_welford) ||
       geometry != ReductionGeometry::middle || block != 256 ||
       columnsPerBlock % (8 * warpRuns) != 0 ||
       columnsPerBlock / (8 * warpRuns) < kMinWarpRunChannels ||
       columnsPerBlock / (8 * warpRuns) > kMaxWarpRunChannels ||
       vectorWidth != 1 || columnsPerThread != 1 || applyInStrip ||
       !lastBlockFolds || passes != launches || launches > 2))
    return emitError() << "warp_runs " << warpRuns << ": expected 1 to "
                       << kMaxWarpRuns
                       << " (or 0) for split_reduction or split_welford "
                          "over a middle dim, "
                          "256 threads a block, columns_per_block 8 * "
                          "warp_runs * C (C from "
                       << kMinWarpRunChannels << " to " << kMaxWarpRunChannels
                       << "), vector width 1, one column a thread, not in "
                          "strips, finished where read (last_block_folds), "
                          "one launch and pass, or two with an apply step";
  if (rowSlices != 1 ? streamBlocks < 1 || streamBlocks > kMaxStreamBlocks
                     : streamBlocks != 0)
    return emitError() << "stream_blocks " << streamBlocks << ": expected 1 to "
                       << kMaxStreamBlocks
                       << " where rows are streamed, else 0";
  // A team walks each row: one warp for warp_per_row, the whole block (256
  // threads or more) for block_per_row, whose reductions fold every thread
  // of the block; a block holds 256 / block teams (one of 256 threads or
  // more), but for tiles.
  if (rows && block != 0 && !tileRows &&
      ((strategy == KernelStrategy::warp_per_row && block != 32) ||
       (strategy == KernelStrategy::block_per_row && block < 256) ||
       rowsPerBlock != std::max<int64_t>(1, 256 / block)))
    return emitError() << "a team of " << block << " threads of "
                       << stringifyKernelStrategy(strategy)
                       << " with rows_per_block " << rowsPerBlock
                       << ": expected one warp for warp_per_row, 256 "
                          "threads or more for block_per_row, and 256 / "
                          "block rows a block (1 from 256 threads)";
  return verifyMinBlocks(emitError, strategy, block, rowsPerBlock, minBlocks,
                         applyMinBlocks);
}

/// Whether a kernel of `kind` can run a plan of `strategy`.
static bool isStrategyForKind(KernelStrategy strategy, KernelKind kind) {
  switch (kind) {
  case KernelKind::gemm:
    return strategy == KernelStrategy::library_gemm;
  case KernelKind::pointwise:
    return strategy == KernelStrategy::elementwise;
  case KernelKind::matvec:
    return strategy == KernelStrategy::library_gemm ||
           strategy == KernelStrategy::subwarp_per_row ||
           strategy == KernelStrategy::warp_per_row ||
           strategy == KernelStrategy::block_per_row ||
           strategy == KernelStrategy::row_by_length;
  case KernelKind::row_reduction:
    // Few long rows are split over many blocks.
    return strategy == KernelStrategy::subwarp_per_row ||
           strategy == KernelStrategy::warp_per_row ||
           strategy == KernelStrategy::block_per_row ||
           strategy == KernelStrategy::row_by_length ||
           isSplitStrategy(strategy);
  case KernelKind::column_reduction:
    return isSplitStrategy(strategy);
  }
  llvm_unreachable("unknown kernel kind");
}

/// Checks what a strip's kernel (the plan's apply_in_strip) relies on: a
/// column kernel whose reductions share one static input shape and its
/// reduced dims, whose outputs are statistics or of that shape, whose
/// threads hold at most kMaxStripFloats elements of its inputs of that
/// shape in registers, and whose strips stage at most kMaxStripSharedBytes
/// of the cached ones in shared memory.
static LogicalResult verifyStrips(KernelOp kernel, KernelPlanAttr plan) {
  if (kernel.getKind() != KernelKind::column_reduction)
    return kernel.emitOpError("plan apply_in_strip needs a column_reduction "
                              "kernel");
  Block &body = kernel.getBody().front();
  ReductionOpInterface first;
  llvm::DenseSet<Value> statistics;
  for (Operation &op : body) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (!reduction)
      continue;
    statistics.insert(op.getResult(0));
    if (!first)
      first = reduction;
    else if (reduction.getInput().getType() != first.getInput().getType() ||
             reduction.getDims() != first.getDims())
      return kernel.emitOpError("plan apply_in_strip needs every reduction "
                                "over the same input shape and dims");
  }
  auto input =
      first ? cast<ShapedType>(first.getInput().getType()) : ShapedType();
  if (!input || !input.hasStaticShape())
    return kernel.emitOpError("plan apply_in_strip needs a reduction of a "
                              "static shape");
  for (Value output : body.getTerminator()->getOperands())
    if (!statistics.contains(output) && output.getType() != input)
      return kernel.emitOpError("plan apply_in_strip: an output that is not "
                                "a statistic has another shape than the "
                                "reduced input");
  int64_t positions = 1;
  for (auto [dim, size] : llvm::enumerate(input.getShape()))
    if (!llvm::is_contained(first.getDims(), static_cast<int64_t>(dim)))
      positions *= size;
  int64_t reduced = positions ? input.getNumElements() / positions : 0;
  // The operands of the input's shape: cached ones staged in the strip's
  // shared memory, the others in registers (one, for an input the kernel
  // computes).
  int64_t staged = 0, held = 0;
  for (BlockArgument argument : body.getArguments()) {
    bool cached =
        llvm::is_contained(plan.getCached().asArrayRef(),
                           static_cast<int64_t>(argument.getArgNumber()));
    if (cached && argument.getType() != input)
      return kernel.emitOpError("plan apply_in_strip caches operand #")
             << argument.getArgNumber()
             << ", which does not have the reduced input's shape";
    if (argument.getType() == input)
      ++(cached ? staged : held);
  }
  if (staged == 0 && held == 0)
    held = 1;
  int64_t loads =
      llvm::divideCeil(reduced, plan.getBlock() / plan.getColumnsPerBlock());
  if (loads * held > kMaxStripFloats)
    return kernel.emitOpError("plan apply_in_strip: a thread would hold ")
           << loads * held << " elements in registers, more than "
           << kMaxStripFloats;
  int64_t sharedBytes = staged * reduced * plan.getColumnsPerBlock() * 4;
  if (sharedBytes > kMaxStripSharedBytes)
    return kernel.emitOpError("plan apply_in_strip: a strip would stage ")
           << sharedBytes << " bytes in shared memory, more than "
           << kMaxStripSharedBytes;
  return success();
}

/// Checks what several columns a thread (the plan's columns_per_thread)
/// rely on: a column kernel whose every column has a static count of
/// reduced elements, at most kSplitRowsPerThread (one chunk of a thread,
/// one slice).
static LogicalResult verifyColumnsPerThread(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::column_reduction)
    return kernel.emitOpError("plan columns_per_thread needs a "
                              "column_reduction kernel");
  for (Operation &op : kernel.getBody().front()) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (!reduction)
      continue;
    auto input = cast<ShapedType>(reduction.getInput().getType());
    auto result = cast<ShapedType>(op.getResult(0).getType());
    if (!input.hasStaticShape() || !result.hasStaticShape() ||
        result.getNumElements() == 0 ||
        input.getNumElements() / result.getNumElements() > kSplitRowsPerThread)
      return kernel.emitOpError("plan columns_per_thread needs columns of a "
                                "static count of at most ")
             << kSplitRowsPerThread << " reduced elements";
  }
  return success();
}

/// Checks what warp runs (the plan's warp_runs) rely on: a column_reduction
/// kernel of one reduction that the emitter computes (not one that
/// sinter-decompose rewrites), or of a mean and the variance around it (one
/// pass of Welford states), over a static count of reduced elements.
static LogicalResult verifyWarpRuns(KernelOp kernel) {
  SmallVector<ReductionOpInterface> reductions(
      kernel.getBody().front().getOps<ReductionOpInterface>());
  // A mean and the variance around it are one statistic of Welford states.
  auto isWelfordPair = [&] {
    std::optional<SinglePassPair> pair =
        matchSinglePassPair(reductions.back().getOperation());
    return pair && pair->form == SinglePassForm::Welford &&
           pair->first == reductions.front().getOperation();
  };
  if (kernel.getKind() != KernelKind::column_reduction ||
      !(reductions.size() == 1 || (reductions.size() == 2 && isWelfordPair())))
    return kernel.emitOpError("plan warp_runs needs a column_reduction "
                              "kernel of one reduction, or of a mean and the "
                              "variance around it");
  ReductionOpInterface reduction = reductions.front();
  if (getCombinerInfo(reduction.getCombiner()).isDecomposed() ||
      !reduction.getStaticGroupSize())
    return kernel.emitOpError("plan warp_runs needs a sum, mean, max, min, "
                              "prod, argmax or argmin over a static count of "
                              "reduced elements");
  return success();
}

/// Checks that the plan's held_params are operands of the kernel with one
/// static row's elements: a param broadcast along the rows of every
/// reduction.
static LogicalResult verifyHeldParams(KernelOp kernel, KernelPlanAttr plan) {
  for (int64_t index : plan.getHeldParams().asArrayRef()) {
    if (index >= static_cast<int64_t>(kernel.getInputs().size()))
      return kernel.emitOpError("plan holds operand #")
             << index << " but the kernel has " << kernel.getInputs().size()
             << " operands";
    auto type = dyn_cast<ShapedType>(kernel.getInputs()[index].getType());
    bool rowParam = type && type.hasStaticShape();
    for (auto reduction :
         kernel.getBody().front().getOps<ReductionOpInterface>())
      rowParam = rowParam && std::optional(type.getNumElements()) ==
                                 reduction.getStaticGroupSize();
    if (!rowParam)
      return kernel.emitOpError("plan holds operand #")
             << index
             << " across rows, which needs the elements of one static row";
  }
  return success();
}

/// Checks what a thread's tile of rows in registers (the plan's
/// rows_per_thread) relies on: a row kernel of one static row length that
/// many rows of make whole float4 groups, of at most kMaxThreadTileFloats
/// elements an operand.
static LogicalResult verifyThreadTiles(KernelOp kernel, KernelPlanAttr plan) {
  if (kernel.getKind() != KernelKind::row_reduction)
    return kernel.emitOpError("plan rows_per_thread needs a row_reduction "
                              "kernel");
  for (Operation &op : kernel.getBody().front()) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (!reduction)
      continue;
    int64_t length = reduction.getStaticGroupSize().value_or(0);
    if (length < 1 || getThreadTileRows(length) != plan.getRowsPerThread() ||
        length * plan.getRowsPerThread() > kMaxThreadTileFloats)
      return kernel.emitOpError("plan rows_per_thread ")
             << plan.getRowsPerThread()
             << " needs rows of a static length that many of make whole "
                "float4 groups, of at most "
             << kMaxThreadTileFloats << " elements";
  }
  return success();
}

/// Checks what rows in registers (the plan's registers) rely on: a
/// row_reduction kernel whose reductions share one static row length, a
/// multiple of 4 (float4 groups), whose parts a thread of the team holds
/// for each operand it holds (the cached ones, or the row it reads) and
/// each held param fit kMaxRegisterRowFloats.
static LogicalResult verifyRegisterRows(KernelOp kernel, KernelPlanAttr plan) {
  if (kernel.getKind() != KernelKind::row_reduction)
    return kernel.emitOpError("plan registers needs a row_reduction kernel");
  std::optional<int64_t> length;
  for (auto reduction :
       kernel.getBody().front().getOps<ReductionOpInterface>()) {
    std::optional<int64_t> size = reduction.getStaticGroupSize();
    if (!size || *size % 4 != 0 || (length && size != length))
      return kernel.emitOpError("plan registers needs rows of one static "
                                "length, a multiple of 4");
    length = size;
  }
  int64_t operands = std::max<int64_t>(1, plan.getCached().size()) +
                     (plan.getHeldParams() ? plan.getHeldParams().size() : 0);
  int64_t floats =
      operands * 4 * llvm::divideCeil(length.value_or(0) / 4, plan.getBlock());
  if (floats > kMaxRegisterRowFloats)
    return kernel.emitOpError("plan registers: a thread would hold ")
           << floats << " elements in registers, more than "
           << kMaxRegisterRowFloats;
  return success();
}

/// Checks a kernel's plan against the kernel: its strategy fits the kind,
/// and it caches operands the kernel has.
static LogicalResult verifyKernelPlan(KernelOp kernel) {
  KernelPlanAttr plan = kernel.getPlanAttr();
  if (!plan)
    return success();
  if (!isStrategyForKind(plan.getStrategy(), kernel.getKind()))
    return kernel.emitOpError("plan strategy ")
           << stringifyKernelStrategy(plan.getStrategy())
           << " cannot generate a " << stringifyKernelKind(kernel.getKind())
           << " kernel";
  for (int64_t index : plan.getCached().asArrayRef())
    if (index >= static_cast<int64_t>(kernel.getInputs().size()))
      return kernel.emitOpError("plan caches operand #")
             << index << " but the kernel has " << kernel.getInputs().size()
             << " operands";
  // Welford states pair a mean with a variance around it in the same
  // kernel, online softmax states a max with the sum of exp(x - max).
  auto hasPair = [&](SinglePassForm form) {
    return llvm::any_of(kernel.getBody().front(), [&](Operation &op) {
      std::optional<SinglePassPair> pair = matchSinglePassPair(&op);
      return pair && pair->form == form && pair->first->getParentOp() == kernel;
    });
  };
  if (plan.getStrategy() == KernelStrategy::split_welford &&
      !hasPair(SinglePassForm::Welford))
    return kernel.emitOpError("plan strategy split_welford needs a mean and "
                              "a variance around it in the kernel");
  if (plan.getStrategy() == KernelStrategy::split_online_softmax &&
      !hasPair(SinglePassForm::OnlineSoftmax))
    return kernel.emitOpError("plan strategy split_online_softmax needs a max "
                              "and the sum of exp(x - max) around it in the "
                              "kernel");
  // Runs of 4 where the partial kernel can read them (the planner's rule).
  if (isSplitStrategy(plan.getStrategy()) && plan.getVectorWidth() == 4)
    for (Operation &op : kernel.getBody().front())
      if (auto reduction = dyn_cast<ReductionOpInterface>(op);
          reduction && !canReadRunsOfFour(reduction, plan.getColumnsPerBlock()))
        return kernel.emitOpError("plan vector_width 4 needs runs of 4 "
                                  "adjacent elements: the trailing reduced "
                                  "dims (or the kept innermost dim) static "
                                  "and a multiple of 4 long, computed "
                                  "elementwise from the kernel's arguments");
  if (plan.getColumnsPerThread() > 1 && failed(verifyColumnsPerThread(kernel)))
    return failure();
  if (plan.getWarpRuns() > 0 && failed(verifyWarpRuns(kernel)))
    return failure();
  if (plan.getHeldParams() && failed(verifyHeldParams(kernel, plan)))
    return failure();
  if (plan.getRegisters() && failed(verifyRegisterRows(kernel, plan)))
    return failure();
  if (plan.getRowsPerThread() > 1 && failed(verifyThreadTiles(kernel, plan)))
    return failure();
  if (plan.getApplyInStrip())
    return verifyStrips(kernel, plan);
  return success();
}

/// Checks what the CUDA emitter of `kind` relies on: a row_reduction kernel
/// reduces trailing dims only (its thread teams own contiguous rows).
static LogicalResult verifyKernelGeometry(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::row_reduction)
    return success();
  for (Operation &op : kernel.getBody().front()) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (!reduction)
      continue;
    if (!reduction.reducesTrailingRun())
      return op.emitOpError("reduces ")
             << stringifyReductionGeometry(reduction.getGeometry()) << " dims "
             << formatShape(reduction.getDims()) << " of "
             << formatShape(
                    cast<ShapedType>(reduction.getInput().getType()).getShape())
             << ", but a row_reduction kernel reduces trailing dims only "
                "(a column_reduction kernel reduces any)";
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region has ")
           << body.getNumArguments() << " arguments but the kernel has "
           << getInputs().size() << " operands";
  for (auto [index, argument, input] :
       llvm::enumerate(body.getArguments(), getInputs()))
    if (argument.getType() != input.getType())
      return emitOpError("region argument #")
             << index << " has type " << argument.getType() << " but operand #"
             << index << " has type " << input.getType();

  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("region must end with sinter.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("terminator yields ")
           << yield.getValues().size() << " values but the kernel has "
           << getNumResults() << " results";
  for (auto [index, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError("terminator operand #")
             << index << " has type " << value.getType() << " but result #"
             << index << " has type " << result.getType();
  if (failed(verifyKernelGeometry(*this)))
    return failure();
  return verifyKernelPlan(*this);
}
