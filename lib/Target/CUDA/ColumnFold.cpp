//===- ColumnFold.cpp - The fold of a column kernel's partials ------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// How a column kernel finishes its columns (see ColumnReduction.cpp): the
// final kernel that folds each column's partials in slice order (a thread
// a column, lanes of slices, or a block a column as a tree), the last
// block's fold under the plan's last_block_folds, and the statements that
// store a column's statistics and compute the fold's epilogue from them.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// Where a column can have kLaneFoldSplits slices or more, a block of the
/// final kernel folds kFoldColumns columns (ColumnKernel.h), its threads
/// split into kFoldLanes lanes of slices (kFoldColumns * kFoldLanes = 256
/// threads); with fewer slices, one thread folds a column (the lanes would
/// idle: a [1024, 64, 1024] sum over dim 1 has one slice, and ran 14%
/// slower on the H100 in lanes).
static constexpr int64_t kFoldLanes = 8;
static_assert(kFoldColumns * kFoldLanes == 256, "a fold block of 256 threads");
static constexpr int64_t kLaneFoldSplits = 16;

bool cuda::useLaneFold(const ColumnReduction &reduction) {
  std::optional<int64_t> columns = reduction.positions.getConstant();
  if (reduction.treeFold || !columns)
    return false;
  int64_t blocks = llvm::divideCeil(*columns, reduction.columnsPerBlock);
  return llvm::divideCeil(kSplitTargetBlocks, blocks) >= kLaneFoldSplits;
}

/// The statements that store column `p`'s `total`: the mean's division,
/// and the store (of the index, for argmax/argmin; of both statistics of a
/// pair, the second's being `second`), at `indent`.
static std::string storeColumn(const ColumnReduction &reduction,
                               const ColumnReduction *second, StringRef indent);

std::string cuda::finishColumn(const ColumnReduction &reduction,
                               const ColumnReduction *second,
                               StringRef indent) {
  std::string text = storeColumn(reduction, second, indent);
  for (StringRef line : llvm::split(StringRef(reduction.epilogue), '\n'))
    if (!line.empty())
      text += indent.str() + line.str() + "\n";
  return text;
}

static std::string storeColumn(const ColumnReduction &reduction,
                               const ColumnReduction *second,
                               StringRef indent) {
  // Each statistic's buffer, element type and value at column p.
  struct Statistic {
    std::string buffer, type, value;
    bool stored, readsLocal;
  };
  SmallVector<Statistic> statistics;
  std::string text;
  if (second && reduction.pairs(SinglePassForm::OnlineSoftmax)) {
    // The max is exact; the sum of exp(x - max), in double, rounds once
    // (logsumexp's is of exp(x - clamp(max))).
    statistics.push_back({"stats", "float", "total.max", reduction.stored,
                          reduction.readsLocal});
    statistics.push_back(
        {"sum_exp", "float",
         "static_cast<float>(" +
             std::string(reduction.clampedMax
                             ? "dev::onlineSoftmaxSumAtFinite(total.max, "
                               "total.sum)"
                             : "total.sum") +
             ")",
         reduction.secondStored, reduction.secondReadsLocal});
  } else if (second) {
    // M2 is the sum of squared deviations; their mean divides it.
    // The states are in double (see writeFinalKernel): one rounding each.
    std::string m2 = "total.m2";
    if (getCombinerInfo(second->info.kind).dividesByCount)
      m2 += " / static_cast<double>(" + second->groupSize.str() + ")";
    statistics.push_back({"stats", "float", "static_cast<float>(total.mean)",
                          reduction.stored, reduction.readsLocal});
    statistics.push_back({"variance", "float", "static_cast<float>(" + m2 + ")",
                          reduction.secondStored, reduction.secondReadsLocal});
  } else {
    const bool mean = getCombinerInfo(reduction.info.kind).dividesByCount;
    std::string value = "total";
    if (reduction.sumsInDouble())
      value =
          "static_cast<float>(total" +
          (mean ? " / static_cast<double>(" + reduction.groupSize.str() + ")"
                : std::string()) +
          ")";
    else if (mean)
      text += indent.str() + "total = total / static_cast<float>(" +
              reduction.groupSize.str() + ");\n";
    else if (reduction.info.isArg())
      value = "total.index";
    statistics.push_back({"stats", reduction.getStatsType().str(), value,
                          reduction.stored, reduction.readsLocal});
  }
  // Under apply_in_fold, the epilogue reads a statistic at p from a local
  // (kStatisticNames); under apply_in_strip, the strip's threads read it
  // from the strip's shared array (kStripStatisticNames; the finishing
  // thread's index in the strip is its column's). The statistic is stored
  // where its buffer is read elsewhere (an output of the kernel).
  for (auto [index, statistic] : llvm::enumerate(statistics)) {
    if (!statistic.readsLocal) {
      if (statistic.stored)
        text += indent.str() + statistic.buffer + "[p] = " + statistic.value +
                ";\n";
      continue;
    }
    const char *local = kStatisticNames[index];
    text += indent.str() + "const " + statistic.type + " " + local + " = " +
            statistic.value + ";\n";
    if (reduction.applyInStrip)
      text += indent.str() + kStripStatisticNames[index] +
              "[threadIdx.x] = " + local + ";\n";
    if (statistic.stored)
      text += indent.str() + statistic.buffer + "[p] = " + local + ";\n";
  }
  return text;
}

