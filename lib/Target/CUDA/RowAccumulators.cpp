//===- RowAccumulators.cpp - A row kernel's accumulators ------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// How a row kernel accumulates its reductions: each accumulator's type and
// combiner (single-pass states, sums and products in double where they
// round too often in float), its updates, and the team's combination of its
// threads' accumulators into each row's statistics (RowWriter.cpp writes
// the rest of the kernel's body).
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// The accumulator's C type: a single-pass state where the reduction's pass
/// also computes another; a double for a product (one rounding: a product
/// over rows of 64 in float was 2x less accurate than PyTorch's).
static StringRef getAccumulatorType(const RowReduction &reduction) {
  if (reduction.fusedOuter)
    return reduction.form == SinglePassForm::Welford ? "dev::Welford"
                                                     : "dev::OnlineSoftmax";
  if (reduction.kind == ReductionCombiner::prod)
    return "double";
  return reduction.isArg() ? "dev::ArgValue" : "float";
}

/// The C type of the reduction's result: its accumulator's, a product's
/// rounded to float.
static StringRef getResultType(const RowReduction &reduction) {
  return reduction.kind == ReductionCombiner::prod
             ? "float"
             : getAccumulatorType(reduction);
}

std::string cuda::getRowCombiner(const RowReduction &reduction) {
  if (reduction.fusedOuter)
    return reduction.form == SinglePassForm::Welford ? "dev::WelfordOp"
                                                     : "dev::OnlineSoftmaxOp";
  if (reduction.kind == ReductionCombiner::prod)
    return "dev::ProdDoubleOp";
  return getCombinerInfo(reduction.kind).deviceFunctor.str();
}

/// `acc` combined with the element `value` (at `index` along the reduced
/// dim, for argmax/argmin).
static std::string getUpdate(const RowReduction &reduction,
                             const std::string &combiner,
                             const std::string &acc, const Expr &value,
                             const Expr &index) {
  if (reduction.fusedOuter)
    return (reduction.form == SinglePassForm::Welford
                ? "dev::welfordPush("
                : "dev::onlineSoftmaxPush(") +
           acc + ", " + value.text + ")";
  switch (reduction.kind) {
  case ReductionCombiner::sum:
  case ReductionCombiner::mean:
    return acc + " + " + value.text;
  case ReductionCombiner::prod:
    return acc + " * " + value.text;
  case ReductionCombiner::max:
    return "dev::maximum(" + acc + ", " + value.text + ")";
  case ReductionCombiner::min:
    return "dev::minimum(" + acc + ", " + value.text + ")";
  case ReductionCombiner::argmax:
  case ReductionCombiner::argmin:
    // A thread pushes its elements in increasing index order.
    return "dev::argPush(" + combiner + "(), " + acc + ", " + value.text +
           ", " + index.text + ")";
  case ReductionCombiner::logsumexp:
  case ReductionCombiner::var:
    break;
  }
  llvm_unreachable("sinter-decompose rewrites logsumexp and var");
}

std::string cuda::getRowFinal(const RowReduction &reduction,
                              const std::string &combined) {
  if (getCombinerInfo(reduction.kind).dividesByCount)
    return combined + " / static_cast<float>(" + reduction.groupSize.str() +
           ")";
  return combined;
}

bool RowWriter::sumsInDouble(const RowReduction &reduction) const {
  // Per-row reductions only: segments of a row reduce by warps.
  bool longRegisterRows = plan.registerRows && reduction.isPerRow() &&
                          plan.groupsPerThread() >= kDoubleSumGroups;
  return (plan.tileRows || longRegisterRows) && !reduction.fusedOuter &&
         (reduction.kind == ReductionCombiner::sum ||
          reduction.kind == ReductionCombiner::mean);
}

bool RowWriter::combinesThreadsInDouble() const {
  return plan.staticTeam == 256 && !plan.registerRows && plan.cached.empty() &&
         !plan.tileRows && plan.getRowSlices() == 1 && plan.staticRowLength &&
         *plan.staticRowLength > kMediumRowLimit;
}

