//===- Elementwise.cpp - Elementwise ops of the interpreter ---------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Unary and broadcasting binary ops, each with PyTorch's scalar definition
// (aten/src/ATen/native/cpu kernels). NaN propagates through every function
// whose PyTorch kernel propagates it (relu, clamp, maximum, minimum, ...).
//
//===----------------------------------------------------------------------===//

#include "Loops.h"
#include "OpEvaluators.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

//===----------------------------------------------------------------------===//
// Scalar definitions
//===----------------------------------------------------------------------===//

/// min(max(x, lo), hi) that returns NaN for a NaN `x` (torch.clamp).
static double clampPropagatingNaN(double x, double lo, double hi) {
  if (std::isnan(x))
    return x;
  return std::min(std::max(x, lo), hi);
}

/// max(a, b) as torch.maximum and IEEE 754-2019 maximum: NaN if either is
/// NaN, and +0 above -0, so that the order of the operands never matters
/// (rewrites may swap them).
static double maximumPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}

/// min(a, b) as torch.minimum and IEEE 754-2019 minimum: NaN if either is
/// NaN, and -0 below +0.
static double minimumPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? a : b;
  return std::min(a, b);
}

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// gelu(x) = x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))).
static double geluErf(double x) {
  return x * 0.5 * (1.0 + std::erf(x * M_SQRT1_2));
}

/// gelu(x, approximate='tanh')
///   = x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
static double geluTanh(double x) {
  constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;
  constexpr double kKappa = 0.044715;
  return 0.5 * x * (1.0 + std::tanh(kBeta * (x + kKappa * x * x * x)));
}

/// softplus(x) = x when beta * x > threshold, else log(1 + e^(beta x)) / beta.
static double softplus(double x, double beta, double threshold) {
  double scaled = x * beta;
  return scaled > threshold ? x : std::log1p(std::exp(scaled)) / beta;
}

/// elu(x) = x for x > 0, alpha * (e^x - 1) otherwise.
static double elu(double x, double alpha) {
  return x > 0 ? x : alpha * std::expm1(x);
}

/// selu(x) = scale * elu(x, alpha) with PyTorch's constants.
static double selu(double x) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return kScale * elu(x, kAlpha);
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// result[i] = fn(input[i]).
template <typename Fn>
static FailureOr<HostTensor> mapUnary(Operation *op, const HostTensor &input,
                                      Fn fn) {
  FailureOr<HostTensor> result = allocateResult(op, input.shape);
  if (failed(result))
    return failure();
  const double *in = input.data.data();
  double *out = result->data.data();
  for (int64_t i = 0, e = input.numElements(); i < e; ++i)
    out[i] = fn(in[i]);
  return result;
}

/// The run-time shape to which tensors `a` and `b` (declared with static
/// shapes `aType` and `bType`) broadcast, or an error at `op`.
static FailureOr<SmallVector<int64_t>>
broadcastAtRunTime(Operation *op, ArrayRef<int64_t> aType, ArrayRef<int64_t> a,
                   ArrayRef<int64_t> bType, ArrayRef<int64_t> b) {
  int64_t mismatch = 0;
  std::optional<SmallVector<int64_t>> shape =
      broadcastRunTimeShapes(aType, a, bType, b, &mismatch);
  if (!shape)
    return op->emitOpError("operands are not broadcast-compatible at run "
                           "time: ")
           << formatShape(a) << " vs " << formatShape(b) << " (result dim "
           << mismatch
           << "; a symbolic dim broadcasts only against an equal size, even "
              "when it is 1)";
  return *shape;
}

/// The declared shape of operand `index` of `op`.
static ArrayRef<int64_t> getOperandShape(Operation *op, unsigned index) {
  return cast<RankedTensorType>(op->getOperand(index).getType()).getShape();
}

