//===- PlanKernels.cpp - Attaches the plan of every sinter.kernel ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Decides how each kernel runs and writes the decision into the IR as a
// #sinter.plan attribute, which the CUDA emitter reads instead of deciding
// again (Triton's Coalesce pass writes its layouts the same way):
//   - a pointwise kernel is a grid-stride loop, with 16-byte vector loads
//     when every output has the full shape (where four consecutive
//     elements may straddle a broadcast row, each lane reads the broadcast
//     values at its own coordinates);
//   - a row kernel gives each row to a group of lanes (1 to 16 lanes of a
//     few float4 groups each, several rows per warp), a warp (rows up to
//     1024, several rows per block) or a block (256 threads up to 8192, 1024
//     beyond), or lets the launch choose when the row length is symbolic; it
//     holds in registers the inputs that more than one pass over the row
//     reads where each thread's part of the row is a few float4 groups,
//     caches them in shared memory where they fit there, or in that of a
//     thread block cluster of 2 to 8 blocks (a slice of the row a block),
//     or streams rows too long for that through L2 in slices (a persistent
//     grid: a slice's statistics, then, a bounded lag later, its outputs
//     read from L2), and otherwise reads them once per pass, computing pairs of
//     statistics that one pass can (online softmax, Welford) in one, with
//     16-byte vectors when rows are a multiple of 4 long; short rows that
//     are not (5 to 128 elements, or 2 and 3 that several passes read) are
//     staged as the block's tiles in shared memory, copied to and from HBM
//     as 16-byte vectors;
//   - few long rows (fewer than two per SM, longer than 8192) that are not
//     streamed, and any other
//     geometry are split reductions: partials over many blocks,
//     an ordered fold, an apply step when some output is not a statistic;
//     a mean and a variance around it (training batch_norm, var) are one
//     pass of Welford states (split_welford), else a max and the sum of
//     exp(x - max) (softmax) one of online softmax states
//     (split_online_softmax);
//     a block covers one position (its threads split the reduced elements)
//     when the innermost dim is reduced, up to 256 adjacent positions
//     otherwise;
//   - a GEMM runs in the library, its epilogue in cuBLASLt when it is
//     exactly bias (+ relu or tanh-gelu), in one generated kernel otherwise.
// Launch bounds ask for the blocks per SM that ran fastest (Occupancy.cpp).
// A kernel that has a plan already (written by hand in a test) keeps it.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

#include <set>

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERPLANKERNELS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

/// Rows up to this length go to one warp, up to kMediumRowLimit to 256
/// threads, longer ones to 1024.
static constexpr int64_t kWarpRowLimit = 1024;
static constexpr int64_t kMediumRowLimit = 8192;
/// The shared memory a row kernel may use per block (below Hopper's 227 KiB,
/// leaving room for the static storage of block reductions).
static constexpr int64_t kMaxSharedBytes = 160 * 1024;
/// The floats of its rows that one thread of a row kernel may hold in
/// registers for one operand, and over every operand it holds (more would
/// spill, or cut the threads an SM runs). Two operands of 32 floats a
/// thread (a residual add into a norm) ran faster held than cached in
/// shared memory: layer_norm(x + r) over rows of 768 at 0.86x torch.compile
/// cached, 1.00x held, over rows of 8192 at 0.66x and 1.03x, softmax(x + r)
/// over rows of 1024 at 0.87x and 1.00x (the H200).
static constexpr int64_t kMaxRegisterFloatsPerOperand = 32;
static constexpr int64_t kMaxRegisterFloats = 64;
/// The most lanes that share a short row (a row of more float4 groups takes
/// a warp).
static constexpr int64_t kMaxSubwarpLanes = 16;
/// Fewer rows than this (two blocks on each of an H100's 132 SMs) leave the
/// GPU idle with a block per row: rows longer than kMediumRowLimit are then
/// split over many blocks.
static constexpr int64_t kMinRowBlocks = 264;

/// The geometry of the reductions of `body`: that of the first reduction op
/// (the formation policy puts only reductions of one geometry in a kernel),
/// trailing for dot products, none without reductions.
static ReductionGeometry getKernelGeometry(Block &body) {
  for (Operation &op : body)
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      return reduction.getGeometry();
  return ReductionGeometry::none;
}

