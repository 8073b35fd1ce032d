//===- PlanSplitReductions.cpp - The plans of split reductions ------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-plan-kernels' decisions for split reductions (column kernels, and
// row kernels of few long rows): the positions a block covers, whether the
// partials read runs of 4, whether the last block of each column group folds
// the partials (SplitReduction.h), and the passes and launches.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/IR/ReductionRuns.h"
#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"
#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"

using namespace mlir;
using namespace mlir::sinter;

/// The widest power of two of at most `widest` columns a block, down to 64,
/// whose column groups leave at most 1/8 of their columns idle over
/// `positions`; where none does, the one that leaves the fewest idle in
/// proportion (the widest of equals). On the H100 (run 2 of 2026-11-28), in
/// fractions of copy: a variance over the first dim of [223696, 300] 0.77
/// with 256 columns a block (212 of 512 idle), 0.85 with 128, 0.83 with 64
/// (20 of 320); argmin over the first dim of [100000, 671] 0.84 with 256
/// (97 of 768), 0.84 with 128, 0.86 with 64 (33 of 704).
static int64_t getBusyColumnsPerBlock(int64_t positions, int64_t widest) {
  auto slots = [&](int64_t columns) {
    return static_cast<int64_t>(llvm::alignTo(positions, columns));
  };
  auto idle = [&](int64_t columns) { return slots(columns) - positions; };
  int64_t best = widest;
  for (int64_t columns = widest; columns >= 64; columns /= 2) {
    if (idle(columns) * 8 <= slots(columns))
      return columns;
    if (idle(columns) * slots(best) < idle(best) * slots(columns))
      best = columns;
  }
  return best;
}

/// The kept elements after the last reduced dim of a reduction over a middle
/// (or leading) dim, [A, R, C] reducing R: C, the positions whose elements
/// lie side by side in each reduced row; nullopt where symbolic (A may
/// be).
static std::optional<int64_t> getKeptRun(ReductionOpInterface reduction) {
  ArrayRef<int64_t> shape = getShape(reduction.getInput());
  if (reduction.getDims().empty())
    return std::nullopt;
  int64_t last = *llvm::max_element(reduction.getDims());
  return getStaticCount(shape.drop_front(last + 1));
}

/// The floats of a 128-byte line.
static constexpr int64_t kLineFloats = 32;

/// A block's positions where each reduced row's kept run is shorter than a
/// line (a reduction over a middle or the leading dims): the run (a power
/// of two), so that the block's threads spread along the reduced rows,
/// which lie side by side, and a warp reads whole lines, where the block
/// still reads at least kMinRunBlockElements elements; else nullopt. On
/// the H100 (run 4 of 2026-11-28), in fractions of copy, 256 positions a
/// block against the run: amax over dim 1 of [4096, 4096, 4] 0.65 and 0.98
/// (0.67x torch.compile before, 1.01x in sweep-25), a mean over dim 1 of
/// [2048, 2048, 16] 0.89 and 1.00, a sum over dim 1 of [1024, 8192, 8] 0.82
/// and 0.98; over [8192, 256, 32] (a whole line) 0.93 and 0.89, and over
/// [262144, 128, 2] (256 elements a block) 0.61 and 0.15.
static std::optional<int64_t>
getRunColumnsPerBlock(ReductionOpInterface reduction) {
  ReductionGeometry geometry = reduction.getGeometry();
  if (geometry != ReductionGeometry::middle &&
      geometry != ReductionGeometry::leading)
    return std::nullopt;
  std::optional<int64_t> run = getKeptRun(reduction);
  std::optional<int64_t> reduced = reduction.getStaticGroupSize();
  if (!run || !reduced || *run < 2 || *run >= kLineFloats ||
      !llvm::isPowerOf2_64(*run) || *reduced * *run < kMinRunBlockElements)
    return std::nullopt;
  return *run;
}

