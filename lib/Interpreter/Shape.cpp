//===- Shape.cpp - Shape ops and constants of the interpreter -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "Loops.h"
#include "OpEvaluators.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

FailureOr<HostTensor> interp::evaluateTranspose(TransposeOp op,
                                                const HostTensor &input) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inputStrides = getContiguousStrides(input.shape);
  SmallVector<int64_t> shape, readStrides;
  for (int64_t index : perm) {
    shape.push_back(input.shape[index]);
    readStrides.push_back(inputStrides[index]);
  }
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  SmallVector<int64_t> writeStrides = getContiguousStrides(shape);
  const double *in = input.data.data();
  double *out = result->data.data();
  forEachRow<2>(shape, {writeStrides, readStrides},
                [&](const std::array<int64_t, 2> &offsets, int64_t count,
                    const std::array<int64_t, 2> &strides) {
                  for (int64_t j = 0; j < count; ++j)
                    out[offsets[0] + j * strides[0]] =
                        in[offsets[1] + j * strides[1]];
                });
  return result;
}

FailureOr<HostTensor> interp::evaluateReshape(ReshapeOp op,
                                              const HostTensor &input) {
  SmallVector<int64_t> shape(op.getType().getShape());
  int64_t count = input.numElements();
  int64_t staticCount = 1;
  int64_t *dynamicDim = nullptr;
  for (int64_t &dim : shape) {
    if (ShapedType::isDynamic(dim))
      dynamicDim = &dim;
    else
      staticCount *= dim;
  }
  if (dynamicDim) {
    if (staticCount == 0 || count % staticCount != 0)
      return op.emitOpError("cannot reshape ")
             << formatShape(input.shape) << " (" << count << " elements) to "
             << op.getType() << ": the count is not a multiple of "
             << staticCount;
    *dynamicDim = count / staticCount;
  } else if (staticCount != count) {
    return op.emitOpError("cannot reshape ")
           << formatShape(input.shape) << " (" << count << " elements) to "
           << op.getType();
  }
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  result->data = input.data;
  return result;
}

FailureOr<HostTensor> interp::evaluateConstant(ConstantOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!type.hasStaticShape())
    return op.emitOpError("has a dynamic shape: ") << type;
  auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError("is not a dense floating-point constant, which is "
                          "all the interpreter evaluates");
  FailureOr<HostTensor> result = allocateResult(op, type.getShape());
  if (failed(result))
    return failure();
  if (dense.isSplat()) {
    std::fill(result->data.begin(), result->data.end(),
              dense.getSplatValue<APFloat>().convertToDouble());
    return result;
  }
  llvm::transform(dense.getValues<APFloat>(), result->data.begin(),
                  [](const APFloat &value) { return value.convertToDouble(); });
  return result;
}

FailureOr<HostTensor> interp::evaluateFill(FillOp op, ValueLookup lookup) {
  SmallVector<int64_t> shape(op.getType().getShape());
  unsigned index = 0;
  for (int64_t &size : shape)
    if (ShapedType::isDynamic(size)) {
      size =
          lookup(op.getSourceOfDynamicDim(index))->shape[op.getDims()[index]];
      ++index;
    }
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  std::fill(result->data.begin(), result->data.end(),
            op.getElementValue().convertToDouble());
  return result;
}

/// Copies `input` into `result` at offset `offset` along `dim`, or copies the
/// part of `input` at that offset into all of `result` when `intoResult` is
/// false: the one loop of slice and concat.
static void copyAlongDim(const HostTensor &input, HostTensor &result,
                         int64_t dim, int64_t offset, bool intoResult) {
  const HostTensor &whole = intoResult ? result : input;
  const HostTensor &part = intoResult ? input : result;
  SmallVector<int64_t> wholeStrides = getContiguousStrides(whole.shape);
  SmallVector<int64_t> partStrides = getContiguousStrides(part.shape);
  int64_t base = offset * wholeStrides[dim];
  const double *in = input.data.data();
  double *out = result.data.data();
  // Iterate over the part; the whole is read or written at `base`.
  std::array<ArrayRef<int64_t>, 2> strides =
      intoResult ? std::array<ArrayRef<int64_t>, 2>{wholeStrides, partStrides}
                 : std::array<ArrayRef<int64_t>, 2>{partStrides, wholeStrides};
  int64_t outBase = intoResult ? base : 0, inBase = intoResult ? 0 : base;
  forEachRow<2>(part.shape, strides,
                [&](const std::array<int64_t, 2> &offsets, int64_t count,
                    const std::array<int64_t, 2> &inner) {
                  for (int64_t j = 0; j < count; ++j)
                    out[outBase + offsets[0] + j * inner[0]] =
                        in[inBase + offsets[1] + j * inner[1]];
                });
}

FailureOr<HostTensor> interp::evaluateSlice(SliceOp op,
                                            const HostTensor &input) {
  SmallVector<int64_t> shape(input.shape);
  int64_t dim = op.getDim(), end = op.getEnd();
  if (shape[dim] < end)
    return op.emitOpError("cannot slice [")
           << op.getStart() << ", " << op.getEnd() << ") of dim " << dim
           << " of " << formatShape(input.shape);
  shape[dim] = op.getEnd() - op.getStart();
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  copyAlongDim(input, *result, dim, op.getStart(), /*intoResult=*/false);
  return result;
}

FailureOr<HostTensor> interp::evaluateConcat(ConcatOp op, ValueLookup lookup) {
  int64_t dim = op.getDim();
  const HostTensor &first = *lookup(op.getInputs().front());
  SmallVector<int64_t> shape(first.shape);
  shape[dim] = 0;
  for (Value value : op.getInputs()) {
    const HostTensor &input = *lookup(value);
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int64_t>(d) != dim && input.shape[d] != first.shape[d])
        return op.emitOpError("inputs differ at run time: ")
               << formatShape(first.shape) << " vs " << formatShape(input.shape)
               << " in dim " << d;
    shape[dim] += input.shape[dim];
  }
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  int64_t offset = 0;
  for (Value value : op.getInputs()) {
    const HostTensor &input = *lookup(value);
    copyAlongDim(input, *result, dim, offset, /*intoResult=*/true);
    offset += input.shape[dim];
  }
  return result;
}
