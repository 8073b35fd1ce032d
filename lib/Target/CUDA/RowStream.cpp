//===- RowStream.cpp - Row kernels that stream rows through L2 ------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A row kernel whose plan streams its rows in slices (row_slices): rows too
// long for the shared memory of a cluster are read once from HBM all the
// same. A persistent grid draws items from a queue (dev::nextStreamItem in
// rt_stream.cuh):
//   - a slice's statistics: the block reduces the slice level by level,
//     read under an evict-last L2 policy (a level's pass after the first
//     reads it from L1 or L2), and stores its partial result of every
//     reduction (a sum in double; for the outer statistic of a single-pass
//     pair, the pair's state: the slice's max and its sum of exp(x - max),
//     its mean and its sum of squared deviations from it), then counts the
//     slice as arrived;
//   - a slice's outputs, a bounded lag of items later: the block waits until
//     every slice of the row has arrived, folds the row's partials in slice
//     order (one a thread, the same tree in every block: deterministic),
//     and writes the slice's outputs, reading it again, from L2 this time
//     (evict-first), with streaming stores.
// Every reduction reads no other's result, or is the outer statistic of a
// pair whose inner reads none, so that the slices' results fold: the
// planner and planRowKernel check it.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

std::optional<SlicePair> cuda::getSlicePair(const RowPlan &plan,
                                            const RowReduction &reduction) {
  if (reduction.level != 2)
    return std::nullopt;
  std::optional<SinglePassPair> pair = matchSinglePassPair(reduction.op);
  if (!pair)
    return std::nullopt;
  auto inner = llvm::find_if(plan.reductions, [&](const RowReduction &r) {
    return r.op == pair->first;
  });
  if (inner == plan.reductions.end() || inner->level != 1)
    return std::nullopt;
  return SlicePair{&*inner, pair->form, pair->clampedMax};
}

std::string cuda::getSlicePartialType(const RowPlan &plan,
                                      const RowReduction &reduction) {
  if (std::optional<SlicePair> pair = getSlicePair(plan, reduction))
    return pair->form == SinglePassForm::Welford ? "dev::Welford"
                                                 : "dev::OnlineSoftmax";
  bool sums = reduction.kind == ReductionCombiner::sum ||
              reduction.kind == ReductionCombiner::mean;
  return sums ? "double" : "float";
}

std::string cuda::getSlicePartialName(const RowPlan &plan,
                                      const RowReduction &reduction) {
  return "partial" + std::to_string(&reduction - plan.reductions.data());
}

LogicalResult RowWriter::writeSliceStatistics() {
  const std::string slice = std::to_string(plan.getRowSlice());
  const int64_t length = *plan.staticRowLength;
  // The slice's result of each reduction, before any division by a count.
  llvm::DenseMap<const RowReduction *, std::string> raw;
  for (size_t begin = 0; begin < plan.reductions.size();) {
    size_t end = begin;
    while (end < plan.reductions.size() &&
           plan.reductions[end].level == plan.reductions[begin].level)
      ++end;
    SmallVector<RowReduction *> group;
    for (size_t i = begin; i < end; ++i)
      group.push_back(&plan.reductions[i]);
    begin = end;
    SmallVector<std::string> accumulators, combiners;
    declareAccumulators(group, accumulators, combiners, Expr("0"));
    // float4 groups where the buffers are aligned, else scalars.
    if (plan.vectorRows &&
        failed(writeVectorRowLoop(length, [&](const Expr &position) {
          return writeUpdates(group, accumulators, combiners, position);
        })))
      return failure();
    writer.openScope();
    if (failed(writeUpdates(group, accumulators, combiners,
                            Expr("j", writer.getDepth()))))
      return failure();
    writer.closeScope(plan.getRowLoop(DimExpr::constant(length)));
    if (plan.vectorRows)
      writer.closeScope("if (!vec) {");
    // The slice's results: sums in double; a mean over the slice's elements
    // for the next level.
    for (auto [reduction, acc, combiner] :
         llvm::zip(group, accumulators, combiners)) {
      bool sums = reduction->kind == ReductionCombiner::sum ||
                  reduction->kind == ReductionCombiner::mean;
      std::string name = writer.freshName("state");
      writer.line(sums ? "const double " + name +
                             " = teamReduce<kThreads, dev::SumDoubleOp>("
                             "static_cast<double>(" +
                             acc + "));"
                       : "const float " + name + " = teamReduce<kThreads, " +
                             combiner + ">(" + acc + ");");
      raw[reduction] = name;
      std::string value = name;
      if (sums && getCombinerInfo(reduction->kind).dividesByCount)
        value = name + " / " + slice;
      // Bound, so that a result that nothing reads is not declared.
      Expr result =
          writer.bind(Expr(sums ? "static_cast<float>(" + value + ")" : value,
                           writer.getDepth()),
                      "float", "red");
      reduction->storage = result.text;
      reduction->storageDepth = result.depth;
    }
  }
  // The partials: the slice's result, or its pair's state.
  for (const RowReduction &reduction : plan.reductions) {
    std::string value = raw.lookup(&reduction);
    if (std::optional<SlicePair> pair = getSlicePair(plan, reduction))
      value = pair->form == SinglePassForm::Welford
                  ? "dev::Welford{" + pair->inner->storage +
                        ", static_cast<float>(" + value +
                        "), static_cast<float>(" + slice + ")}"
                  : "dev::OnlineSoftmax{" + pair->inner->storage +
                        ", static_cast<float>(" + value + ")}";
    writer.line("if (tid == 0)");
    writer.line("  " + getSlicePartialName(plan, reduction) +
                "[item.slice] = " + value + ";");
  }
  return success();
}

