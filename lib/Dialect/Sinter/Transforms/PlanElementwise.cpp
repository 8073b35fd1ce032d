//===- PlanElementwise.cpp - Plans of elementwise kernels -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-plan-kernels' plans of pointwise kernels: whether a kernel's
// outputs are computed four at a time with 16-byte loads and stores, and
// the float4 groups each thread loads, all in flight, before it computes
// them, where every value is the thread's own elements.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"

using namespace mlir;
using namespace mlir::sinter;

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

/// Threads of an elementwise block whose threads each load
/// kElementwiseGroups float4 groups.
static constexpr int64_t kGroupedThreads = 128;

/// The float4 groups a thread of such a kernel loads, all in flight, before
/// it computes them: blocks of 1024 elements, as Inductor's pointwise
/// kernels; kChainedElementwiseGroups where an op chains special functions
/// (Sinter_SpecialFunctionChain). On the H200 (run 4 of 2026-11-28, a
/// microbenchmark over 1 GiB), one group a thread of 256 reached 0.97 of
/// copy for silu, 0.91 for softplus, 0.83 for mish; two of 128, 1.00, 1.00
/// and 0.93; four of 128, 0.97, 0.97 and 0.97.
static constexpr int64_t kElementwiseGroups = 2;
static constexpr int64_t kChainedElementwiseGroups = 4;

/// Whether every value of a vectorizable elementwise body has the full shape
/// or one element: then each thread's groups are float4 loads of its
/// operands at its own elements, which it can issue all before it computes.
/// `shapes` tells dims apart that the types do not ([B, 16] and [T, 16]);
/// without it, only static shapes compare.
static bool readsOwnElementsOnly(Block &body,
                                 const SymbolicShapeAnalysis *shapes) {
  Value output = body.getTerminator()->getOperand(0);
  ArrayRef<int64_t> full = getShape(output);
  auto isOwn = [&](Value value) {
    ArrayRef<int64_t> shape = getShape(value);
    if (getStaticCount(shape) == 1)
      return true;
    if (!shapes)
      return shape == full && getStaticCount(shape).has_value();
    return shapes->getShape(value) == shapes->getShape(output);
  };
  return llvm::all_of(body.getArguments(), isOwn) &&
         llvm::all_of(body.without_terminator(), [&](Operation &op) {
           return llvm::all_of(op.getResults(), isOwn);
         });
}

KernelPlanAttr sinter::planElementwise(KernelOp kernel,
                                       const SymbolicShapeAnalysis *shapes) {
  MLIRContext *context = kernel.getContext();
  Block &body = kernel.getBody().front();
  bool vector = canVectorize(body);
  bool grouped = vector && readsOwnElementsOnly(body, shapes);
  bool chained = llvm::any_of(body, [](Operation &op) {
    return op.hasTrait<OpTrait::sinter::SpecialFunctionChain>();
  });
  return KernelPlanAttr::get(
      context, KernelStrategy::elementwise, ReductionGeometry::none,
      grouped ? kGroupedThreads : kBlockThreads, /*rowsPerBlock=*/0,
      /*columnsPerBlock=*/0, vector ? 4 : 1,
      DenseI64ArrayAttr::get(context, {}), /*passes=*/1, /*launches=*/1,
      EpilogueForm::none, /*singlePass=*/false, /*registers=*/false,
      /*lastBlockFolds=*/false, /*minBlocks=*/0, /*applyMinBlocks=*/0,
      /*applyRowsPerThread=*/1, /*applyInFold=*/false, /*cluster=*/1,
      /*rowSlices=*/1, /*streamLag=*/0, /*streamBlocks=*/0,
      /*applyInStrip=*/false, /*tileRows=*/false, /*columnsPerThread=*/1,
      /*rowsPerThread=*/1,
      !grouped  ? 0
      : chained ? kChainedElementwiseGroups
                : kElementwiseGroups,
      /*heldParams=*/nullptr, /*warpRuns=*/0);
}
