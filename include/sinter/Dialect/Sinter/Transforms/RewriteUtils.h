//===- RewriteUtils.h - Helpers shared by the Sinter rewrites ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Small builders and queries that the patterns of sinter-decompose and
// sinter-simplify share: scalar constants, reshapes, splat matching and the
// param-only test.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEUTILS_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace mlir::sinter {

/// Returns the element type of a value of ranked tensor type.
Type getElementType(Value value);

/// Creates a rank-0 `sinter.constant` of `elementType` holding `value`,
/// rounded to the nearest value of that type.
Value createScalarConstant(OpBuilder &builder, Location loc, Type elementType,
                           double value);

/// Creates a `sinter.constant` of the statically shaped `type` whose every
/// element is `value`, converted to the element type.
Value createSplatConstant(OpBuilder &builder, Location loc,
                          RankedTensorType type, const APFloat &value);

/// Creates a splat `sinter.constant` of `value` with the (static) type of
/// `like`.
Value createSplatConstantLike(OpBuilder &builder, Location loc, Value like,
                              const APFloat &value);

/// Creates a `sinter.reshape` of `input` to `shape` (same element type), or
/// returns `input` when it already has that shape.
Value createReshape(OpBuilder &builder, Location loc, Value input,
                    ArrayRef<int64_t> shape);

/// Returns the element value if a constant op defines `value` as a splat of
/// a floating-point type.
std::optional<APFloat> matchSplatConstant(Value value);

/// Returns true if `value` has rank 0: a scalar that broadcasts against any
/// tensor without changing its shape.
bool isScalar(Value value);

/// Returns the operand of the two-operand `op` other than `operand`.
Value getOtherOperand(Operation *op, Value operand);

/// Returns true if the NumPy broadcast of `lhs` and `rhs` is exactly
/// `expected`.
bool broadcastsTo(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                  ArrayRef<int64_t> expected);

/// Returns true if a `sinter.reshape` can produce `shape`: it has at most
/// one dynamic dim.
bool isReshapeTarget(ArrayRef<int64_t> shape);

/// Returns true if `value` depends on no model input: it is a param argument
/// of its function (`sinter.role = "param"`), a constant, or computed by pure
/// region-free ops from such values only. Such values can be computed once
/// in @prepare (see DESIGN.md, "Rewrite catalog"). Patterns ask this of
/// every op they visit, so the search stops after kParamOnlySearchLimit ops
/// and answers false: a longer param-only expression is not recognized
/// (and not rewritten), and a chain of N ops costs O(N), not O(N^2).
bool isParamOnly(Value value);

/// The most ops isParamOnly visits before it answers false.
inline constexpr unsigned kParamOnlySearchLimit = 256;

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEUTILS_H
