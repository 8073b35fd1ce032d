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

namespace mlir::sinter {

/// Where `dims` lie in a tensor of shape `shape`, ignoring dims of static
/// size 1 (a `?` counts as larger than 1): trailing when every reduced dim
/// comes after every kept one (also when nothing else is reduced), leading
/// when before, middle when the reduced dims are one run between kept ones,
/// strided otherwise, all when nothing is kept.
ReductionGeometry classifyReduction(ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> dims);

} // namespace mlir::sinter

#include "sinter/Dialect/Sinter/IR/SinterInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterAttrs.h.inc"

#define GET_OP_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterOps.h.inc"

namespace mlir::sinter {

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

/// The mean that `reduction` measures squared deviations from: when
/// `reduction` is a mean or sum of (x - m) * (x - m) over the dims of
/// m = mean(x, keepdim), as sinter-decompose writes var and the norms, a
/// variance that one Welford pass computes with m. Null otherwise.
Operation *getDeviationMean(Operation *reduction);

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
