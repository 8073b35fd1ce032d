//===- ShapeOps.cpp - Sinter constants and shape ops ----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Result types, verifiers and folders of sinter.constant, sinter.fill and
// the index maps. The folders of slice and concat remove what undoes itself:
// a slice of the full range, a slice of a slice, a slice of a concat that
// lies within one of its inputs, a concat of one input.
//
//===----------------------------------------------------------------------===//

#include "InferenceErrors.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult
ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  ElementsAttr value = adaptor.getValue();
  if (!value)
    return emitInferenceError(location, getOperationName(),
                              "requires a 'value' elements attribute");
  inferredReturnTypes.push_back(value.getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

APFloat FillOp::getElementValue() {
  APFloat value = getValueAttr().getValue();
  auto elementType = cast<FloatType>(getType().getElementType());
  bool losesInfo = false;
  value.convert(elementType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value;
}

Value FillOp::getSourceOfDynamicDim(unsigned index) {
  OperandRange sources = getShapeSources();
  return sources.size() == 1 ? sources.front() : sources[index];
}

LogicalResult FillOp::verify() {
  RankedTensorType type = getType();
  ArrayRef<int64_t> dims = getDims();
  int64_t dynamic = llvm::count_if(type.getShape(), ShapedType::isDynamic);
  if (static_cast<int64_t>(dims.size()) != dynamic)
    return emitOpError("names ")
           << dims.size() << " source dims for the " << dynamic
           << " dynamic dims of the result " << formatShape(type.getShape());
  size_t sources = getShapeSources().size();
  if (sources == 0 ||
      (sources != 1 && static_cast<int64_t>(sources) != dynamic))
    return emitOpError("has ")
           << sources << " shape sources; it takes one, or one per dynamic "
           << "dim of the result (" << dynamic << ")";
  for (auto [index, dim] : llvm::enumerate(dims)) {
    auto source =
        cast<RankedTensorType>(getSourceOfDynamicDim(index).getType());
    if (dim < 0 || dim >= source.getRank())
      return emitOpError("dim ") << dim << " is out of range for a source of "
                                 << "rank " << source.getRank();
    if (!source.isDynamicDim(dim))
      return emitOpError("dim ")
             << dim << " of the source has the static size "
             << source.getDimSize(dim)
             << "; write a static size in the result type instead";
  }
  return success();
}

/// fill of a static shape = constant
OpFoldResult FillOp::fold(FoldAdaptor) {
  if (!getType().hasStaticShape())
    return {};
  return DenseElementsAttr::get(getType(), getElementValue());
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult
TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitInferenceError(location, getOperationName(),
                              "input must be a ranked tensor");
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = input.getRank();
  llvm::SmallBitVector seen(rank);
  bool isPermutation = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t index : perm) {
    if (!isPermutation || index < 0 || index >= rank || seen.test(index)) {
      isPermutation = false;
      break;
    }
    seen.set(index);
  }
  if (!isPermutation)
    return emitInferenceError(
        location, getOperationName(), "perm ", formatShape(perm),
        " is not a permutation of the ", rank, " dims of the input");
  SmallVector<int64_t> shape;
  for (int64_t index : perm)
    shape.push_back(input.getDimSize(index));
  inferredReturnTypes.push_back(input.clone(shape));
  return success();
}

/// transpose(x, identity) = x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [position, index] : llvm::enumerate(getPerm()))
    if (static_cast<int64_t>(position) != index)
      return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t>
mlir::sinter::getStaticProductAndDynamicCount(ArrayRef<int64_t> shape) {
  int64_t product = 1, dynamic = 0;
  for (int64_t size : shape) {
    if (ShapedType::isDynamic(size))
      ++dynamic;
    else
      product *= size;
  }
  return {product, dynamic};
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getResult().getType();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError("element types differ: ")
           << inputType.getElementType() << " vs "
           << resultType.getElementType();
  auto [inputCount, inputDynamic] =
      getStaticProductAndDynamicCount(inputType.getShape());
  auto [resultCount, resultDynamic] =
      getStaticProductAndDynamicCount(resultType.getShape());
  if (resultDynamic > 1)
    return emitOpError("result ") << formatShape(resultType.getShape())
                                  << " has more than one dynamic dim";
  if (inputDynamic == 0 && resultDynamic == 0 && inputCount != resultCount)
    return emitOpError("element counts differ: ")
           << formatShape(inputType.getShape()) << " has " << inputCount
           << " elements, " << formatShape(resultType.getShape()) << " has "
           << resultCount;
  if (inputDynamic == 0 && resultDynamic == 1 &&
      (resultCount == 0 || inputCount % resultCount != 0))
    return emitOpError("element count ")
           << inputCount << " of " << formatShape(inputType.getShape())
           << " is not a multiple of the " << resultCount << " elements of "
           << formatShape(resultType.getShape()) << " without its ? dim";
  return success();
}

/// reshape(x : T -> T) = x; reshape(reshape(x)) = reshape(x)
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult
SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  StringRef name = getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitInferenceError(location, name, "input must be a ranked tensor");
  int64_t dim = adaptor.getDim(), start = adaptor.getStart(),
          end = adaptor.getEnd();
  if (dim < 0 || dim >= input.getRank())
    return emitInferenceError(location, name, "dim ", dim,
                              " is out of range for a tensor of rank ",
                              input.getRank());
  int64_t size = input.getDimSize(dim);
  if (ShapedType::isDynamic(size))
    return emitInferenceError(location, name, "dim ", dim,
                              " is dynamic; only static dims are sliced");
  if (start < 0 || start >= end || end > size)
    return emitInferenceError(location, name, "range [", start, ", ", end,
                              ") is not a non-empty range of dim ", dim,
                              " of size ", size);
  SmallVector<int64_t> shape(input.getShape());
  shape[dim] = end - start;
  inferredReturnTypes.push_back(input.clone(shape));
  return success();
}