/// The final kernel `name` of `reduction` (and `second`) around `body`,
/// documented as folding each column's partials `how`; `dims` receives the
/// dims it takes, among `allDims`.
static std::string writeFinalFunction(const ColumnReduction &reduction,
                                      const ColumnReduction *second,
                                      StringRef name, StringRef body,
                                      StringRef how,
                                      ArrayRef<std::string> allDims,
                                      SmallVectorImpl<std::string> &dims) {
  dims.assign(findUsedDims(body.str(), allDims));
  SmallVector<std::string> parameters = {
      "const " + reduction.getPartialType().str() + " *__restrict__ partial",
      reduction.getStatsType().str() + " *__restrict__ stats"};
  if (second)
    parameters.push_back("float *__restrict__ " +
                         reduction.getSecondParameter().str());
  llvm::append_range(
      parameters,
      getBufferParameters(reduction.epilogueInputs, reduction.epilogueOutputs));
  llvm::append_range(parameters, getDimParameters(dims));
  parameters.push_back("int64_t splits");
  return "/// Folds the partials of each column: " + how.str() + ".\n" +
         formatKernel("__global__ void __launch_bounds__(256)", name,
                      parameters, body);
}

std::string cuda::writeFinalKernel(const ColumnReduction &reduction,
                                   const ColumnReduction *second,
                                   StringRef name,
                                   ArrayRef<std::string> allDims,
                                   SmallVectorImpl<std::string> &dims) {
  std::string positions = reduction.positions.str();
  // Welford states fold in double and round once: their partials' roundings
  // are independent and average out, but a float fold of 64 states rounded
  // M2 at every step (var over 16384 rows: an error of 7.0e-8 against
  // float64, 3.7e-8 in double, that of M2 rounded once). The partials of
  // sums and online softmax states are in double already.
  const bool wide = reduction.pairs(SinglePassForm::Welford);
  std::string accType = reduction.getFoldType().str();
  std::string combiner = reduction.getFoldCombiner().str();
  auto load = [&](const std::string &index) {
    std::string element = "partial[" + index + "]";
    return wide ? "dev::widen(" + element + ")" : element;
  };
  if (reduction.treeFold) {
    // A block per column: its threads stride the slices, then a fixed tree.
    std::string body =
        "  for (int64_t p = blockIdx.x; p < " + positions +
        "; p += gridDim.x) {\n"
        "    " +
        accType + " total = " + combiner +
        "::identity();\n"
        "    for (int64_t s = threadIdx.x; s < splits; s += 256)\n"
        "      total = " +
        combiner + "()(total, " + load("s * " + positions + " + p") +
        ");\n"
        "    total = dev::blockReduce<256, " +
        combiner +
        ">(total);\n"
        "    if (threadIdx.x == 0) {\n" +
        finishColumn(reduction, second, "      ") + "    }\n  }\n";
    return writeFinalFunction(reduction, second, name, body,
                              "a block per column, a fixed tree", allDims,
                              dims);
  }
  if (!reduction.laneFold) {
    // A thread per column: its partials join an accumulator in slice order.
    std::string body = "  for (int64_t p = dev::globalThreadIndex(); p < " +
                       positions +
                       "; p += dev::gridStride()) {\n"
                       "    dev::Accumulator<" +
                       combiner + ", " + accType +
                       "> accumulator;\n"
                       "    for (int64_t s = 0; s < splits; ++s)\n"
                       "      accumulator.push(" +
                       load("s * " + positions + " + p") +
                       ");\n"
                       "    " +
                       accType + " total = accumulator.result();\n";
    body += finishColumn(reduction, second, "    ") + "  }\n";
    return writeFinalFunction(reduction, second, name, body,
                              "in slice order (blocked)", allDims, dims);
  }
  // A block per kFoldColumns columns: its kFoldLanes lanes each fold every
  // kFoldLanes-th slice in slice order (blocked), then each column's lanes
  // fold in lane order. The loads of a lane do not wait on one another's
  // combination, and a column's chain is kFoldLanes times shorter than one
  // thread's over all the slices (64 Welford states a column: 8 and 8).
  const std::string columns = std::to_string(kFoldColumns);
  const std::string lanes = std::to_string(kFoldLanes);
  std::string body = "  __shared__ " + accType + " lanes[" + lanes + "][" +
                     columns +
                     "];\n"
                     "  for (int64_t p0 = static_cast<int64_t>(blockIdx.x) * " +
                     columns + "; p0 < " + positions +
                     ";\n"
                     "       p0 += static_cast<int64_t>(gridDim.x) * " +
                     columns +
                     ") {\n"
                     "    const int64_t p = p0 + threadIdx.x % " +
                     columns +
                     ";\n"
                     "    dev::Accumulator<" +
                     combiner + ", " + accType +
                     "> accumulator;\n"
                     "    if (p < " +
                     positions +
                     ")\n"
                     "      for (int64_t s = threadIdx.x / " +
                     columns + "; s < splits; s += " + lanes +
                     ")\n"
                     "        accumulator.push(" +
                     load("s * " + positions + " + p") +
                     ");\n"
                     "    lanes[threadIdx.x / " +
                     columns + "][threadIdx.x % " + columns +
                     "] = accumulator.result();\n"
                     "    __syncthreads();\n"
                     "    if (threadIdx.x < " +
                     columns + " && p < " + positions +
                     ") {\n"
                     "      " +
                     accType +
                     " total = lanes[0][threadIdx.x];\n"
                     "      for (int k = 1; k < " +
                     lanes +
                     "; ++k)\n"
                     "        total = " +
                     combiner + "()(total, lanes[k][threadIdx.x]);\n" +
                     finishColumn(reduction, second, "      ") +
                     "    }\n"
                     "    __syncthreads();\n"
                     "  }\n";
  return writeFinalFunction(reduction, second, name, body,
                            lanes + " lanes of slices a column, each in slice "
                                    "order (blocked), then the lanes in order",
                            allDims, dims);
}

