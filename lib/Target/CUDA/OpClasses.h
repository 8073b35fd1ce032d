//===- OpClasses.h - How the CUDA emitter groups sinter ops -----*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The emitter sees decomposed IR: elementwise ops, reductions, matmul and
// the shape ops. These predicates sort ops into those classes, and
// ReductionInfo gives the reductions one interface.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_OPCLASSES_H
#define SINTER_LIB_TARGET_CUDA_OPCLASSES_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <optional>

namespace mlir::sinter::cuda {

/// True for the elementwise unary ops (neg ... clamp).
bool isElementwiseUnary(Operation *op);

/// True for the elementwise binary ops with broadcasting (add ... pow,
/// compare).
bool isElementwiseBinary(Operation *op);

/// True for the ops a kernel computes from one element of each operand:
/// the unary and binary ones and select.
bool isElementwise(Operation *op);

/// The reductions the emitter generates (the others are decomposed first).
enum class ReductionKind { Sum, Mean, Max, Min, Prod, Argmax, Argmin };

/// Returns "sum", "mean", ...
StringRef stringifyReductionKind(ReductionKind kind);

/// A reduction op seen through one interface.
struct ReductionInfo {
  ReductionKind kind;
  Operation *op;
  Value input;
  Value result;
  ArrayRef<int64_t> dims;
  bool keepdim;

  /// True for argmax and argmin, whose result is an i64 index.
  bool isArg() const {
    return kind == ReductionKind::Argmax || kind == ReductionKind::Argmin;
  }
};

/// Returns the reduction `op` is, or std::nullopt if it is none the emitter
/// generates.
std::optional<ReductionInfo> getReductionInfo(Operation *op);

/// True for the shape ops that move no data inside a kernel: index maps
/// (reshape, transpose, slice, concat).
inline bool isShapeOp(Operation *op) {
  return isa<ReshapeOp, TransposeOp, SliceOp, ConcatOp>(op);
}

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_OPCLASSES_H
