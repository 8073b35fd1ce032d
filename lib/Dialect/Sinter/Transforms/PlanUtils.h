//===- PlanUtils.h - What the plans of sinter-plan-kernels share -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Shape helpers of sinter-plan-kernels (PlanKernels.cpp), its plans of
// split reductions (PlanSplitReductions.cpp) and of rows shared by a
// cluster or streamed (PlanSharedRows.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <optional>

namespace mlir::sinter {

class SymbolicShapeAnalysis;

/// Threads per block of pointwise and split-reduction kernels.
inline constexpr int64_t kBlockThreads = 256;

/// The product of `shape`, or std::nullopt when a dim is dynamic.
inline std::optional<int64_t> getStaticCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    count *= size;
  }
  return count;
}

/// The shape of a tensor value.
inline ArrayRef<int64_t> getShape(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// The reductions of `body`: reduction ops and matrix-vector products (a
/// dot product per output element), in program order.
inline SmallVector<Operation *> getReductions(Block &body) {
  SmallVector<Operation *> reductions;
  for (Operation &op : body)
    if (isa<ReductionOpInterface, MatmulOp>(op))
      reductions.push_back(&op);
  return reductions;
}

/// The elements one result of `reduction` reduces, if static: the product of
/// the reduced dims, or a dot product's contraction length.
inline std::optional<int64_t> getGroupSize(Operation *reduction) {
  if (auto matmul = dyn_cast<MatmulOp>(reduction)) {
    ArrayRef<int64_t> lhs = getShape(matmul.getLhs());
    int64_t k = matmul.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
    return ShapedType::isDynamic(k) ? std::nullopt : std::optional(k);
  }
  return cast<ReductionOpInterface>(reduction).getStaticGroupSize();
}

/// The plan of a split reduction (column_reduction kind, or a row_reduction
/// of few long rows).
KernelPlanAttr planSplitReduction(KernelOp kernel);

/// The plan of a row kernel (row_reduction and matvec kinds) as rows
/// (PlanRows.cpp).
KernelPlanAttr planRows(KernelOp kernel);

/// The plan of a row_reduction kernel: planRows, or planSplitReduction where
/// its rows are few and long (and not streamed) or only a cluster's large
/// slices would cache them (PlanRows.cpp).
KernelPlanAttr planRowReduction(KernelOp kernel);

/// The plan of a pointwise kernel whose values have `shapes` (null where
/// unknown: only static shapes then compare) (PlanElementwise.cpp).
KernelPlanAttr planElementwise(KernelOp kernel,
                               const SymbolicShapeAnalysis *shapes);

/// The bytes of its slice of a cached row that a block of a cluster aims to
/// hold (a row of 16384 floats cached by one block ran at the copy
/// bandwidth on the H100).
inline constexpr int64_t kClusterSliceBytes = 64 * 1024;
/// The threads of a block of a cluster of 2 or 4: softmax over rows of
/// 65536 in clusters of 4 took 0.207 ms with 512 threads a block against
/// 0.249 with 1024 on the H100 (more blocks per SM overlap one's loads with
/// another's reductions).
inline constexpr int64_t kClusterThreads = 512;
/// The threads of a block of a streamed row kernel (one partial a thread
/// folds, so also the most slices of a row; PlanSharedRows.cpp).
inline constexpr int64_t kStreamThreads = 512;

/// The threads of each block of a cluster of `cluster` blocks.
int64_t getClusterThreads(int64_t cluster);
/// The blocks of a cluster that shares each row of `length` whose `floats`
/// cached floats are too many for one block: the fewest that divide the row
/// into slices that fit kClusterSliceBytes, else `maxSharedBytes`; else,
/// with `shortSlice`, the same way, the fewest whose slices of
/// ceil(length / blocks) fit (the last block's shorter); 1 where no cluster
/// of at most `maxCluster` blocks holds them or the kernel cannot share its
/// rows.
int64_t getRowCluster(KernelOp kernel, int64_t length, int64_t floats,
                      ArrayRef<int64_t> resultShape, int64_t maxSharedBytes,
                      bool shortSlice = false, int64_t maxCluster = 8);

/// The slices a row of `length` of a row kernel is streamed in, whose
/// whole-row inputs are `floats` floats a row: the fewest, at most
/// kStreamThreads, of at most 32 KiB (else 64 KiB) that divide the row into
/// float4 groups; 1 where the rows cannot be streamed: they are shared as
/// a cluster shares them, the slices' results fold (every reduction reads
/// no other's result, or is the outer statistic of a single-pass pair),
/// and no reshape moves the rows (instance_norm and group_norm over NCHW,
/// through their reshapes, ran 6% and 14% slower streamed than as split
/// reductions on the H100).
int64_t getStreamSlices(KernelOp kernel, int64_t length, int64_t floats,
                        ArrayRef<int64_t> resultShape);

/// The items by which the outputs of a streamed row's slice trail its
/// statistics (the plan's stream_lag), for `slices` slices of a row whose
/// whole-row inputs are `floats` floats: enough slices to read 8 MiB of
/// them in between, and at least a row's slices, so that a block only
/// waits on running blocks (rt_stream.cuh).
int64_t getStreamLag(int64_t slices, int64_t floats);

/// Whether `argument` holds more than one element per row of a row kernel:
/// a full-size operand rather than a per-row or per-column value.
inline bool hasWholeRows(Value argument, ArrayRef<int64_t> resultShape) {
  ArrayRef<int64_t> shape = getShape(argument);
  if (!cast<ShapedType>(argument.getType()).getElementType().isF32())
    return false;
  std::optional<int64_t> count = getStaticCount(shape);
  std::optional<int64_t> rows = getStaticCount(resultShape);
  if (count && rows)
    return *count > *rows;
  return shape.size() >= resultShape.size() && shape != resultShape &&
         !shape.empty() && shape.back() != 1;
}

/// How a row kernel stages its short rows as the block's tiles (the plan's
/// tile_rows): the lanes a row, the rows a block, and the operands tiled.
struct RowTiles {
  int64_t team = 0;
  int64_t rowsPerBlock = 0;
  /// Above 1, each thread's tile of that many rows in its registers (the
  /// plan's rows_per_thread).
  int64_t rowsPerThread = 1;
  SmallVector<int64_t> cached;
};

/// Whether each pass over the rows of a row kernel reads them from global
/// memory again rather than from a copy in shared memory, HBM being read
/// once all the same: rows of a warp (`strategy`) that are not float4
/// groups (of `length`, at most kL1RowLimit), neither in registers nor
/// tiles nor a cluster's; the block's 8 rows (16 KiB at most) stay in L1
/// between the passes, and each pass walks them with scalar loads as it
/// would shared memory, less the copy (not single-pass statistics, nor float4
/// groups from each row's 16-byte boundary: 0.34 and 0.50 of copy for softmax
/// over rows of 197). On the H200 (2026-11-28), in fractions of copy, cached
/// against re-read: softmax over rows of 197 0.83 and 0.92, 197 (attention, 12
/// heads) 0.87 and 0.93, 255 0.89 and 0.93; a block a row gained less or lost
/// (layer norm over rows of 2049 0.81 and 0.79, instance norm over 16129 0.87
/// and 0.70), so blocks keep their copies; rows longer than kL1RowLimit (512)
/// were not measured, and keep theirs (PlanSharedRows.cpp).
bool rereadsRowsFromL1(KernelStrategy strategy, bool registers, bool tileRows,
                       int64_t cluster, int64_t length);

/// The tiles of a row kernel whose rows of `length` (the results of
/// `resultShape`) are short and not float4 groups, where it can stage them
/// (PlanSharedRows.cpp); `severalPasses` where some input is read by more
/// than one pass over a row. std::nullopt otherwise.
std::optional<RowTiles> getRowTiles(KernelOp kernel, int64_t length,
                                    ArrayRef<int64_t> resultShape,
                                    bool severalPasses);

/// The blocks a multiprocessor holds at most of a streamed row kernel's
/// persistent grid (the plan's stream_blocks): with blocks of 256 threads,
/// rms_norm over rows of 1048576 ran at 0.79-0.80 of the copy bandwidth
/// with 4 or 5, 0.74 with 3 and 0.70 with 8 (all that fit); with 512
/// threads, 4 (all that fit) 0.82, 3 0.81, 2 0.74 (the H100).
inline int64_t getStreamBlocks() { return 4; }

//===----------------------------------------------------------------------===//
// Row teams (PlanRowTeams.cpp)
//===----------------------------------------------------------------------===//

/// Rows up to this length go to one warp, up to kMediumRowLimit to 256
/// threads, longer ones to 1024.
inline constexpr int64_t kWarpRowLimit = 1024;
inline constexpr int64_t kMediumRowLimit = 8192;
/// Rows of float4 groups up to this length (12 groups a lane) still go to
/// one warp where they are held in registers or read from HBM with scalar
/// edges, up to kWarpArgRowLimit (16 groups a lane) for an argmax or argmin
/// (getVectorRowTeam).
inline constexpr int64_t kWarpVectorRowLimit = 1536;
inline constexpr int64_t kWarpArgRowLimit = 2048;
/// The most lanes that share a short row (a row of more float4 groups takes
/// a warp).
inline constexpr int64_t kMaxSubwarpLanes = 16;

/// The team size of rows of `length` elements: a warp, 256 or 1024 threads.
int64_t getTeamSize(int64_t length);
/// The team of rows of `length` held in registers (a few float4 groups a
/// lane), with argmax or argmin among the reductions if `argReductions`.
int64_t getRegisterTeamSize(int64_t length, bool argReductions);
/// The team of rows of `length` that are not held in registers.
int64_t getScalarTeamSize(int64_t length);
/// The team of rows of `length` walked as float4 groups (held in registers,
/// or read from HBM with scalar edges) that would take `team` lanes by row
/// length alone: a warp instead of a block up to kWarpVectorRowLimit, or
/// kWarpArgRowLimit with `argReductions` (argmax, argmin).
int64_t getVectorRowTeam(int64_t length, int64_t team, bool argReductions);
/// The team of rows of `length` that every pass reads from HBM (neither
/// held in registers nor cached) that would take `team` lanes by row length
/// alone: 256 threads, 8 to 16 float4 groups each, rather than a block of
/// 1024 for rows of kMediumRowLimit + 1 to kStreamedRowThreadsLimit - 1
/// elements (the CUDA emitter adds their threads' sums in double).
int64_t getStreamedRowTeam(int64_t length, int64_t team);
/// Rows of at least this many elements that every pass reads from HBM
/// take 1024 threads (getStreamedRowTeam).
inline constexpr int64_t kStreamedRowThreadsLimit = 16384;
/// The floats one thread of a team of `team` holds for `operands` rows of
/// `length` in registers.
int64_t getRegisterFloats(int64_t length, int64_t team, int64_t operands);
/// The operands that each thread of rows of `length` in registers, a team
/// of `team` lanes (a warp or fewer, which walk many rows a thread), holds
/// across its rows (the plan's held_params): the params of one row's
/// elements read at each position of a row (a norm's weight and bias,
/// broadcast along the rows), while every operand held, `cached` and these,
/// fits 128 floats a thread; none for a kernel of `resultShape` with one
/// row.
SmallVector<int64_t> getHeldParams(KernelOp kernel, int64_t length,
                                   int64_t team, ArrayRef<int64_t> cached,
                                   ArrayRef<int64_t> resultShape);

} // namespace mlir::sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H
