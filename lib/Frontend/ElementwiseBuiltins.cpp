//===- ElementwiseBuiltins.cpp - Elementwise builtins of .sinter ----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Activations, elementwise math and elementwise binary functions, as in
// torch and torch.nn.functional.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include <array>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;

/// `op(input)` with one f64 attribute `attr` from argument `param`.
template <typename OpTy>
static FailureOr<Value> lowerUnaryWith(const Arguments &args, StringRef param,
                                       StringRef attr) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> value =
      failed(input) ? FailureOr<double>() : args.number(param);
  if (failed(value))
    return failure();
  return args.lowering.create<OpTy>(args.getLoc(), {*input},
                                    {args.f64(attr, *value)});
}

static FailureOr<Value> lowerLeakyRelu(const Arguments &args) {
  return lowerUnaryWith<LeakyReluOp>(args, "negative_slope", "alpha");
}

static FailureOr<Value> lowerElu(const Arguments &args) {
  return lowerUnaryWith<EluOp>(args, "alpha", "alpha");
}

static FailureOr<Value> lowerGelu(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<StringRef> approximate =
      args.choice("approximate", {"none", "tanh"});
  if (failed(approximate))
    return failure();
  GeluApproximation kind = *approximate == "tanh" ? GeluApproximation::tanh
                                                  : GeluApproximation::none;
  return args.lowering.create<GeluOp>(
      args.getLoc(), {*input},
      {args.builder.getNamedAttr(
          "approximate",
          GeluApproximationAttr::get(args.builder.getContext(), kind))});
}

static FailureOr<Value> lowerSoftplus(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<double> beta = args.number("beta");
  FailureOr<double> threshold =
      failed(beta) ? FailureOr<double>() : args.number("threshold");
  if (failed(threshold))
    return failure();
  if (*beta == 0.0)
    return args.lowering.emitError(args.get("beta")->loc)
           << "beta of softplus() must be non-zero";
  return args.lowering.create<SoftplusOp>(
      args.getLoc(), {*input},
      {args.f64("beta", *beta), args.f64("threshold", *threshold)});
}

static FailureOr<Value> lowerHardtanh(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<double> minValue = args.number("min_val");
  FailureOr<double> maxValue =
      failed(minValue) ? FailureOr<double>() : args.number("max_val");
  if (failed(maxValue))
    return failure();
  if (*minValue > *maxValue)
    return args.lowering.emitError(args.getLoc())
           << "hardtanh() min_val " << formatNumber(*minValue)
           << " is greater than max_val " << formatNumber(*maxValue);
  return args.lowering.create<HardtanhOp>(
      args.getLoc(), {*input},
      {args.f64("min", *minValue), args.f64("max", *maxValue)});
}

static FailureOr<Value> lowerClamp(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  SmallVector<NamedAttribute> attributes;
  std::optional<double> bounds[2];
  std::array<StringRef, 2> params = {"min", "max"};
  for (auto [index, param] : llvm::enumerate(params)) {
    const EvalValue *value = args.get(param);
    if (!value)
      continue;
    if (value->kind == EvalValue::Kind::Tensor)
      return args.emitWrongKind(param, "a number (for tensor bounds use "
                                       "maximum() and minimum())");
    FailureOr<double> bound = args.number(param);
    if (failed(bound))
      return failure();
    bounds[index] = *bound;
    attributes.push_back(args.f64(param, *bound));
  }
  if (attributes.empty())
    return args.lowering.emitError(args.getLoc())
           << "clamp() needs min= or max= (or both)";
  if (bounds[0] && bounds[1] && *bounds[0] > *bounds[1])
    return args.lowering.emitError(args.getLoc())
           << "clamp() min " << formatNumber(*bounds[0])
           << " is greater than max " << formatNumber(*bounds[1]);
  return args.lowering.create<ClampOp>(args.getLoc(), {*input}, attributes);
}