bool RowWriter::accumulatesPerLane(const RowReduction &reduction) const {
  if (reduction.isArg() || sumsInDouble(reduction))
    return false;
  if (plan.registerRows)
    return true;
  return plan.hasEdges(reduction.groupSize) && !reduction.fusedOuter &&
         (reduction.kind == ReductionCombiner::sum ||
          reduction.kind == ReductionCombiner::mean);
}

void RowWriter::declareAccumulators(ArrayRef<RowReduction *> group,
                                    SmallVectorImpl<std::string> &accumulators,
                                    SmallVectorImpl<std::string> &combiners,
                                    const Expr &first) {
  for (RowReduction *reduction : group) {
    std::string acc = writer.freshName("acc");
    combiners.push_back(getRowCombiner(*reduction));
    std::string identity =
        reduction->isArg() && !reduction->fusedOuter
            ? "dev::argStart(" + combiners.back() + "(), " + first.text + ")"
            : combiners.back() + "::identity()";
    if (sumsInDouble(*reduction))
      writer.line("double " + acc + " = 0.0;");
    else if (accumulatesPerLane(*reduction))
      writer.line((getAccumulatorType(*reduction) + " " + acc + "[4] = {" +
                   identity + ", " + identity + ", " + identity + ", " +
                   identity + "};")
                      .str());
    else
      writer.line(
          (getAccumulatorType(*reduction) + " " + acc + " = " + identity + ";")
              .str());
    accumulators.push_back(acc);
  }
}

LogicalResult RowWriter::writeUpdates(ArrayRef<RowReduction *> group,
                                      ArrayRef<std::string> accumulators,
                                      ArrayRef<std::string> combiners,
                                      const Expr &position,
                                      ArrayRef<std::string> groups) {
  for (auto [i, reduction] : llvm::enumerate(group)) {
    FailureOr<Expr> element = emitReducedElement(*reduction, position);
    if (failed(element))
      return failure();
    if (i < groups.size() && !groups[i].empty())
      writer.line(groups[i] + "[l] = " + element->text + ";");
    else
      writer.line(accumulators[i] + " = " +
                  getUpdate(*reduction, combiners[i], accumulators[i], *element,
                            position) +
                  ";");
  }
  return success();
}

void RowWriter::writeVectorDot(const std::string &acc) {
  const VectorDot &dot = *plan.vectorDot;
  Expr rowBase = emitter.bindIndex(
      mulIndex(Expr("r", rowDepth), sizeExpr(DimExpr::constant(dot.size))));
  writer.openScope(); // if (vec)
  writer.openScope(); // over groups of four
  std::string a = writer.freshName("a"), b = writer.freshName("b");
  writer.line("const float4 " + a + " = dev::loadFloat4(" + dot.lhs->name +
              " + " + rowBase.text + " + 4 * j);");
  writer.line("const float4 " + b + " = dev::loadFloat4(" + dot.rhs->name +
              " + 4 * j);");
  writer.line(acc + " = " + acc + " + " + a + ".x * " + b + ".x + " + a +
              ".y * " + b + ".y + " + a + ".z * " + b + ".z + " + a + ".w * " +
              b + ".w;");
  writer.closeScope("for (int64_t j = tid; j < " +
                    std::to_string(dot.size / 4) + "; j += kThreads) {");
  writer.closeScope("if (vec) { // float4 loads of both operands");
  // The scalar loop follows in an `if (!vec)` scope the caller closes.
  writer.openScope();
}

