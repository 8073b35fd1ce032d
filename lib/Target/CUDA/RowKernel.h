//===- RowKernel.h - Row kernels: plan and body writer ----------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The row kernels' emitter in four parts: RowPlan.cpp decides what a row
// kernel reads (its reductions, rows, cached inputs, float4 paths, rows in
// registers and single-pass pairs), RowWriter.cpp writes its body, with its
// float4 loops and rows in registers in RowVectors.cpp, RowReduction.cpp its
// launch.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_ROWKERNEL_H
#define SINTER_LIB_TARGET_CUDA_ROWKERNEL_H

#include "KernelEmitter.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::sinter::cuda {

/// The shared memory a row kernel may use per block: below the 227 KiB that
/// Hopper allows, leaving room for the static storage of block reductions.
inline constexpr int64_t kMaxSharedBytes = 160 * 1024;

/// Rows up to this length go to one warp.
inline constexpr int64_t kWarpRowLimit = 1024;
/// Rows up to this length go to 256 threads, longer ones to 1024.
inline constexpr int64_t kMediumRowLimit = 8192;

/// The team size for rows of `length` elements.
inline int getTeamSize(int64_t length) {
  return length <= kWarpRowLimit ? 32 : length <= kMediumRowLimit ? 256 : 1024;
}

/// The thread's float4 group k of a row held in registers, as a C
/// expression (the `q` of the other float4 loops over a row).
inline constexpr const char *kRegisterGroup = "(tid + k * kThreads)";

/// The float4 groups a thread of rows in registers holds from which a sum
/// or mean accumulates in double (RowWriter::sumsInDouble): rows of 16384
/// by 256 threads.
inline constexpr int64_t kDoubleSumGroups = 16;

/// The most steps of a static team over a static row that a loop over the
/// row unrolls (each step predicated on its element): softmax over rows of
/// 197 ran at 0.83 of copy with a loop of a runtime trip count, 0.97 with 7
/// unrolled steps a lane, over rows of 49 at 0.83 and 0.95 (the H100).
inline constexpr int64_t kMaxUnrolledRowSteps = 16;

/// One reduction of a row kernel.
struct RowReduction {
  ReductionCombiner kind;
  Operation *op;
  /// The value consumers read.
  Value result;
  /// The shape whose elements are reduced: the reduction's input, or for a
  /// dot product the lhs as [..., M, K].
  Shape inputShape;
  /// Elements per reduced group.
  DimExpr groupSize;
  /// Groups per row (1: one result per row, kept in a register).
  DimExpr segments;
  /// 1 + the highest level of the reductions it reads.
  unsigned level = 0;
  /// The register variable or the shared array holding the results.
  std::string storage;
  /// The depth of the scope `storage` is declared in.
  unsigned storageDepth = 0;
  /// The outer statistic that this one's pass also computes (the plan's
  /// single_pass: the sum of a softmax, the variance of a mean), and how.
  RowReduction *fusedOuter = nullptr;
  SinglePassForm form = SinglePassForm::OnlineSoftmax;
  /// Whether the outer statistic of its pair is logsumexp's sum of
  /// exp(x - clamp(max)) (SinglePassPair::clampedMax).
  bool clampedMax = false;
  /// Whether another reduction's pass computes this one.
  bool fusedIntoInner = false;

  bool isPerRow() const { return segments.isConstant(1); }
  bool isArg() const { return getCombinerInfo(kind).isIndex; }
};

/// A dot product whose operands are contiguous input buffers along the
/// reduced dim, K a multiple of 4: it can read both with float4 loads.
struct VectorDot {
  RowReduction *reduction;
  const Buffer *lhs, *rhs;
  int64_t size;
};

