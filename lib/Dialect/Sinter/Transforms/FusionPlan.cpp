//===- FusionPlan.cpp - The fusion plan of a module with kernels ----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/FusionPlan.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/SelectGemm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERPRINTFUSIONPLAN
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

/// Returns string attribute `name` of `attrs`, or `fallback`.
static std::string getNameOr(DictionaryAttr attrs, const Twine &fallback) {
  if (auto name = attrs ? attrs.getAs<StringAttr>(kNameAttrName) : nullptr)
    return name.str();
  return fallback.str();
}

/// Names `value` of `func` as the plan shows it (see KernelSummary).
static std::string
getValueLabel(func::FuncOp func, Value value,
              const DenseMap<Operation *, unsigned> &kernelIndex) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return getNameOr(func.getArgAttrDict(argument.getArgNumber()),
                     "arg" + Twine(argument.getArgNumber()));
  for (OpOperand &use : value.getUses())
    if (isa<func::ReturnOp>(use.getOwner()))
      return getNameOr(func.getResultAttrDict(use.getOperandNumber()),
                       "out" + Twine(use.getOperandNumber()));
  Operation *producer = value.getDefiningOp();
  auto found = kernelIndex.find(producer);
  if (found == kernelIndex.end())
    return producer->getName().stripDialect().str();
  return llvm::formatv("k{0}#{1}", found->second,
                       cast<OpResult>(value).getResultNumber());
}

SmallVector<KernelSummary, 4>
mlir::sinter::summarizeKernels(func::FuncOp func) {
  SmallVector<KernelSummary, 4> summaries;
  if (func.isExternal())
    return summaries;
  CostModel costs(func);
  DenseMap<Operation *, unsigned> kernelIndex;
  for (auto kernel : func.getBody().front().getOps<KernelOp>())
    kernelIndex[kernel] = kernelIndex.size();

  for (auto kernel : func.getBody().front().getOps<KernelOp>()) {
    KernelSummary &summary = summaries.emplace_back();
    summary.name = "k" + std::to_string(kernelIndex.lookup(kernel));
    summary.kind = kernel.getKind();
    // The plan says how often the kernel reads its inputs.
    int64_t passes = 1;
    if (KernelPlanAttr plan = kernel.getPlanAttr()) {
      summary.strategy = stringifyKernelStrategy(plan.getStrategy()).str();
      if (plan.getEpilogue() != EpilogueForm::none)
        summary.strategy +=
            "+" + stringifyEpilogueForm(plan.getEpilogue()).str();
      if (plan.getSinglePass())
        summary.strategy += "+single_pass";
      if (plan.getCluster() > 1)
        summary.strategy += "+cluster" + std::to_string(plan.getCluster());
      if (plan.getRowSlices() > 1)
        summary.strategy += "+streamed" + std::to_string(plan.getRowSlices());
      if (plan.getRowsPerThread() > 1)
        summary.strategy +=
            "+thread_tiles" + std::to_string(plan.getRowsPerThread());
      else if (plan.getTileRows())
        summary.strategy += "+tiles" + std::to_string(plan.getRowsPerBlock());
      if (plan.getColumnsPerThread() > 1)
        summary.strategy +=
            "+columns" + std::to_string(plan.getColumnsPerThread());
      if (plan.getWarpRuns() > 0)
        summary.strategy += "+warp_runs" + std::to_string(plan.getWarpRuns());
      if (plan.getApplyInStrip())
        summary.strategy +=
            (plan.getCached().empty() ? "+strips" : "+staged_strips") +
            std::to_string(plan.getColumnsPerBlock());
      summary.launches = plan.getLaunches();
      passes = plan.getPasses();
    }
    // Embedded constants are not listed, except one that the kernel writes.
    Operation *yield = kernel.getBody().front().getTerminator();
    for (Operation &op : kernel.getBody().front().without_terminator())
      if (!isa<ConstantOp>(op) || llvm::is_contained(op.getUsers(), yield))
        summary.ops.push_back(op.getName().stripDialect().str());
    for (Value input : kernel.getInputs()) {
      summary.inputs.push_back(getValueLabel(func, input, kernelIndex));
      summary.bytes += passes * costs.getBytes(input);
    }
    for (Value output : kernel.getResults()) {
      summary.outputs.push_back(getValueLabel(func, output, kernelIndex));
      summary.bytes += costs.getBytes(output);
    }
    summary.flops = costs.getFlops(kernel);
    summary.gemmAlgorithm = getGemmAlgorithm(kernel).str();
  }
  return summaries;
}

/// The number of ops of `func` that no kernel holds (constants and the
/// terminator excepted).
static unsigned countOpsOutsideKernels(func::FuncOp func) {
  unsigned count = 0;
  for (Operation &op : func.getBody().front().without_terminator())
    if (!isa<KernelOp, ConstantOp, FillOp>(op))
      ++count;
  return count;
}