/// The loads of each position a lane of a warp-run kernel issues before it
/// combines them (the plan's chunk_loads), at most, and the loads in
/// flight a lane aims at over the positions it reduces at once.
static constexpr int64_t kWarpRunChunk = 8;
static constexpr int64_t kWarpRunLoads = 16;

/// A warp-run kernel's shape (KernelPlanAttr's warp_runs): the positions of
/// A a warp reduces at once, C, and the loads of each a lane issues before
/// it combines them.
struct WarpRuns {
  int64_t runs;
  int64_t channels;
  int64_t chunk;
};

/// The warp-run kernel of `reductions`, the one reduction of a kernel or a
/// mean and the variance around it (`welfordPairs` pairs of Welford
/// states; an apply step, if any, launches after it or runs in its
/// epilogue): where it reduces a middle dim of [A, R,
/// C] with C static from kMinWarpRunChannels to kMaxWarpRunChannels and R
/// static, and a warp's lanes have an element of R * C each at least while
/// a block a run (getRunColumnsPerBlock) would read fewer than
/// kMinRunBlockElements; else nullopt. Each lane then reads
/// ceil(R * C / lanes) elements of each position, enough positions at once
/// for kWarpRunLoads loads in flight. On the H100 (sweep-30), var over dim
/// 1 of [262144, 128, 2] ran at 0.64 of copy as split_welford (0.86x
/// torch.compile).
static std::optional<WarpRuns> getWarpRuns(ArrayRef<Operation *> reductions,
                                           int64_t welfordPairs) {
  if (reductions.size() != 1 + static_cast<size_t>(welfordPairs) ||
      welfordPairs > 1)
    return std::nullopt;
  auto reduction = cast<ReductionOpInterface>(reductions.front());
  std::optional<int64_t> channels = getKeptRun(reduction);
  std::optional<int64_t> reduced = reduction.getStaticGroupSize();
  if (reduction.getGeometry() != ReductionGeometry::middle ||
      getCombinerInfo(reduction.getCombiner()).isDecomposed() || !channels ||
      !reduced || *channels < kMinWarpRunChannels ||
      *channels > kMaxWarpRunChannels)
    return std::nullopt;
  const int64_t lanes = 32 - 32 % *channels;
  const int64_t elements = *reduced * *channels;
  if (elements < lanes || elements >= kMinRunBlockElements)
    return std::nullopt;
  int64_t loads = llvm::divideCeil(elements, lanes);
  int64_t chunk =
      std::clamp<int64_t>(llvm::PowerOf2Ceil(loads), 2, kWarpRunChunk);
  int64_t runs = std::clamp<int64_t>(kWarpRunLoads / chunk, 1, kMaxWarpRuns);
  return WarpRuns{runs, *channels, chunk};
}

/// The positions a block of a split reduction over a middle dim, [A, R, C]
/// reducing R, covers at most where C is longer than a line and not a
/// multiple of 4 (scalar loads, a block's positions straddling runs of C).
/// On the H100 (run 8 of 2026-11-28), in fractions of copy with 256, 128
/// and 64 positions a block: a sum over [64, 999, 1001] 0.86, 0.90 and
/// 0.87, a mean over [256, 333, 777] 0.82, 0.89 and 0.91, logsumexp over
/// [64, 3000, 349] 0.78, 0.81 and 0.70, argmin over [64, 4000, 263] 0.83,
/// 0.84 and 0.86 (run 9: 128 again, 0.90, 0.90, 0.80, 0.85).
static constexpr int64_t kScalarMiddleColumns = 128;

/// The fewest reduced rows (R) for kScalarMiddleColumns: fewer leave a
/// narrower block too little to read (logsumexp over [128, 50, 10485] ran
/// at 0.85 of copy with 256 positions a block, 0.77 with 128; run 9 of
/// 2026-11-28).
static constexpr int64_t kMinScalarMiddleRows = 256;