/// Kernel arguments that each pass of a row kernel reads, and how many
/// passes read each: the row emitter computes the reductions of one level
/// (those that read no reduction of the same level) and group size in one
/// loop over the row, those in `fused` in the loop of another (see
/// SinglePass.h), and writes the outputs in one more. Walks stop at
/// reduction results.
static llvm::DenseMap<Value, int64_t>
countPasses(Block &body, const llvm::DenseSet<Operation *> &fused = {}) {
  SmallVector<Operation *> reductions = getReductions(body);
  llvm::DenseMap<Value, Operation *> stops;
  for (Operation *reduction : reductions)
    stops[reduction->getResult(0)] = reduction;
  // The arguments the values `roots` read, and the reductions they read.
  auto walk = [&](ValueRange roots, llvm::SetVector<Value> &arguments,
                  SmallVectorImpl<Operation *> &read) {
    llvm::DenseSet<Value> visited;
    SmallVector<Value> stack(roots.begin(), roots.end());
    while (!stack.empty()) {
      Value value = stack.pop_back_val();
      if (!visited.insert(value).second)
        continue;
      if (Operation *reduction = stops.lookup(value))
        read.push_back(reduction);
      else if (isa<BlockArgument>(value))
        arguments.insert(value);
      else if (Operation *op = value.getDefiningOp())
        llvm::append_range(stack, op->getOperands());
    }
  };
  // One loop per (level, group size); the outputs' loop is level -1.
  llvm::DenseMap<Operation *, int64_t> levels;
  llvm::DenseMap<Value, std::set<std::pair<int64_t, int64_t>>> loops;
  for (Operation *reduction : reductions) {
    llvm::SetVector<Value> arguments;
    SmallVector<Operation *> read;
    walk(reduction->getOperands(), arguments, read);
    int64_t level = 0;
    for (Operation *earlier : read)
      level = std::max(level, levels.lookup(earlier) + 1);
    levels[reduction] = level;
    if (fused.contains(reduction))
      continue;
    for (Value argument : arguments)
      loops[argument].insert({level, getGroupSize(reduction).value_or(-1)});
  }
  llvm::SetVector<Value> arguments;
  SmallVector<Operation *> read;
  walk(body.getTerminator()->getOperands(), arguments, read);
  for (Value argument : arguments)
    loops[argument].insert({-1, 0});
  llvm::DenseMap<Value, int64_t> passes;
  for (auto &[argument, keys] : loops)
    passes[argument] = static_cast<int64_t>(keys.size());
  return passes;
}

/// The static row length of a row kernel: its rows are the results of the
/// reduction with the fewest, and a row holds the elements each reduction
/// reads and each output writes per such result. std::nullopt when a
/// reduced dim is symbolic or the values do not share their symbolic dims
/// (the launch decides then).
static std::optional<int64_t> getStaticRowLength(Block &body) {
  SmallVector<Operation *> reductions = getReductions(body);
  SmallVector<std::pair<int64_t, int64_t>> reads; // (elements, results)
  std::optional<int64_t> batchDims;
  for (Operation *reduction : reductions) {
    std::optional<int64_t> group = getGroupSize(reduction);
    auto [results, dynamic] =
        getStaticProductAndDynamicCount(getShape(reduction->getResult(0)));
    if (!group || (batchDims && *batchDims != dynamic))
      return std::nullopt;
    batchDims = dynamic;
    reads.push_back({*group * results, results});
  }
  int64_t rows = llvm::min_element(reads, [](auto a, auto b) {
                   return a.second < b.second;
                 })->second;
  int64_t length = 1;
  for (auto [elements, results] : reads) {
    if (results % rows != 0)
      return std::nullopt;
    length = std::max(length, elements / rows);
  }
  for (Value output : body.getTerminator()->getOperands()) {
    auto [elements, dynamic] =
        getStaticProductAndDynamicCount(getShape(output));
    if (dynamic == *batchDims && elements % rows == 0)
      length = std::max(length, elements / rows);
    else if (dynamic != 0)
      return std::nullopt;
  }
  return length;
}