/// How a row kernel runs, decided before any code is written.
struct RowPlan {
  /// The number of rows R.
  DimExpr rows;
  /// The reductions in the order they are computed.
  std::vector<RowReduction> reductions;
  /// Inputs copied to shared memory, with their elements per row.
  std::vector<std::pair<const Buffer *, DimExpr>> cached;
  /// The longest row the kernel walks, when every length is static.
  std::optional<int64_t> staticRowLength;
  /// The row lengths, for the host's choice of team size.
  SmallVector<DimExpr> rowLengths;
  /// Whether the shared memory sizes are static.
  bool staticShared = true;
  /// A matvec's dot product that has a float4 path (used when the host finds
  /// both buffers 16-byte aligned).
  std::optional<VectorDot> vectorDot;
  /// The plan's vector width 4: the row loops read and write full-size
  /// buffers with float4 (rows of a multiple of 4, static), when the host
  /// finds them 16-byte aligned.
  bool vectorRows = false;
  /// The buffers whose alignment decides the float4 paths.
  SmallVector<std::string> vectorBuffers;
  /// The plan's vector width 4 over rows that are not a multiple of 4 long,
  /// read from HBM by every pass (none cached, in registers or sliced),
  /// every reduction over whole rows and none an argmax or argmin: each
  /// loop takes the row's float4 groups from its first 16-byte boundary
  /// (`vecHead` elements in, `vecGroups` of them) when the host finds the
  /// buffers aligned, then a scalar loop over the `vecEdges` left (every
  /// element otherwise).
  bool vectorEdges = false;
  /// Float4 rows whose cached rows are filled and walked in shared memory
  /// as float4 groups too: every reduction per row, so that each cached row
  /// (or a cluster's slice of it) starts at a multiple of four floats.
  bool vectorCache = false;
  /// The plan's rows in registers: each loop over a row is unrolled over the
  /// float4 groups of its thread (group q = tid + k * team, k from 0 to
  /// groupsPerThread()), the cached inputs are loaded into registers once
  /// per row, and the unaligned case reads the same groups with scalar loads
  /// (no separate scalar loop). `team` is the plan's static team.
  bool registerRows = false;
  int64_t team = 0;
  /// The plan's held_params: with rows in registers, inputs broadcast along
  /// the rows (one row's elements) whose float4 groups each thread loads
  /// once, before its loop over rows (the first time a row loop reads them).
  SmallVector<Value> heldParams;
  /// The plan's cluster: the blocks that share each row (1: none). Block k
  /// of a cluster caches and walks elements [k * S, (k + 1) * S) of the row
  /// (S = getRowSlice()), and each reduction combines over the cluster
  /// through distributed shared memory.
  int64_t cluster = 1;
  /// The plan's row_slices: the slices each row is streamed in (1: none).
  /// Item k of a row covers elements [k * S, (k + 1) * S) of the row (S =
  /// getRowSlice()), once for the statistics, whose partial results it
  /// stores, and once for the outputs, after folding the row's partials.
  int64_t rowSlices = 1;
  /// The plan's stream_lag: the items by which a streamed slice's outputs
  /// trail its statistics in the queue.
  int64_t streamLag = 0;
  /// The plan's stream_blocks: the persistent grid's blocks a
  /// multiprocessor, at most.
  int64_t streamBlocks = 0;

  /// The team size when it is static (0: the launch picks it).
  int64_t staticTeam = 0;
  /// The plan's tile_rows: the block's `tileRowsPerBlock` consecutive rows
  /// of each cached input are one tile in shared memory, which the whole
  /// block copies from HBM (float4 groups when the host finds the buffers
  /// aligned), and the outputs in `tiledOutputs` (of whole rows) are written
  /// to tiles of their own, which the block stores likewise.
  bool tileRows = false;
  int64_t tileRowsPerBlock = 0;
  SmallVector<const Buffer *> tiledOutputs;
  /// The plan's rows_per_thread: above 1, each thread's tile of that many
  /// rows lives in its registers (loaded and stored as float4 groups where
  /// aligned, dev::loadThreadTile), not the block's in shared memory.
  int64_t rowsPerThread = 1;
  /// Under thread tiles, the outputs of one element a row (a mean a row),
  /// gathered in a tile of their own, stored as one group.
  SmallVector<const Buffer *> tiledStatistics;
  /// Whether the tiles are each thread's, in its registers.
  bool hasThreadTiles() const { return tileRows && rowsPerThread > 1; }

  /// The float4 groups of a row held in registers that one thread holds.
  int64_t groupsPerThread() const {
    return llvm::divideCeil(*staticRowLength / 4, team);
  }

