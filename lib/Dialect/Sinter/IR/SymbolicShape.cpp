//===- SymbolicShape.cpp - Sizes over the model's dim names ---------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SymbolicShape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// DimExpr
//===----------------------------------------------------------------------===//

DimExpr DimExpr::constant(int64_t value) {
  DimExpr expr;
  expr.numerator = value;
  return expr;
}

DimExpr DimExpr::symbol(StringRef name) {
  DimExpr expr;
  expr.exponents[name.str()] = 1;
  return expr;
}

DimExpr DimExpr::unknown() {
  DimExpr expr;
  expr.unknownSize = true;
  return expr;
}

std::optional<int64_t> DimExpr::getConstant() const {
  if (!exponents.empty() || denominator != 1 || overflowed || unknownSize)
    return std::nullopt;
  return numerator;
}

std::optional<StringRef> DimExpr::getSymbol() const {
  if (numerator != 1 || denominator != 1 || overflowed || unknownSize ||
      exponents.size() != 1 || exponents.begin()->second != 1)
    return std::nullopt;
  return StringRef(exponents.begin()->first);
}

bool DimExpr::isExpressible() const {
  if (overflowed || unknownSize || numerator <= 0 ||
      (denominator != 1 && exponents.empty()))
    return false;
  return llvm::all_of(exponents, [](auto &entry) { return entry.second > 0; });
}

std::optional<int64_t>
DimExpr::evaluate(llvm::function_ref<int64_t(StringRef)> valueOf) const {
  if (overflowed || unknownSize)
    return std::nullopt;
  int64_t dividend = numerator, divisor = denominator;
  for (auto &[name, exponent] : exponents) {
    int64_t value = valueOf(name);
    int64_t &factor = exponent > 0 ? dividend : divisor;
    for (int i = 0; i < std::abs(exponent); ++i)
      if (llvm::MulOverflow(factor, value, factor))
        return std::nullopt;
  }
  if (divisor == 0)
    return std::nullopt;
  return dividend / divisor;
}

void DimExpr::normalize() {
  int64_t divisor = std::gcd(numerator, denominator);
  if (divisor > 1) {
    numerator /= divisor;
    denominator /= divisor;
  }
  for (auto it = exponents.begin(); it != exponents.end();)
    it = it->second == 0 ? exponents.erase(it) : std::next(it);
}

DimExpr DimExpr::operator*(const DimExpr &other) const {
  DimExpr result = *this;
  result.overflowed |= other.overflowed;
  result.unknownSize |= other.unknownSize;
  // Cross-cancel first so that exact products of large factors stay small.
  int64_t a = std::gcd(numerator, other.denominator);
  int64_t b = std::gcd(other.numerator, denominator);
  int64_t num = 0, den = 0;
  result.overflowed |=
      llvm::MulOverflow(numerator / a, other.numerator / b, num);
  result.overflowed |=
      llvm::MulOverflow(denominator / b, other.denominator / a, den);
  result.numerator = num;
  result.denominator = den;
  for (auto &[name, exponent] : other.exponents)
    result.exponents[name] += exponent;
  result.normalize();
  return result;
}

DimExpr DimExpr::operator/(const DimExpr &other) const {
  DimExpr inverse;
  inverse.overflowed = other.overflowed;
  inverse.unknownSize = other.unknownSize;
  inverse.numerator = other.denominator;
  inverse.denominator = other.numerator;
  for (auto &[name, exponent] : other.exponents)
    inverse.exponents[name] = -exponent;
  return *this * inverse;
}

bool DimExpr::operator==(const DimExpr &other) const {
  return numerator == other.numerator && denominator == other.denominator &&
         exponents == other.exponents && overflowed == other.overflowed &&
         unknownSize == other.unknownSize;
}

SmallVector<std::string> DimExpr::getSymbols() const {
  SmallVector<std::string> names;
  for (auto &entry : exponents)
    names.push_back(entry.first);
  return names;
}

SmallVector<std::string> DimExpr::getFactors() const {
  SmallVector<std::string> factors;
  for (auto &[name, exponent] : exponents)
    for (int i = 0; i < exponent; ++i)
      factors.push_back(name);
  return factors;
}

std::string DimExpr::str() const {
  assert(isExpressible() && "the size has no C expression");
  SmallVector<std::string> factors = getFactors();
  std::string constant = std::to_string(numerator);
  if (numerator > std::numeric_limits<int32_t>::max())
    constant += "LL";
  if (factors.empty())
    return constant;
  if (numerator != 1)
    factors.push_back(constant);
  std::string product = llvm::join(factors, " * ");
  if (denominator != 1)
    product += " / " + std::to_string(denominator);
  if (factors.size() == 1 && denominator == 1)
    return product;
  return "(" + product + ")";
}

DimExpr mlir::sinter::getNumElements(ArrayRef<DimExpr> shape) {
  DimExpr count;
  for (const DimExpr &dim : shape)
    count = count * dim;
  return count;
}

std::string mlir::sinter::formatShape(ArrayRef<DimExpr> shape) {
  SmallVector<std::string> dims;
  for (const DimExpr &dim : shape) {
    std::string text = dim.isExpressible() ? dim.str() : "?";
    if (text.front() == '(')
      text = text.substr(1, text.size() - 2);
    dims.push_back(text);
  }
  return "[" + llvm::join(dims, ", ") + "]";
}

//===----------------------------------------------------------------------===//
// Constraints and the rules shared by op classes
//===----------------------------------------------------------------------===//

void ShapeConstraints::requireEqual(const DimExpr &actual,
                                    const DimExpr &expected,
                                    const Twine &what) {
  if (actual != expected)
    constraints.push_back(
        {ShapeConstraint::Kind::Equal, actual, expected, what.str()});
}

void ShapeConstraints::requireMultiple(const DimExpr &count,
                                       const DimExpr &divisor,
                                       const Twine &what) {
  constraints.push_back(
      {ShapeConstraint::Kind::Multiple, count, divisor, what.str()});
}

SymbolicShape
mlir::sinter::broadcastSymbolicShapes(ArrayRef<DimExpr> lhs,
                                      ArrayRef<DimExpr> rhs,
                                      ShapeConstraints &constraints) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SymbolicShape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    bool hasLhs = i + lhs.size() >= rank, hasRhs = i + rhs.size() >= rank;
    DimExpr a = hasLhs ? lhs[i + lhs.size() - rank] : DimExpr();
    DimExpr b = hasRhs ? rhs[i + rhs.size() - rank] : DimExpr();
    if (a.isConstant(1) || a == b) {
      result[i] = b;
    } else if (b.isConstant(1)) {
      result[i] = a;
    } else {
      // The verifier rejects two different static sizes, so one is
      // symbolic: both must be equal at run time.
      constraints.requireEqual(b, a, "broadcast dim #" + Twine(i));
      result[i] = a.getConstant()   ? a
                  : b.getConstant() ? b
                  : a.isUnknown()   ? b
                                    : a;
    }
  }
  return result;
}

SymbolicShape mlir::sinter::reduceSymbolicShape(ArrayRef<DimExpr> shape,
                                                ArrayRef<int64_t> dims,
                                                bool keepdim) {
  SymbolicShape result;
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(index)))
      result.push_back(dim);
    else if (keepdim)
      result.push_back(DimExpr::constant(1));
  }
  return result;
}