/// The number of rows of a row kernel, if static: the results of the
/// reduction with the fewest.
static std::optional<int64_t> getStaticRowCount(Block &body) {
  std::optional<int64_t> rows;
  for (Operation *reduction : getReductions(body)) {
    std::optional<int64_t> results =
        getStaticCount(getShape(reduction->getResult(0)));
    if (!results)
      return std::nullopt;
    rows = rows ? std::min(*rows, *results) : *results;
  }
  return rows;
}

/// Whether a row kernel has so few, so long rows that a block per row would
/// leave most of the GPU idle: then each row is split over many blocks.
/// Dot products stay in the row kernel.
static bool hasFewLongRows(Block &body) {
  if (!body.getOps<MatmulOp>().empty())
    return false;
  std::optional<int64_t> rows = getStaticRowCount(body);
  std::optional<int64_t> length = getStaticRowLength(body);
  return rows && length && *rows<kMinRowBlocks && * length> kMediumRowLimit;
}

/// The outer statistics of the single-pass pairs (see SinglePass.h) of a
/// row kernel whose rows are `length` long: both statistics one per row.
static llvm::DenseSet<Operation *> getSinglePassReductions(Block &body,
                                                           int64_t length) {
  llvm::DenseSet<Operation *> fused;
  for (Operation *reduction : getReductions(body)) {
    std::optional<SinglePassPair> pair = matchSinglePassPair(reduction);
    if (pair && getGroupSize(pair->first) == length &&
        getGroupSize(pair->second) == length)
      fused.insert(pair->second);
  }
  return fused;
}

/// The team size of rows of `length` elements.
static int64_t getTeamSize(int64_t length) {
  return length <= kWarpRowLimit ? 32 : length <= kMediumRowLimit ? 256 : 1024;
}

/// Whether a row kernel with rows of `length` can hold them in registers:
/// float4 groups (a length that is a multiple of 4), every reduction over a
/// whole row.
static bool canHoldRowsInRegisters(KernelOp kernel, int64_t length) {
  return length % 4 == 0 && kernel.getKind() == KernelKind::row_reduction &&
         llvm::all_of(getReductions(kernel.getBody().front()),
                      [&](Operation *reduction) {
                        return getGroupSize(reduction) == length;
                      });
}

/// Whether a row kernel reads rows of `length` (not a multiple of 4) as
/// float4 groups from each row's first 16-byte boundary with scalar edges:
/// every reduction over whole rows, none an argmax or argmin (whose lanes
/// push their elements in index order). Over rows of 7001, a mean ran at
/// 0.945 of copy with scalar loads, 0.981 so (the H100).
static bool canWalkRowsWithEdges(KernelOp kernel, int64_t length) {
  return length > 4 && length % 4 != 0 &&
         kernel.getKind() == KernelKind::row_reduction &&
         llvm::all_of(getReductions(kernel.getBody().front()),
                      [&](Operation *reduction) {
                        return getGroupSize(reduction) == length &&
                               !isa<ArgmaxOp, ArgminOp>(reduction);
                      });
}

