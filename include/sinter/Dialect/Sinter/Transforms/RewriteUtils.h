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

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

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

/// Returns the sizes of `shape` other than the static 1s: two shapes with
/// the same hold the same elements in the same order.
SmallVector<int64_t> getSizesWithoutUnitDims(ArrayRef<int64_t> shape);

/// Returns true if a rewrite that computes `reduction`'s result with its
/// reduced dims kept can reach the result: it keeps them too, or a reshape
/// can drop them (isReshapeTarget).
bool canDropReducedDims(ReductionOpInterface reduction);

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

/// Returns true if every value of `value` is +0 or more, or NaN: the result
/// of an op whose ValueFactsOpInterface says so (exp, abs, ...).
bool isNonNegative(Value value);

/// Returns true if every value of `value` is positive in real arithmetic:
/// a constant of positive elements, the result of an op whose
/// ValueFactsOpInterface says so (exp, sigmoid, ...), and reshapes,
/// transposes, sums, products and quotients of such values (a sum may add
/// non-negative ones). In f32, exp and sigmoid of very negative values
/// round to +0.
bool isPositive(Value value);

/// Returns true if `value` is a factor that costs nothing per run: a scalar
/// or a value computed from params only.
bool isCheapFactor(Value value);

/// The shape of a value of ranked tensor type.
ArrayRef<int64_t> getTensorShape(Value value);

/// Returns true if `x op (p op q)` has the shape `expected`, as `(x op p)
/// op q` does.
bool regroupKeepsShape(Value x, Value p, Value q, ArrayRef<int64_t> expected);

/// Returns true if `p op q` has the shape of `p` or of `q`: regrouping
/// never materializes a factor larger than both (a column times a row).
bool regroupStaysSmall(Value p, Value q);

/// Returns the element value if `value` is a splat: a splat constant or a
/// `sinter.fill`.
std::optional<APFloat> matchSplatValue(Value value);

/// Where the run-time size of a dynamic dim comes from: dim `dim` of the
/// function argument `source`.
struct DimSource {
  Value source;
  int64_t dim;
};

/// Follows dynamic dim `dim` of `value` back through the ops that carry it
/// (elementwise, reductions, transposes, matmuls, fills, reshapes that keep
/// it) to a function argument. Returns nothing when the chain is lost.
std::optional<DimSource> traceDynamicDim(Value value, int64_t dim);

/// Creates a value of the type of `like` whose every element is `value`: a
/// splat constant when the type is static, else a `sinter.fill` whose
/// dynamic dims are those of `like` traced back to function arguments (one
/// source when they all come from the same argument, else one per dim).
/// Returns null when a dynamic dim has no such source.
Value createSplatLike(OpBuilder &builder, Location loc, Value like,
                      const APFloat &value);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEUTILS_H