/// Whether `reduction` reduces a middle dim of [A, R, C] with C static,
/// longer than a line and not a multiple of 4, and R static and at least
/// kMinScalarMiddleRows.
static bool isScalarMiddle(ReductionOpInterface reduction) {
  std::optional<int64_t> run = getKeptRun(reduction);
  std::optional<int64_t> reduced = reduction.getStaticGroupSize();
  return reduction.getGeometry() == ReductionGeometry::middle && run &&
         *run > kLineFloats && *run % 4 != 0 && reduced &&
         *reduced >= kMinScalarMiddleRows;
}

/// The positions a block of a split reduction covers: one when the
/// innermost dim of size above 1 is reduced, else a short kept run
/// (getRunColumnsPerBlock), else the kept positions rounded up to a power of
/// two, at most the whole block (fewer than a warp's: its lanes read
/// adjacent short rows, [4M, 16] over dim 0, and none idles) or
/// kScalarMiddleColumns over a middle dim read by scalar loads, and
/// narrower where most of a last column group would idle
/// (getBusyColumnsPerBlock), 32 when symbolic.
static int64_t getColumnsPerBlock(ReductionOpInterface reduction) {
  ArrayRef<int64_t> shape = getShape(reduction.getInput());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1)
      continue;
    if (llvm::is_contained(reduction.getDims(), d))
      return 1;
    break;
  }
  if (std::optional<int64_t> run = getRunColumnsPerBlock(reduction))
    return *run;
  std::optional<int64_t> positions =
      getStaticCount(getShape(reduction->getResult(0)));
  if (!positions)
    return 32;
  int64_t widest = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(*positions), 1,
      isScalarMiddle(reduction) ? kScalarMiddleColumns : kBlockThreads);
  return getBusyColumnsPerBlock(*positions, widest);
}

/// Whether the partial kernels of a split reduction can read runs of 4
/// adjacent elements (float4): every reduction's (canReadRunsOfFour).
static bool canReadRuns(ArrayRef<Operation *> reductions,
                        int64_t columnsPerBlock) {
  return llvm::all_of(reductions, [&](Operation *op) {
    return canReadRunsOfFour(cast<ReductionOpInterface>(op), columnsPerBlock);
  });
}

/// The slices of the columns of a split reduction `op` whose blocks cover
/// `columnsPerBlock` positions (of runs of 4 with `runs`), the blocks along
/// its columns and the rows (or runs) each thread of a slice reads, where
/// its shape is static (getColumnSplits, as the host code computes them).
struct StaticSplits {
  int64_t splits;
  int64_t blocks;
  int64_t rowsPerThread;
};
static std::optional<StaticSplits>
getStaticSplits(Operation *op, int64_t columnsPerBlock, bool runs) {
  auto reduction = cast<ReductionOpInterface>(op);
  std::optional<int64_t> positions = getStaticCount(getShape(op->getResult(0)));
  std::optional<int64_t> elements =
      getStaticCount(getShape(reduction.getInput()));
  if (!positions || !elements || *positions == 0)
    return std::nullopt;
  const bool columnRuns = runs && columnsPerBlock > 1;
  int64_t rows = *elements / *positions / (runs && !columnRuns ? 4 : 1);
  int64_t lanes =
      kBlockThreads / (columnRuns ? columnsPerBlock / 4 : columnsPerBlock);
  int64_t blocks = llvm::divideCeil(*positions, columnsPerBlock);
  int64_t splits = getColumnSplits(rows, lanes, blocks);
  int64_t rowsPerThread = llvm::divideCeil(rows, lanes * splits);
  return StaticSplits{splits, blocks, rowsPerThread};
}

