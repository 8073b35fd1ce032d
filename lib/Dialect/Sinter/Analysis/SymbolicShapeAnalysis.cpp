//===- SymbolicShapeAnalysis.cpp - Symbolic shapes of values --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

SymbolicShape mlir::sinter::getNamedShape(RankedTensorType type,
                                          ArrayRef<std::string> dimNames) {
  SymbolicShape shape;
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size))
      shape.push_back(DimExpr::constant(size));
    else if (index < dimNames.size() && !dimNames[index].empty())
      shape.push_back(DimExpr::symbol(dimNames[index]));
    else
      shape.push_back(DimExpr::unknown());
  }
  return shape;
}

SmallVector<std::string>
mlir::sinter::getDimNamesOfShape(RankedTensorType type,
                                 ArrayRef<DimExpr> shape) {
  SmallVector<std::string> names;
  for (auto [size, dim] : llvm::zip(type.getShape(), shape)) {
    std::optional<StringRef> name = dim.getSymbol();
    names.push_back(ShapedType::isDynamic(size) && name ? name->str() : "");
  }
  return names;
}

void SymbolicShapeAnalysis::setShape(Value value, SymbolicShape shape) {
  shapes[value] = std::move(shape);
}

const SymbolicShape *SymbolicShapeAnalysis::lookup(Value value) const {
  auto it = shapes.find(value);
  return it == shapes.end() ? nullptr : &it->second;
}

SymbolicShape SymbolicShapeAnalysis::getShape(Value value) const {
  if (const SymbolicShape *shape = lookup(value))
    return *shape;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? getNamedShape(type, {}) : SymbolicShape();
}

LogicalResult
SymbolicShapeAnalysis::refineByType(OpResult result, SymbolicShape shape,
                                    ShapeConstraints &constraints) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type)
    return success();
  if (type.getRank() != static_cast<int64_t>(shape.size()))
    return result.getOwner()->emitError("the symbolic shape rule gives ")
           << shape.size() << " dims to a result of rank " << type.getRank();
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    if (ShapedType::isDynamic(size))
      continue;
    DimExpr expected = DimExpr::constant(size);
    if (!shape[index].getConstant() && shape[index].isExpressible())
      constraints.requireEqual(shape[index], expected, "dim #" + Twine(index));
    shape[index] = expected;
  }
  setShape(result, std::move(shape));
  return success();
}

FailureOr<SmallVector<SymbolicShape, 1>>
SymbolicShapeAnalysis::visitKernel(KernelOp kernel, VisitFn onVisit) {
  Block &body = kernel.getBody().front();
  for (auto [argument, input] :
       llvm::zip(body.getArguments(), kernel.getInputs()))
    setShape(argument, getShape(input));
  if (failed(visitBlock(body, onVisit)))
    return failure();
  SmallVector<SymbolicShape, 1> results;
  for (Value value : body.getTerminator()->getOperands())
    results.push_back(getShape(value));
  return results;
}

LogicalResult SymbolicShapeAnalysis::visit(Operation *op, VisitFn onVisit) {
  ShapeConstraints constraints;
  SmallVector<SymbolicShape, 1> results;
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    FailureOr<SmallVector<SymbolicShape, 1>> yielded =
        visitKernel(kernel, onVisit);
    if (failed(yielded))
      return failure();
    results = std::move(*yielded);
  } else if (auto rule = dyn_cast<SymbolicShapeOpInterface>(op)) {
    SmallVector<SymbolicShape, 3> operands;
    for (Value operand : op->getOperands())
      operands.push_back(getShape(operand));
    results.push_back(rule.inferSymbolicShape(operands, constraints));
  } else {
    for (Value result : op->getResults())
      results.push_back(getShape(result));
  }
  for (auto [result, shape] : llvm::zip(op->getResults(), results))
    if (failed(refineByType(cast<OpResult>(result), std::move(shape),
                            constraints)))
      return failure();
  return onVisit ? onVisit(op, constraints.get()) : success();
}

LogicalResult SymbolicShapeAnalysis::visitBlock(Block &block, VisitFn onVisit) {
  for (Operation &op : block) {
    if (isa<YieldOp>(op))
      continue;
    if (failed(visit(&op, onVisit)))
      return failure();
  }
  return success();
}
