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