std::string cuda::writeLastBlockFold(const ColumnReduction &reduction,
                                     const ColumnReduction *second) {
  const std::string columns = std::to_string(reduction.columnsPerBlock);
  const std::string lanes = std::to_string(256 / reduction.columnsPerBlock);
  const std::string positions = reduction.positions.str();
  const std::string foldType = reduction.getFoldType().str();
  const std::string foldCombiner = reduction.getFoldCombiner().str();
  std::string element = "dev::loadFromL2(partial + s * " + positions + " + p)";
  if (reduction.pairs(SinglePassForm::Welford))
    element = "dev::widen(" + element + ")";
  // Thread t folds column t % columns over every lanes-th slice from
  // t / columns, in slice order (blocked); then the lanes of each column
  // fold as a fixed tree.
  CodeWriter writer;
  writer.line("// The last block of the column group to finish folds every "
              "slice's partials");
  writer.line("// (one slice stored its results above).");
  writer.line("if (splits == 1 || !dev::arrivesLast(tickets))");
  writer.line("  return;");
  writer.openScope();
  writer.line("const int64_t p = static_cast<int64_t>(blockIdx.x) * " +
              columns + " + threadIdx.x % " + columns + ";");
  writer.line("dev::Accumulator<" + foldCombiner + ", " + foldType + "> fold;");
  writer.line("if (p < " + positions + ")");
  writer.line("  for (int64_t s = threadIdx.x / " + columns +
              "; s < splits; s += " + lanes + ")");
  writer.line("    fold.push(" + element + ");");
  writer.line(foldType + " total = dev::foldLanes<256, " + columns + ", " +
              foldCombiner + ">(fold.result(), splits);");
  writer.line("if (threadIdx.x < " + columns + " && p < " + positions + ") {");
  std::string finish = finishColumn(reduction, second, "  ");
  for (StringRef line : llvm::split(StringRef(finish).rtrim('\n'), '\n'))
    writer.line(line.str());
  writer.line("}");
  writer.closeScope("{");
  return writer.finish(1);
}