/// The team of rows of `length` held in registers. Rows of at most 4 float4
/// groups, or of 8 without `argReductions`, take a lane a group (no lane
/// idles); up to 16 groups, the power of two of lanes with the fewest idle
/// group slots (of those with 2 to 8 groups a lane, at least 4 where
/// `argReductions`: argmax, argmin, whose teams shuffle two values a
/// level), the most lanes among equals; up to 64 groups, a power of two of
/// lanes with at most 2 groups each (4 each for 32 groups or fewer where
/// `argReductions`); else as other rows. On the H200 (runs 3 and 5 of
/// 2026-11-27), in fractions of copy:
///   - rows of 24 (6 groups): variance 0.58 with 8 lanes, 0.90 with 4, 0.97
///     with 2;
///   - rows of 32, 8 lanes against 4: softmax 0.96 and 0.93, rms_norm 0.99
///     and 0.97, group_norm over 2 channels of 4x4 0.97 and 0.83, layer_norm
///     0.84 and 0.97; argmax 0.50 with 8 lanes, 0.88 with 2;
///   - rows of 64: layer_norm 0.84 with 16 lanes, 0.97 with 8 (variance 0.76
///     and 0.96);
///   - rows of 8 and 16: softmax fastest with a lane a group.
/// Over rows of 100 (25 groups) on the H100 a warp left 7 lanes idle:
/// softmax ran at 0.88 of copy with 32 lanes, 0.998 with 16 (0.91 with 8),
/// layer_norm 0.92 and 0.99, argmax 0.54, 0.72 and 0.92 with 8; over rows
/// of 256, 32 lanes were best for each (16 lanes: argmax 0.97 against 0.98).
static int64_t getRegisterTeamSize(int64_t length, bool argReductions) {
  int64_t groups = length / 4;
  if (groups <= 4 || (groups == 8 && !argReductions))
    return static_cast<int64_t>(llvm::PowerOf2Ceil(groups));
  if (groups <= kMaxSubwarpLanes) {
    int64_t best = 0, bestSlots = 0;
    for (int64_t lanes = 1; lanes <= kMaxSubwarpLanes; lanes *= 2) {
      int64_t perLane = llvm::divideCeil(groups, lanes);
      if (perLane < (argReductions ? 4 : 2) || perLane > 8)
        continue;
      if (!best || lanes * perLane <= bestSlots) {
        best = lanes;
        bestSlots = lanes * perLane;
      }
    }
    if (best)
      return best;
  }
  if (groups > 2 * 32)
    return getTeamSize(length);
  int64_t perLane = argReductions && groups <= 32 ? 4 : 2;
  return static_cast<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(groups, perLane)));
}

/// The team of rows of `length` that are not held in registers: a lane per
/// 4 elements (a power of two) up to kMaxSubwarpLanes lanes, kMaxSubwarpLanes
/// lanes up to 8 elements a lane, else as getTeamSize. On the H100, a warp a
/// row of 3 ran a mean at 0.035 of copy (0.03x torch.compile); softmax over
/// rows of 77 ran at 0.73x torch.compile with a warp a row, 0.92x with 8
/// lanes, 0.97x with 16.
static int64_t getScalarTeamSize(int64_t length) {
  int64_t groups = llvm::divideCeil(length, 4);
  if (groups <= kMaxSubwarpLanes)
    return static_cast<int64_t>(llvm::PowerOf2Ceil(groups));
  if (groups <= 2 * kMaxSubwarpLanes)
    return kMaxSubwarpLanes;
  return getTeamSize(length);
}

/// Whether `kernel` has an argmax or argmin.
static bool hasArgReductions(KernelOp kernel) {
  return llvm::any_of(
      getReductions(kernel.getBody().front()),
      [](Operation *op) { return isa<ArgmaxOp, ArgminOp>(op); });
}

/// The floats one thread of a team of `team` holds for `operands` rows of
/// `length` in registers.
static int64_t getRegisterFloats(int64_t length, int64_t team,
                                 int64_t operands) {
  return operands * 4 * llvm::divideCeil(length / 4, team);
}

/// The times a row kernel without cached rows reads its inputs from HBM
/// with the single-pass statistics of rows of `length` (Welford, online
/// softmax): the most passes over any input.
static int64_t getSinglePassHbmPasses(Block &body, int64_t length) {
  int64_t passes = 1;
  for (auto [argument, count] :
       countPasses(body, getSinglePassReductions(body, length)))
    passes = std::max(passes, count);
  return passes;
}

