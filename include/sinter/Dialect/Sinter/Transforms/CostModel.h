//===- CostModel.h - Sizes and work of sinter ops ---------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What kernel formation and the fusion-plan report need to know about ops
// beyond their class (which the dialect's traits and interfaces tell):
// estimates of the
// bytes a value occupies in HBM and the FLOPs an op performs, with every
// symbolic dim at its sinter.dims default.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_COSTMODEL_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_COSTMODEL_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::sinter {

/// Estimates of one function, with every symbolic dim at its default.
class CostModel {
public:
  /// What a `?` dim counts as when no sinter.dim_names entry names it: the
  /// largest sinter.dims default, or this when the module declares none.
  static constexpr int64_t kUnknownDimEstimate = 1024;

  /// Sizes the values of `func`, nested kernels included, by their
  /// symbolic shapes (SymbolicShapeAnalysis).
  explicit CostModel(func::FuncOp func);

  /// The shape of `value` with every `?` replaced by its estimate.
  ArrayRef<int64_t> getShape(Value value) const;

  /// The number of elements of `value`.
  int64_t getNumElements(Value value) const;

  /// The bytes `value` occupies in HBM.
  int64_t getBytes(Value value) const;

  /// The FLOPs of `op`: 2 * batch * M * N * K for a matmul, one per input
  /// element for a reduction, one per result element for an elementwise op
  /// (transcendental functions included), none for shape ops and constants;
  /// a kernel counts the ops of its body.
  int64_t getFlops(Operation *op) const;

  /// The assumption behind the estimates, e.g. "B = 1024, T = 77".
  std::string describeDims() const;

  /// The dim names of `argument` from its sinter.dim_names, each unnamed
  /// `?` named apart ("?<argument>.<dim>").
  static SmallVector<std::string> getArgumentDimNames(func::FuncOp func,
                                                      BlockArgument argument);

private:
  /// `shape` with every dim name at its default (unknownDim when it has
  /// none) and every unknown size at unknownDim.
  SmallVector<int64_t> evaluate(ArrayRef<DimExpr> shape) const;

  SmallVector<std::pair<std::string, int64_t>> dims;
  int64_t unknownDim = kUnknownDimEstimate;
  llvm::DenseMap<Value, SmallVector<int64_t>> shapes;
};

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_COSTMODEL_H
