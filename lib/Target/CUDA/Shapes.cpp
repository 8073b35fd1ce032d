//===- Shapes.cpp - Symbolic tensor shapes for the CUDA emitter -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "Shapes.h"

#include "OpClasses.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

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

std::optional<int64_t> DimExpr::getConstant() const {
  if (!exponents.empty() || denominator != 1 || overflowed)
    return std::nullopt;
  return numerator;
}

bool DimExpr::isExpressible() const {
  if (overflowed || numerator <= 0 || (denominator != 1 && exponents.empty()))
    return false;
  return llvm::all_of(exponents, [](auto &entry) { return entry.second > 0; });
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
  inverse.numerator = other.denominator;
  inverse.denominator = other.numerator;
  for (auto &[name, exponent] : other.exponents)
    inverse.exponents[name] = -exponent;
  return *this * inverse;
}

bool DimExpr::operator==(const DimExpr &other) const {
  return numerator == other.numerator && denominator == other.denominator &&
         exponents == other.exponents && overflowed == other.overflowed;
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

DimExpr cuda::getNumElements(ArrayRef<DimExpr> shape) {
  DimExpr count;
  for (const DimExpr &dim : shape)
    count = count * dim;
  return count;
}

std::string cuda::formatShape(ArrayRef<DimExpr> shape) {
  SmallVector<std::string> dims;
  for (const DimExpr &dim : shape) {
    std::string text = dim.isExpressible() ? dim.str() : "?";
    if (text.front() == '(')
      text = text.substr(1, text.size() - 2);
    dims.push_back(text);
  }
  return "[" + llvm::join(dims, ", ") + "]";
}

std::string cuda::formatLocation(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = formatLocation(inner); !text.empty())
        return text;
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLocation(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()))
        .str();
  return "";
}

//===----------------------------------------------------------------------===//
// ShapeAnalysis
//===----------------------------------------------------------------------===//

FailureOr<Shape> cuda::getArgumentShape(Operation *op, RankedTensorType type,
                                        ArrayRef<std::string> dimNames,
                                        StringRef what) {
  Shape shape;
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      shape.push_back(DimExpr::constant(size));
      continue;
    }
    if (index >= dimNames.size() || dimNames[index].empty())
      return op->emitError() << what << ": dynamic dim #" << index
                             << " has no name in sinter.dim_names",
             failure();
    shape.push_back(DimExpr::symbol(dimNames[index]));
  }
  return shape;
}

const Shape &ShapeAnalysis::getShape(Value value) const {
  auto it = shapes.find(value);
  assert(it != shapes.end() && "value outside the analyzed function");
  return it->second;
}

/// Describes `op` for messages: "sinter.add at model.sinter:3".
static std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (std::string loc = formatLocation(op->getLoc()); !loc.empty())
    text += " at " + loc;
  return text;
}

void ShapeAnalysis::requireEqual(Operation *op, const DimExpr &actual,
                                 const DimExpr &expected, StringRef what) {
  if (actual == expected)
    return;
  checks.push_back(
      {actual.str(), expected.str(), expected.str(),
       (what + " of " + describe(op) + " (must equal " + expected.str() + ")")
           .str()});
}

Shape ShapeAnalysis::broadcast(Operation *op, ArrayRef<DimExpr> lhs,
                               ArrayRef<DimExpr> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank);
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
      requireEqual(op, b, a, "broadcast dim #" + std::to_string(i));
      result[i] = a.getConstant() ? a : b.getConstant() ? b : a;
    }
  }
  return result;
}

LogicalResult ShapeAnalysis::setShape(Operation *op, Value value, Shape shape) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != static_cast<int64_t>(shape.size()))
    return op->emitError("CUDA emitter: result is not a ranked tensor of the "
                         "expected rank");
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      DimExpr expected = DimExpr::constant(size);
      if (!shape[index].getConstant() && shape[index].isExpressible())
        requireEqual(op, shape[index], expected,
                     "dim #" + std::to_string(index));
      shape[index] = expected;
    } else if (!shape[index].isExpressible()) {
      return op->emitError("CUDA emitter: the size of dim #")
             << index << " cannot be expressed over the model's dims";
    }
  }
  requireSizeFits(shape, "the result of " + describe(op));
  shapes[value] = std::move(shape);
  return success();
}

