//===- SliceOps.cpp - sinter.slice and sinter.concat ----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A slice keeps a contiguous range of one static dim; a concat joins tensors
// along one static dim. Their folders remove what undoes itself: a slice of
// the full range, a slice of a slice, a slice of a concat that lies within
// one of its inputs, a concat of one input.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::sinter;

/// Emits `'<op>' op <message>` at `loc` and fails.
template <typename... Args>
static LogicalResult emitShapeError(std::optional<Location> loc,
                                    StringRef opName, Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
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
    return emitShapeError(location, name, "input must be a ranked tensor");
  int64_t dim = adaptor.getDim(), start = adaptor.getStart(),
          end = adaptor.getEnd();
  if (dim < 0 || dim >= input.getRank())
    return emitShapeError(location, name, "dim ", dim,
                          " is out of range for a tensor of rank ",
                          input.getRank());
  int64_t size = input.getDimSize(dim);
  if (ShapedType::isDynamic(size))
    return emitShapeError(location, name, "dim ", dim,
                          " is dynamic; only static dims are sliced");
  if (start < 0 || start >= end || end > size)
    return emitShapeError(location, name, "range [", start, ", ", end,
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
    return emitShapeError(location, name, "needs at least one input");
  auto first = dyn_cast<RankedTensorType>(inputs.front().getType());
  if (!first)
    return emitShapeError(location, name, "inputs must be ranked tensors");
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= first.getRank())
    return emitShapeError(location, name, "dim ", dim,
                          " is out of range for tensors of rank ",
                          first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || type.getRank() != first.getRank() ||
        type.getElementType() != first.getElementType())
      return emitShapeError(location, name, "input ", index, " has type ",
                            input.getType(), ", expected a tensor of rank ",
                            first.getRank(), " of ", first.getElementType());
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (static_cast<int64_t>(d) == dim)
        continue;
      if (size != first.getDimSize(d))
        return emitShapeError(
            location, name, "input ", index, " ", formatShape(type.getShape()),
            " differs from input 0 ", formatShape(first.getShape()), " in dim ",
            d, "; only dim ", dim, " may differ");
    }
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return emitShapeError(location, name, "dim ", dim, " of input ", index,
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