/// Whether the last block of each column group can fold the partials of a
/// split reduction `op` whose blocks cover `columnsPerBlock` positions (of
/// runs of 4 with `runs`), of Welford states or (value, index) pairs if
/// `wideStates`: a static shape whose columns have one slice each (the
/// block's own result is final), or, for one-word partials, whose fold reads
/// at most kMaxFoldPerThread partials a thread. A heavier fold (sum over the
/// first dim of [16384, 2048]: 64 a thread) waits on as many L2 round trips
/// in one block, where a kernel of its own spreads it over the GPU; and
/// folding wide states in the partial kernel made var and argmax over
/// 16 x 4M and all of 8192 x 8192 2-3% slower on the H100 (sums 1% faster).
static bool canFoldInLastBlock(Operation *op, int64_t columnsPerBlock,
                               bool runs, bool wideStates) {
  std::optional<StaticSplits> split =
      getStaticSplits(op, columnsPerBlock, runs);
  if (!split)
    return false;
  return split->splits == 1 ||
         (!wideStates &&
          split->splits * columnsPerBlock <= kMaxFoldPerThread * kBlockThreads);
}

/// The columns each thread of the partial kernel finishes (the plan's
/// columns_per_thread): where a block covers kBlockThreads columns a lane
/// each, of scalar loads, and every reduction's columns have at most
/// kSplitRowsPerThread rows (one slice, finished by the last block's
/// rule), enough columns for kColumnLoadsInFlight loads a thread, as long
/// as kSplitTargetBlocks blocks remain; else 1.
static int64_t getColumnsPerThread(ArrayRef<Operation *> reductions,
                                   int64_t columnsPerBlock, bool runs,
                                   bool lastBlockFolds) {
  if (columnsPerBlock != kBlockThreads || runs || !lastBlockFolds)
    return 1;
  int64_t rows = 1, positions = 0;
  for (Operation *op : reductions) {
    auto reduction = cast<ReductionOpInterface>(op);
    std::optional<int64_t> kept = getStaticCount(getShape(op->getResult(0)));
    std::optional<int64_t> elements =
        getStaticCount(getShape(reduction.getInput()));
    if (!kept || !elements || *kept == 0)
      return 1;
    rows = std::max(rows, *elements / *kept);
    positions = std::max(positions, *kept);
  }
  if (rows > kSplitRowsPerThread)
    return 1;
  int64_t columns = std::min<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(kColumnLoadsInFlight, rows)),
      kMaxColumnsPerThread);
  while (columns > 1 && llvm::divideCeil(positions, kBlockThreads * columns) <
                            kSplitTargetBlocks)
    columns /= 2;
  return columns;
}

/// Whether the partial kernel of a split_reduction (sums, extrema, argmax
/// and argmin; not `paired` states) reads chunks of kWideChunkRuns runs of
/// 4 at kWideChunkMinBlocks blocks a multiprocessor: where every column
/// has one slice, the blocks along them are more than a wave (so that the
/// fewer blocks resident cost no wave) and each thread reads a wide chunk
/// at least. On the H100, argmax over the 150 classes of [16, 150, 160,
/// 160] (1600 blocks) went from 0.82 to 0.91 of copy (0.91x to 1.01x
/// torch.compile), over the middle dim of [1024, 64, 1024] from 0.93 to
/// 0.96, a sum over the middle dim of [128, 1000, 524] from 0.92 to 0.95, a
/// mean over H, W of NHWC [668, 7, 7, 2048] from 0.96 to 0.97; sums and
/// maxima of 16 to 64 runs a thread moved by under 1%, but a sum over the
/// first dim of [8, 8388608] (2 runs a thread) lost 1.5%; argmax over the
/// middle dim of [128, 1000, 524] and [64, 1024, 1024] and the first of
/// [16384, 4096] (two slices or more, one wave of about 512 blocks) fell
/// from 0.92-0.94 to 0.82-0.83: their wave no longer fit (runs 2 and 3 of
/// 2026-11-27).
static bool hasWideChunks(ArrayRef<Operation *> reductions,
                          int64_t columnsPerBlock, bool runs, bool paired) {
  return runs && !paired && llvm::all_of(reductions, [&](Operation *op) {
           std::optional<StaticSplits> split =
               getStaticSplits(op, columnsPerBlock, runs);
           return split && split->splits == 1 &&
                  split->blocks > kSplitWaveBlocks &&
                  split->rowsPerThread >= kWideChunkRuns;
         });
}

