//===- SinterOps.h - Sinter dialect operations ------------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTEROPS_H
#define SINTER_DIALECT_SINTER_IR_SINTEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterEnums.h.inc"
#include "sinter/Dialect/Sinter/IR/SymbolicShape.h"

namespace mlir::sinter {

/// Where `dims` lie in a tensor of shape `shape`, ignoring dims of static
/// size 1 (a `?` counts as larger than 1): trailing when every reduced dim
/// comes after every kept one (also when nothing else is reduced), leading
/// when before, middle when the reduced dims are one run between kept ones,
/// strided otherwise, all when nothing is kept.
ReductionGeometry classifyReduction(ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> dims);

/// Whether `strategy` splits each reduction over many blocks: per-slice
/// partials, an ordered fold, then an apply step (split_reduction, and
/// split_welford and split_online_softmax, which pair statistics).
inline bool isSplitStrategy(KernelStrategy strategy) {
  return strategy == KernelStrategy::split_reduction ||
         strategy == KernelStrategy::split_welford ||
         strategy == KernelStrategy::split_online_softmax;
}

} // namespace mlir::sinter

/// The op classes of SinterInterfaces.td (Sinter_ElementwiseUnary, ...):
/// marker traits that passes and code generators ask instead of listing ops,
/// in MLIR's convention for a dialect's traits (OpTrait::tosa, ...).
namespace mlir::OpTrait::sinter {

/// An elementwise op of one operand whose result has its type.
template <typename ConcreteType>
class ElementwiseUnary
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ElementwiseUnary> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::OpTrait::impl::verifyNOperands(op, 1);
  }
  /// The shape rule (SymbolicShapeOpInterface): the operand's shape.
  ::mlir::sinter::SymbolicShape
  inferSymbolicShape(ArrayRef<::mlir::sinter::SymbolicShape> operandShapes,
                     ::mlir::sinter::ShapeConstraints &) {
    return operandShapes.front();
  }
};

/// An elementwise op of two operands that broadcast against each other.
template <typename ConcreteType>
class BroadcastingBinary
    : public ::mlir::OpTrait::TraitBase<ConcreteType, BroadcastingBinary> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::OpTrait::impl::verifyNOperands(op, 2);
  }
  /// The shape rule (SymbolicShapeOpInterface): the operands broadcast.
  ::mlir::sinter::SymbolicShape
  inferSymbolicShape(ArrayRef<::mlir::sinter::SymbolicShape> operandShapes,
                     ::mlir::sinter::ShapeConstraints &constraints) {
    return ::mlir::sinter::broadcastSymbolicShapes(
        operandShapes[0], operandShapes[1], constraints);
  }
};

/// An elementwise op whose every element chains three or more special
/// functions (Sinter_SpecialFunctionChain).
template <typename ConcreteType>
class SpecialFunctionChain
    : public ::mlir::OpTrait::TraitBase<ConcreteType, SpecialFunctionChain> {};

/// An elementwise op of three operands that broadcast against each other
/// (select).
template <typename ConcreteType>
class BroadcastingTernary
    : public ::mlir::OpTrait::TraitBase<ConcreteType, BroadcastingTernary> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::OpTrait::impl::verifyNOperands(op, 3);
  }
  /// The shape rule (SymbolicShapeOpInterface): the last two operands
  /// broadcast, then the first against them.
  ::mlir::sinter::SymbolicShape
  inferSymbolicShape(ArrayRef<::mlir::sinter::SymbolicShape> operandShapes,
                     ::mlir::sinter::ShapeConstraints &constraints) {
    ::mlir::sinter::SymbolicShape values =
        ::mlir::sinter::broadcastSymbolicShapes(operandShapes[1],
                                                operandShapes[2], constraints);
    return ::mlir::sinter::broadcastSymbolicShapes(operandShapes[0], values,
                                                   constraints);
  }
};

/// An op that moves no data inside a kernel, only indexes its operands.
template <typename ConcreteType>
class IndexMap : public ::mlir::OpTrait::TraitBase<ConcreteType, IndexMap> {};

/// An op that sinter-decompose rewrites into simpler ones.
template <typename ConcreteType>
class Composite : public ::mlir::OpTrait::TraitBase<ConcreteType, Composite> {
public:
  /// The shape rule (SymbolicShapeOpInterface): the normalized input's
  /// shape.
  ::mlir::sinter::SymbolicShape
  inferSymbolicShape(ArrayRef<::mlir::sinter::SymbolicShape> operandShapes,
                     ::mlir::sinter::ShapeConstraints &) {
    return operandShapes.front();
  }
};

/// An op whose floating-point result IEEE 754 defines exactly.
template <typename ConcreteType>
class CorrectlyRounded
    : public ::mlir::OpTrait::TraitBase<ConcreteType, CorrectlyRounded> {};

} // namespace mlir::OpTrait::sinter

