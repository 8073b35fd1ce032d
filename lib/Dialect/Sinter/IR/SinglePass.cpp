//===- SinglePass.cpp - Statistics that one pass computes -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinglePass.h"

using namespace mlir;
using namespace mlir::sinter;

/// Whether `inner` reduces `input` over the same dims as `outer` does its
/// input, keeping them or over leading dims only, so that `inner`'s result
/// broadcasts along them.
static bool isKeptStatisticOf(ReductionOpInterface inner, Value input,
                              ReductionOpInterface outer) {
  auto rank = [](Value value) {
    return cast<ShapedType>(value.getType()).getRank();
  };
  if (!inner || inner.getInput() != input ||
      inner.getDims() != outer.getDims() ||
      input.getType() != outer.getInput().getType())
    return false;
  if (rank(inner->getResult(0)) == rank(input))
    return true;
  // Without keepdim, reduced leading dims [0, k) broadcast as kept ones.
  for (auto [index, dim] : llvm::enumerate(inner.getDims()))
    if (dim != static_cast<int64_t>(index))
      return false;
  return true;
}

/// The mean m when `second` is a mean or sum of d * d with d = x - m and
/// m = mean(x) over the same dims: a variance (biased, or before dividing by
/// N - 1), which Welford states compute with m.
static MeanOp matchWelford(ReductionOpInterface second) {
  auto mul = second.getInput().getDefiningOp<MulOp>();
  if (!mul || mul.getLhs() != mul.getRhs())
    return MeanOp();
  auto sub = mul.getLhs().getDefiningOp<SubOp>();
  auto inner = sub ? sub.getRhs().getDefiningOp<MeanOp>() : MeanOp();
  return inner && isKeptStatisticOf(inner, sub.getLhs(), second) ? inner
                                                                 : MeanOp();
}

/// The max that `shift` clamps to the finite range of its element type
/// (logsumexp's shift, see Decompose.cpp), if it does.
static MaxOp matchMaxClampedToFinite(Value shift) {
  auto clamp = shift.getDefiningOp<ClampOp>();
  if (!clamp || !clamp.getMin() || !clamp.getMax())
    return MaxOp();
  auto type =
      cast<FloatType>(cast<ShapedType>(shift.getType()).getElementType());
  double largest =
      APFloat::getLargest(type.getFloatSemantics()).convertToDouble();
  if (clamp.getMin()->convertToDouble() != -largest ||
      clamp.getMax()->convertToDouble() != largest)
    return MaxOp();
  return clamp.getInput().getDefiningOp<MaxOp>();
}

std::optional<SinglePassPair>
mlir::sinter::matchSinglePassPair(Operation *second) {
  if (!isa<SumOp, MeanOp>(second))
    return std::nullopt;
  // sum(exp(x - m)) with m = max(x), or clamped to the finite range.
  if (auto sum = dyn_cast<SumOp>(second)) {
    auto exp = sum.getInput().getDefiningOp<ExpOp>();
    auto sub = exp ? exp->getOperand(0).getDefiningOp<SubOp>() : SubOp();
    auto max = sub ? sub.getRhs().getDefiningOp<MaxOp>() : MaxOp();
    bool clamped = false;
    if (sub && !max) {
      max = matchMaxClampedToFinite(sub.getRhs());
      clamped = static_cast<bool>(max);
    }
    if (max && isKeptStatisticOf(max, sub.getLhs(), sum))
      return SinglePassPair{max, sum, SinglePassForm::OnlineSoftmax, clamped};
  }
  // mean(d * d) or sum(d * d) with d = x - m and m = mean(x).
  if (MeanOp mean = matchWelford(cast<ReductionOpInterface>(second)))
    return SinglePassPair{mean, second, SinglePassForm::Welford};
  return std::nullopt;
}