/// Elementwise binary builtins: one operand may be a number.
template <typename OpTy>
static FailureOr<Value> lowerBinary(const Arguments &args) {
  StringRef second = args.call.name == "pow" ? "exponent" : "other";
  const EvalValue *lhs = args.get("input"), *rhs = args.get(second);
  Value like = lhs->kind == EvalValue::Kind::Tensor   ? lhs->tensor
               : rhs->kind == EvalValue::Kind::Tensor ? rhs->tensor
                                                      : Value();
  if (!like && lhs->kind == EvalValue::Kind::Number &&
      rhs->kind == EvalValue::Kind::Number)
    return args.lowering.emitError(args.getLoc())
           << args.call.name << "() needs at least one tensor operand";
  Type scalarType = args.lowering.getScalarTypeFor(like);
  FailureOr<Value> a = args.tensorOrNumber("input", scalarType);
  FailureOr<Value> b =
      failed(a) ? FailureOr<Value>() : args.tensorOrNumber(second, scalarType);
  if (failed(b))
    return failure();
  return args.lowering.create<OpTy>(args.getLoc(), {*a, *b});
}

/// A rank-0 constant next to `like`.
static FailureOr<Value> scalarLike(const Arguments &args, double value,
                                   Value like) {
  return args.lowering.createScalar(args.getLoc(), value,
                                    args.lowering.getScalarTypeFor(like));
}

/// clamp_min(x, min) and clamp_max(x, max): clamp with one bound.
static FailureOr<Value> lowerOneSidedClamp(const Arguments &args) {
  StringRef param = args.call.name == "clamp_min" ? "min" : "max";
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  if (args.get(param)->kind == EvalValue::Kind::Tensor)
    return args.emitWrongKind(param, "a number (for a tensor bound use "
                                     "maximum() or minimum())");
  FailureOr<double> bound = args.number(param);
  if (failed(bound))
    return failure();
  return args.lowering.create<ClampOp>(args.getLoc(), {*input},
                                       {args.f64(param, *bound)});
}

/// square(x) = x^2.
static FailureOr<Value> lowerSquare(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> two =
      failed(input) ? FailureOr<Value>() : scalarLike(args, 2.0, *input);
  if (failed(two))
    return failure();
  return args.lowering.create<PowOp>(args.getLoc(), {*input, *two});
}

/// reciprocal(x) = 1 / x.
static FailureOr<Value> lowerReciprocal(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> one =
      failed(input) ? FailureOr<Value>() : scalarLike(args, 1.0, *input);
  if (failed(one))
    return failure();
  return args.lowering.create<DivOp>(args.getLoc(), {*one, *input});
}

/// relu6(x) = hardtanh(x, 0, 6), as PyTorch defines it.
static FailureOr<Value> lowerRelu6(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  return args.lowering.create<HardtanhOp>(
      args.getLoc(), {*input}, {args.f64("min", 0.0), args.f64("max", 6.0)});
}

/// Applies the unary op OpT to `operand`, passing a failure through.
template <typename OpT>
static FailureOr<Value> applyUnary(ModelLowering &lowering, llvm::SMLoc loc,
                                   FailureOr<Value> operand) {
  if (failed(operand))
    return failure();
  return lowering.create<OpT>(loc, {*operand});
}

/// logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)), as ATen computes it, here
/// as -(relu(-x) + log1p(exp(-|x|))), which is the same float: min(x, 0) is
/// -relu(-x) exactly. The mathematically equal -softplus(-x) rounds exp(-x)
/// for negative x to a large number and loses accuracy (3.5e-8 against
/// ATen's 3.1e-8 relative error on a 1 GiB normal input).
static FailureOr<Value> lowerLogsigmoid(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  ModelLowering &lowering = args.lowering;
  llvm::SMLoc loc = args.getLoc();
  FailureOr<Value> negativePart = applyUnary<ReluOp>(
      lowering, loc, applyUnary<NegOp>(lowering, loc, input));
  FailureOr<Value> correction = applyUnary<Log1pOp>(
      lowering, loc,
      applyUnary<ExpOp>(
          lowering, loc,
          applyUnary<NegOp>(lowering, loc,
                            applyUnary<AbsOp>(lowering, loc, input))));
  if (failed(negativePart) || failed(correction))
    return failure();
  return applyUnary<NegOp>(
      lowering, loc, lowering.create<AddOp>(loc, {*negativePart, *correction}));
}