/// The plan of a row kernel (row_reduction and matvec kinds).
static KernelPlanAttr planRows(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> reductions = getReductions(body);
  ArrayRef<int64_t> resultShape = getShape(reductions.front()->getResult(0));
  llvm::DenseMap<Value, int64_t> passes = countPasses(body);
  SmallVector<int64_t> cached;
  int64_t maxPasses = 1;
  for (BlockArgument argument : body.getArguments()) {
    int64_t count = passes.lookup(argument);
    if (count > 1 && hasWholeRows(argument, resultShape))
      cached.push_back(argument.getArgNumber());
    maxPasses = std::max(maxPasses, count);
  }
  std::optional<int64_t> length = getStaticRowLength(body);
  int64_t block = 0, rowsPerBlock = 0, cluster = 1, rowSlices = 1,
          streamLag = 0;
  KernelStrategy strategy = KernelStrategy::row_by_length;
  // Rows held in registers where each thread's part fits: a group of lanes
  // per short row, the operands that several passes read held there (and
  // the loops over a row unrolled, so at most as long as one row held).
  auto registerTeam = [&](int64_t rowLength) {
    return getRegisterTeamSize(rowLength, hasArgReductions(kernel));
  };
  bool registers = length && canHoldRowsInRegisters(kernel, *length) &&
                   getRegisterFloats(*length, registerTeam(*length), 1) <=
                       kMaxRegisterFloatsPerOperand &&
                   getRegisterFloats(*length, registerTeam(*length),
                                     std::max<int64_t>(1, cached.size())) <=
                       kMaxRegisterFloats;
  if (length) {
    // Rows that are not float4 groups (of 3, of 7), every reduction over a
    // whole row, take a lane per 4 elements; other rows not held in
    // registers take a warp or a block.
    bool wholeRows = llvm::all_of(reductions, [&](Operation *reduction) {
      return getGroupSize(reduction) == *length;
    });
    block = registers ? registerTeam(*length)
            : *length % 4 != 0 && wholeRows &&
                    kernel.getKind() == KernelKind::row_reduction
                ? getScalarTeamSize(*length)
                : getTeamSize(*length);
    rowsPerBlock = block < 256 ? 256 / block : 1;
    strategy = block < 32    ? KernelStrategy::subwarp_per_row
               : block == 32 ? KernelStrategy::warp_per_row
                             : KernelStrategy::block_per_row;
    // Cached rows longer than 64 KiB are shared by a cluster of blocks
    // (slices of at most 64 KiB, the last one short where no cluster
    // divides the row), or else cached in one block if they fit its shared
    // memory; longer ones are streamed through L2, or cached by a cluster
    // in larger slices, or every pass reads HBM. Softmax over rows of 30522
    // ran at 0.67 of copy in one block (122 KB, one block an SM) and at
    // 0.81 in clusters of 2 (the H100).
    int64_t floats = static_cast<int64_t>(cached.size()) * *length;
    if (!registers && rowsPerBlock * floats * 4 > kClusterSliceBytes) {
      const bool fits = rowsPerBlock * floats * 4 <= kMaxSharedBytes;
      // Not where single-pass statistics read HBM once (logsumexp): the
      // barriers cost more than they save there.
      bool shares = block == 1024 && !cached.empty() &&
                    getSinglePassHbmPasses(body, *length) > 1;
      // Up to 4 larger slices before streaming: layer_norm over rows of
      // 150528 (588 KiB) ran at 0.70x torch.compile streamed in 21 slices,
      // 0.83x in a cluster of 4 slices of 147 KiB (the H100); but over
      // rows of 262144 (1 MiB) softmax and layer_norm ran at 0.46 and 0.40
      // of copy in 8 slices of 128 KiB, 0.59 and 0.56 streamed (the H200).
      if (shares)
        cluster = getRowCluster(kernel, *length, floats, resultShape,
                                kClusterSliceBytes, /*shortSlice=*/fits);
      if (shares && !fits && cluster == 1)
        cluster = getRowCluster(kernel, *length, floats, resultShape,
                                kMaxSharedBytes, /*shortSlice=*/true,
                                /*maxCluster=*/4);
      if (shares && !fits && cluster == 1)
        rowSlices = getStreamSlices(kernel, *length, floats, resultShape);
      if (shares && !fits && cluster == 1 && rowSlices == 1)
        cluster = getRowCluster(kernel, *length, floats, resultShape,
                                kMaxSharedBytes, /*shortSlice=*/true);
      if (cluster > 1)
        block = kClusterThreads;
      if (rowSlices > 1) {
        block = kStreamThreads;
        streamLag = getStreamLag(rowSlices, floats);
      }
      if (!fits && cluster == 1)
        cached.clear();
    }
  }
  // Short rows that are not float4 groups are staged as the block's tiles.
  std::optional<RowTiles> tiles;
  if (length && !registers)
    tiles = getRowTiles(kernel, *length, resultShape, maxPasses > 1);
  bool tileRows = tiles.has_value();
  int64_t rowsPerThread = tiles ? tiles->rowsPerThread : 1;
  if (tiles) {
    cached = tiles->cached;
    block = tiles->team;
    rowsPerBlock = tiles->rowsPerBlock;
    strategy = block < 32 ? KernelStrategy::subwarp_per_row
                          : KernelStrategy::warp_per_row;
  }
  // Where rows are cached (or may be, at launch), HBM is read once, and
  // each statistic walks shared memory (single-pass states over a
  // cluster's float4 slices ran slower on the H100: softmax over rows of
  // 65536 at 0.87 of copy against 0.92, group_norm over groups of 131072 at
  // 0.67 against 0.78). Otherwise every pass reads HBM, and pairs of
  // statistics that one pass computes (softmax's max and sum, a mean and a
  // variance) save one.
  int64_t hbmPasses = 1;
  bool singlePass = false;
  if (cached.empty() && length) {
    // A streamed slice computes each pair's statistics in turn.
    singlePass =
        rowSlices == 1 && !getSinglePassReductions(body, *length).empty();
    // The second pass of a streamed row reads it from L2.
    hbmPasses = rowSlices > 1 ? 1 : getSinglePassHbmPasses(body, *length);
  } else if (cached.empty()) {
    hbmPasses = maxPasses;
  }
  // Rows use 16-byte vectors when they are a multiple of four long (so
  // every row starts aligned) and one reduction covers a whole row: read
  // from HBM, held in registers, or cached in shared memory (loaded, walked
  // and stored as float4 groups; a cluster's slices a multiple of four
  // long too).
  bool vectorRows = length && canHoldRowsInRegisters(kernel, *length) &&
                    *length % (4 * cluster) == 0;
  // Rows of other lengths read from HBM by every pass (none cached) take
  // float4 groups from each row's first 16-byte boundary and scalar edges.
  vectorRows |= length && cached.empty() && !registers && cluster == 1 &&
                rowSlices == 1 && canWalkRowsWithEdges(kernel, *length);
  return KernelPlanAttr::get(
      context, strategy, ReductionGeometry::trailing, block, rowsPerBlock,
      /*columnsPerBlock=*/0, vectorRows ? 4 : 1,
      DenseI64ArrayAttr::get(context, cached), hbmPasses,
      /*launches=*/1, EpilogueForm::none, singlePass, registers,
      /*lastBlockFolds=*/false,
      getRowMinBlocks(kernel, block, length.value_or(0), cached, registers),
      /*applyMinBlocks=*/0, /*applyRowsPerThread=*/1, /*applyInFold=*/false,
      cluster, rowSlices, streamLag, rowSlices > 1 ? getStreamBlocks() : 0,
      /*applyInStrip=*/false, tileRows, /*columnsPerThread=*/1, rowsPerThread);
}

