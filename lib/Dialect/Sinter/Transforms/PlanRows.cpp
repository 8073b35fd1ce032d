//===- PlanRows.cpp - The plans of row kernels ----------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The decisions of sinter-plan-kernels for row kernels (row_reduction and
// matvec kinds; the pass's file comment, PlanKernels.cpp, lists them): the
// team of threads a row takes, the rows a block holds, whether each
// thread holds its part of a row in registers, caches it in shared memory
// (a block's, a cluster's) or streams it through L2, the passes over HBM
// and the vector width; and, for a row_reduction, when few long rows or
// large cluster slices make it a split reduction instead.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::sinter;

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

/// Rows a little longer than kMediumRowLimit, up to this length, whose one
/// operand is held in registers (64 floats a thread) for several passes or
/// an argmax take kBlockThreads threads, not 1024: more rows in flight on
/// each SM, fewer threads waiting at each row's barriers. On the H200 (runs
/// 5 to 8 of 2026-11-28, fractions of copy), layer_norm over rows of 16384
/// 0.77 -> 0.95 (512 threads: 0.82), rms_norm 0.90 -> 0.97, softmax 0.93
/// -> 0.95, argmax 0.79 -> 0.99, log_softmax of x / 0.7 0.86 -> 0.95,
/// instance_norm over 112 x 112 0.78 -> 0.97, layer_norm over [64, 250]
/// 0.87 -> 0.97, log_softmax within 1.5%. Rows that one pass reads keep
/// 1024: a sum, a mean and a max over rows of 16384 ran 4-6% slower with
/// 256, and a sum over 97 x 101 (every pass from HBM) 0.83 -> 1.00 but
/// less accurately than PyTorch.
static constexpr int64_t kWideRowLimit = 16384;

/// Whether rows of `length` are wide rows (kWideRowLimit).
static bool isWideRow(int64_t length) {
  return length > kMediumRowLimit && length <= kWideRowLimit;
}

/// Fewer rows than this (two blocks on each of an H100's 132 SMs) leave the
/// GPU idle with a block per row: rows longer than kMediumRowLimit are then
/// split over many blocks.
static constexpr int64_t kMinRowBlocks = 264;

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

