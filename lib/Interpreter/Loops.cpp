//===- Loops.cpp - Strided loops over host tensors ------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "Loops.h"

using namespace mlir;
using namespace mlir::sinter;

SmallVector<int64_t> interp::getContiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

SmallVector<int64_t>
interp::getBroadcastStrides(ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> resultShape) {
  SmallVector<int64_t> contiguous = getContiguousStrides(shape);
  SmallVector<int64_t> strides(resultShape.size(), 0);
  size_t pad = resultShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      strides[pad + d] = contiguous[d];
  return strides;
}

int64_t interp::getSizeOfDims(ArrayRef<int64_t> shape, size_t begin,
                              size_t end) {
  int64_t size = 1;
  for (size_t d = begin; d < end; ++d)
    size *= shape[d];
  return size;
}
