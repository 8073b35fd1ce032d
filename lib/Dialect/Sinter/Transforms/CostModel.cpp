//===- CostModel.cpp - Sizes and work of sinter ops -----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"
#include "sinter/Dialect/Sinter/IR/ModelSignature.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// The product of `shape`.
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t result = 1;
  for (int64_t size : shape)
    result *= size;
  return result;
}

/// Dim `index` of `shape` counted from the back, 1 past its rank.
static int64_t getTrailingDim(ArrayRef<int64_t> shape, size_t index) {
  return index < shape.size() ? shape[shape.size() - 1 - index] : 1;
}

CostModel::CostModel(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  auto declared =
      module ? module->getAttrOfType<DictionaryAttr>(kDimsAttrName) : nullptr;
  if (declared) {
    unknownDim = 1;
    for (NamedAttribute dim : declared)
      if (auto value = dyn_cast<IntegerAttr>(dim.getValue())) {
        dims.emplace_back(dim.getName().str(), value.getInt());
        unknownDim = std::max(unknownDim, value.getInt());
      }
  }
  SymbolicShapeAnalysis analysis;
  for (BlockArgument argument : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!type)
      continue;
    SymbolicShape shape =
        getNamedShape(type, getArgumentDimNames(func, argument));
    shapes[argument] = evaluate(shape);
    analysis.setShape(argument, std::move(shape));
  }
  if (func.isExternal())
    return;
  auto record = [&](Value value) {
    shapes[value] = evaluate(analysis.getShape(value));
  };
  (void)analysis.visitBlock(
      func.getBody().front(), [&](Operation *op, ArrayRef<ShapeConstraint>) {
        if (auto kernel = dyn_cast<KernelOp>(op))
          llvm::for_each(kernel.getBody().getArguments(), record);
        llvm::for_each(op->getResults(), record);
        return success();
      });
}

SmallVector<std::string>
CostModel::getArgumentDimNames(func::FuncOp func, BlockArgument argument) {
  auto type = cast<RankedTensorType>(argument.getType());
  auto names = func.getArgAttrOfType<ArrayAttr>(argument.getArgNumber(),
                                                kDimNamesAttrName);
  SmallVector<std::string> result;
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    auto name = names && index < names.size()
                    ? dyn_cast<StringAttr>(names[index])
                    : nullptr;
    // An unnamed `?` is a size of its own, estimated as unknownDim.
    result.push_back(name && !name.empty()
                         ? name.str()
                         : "?" + std::to_string(argument.getArgNumber()) + "." +
                               std::to_string(index));
  }
  return result;
}

SmallVector<int64_t> CostModel::evaluate(ArrayRef<DimExpr> shape) const {
  auto valueOf = [&](StringRef name) {
    for (const auto &[dimName, value] : dims)
      if (name == dimName)
        return value;
    return unknownDim;
  };
  return llvm::map_to_vector(shape, [&](const DimExpr &size) {
    return size.evaluate(valueOf).value_or(unknownDim);
  });
}

ArrayRef<int64_t> CostModel::getShape(Value value) const {
  auto found = shapes.find(value);
  if (found != shapes.end())
    return found->second;
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return type.getShape();
  return {};
}

int64_t CostModel::getNumElements(Value value) const {
  return product(getShape(value));
}

int64_t CostModel::getBytes(Value value) const {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type)
    return 0;
  // Index and other non-numeric elements count as 64 bits.
  Type element = type.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return getNumElements(value) * ((bits + 7) / 8);
}

int64_t CostModel::getFlops(Operation *op) const {
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    int64_t flops = 0;
    for (Operation &inner : kernel.getBody().front())
      flops += getFlops(&inner);
    return flops;
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> lhs = getShape(matmul.getLhs());
    int64_t k = getTrailingDim(lhs, matmul.getTransposeA() ? 1 : 0);
    return 2 * k * getNumElements(matmul.getResult());
  }
  if (isa<ReductionOpInterface>(op))
    return getNumElements(op->getOperand(0));
  if (isElementwiseOp(op) || isCompositeOp(op))
    return getNumElements(op->getResult(0));
  return 0;
}

std::string CostModel::describeDims() const {
  if (dims.empty())
    return "none declared; ? = " + std::to_string(unknownDim);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(dims, os, [&](const auto &dim) {
    os << dim.first << " = " << dim.second;
  });
  return text;
}
