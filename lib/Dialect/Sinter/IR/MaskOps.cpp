//===- MaskOps.cpp - sinter.compare and sinter.select ---------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Comparisons produce masks in the operands' element type (1.0 true, 0.0
// false): the dialect has no boolean tensors. sinter.select chooses by such
// a mask. Both broadcast as the binary elementwise ops do.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::sinter;

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
