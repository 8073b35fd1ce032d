//===- SymbolicShapeAnalysis.h - Symbolic shapes of values ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one analysis of symbolic shapes: it gives every tensor value its shape
// over the model's dim names by each op's rule (SymbolicShapeOpInterface),
// refined by the result types, and collects the constraints the rules rely
// on. The frontend names the dims of the values it creates from it, the cost
// model sizes values with it, and the CUDA emitter sizes loops and buffers
// and writes run-time checks from it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_ANALYSIS_SYMBOLICSHAPEANALYSIS_H
#define SINTER_DIALECT_SINTER_ANALYSIS_SYMBOLICSHAPEANALYSIS_H

#include "sinter/Dialect/Sinter/IR/SymbolicShape.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::sinter {

class KernelOp;

/// Returns the shape of a value of type `type` whose dynamic dims are named
/// by `dimNames` (a symbol each; "" or a missing name is an unknown size).
SymbolicShape getNamedShape(RankedTensorType type,
                            ArrayRef<std::string> dimNames);

/// Returns the name of each dim of `shape` that is a dynamic dim of `type`
/// and one dim name, "" for every other dim.
SmallVector<std::string> getDimNamesOfShape(RankedTensorType type,
                                            ArrayRef<DimExpr> shape);

/// The symbolic shapes of the tensor values of a function, seeded by its
/// arguments' shapes and propagated op by op.
class SymbolicShapeAnalysis {
public:
  /// Called after the shapes of `op`'s results are known, with the
  /// constraints of its rule and of the refinement by its result types;
  /// a failure stops the walk.
  using VisitFn = function_ref<LogicalResult(
      Operation *op, ArrayRef<ShapeConstraint> constraints)>;

  /// Sets the shape of `value` (an argument, or a value whose shape its
  /// creator knows better than the rule).
  void setShape(Value value, SymbolicShape shape);

  /// Returns the shape of `value`: the one set or inferred, else the shape
  /// of its type with every `?` unknown.
  SymbolicShape getShape(Value value) const;

  /// Returns the shape set or inferred for `value`, or null.
  const SymbolicShape *lookup(Value value) const;

  /// Gives the results of `op` their shapes: by its SymbolicShapeOpInterface
  /// rule, a sinter.kernel by its body (each op of which is visited and
  /// reported first), any other op by its result types. Each static dim of a
  /// result is its size, constrained equal to the rule's expression when
  /// that is another. Then calls `onVisit`, if any, with the constraints.
  LogicalResult visit(Operation *op, VisitFn onVisit = nullptr);

  /// Visits the ops of `block` in order (its terminator excluded when it is
  /// a sinter.yield), stopping at the first failure.
  LogicalResult visitBlock(Block &block, VisitFn onVisit = nullptr);

private:
  /// Visits the body of `kernel`, its arguments shaped as its operands, and
  /// returns the shapes it yields.
  FailureOr<SmallVector<SymbolicShape, 1>> visitKernel(KernelOp kernel,
                                                       VisitFn onVisit);
  /// Sets the shape of `result` to `shape` with the static dims of its type.
  LogicalResult refineByType(OpResult result, SymbolicShape shape,
                             ShapeConstraints &constraints);

  llvm::DenseMap<Value, SymbolicShape> shapes;
};

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_ANALYSIS_SYMBOLICSHAPEANALYSIS_H