/// x[full range] = x; x[a:b][c:d] = x[a+c:a+d];
/// concat(..., x_k, ...)[o_k + a : o_k + b] = x_k[a:b]
OpFoldResult SliceOp::fold(FoldAdaptor) {
  Value input = getInput();
  int64_t dim = getDim(), start = getStart(), end = getEnd();
  if (start == 0 &&
      end == cast<RankedTensorType>(input.getType()).getDimSize(dim))
    return input;
  Builder builder(getContext());
  auto rebase = [&](Value newInput, int64_t offset) {
    getInputMutable().assign(newInput);
    setStartAttr(builder.getI64IntegerAttr(start + offset));
    setEndAttr(builder.getI64IntegerAttr(end + offset));
    return getResult();
  };
  if (auto inner = input.getDefiningOp<SliceOp>();
      inner && static_cast<int64_t>(inner.getDim()) == dim)
    return rebase(inner.getInput(), inner.getStart());
  if (auto concat = input.getDefiningOp<ConcatOp>();
      concat && static_cast<int64_t>(concat.getDim()) == dim) {
    for (auto [index, part] : llvm::enumerate(concat.getInputs())) {
      int64_t offset = concat.getOffset(index);
      int64_t size = cast<RankedTensorType>(part.getType()).getDimSize(dim);
      if (start < offset || end > offset + size)
        continue;
      if (part.getType() == getType())
        return part;
      return rebase(part, -offset);
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult
ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitInferenceError(location, name, "needs at least one input");
  auto first = dyn_cast<RankedTensorType>(inputs.front().getType());
  if (!first)
    return emitInferenceError(location, name, "inputs must be ranked tensors");
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= first.getRank())
    return emitInferenceError(location, name, "dim ", dim,
                              " is out of range for tensors of rank ",
                              first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || type.getRank() != first.getRank() ||
        type.getElementType() != first.getElementType())
      return emitInferenceError(location, name, "input ", index, " has type ",
                                input.getType(), ", expected a tensor of rank ",
                                first.getRank(), " of ",
                                first.getElementType());
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (static_cast<int64_t>(d) == dim)
        continue;
      if (size != first.getDimSize(d))
        return emitInferenceError(
            location, name, "input ", index, " ", formatShape(type.getShape()),
            " differs from input 0 ", formatShape(first.getShape()), " in dim ",
            d, "; only dim ", dim, " may differ");
    }
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return emitInferenceError(
          location, name, "dim ", dim, " of input ", index,
          " is dynamic; only static dims are concatenated");
    shape[dim] += size;
  }
  inferredReturnTypes.push_back(first.clone(shape));
  return success();
}

