//===- CostModel.cpp - Sizes and work of sinter ops -----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
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
  for (BlockArgument argument : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!type)
      continue;
    auto names = func.getArgAttrOfType<ArrayAttr>(argument.getArgNumber(),
                                                  kDimNamesAttrName);
    SmallVector<int64_t> shape(type.getShape());
    for (auto [index, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      size = unknownDim;
      auto name = names && index < names.size()
                      ? dyn_cast<StringAttr>(names[index])
                      : nullptr;
      for (const auto &[dimName, value] : dims)
        if (name && name.getValue() == dimName)
          size = value;
    }
    shapes[argument] = shape;
  }
  if (!func.isExternal())
    propagate(func.getBody().front());
}

void CostModel::propagate(Block &block) {
  for (Operation &op : block) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      Block &body = kernel.getBody().front();
      for (auto [argument, input] :
           llvm::zip(body.getArguments(), kernel.getInputs()))
        shapes[argument] = SmallVector<int64_t>(getShape(input));
      propagate(body);
      for (auto [result, value] :
           llvm::zip(kernel.getResults(), body.getTerminator()->getOperands()))
        shapes[result] = SmallVector<int64_t>(getShape(value));
      continue;
    }
    if (op.getNumResults() == 1)
      shapes[op.getResult(0)] = estimateResultShape(&op);
  }
}

SmallVector<int64_t> CostModel::estimateResultShape(Operation *op) const {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return {};
  SmallVector<int64_t> shape(type.getShape());
  auto operandShape = [&](unsigned index) {
    return getShape(op->getOperand(index));
  };

  if (auto reduction = dyn_cast<ReductionOpInterface>(op)) {
    shape = reducedShape(operandShape(0), reduction.getDims(),
                         reduction.getKeepdim());
  } else if (isElementwiseOp(op) || isCompositeOp(op) || isa<MatmulOp>(op)) {
    // Broadcast dims (batch dims of a matmul) take the largest operand size.
    size_t skip = isa<MatmulOp>(op) ? 2 : 0;
    for (size_t index = skip; index < shape.size(); ++index) {
      int64_t size = 1;
      for (unsigned operand = 0; operand < op->getNumOperands(); ++operand)
        size = std::max(size, getTrailingDim(operandShape(operand), index));
      shape[shape.size() - 1 - index] = size;
    }
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      ArrayRef<int64_t> lhs = operandShape(0), rhs = operandShape(1);
      shape[shape.size() - 2] =
          getTrailingDim(lhs, matmul.getTransposeA() ? 0 : 1);
      shape.back() = getTrailingDim(rhs, matmul.getTransposeB() ? 1 : 0);
    }
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> input = operandShape(0);
    for (auto [index, source] : llvm::enumerate(transpose.getPerm()))
      shape[index] = input[source];
  } else if (isa<SliceOp, ConcatOp>(op)) {
    // Only the sliced or joined dim differs from the (first) input, and it
    // is static in the result type.
    shape.assign(operandShape(0).begin(), operandShape(0).end());
  } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    int64_t known = 1;
    for (int64_t size : shape)
      if (!ShapedType::isDynamic(size))
        known *= size;
    for (int64_t &size : shape)
      if (ShapedType::isDynamic(size))
        size = known == 0 ? 0 : product(operandShape(0)) / known;
  }
  // Static dims of the result type are exact; the rules only fill in `?`.
  for (auto [size, declared] : llvm::zip(shape, type.getShape())) {
    if (!ShapedType::isDynamic(declared))
      size = declared;
    else if (ShapedType::isDynamic(size))
      size = unknownDim;
  }
  return shape;
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