  /// The slices of each row: the blocks of a cluster, or streamed slices.
  int64_t getRowSlices() const { return std::max(cluster, rowSlices); }
  /// The elements of a row that each block of a cluster, or each streamed
  /// item, holds or walks (a cluster's last block fewer where its blocks do
  /// not divide the row).
  int64_t getRowSlice() const {
    return llvm::divideCeil(*staticRowLength, getRowSlices());
  }
  /// Whether the last block of a cluster holds fewer elements than the
  /// others (its slice ends at the row's end).
  bool hasShortSlice() const {
    return getRowSlice() * getRowSlices() != *staticRowLength;
  }
  /// The end of this block's slice in the row, as C: `begin + S`, or `end`
  /// (which the kernel declares) where the last slice is short.
  std::string getSliceEnd() const;
  /// Whether rows of `length` are walked in slices (a cluster's, or streamed
  /// ones).
  bool isSliced(const DimExpr &length) const;
  /// The header of the scalar loop over the positions `j` of a row of
  /// `length`: the slice from `begin` where rows of that length are sliced;
  /// a static team's steps unrolled where both are static and the steps at
  /// most kMaxUnrolledRowSteps.
  std::string getRowLoop(const DimExpr &length) const;
  /// The elements of a row of `perRow` that one block caches, as C.
  std::string getCachedFloats(const DimExpr &perRow) const;
  /// The elements of a row of `perRow` that this block copies into shared
  /// memory, as C (fewer than getCachedFloats in a short slice).
  std::string getFilledFloats(const DimExpr &perRow) const;

  /// Whether rows of `length` are walked as float4 groups with scalar edges
  /// (vectorEdges).
  bool hasEdges(const DimExpr &length) const {
    return vectorEdges && length == DimExpr::constant(*staticRowLength);
  }

  /// Whether the kernel takes the `vec` flag of its float4 paths.
  bool hasVectorPaths() const {
    return vectorDot || vectorRows || vectorEdges || tileRows;
  }
};

/// The functor that combines the accumulators of `reduction`.
std::string getRowCombiner(const RowReduction &reduction);

/// The result of `reduction` from its accumulators' combination `combined`
/// (a mean's divided by the row length).
std::string getRowFinal(const RowReduction &reduction,
                        const std::string &combined);

/// The single-pass pair (SinglePass.h) whose outer statistic `reduction` is
/// in a streamed row kernel (the plan's row_slices): its inner reduction
/// (of the first level) and the form of their state (RowStream.cpp).
struct SlicePair {
  const RowReduction *inner;
  SinglePassForm form;
  bool clampedMax;
};
std::optional<SlicePair> getSlicePair(const RowPlan &plan,
                                      const RowReduction &reduction);
/// The C type of the partial result of `reduction` for a slice of a
/// streamed row: its pair's state, a double for sums, else a float.
std::string getSlicePartialType(const RowPlan &plan,
                                const RowReduction &reduction);
/// The name of the array of the slices' partials of `reduction`:
/// `partial<k>`, k its place in plan.reductions.
std::string getSlicePartialName(const RowPlan &plan,
                                const RowReduction &reduction);

/// Decides rows, levels, segments, caching, float4 paths and single-pass
/// pairs of a row kernel.
FailureOr<RowPlan> planRowKernel(EmitterContext &context,
                                 const EvalKernel &kernel);

/// Writes the body of one row kernel.
class RowWriter {
public:
  RowWriter(EmitterContext &context, const EvalKernel &kernel, RowPlan &plan,
            StringRef cachedCondition)
      : context(context), kernel(kernel), plan(plan),
        cachedCondition(cachedCondition.str()),
        emitter(writer, context.shapes, context.constants,
                [this](Value value, const Coords &coords) {
                  return readLeaf(value, coords);
                }) {
    addKernelLeaves(emitter, kernel, leafBuffers);
    for (RowReduction &reduction : plan.reductions) {
      emitter.addLeaf(reduction.result);
      reductionsByResult[reduction.result] = &reduction;
    }
    emitter.setExactNormalization(!plan.registerRows);
  }

  /// Writes the kernel body and returns it.
  FailureOr<std::string> write();