void RowWriter::writeSinglePassResults(RowReduction &inner,
                                       const std::string &own) {
  RowReduction &outer = *inner.fusedOuter;
  inner.storage = writer.freshName("red");
  outer.storage = writer.freshName("red");
  inner.storageDepth = outer.storageDepth = writer.getDepth();
  if (inner.form == SinglePassForm::OnlineSoftmax) {
    // The team's max first, then each thread's sum rescaled to it once and
    // summed: one rounding of a rescale per thread, where combining the
    // (max, sum) pairs rescales a sum at every level of the tree (and
    // softmax over rows of 65536 was 1.3x less accurate than PyTorch's).
    // The rescaling and the tree are in double, rounded once: the tree's
    // last roundings in float are an error common to the whole row (a
    // scaled softmax over rows of 65536 was 2.3% less accurate than
    // PyTorch's on the H100).
    std::string state = own;
    if (own.find('(') != std::string::npos) {
      state = writer.freshName("state");
      writer.line("const dev::OnlineSoftmax " + state + " = " + own + ";");
    }
    writer.line("const float " + inner.storage +
                " = teamReduce<kThreads, dev::MaxOp>(" + state + ".max);");
    std::string sum = "static_cast<float>(teamReduce<kThreads, "
                      "dev::SumDoubleOp>(dev::onlineSoftmaxRescale(static_"
                      "cast<double>(" +
                      state + ".sum), " + state + ".max, " + inner.storage +
                      ")))";
    // logsumexp's sum is of exp(x - clamp(max)).
    if (inner.clampedMax)
      sum = "dev::onlineSoftmaxSumAtFinite(" + inner.storage + ", " + sum + ")";
    writer.line("const float " + outer.storage + " = " + sum + ";");
    return;
  }
  std::string state = writer.freshName("state");
  writer.line("const dev::Welford " + state +
              " = teamReduce<kThreads, dev::WelfordOp>(" + own + ");");
  writer.line("const float " + inner.storage + " = " + state + ".mean;");
  // The mean of squared deviations is M2 over the count, their sum M2.
  writer.line("const float " + outer.storage + " = " + state +
              (getCombinerInfo(outer.kind).dividesByCount
                   ? ".m2 / static_cast<float>(" + outer.groupSize.str() + ");"
                   : ".m2;"));
}

void RowWriter::finishPerRowReduction(RowReduction &reduction,
                                      const std::string &own,
                                      const std::string &combiner) {
  if (reduction.fusedOuter) {
    writeSinglePassResults(reduction, own);
    return;
  }
  // A cluster's blocks combine their blocks' results in rank order, and a
  // streamed row's slices fold their partials in slice order; their sums,
  // of the threads' sums in float, add in double (rounded once), as
  // softmax over rows of 65536 in float was less accurate than PyTorch's.
  bool sums = reduction.kind == ReductionCombiner::sum ||
              reduction.kind == ReductionCombiner::mean;
  std::string reduced = "teamReduce<kThreads, " + combiner + ">(" + own + ")";
  if (plan.cluster > 1)
    reduced = "dev::clusterReduce<kThreads, " + std::to_string(plan.cluster) +
              ", " +
              (sums ? "dev::SumDoubleOp>(static_cast<double>(" + own + ")"
                    : combiner + ">(" + own) +
              ", exchange)";
  else if (plan.rowSlices > 1 && sums) // `own` is a slice's double partial
    reduced = "teamReduce<kThreads, dev::SumDoubleOp>(" + own + ")";
  else if (sums && combinesThreadsInDouble())
    reduced = "static_cast<float>(teamReduce<kThreads, dev::SumDoubleOp>("
              "static_cast<double>(" +
              own + ")))";
  if (sums && plan.getRowSlices() > 1)
    reduced = "static_cast<float>(" + reduced + ")";
  std::string result = getRowFinal(reduction, reduced);
  // A tile's sums add in double, and a mean divides there: rounded once.
  if (sumsInDouble(reduction)) {
    reduced = "teamReduce<kThreads, dev::SumDoubleOp>(" + own + ")";
    if (getCombinerInfo(reduction.kind).dividesByCount)
      reduced += " / static_cast<double>(" + reduction.groupSize.str() + ")";
    result = "static_cast<float>(" + reduced + ")";
  }
  reduction.storage = writer.freshName("red");
  reduction.storageDepth = writer.getDepth();
  if (getResultType(reduction) != getAccumulatorType(reduction))
    result =
        ("static_cast<" + getResultType(reduction) + ">(" + result + ")").str();
  writer.line(("const " + getResultType(reduction) + " " + reduction.storage +
               " = " + result + ";")
                  .str());
}