/// Whether a plan of rows reads HBM once where rows are few, with enough
/// blocks, where a split reduction reads it twice: streamed rows, whose
/// slices the whole grid walks.
static bool readsFewRowsOnce(KernelPlanAttr plan) {
  return plan.getRowSlices() > 1;
}

/// Whether the outputs of an elementwise kernel can be computed four at a
/// time with 16-byte loads and stores: no shape op, every output of the full
/// shape, at least four elements. Where a value broadcasts along rows that
/// are not a multiple of four long, a group of four may straddle two rows:
/// its lanes read the broadcast values each at its own coordinates.
static bool canVectorize(Block &body) {
  ValueRange outputs = body.getTerminator()->getOperands();
  ArrayRef<int64_t> full = getShape(outputs.front());
  if (full.empty() ||
      llvm::any_of(outputs, [&](Value v) { return getShape(v) != full; }))
    return false;
  if (llvm::any_of(body.without_terminator(),
                   [](Operation &op) { return isShapeOp(&op); }))
    return false;
  std::optional<int64_t> count = getStaticCount(full);
  return !count || *count >= 4;
}

/// The plan of a pointwise kernel.
static KernelPlanAttr planElementwise(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  return KernelPlanAttr::get(context, KernelStrategy::elementwise,
                             ReductionGeometry::none, kBlockThreads,
                             /*rowsPerBlock=*/0, /*columnsPerBlock=*/0,
                             canVectorize(kernel.getBody().front()) ? 4 : 1,
                             DenseI64ArrayAttr::get(context, {}), /*passes=*/1,
                             /*launches=*/1, EpilogueForm::none);
}

