//===- Shapes.h - Symbolic tensor shapes for the CUDA emitter ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generated code sizes its loops and buffers with C expressions over the
// model's symbolic dims (`B * 4096`). A DimExpr is such a size: a rational
// coefficient times a product of powers of dim names. ShapeAnalysis gives
// every tensor value of a function its shape as DimExprs, derived from the
// dim names of the arguments, and collects what the host code must check at
// run time because the types cannot (two symbolic dims that broadcast must
// be equal, a reshape must divide evenly).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_SHAPES_H
#define SINTER_LIB_TARGET_CUDA_SHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::sinter::cuda {

/// A size: `numerator / denominator * prod(symbol^exponent)`. Exact rational
/// arithmetic, so that `B * 64 / 8 * 8` is `B * 64` again.
class DimExpr {
public:
  /// The size 1.
  DimExpr() = default;
  static DimExpr constant(int64_t value);
  static DimExpr symbol(StringRef name);

  /// Returns the value when the size does not depend on any dim.
  std::optional<int64_t> getConstant() const;
  bool isConstant(int64_t value) const { return getConstant() == value; }
  /// True when the size has a C expression: a positive coefficient and no
  /// negative exponent. A fractional coefficient (`B * 3 / 4`) is exact only
  /// under a run-time divisibility check, which ShapeAnalysis records.
  bool isExpressible() const;
  /// True when the coefficient is a fraction.
  bool hasFraction() const { return denominator != 1; }
  /// True when arithmetic on it overflowed 64 bits.
  bool hasOverflowed() const { return overflowed; }

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

  void normalize();
};

/// A shape: one DimExpr per dimension.
using Shape = SmallVector<DimExpr, 4>;

/// The number of elements of `shape`.
DimExpr getNumElements(ArrayRef<DimExpr> shape);

/// Renders a shape for comments: "[B, 64]".
std::string formatShape(ArrayRef<DimExpr> shape);

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

  /// The run-time checks the analysis found, in program order.
  ArrayRef<RuntimeCheck> getChecks() const { return checks; }

private:
  LogicalResult visit(Operation *op);
  LogicalResult setShape(Operation *op, Value value, Shape shape);
  /// Broadcasts `lhs` against `rhs`, recording a check when two different
  /// symbolic sizes meet.
  Shape broadcast(Operation *op, ArrayRef<DimExpr> lhs, ArrayRef<DimExpr> rhs);
  void requireEqual(Operation *op, const DimExpr &actual,
                    const DimExpr &expected, StringRef what);
  /// Records the checks that keep the size in bytes of a tensor of `shape`,
  /// `what`, within int64 when its dims may each be SINTER_RT_MAX_DIM: at
  /// most 2^60 elements (8 bytes each at most).
  void requireSizeFits(const Shape &shape, StringRef what);

  llvm::DenseMap<Value, Shape> shapes;
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
