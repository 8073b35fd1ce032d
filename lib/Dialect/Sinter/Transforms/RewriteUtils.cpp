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

bool mlir::sinter::canDropReducedDims(ReductionOpInterface reduction) {
  return reduction.getKeepdim() ||
         isReshapeTarget(getTensorShape(reduction.getReduced()));
}

bool mlir::sinter::isReshapeTarget(ArrayRef<int64_t> shape) {
  return llvm::count_if(shape, ShapedType::isDynamic) <= 1;
}

SmallVector<int64_t>
mlir::sinter::getSizesWithoutUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  llvm::copy_if(shape, std::back_inserter(sizes),
                [](int64_t size) { return size != 1; });
  return sizes;
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

bool mlir::sinter::isNonNegative(Value value) {
  auto facts = value.getDefiningOp<ValueFactsOpInterface>();
  return facts && facts.isResultNonNegative();
}

bool mlir::sinter::isPositive(Value value) {
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr))) {
    auto elements = dyn_cast<DenseFPElementsAttr>(attr);
    return elements && llvm::all_of(elements.getValues<APFloat>(),
                                    [](const APFloat &element) {
                                      return element.isFiniteNonZero() &&
                                             !element.isNegative();
                                    });
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (auto facts = dyn_cast<ValueFactsOpInterface>(op))
    return facts.isResultPositive();
  if (isa<ReshapeOp, TransposeOp>(op))
    return isPositive(op->getOperand(0));
  if (isa<AddOp>(op))
    return llvm::any_of(op->getOperands(), isPositive) &&
           llvm::all_of(op->getOperands(), [](Value operand) {
             return isPositive(operand) || isNonNegative(operand);
           });
  if (isa<MulOp, DivOp>(op))
    return llvm::all_of(op->getOperands(), isPositive);
  return false;
}

bool mlir::sinter::isCheapFactor(Value value) {
  return isScalar(value) || isParamOnly(value);
}

ArrayRef<int64_t> mlir::sinter::getTensorShape(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

bool mlir::sinter::regroupKeepsShape(Value x, Value p, Value q,
                                     ArrayRef<int64_t> expected) {
  std::optional<SmallVector<int64_t>> inner =
      broadcastShapes(getTensorShape(p), getTensorShape(q));
  return inner && broadcastsTo(getTensorShape(x), *inner, expected);
}

bool mlir::sinter::regroupStaysSmall(Value p, Value q) {
  std::optional<SmallVector<int64_t>> inner =
      broadcastShapes(getTensorShape(p), getTensorShape(q));
  return inner && (ArrayRef<int64_t>(*inner) == getTensorShape(p) ||
                   ArrayRef<int64_t>(*inner) == getTensorShape(q));
}

std::optional<APFloat> mlir::sinter::matchSplatValue(Value value) {
  if (auto fill = value.getDefiningOp<FillOp>())
    return fill.getElementValue();
  return matchSplatConstant(value);
}

//===----------------------------------------------------------------------===//
// Dynamic dims
//===----------------------------------------------------------------------===//

/// The dim of `operand` (broadcast into a result of rank `rank`) aligned
/// with result dim `dim`, if it exists and is dynamic.
static std::optional<int64_t> alignedDynamicDim(Value operand, int64_t dim,
                                                int64_t rank) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t aligned = dim - (rank - type.getRank());
  if (aligned < 0 || !type.isDynamicDim(aligned))
    return std::nullopt;
  return aligned;
}

/// The input dim of a reduction over `dims` that becomes result dim `dim`.
static int64_t reductionInputDim(ArrayRef<int64_t> dims, bool keepdim,
                                 int64_t dim) {
  if (keepdim)
    return dim;
  int64_t inputDim = 0;
  for (int64_t kept = -1;; ++inputDim)
    if (!llvm::is_contained(dims, inputDim) && ++kept == dim)
      return inputDim;
}