/// dropout at inference is the identity; p is checked as PyTorch does, and
/// training=True (random masks) is refused.
static FailureOr<Value> lowerDropout(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> p = failed(input) ? FailureOr<double>() : args.number("p");
  FailureOr<bool> training =
      failed(p) ? FailureOr<bool>() : args.boolean("training");
  FailureOr<bool> inplace =
      failed(training) ? FailureOr<bool>() : args.boolean("inplace");
  if (failed(inplace))
    return failure();
  if (*p < 0.0 || *p > 1.0)
    return args.lowering.emitError(args.get("p")->loc)
           << "dropout probability has to be between 0 and 1, but got "
           << args.get("p")->getSpelling();
  if (*training)
    return args.lowering.emitError(args.get("training")->loc)
           << args.call.name
           << "() with training=True draws random masks, which is not "
              "supported; a model is compiled for inference, where dropout "
              "is the identity (training=False)";
  return *input;
}

void frontend::addElementwiseBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, bool isMethod,
                 LowerFn lower) {
    builtins.push_back(
        {name, std::move(params), mirrors, summary, isMethod, lower});
  };
  add("relu", {"input"}, "torch.nn.functional.relu", "max(x, 0)", true,
      lowerUnary<ReluOp>);
  add("relu6", {"input"}, "torch.nn.functional.relu6", "min(max(x, 0), 6)",
      false, lowerRelu6);
  add("leaky_relu", {"input", "negative_slope=0.01"},
      "torch.nn.functional.leaky_relu", "x >= 0 ? x : negative_slope * x",
      false, lowerLeakyRelu);
  add("gelu", {"input", "approximate='none'"}, "torch.nn.functional.gelu",
      "x * Phi(x) (erf, or its tanh approximation)", false, lowerGelu);
  add("sigmoid", {"input"}, "torch.sigmoid", "1 / (1 + e^-x)", true,
      lowerUnary<SigmoidOp>);
  add("logsigmoid", {"input"}, "torch.nn.functional.logsigmoid",
      "log(sigmoid(x)), computed as ATen does: min(x, 0) - log1p(exp(-abs(x)))",
      false, lowerLogsigmoid);
  add("tanh", {"input"}, "torch.tanh", "tanh(x)", true, lowerUnary<TanhOp>);
  add("silu", {"input"}, "torch.nn.functional.silu", "x * sigmoid(x)", false,
      lowerUnary<SiluOp>);
  add("swish", {"input"}, "torch.nn.functional.silu",
      "x * sigmoid(x) (another name of silu)", false, lowerUnary<SiluOp>);
  add("mish", {"input"}, "torch.nn.functional.mish", "x * tanh(softplus(x))",
      false, lowerUnary<MishOp>);
  add("softplus", {"input", "beta=1.0", "threshold=20.0"},
      "torch.nn.functional.softplus",
      "log(1 + e^(beta x)) / beta, x where beta x > threshold", false,
      lowerSoftplus);
  add("elu", {"input", "alpha=1.0"}, "torch.nn.functional.elu",
      "x > 0 ? x : alpha (e^x - 1)", false, lowerElu);
  add("selu", {"input"}, "torch.nn.functional.selu",
      "scale (max(0, x) + min(0, alpha (e^x - 1)))", false, lowerUnary<SeluOp>);
  add("hardtanh", {"input", "min_val=-1.0", "max_val=1.0"},
      "torch.nn.functional.hardtanh", "clamp(x, min_val, max_val)", false,
      lowerHardtanh);
  add("hardsigmoid", {"input"}, "torch.nn.functional.hardsigmoid",
      "clamp(x / 6 + 1 / 2, 0, 1)", false, lowerUnary<HardsigmoidOp>);
  add("hardswish", {"input"}, "torch.nn.functional.hardswish",
      "x * clamp(x + 3, 0, 6) / 6", false, lowerUnary<HardswishOp>);
  add("softsign", {"input"}, "torch.nn.functional.softsign", "x / (1 + abs(x))",
      false, lowerUnary<SoftsignOp>);
  add("dropout", {"input", "p=0.5", "training=False", "inplace=False"},
      "torch.nn.functional.dropout",
      "the identity at inference (p checked; training=True is refused)", false,
      lowerDropout);
  add("clamp", {"input", "min=None", "max=None"}, "torch.clamp",
      "min(max(x, min), max), either bound optional", true, lowerClamp);
  add("clamp_min", {"input", "min"}, "torch.clamp_min", "max(x, min)", true,
      lowerOneSidedClamp);
  add("clamp_max", {"input", "max"}, "torch.clamp_max", "min(x, max)", true,
      lowerOneSidedClamp);
  add("neg", {"input"}, "torch.neg", "-x", true, lowerUnary<NegOp>);
  add("abs", {"input"}, "torch.abs", "the absolute value", true,
      lowerUnary<AbsOp>);
  add("exp", {"input"}, "torch.exp", "e^x", true, lowerUnary<ExpOp>);
  add("log", {"input"}, "torch.log", "ln(x)", true, lowerUnary<LogOp>);
  add("sqrt", {"input"}, "torch.sqrt", "sqrt(x)", true, lowerUnary<SqrtOp>);
  add("rsqrt", {"input"}, "torch.rsqrt", "1 / sqrt(x)", true,
      lowerUnary<RsqrtOp>);
  add("erf", {"input"}, "torch.erf", "the error function", true,
      lowerUnary<ErfOp>);
  add("expm1", {"input"}, "torch.expm1", "e^x - 1, accurate near 0", true,
      lowerUnary<Expm1Op>);
  add("log1p", {"input"}, "torch.log1p", "ln(1 + x), accurate near 0", true,
      lowerUnary<Log1pOp>);
  add("exp2", {"input"}, "torch.exp2", "2^x", true, lowerUnary<Exp2Op>);
  add("log2", {"input"}, "torch.log2", "log2(x)", true, lowerUnary<Log2Op>);
  add("log10", {"input"}, "torch.log10", "log10(x)", true, lowerUnary<Log10Op>);
  add("sin", {"input"}, "torch.sin", "sin(x), x in radians", true,
      lowerUnary<SinOp>);
  add("cos", {"input"}, "torch.cos", "cos(x), x in radians", true,
      lowerUnary<CosOp>);
  add("floor", {"input"}, "torch.floor", "the largest integer not above x",
      true, lowerUnary<FloorOp>);
  add("ceil", {"input"}, "torch.ceil", "the smallest integer not below x", true,
      lowerUnary<CeilOp>);
  add("round", {"input"}, "torch.round",
      "the nearest integer, halfway cases to the even one", true,
      lowerUnary<RoundOp>);
  add("trunc", {"input"}, "torch.trunc", "x rounded toward zero", true,
      lowerUnary<TruncOp>);
  add("sign", {"input"}, "torch.sign",
      "1, -1, or 0 (for zero and NaN, as ATen)", true, lowerUnary<SignOp>);
  add("square", {"input"}, "torch.square", "x^2", true, lowerSquare);
  add("reciprocal", {"input"}, "torch.reciprocal", "1 / x", true,
      lowerReciprocal);
  add("maximum", {"input", "other"}, "torch.maximum",
      "elementwise max(a, b) with broadcasting", true, lowerBinary<MaximumOp>);
  add("minimum", {"input", "other"}, "torch.minimum",
      "elementwise min(a, b) with broadcasting", true, lowerBinary<MinimumOp>);
  add("pow", {"input", "exponent"}, "torch.pow", "x^exponent with broadcasting",
      true, lowerBinary<PowOp>);
}