  /// The shared memory per team, in floats, as a C expression over dims and
  /// `cached` (segments first, then cached rows).
  std::string getSharedFloats(StringRef cached) const;

private:
  FailureOr<Expr> readLeaf(Value value, const Coords &coords);
  /// The coordinates of element `position` of the current row of a value of
  /// shape `shape`. In a float4 loop, lane l's coordinates carry its
  /// group's (Coords::laneBase).
  Coords rowCoords(ArrayRef<DimExpr> shape, const Expr &position);
  /// The coordinates of element `position` of the current row, each lane's
  /// on its own.
  Coords elementCoords(ArrayRef<DimExpr> shape, const Expr &position);
  /// The index within the current row of linear index `linear` of a value
  /// with `perRow` elements per row.
  Expr rowLocal(const Expr &linear, const DimExpr &perRow);
  /// Emits element `position` of the row of `reduction`'s reduced elements.
  FailureOr<Expr> emitReducedElement(const RowReduction &reduction,
                                     const Expr &position);
  FailureOr<Expr> emitDotElement(MatmulOp matmul, const Coords &coords);
  /// Whether `reduction` keeps an accumulator per lane of the float4 groups
  /// (rows in registers, or a sum or mean over rows read as float4 groups
  /// between scalar edges, whose edges add into the first), combined as a
  /// tree at the end: chains a quarter as long, as accurate as PyTorch's
  /// four accumulators per thread (a mean over rows of 1027, 32 elements a
  /// lane of a warp, was 25% less accurate than PyTorch's with one, on the
  /// H100). Not argmax/argmin, whose result the order does not change (and
  /// whose four (value, index) accumulators cost 8% on the H100).
  bool accumulatesPerLane(const RowReduction &reduction) const;
  /// Whether `reduction` (a sum or mean over rows staged as tiles: short
  /// rows, whose lanes add a dozen elements in a row; or over rows in
  /// registers of at least kDoubleSumGroups float4 groups a thread)
  /// accumulates in double and rounds once: a float chain of 10 to 16
  /// elements a lane was up to 13% less accurate than PyTorch's warp softmax
  /// and mean on the H100; softmax over rows of 16384, 16 groups a thread of
  /// 256, 0.2% less accurate than PyTorch's with four float chains a thread
  /// (the H200, run 7 of 2026-11-28), 8% more with double (run 8). Double
  /// sums over rows of 8 to 12 groups a thread cost up to 11% there
  /// (layer_norm over rows of 1280 by a warp), 1% over 16 groups.
  bool sumsInDouble(const RowReduction &reduction) const;
  /// Whether the threads' sums of a row (of float accumulators) add in
  /// double, rounded once: rows of more than kMediumRowLimit elements that
  /// a team of 256 threads reads from HBM (8 to 16 float4 groups a thread;
  /// sinter-plan-kernels' getStreamedRowTeam), neither in registers nor
  /// cached nor sliced. A sum over rows of 9797 was 4% less accurate than
  /// PyTorch's in float, 25% more with the threads' sums in double (the
  /// H200).
  bool combinesThreadsInDouble() const;
  /// Declares one accumulator per reduction of `group`, at its identity (an
  /// array of four where it accumulates per lane); argmax and argmin start
  /// at the group's `first` index (dev::argStart).
  void declareAccumulators(ArrayRef<RowReduction *> group,
                           SmallVectorImpl<std::string> &accumulators,
                           SmallVectorImpl<std::string> &combiners,
                           const Expr &first);
  /// Combines every accumulator with its reduction's element at `position`
  /// of the row, or stores the element as lane l of the array that `groups`
  /// names for the reduction (one name or "" each), whose float4 group the
  /// caller pushes at once.
  LogicalResult writeUpdates(ArrayRef<RowReduction *> group,
                             ArrayRef<std::string> accumulators,
                             ArrayRef<std::string> combiners,
                             const Expr &position,
                             ArrayRef<std::string> groups = {});
  /// Writes `if (vec) { <float4 loop> }` for the vector dot product
  /// accumulating into `acc`, and opens the scope of the scalar loop's
  /// `if (!vec)`.
  void writeVectorDot(const std::string &acc);
  /// Writes the results of `inner` and the outer statistic its pass also
  /// computed, from each thread's single-pass state `own`.
  void writeSinglePassResults(RowReduction &inner, const std::string &own);
  LogicalResult writePerRowReductions(ArrayRef<RowReduction *> group);
  /// The result of a reduction over a row from the thread's combined
  /// accumulator `own` (a streamed slice's partial, when folding them):
  /// the team's, or the cluster's, as `reduction.storage`.
  void finishPerRowReduction(RowReduction &reduction, const std::string &own,
                             const std::string &combiner);
  /// The statistics pass of a streamed row kernel's item: the slice's
  /// results level by level, stored as partials (RowStream.cpp).
  LogicalResult writeSliceStatistics();
  /// The row's results folded from its slices' partials, one a thread
  /// (RowStream.cpp).
  void writeSliceFold();
  /// The body of a streamed row kernel: its loop over the queue's items
  /// (RowStream.cpp).
  FailureOr<std::string> writeStreamed();
  LogicalResult writeSegmentReductions(ArrayRef<RowReduction *> group);
  LogicalResult writeOutputs();
  /// Writes the float4 loop over the outputs with rows of `length`.
  LogicalResult writeVectorOutputs(ArrayRef<const Buffer *> outputs,
                                   int64_t length);
  /// Writes the float4 loop over the row (lanes `4 * q + l`) that `body`
  /// fills, for rows of `length`, then opens the scope of the scalar loop's
  /// `if (!vec)`, which the caller closes.
  /// `finish` writes what follows the lanes in each group of four.
  LogicalResult writeVectorRowLoop(
      int64_t length, function_ref<LogicalResult(const Expr &)> body,
      function_ref<void()> finish = [] {});
  /// Element `coords` of `buffer` from the float4 loop's loads, if the
  /// coordinates are those of lane l in a buffer with whole rows.
  std::optional<Expr> readVectorLane(const Buffer &buffer,
                                     const Coords &coords);
  /// Whether `coords` are lane l's position in a buffer of one row's
  /// elements (a norm's weight), which a row in registers, or a slice of a
  /// cluster or a streamed one, reads as float4.
  bool isRowParamLane(const Buffer &buffer, const Coords &coords);
  /// The array of `buffer`'s float4 groups (at `address`, of group k) that
  /// each thread loads once before its loop over rows: a held param
  /// (RowPlan::heldParams), declared and loaded the first time it is read.
  std::string getHeldParam(const Buffer &buffer, const std::string &address);
  /// Copies the row's part of each cached operand into shared memory
  /// (RowShared.cpp).
  void writeCacheFill();
  /// Declares the block's tiles (the plan's tile_rows) and each team's rows
  /// in them (RowShared.cpp).
  void declareTiles();
  /// Opens the loop over the block's tiles of rows (the plan's tile_rows)
  /// and copies the tile of each cached input into shared memory
  /// (RowShared.cpp).
  void openTileLoop();
  /// Stores the tile of each tiled output and closes the loop over tiles.
  void closeTileLoop();
  /// Under rows_per_thread: opens the loop over the thread's tiles in its
  /// registers and over the rows of each, and closes them, storing the
  /// tiled outputs.
  void openThreadTileLoop();
  void closeThreadTileLoop();
  /// Loads the cached inputs' parts of the row into registers
  /// (RowVectors.cpp).
  void writeRegisterFill();
  /// Writes the head of the loop over the thread's float4 groups of a row
  /// of `length` held in registers, up to its lanes' scope, and returns the
  /// depth of its group (RowVectors.cpp).
  unsigned openRegisterRowLoop(int64_t length);
  /// Closes what openRegisterRowLoop opened around the lanes' loop.
  void closeRegisterRowLoop(int64_t length);
  /// Opens the body of the scalar loop over a row of `length` (that the
  /// caller closes with plan.getRowLoop): with float4 edges, its position j
  /// from the edge k.
  void openScalarRowLoop(const DimExpr &length);
  /// The header that closes the scope of the scalar loop after the float4
  /// loop over rows of `length`.
  std::string getScalarRowScope(const DimExpr &length) const;
  /// Whether the block uses shared memory: segments or cached rows.
  bool usesShared() const;
  /// Declares the cluster's slice, if any, and the layout of the block's
  /// shared memory: segments, then cached rows (RowShared.cpp).
  void declareShared();
  /// The L2 cache policy that a streamed row kernel reads its slices with,
  /// in the pass being written ("keep" or "drop"; "" otherwise).
  std::string loadPolicy;

