//===- OpClasses.h - How the CUDA emitter groups sinter ops -----*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The emitter sees decomposed IR: elementwise ops, reductions, matmul and
// the shape ops. The dialect's traits sort ops into those classes
// (isElementwiseUnary, ...); ReductionInfo is a reduction the emitter
// generates, read through ReductionOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_OPCLASSES_H
#define SINTER_LIB_TARGET_CUDA_OPCLASSES_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <optional>

namespace mlir::sinter::cuda {

/// A reduction op seen through one interface.
struct ReductionInfo {
  ReductionCombiner kind;
  Operation *op;
  Value input;
  Value result;
  ArrayRef<int64_t> dims;
  bool keepdim;

  /// True for argmax and argmin, whose result is an i64 index.
  bool isArg() const { return getCombinerInfo(kind).isIndex; }
};

/// Returns the reduction `op` is, or std::nullopt if it is none the emitter
/// generates (the combiner has no device functor: sinter-decompose rewrites
/// it first).
std::optional<ReductionInfo> getReductionInfo(Operation *op);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_OPCLASSES_H