/// result = fn(operands...) elementwise after broadcasting the operands
/// (all of `op`'s, in order) against each other.
template <size_t N, typename Fn>
static FailureOr<HostTensor>
mapBroadcast(Operation *op, std::array<const HostTensor *, N> operands, Fn fn) {
  SmallVector<int64_t> typeShape(getOperandShape(op, 0));
  SmallVector<int64_t> shape(operands[0]->shape);
  for (size_t k = 1; k < N; ++k) {
    FailureOr<SmallVector<int64_t>> joined = broadcastAtRunTime(
        op, typeShape, shape, getOperandShape(op, k), operands[k]->shape);
    if (failed(joined))
      return failure();
    typeShape = *broadcastShapes(typeShape, getOperandShape(op, k));
    shape = std::move(*joined);
  }
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  std::array<SmallVector<int64_t>, N + 1> strides;
  strides[0] = getContiguousStrides(shape);
  for (size_t k = 0; k < N; ++k)
    strides[k + 1] = getBroadcastStrides(operands[k]->shape, shape);
  std::array<ArrayRef<int64_t>, N + 1> strideRefs;
  for (size_t k = 0; k <= N; ++k)
    strideRefs[k] = strides[k];
  double *out = result->data.data();
  forEachRow<N + 1>(
      shape, strideRefs,
      [&](const std::array<int64_t, N + 1> &offsets, int64_t count,
          const std::array<int64_t, N + 1> &inner) {
        for (int64_t j = 0; j < count; ++j) {
          std::array<double, N> args;
          for (size_t k = 0; k < N; ++k)
            args[k] = operands[k]->data[offsets[k + 1] + j * inner[k + 1]];
          out[offsets[0] + j * inner[0]] = std::apply(fn, args);
        }
      });
  return result;
}

