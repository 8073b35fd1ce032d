//===- Shapes.h - Symbolic tensor shapes for the CUDA emitter ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generated code sizes its loops and buffers with C expressions over the
// model's symbolic dims (`B * 4096`): the DimExprs that the dialect's
// SymbolicShapeAnalysis gives every tensor value, from the dim names of the
// arguments and each op's shape rule. ShapeAnalysis runs it on the IR the
// emitter accepts, refuses sizes without a C expression, and turns the
// rules' constraints into the checks the host code makes before launching
// anything (two symbolic dims that broadcast must be equal, a reshape must
// divide evenly, a tensor's size in bytes must fit in 64 bits).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_SHAPES_H
#define SINTER_LIB_TARGET_CUDA_SHAPES_H

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::sinter::cuda {

/// A shape: one DimExpr per dimension.
using Shape = SymbolicShape;

/// A condition that generated host code checks before launching anything:
/// `value` must lie in [`min`, `max`] (C expressions over dims); `what`
/// explains it in the error message.
struct RuntimeCheck {
  std::string value;
  std::string min;
  std::string max;
  std::string what;
};

/// The symbolic shapes of every tensor value of one function (kernel
/// regions included).
class ShapeAnalysis {
public:
  /// Analyzes `func`, whose arguments have the shapes `argumentShapes`.
  /// Emits an error at the op and fails on ops the CUDA emitter does not
  /// know, and on shapes it cannot express.
  LogicalResult run(func::FuncOp func, ArrayRef<Shape> argumentShapes);

  /// The shape of `value`; `value` must belong to the analyzed function.
  const Shape &getShape(Value value) const;

  /// Returns true if the emitter generates code for `op` (decomposed,
  /// fused IR: no composite op, no reduction sinter-decompose rewrites).
  static bool isGenerated(Operation *op);

  /// The run-time checks the analysis found, in program order.
  ArrayRef<RuntimeCheck> getChecks() const { return checks; }

private:
  /// Refuses `op` when the emitter does not generate it or a size of its
  /// results has no C expression; records its checks otherwise.
  LogicalResult check(Operation *op, ArrayRef<ShapeConstraint> constraints);
  /// Records the run-time check of `constraint`, a constraint of `op`.
  void addCheck(Operation *op, const ShapeConstraint &constraint);
  /// Records the checks that keep the size in bytes of a tensor of `shape`,
  /// `what`, within int64 when its dims may each be SINTER_RT_MAX_DIM: at
  /// most 2^60 elements (8 bytes each at most).
  void requireSizeFits(const Shape &shape, StringRef what);

  SymbolicShapeAnalysis analysis;
  SmallVector<RuntimeCheck> checks;
  /// The element counts requireSizeFits has checked.
  llvm::StringSet<> checkedSizes;
};

/// Returns the shape of a function argument of type `type` whose dims are
/// named by `dimNames` ("" for a static dim); fails with an error at `op`
/// when a dynamic dim has no name.
FailureOr<Shape> getArgumentShape(Operation *op, RankedTensorType type,
                                  ArrayRef<std::string> dimNames,
                                  StringRef what);

/// Returns a short source location for comments and messages,
/// "model.sinter:12" (no column), or "" when `loc` has no file.
std::string formatLocation(Location loc);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_SHAPES_H