/// Prints one row per kernel of `summaries` and a total, in aligned columns.
static void printKernelTable(ArrayRef<KernelSummary> summaries,
                             llvm::raw_ostream &os) {
  SmallVector<SmallVector<std::string>> rows = {{"kernel", "kind", "strategy",
                                                 "launches", "bytes", "FLOPs",
                                                 "inputs", "outputs", "ops"}};
  int64_t totalBytes = 0, totalFlops = 0;
  auto join = [](ArrayRef<std::string> items) {
    return llvm::join(items, ", ");
  };
  for (const KernelSummary &summary : summaries) {
    rows.push_back({summary.name, stringifyKernelKind(summary.kind).str(),
                    summary.strategy,
                    summary.launches ? std::to_string(summary.launches) : "-",
                    std::to_string(summary.bytes),
                    std::to_string(summary.flops), join(summary.inputs),
                    join(summary.outputs), join(summary.ops)});
    totalBytes += summary.bytes;
    totalFlops += summary.flops;
  }
  rows.push_back({"total", "", "", "", std::to_string(totalBytes),
                  std::to_string(totalFlops), "", "", ""});

  // Numbers align right, text left; the last column is not padded.
  constexpr size_t kNumColumns = 9;
  SmallVector<size_t> widths(kNumColumns, 0);
  for (const SmallVector<std::string> &row : rows)
    for (size_t column = 0; column < kNumColumns; ++column)
      widths[column] = std::max(widths[column], row[column].size());
  for (const SmallVector<std::string> &row : rows) {
    std::string line;
    for (size_t column = 0; column < kNumColumns; ++column) {
      bool number = column >= 3 && column <= 5;
      std::string padding(widths[column] - row[column].size(), ' ');
      if (column == kNumColumns - 1)
        padding.clear();
      line += number ? padding + row[column] : row[column] + padding;
      if (column + 1 < kNumColumns)
        line += "  ";
    }
    os << StringRef(line).rtrim() << "\n";
  }
}

/// Describes the values of `func` that no kernel computes because they are
/// constant: "z = fill 0.0 of [B, 1024]" for a fill or returned splat.
static SmallVector<std::string> describeFills(func::FuncOp func) {
  SmallVector<std::string> fills;
  DenseMap<Operation *, unsigned> noKernels;
  auto describe = [&](Value value, const APFloat &element) {
    SmallString<16> text;
    element.toString(text);
    fills.push_back(
        getValueLabel(func, value, noKernels) + " = fill " + text.str().str() +
        " of " +
        formatShape(cast<RankedTensorType>(value.getType()).getShape()));
  };
  for (auto fill : func.getBody().front().getOps<FillOp>())
    describe(fill.getResult(), fill.getElementValue());
  for (Value value : func.getBody().front().getTerminator()->getOperands())
    if (auto constant = value.getDefiningOp<ConstantOp>())
      if (std::optional<APFloat> splat = getSplatFloat(constant.getValue()))
        describe(value, *splat);
  return fills;
}

/// Prints the rewrites of sinter-simplify that fired in `func` (its
/// sinter.rewrites attribute), if any.
static void printRewrites(func::FuncOp func, llvm::raw_ostream &os) {
  auto rewrites = func->getAttrOfType<DictionaryAttr>(kRewritesAttrName);
  if (!rewrites || rewrites.empty())
    return;
  SmallVector<std::string> items;
  for (NamedAttribute entry : rewrites)
    if (auto count = dyn_cast<IntegerAttr>(entry.getValue()))
      items.push_back(
          llvm::formatv("{0} x{1}", entry.getName().str(), count.getInt()));
  os << "rewrites fired in @" << func.getSymName() << ": "
     << llvm::join(items, ", ") << "\n";
}

/// Prints the plan of `func`, if it has kernels, fills or ops outside
/// kernels.
static void printFunctionPlan(func::FuncOp func, llvm::raw_ostream &os) {
  if (func.isExternal())
    return;
  SmallVector<KernelSummary, 4> summaries = summarizeKernels(func);
  unsigned outside = countOpsOutsideKernels(func);
  SmallVector<std::string> fills = describeFills(func);
  printRewrites(func, os);
  if (summaries.empty() && outside == 0 && fills.empty())
    return;

  os << "fusion plan of @" << func.getSymName();
  if (auto module = func->getParentOfType<ModuleOp>();
      module && module.getSymName())
    os << " in @" << *module.getSymName();
  os << ": " << summaries.size() << " kernel"
     << (summaries.size() == 1 ? "" : "s")
     << "; bytes and FLOPs estimated with symbolic dims at their sinter.dims "
        "defaults ("
     << CostModel(func).describeDims() << ")\n";

  if (!summaries.empty())
    printKernelTable(summaries, os);
  for (const KernelSummary &summary : summaries)
    if (summary.gemmAlgorithm == kTf32x3Algorithm)
      os << summary.name
         << ": GEMM as 3xtf32 (TF32 tensor cores at fp32 accuracy on sm_90; "
            "cuBLAS SGEMM elsewhere and for shapes the runtime's rule gives "
            "to SGEMM)\n";
  for (const std::string &fill : fills)
    os << fill << " (constant: written by the host code, no kernel)\n";
  if (outside != 0)
    os << outside << " op" << (outside == 1 ? "" : "s") << " of @"
       << func.getSymName()
       << " outside kernels (run sinter-form-kernels first)\n";
}

void mlir::sinter::printFusionPlan(ModuleOp module, llvm::raw_ostream &os) {
  func::FuncOp forward = getForwardFunc(module);
  func::FuncOp prepare = getPrepareFunc(module);
  if (forward)
    printFunctionPlan(forward, os);
  if (prepare)
    printFunctionPlan(prepare, os);
  for (auto func : module.getOps<func::FuncOp>())
    if (func != forward && func != prepare)
      printFunctionPlan(func, os);
}

namespace {
struct PrintFusionPlanPass
    : public sinter::impl::SinterPrintFusionPlanBase<PrintFusionPlanPass> {
  void runOnOperation() override {
    printFusionPlan(getOperation(), llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace
