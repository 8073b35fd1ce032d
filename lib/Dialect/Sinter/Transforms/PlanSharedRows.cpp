//===- PlanSharedRows.cpp - Rows shared by a cluster or streamed ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The decisions of sinter-plan-kernels for rows in shared memory beyond a
// row a team: short rows staged as the block's tiles (the plan's
// tile_rows), and rows too long for one block's shared memory: the blocks
// of a thread block cluster that share a row, each caching a slice (the
// plan's cluster), or the slices a row is streamed through L2 in (the
// plan's row_slices).
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/ThreadTiles.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;

/// The longest rows that are staged as the block's tile (the plan's
/// tile_rows) where they are not float4 groups; longer rows take float4
/// groups between scalar edges, or are cached a row at a time. Over rows
/// of 197, softmax ran as fast cached a row at a time by a warp as in tiles
/// of 16 lanes a row (0.83x torch.compile, the H100).
static constexpr int64_t kMaxTileRowLength = 128;
/// The elements of a tile, at least, where the block's threads allow:
/// fewer leave too little in flight.
static constexpr int64_t kMinTileFloats = 1024;
/// The elements of a tiled row that each lane of its team walks, at most.
static constexpr int64_t kMaxTileLaneElements = 16;
/// The shared memory of a block's tiles, at most: a few blocks an SM keep
/// enough copies in flight.
static constexpr int64_t kMaxTileBytes = 48 * 1024;

/// The team of rows of `length` staged as the block's tile: the fewest lanes
/// (a power of two) that walk at most 16 elements each. On the H100,
/// log_softmax over rows of 10 ran at 1.09x torch.compile with a thread a
/// row (0.70x with 4 lanes), logsumexp at 1.69x (0.77x); softmax over rows
/// of 49 at 1.10x with 4 lanes (0.73x with 1, 0.99x with 8, 0.66x with 16),
/// over rows of 77 at 1.01x with 8 (0.89x with 4, 0.81x with 16).
static int64_t getTileTeamSize(int64_t length) {
  return static_cast<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(length, kMaxTileLaneElements)));
}

/// The rows of a block of teams of `team` with tiles of `tiles` operands
/// and outputs of rows of `length`: 256 threads and at most 128 rows, or
/// 256 rows of a thread each where 128 would hold fewer than
/// kMinTileFloats elements, fewer (a multiple of 4, at least 4) where the
/// tiles would exceed kMaxTileBytes. On the H100, a thread a row of 10 ran
/// logsumexp at 1.69x torch.compile with 128 rows a block, 1.58x with 256;
/// a sum over rows of 5 at 0.80x with 128, 0.92x with 256, 0.86x with 512;
/// a max over rows of 7 at 0.98x with 128 or 256.
static int64_t getTileRowsPerBlock(int64_t team, int64_t length,
                                   int64_t tiles) {
  int64_t rows = std::min<int64_t>(128, 256 / team);
  if (rows * length < kMinTileFloats)
    rows = 256 / team;
  while (rows > 4 && rows * length * tiles * 4 > kMaxTileBytes)
    rows /= 2;
  return rows;
}

/// Whether `value` has `perRow` elements for each result of `resultShape`:
/// the results' static dims times perRow, and as many symbolic dims (which
/// the values of a kernel share, as getStaticRowLength assumes).
static bool hasElementsPerRow(Value value, ArrayRef<int64_t> resultShape,
                              int64_t perRow) {
  auto [rowProduct, rowDynamic] = getStaticProductAndDynamicCount(resultShape);
  auto [product, dynamic] = getStaticProductAndDynamicCount(getShape(value));
  return dynamic == rowDynamic && product == rowProduct * perRow;
}

/// The rows of each thread's tile in its registers (the plan's
/// rows_per_thread) for rows of `length` of a row kernel: rows a lane walks
/// alone (at most kMaxTileLaneElements), as many as make whole float4
/// groups, within kMaxThreadTileFloats an operand (an input or an output of
/// whole rows) and kMaxThreadTileFloatsInAll in all, where each output of
/// whole rows is one float4 a thread and each statistic a row a float
/// (stored as a group); 1 (the block's tile in shared memory) otherwise.
/// Loads of a thread's float4 groups at a stride of several serve a warp
/// well, stores do not. On the H100: softmax over rows of 2 ran at 0.76 of
/// copy in the block's tiles, 0.99 with 2 rows (a float4) a thread; a mean
/// over rows of 3 at 0.94 a thread a row, 1.04 with 4 rows (3 float4s) a
/// thread and its 4 means stored as a float4, 0.78 stored one by one;
/// log_softmax over rows of 10 at 0.99 in the block's tiles, 0.65 with 2
/// rows a thread (5 float4 stores at a stride of 80 bytes); logsumexp over
/// them at 0.92 and 0.95.
static int64_t getThreadTileRowCount(KernelOp kernel, int64_t length,
                                     ArrayRef<int64_t> resultShape) {
  Block &body = kernel.getBody().front();
  int64_t rows = getThreadTileRows(length);
  int64_t inputs = llvm::count_if(body.getArguments(), [&](Value argument) {
    return hasWholeRows(argument, resultShape);
  });
  ValueRange outputs = body.getTerminator()->getOperands();
  int64_t rowOutputs = llvm::count_if(outputs, [&](Value output) {
    return hasElementsPerRow(output, resultShape, length);
  });
  bool indices = llvm::any_of(outputs, [](Value output) {
    return !isa<FloatType>(getElementTypeOrSelf(output.getType()));
  });
  if (rows == 1 || length > kMaxTileLaneElements || indices ||
      rows * length > kMaxThreadTileFloats ||
      rows * length * (inputs + rowOutputs) > kMaxThreadTileFloatsInAll ||
      (rowOutputs > 0 && rows * length != 4))
    return 1;
  return rows;
}

/// Whether a row kernel stages its rows of `length` as tiles: short rows
/// that are not float4 groups, of 5 or more elements, or of 2 or 3 where
/// `severalPasses` read an input or a thread's tile holds them in
/// registers (a thread a row of 3 read it directly for a mean at 0.91x
/// torch.compile, in the block's tiles at 0.89x, on the H100; softmax over
/// rows of 2, whose three passes read the thread's row from shared memory,
/// ran at 0.22 of copy directly and 0.57 in tiles on the H200), every
/// reduction over whole rows (no matvec, whose operands are not rows of the
/// output's shape), every input and output of whole rows of that length or
/// one element a row, at least one input, no shape op but a reshape.
static bool canTileRows(KernelOp kernel, int64_t length,
                        ArrayRef<int64_t> resultShape, bool severalPasses) {
  Block &body = kernel.getBody().front();
  // A tile holds rows in row-major order, which only a reshape keeps.
  if (llvm::any_of(body.without_terminator(), [](Operation &op) {
        return isShapeOp(&op) && !isa<ReshapeOp>(op);
      }))
    return false;
  auto isRowOf = [&](Value value) {
    return hasElementsPerRow(value, resultShape, length);
  };
  bool inputs = false;
  for (BlockArgument argument : body.getArguments()) {
    bool whole = hasWholeRows(argument, resultShape);
    if (whole && !isRowOf(argument))
      return false;
    inputs |= whole;
  }
  bool threadTiles = getThreadTileRowCount(kernel, length, resultShape) > 1;
  return inputs &&
         (length > 4 || (length > 1 && (severalPasses || threadTiles))) &&
         length % 4 != 0 && length <= kMaxTileRowLength &&
         kernel.getKind() == KernelKind::row_reduction &&
         llvm::all_of(getReductions(body),
                      [&](Operation *reduction) {
                        return getGroupSize(reduction) == length;
                      }) &&
         llvm::all_of(body.getTerminator()->getOperands(), [&](Value output) {
           return hasElementsPerRow(output, resultShape, 1) || isRowOf(output);
         });
}

std::optional<RowTiles> sinter::getRowTiles(KernelOp kernel, int64_t length,
                                            ArrayRef<int64_t> resultShape,
                                            bool severalPasses) {
  if (!canTileRows(kernel, length, resultShape, severalPasses))
    return std::nullopt;
  Block &body = kernel.getBody().front();
  RowTiles tiles;
  for (BlockArgument argument : body.getArguments())
    if (hasWholeRows(argument, resultShape))
      tiles.cached.push_back(argument.getArgNumber());
  int64_t operands =
      static_cast<int64_t>(tiles.cached.size()) +
      llvm::count_if(body.getTerminator()->getOperands(), [&](Value output) {
        return hasElementsPerRow(output, resultShape, length);
      });
  tiles.team = getTileTeamSize(length);
  tiles.rowsPerThread = getThreadTileRowCount(kernel, length, resultShape);
  tiles.rowsPerBlock = tiles.rowsPerThread > 1
                           ? kThreadTileThreads * tiles.rowsPerThread
                           : getTileRowsPerBlock(tiles.team, length, operands);
  return tiles;
}