void ShapeAnalysis::requireSizeFits(const Shape &shape, StringRef what) {
  // The most elements of a tensor and the largest value of a dim.
  constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 8;
  constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
  DimExpr count = getNumElements(shape);
  if (!count.isExpressible() || count.getConstant() ||
      !checkedSizes.insert(count.str()).second)
    return;
  // Each factor in turn, bounded by what the ones before it leave.
  int64_t coefficient = count.getCeilCoefficient(), bound = coefficient;
  std::string limit = "INT64_MAX / 8";
  if (coefficient != 1)
    limit += " / " + std::to_string(coefficient);
  for (const std::string &factor : count.getFactors()) {
    if (llvm::MulOverflow(bound, kMaxDim, bound) || bound > kMaxElements) {
      checks.push_back({factor, "1", limit,
                        factor + " (" + what.str() + ", " + formatShape(shape) +
                            ", must have at most 2^60 elements)"});
      bound = kMaxElements;
    }
    limit += " / " + factor;
  }
}

/// The shape after reducing `shape` over `dims`.
static Shape reduceShape(ArrayRef<DimExpr> shape, ArrayRef<int64_t> dims,
                         bool keepdim) {
  Shape result;
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(index)))
      result.push_back(dim);
    else if (keepdim)
      result.push_back(DimExpr::constant(1));
  }
  return result;
}

