//===- RewriteUtils.cpp - Helpers shared by the Sinter rewrites -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::sinter;

Type mlir::sinter::getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

Value mlir::sinter::createSplatConstant(OpBuilder &builder, Location loc,
                                        RankedTensorType type,
                                        const APFloat &value) {
  auto elementType = cast<FloatType>(type.getElementType());
  APFloat converted = value;
  bool losesInfo = false;
  converted.convert(elementType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
  return ConstantOp::create(builder, loc,
                            DenseElementsAttr::get(type, converted));
}

Value mlir::sinter::createSplatConstantLike(OpBuilder &builder, Location loc,
                                            Value like, const APFloat &value) {
  return createSplatConstant(builder, loc,
                             cast<RankedTensorType>(like.getType()), value);
}

Value mlir::sinter::createScalarConstant(OpBuilder &builder, Location loc,
                                         Type elementType, double value) {
  return createSplatConstant(
      builder, loc, RankedTensorType::get({}, elementType), APFloat(value));
}

Value mlir::sinter::createReshape(OpBuilder &builder, Location loc, Value input,
                                  ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape)
    return input;
  return ReshapeOp::create(builder, loc, type.clone(shape), input);
}

std::optional<APFloat> mlir::sinter::matchSplatConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return getSplatFloat(attr);
}

bool mlir::sinter::isScalar(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank() == 0;
}

Value mlir::sinter::getOtherOperand(Operation *op, Value operand) {
  return op->getOperand(0) == operand ? op->getOperand(1) : op->getOperand(0);
}

bool mlir::sinter::broadcastsTo(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                ArrayRef<int64_t> expected) {
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  return shape && ArrayRef<int64_t>(*shape) == expected;
}

bool mlir::sinter::isReshapeTarget(ArrayRef<int64_t> shape) {
  return llvm::count_if(shape, ShapedType::isDynamic) <= 1;
}

/// Returns true if `argument` is an argument of a function that the model
/// signature marks as a param.
static bool isParamArgument(BlockArgument argument) {
  auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  if (!func || argument.getOwner() != &func.getBody().front())
    return false;
  auto role =
      func.getArgAttrOfType<StringAttr>(argument.getArgNumber(), kRoleAttrName);
  return role && role.getValue() == "param";
}

bool mlir::sinter::isParamOnly(Value value) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> visited;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (auto argument = dyn_cast<BlockArgument>(current)) {
      if (!isParamArgument(argument))
        return false;
      continue;
    }
    Operation *op = current.getDefiningOp();
    if (!visited.insert(op).second || matchPattern(op, m_Constant()))
      continue;
    if (visited.size() > kParamOnlySearchLimit)
      return false;
    if (op->getNumRegions() != 0 || !isPure(op))
      return false;
    llvm::append_range(worklist, op->getOperands());
  }
  return true;
}