/// result = fn(lhs, rhs) elementwise after broadcasting both operands.
template <typename Fn>
static FailureOr<HostTensor> mapBinary(Operation *op, const HostTensor &lhs,
                                       const HostTensor &rhs, Fn fn) {
  return mapBroadcast<2>(op, {&lhs, &rhs}, fn);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

FailureOr<HostTensor> interp::evaluateUnary(Operation *op,
                                            const HostTensor &input) {
  using Result = FailureOr<HostTensor>;
  auto map = [&](auto fn) { return mapUnary(op, input, fn); };
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](NegOp) { return map([](double x) { return -x; }); })
      .Case([&](AbsOp) { return map([](double x) { return std::fabs(x); }); })
      .Case([&](ExpOp) { return map([](double x) { return std::exp(x); }); })
      .Case([&](LogOp) { return map([](double x) { return std::log(x); }); })
      .Case([&](SqrtOp) { return map([](double x) { return std::sqrt(x); }); })
      .Case([&](RsqrtOp) {
        return map([](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([&](TanhOp) { return map([](double x) { return std::tanh(x); }); })
      .Case([&](SigmoidOp) { return map(sigmoid); })
      .Case([&](ReluOp) {
        return map(
            [](double x) { return std::isnan(x) ? x : std::max(x, 0.0); });
      })
      .Case(
          [&](SiluOp) { return map([](double x) { return x * sigmoid(x); }); })
      .Case([&](MishOp) {
        return map(
            [](double x) { return x * std::tanh(std::log1p(std::exp(x))); });
      })
      .Case([&](SeluOp) { return map(selu); })
      .Case([&](HardsigmoidOp) {
        return map([](double x) {
          return clampPropagatingNaN(x + 3.0, 0.0, 6.0) / 6.0;
        });
      })
      .Case([&](HardswishOp) {
        return map([](double x) {
          return x * clampPropagatingNaN(x + 3.0, 0.0, 6.0) / 6.0;
        });
      })
      .Case([&](SoftsignOp) {
        return map([](double x) { return x / (1.0 + std::fabs(x)); });
      })
      .Case([&](ErfOp) { return map([](double x) { return std::erf(x); }); })
      .Case(
          [&](Expm1Op) { return map([](double x) { return std::expm1(x); }); })
      .Case(
          [&](Log1pOp) { return map([](double x) { return std::log1p(x); }); })
      .Case([&](Exp2Op) { return map([](double x) { return std::exp2(x); }); })
      .Case([&](Log2Op) { return map([](double x) { return std::log2(x); }); })
      .Case(
          [&](Log10Op) { return map([](double x) { return std::log10(x); }); })
      .Case([&](SinOp) { return map([](double x) { return std::sin(x); }); })
      .Case([&](CosOp) { return map([](double x) { return std::cos(x); }); })
      .Case(
          [&](FloorOp) { return map([](double x) { return std::floor(x); }); })
      .Case([&](CeilOp) { return map([](double x) { return std::ceil(x); }); })
      // torch.round: halfway cases to the even integer (the default
      // rounding mode).
      .Case([&](RoundOp) {
        return map([](double x) { return std::nearbyint(x); });
      })
      .Case(
          [&](TruncOp) { return map([](double x) { return std::trunc(x); }); })
      .Case([&](SignOp) {
        // ATen's (0 < x) - (x < 0): 0 for NaN and for either zero.
        return map([](double x) {
          return static_cast<double>((0.0 < x) - (x < 0.0));
        });
      })
      .Case([&](LeakyReluOp leaky) {
        double alpha = leaky.getAlpha().convertToDouble();
        return map([alpha](double x) { return x > 0 ? x : x * alpha; });
      })
      .Case([&](GeluOp gelu) {
        if (gelu.getApproximate() == GeluApproximation::tanh)
          return map(geluTanh);
        return map(geluErf);
      })
      .Case([&](SoftplusOp softplusOp) {
        double beta = softplusOp.getBeta().convertToDouble();
        double threshold = softplusOp.getThreshold().convertToDouble();
        return map([beta, threshold](double x) {
          return softplus(x, beta, threshold);
        });
      })
      .Case([&](EluOp eluOp) {
        double alpha = eluOp.getAlpha().convertToDouble();
        return map([alpha](double x) { return elu(x, alpha); });
      })
      .Case([&](HardtanhOp hardtanh) {
        double lo = hardtanh.getMin().convertToDouble();
        double hi = hardtanh.getMax().convertToDouble();
        return map(
            [lo, hi](double x) { return clampPropagatingNaN(x, lo, hi); });
      })
      .Case([&](ClampOp clamp) {
        double lo =
            clamp.getMin() ? clamp.getMin()->convertToDouble() : -HUGE_VAL;
        double hi =
            clamp.getMax() ? clamp.getMax()->convertToDouble() : HUGE_VAL;
        return map(
            [lo, hi](double x) { return clampPropagatingNaN(x, lo, hi); });
      })
      .Default([&](Operation *) -> Result {
        return op->emitOpError("is not an elementwise unary op");
      });
}

FailureOr<HostTensor> interp::evaluateBinary(Operation *op,
                                             const HostTensor &lhs,
                                             const HostTensor &rhs) {
  using Result = FailureOr<HostTensor>;
  auto map = [&](auto fn) { return mapBinary(op, lhs, rhs, fn); };
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case(
          [&](AddOp) { return map([](double a, double b) { return a + b; }); })
      .Case(
          [&](SubOp) { return map([](double a, double b) { return a - b; }); })
      .Case(
          [&](MulOp) { return map([](double a, double b) { return a * b; }); })
      .Case(
          [&](DivOp) { return map([](double a, double b) { return a / b; }); })
      .Case([&](MaximumOp) { return map(maximumPropagatingNaN); })
      .Case([&](MinimumOp) { return map(minimumPropagatingNaN); })
      .Case([&](PowOp) {
        return map([](double a, double b) { return std::pow(a, b); });
      })
      .Case([&](CompareOp compare) {
        ComparePredicate predicate = compare.getPredicate();
        return map([predicate](double a, double b) {
          return evaluateComparison(predicate, APFloat(a), APFloat(b)) ? 1.0
                                                                       : 0.0;
        });
      })
      .Default([&](Operation *) -> Result {
        return op->emitOpError("is not an elementwise binary op");
      });
}

FailureOr<HostTensor> interp::evaluateSelect(Operation *op,
                                             const HostTensor &condition,
                                             const HostTensor &trueValue,
                                             const HostTensor &falseValue) {
  // NaN is nonzero: it selects the true value, as bool(nan) in Python.
  return mapBroadcast<3>(
      op, {&condition, &trueValue, &falseValue},
      [](double c, double a, double b) { return c != 0.0 ? a : b; });
}

std::optional<double>
mlir::sinter::evaluateElementwiseScalar(Operation *op,
                                        ArrayRef<double> operands) {
  if (op->getNumOperands() != operands.size() || op->getNumResults() != 1)
    return std::nullopt;
  SmallVector<HostTensor, 2> scalars;
  for (double value : operands) {
    HostTensor &scalar = scalars.emplace_back(ArrayRef<int64_t>{});
    scalar.data.front() = value;
  }
  FailureOr<HostTensor> result = failure();
  if (isElementwiseBinary(op))
    result = evaluateBinary(op, scalars[0], scalars[1]);
  else if (isElementwiseTernary(op))
    result = evaluateSelect(op, scalars[0], scalars[1], scalars[2]);
  else if (isElementwiseUnary(op))
    result = evaluateUnary(op, scalars[0]);
  if (failed(result))
    return std::nullopt;
  return result->data.front();
}
