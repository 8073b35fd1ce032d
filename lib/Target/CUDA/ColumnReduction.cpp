//===- ColumnReduction.cpp - Statistics over the leading dims -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A column kernel reduces over dims other than the trailing ones (training
// batch_norm: mean and variance over N, H, W), then applies the result to
// every element. Without atomics, so that results are bitwise reproducible:
//   - per reduction, a partial kernel: a block of 256 threads covers up to
//     256 columns (adjacent threads read adjacent columns, so each row is
//     read in runs of up to 1 KiB) or, when the innermost dim is reduced, one
//     column whose elements its threads split; it covers one of `splits`
//     slices of the rows. Each thread loads eight rows at a time, combines
//     them as a tree and pushes the result into a blocked accumulator (runs
//     of 8 chunks, then the runs: errors as small as pairwise summation's
//     for the rows a thread reads); it writes one partial result per column
//     and slice;
//   - a final kernel folds the partials of each column in slice order, with
//     a blocked accumulator: one thread per column, or, with many slices, 8
//     lanes of threads per column, each over every 8th slice, then the
//     lanes in lane order (or, for few columns, a block per column as a
//     fixed tree);
//   - under the split_welford plan, a mean and the first variance around it
//     are one partial kernel of Welford states (each chunk of eight rows:
//     its mean and squared deviations) and one fold, which writes both;
//     under split_online_softmax, a max and the sum of exp(x - max) are one
//     of online softmax states (each chunk: its max, then its sum of exp);
//   - reductions that read earlier results (a second variance reads the
//     mean) run after them;
//   - the apply step is a pointwise kernel over the outputs that reads the
//     inputs and the final results; under the plan's apply_in_fold (one
//     fold, and outputs of the statistics' shape only) the fold computes
//     them instead (FoldEpilogue.cpp);
//   - under the plan's apply_in_strip (one pass of statistics, a static
//     count of reduced elements), one kernel replaces them all: a block a
//     strip of columns holds every reduced element of them in its threads'
//     registers (or, for the plan's cached operands, in shared memory),
//     folds the statistics of the strip's columns into shared memory, and
//     writes the outputs over the strip from there (ColumnStrips.cpp).
// `splits` depends on the shape only, so the results do not depend on the
// GPU either.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"
#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// The output buffer of `kernel` that holds `value`, if any.
static const Buffer *findOutput(const EvalKernel &kernel, Value value) {
  for (const Buffer &output : kernel.outputs)
    if (output.value == value)
      return &output;
  return nullptr;
}

/// The columns (kept positions) a block of a partial kernel covers, so that
/// adjacent threads read adjacent addresses: one when the innermost dim of
/// size above 1 is reduced (the block's threads split the reduced elements:
/// a whole-tensor sum, batch_norm over [N, C, H, W]), otherwise as many as
/// the reduction keeps, rounded up to a power of two, at most the whole
/// block (sinter-plan-kernels' rule, for the steps that have no plan).
static int64_t getColumnsPerBlock(const Shape &input, ArrayRef<int64_t> dims,
                                  const DimExpr &positions) {
  for (int64_t d = static_cast<int64_t>(input.size()) - 1; d >= 0; --d) {
    if (input[d].isConstant(1))
      continue;
    if (llvm::is_contained(dims, d))
      return 1;
    break;
  }
  std::optional<int64_t> columns = positions.getConstant();
  if (!columns)
    return 32;
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(*columns), 1, 256);
}

/// Columns up to this many (static) are folded by a block each.
static constexpr int64_t kTreeFoldColumns = 1024;