/// The loads a thread of the partial kernel issues before it combines them
/// (the plan's chunk_loads): kWideChunkRuns runs of 4 with wide chunks,
/// kChunkRuns runs where it reads runs, else kChunkElements elements.
static int64_t getChunkLoads(bool runs, bool wideChunks) {
  return wideChunks ? kWideChunkRuns : runs ? kChunkRuns : kChunkElements;
}

/// Whether `value` is computed in its kernel from one of `statistics`.
static bool isComputedFrom(Value value,
                           const llvm::DenseSet<Value> &statistics) {
  SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value next = work.pop_back_val();
    if (statistics.contains(next))
      return true;
    if (!seen.insert(next).second)
      continue;
    if (Operation *op = next.getDefiningOp())
      llvm::append_range(work, op->getOperands());
  }
  return false;
}

/// Strips (the plan's apply_in_strip): a strip's positions where a column
/// takes 8 lanes of rows (a row of the strip is 128 bytes, whole cache
/// lines); the elements a thread holds in registers, at least with 8 lanes
/// and at most (its loads, times the inputs of the reduced shape); the
/// multiprocessors that the strips must fill once at least (the H100's).
/// A block takes a strip: a persistent grid of as many blocks as fit
/// walking the strips ran slower (on the H100, softmax over 150 classes of
/// [32, 150, 112, 112] at 0.77 of copy against 0.81, a channels-first
/// layer norm over 96 channels at 0.86 against 0.88). On the H200, against
/// a split reduction: softmax
/// over the 150 classes of [32, 150, 112, 112] ran at 0.56 of copy against
/// 0.53, a channels-first layer norm over 96 channels at 0.66 against 0.58
/// (on the H100, 0.93x torch.compile against 0.69x); but over 21 classes
/// in 8 lanes (3 loads a thread) at 0.28 against 0.40, and in strips of 16
/// and 8 positions (more loads a thread) softmax over 512 and 1000 rows at
/// 0.52 and 0.41 against 0.57 and 0.56: a strip's barriers and fold over
/// too few loads, or runs of a row too short. Columns that a thread holds
/// whole take a thread each, 256 a block, no fold across lanes: on the
/// H100, log_softmax over the 21 classes of [64, 21, 224, 224] went from
/// 0.83x torch.compile (split, 0.49 of copy) to 1.46x (0.87).
static constexpr int64_t kStripColumns = 32;
static constexpr int64_t kMinStripLoads = 8;
/// Strips are widened from kStripColumns positions up to kMaxStripColumns
/// (a row of the strip 512 bytes, 2 lanes a column) until a thread makes
/// kStripLoads loads, while a thread's part of its column fits
/// kMaxStripFloats. On the H100 (runs 4 and 5 of 2026-11-28), in fractions
/// of copy, in strips of 32, 64 and 128 positions (loads a thread): softmax
/// over 48 classes 0.55 (6), 0.82 (12), 0.98 (24); over 60 classes 0.55
/// (8), 0.89 (15), 0.98 (30); log_softmax over 81 classes 0.69 (11), 0.95
/// (21); over 120, 0.87 (15) and 0.96 (30); a channels-first layer norm
/// over 64 channels 0.76 (8), 0.98 (16), 0.94 (32); over 96, 0.88 (12) and
/// 0.99 (24).
static constexpr int64_t kMaxStripColumns = 128;
static constexpr int64_t kStripLoads = 16;
static constexpr int64_t kStripProcessors = 132;
/// Staged strips narrower than kStripColumns where its staged operands
/// would not fit kMaxStripSharedBytes, down to this many positions (a row
/// of the strip is 32 bytes, a sector): softmax over the middle dim of [64,
/// 1000, 1048] went from 0.95x torch.compile (a split online softmax, two
/// reads of HBM) to 1.13x in strips of 16 positions (64000 bytes), 1.15x
/// in strips of 8 at 6 blocks an SM (the H100).
static constexpr int64_t kMinStagedStripColumns = 8;