/// The operand and its dim that dynamic result dim `dim` of `matmul` has.
static std::optional<std::pair<Value, int64_t>> matmulDimOperand(MatmulOp op,
                                                                 int64_t dim) {
  int64_t rank = op.getType().getRank();
  auto lhs = op.getLhs().getType(), rhs = op.getRhs().getType();
  if (dim == rank - 2)
    return std::pair{op.getLhs(), op.getTransposeA() ? lhs.getRank() - 1
                                                     : lhs.getRank() - 2};
  if (dim == rank - 1)
    return std::pair{op.getRhs(), op.getTransposeB() ? rhs.getRank() - 2
                                                     : rhs.getRank() - 1};
  if (lhs.getRank() == 3 && lhs.isDynamicDim(0))
    return std::pair{op.getLhs(), int64_t(0)};
  if (rhs.getRank() == 3 && rhs.isDynamicDim(0))
    return std::pair{op.getRhs(), int64_t(0)};
  return std::nullopt;
}

/// The only dynamic dim of `type`, if it has exactly one.
static std::optional<int64_t> onlyDynamicDim(RankedTensorType type) {
  if (llvm::count_if(type.getShape(), ShapedType::isDynamic) != 1)
    return std::nullopt;
  return llvm::find_if(type.getShape(), ShapedType::isDynamic) -
         type.getShape().begin();
}

/// The static sizes of `type` multiplied.
static int64_t staticProduct(RankedTensorType type) {
  int64_t product = 1;
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size))
      product *= size;
  return product;
}

std::optional<DimSource> mlir::sinter::traceDynamicDim(Value value,
                                                       int64_t dim) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (!isa<func::FuncOp>(argument.getOwner()->getParentOp()))
      return std::nullopt;
    return DimSource{value, dim};
  }
  Operation *op = value.getDefiningOp();
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  if (auto fill = dyn_cast<FillOp>(op)) {
    int64_t index = llvm::count_if(fill.getType().getShape().take_front(dim),
                                   ShapedType::isDynamic);
    return traceDynamicDim(fill.getSourceOfDynamicDim(index),
                           fill.getDims()[index]);
  }
  if (isElementwiseOp(op)) {
    for (Value operand : op->getOperands())
      if (std::optional<int64_t> aligned =
              alignedDynamicDim(operand, dim, rank))
        if (std::optional<DimSource> source =
                traceDynamicDim(operand, *aligned))
          return source;
    return std::nullopt;
  }
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return traceDynamicDim(transpose.getInput(), transpose.getPerm()[dim]);
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto operand = matmulDimOperand(matmul, dim);
    return operand ? traceDynamicDim(operand->first, operand->second)
                   : std::nullopt;
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // A reshape keeps the dynamic dim when it is the only one on both sides
    // and the static sizes agree.
    std::optional<int64_t> inputDim =
        onlyDynamicDim(reshape.getInput().getType());
    if (!inputDim || staticProduct(reshape.getInput().getType()) !=
                         staticProduct(reshape.getType()))
      return std::nullopt;
    return traceDynamicDim(reshape.getInput(), *inputDim);
  }
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return traceDynamicDim(
        reduction.getInput(),
        reductionInputDim(reduction.getDims(), reduction.getKeepdim(), dim));
  // Softmax and the norms have the shape of their input.
  if (isCompositeOp(op))
    return traceDynamicDim(op->getOperand(0), dim);
  return std::nullopt;
}

Value mlir::sinter::createSplatLike(OpBuilder &builder, Location loc,
                                    Value like, const APFloat &value) {
  auto type = cast<RankedTensorType>(like.getType());
  if (type.hasStaticShape())
    return createSplatConstant(builder, loc, type, value);
  SmallVector<Value> sources;
  SmallVector<int64_t> dims;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    std::optional<DimSource> found = traceDynamicDim(like, dim);
    if (!found)
      return Value();
    sources.push_back(found->source);
    dims.push_back(found->dim);
  }
  // One source lends every dim when all come from the same value.
  if (llvm::all_equal(sources))
    sources.resize(1);
  APFloat converted = value;
  bool losesInfo = false;
  converted.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
  return FillOp::create(builder, loc, type, sources,
                        builder.getF64FloatAttr(converted.convertToDouble()),
                        builder.getDenseI64ArrayAttr(dims));
}