FailureOr<GeneratedKernel>
cuda::generateColumnReduction(EmitterContext &context,
                              const EvalKernel &kernel) {
  std::vector<ColumnReduction> reductions;
  SmallVector<Value> results;
  SmallVector<SmallVector<Value>> reads;
  for (Operation &op : *kernel.body) {
    if (isa<MatmulOp>(op) && !kernel.isInput(op.getResult(0)))
      return op.emitError(
          "CUDA emitter: a column_reduction kernel cannot hold a matmul");
    std::optional<ReductionInfo> info = getReductionInfo(&op);
    if (!info)
      continue;
    ColumnReduction reduction{
        *info, {}, {}, "", "", getCombinerInfo(info->kind).deviceFunctor.str()};
    reduction.positions = getNumElements(context.shapes.getShape(info->result));
    // The kernel's plan decides; an epilogue's block shape follows the same
    // rule here.
    std::optional<int64_t> columns = reduction.positions.getConstant();
    reduction.treeFold = columns && *columns <= kTreeFoldColumns;
    reduction.columnsPerBlock =
        kernel.plan ? kernel.plan.getColumnsPerBlock()
                    : getColumnsPerBlock(context.shapes.getShape(info->input),
                                         info->dims, reduction.positions);
    reduction.runs = kernel.plan && kernel.plan.getVectorWidth() == 4;
    reduction.columnsPerThread =
        kernel.plan ? kernel.plan.getColumnsPerThread() : 1;
    reduction.warpRuns = kernel.plan ? kernel.plan.getWarpRuns() : 0;
    reduction.chunkLoads = kernel.plan      ? kernel.plan.getChunkLoads()
                           : reduction.runs ? kChunkRuns
                                            : kChunkElements;
    reduction.laneFold = useLaneFold(reduction);
    reduction.lastBlockFolds = kernel.plan && kernel.plan.getLastBlockFolds();
    reduction.applyInStrip = kernel.plan && kernel.plan.getApplyInStrip();
    if (!reduction.treeFold && !reduction.lastBlockFolds &&
        !reduction.applyInStrip)
      context.helpers.insert("grid_blocks");
    reduction.groupSize = getNumElements(context.shapes.getShape(info->input)) /
                          reduction.positions;
    reduction.stats = "stats" + std::to_string(reductions.size());
    reduction.partial = "partial" + std::to_string(reductions.size());
    results.push_back(info->result);
    reads.push_back({info->input});
    reductions.push_back(std::move(reduction));
  }
  if (reductions.empty())
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: a column_reduction kernel has no "
                     "reduction");
  // Program order already puts every reduction after those it reads;
  // computeReductionLevels checks nothing reads a later one.
  (void)computeReductionLevels(results, reads);
  // Under split_welford, a mean's Welford states compute the first variance
  // around it as well (a later one reads the mean in a pass of its own);
  // under split_online_softmax, a max's states the first sum of
  // exp(x - max).
  std::optional<SinglePassForm> pairForm;
  if (kernel.plan && kernel.plan.getStrategy() == KernelStrategy::split_welford)
    pairForm = SinglePassForm::Welford;
  if (kernel.plan &&
      kernel.plan.getStrategy() == KernelStrategy::split_online_softmax)
    pairForm = SinglePassForm::OnlineSoftmax;
  for (auto [index, reduction] : llvm::enumerate(reductions)) {
    std::optional<SinglePassPair> pair =
        pairForm ? matchSinglePassPair(reduction.info.result.getDefiningOp())
                 : std::nullopt;
    if (!pair || pair->form != *pairForm)
      continue;
    auto owner = llvm::find_if(reductions, [&](const ColumnReduction &r) {
      return r.info.result == pair->first->getResult(0);
    });
    if (owner == reductions.end() || owner->second)
      continue;
    owner->second = index;
    owner->pairForm = *pairForm;
    owner->clampedMax = pair->clampedMax;
    owner->combiner = *pairForm == SinglePassForm::Welford
                          ? "dev::ColumnWelfordOp"
                          : "dev::OnlineSoftmaxDoubleOp";
    reduction.computedByFirst = true;
  }

  GeneratedKernel result;
  SmallVector<std::string> allDims = collectDims(context.shapes, kernel);
  const std::string takeScratch =
      "  char *cursor = static_cast<char *>(scratch);\n";
  std::string launchBody = takeScratch;
  SmallVector<std::string> scratch;
  // Strips, columns of one slice a thread and warp runs need no splits.
  if (!(kernel.plan && (kernel.plan.getApplyInStrip() ||
                        kernel.plan.getColumnsPerThread() > 1 ||
                        kernel.plan.getWarpRuns() > 0)))
    context.helpers.insert("column_splits");
  // The vector path reads runs of 4 from the inputs that are not broadcast
  // along the innermost dim, as float4s when all are aligned.
  const bool vector = kernel.plan && kernel.plan.getVectorWidth() == 4;
  if (vector) {
    SmallVector<std::string> runs;
    for (const Buffer &input : kernel.inputs)
      if (!input.shape.empty() && !input.shape.back().isConstant(1))
        runs.push_back(input.name);
    launchBody += formatConjunction("vec", getAlignmentConditions(runs));
  }
  // The final results: an output the kernel returns as it is, or scratch.
  for (ColumnReduction &reduction : reductions) {
    std::string statsType = reduction.getStatsType().str();
    if (const Buffer *output = findOutput(kernel, reduction.info.result)) {
      launchBody += "  " + statsType + " *const " + reduction.stats + " = " +
                    output->name + ";\n";
      continue;
    }
    std::string statsBytes = "sinterAlign(static_cast<size_t>(" +
                             reduction.positions.str() + ") * sizeof(" +
                             statsType + "))";
    scratch.push_back(statsBytes);
    launchBody += "  " + statsType + " *const " + reduction.stats +
                  " = reinterpret_cast<" + statsType + " *>(cursor);\n";
    launchBody += "  cursor += " + statsBytes + ";\n";
  }
  // The apply step: a pointwise kernel over the outputs that are not
  // reduction results (those the final kernels wrote).
  EvalKernel apply;
  apply.name = kernel.name + "_apply";
  apply.body = kernel.body;
  apply.inputs = viewReshapedInputs(context, kernel.inputs);
  for (const Buffer &output : kernel.outputs)
    if (!llvm::any_of(reductions, [&](const ColumnReduction &reduction) {
          return reduction.info.result == output.value;
        }))
      apply.outputs.push_back(output);
  apply.constantArguments = kernel.constantArguments;
  for (const ColumnReduction &reduction : reductions) {
    Buffer stats;
    stats.name = reduction.stats;
    stats.value = reduction.info.result;
    stats.shape = context.shapes.getShape(stats.value);
    stats.isIndex = reduction.info.isArg();
    apply.inputs.push_back(stats);
  }
  // The blocks per multiprocessor the plan asks for (Occupancy.h decides for
  // the epilogue of a GEMM, which has none).
  apply.minBlocksPerSM = kernel.plan ? kernel.plan.getApplyMinBlocks()
                                     : getApplyMinBlocks(results);
  apply.rowsPerThread = kernel.plan ? kernel.plan.getApplyRowsPerThread()
                                    : getApplyRowsPerThread(results);
  // Under apply_in_fold, the one fold computes the apply step's outputs;
  // under apply_in_strip, the one partial kernel.
  const bool applyInFold = kernel.plan && kernel.plan.getApplyInFold();
  const bool applyInStrip = kernel.plan && kernel.plan.getApplyInStrip();
  if (applyInStrip) {
    if (llvm::count_if(reductions, [](const ColumnReduction &r) {
          return !r.computedByFirst;
        }) != 1)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       "CUDA emitter: apply_in_strip needs exactly one pass "
                       "of statistics");
    // The strip's kernel stores a statistic the kernel returns, and one its
    // apply step reads at another column (writeColumnPartialKernel).
    for (ColumnReduction &reduction : reductions) {
      reduction.applyOutputs = apply.outputs;
      const ColumnReduction *second =
          reduction.second ? &reductions[*reduction.second] : nullptr;
      reduction.stored = findOutput(kernel, reduction.info.result) != nullptr;
      reduction.secondStored =
          second && findOutput(kernel, second->info.result) != nullptr;
    }
  }
  if (applyInFold) {
    auto owner = llvm::find_if(reductions, [](const ColumnReduction &r) {
      return !r.computedByFirst;
    });
    if (llvm::count_if(reductions, [](const ColumnReduction &r) {
          return !r.computedByFirst;
        }) != 1)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       "CUDA emitter: apply_in_fold needs exactly one fold");
    const ColumnReduction *second =
        owner->second ? &reductions[*owner->second] : nullptr;
    if (failed(writeFoldEpilogue(context, apply, *owner, second)))
      return failure();
    owner->stored |= findOutput(kernel, owner->info.result) != nullptr;
    owner->secondStored |=
        second && findOutput(kernel, second->info.result) != nullptr;
  }
  for (auto [index, reduction] : llvm::enumerate(reductions)) {
    if (reduction.computedByFirst)
      continue;
    const ColumnReduction *second =
        reduction.second ? &reductions[*reduction.second] : nullptr;
    std::string suffix = std::to_string(index);
    std::string positions = reduction.positions.str();
    std::string splits = "splits" + suffix;
    int64_t columnsPerBlock =
        reduction.columnsPerBlock * reduction.columnsPerThread;
    std::string columnBlocks = "(" + positions + " + " +
                               std::to_string(columnsPerBlock - 1) + ") / " +
                               std::to_string(columnsPerBlock);
    if (applyInStrip) {
      FailureOr<std::string> stripKernel =
          writeColumnStrips(context, kernel, reductions, index, allDims,
                            columnBlocks, launchBody);
      if (failed(stripKernel))
        return failure();
      result.deviceCode += *stripKernel + "\n";
      continue;
    }
    // A thread loads runs of 4 along the rows: a quarter of the loads.
    bool rowRuns = reduction.runs && !reduction.hasColumnRuns();
    std::string splitsExpr = "sinterColumnSplits(" + reduction.groupSize.str() +
                             (rowRuns ? " / 4" : "") + ", " +
                             std::to_string(reduction.getLanes()) + ", " +
                             columnBlocks + ")";
    std::string accType = reduction.getPartialType().str();
    std::string partialBytes = "sinterAlign(static_cast<size_t>(" + splitsExpr +
                               ") * " + positions + " * sizeof(" + accType +
                               "))";
    // Several columns a thread, or positions a warp: one slice, nothing to
    // fold.
    const bool oneSlice = reduction.columnsPerThread > 1 || reduction.warpRuns;
    if (!oneSlice)
      scratch.push_back(partialBytes);

    SmallVector<std::string> partialDims, finalDims;

    std::string partialName = kernel.name + "_partial" + suffix;
    std::string finalName = kernel.name + "_final" + suffix;
    FailureOr<std::string> partialKernel = writeColumnPartialKernel(
        context, kernel, reductions, index, partialName, allDims, partialDims);
    if (failed(partialKernel))
      return failure();
    result.deviceCode += *partialKernel + "\n";
    if (!reduction.lastBlockFolds)
      result.deviceCode +=
          writeFinalKernel(reduction, second, finalName, allDims, finalDims) +
          "\n";

    if (!oneSlice) {
      launchBody += "  const int64_t " + splits + " = " + splitsExpr + ";\n";
      launchBody += "  " + accType + " *const " + reduction.partial +
                    " = reinterpret_cast<" + accType + " *>(cursor);\n";
      launchBody += "  cursor += " + partialBytes + ";\n";
    }
    SmallVector<std::string> partialArgs = getBufferNames(kernel.inputs);
    for (size_t i = 0; i < index; ++i)
      partialArgs.push_back(reductions[i].stats);
    if (!oneSlice)
      partialArgs.push_back(reduction.partial);
    if (reduction.lastBlockFolds) {
      partialArgs.push_back(reduction.stats);
      if (second)
        partialArgs.push_back(second->stats);
      llvm::append_range(partialArgs,
                         getBufferNames(reduction.epilogueOutputs));
      if (!oneSlice) {
        partialArgs.push_back("tickets");
        result.usesTickets = true;
      }
    }
    llvm::append_range(partialArgs, partialDims);
    if (!oneSlice)
      partialArgs.push_back(splits);
    if (vector)
      partialArgs.push_back("vec");
    std::string grid = "grid" + suffix;
    if (oneSlice)
      launchBody += "  const dim3 " + grid + "(static_cast<unsigned>(" +
                    columnBlocks + "));\n";
    else
      launchBody += "  const dim3 " + grid + "(static_cast<unsigned>(" +
                    columnBlocks + "),\n" + std::string(14 + grid.size(), ' ') +
                    "static_cast<unsigned>(" + splits + "));\n";
    launchBody += "  " +
                  formatLaunch(partialName, grid, "256", "0", partialArgs, 1) +
                  "\n";
    launchBody += "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" +
                  partialName + "\"));\n";
    if (reduction.lastBlockFolds)
      continue;
    SmallVector<std::string> finalArgs = {reduction.partial, reduction.stats};
    if (second)
      finalArgs.push_back(second->stats);
    llvm::append_range(finalArgs, getBufferNames(reduction.epilogueInputs));
    llvm::append_range(finalArgs, getBufferNames(reduction.epilogueOutputs));
    llvm::append_range(finalArgs, finalDims);
    finalArgs.push_back(splits);
    std::string finalGrid =
        reduction.treeFold
            ? positions
            : "gridBlocks(ctx, " + positions + ", " +
                  (reduction.laneFold ? std::to_string(kFoldColumns) : "256") +
                  ")";
    launchBody += "  " +
                  formatLaunch(finalName, finalGrid, "256", "0", finalArgs, 1) +
                  "\n";
    launchBody += "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" + finalName +
                  "\"));\n";
  }

  std::string applyLaunch;
  if (apply.outputs.empty() || applyInFold || applyInStrip) {
    // The last kernel ends the device code with one newline, as an apply
    // kernel would.
    while (StringRef(result.deviceCode).ends_with("\n\n"))
      result.deviceCode.pop_back();
    launchBody += "  return SINTER_OK;\n";
  } else {
    FailureOr<GeneratedKernel> applied = generatePointwise(context, apply);
    if (failed(applied))
      return failure();
    result.deviceCode += applied->deviceCode;
    applyLaunch = applied->launchCode + "\n";
    SmallVector<std::string> applyArgs = {"ctx", "stream"};
    for (const Buffer &input : apply.inputs)
      applyArgs.push_back(input.name);
    llvm::append_range(applyArgs, getBufferNames(apply.outputs));
    llvm::append_range(applyArgs, applied->dims);
    launchBody +=
        "  " +
        formatList("return launch_" + apply.name + "(", applyArgs, ");", 1) +
        "\n";
  }

  // Columns that need no workspace (of one slice each, finishing where
  // they are read, into the kernel's outputs) take none.
  if (scratch.empty())
    launchBody = launchBody.substr(takeScratch.size());
  else
    context.helpers.insert("align");
  result.scratchBytes = scratch;
  result.dims = findUsedDims(launchBody + llvm::join(scratch, " + "), allDims);
  SmallVector<std::string> parameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(parameters, getDimParameters(result.dims));
  if (!scratch.empty())
    parameters.push_back("void *scratch");
  if (result.usesTickets)
    parameters.push_back("unsigned *tickets");
  result.launchCode = applyLaunch +
                      getLaunchSignature(kernel.name, parameters) + launchBody +
                      "}\n";
  int64_t pairs = llvm::count_if(
      reductions, [](const ColumnReduction &r) { return r.computedByFirst; });
  std::string paired;
  if (pairs)
    paired = " (" + std::to_string(pairs) +
             (pairForm == SinglePassForm::Welford
                  ? " variance(s) in Welford states)"
                  : " sum(s) of exp in online softmax states)");
  result.strategy =
      std::to_string(reductions.size()) + " reduction(s)" + paired +
      (applyInStrip ? ": a block a strip of " +
                          std::to_string(reductions.front().columnsPerBlock) +
                          " columns, held in " +
                          (kernel.plan.getCached().empty() ? "registers"
                                                           : "shared memory") +
                          ": its statistics, then the outputs over it"
       : kernel.plan.getWarpRuns()
           ? std::string(": whole positions a warp (warp runs), finished "
                         "where read") +
                 (applyInFold            ? ", with the outputs"
                  : !applyLaunch.empty() ? ", then pointwise apply"
                                         : "")
       : applyInFold ? ": per-slice partials, then an ordered fold that "
                       "computes the outputs"
                     : ": per-slice partials, ordered fold, then pointwise "
                       "apply");
  return result;
}