  EmitterContext &context;
  const EvalKernel &kernel;
  RowPlan &plan;
  std::string cachedCondition;
  CodeWriter writer;
  ScalarEmitter emitter;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  llvm::DenseMap<Value, RowReduction *> reductionsByResult;
  /// Cached inputs: their shared arrays.
  llvm::DenseMap<Value, std::string> sharedRows;
  /// Under tile_rows, the tiles of the cached inputs and tiled outputs, and
  /// the rows of the tiled outputs, by buffer.
  llvm::DenseMap<const Buffer *, std::string> tiles, tiledOutputRows;
  unsigned rowDepth = 0;
  /// While writing a float4 loop: the linear index of lane l's element in
  /// a buffer with whole rows, the first lane's, the offsets of both in the
  /// row, and the loop's depth.
  std::optional<Expr> laneLinear, vectorLinear, lanePosition, vectorGroup;
  unsigned vectorDepth = 0;
  /// Arrays already loaded in the float4 loop, by buffer.
  llvm::StringMap<std::string> vectors;
  /// Whether the row's `vecHead`, `vecGroups` and `vecEdges` are declared
  /// (vectorEdges).
  bool edgesDeclared = false;
  /// Inputs held in registers: their arrays, by value.
  llvm::DenseMap<Value, std::string> registerRows;
  /// The plan's held params loaded so far: their arrays of float4 groups,
  /// by value.
  llvm::DenseMap<Value, std::string> heldParamArrays;
};

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_ROWKERNEL_H