/// Whether `kernel` has an argmax or argmin.
static bool hasArgReductions(KernelOp kernel) {
  return llvm::any_of(
      getReductions(kernel.getBody().front()),
      [](Operation *op) { return isa<ArgmaxOp, ArgminOp>(op); });
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
KernelPlanAttr sinter::planRows(KernelOp kernel) {
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
  // the loops over a row unrolled, so at most as long as one row held). A
  // warp holds rows a little longer than kWarpRowLimit where its lanes'
  // parts of every operand fit together.
  int64_t registerTeam = 0;
  if (length && canHoldRowsInRegisters(kernel, *length)) {
    int64_t operands = std::max<int64_t>(1, cached.size());
    auto fits = [&](int64_t team, int64_t floatsPerOperand) {
      return getRegisterFloats(*length, team, 1) <= floatsPerOperand &&
             getRegisterFloats(*length, team, operands) <= kMaxRegisterFloats;
    };
    bool argReductions = hasArgReductions(kernel);
    int64_t team = getRegisterTeamSize(*length, argReductions);
    int64_t warp = getVectorRowTeam(*length, team, argReductions);
    // Wide rows of several passes (cached) or of an argmax.
    if (isWideRow(*length) && (!cached.empty() || argReductions) &&
        fits(kBlockThreads, kMaxRegisterFloats))
      registerTeam = kBlockThreads;
    else if (warp != team && fits(warp, kMaxRegisterFloats))
      registerTeam = warp;
    else if (fits(team, kMaxRegisterFloatsPerOperand))
      registerTeam = team;
  }
  bool registers = registerTeam != 0;
  // An argmax's or argmin's rows held in registers are loaded whole before
  // its pass (cached there) even where it reads them once: its in-order
  // pushes kept the compiler from hoisting the loads (2 of 8 float4 loads
  // of a lane in flight; argmax over rows of 1000 ran at 0.92 of copy, 0.99
  // cached, on the H100).
  if (registers && cached.empty() && hasArgReductions(kernel))
    for (BlockArgument argument : body.getArguments())
      if (hasWholeRows(argument, resultShape))
        cached.push_back(argument.getArgNumber());
  if (length) {
    // Rows that are not float4 groups (of 3, of 7), every reduction over a
    // whole row, take a lane per 4 elements; other rows not held in
    // registers take a warp or a block.
    bool wholeRows = llvm::all_of(reductions, [&](Operation *reduction) {
      return getGroupSize(reduction) == *length;
    });
    block = registers ? registerTeam
            : *length % 4 != 0 && wholeRows &&
                    kernel.getKind() == KernelKind::row_reduction
                ? getScalarTeamSize(*length)
                : getTeamSize(*length);
    // Rows that every pass reads from HBM as float4 groups with scalar
    // edges take a warp up to kWarpVectorRowLimit, as rows in registers.
    if (!registers && cached.empty() && canWalkRowsWithEdges(kernel, *length))
      block = getVectorRowTeam(*length, block, /*argReductions=*/false);
    // Rows of a few thousand float4 groups that one pass reads from HBM
    // take 256 threads.
    if (!registers && cached.empty())
      block = getStreamedRowTeam(*length, block);
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
      // (planKernel splits the reduction where the slices are larger than
      // kMaxClusterSliceBytes: see cachesLargeSlices.)
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
        block = getClusterThreads(cluster);
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
  // Rows of a warp that are not float4 groups re-read L1 rather than a
  // copy in shared memory.
  const bool rereadL1 = length && rereadsRowsFromL1(strategy, registers,
                                                    tileRows, cluster, *length);
  if (rereadL1)
    cached.clear();
  // Where rows are cached (or may be, at launch), HBM is read once, and
  // each statistic walks shared memory (single-pass states over a
  // cluster's float4 slices ran slower on the H100: softmax over rows of
  // 65536 at 0.87 of copy against 0.92, group_norm over groups of 131072 at
  // 0.67 against 0.78). Otherwise every pass reads HBM, and pairs of
  // statistics that one pass computes (softmax's max and sum, a mean and a
  // variance) save one.
  int64_t hbmPasses = 1;
  bool singlePass = false;
  if (cached.empty() && length && !rereadL1) {
    // A streamed slice computes each pair's statistics in turn.
    singlePass =
        rowSlices == 1 && !getSinglePassReductions(body, *length).empty();
    // The second pass of a streamed row reads it from L2.
    hbmPasses = rowSlices > 1 ? 1 : getSinglePassHbmPasses(body, *length);
  } else if (cached.empty() && !rereadL1) {
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
                rowSlices == 1 && !rereadL1 &&
                canWalkRowsWithEdges(kernel, *length);
  SmallVector<int64_t> held;
  if (registers)
    held = getHeldParams(kernel, *length, block, cached, resultShape);
  return KernelPlanAttr::get(
      context, strategy, ReductionGeometry::trailing, block, rowsPerBlock,
      /*columnsPerBlock=*/0, vectorRows ? 4 : 1,
      DenseI64ArrayAttr::get(context, cached), hbmPasses,
      /*launches=*/1, EpilogueForm::none, singlePass, registers,
      /*lastBlockFolds=*/false,
      getRowMinBlocks(kernel, block, length.value_or(0), cached, registers),
      /*applyMinBlocks=*/0, /*applyRowsPerThread=*/1, /*applyInFold=*/false,
      cluster, rowSlices, streamLag, rowSlices > 1 ? getStreamBlocks() : 0,
      /*applyInStrip=*/false, tileRows, /*columnsPerThread=*/1, rowsPerThread,
      /*chunkLoads=*/0,
      held.empty() ? nullptr : DenseI64ArrayAttr::get(context, held),
      /*warpRuns=*/0);
}

/// Whether a plan of rows reads HBM once where rows are few, with enough
/// blocks, where a split reduction reads it twice: streamed rows, whose
/// slices the whole grid walks.
static bool readsFewRowsOnce(KernelPlanAttr plan) {
  return plan.getRowSlices() > 1;
}

/// The cluster slices above which a row kernel is split instead: larger
/// ones leave one block a multiprocessor (of 228 KiB of shared memory),
/// loading and then storing in turn.
static constexpr int64_t kMaxClusterSliceBytes = 112 * 1024;

/// Whether a plan of rows caches them in a cluster's slices larger than
/// kMaxClusterSliceBytes: a split reduction, which reads HBM twice from
/// many blocks at once, is faster. On the H100, layer_norm over 448 rows of
/// 150528 (588 KiB) ran at 0.83x torch.compile in a cluster of 4 slices of
/// 147 KiB, 0.95x reading each row twice a block a row, 1.02x split; but
/// log_softmax over rows of 100003 (4 slices of 98 KiB, two blocks a
/// multiprocessor) at 1.81x in a cluster, 1.53x split.
static bool cachesLargeSlices(KernelOp kernel, KernelPlanAttr plan) {
  std::optional<int64_t> length = getStaticRowLength(kernel.getBody().front());
  int64_t floats =
      static_cast<int64_t>(plan.getCached().size()) * length.value_or(0);
  return plan.getCluster() > 1 &&
         floats * 4 / plan.getCluster() > kMaxClusterSliceBytes;
}

KernelPlanAttr sinter::planRowReduction(KernelOp kernel) {
  KernelPlanAttr rows = planRows(kernel);
  bool fewLongRows = hasFewLongRows(kernel.getBody().front());
  if ((fewLongRows && !readsFewRowsOnce(rows)) ||
      cachesLargeSlices(kernel, rows))
    return planSplitReduction(kernel);
  return rows;
}
