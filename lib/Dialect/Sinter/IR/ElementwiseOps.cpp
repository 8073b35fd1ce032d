//===- ElementwiseOps.cpp - Sinter elementwise ops ------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Folders and verifiers of the elementwise ops. Comparisons produce masks in
// the operands' element type (1.0 true, 0.0 false): the dialect has no
// boolean tensors. sinter.select chooses by such a mask. Both broadcast as
// the binary elementwise ops do.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::sinter;

/// Returns true if `attr` is a floating-point splat equal to `value`.
static bool isSplatOf(Attribute attr, double value) {
  std::optional<APFloat> splat = getSplatFloat(attr);
  if (!splat)
    return false;
  bool losesInfo = false;
  APFloat expected(value);
  expected.convert(splat->getSemantics(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  return splat->bitwiseIsEqual(expected);
}

//===----------------------------------------------------------------------===//
// Binary elementwise folders
//===----------------------------------------------------------------------===//

/// Folds `op(lhs, rhs)` of two splat constants with `compute`, in the
/// element type's own arithmetic, when the result type is static.
template <typename Compute>
static OpFoldResult foldSplats(Attribute lhs, Attribute rhs, Type resultType,
                               Compute compute) {
  std::optional<APFloat> a = getSplatFloat(lhs), b = getSplatFloat(rhs);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!a || !b || !type || !type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(type, compute(*a, *b));
}

/// Returns `value` when it already has the result's type, else nothing: an
/// identity operand that would be broadcast by the op cannot replace it.
static OpFoldResult ifSameType(Value value, Type resultType) {
  return value.getType() == resultType ? OpFoldResult(value) : OpFoldResult();
}

/// x + -0 = x ; -0 + x = x ; c1 + c2 = c (not x + +0, which is +0 where x
/// is -0: sinter-simplify drops a +0 in fast mode only)
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), -0.0))
    return ifSameType(getLhs(), getType());
  if (isSplatOf(adaptor.getLhs(), -0.0))
    return ifSameType(getRhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a + b; });
}

/// x - 0 = x ; c1 - c2 = c
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    return ifSameType(getLhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a - b; });
}

/// x * 1 = x ; 1 * x = x ; c1 * c2 = c
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  if (isSplatOf(adaptor.getLhs(), 1.0))
    return ifSameType(getRhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a * b; });
}

/// x / 1 = x ; c1 / c2 = c
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a / b; });
}

/// max(x, x) = x ; max(c1, c2) = c (NaN propagates, as torch.maximum)
OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::maximum(a, b); });
}

/// min(x, x) = x ; min(c1, c2) = c (NaN propagates, as torch.minimum)
OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::minimum(a, b); });
}

/// x ^ 1 = x
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// Unary folders
//===----------------------------------------------------------------------===//

/// neg(neg(x)) = x
OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

/// abs(abs(x)) = abs(x) ; abs(neg(x)) = abs(x)
OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<AbsOp>())
    return inner.getResult();
  if (auto inner = getInput().getDefiningOp<NegOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

/// relu(relu(x)) = relu(x)
OpFoldResult ReluOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<ReluOp>())
    return inner.getResult();
  return {};
}

LogicalResult SoftplusOp::verify() {
  if (getBeta().isZero())
    return emitOpError("beta must be non-zero");
  return success();
}

LogicalResult HardtanhOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("min ")
           << getMin().convertToDouble() << " is greater than max "
           << getMax().convertToDouble();
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of min and max");
  return success();
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

bool mlir::sinter::evaluateComparison(ComparePredicate predicate,
                                      const APFloat &lhs, const APFloat &rhs) {
  APFloat::cmpResult order = lhs.compare(rhs);
  switch (predicate) {
  case ComparePredicate::lt:
    return order == APFloat::cmpLessThan;
  case ComparePredicate::le:
    return order == APFloat::cmpLessThan || order == APFloat::cmpEqual;
  case ComparePredicate::gt:
    return order == APFloat::cmpGreaterThan;
  case ComparePredicate::ge:
    return order == APFloat::cmpGreaterThan || order == APFloat::cmpEqual;
  case ComparePredicate::eq:
    return order == APFloat::cmpEqual;
  case ComparePredicate::ne:
    return order != APFloat::cmpEqual;
  }
  llvm_unreachable("unknown comparison predicate");
}

LogicalResult
CompareOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferBroadcastResultType(
      location, getOperationName(), adaptor.getLhs().getType(),
      adaptor.getRhs().getType(), inferredReturnTypes);
}

/// compare(c1, c2) = 1 or 0, for two splat constants and a static result.
OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  std::optional<APFloat> lhs = getSplatFloat(adaptor.getLhs());
  std::optional<APFloat> rhs = getSplatFloat(adaptor.getRhs());
  if (!lhs || !rhs || !getType().hasStaticShape())
    return {};
  bool holds = evaluateComparison(getPredicate(), *lhs, *rhs);
  APFloat mask(lhs->getSemantics(), holds ? 1 : 0);
  return DenseElementsAttr::get(getType(), mask);
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult
SelectOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  // Broadcast the values first, then the condition against their result,
  // so that a message names the pair that does not broadcast.
  SmallVector<Type, 1> values;
  if (failed(inferBroadcastResultType(
          location, getOperationName(), adaptor.getTrueValue().getType(),
          adaptor.getFalseValue().getType(), values)))
    return failure();
  return inferBroadcastResultType(location, getOperationName(),
                                  adaptor.getCondition().getType(), values[0],
                                  inferredReturnTypes);
}

/// select(c, a, a) = a; select(nonzero splat, a, b) = a; select(0, a, b) = b
/// (each only where the chosen operand has the result's type, so that it
/// needs no broadcast).
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto ifSameType = [&](Value value) -> OpFoldResult {
    return value.getType() == getType() ? OpFoldResult(value) : nullptr;
  };
  if (getTrueValue() == getFalseValue())
    return ifSameType(getTrueValue());
  std::optional<APFloat> condition = getSplatFloat(adaptor.getCondition());
  if (!condition)
    return {};
  return ifSameType(condition->isZero() ? getFalseValue() : getTrueValue());
}
