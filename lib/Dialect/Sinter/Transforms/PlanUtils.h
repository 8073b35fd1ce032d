//===- PlanUtils.h - What the plans of sinter-plan-kernels share -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Shape helpers of sinter-plan-kernels (PlanKernels.cpp) and its plans of
// split reductions (PlanSplitReductions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <optional>

namespace mlir::sinter {

/// Threads per block of pointwise and split-reduction kernels.
inline constexpr int64_t kBlockThreads = 256;

/// The product of `shape`, or std::nullopt when a dim is dynamic.
inline std::optional<int64_t> getStaticCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    count *= size;
  }
  return count;
}

/// The shape of a tensor value.
inline ArrayRef<int64_t> getShape(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// The reductions of `body`: reduction ops and matrix-vector products (a
/// dot product per output element), in program order.
inline SmallVector<Operation *> getReductions(Block &body) {
  SmallVector<Operation *> reductions;
  for (Operation &op : body)
    if (isa<ReductionOpInterface, MatmulOp>(op))
      reductions.push_back(&op);
  return reductions;
}

/// The plan of a split reduction (column_reduction kind, or a row_reduction
/// of few long rows).
KernelPlanAttr planSplitReduction(KernelOp kernel);

} // namespace mlir::sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_PLANUTILS_H