/// The positions of a strip, and the operands it stages in shared memory
/// rather than registers (the plan's cached operands).
struct StripShape {
  int64_t columns;
  SmallVector<int64_t> staged;
};

/// The shape of a strip whose block reads every reduced element of its
/// positions into registers (or shared memory), computes their statistics
/// and then writes the apply step's outputs over them from there (the
/// plan's apply_in_strip, which reads HBM once where a split reduction's
/// apply step reads it again), where:
///   - one pass computes every statistic (`passes`: a reduction, or a pair
///     of Welford or online softmax states) over a static input that every
///     reduction reduces over the same dims, its innermost dim kept;
///   - every output is a statistic or has the input's shape, and the body
///     has no shape op (the apply walks the strip's own elements);
///   - a thread holds a whole column in at most kMaxStripFloats (a strip
///     of 256 positions, a thread each), or an eighth of it in
///     kMinStripLoads to kMaxStripFloats (a strip of kStripColumns
///     positions, 8 lanes of rows each), a quarter or a half in strips of
///     64 or 128 positions where 32 would give a thread fewer than
///     kStripLoads loads (and the wider strips still fill the GPU), or
///     else the strip's inputs of the
///     reduced shape (kernel operands) are staged in at most
///     kMaxStripSharedBytes of shared memory, in the widest strip of
///     kStripColumns, 16 or kMinStagedStripColumns positions that fits;
///     and a strip for every multiprocessor at least.
/// Softmax over the 150 classes of [32, 150, 112, 112] read HBM twice as a
/// split online softmax.
static std::optional<StripShape>
getStripShape(Block &body, ArrayRef<Operation *> reductions, int64_t passes) {
  auto first = cast<ReductionOpInterface>(reductions.front());
  ArrayRef<int64_t> full = getShape(first.getInput());
  std::optional<int64_t> elements = getStaticCount(full);
  std::optional<int64_t> positions =
      getStaticCount(getShape(first->getResult(0)));
  if (passes != 1 || !elements || !positions || *positions == 0 ||
      getColumnsPerBlock(first) == 1)
    return std::nullopt;
  for (Operation *op : reductions) {
    auto reduction = cast<ReductionOpInterface>(op);
    if (getShape(reduction.getInput()) != full ||
        reduction.getDims() != first.getDims() || isa<ArgmaxOp, ArgminOp>(op))
      return std::nullopt;
  }
  if (llvm::any_of(body.without_terminator(),
                   [](Operation &op) { return isShapeOp(&op); }))
    return std::nullopt;
  llvm::DenseSet<Value> statistics;
  for (Operation *op : reductions)
    statistics.insert(op->getResult(0));
  ValueRange outputs = body.getTerminator()->getOperands();
  if (llvm::any_of(outputs, [&](Value output) {
        return !statistics.contains(output) && getShape(output) != full;
      }))
    return std::nullopt;
  SmallVector<int64_t> held;
  for (BlockArgument argument : body.getArguments())
    if (getShape(argument) == full)
      held.push_back(argument.getArgNumber());
  int64_t reduced = *elements / *positions;
  int64_t floats = std::max<int64_t>(held.size(), 1);
  auto getLoads = [&](int64_t columns) {
    return llvm::divideCeil(reduced, kBlockThreads / columns);
  };
  int64_t columns = kBlockThreads;
  if (reduced * floats > kMaxStripFloats) {
    columns = kStripColumns;
    while (columns < kMaxStripColumns && getLoads(columns) < kStripLoads &&
           getLoads(2 * columns) * floats <= kMaxStripFloats &&
           llvm::divideCeil(*positions, 2 * columns) >= kStripProcessors)
      columns *= 2;
  }
  int64_t loads = getLoads(columns);
  if (columns == kStripColumns && loads < kMinStripLoads)
    return std::nullopt;
  if (loads * floats <= kMaxStripFloats)
    return llvm::divideCeil(*positions, columns) < kStripProcessors
               ? std::nullopt
               : std::optional(StripShape{columns, {}});
  // Columns too long for registers are staged in shared memory, in the
  // widest strip that fits.
  if (held.empty())
    return std::nullopt;
  for (int64_t staged = kStripColumns; staged >= kMinStagedStripColumns;
       staged /= 2)
    if (static_cast<int64_t>(held.size()) * reduced * staged * 4 <=
            kMaxStripSharedBytes &&
        llvm::divideCeil(*positions, staged) >= kStripProcessors)
      return StripShape{staged, held};
  return std::nullopt;
}