void RowWriter::writeSliceFold() {
  const std::string slices = std::to_string(plan.rowSlices);
  for (RowReduction &reduction : plan.reductions) {
    std::optional<SlicePair> pair = getSlicePair(plan, reduction);
    std::string type = getSlicePartialType(plan, reduction);
    std::string combiner = !pair ? getRowCombiner(reduction)
                           : pair->form == SinglePassForm::Welford
                               ? "dev::WelfordOp"
                               : "dev::OnlineSoftmaxOp";
    std::string identity = type == "double" ? "0.0" : combiner + "::identity()";
    std::string own = writer.freshName("state");
    writer.line("const " + type + " " + own + " = tid < " + slices +
                " ? dev::loadFromL2(" + getSlicePartialName(plan, reduction) +
                " + r * " + slices + " + tid) : " + identity + ";");
    if (!pair) {
      finishPerRowReduction(reduction, own, combiner);
      continue;
    }
    // A pair's outer statistic from the slices' states: the sums of
    // exp(x - max) rescaled to the row's max and summed in double, rounded
    // once; Welford's states combined in slice order.
    std::string result;
    if (pair->form == SinglePassForm::Welford) {
      std::string state = writer.freshName("state");
      writer.line("const dev::Welford " + state +
                  " = teamReduce<kThreads, dev::WelfordOp>(" + own + ");");
      result = state + ".m2";
    } else {
      std::string max = writer.freshName("state");
      writer.line("const float " + max +
                  " = teamReduce<kThreads, dev::MaxOp>(" + own + ".max);");
      result = "static_cast<float>(teamReduce<kThreads, dev::SumDoubleOp>("
               "dev::onlineSoftmaxRescale(static_cast<double>(" +
               own + ".sum), " + own + ".max, " + max + ")))";
      // logsumexp's sum is of exp(x - clamp(max)).
      if (pair->clampedMax)
        result = "dev::onlineSoftmaxSumAtFinite(" + max + ", " + result + ")";
    }
    if (getCombinerInfo(reduction.kind).dividesByCount)
      result =
          result + " / static_cast<float>(" + reduction.groupSize.str() + ")";
    reduction.storage = writer.freshName("red");
    reduction.storageDepth = writer.getDepth();
    writer.line("const float " + reduction.storage + " = " + result + ";");
  }
}

FailureOr<std::string> RowWriter::writeStreamed() {
  context.helpers.insert("team_reduce");
  const std::string slices = std::to_string(plan.rowSlices);
  const std::string slice = std::to_string(plan.getRowSlice());
  writer.line("const uint64_t keep = dev::evictLastPolicy();");
  writer.line("const uint64_t drop = dev::evictFirstPolicy();");
  writer.openScope(); // over the items
  rowDepth = writer.getDepth();
  writer.line("const dev::StreamItem item = dev::nextStreamItem(queue, " +
              mulIndex(sizeExpr(plan.rows), Expr(slices)).text + ", lag);");
  writer.line("if (item.done)");
  writer.line("  break;");
  writer.line("// Slice item.slice % " + slices + " of row r: its elements " +
              "[begin, begin + " + slice + ").");
  writer.line("const int64_t r = item.slice / " + slices + ";");
  writer.line("const int64_t begin = item.slice % " + slices + " * " + slice +
              ";");

  // The statistics: every reduction over the slice, its partial stored.
  writer.openScope();
  loadPolicy = "keep";
  if (failed(writeSliceStatistics()))
    return failure();
  writer.line("dev::arriveSlice(arrived + r);");
  writer.closeScope("if (!item.second) { // The slice's statistics.",
                    "} else { // The slice's outputs.");

  // The outputs: the row's partials folded, one a thread, then the slice.
  writer.openScope();
  loadPolicy = "drop";
  writer.line("dev::awaitSlices(arrived + r, " + slices + ");");
  writeSliceFold();
  if (failed(writeOutputs()))
    return failure();
  writer.closeScope("", "}");
  loadPolicy.clear();
  writer.closeScope("for (;;) {");
  return writer.finish(1);
}