/// The largest cluster (portable).
static constexpr int64_t kMaxCluster = 8;

/// The threads of a block of a cluster of kMaxCluster blocks.
static constexpr int64_t kWideClusterThreads = 256;

/// A cluster of kMaxCluster blocks (slices of up to 64 KiB) takes blocks of
/// kWideClusterThreads, others kClusterThreads. On the H100 (run 2 of
/// 2026-11-28), in fractions of copy with 512 threads a block against 256:
/// log_softmax over rows of 128256 0.67 and 0.82, group_norm into silu over
/// groups of 128000 0.63 and 0.74, over groups of 131072 0.84 and 0.85; in
/// clusters of 4, softmax over rows of 65536 0.92 and 0.80, layer_norm 0.81
/// and 0.64.
int64_t sinter::getClusterThreads(int64_t cluster) {
  return cluster == kMaxCluster ? kWideClusterThreads : kClusterThreads;
}

/// Whether a cluster of blocks can share the rows of `length` of a row
/// kernel, each block caching a slice: every reduction (not argmax or
/// argmin) reduces whole rows, every output has whole rows or one element
/// a row, and no op but a reshape (which keeps the row-major order) moves
/// elements, so that each element of a row is read where its block holds
/// it.
static bool canShareRowsInCluster(KernelOp kernel, int64_t length,
                                  ArrayRef<int64_t> resultShape) {
  Block &body = kernel.getBody().front();
  if (kernel.getKind() != KernelKind::row_reduction)
    return false;
  for (Operation &op : body.without_terminator()) {
    if (isShapeOp(&op) && !isa<ReshapeOp>(op))
      return false;
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (isa<MatmulOp>(op) || (reduction && (getGroupSize(&op) != length ||
                                            isa<ArgmaxOp, ArgminOp>(op))))
      return false;
  }
  // The static elements of a shape and its dynamic dims (the rows' dynamic
  // dims, which every value of a row kernel shares).
  auto count = [](ArrayRef<int64_t> shape) {
    int64_t elements = 1, dynamic = 0;
    for (int64_t size : shape)
      ShapedType::isDynamic(size) ? ++dynamic : elements *= size;
    return std::make_pair(elements, dynamic);
  };
  auto [rows, rowDims] = count(resultShape);
  return llvm::all_of(kernel.getResults(), [&](Value result) {
    auto [elements, dims] = count(getShape(result));
    return dims == rowDims && (elements == rows || elements == rows * length);
  });
}

int64_t sinter::getRowCluster(KernelOp kernel, int64_t length, int64_t floats,
                              ArrayRef<int64_t> resultShape,
                              int64_t maxSharedBytes, bool shortSlice,
                              int64_t maxCluster) {
  if (!canShareRowsInCluster(kernel, length, resultShape))
    return 1;
  maxCluster = std::min(maxCluster, kMaxCluster);
  for (int64_t sliceBytes : {kClusterSliceBytes, maxSharedBytes})
    for (int64_t cluster = 2; cluster <= maxCluster; cluster *= 2)
      if (length % cluster == 0 && floats * 4 / cluster <= sliceBytes)
        return cluster;
  // Rows that no cluster divides (a vocabulary of 50257 logits): the last
  // block's slice is short, but not empty.
  if (!shortSlice)
    return 1;
  int64_t operands = floats / length;
  for (int64_t sliceBytes : {kClusterSliceBytes, maxSharedBytes})
    for (int64_t cluster = 2; cluster <= maxCluster; cluster *= 2) {
      int64_t slice = llvm::divideCeil(length, cluster);
      if ((cluster - 1) * slice < length && operands * slice * 4 <= sliceBytes)
        return cluster;
    }
  return 1;
}

