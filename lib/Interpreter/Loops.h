//===- Loops.h - Strided loops over host tensors ----------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The index arithmetic shared by the interpreter's kernels: row-major
// strides, broadcast strides, and a walk over an index space that calls its
// body once per innermost row with every operand's offset and inner stride
// precomputed, so that the per-element work is a tight loop.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_INTERPRETER_LOOPS_H
#define SINTER_LIB_INTERPRETER_LOOPS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>

namespace mlir::sinter::interp {

/// Row-major strides of a contiguous tensor of `shape`.
SmallVector<int64_t> getContiguousStrides(ArrayRef<int64_t> shape);

/// Strides with which a contiguous tensor of `shape` is read when broadcast
/// (NumPy rules) to `resultShape`: 0 on stretched and missing dims.
SmallVector<int64_t> getBroadcastStrides(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> resultShape);

/// Product of `shape[begin, end)`.
int64_t getSizeOfDims(ArrayRef<int64_t> shape, size_t begin, size_t end);

/// Calls `body(offsets, count, innerStrides)` once per innermost row of the
/// index space `shape`, where operand `k` of the `N` operands reads element
/// `offsets[k] + j * innerStrides[k]` for `j` in [0, count). Dims of size 1
/// are dropped and adjacent dims that are contiguous for every operand are
/// merged first, so rows are as long as the layouts allow. Nothing is called
/// for an empty space; a rank-0 space is one row of one element.
template <size_t N, typename Body>
void forEachRow(ArrayRef<int64_t> shape,
                const std::array<ArrayRef<int64_t>, N> &strides, Body &&body) {
  SmallVector<int64_t, 6> dims;
  std::array<SmallVector<int64_t, 6>, N> dimStrides;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      return;
    if (shape[d] == 1)
      continue;
    bool mergeable = !dims.empty();
    for (size_t k = 0; k < N && mergeable; ++k)
      mergeable = dimStrides[k].back() == strides[k][d] * shape[d];
    if (mergeable) {
      dims.back() *= shape[d];
      for (size_t k = 0; k < N; ++k)
        dimStrides[k].back() = strides[k][d];
      continue;
    }
    dims.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k)
      dimStrides[k].push_back(strides[k][d]);
  }

  std::array<int64_t, N> offsets{}, innerStrides{};
  if (dims.empty()) {
    body(offsets, int64_t(1), innerStrides);
    return;
  }
  int64_t outerRank = static_cast<int64_t>(dims.size()) - 1;
  int64_t count = dims.back();
  for (size_t k = 0; k < N; ++k)
    innerStrides[k] = dimStrides[k].back();
  SmallVector<int64_t, 6> index(outerRank, 0);
  while (true) {
    body(offsets, count, innerStrides);
    int64_t d = outerRank - 1;
    for (; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < N; ++k)
        offsets[k] += dimStrides[k][d];
      if (index[d] < dims[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= dimStrides[k][d] * dims[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

} // namespace mlir::sinter::interp

#endif // SINTER_LIB_INTERPRETER_LOOPS_H