LogicalResult ShapeAnalysis::visit(Operation *op) {
  auto shapeOf = [&](Value value) -> const Shape & { return getShape(value); };
  if (isElementwiseUnary(op))
    return setShape(op, op->getResult(0), shapeOf(op->getOperand(0)));
  if (isElementwiseBinary(op))
    return setShape(
        op, op->getResult(0),
        broadcast(op, shapeOf(op->getOperand(0)), shapeOf(op->getOperand(1))));
  if (std::optional<ReductionInfo> reduction = getReductionInfo(op))
    return setShape(op, reduction->result,
                    reduceShape(shapeOf(reduction->input), reduction->dims,
                                reduction->keepdim));

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ConstantOp constant) {
        Shape shape;
        for (int64_t size : constant.getType().getShape())
          shape.push_back(DimExpr::constant(size));
        return setShape(op, constant.getResult(), shape);
      })
      .Case([&](FillOp fill) {
        Shape shape;
        unsigned index = 0;
        for (int64_t size : fill.getType().getShape()) {
          if (!ShapedType::isDynamic(size)) {
            shape.push_back(DimExpr::constant(size));
            continue;
          }
          shape.push_back(shapeOf(
              fill.getSourceOfDynamicDim(index))[fill.getDims()[index]]);
          ++index;
        }
        return setShape(op, fill.getResult(), shape);
      })
      .Case([&](SelectOp select) {
        Shape values = broadcast(op, shapeOf(select.getTrueValue()),
                                 shapeOf(select.getFalseValue()));
        return setShape(op, select.getResult(),
                        broadcast(op, shapeOf(select.getCondition()), values));
      })
      .Case([&](SliceOp slice) {
        Shape shape = shapeOf(slice.getInput());
        shape[slice.getDim()] =
            DimExpr::constant(slice.getEnd() - slice.getStart());
        return setShape(op, slice.getResult(), shape);
      })
      .Case([&](ConcatOp concat) {
        int64_t dim = concat.getDim();
        Shape shape = shapeOf(concat.getInputs().front());
        for (Value input : concat.getInputs().drop_front())
          for (auto [d, size] : llvm::enumerate(shapeOf(input)))
            if (static_cast<int64_t>(d) != dim)
              requireEqual(op, size, shape[d], "dims of concatenated inputs");
        shape[dim] = DimExpr::constant(concat.getType().getDimSize(dim));
        return setShape(op, concat.getResult(), shape);
      })
      .Case([&](TransposeOp transpose) {
        const Shape &input = shapeOf(transpose.getInput());
        Shape shape;
        for (int64_t dim : transpose.getPerm())
          shape.push_back(input[dim]);
        return setShape(op, transpose.getResult(), shape);
      })
      .Case([&](ReshapeOp reshape) {
        DimExpr count = getNumElements(shapeOf(reshape.getInput()));
        ArrayRef<int64_t> sizes = reshape.getType().getShape();
        DimExpr known;
        for (int64_t size : sizes)
          if (!ShapedType::isDynamic(size))
            known = known * DimExpr::constant(size);
        Shape shape;
        for (int64_t size : sizes)
          shape.push_back(ShapedType::isDynamic(size)
                              ? count / known
                              : DimExpr::constant(size));
        DimExpr quotient = count / known;
        if (llvm::none_of(sizes, ShapedType::isDynamic))
          requireEqual(op, count, known, "element count");
        else if (quotient.isExpressible() && !quotient.getConstant() &&
                 quotient.hasFraction())
          // count / known is exact only when known divides count.
          checks.push_back(
              {"(" + count.str() + " % " + known.str() + ")", "0", "0",
               "element count of " + describe(op) + " (must be a multiple of " +
                   known.str() + ")"});
        return setShape(op, reshape.getResult(), shape);
      })
      .Case([&](MatmulOp matmul) {
        Shape lhs = shapeOf(matmul.getLhs()), rhs = shapeOf(matmul.getRhs());
        if (matmul.getTransposeA())
          std::swap(lhs[lhs.size() - 2], lhs[lhs.size() - 1]);
        if (matmul.getTransposeB())
          std::swap(rhs[rhs.size() - 2], rhs[rhs.size() - 1]);
        requireEqual(op, rhs[rhs.size() - 2], lhs.back(), "contraction dim");
        Shape batch;
        if (lhs.size() == 3 || rhs.size() == 3)
          batch = broadcast(op, lhs.size() == 3 ? Shape{lhs[0]} : Shape{},
                            rhs.size() == 3 ? Shape{rhs[0]} : Shape{});
        batch.push_back(lhs[lhs.size() - 2]);
        batch.push_back(rhs.back());
        return setShape(op, matmul.getResult(), batch);
      })
      .Case([&](KernelOp kernel) -> LogicalResult {
        Block &body = kernel.getBody().front();
        for (auto [argument, input] :
             llvm::zip(body.getArguments(), kernel.getInputs())) {
          // Copied first: inserting may grow the map under the reference.
          Shape shape = shapeOf(input);
          shapes[argument] = std::move(shape);
        }
        for (Operation &inner : body.without_terminator())
          if (failed(visit(&inner)))
            return failure();
        auto yield = cast<YieldOp>(body.getTerminator());
        for (auto [result, value] :
             llvm::zip(kernel.getResults(), yield.getValues()))
          if (failed(setShape(op, result, shapeOf(value))))
            return failure();
        return success();
      })
      .Case([&](func::ReturnOp) { return success(); })
      .Default([&](Operation *other) {
        return other->emitError("CUDA emitter: cannot generate code for '")
               << other->getName()
               << "' (the emitter expects decomposed, fused IR: run "
                  "sinter-decompose and sinter-form-kernels first)";
      });
}

LogicalResult ShapeAnalysis::run(func::FuncOp func,
                                 ArrayRef<Shape> argumentShapes) {
  for (auto [index, argument, shape] :
       llvm::enumerate(func.getArguments(), argumentShapes)) {
    requireSizeFits(shape, "argument #" + std::to_string(index));
    shapes[argument] = shape;
  }
  for (Operation &op : func.getBody().front())
    if (failed(visit(&op)))
      return failure();
  return success();
}