namespace mlir::sinter {

/// What the passes and code generators need to know of a reduction
/// combiner: one row of the combiner table per ReductionCombiner.
struct CombinerInfo {
  /// The functor in the runtime's sinter::dev namespace (rt_device.cuh)
  /// that combines two partial results, or "" when sinter-decompose rewrites
  /// the reduction into others first (logsumexp, var).
  StringRef deviceFunctor;
  /// True when the result is an i64 index (argmax, argmin).
  bool isIndex;
  /// True when the combined value is divided by the element count (mean).
  bool dividesByCount;
  /// True when the same reduction of its partial results, each over an
  /// equal part of the reduced elements, gives the whole result (sum, mean,
  /// max, min, prod; argmax's partials would lose their indices).
  bool reducesPartials;
  /// True when the result is one of the reduced elements, whatever the
  /// order (max, min, argmax, argmin): partial results round nothing.
  bool exactInAnyOrder;

  /// True when sinter-decompose rewrites the reduction into others.
  bool isDecomposed() const { return deviceFunctor.empty(); }
};

/// The row of the combiner table for `combiner`.
const CombinerInfo &getCombinerInfo(ReductionCombiner combiner);

} // namespace mlir::sinter

#include "sinter/Dialect/Sinter/IR/SinterInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterAttrs.h.inc"

#define GET_OP_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterOps.h.inc"

namespace mlir::sinter {

/// True for the elementwise unary ops (Sinter_ElementwiseUnary).
inline bool isElementwiseUnary(Operation *op) {
  return op->hasTrait<OpTrait::sinter::ElementwiseUnary>();
}

/// True for the broadcasting elementwise binary ops
/// (Sinter_BroadcastingBinary).
inline bool isElementwiseBinary(Operation *op) {
  return op->hasTrait<OpTrait::sinter::BroadcastingBinary>();
}

/// True for the broadcasting elementwise ternary ops
/// (Sinter_BroadcastingTernary: select).
inline bool isElementwiseTernary(Operation *op) {
  return op->hasTrait<OpTrait::sinter::BroadcastingTernary>();
}

/// True for every elementwise op: one computed from one element of each
/// operand.
inline bool isElementwiseOp(Operation *op) {
  return isElementwiseUnary(op) || isElementwiseBinary(op) ||
         isElementwiseTernary(op);
}

/// True for the ops that move no data inside a kernel, only index their
/// operands (Sinter_IndexMap: reshape, transpose, slice, concat).
inline bool isShapeOp(Operation *op) {
  return op->hasTrait<OpTrait::sinter::IndexMap>();
}

/// True for the ops that sinter-decompose rewrites (Sinter_Composite).
inline bool isCompositeOp(Operation *op) {
  return op->hasTrait<OpTrait::sinter::Composite>();
}

/// Formats a shape as `[4, ?, 8]`.
std::string formatShape(ArrayRef<int64_t> shape);

/// Computes the NumPy broadcast of two shapes, `?` for dimensions only known
/// at run time. Returns std::nullopt when two static sizes other than 1
/// differ; `mismatchDim` then receives the index (in the result) of the
/// first dimension that does not broadcast.
std::optional<SmallVector<int64_t>>
broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                int64_t *mismatchDim = nullptr);

/// The broadcasting rule at run time, which the interpreter and generated
/// code both follow: sizes broadcast as in NumPy, except that only a dim
/// whose type says 1 stretches. A symbolic dim (`?`) never stretches, even
/// when it is 1 at run time (B = 1): it must equal the size it meets.
/// `lhsType` and `rhsType` are the operands' static shapes, `lhs` and `rhs`
/// their sizes at run time. Returns std::nullopt when they do not broadcast;
/// `mismatchDim` then receives the index (in the result) of the first
/// dimension that does not.
std::optional<SmallVector<int64_t>>
broadcastRunTimeShapes(ArrayRef<int64_t> lhsType, ArrayRef<int64_t> lhs,
                       ArrayRef<int64_t> rhsType, ArrayRef<int64_t> rhs,
                       int64_t *mismatchDim = nullptr);

/// Returns the product of the static sizes of `shape` and the number of its
/// dynamic ones.
std::pair<int64_t, int64_t>
getStaticProductAndDynamicCount(ArrayRef<int64_t> shape);

/// Returns the shape that remains after reducing `shape` over `dims`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> dims, bool keepdim);

/// Returns the float value of every element if `attr` is a splat of a
/// floating-point elements attribute.
std::optional<APFloat> getSplatFloat(Attribute attr);

/// Whether `lhs predicate rhs` holds (false with NaN, except `ne`).
bool evaluateComparison(ComparePredicate predicate, const APFloat &lhs,
                        const APFloat &rhs);

/// The result type of an elementwise op whose operands of types `lhsType`
/// and `rhsType` broadcast as in NumPy; reports at `loc`, naming `opName`,
/// when they do not.
LogicalResult
inferBroadcastResultType(std::optional<Location> loc, StringRef opName,
                         Type lhsType, Type rhsType,
                         SmallVectorImpl<Type> &inferredReturnTypes);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_SINTEROPS_H