KernelPlanAttr sinter::planSplitReduction(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> reductions = getReductions(body);
  auto first = cast<ReductionOpInterface>(reductions.front());
  // Outputs that are reduction results come from the fold kernels; any
  // other output needs an apply step, which reads the inputs once more
  // where it writes full-size values (x - mean), only statistics otherwise.
  SmallVector<Value> statistics;
  for (Operation *reduction : reductions)
    statistics.push_back(reduction->getResult(0));
  llvm::DenseSet<Value> results(statistics.begin(), statistics.end());
  ValueRange outputs = body.getTerminator()->getOperands();
  bool apply = llvm::any_of(
      outputs, [&](Value output) { return !results.contains(output); });
  // An output of the statistics' shape but for unit dims (var's division by
  // n - 1) reads statistics only; any other (x - mean, through a reshape or
  // not) reads the inputs once more. When every output is one, the fold of
  // a kernel with one fold computes them.
  auto withoutUnitDims = [](Value value) {
    return getSizesWithoutUnitDims(getShape(value));
  };
  // A symbolic size matches the statistics' only where the output is
  // computed from them (elementwise ops broadcast equal sizes), not where
  // an input of its own lends it.
  auto isStatisticsShaped = [&](Value output) {
    if (results.contains(output))
      return true;
    if (withoutUnitDims(output) != withoutUnitDims(first->getResult(0)))
      return false;
    return cast<ShapedType>(output.getType()).hasStaticShape() ||
           isComputedFrom(output, results);
  };
  bool statisticsShaped = llvm::all_of(outputs, isStatisticsShaped);
  bool applyReadsInputs = !statisticsShaped;
  // The first variance around each mean of the kernel joins the mean's
  // pass: one Welford pass reads the input once for both. Without one, the
  // first sum of exp(x - max) around each max joins the max's: one pass of
  // online softmax states (a kernel with both keeps the sums of exp in
  // passes of their own).
  llvm::DenseSet<Operation *> welfordPairs, softmaxPairs;
  for (Operation *reduction : reductions)
    if (std::optional<SinglePassPair> pair = matchSinglePassPair(reduction);
        pair && results.contains(pair->first->getResult(0)))
      (pair->form == SinglePassForm::Welford ? welfordPairs : softmaxPairs)
          .insert(pair->first);
  const bool welford = !welfordPairs.empty();
  const llvm::DenseSet<Operation *> &paired =
      welford ? welfordPairs : softmaxPairs;
  int64_t pairs = static_cast<int64_t>(paired.size());
  int64_t count = static_cast<int64_t>(reductions.size()) - pairs;
  // A warp-run kernel finishes its positions where it reads them.
  std::optional<WarpRuns> warpRuns =
      getWarpRuns(reductions, welford ? pairs : 0);
  int64_t columnsPerBlock = warpRuns ? 8 * warpRuns->runs * warpRuns->channels
                                     : getColumnsPerBlock(first);
  bool runs = !warpRuns && canReadRuns(reductions, columnsPerBlock);
  bool lastBlockFolds =
      warpRuns || llvm::all_of(reductions, [&](Operation *op) {
        bool wideStates = pairs || isa<ArgmaxOp, ArgminOp>(op);
        return canFoldInLastBlock(op, columnsPerBlock, runs, wideStates);
      });
  // The inputs the apply step reads along the innermost dim but broadcast
  // along the rows (a weight over the last dim; not through a reshape).
  ArrayRef<int64_t> full = getShape(first.getInput());
  SmallVector<Value> rowParams;
  for (BlockArgument argument : body.getArguments()) {
    ArrayRef<int64_t> shape = getShape(argument);
    if (shape.empty() || shape.back() == 1 || shape.size() > full.size() ||
        llvm::any_of(argument.getUsers(), llvm::IsaPred<ReshapeOp>))
      continue;
    bool broadcast =
        shape.size() < full.size() ||
        llvm::any_of(llvm::zip(shape.drop_back(), full.drop_back()),
                     [](auto sizes) {
                       auto [size, fullSize] = sizes;
                       return size == 1 && fullSize != 1;
                     });
    if (broadcast)
      rowParams.push_back(argument);
  }
  bool applyInFold = apply && count == 1 && statisticsShaped;
  bool applyLaunches = apply && !applyInFold;
  KernelStrategy strategy = KernelStrategy::split_reduction;
  if (pairs)
    strategy = welford ? KernelStrategy::split_welford
                       : KernelStrategy::split_online_softmax;
  if (std::optional<StripShape> strip =
          applyReadsInputs ? getStripShape(body, reductions, count)
                           : std::nullopt)
    return KernelPlanAttr::get(
        context, strategy, first.getGeometry(), kBlockThreads,
        /*rowsPerBlock=*/0, strip->columns, /*vectorWidth=*/1,
        DenseI64ArrayAttr::get(context, strip->staged), /*passes=*/1,
        /*launches=*/1, EpilogueForm::none, /*singlePass=*/false,
        /*registers=*/false,
        /*lastBlockFolds=*/false,
        strip->staged.empty() ? getSplitMinBlocks() : kStagedStripMinBlocks,
        /*applyMinBlocks=*/0,
        /*applyRowsPerThread=*/1, /*applyInFold=*/false, /*cluster=*/1,
        /*rowSlices=*/1, /*streamLag=*/0, /*streamBlocks=*/0,
        /*applyInStrip=*/true, /*tileRows=*/false, /*columnsPerThread=*/1,
        /*rowsPerThread=*/1,
        getChunkLoads(/*runs=*/false, /*wideChunks=*/false),
        /*heldParams=*/nullptr, /*warpRuns=*/0);
  const bool wideChunks =
      hasWideChunks(reductions, columnsPerBlock, runs, pairs > 0);
  return KernelPlanAttr::get(
      context, strategy, first.getGeometry(), kBlockThreads, /*rowsPerBlock=*/0,
      columnsPerBlock, runs ? 4 : 1, DenseI64ArrayAttr::get(context, {}),
      /*passes=*/count + (applyReadsInputs ? 1 : 0),
      /*launches=*/(lastBlockFolds ? 1 : 2) * count + (applyLaunches ? 1 : 0),
      EpilogueForm::none, /*singlePass=*/false, /*registers=*/false,
      lastBlockFolds, wideChunks ? kWideChunkMinBlocks : getSplitMinBlocks(),
      applyLaunches ? getApplyMinBlocks(statistics) : 0,
      applyLaunches ? getApplyRowsPerThread(statistics, rowParams) : 1,
      applyInFold, /*cluster=*/1, /*rowSlices=*/1, /*streamLag=*/0,
      /*streamBlocks=*/0, /*applyInStrip=*/false, /*tileRows=*/false,
      strategy == KernelStrategy::split_online_softmax || warpRuns
          ? 1
          : getColumnsPerThread(reductions, columnsPerBlock, runs,
                                lastBlockFolds),
      /*rowsPerThread=*/1,
      warpRuns ? warpRuns->chunk : getChunkLoads(runs, wideChunks),
      /*heldParams=*/nullptr, warpRuns ? warpRuns->runs : 0);
}