/// Whether the epilogue of `matmul` is exactly what a cuBLASLt epilogue
/// computes: product + bias (a kernel operand of shape [N] or [1, N]),
/// optionally followed by relu or tanh-gelu, each used once, the last one
/// the kernel's only result.
static bool isLibraryEpilogue(Block &body, MatmulOp matmul) {
  ValueRange outputs = body.getTerminator()->getOperands();
  Value product = matmul.getResult();
  // cuBLASLt's epilogues are used for unbatched GEMMs only.
  if (outputs.size() != 1 || !product.hasOneUse() ||
      getShape(matmul.getLhs()).size() != 2 ||
      getShape(matmul.getRhs()).size() != 2)
    return false;
  auto add = dyn_cast<AddOp>(*product.getUsers().begin());
  if (!add)
    return false;
  Value bias = add.getLhs() == product ? add.getRhs() : add.getLhs();
  ArrayRef<int64_t> biasShape = getShape(bias);
  if (!isa<BlockArgument>(bias) || biasShape.empty() || biasShape.size() > 2 ||
      biasShape.back() != getShape(product).back() ||
      (biasShape.size() == 2 && biasShape.front() != 1))
    return false;
  Value last = add.getResult();
  if (outputs.front() == last)
    return true;
  if (!last.hasOneUse())
    return false;
  Operation *activation = *last.getUsers().begin();
  auto gelu = dyn_cast<GeluOp>(activation);
  bool fits = isa<ReluOp>(activation) ||
              (gelu && gelu.getApproximate() == GeluApproximation::tanh);
  return fits && outputs.front() == activation->getResult(0);
}

/// The plan of a GEMM kernel: the library GEMM, and its epilogue.
static KernelPlanAttr planGemm(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  Block &body = kernel.getBody().front();
  MatmulOp matmul;
  bool hasEpilogue = false;
  for (Operation &op : body.without_terminator()) {
    if (auto found = dyn_cast<MatmulOp>(op))
      matmul = found;
    else if (matmul)
      hasEpilogue = true;
  }
  EpilogueForm epilogue = !hasEpilogue ? EpilogueForm::none
                          : isLibraryEpilogue(body, matmul)
                              ? EpilogueForm::library
                              : EpilogueForm::generated;
  // A generated epilogue is a second launch, which reads the product.
  int64_t launches = epilogue == EpilogueForm::generated ? 2 : 1;
  return KernelPlanAttr::get(
      context, KernelStrategy::library_gemm, getKernelGeometry(body),
      /*block=*/0, /*rowsPerBlock=*/0, /*columnsPerBlock=*/0,
      /*vectorWidth=*/1, DenseI64ArrayAttr::get(context, {}),
      /*passes=*/1, launches, epilogue);
}

/// The plan of `kernel`.
static KernelPlanAttr planKernel(KernelOp kernel) {
  switch (kernel.getKind()) {
  case KernelKind::gemm:
    return planGemm(kernel);
  case KernelKind::matvec:
    // One output column: a dot product per row; otherwise the library.
    for (auto matmul : kernel.getBody().front().getOps<MatmulOp>())
      if (getShape(matmul.getResult()).back() != 1)
        return planGemm(kernel);
    return planRows(kernel);
  case KernelKind::row_reduction:
    if (hasFewLongRows(kernel.getBody().front())) {
      KernelPlanAttr rows = planRows(kernel);
      return readsFewRowsOnce(rows) ? rows : planSplitReduction(kernel);
    }
    return planRows(kernel);
  case KernelKind::column_reduction:
    return planSplitReduction(kernel);
  case KernelKind::pointwise:
    return planElementwise(kernel);
  }
  llvm_unreachable("unknown kernel kind");
}

namespace {
struct SinterPlanKernels
    : public sinter::impl::SinterPlanKernelsBase<SinterPlanKernels> {
  void runOnOperation() override {
    getOperation()->walk([](KernelOp kernel) {
      if (!kernel.getPlanAttr())
        kernel.setPlanAttr(planKernel(kernel));
    });
  }
};
} // namespace