int64_t ConcatOp::getOffset(unsigned index) {
  int64_t offset = 0;
  for (Value input : getInputs().take_front(index))
    offset += cast<RankedTensorType>(input.getType())
                  .getDimSize(static_cast<int64_t>(getDim()));
  return offset;
}

/// concat(x) = x
OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// Symbolic shape rules (SymbolicShapeOpInterface)
//===----------------------------------------------------------------------===//

/// The static shape of `type`.
static SymbolicShape getStaticShape(RankedTensorType type) {
  SymbolicShape shape;
  for (int64_t size : type.getShape())
    shape.push_back(DimExpr::constant(size));
  return shape;
}

SymbolicShape ConstantOp::inferSymbolicShape(ArrayRef<SymbolicShape>,
                                             ShapeConstraints &) {
  return getStaticShape(getType());
}

SymbolicShape FillOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                                         ShapeConstraints &) {
  SymbolicShape shape;
  unsigned index = 0;
  for (int64_t size : getType().getShape()) {
    if (!ShapedType::isDynamic(size)) {
      shape.push_back(DimExpr::constant(size));
      continue;
    }
    // One source lends every dim, or each `?` has its own source.
    const SymbolicShape &source =
        operandShapes[operandShapes.size() == 1 ? 0 : index];
    shape.push_back(source[getDims()[index]]);
    ++index;
  }
  return shape;
}

SymbolicShape
TransposeOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                                ShapeConstraints &) {
  SymbolicShape shape;
  for (int64_t dim : getPerm())
    shape.push_back(operandShapes.front()[dim]);
  return shape;
}

/// The result's `?` is the element count over the product of its static
/// dims, which must divide it.
SymbolicShape
ReshapeOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                              ShapeConstraints &constraints) {
  DimExpr count = getNumElements(operandShapes.front());
  ArrayRef<int64_t> sizes = getType().getShape();
  DimExpr known;
  for (int64_t size : sizes)
    if (!ShapedType::isDynamic(size))
      known = known * DimExpr::constant(size);
  DimExpr quotient = count / known;
  if (llvm::none_of(sizes, ShapedType::isDynamic))
    constraints.requireEqual(count, known, "element count");
  else if (quotient.isExpressible() && !quotient.getConstant() &&
           quotient.hasFraction())
    constraints.requireMultiple(count, known, "element count");
  SymbolicShape shape;
  for (int64_t size : sizes)
    shape.push_back(ShapedType::isDynamic(size) ? quotient
                                                : DimExpr::constant(size));
  return shape;
}

SymbolicShape SliceOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                                          ShapeConstraints &) {
  SymbolicShape shape = operandShapes.front();
  shape[getDim()] = DimExpr::constant(getEnd() - getStart());
  return shape;
}

/// Every dim but the joined one is the first input's, which the others
/// must equal.
SymbolicShape
ConcatOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                             ShapeConstraints &constraints) {
  int64_t dim = getDim();
  SymbolicShape shape = operandShapes.front();
  for (const SymbolicShape &input : operandShapes.drop_front())
    for (auto [index, size] : llvm::enumerate(input))
      if (static_cast<int64_t>(index) != dim)
        constraints.requireEqual(size, shape[index],
                                 "dims of concatenated inputs");
  shape[dim] = DimExpr::constant(getType().getDimSize(dim));
  return shape;
}