/// The bytes of the whole-row inputs of a slice of a streamed row (the
/// plan's row_slices) and the longest row streamed (kStreamThreads: the
/// threads of a block, one partial a thread in the fold). Over
/// rows of 1048576 on the H100, slices of 32 KiB by blocks of 512 threads
/// ran rms_norm at 0.81 of the copy bandwidth (0.64 as a split reduction),
/// log_softmax at 0.74 (0.63), softmax at 0.66 (0.63); with 256 threads,
/// 0.80, 0.70 and 0.55. Rows of 4194304 (16 MiB, longer than the lag, in
/// slices of 64 KiB, 256 threads) gained nothing: softmax and log_softmax
/// 0.63 as split, layer_norm 0.43 and rms_norm 0.54 against 0.60 and 0.63.
static constexpr int64_t kStreamSliceBytes = 32 * 1024;
static constexpr int64_t kMaxStreamRowBytes = 4 * 1024 * 1024;

/// Whether `op` reads the result of a reduction of `body` other than
/// `allowed` (directly or through other ops of the body).
static bool readsReduction(Block &body, Operation *op, Operation *allowed) {
  SmallVector<Operation *> worklist = {op};
  llvm::DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    for (Value operand : current->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || producer->getBlock() != &body || producer == allowed ||
          !seen.insert(producer).second)
        continue;
      if (isa<ReductionOpInterface>(producer))
        return true;
      worklist.push_back(producer);
    }
  }
  return false;
}

/// Whether the results of each slice of a streamed row fold into the row's:
/// every reduction reads no other's result, or is the outer statistic of a
/// single-pass pair (SinglePass.h) whose inner reads none, so that a
/// slice's inner result and its outer one about it form a state that
/// combines (an online softmax's, Welford's).
static bool canFoldSlices(Block &body) {
  return llvm::all_of(getReductions(body), [&](Operation *reduction) {
    if (!readsReduction(body, reduction, nullptr))
      return true;
    std::optional<SinglePassPair> pair = matchSinglePassPair(reduction);
    return pair && !readsReduction(body, pair->first, nullptr) &&
           !readsReduction(body, reduction, pair->first);
  });
}

int64_t sinter::getStreamSlices(KernelOp kernel, int64_t length, int64_t floats,
                                ArrayRef<int64_t> resultShape) {
  Block &body = kernel.getBody().front();
  bool reshapes = llvm::any_of(body.without_terminator(),
                               [](Operation &op) { return isShapeOp(&op); });
  if (floats * 4 > kMaxStreamRowBytes || reshapes ||
      !canShareRowsInCluster(kernel, length, resultShape) ||
      !canFoldSlices(body))
    return 1;
  for (int64_t sliceBytes : {kStreamSliceBytes, 2 * kStreamSliceBytes})
    for (int64_t slices = llvm::divideCeil(floats * 4, sliceBytes);
         slices <= kStreamThreads; ++slices)
      if (length % slices == 0 && (length / slices) % 4 == 0)
        return slices;
  return 1;
}

/// The bytes of their inputs that the slices between a slice's statistics
/// and its outputs read, at least (the lag). Softmax over rows of 1048576
/// in slices of 32 KiB ran at 0.75 of the copy bandwidth with 4 MiB and no
/// L2 policy, at 0.84 with evict-last then evict-first (a hand-written
/// kernel). Generated, with 4 MiB and 8 MiB: softmax 0.66 and 0.74,
/// log_softmax 0.74 and 0.78, layer_norm 0.64 and 0.67, rms_norm 0.82 and
/// 0.81; with 16 MiB, 0.74, 0.75, 0.61, 0.67 (the H100, whose L2 is 50 MiB).
static constexpr int64_t kStreamLagBytes = 8 * 1024 * 1024;

int64_t sinter::getStreamLag(int64_t slices, int64_t floats) {
  int64_t sliceBytes = std::max<int64_t>(floats * 4 / slices, 1);
  return std::max<int64_t>(slices,
                           llvm::divideCeil(kStreamLagBytes, sliceBytes));
}

/// The longest rows that rereadsRowsFromL1 re-reads (see PlanUtils.h): 2 KiB.
static constexpr int64_t kL1RowLimit = 512;

bool sinter::rereadsRowsFromL1(KernelStrategy strategy, bool registers,
                               bool tileRows, int64_t cluster, int64_t length) {
  return strategy == KernelStrategy::warp_per_row && !registers && !tileRows &&
         cluster == 1 && length % 4 != 0 && length <= kL1RowLimit;
}
