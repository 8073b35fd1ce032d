//===- SymbolicShape.h - Sizes over the model's dim names -------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The vocabulary of the ops' symbolic shape rules (SymbolicShapeOpInterface
// in SinterInterfaces.td). A DimExpr is a size over the model's symbolic
// dims (`B * 4096`); a SymbolicShape has one per dim. A rule that relies on
// something the types cannot show (two symbolic dims that broadcast are
// equal, a reshape divides evenly) records it as a ShapeConstraint, which
// generated code checks at run time.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SYMBOLICSHAPE_H
#define SINTER_DIALECT_SINTER_IR_SYMBOLICSHAPE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::sinter {

/// A size: `numerator / denominator * prod(symbol^exponent)`. Exact rational
/// arithmetic, so that `B * 64 / 8 * 8` is `B * 64` again. A size may also
/// be unknown: a `?` that no dim name stands for.
class DimExpr {
public:
  /// The size 1.
  DimExpr() = default;
  static DimExpr constant(int64_t value);
  static DimExpr symbol(StringRef name);
  /// A size nothing is known of; every size computed from it is unknown.
  static DimExpr unknown();

  /// Returns the value when the size does not depend on any dim.
  std::optional<int64_t> getConstant() const;
  bool isConstant(int64_t value) const { return getConstant() == value; }
  /// Returns the name when the size is one dim name (`B`, not `B * 2`).
  std::optional<StringRef> getSymbol() const;
  /// True for a size computed from an unknown one.
  bool isUnknown() const { return unknownSize; }
  /// True when the size has a C expression: a positive coefficient and no
  /// negative exponent. A fractional coefficient (`B * 3 / 4`) is exact only
  /// under a run-time divisibility check (a ShapeConstraint).
  bool isExpressible() const;
  /// True when the coefficient is a fraction.
  bool hasFraction() const { return denominator != 1; }
  /// True when arithmetic on it overflowed 64 bits.
  bool hasOverflowed() const { return overflowed; }

  /// The value of the size when every dim name has the value `valueOf`
  /// gives it, rounded down; std::nullopt for an unknown size, on overflow
  /// and on a division by zero.
  std::optional<int64_t>
  evaluate(llvm::function_ref<int64_t(StringRef)> valueOf) const;

  DimExpr operator*(const DimExpr &other) const;
  DimExpr operator/(const DimExpr &other) const;
  bool operator==(const DimExpr &other) const;
  bool operator!=(const DimExpr &other) const { return !(*this == other); }

  /// The C expression of an expressible size, parenthesized when it is not a
  /// single name or literal ("64", "B", "(B * 64)").
  std::string str() const;
  /// The names it depends on, sorted.
  SmallVector<std::string> getSymbols() const;
  /// The factors of an expressible size: each name as often as its
  /// exponent, sorted.
  SmallVector<std::string> getFactors() const;
  /// The coefficient, rounded up to an integer.
  int64_t getCeilCoefficient() const {
    return (numerator + denominator - 1) / denominator;
  }

private:
  int64_t numerator = 1;
  int64_t denominator = 1;
  /// Dim name -> exponent (never 0).
  std::map<std::string, int> exponents;
  bool overflowed = false;
  bool unknownSize = false;

  void normalize();
};

/// A shape: one DimExpr per dimension.
using SymbolicShape = SmallVector<DimExpr, 4>;

/// The number of elements of `shape`.
DimExpr getNumElements(ArrayRef<DimExpr> shape);

/// Renders a shape for comments and messages: "[B, 64]", "?" for a size
/// without a C expression.
std::string formatShape(ArrayRef<DimExpr> shape);

/// A relation between sizes that a shape rule relies on and the types
/// cannot show, so that it must hold at run time.
struct ShapeConstraint {
  enum class Kind {
    /// `lhs` equals `rhs`.
    Equal,
    /// `lhs` is a multiple of `rhs`.
    Multiple,
  };
  Kind kind;
  DimExpr lhs;
  DimExpr rhs;
  /// What is constrained, for messages: "broadcast dim #0".
  std::string what;
};

/// The constraints one shape rule records.
class ShapeConstraints {
public:
  /// Requires `actual` to equal `expected`; records nothing when they are
  /// the same expression.
  void requireEqual(const DimExpr &actual, const DimExpr &expected,
                    const Twine &what);
  /// Requires `count` to be a multiple of `divisor`.
  void requireMultiple(const DimExpr &count, const DimExpr &divisor,
                       const Twine &what);

  ArrayRef<ShapeConstraint> get() const { return constraints; }
  bool empty() const { return constraints.empty(); }

private:
  SmallVector<ShapeConstraint> constraints;
};

/// The NumPy broadcast of two shapes: where two different sizes meet and
/// neither is 1, the result takes the static one, else the known one, else
/// `lhs`'s, and `constraints` requires them equal ("broadcast dim #i").
SymbolicShape broadcastSymbolicShapes(ArrayRef<DimExpr> lhs,
                                      ArrayRef<DimExpr> rhs,
                                      ShapeConstraints &constraints);

/// The shape that remains after reducing `shape` over `dims`: reduced dims
/// become 1 with `keepdim` and are dropped without.
SymbolicShape reduceSymbolicShape(ArrayRef<DimExpr> shape,
                                  ArrayRef<int64_t> dims, bool keepdim);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_SYMBOLICSHAPE_H
