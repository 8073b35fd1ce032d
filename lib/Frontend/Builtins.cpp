//===- Builtins.cpp - Builtin functions and init hints of .sinter ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The builtin functions of the language, named, ordered and defaulted as in
// torch.nn.functional (and torch for the reductions), each lowered to sinter
// ops; and the init hints of params. Arguments bind like Python's: positional
// in order, then by keyword.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Argument binding
//===----------------------------------------------------------------------===//

namespace {

/// The parameters of a builtin or init hint: names in positional order, of
/// which the first `numRequired` must be given.
struct Signature {
  StringRef name;
  std::vector<StringRef> params;
  unsigned numRequired;
};

/// Typed access to the bound arguments of one call. Every accessor reports a
/// wrong kind of argument at the argument's location.
class Arguments {
public:
  Arguments(ModelLowering &lowering, const BoundCall &call)
      : lowering(lowering), call(call), builder(lowering.getBuilder()) {}

  SMLoc getLoc() const { return call.loc; }
  const EvalValue *get(StringRef param) const { return call.lookup(param); }

  /// Reports that argument `param` is not `expected`.
  InFlightDiagnostic emitWrongKind(StringRef param, StringRef expected) const {
    const EvalValue *value = get(param);
    return lowering.emitError(value->loc)
           << "argument '" << param << "' of " << call.name << "() must be "
           << expected << ", got " << value->describe();
  }

  FailureOr<Value> tensor(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind != EvalValue::Kind::Tensor)
      return emitWrongKind(param, "a tensor");
    return value->tensor;
  }

  /// A tensor, or null when the argument is absent.
  FailureOr<Value> optionalTensor(StringRef param) const {
    if (!get(param))
      return Value();
    return tensor(param);
  }

  /// A tensor; a number becomes a rank-0 tensor of `scalarType`.
  FailureOr<Value> tensorOrNumber(StringRef param, Type scalarType) const {
    const EvalValue *value = get(param);
    if (value->kind == EvalValue::Kind::Number)
      return lowering.createScalar(value->loc, value->number, scalarType);
    if (value->kind != EvalValue::Kind::Tensor)
      return emitWrongKind(param, "a tensor or a number");
    return value->tensor;
  }

  FailureOr<double> number(StringRef param, double defaultValue) const {
    const EvalValue *value = get(param);
    if (!value)
      return defaultValue;
    if (value->kind != EvalValue::Kind::Number)
      return emitWrongKind(param, "a number");
    return value->number;
  }

  FailureOr<int64_t> integer(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind != EvalValue::Kind::Number || !value->isInteger)
      return emitWrongKind(param, "an integer");
    return value->integer;
  }

  FailureOr<bool> boolean(StringRef param, bool defaultValue) const {
    const EvalValue *value = get(param);
    if (!value)
      return defaultValue;
    if (value->kind != EvalValue::Kind::Bool)
      return emitWrongKind(param, "true or false");
    return value->boolean;
  }

  /// One of `choices`, `defaultValue` when absent.
  FailureOr<StringRef> choice(StringRef param, StringRef defaultValue,
                              ArrayRef<StringRef> choices) const {
    const EvalValue *value = get(param);
    if (!value)
      return defaultValue;
    std::string expected = "one of \"" + llvm::join(choices, "\", \"") + "\"";
    if (value->kind != EvalValue::Kind::String)
      return emitWrongKind(param, expected);
    auto it = llvm::find(choices, value->text);
    if (it == choices.end())
      return emitWrongKind(param, expected);
    return *it;
  }

  /// `dim` normalized against `rank` (Python-style negative indices).
  FailureOr<int64_t> normalizeDim(const EvalValue &value, int64_t rank) const {
    int64_t dim = value.integer;
    if (dim < -rank || dim >= rank)
      return lowering.emitError(value.loc)
             << "dim " << dim << " is out of range for a tensor of rank "
             << rank << " (expected " << -rank << " to " << rank - 1 << ")";
    return dim < 0 ? dim + rank : dim;
  }

  /// A single dim of a rank-`rank` tensor, normalized.
  FailureOr<int64_t> dim(StringRef param, int64_t rank) const {
    if (failed(integer(param)))
      return failure();
    return normalizeDim(*get(param), rank);
  }

  /// An int or a list of distinct ints naming dims of a rank-`rank` tensor,
  /// normalized; every dim when the argument is absent.
  FailureOr<SmallVector<int64_t>> dims(StringRef param, int64_t rank) const {
    const EvalValue *value = get(param);
    SmallVector<int64_t> result;
    if (!value) {
      for (int64_t dim = 0; dim < rank; ++dim)
        result.push_back(dim);
      return result;
    }
    static constexpr StringLiteral expected =
        "an integer or a list of integers";
    ArrayRef<EvalValue> elements(*value);
    if (value->kind == EvalValue::Kind::List) {
      elements = value->list;
      if (elements.empty())
        return emitWrongKind(param, "a non-empty list of dims");
    }
    llvm::SmallBitVector seen(rank);
    for (const EvalValue &element : elements) {
      if (element.kind != EvalValue::Kind::Number || !element.isInteger)
        return emitWrongKind(param, expected);
      FailureOr<int64_t> dim = normalizeDim(element, rank);
      if (failed(dim))
        return failure();
      if (seen.test(*dim))
        return lowering.emitError(element.loc)
               << "dim " << element.integer << " is listed twice";
      seen.set(*dim);
      result.push_back(*dim);
    }
    return result;
  }

  /// An int or a list of ints, each at least 1 (normalized_shape).
  FailureOr<SmallVector<int64_t>> sizes(StringRef param) const {
    const EvalValue *value = get(param);
    ArrayRef<EvalValue> elements(*value);
    if (value->kind == EvalValue::Kind::List)
      elements = value->list;
    SmallVector<int64_t> result;
    for (const EvalValue &element : elements) {
      if (element.kind != EvalValue::Kind::Number || !element.isInteger)
        return emitWrongKind(param, "an integer or a list of integers");
      if (element.integer < 1)
        return lowering.emitError(element.loc)
               << "sizes in '" << param << "' must be at least 1, got "
               << element.integer;
      result.push_back(element.integer);
    }
    if (result.empty())
      return emitWrongKind(param, "a non-empty list of sizes");
    return result;
  }

  NamedAttribute f64(StringRef name, double value) const {
    return builder.getNamedAttr(name, builder.getF64FloatAttr(value));
  }
  NamedAttribute i64s(StringRef name, ArrayRef<int64_t> values) const {
    return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
  }
  /// Appends the unit attribute `name` when `value` is set.
  void addFlag(SmallVectorImpl<NamedAttribute> &attributes, StringRef name,
               bool value) const {
    if (value)
      attributes.push_back(builder.getNamedAttr(name, builder.getUnitAttr()));
  }

  ModelLowering &lowering;
  const BoundCall &call;
  Builder &builder;
};

} // namespace

/// Returns the rank of a tensor value.
static int64_t getRank(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// Binds the arguments of `call` to the parameters of `signature` and
/// evaluates them.
static FailureOr<BoundCall> bindArguments(ModelLowering &lowering,
                                          const Expr &call,
                                          const Signature &signature) {
  BoundCall bound;
  bound.name = signature.name;
  bound.loc = call.loc;
  size_t positional = 0;
  bool sawKeyword = false;
  for (const Argument &argument : call.arguments) {
    StringRef param;
    SMLoc loc = argument.value->loc;
    if (argument.name.empty()) {
      if (sawKeyword)
        return lowering.emitError(loc)
               << "positional argument follows keyword argument in "
               << signature.name << "()";
      if (positional >= signature.params.size())
        return lowering.emitError(loc)
               << signature.name << "() takes " << signature.params.size()
               << " argument" << (signature.params.size() == 1 ? "" : "s")
               << " but " << call.arguments.size() << " were given";
      param = signature.params[positional++];
    } else {
      sawKeyword = true;
      loc = argument.nameLoc;
      auto it = llvm::find(signature.params, argument.name);
      if (it == signature.params.end()) {
        InFlightDiagnostic diag = lowering.emitError(loc)
                                  << signature.name << "() has no argument '"
                                  << argument.name << "'";
        if (!suggestClosest(diag, argument.name, signature.params))
          diag << " (its arguments: " << llvm::join(signature.params, ", ")
               << ")";
        return failure();
      }
      param = *it;
    }
    if (bound.arguments.count(param))
      return lowering.emitError(loc)
             << signature.name << "() got two values for argument '" << param
             << "'";
    FailureOr<EvalValue> value = lowering.lowerExpr(*argument.value);
    if (failed(value))
      return failure();
    bound.arguments[param] = std::move(*value);
  }
  for (StringRef param :
       ArrayRef(signature.params).take_front(signature.numRequired))
    if (!bound.arguments.count(param))
      return lowering.emitError(call.loc)
             << signature.name << "() is missing its argument '" << param
             << "'";
  return bound;
}

//===----------------------------------------------------------------------===//
// Builtin lowerings
//===----------------------------------------------------------------------===//

namespace {
using LowerFn = FailureOr<Value> (*)(const Arguments &);

/// A builtin function: its signature and how it lowers.
struct Builtin {
  Signature signature;
  LowerFn lower;
};
} // namespace

/// `op(input)` without attributes.
template <typename OpTy>
static FailureOr<Value> lowerUnary(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  return args.lowering.create<OpTy>(args.getLoc(), {*input});
}

/// `op(input)` with one f64 attribute `attr` from argument `param`.
template <typename OpTy>
static FailureOr<Value> lowerUnaryWith(const Arguments &args, StringRef param,
                                       StringRef attr, double defaultValue) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> value =
      failed(input) ? FailureOr<double>() : args.number(param, defaultValue);
  if (failed(value))
    return failure();
  return args.lowering.create<OpTy>(args.getLoc(), {*input},
                                    {args.f64(attr, *value)});
}

static FailureOr<Value> lowerLeakyRelu(const Arguments &args) {
  return lowerUnaryWith<LeakyReluOp>(args, "negative_slope", "alpha", 0.01);
}

static FailureOr<Value> lowerElu(const Arguments &args) {
  return lowerUnaryWith<EluOp>(args, "alpha", "alpha", 1.0);
}

static FailureOr<Value> lowerGelu(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<StringRef> approximate =
      args.choice("approximate", "none", {"none", "tanh"});
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
  FailureOr<double> beta = args.number("beta", 1.0);
  FailureOr<double> threshold =
      failed(beta) ? FailureOr<double>() : args.number("threshold", 20.0);
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
  FailureOr<double> minValue = args.number("min_val", -1.0);
  FailureOr<double> maxValue =
      failed(minValue) ? FailureOr<double>() : args.number("max_val", 1.0);
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
    FailureOr<double> bound = args.number(param, 0.0);
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

static FailureOr<Value> lowerMatmulBuiltin(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> other =
      failed(input) ? FailureOr<Value>() : args.tensor("other");
  if (failed(other))
    return failure();
  return args.lowering.lowerMatmul(args.getLoc(), *input, *other, false, false);
}

/// linear(x, w, b) = matmul(x, w) transpose_b + b.
static FailureOr<Value> lowerLinear(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> weight =
      failed(input) ? FailureOr<Value>() : args.tensor("weight");
  FailureOr<Value> bias =
      failed(weight) ? FailureOr<Value>() : args.optionalTensor("bias");
  if (failed(bias))
    return failure();
  FailureOr<Value> product =
      args.lowering.lowerMatmul(args.getLoc(), *input, *weight, false, true);
  if (failed(product) || !*bias)
    return product;
  return args.lowering.create<AddOp>(args.getLoc(), {*product, *bias});
}

/// Reductions: `op(input, dim=None, keepdim=false)`; no dim reduces all.
template <typename OpTy>
static FailureOr<Value> lowerReduction(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  const EvalValue *dimArg = args.get("dim");
  if (dimArg && dimArg->kind == EvalValue::Kind::Tensor &&
      (args.call.name == "max" || args.call.name == "min"))
    return args.emitWrongKind(
        "dim", ("an integer or a list of integers (for the elementwise " +
                args.call.name + " of two tensors use " + args.call.name +
                "imum(a, b))")
                   .str());
  FailureOr<SmallVector<int64_t>> dims = args.dims("dim", getRank(*input));
  FailureOr<bool> keepdim =
      failed(dims) ? FailureOr<bool>() : args.boolean("keepdim", false);
  if (failed(keepdim))
    return failure();
  SmallVector<NamedAttribute> attributes{args.i64s("dims", *dims)};
  args.addFlag(attributes, "keepdim", *keepdim);
  if constexpr (std::is_same_v<OpTy, VarOp>) {
    FailureOr<bool> unbiased = args.boolean("unbiased", true);
    if (failed(unbiased))
      return failure();
    attributes.push_back(args.builder.getNamedAttr(
        "unbiased", args.builder.getBoolAttr(*unbiased)));
  }
  return args.lowering.create<OpTy>(args.getLoc(), {*input}, attributes);
}

/// argmax/argmin: one dim; without it only a 1-D tensor has a meaning here
/// (PyTorch would index the flattened tensor).
template <typename OpTy>
static FailureOr<Value> lowerArgReduction(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = getRank(*input);
  if (!args.get("dim") && rank != 1)
    return args.lowering.emitError(args.getLoc())
           << args.call.name << "() needs dim= for a tensor of rank " << rank
           << " (indices into the flattened tensor are not supported)";
  FailureOr<int64_t> dim =
      args.get("dim") ? args.dim("dim", rank) : FailureOr<int64_t>(0);
  FailureOr<bool> keepdim =
      failed(dim) ? FailureOr<bool>() : args.boolean("keepdim", false);
  if (failed(keepdim))
    return failure();
  SmallVector<NamedAttribute> attributes{args.i64s("dims", {*dim})};
  args.addFlag(attributes, "keepdim", *keepdim);
  return args.lowering.create<OpTy>(args.getLoc(), {*input}, attributes);
}

template <typename OpTy>
static FailureOr<Value> lowerSoftmax(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<int64_t> dim =
      failed(input) ? FailureOr<int64_t>() : args.dim("dim", getRank(*input));
  if (failed(dim))
    return failure();
  return args.lowering.create<OpTy>(
      args.getLoc(), {*input},
      {args.builder.getNamedAttr("dim", args.builder.getI64IntegerAttr(*dim))});
}

/// The optional `weight` and `bias` of a normalization.
static LogicalResult getAffine(const Arguments &args, Value &weight,
                               Value &bias) {
  FailureOr<Value> w = args.optionalTensor("weight");
  FailureOr<Value> b =
      failed(w) ? FailureOr<Value>() : args.optionalTensor("bias");
  if (failed(b))
    return failure();
  weight = *w;
  bias = *b;
  return success();
}

static FailureOr<Value> lowerLayerNorm(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<SmallVector<int64_t>> shape =
      failed(input) ? FailureOr<SmallVector<int64_t>>()
                    : args.sizes("normalized_shape");
  Value weight, bias;
  if (failed(shape) || failed(getAffine(args, weight, bias)))
    return failure();
  FailureOr<double> eps = args.number("eps", 1e-5);
  if (failed(eps))
    return failure();
  return args.lowering.createWithOptionalOperands<LayerNormOp>(
      args.getLoc(), {*input, weight, bias},
      {args.i64s("normalized_shape", *shape), args.f64("eps", *eps)});
}

static FailureOr<Value> lowerRmsNorm(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<SmallVector<int64_t>> shape =
      failed(input) ? FailureOr<SmallVector<int64_t>>()
                    : args.sizes("normalized_shape");
  FailureOr<Value> weight =
      failed(shape) ? FailureOr<Value>() : args.optionalTensor("weight");
  if (failed(weight))
    return failure();
  SmallVector<NamedAttribute> attributes{args.i64s("normalized_shape", *shape)};
  if (args.get("eps")) {
    FailureOr<double> eps = args.number("eps", 0.0);
    if (failed(eps))
      return failure();
    attributes.push_back(args.f64("eps", *eps));
  }
  SmallVector<Value> operands{*input};
  if (*weight)
    operands.push_back(*weight);
  return args.lowering.create<RmsNormOp>(args.getLoc(), operands, attributes);
}

static FailureOr<Value> lowerGroupNorm(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<int64_t> groups =
      failed(input) ? FailureOr<int64_t>() : args.integer("num_groups");
  Value weight, bias;
  if (failed(groups) || failed(getAffine(args, weight, bias)))
    return failure();
  if (*groups < 1)
    return args.lowering.emitError(args.get("num_groups")->loc)
           << "num_groups of group_norm() must be at least 1, got " << *groups;
  FailureOr<double> eps = args.number("eps", 1e-5);
  if (failed(eps))
    return failure();
  return args.lowering.createWithOptionalOperands<GroupNormOp>(
      args.getLoc(), {*input, weight, bias},
      {args.builder.getNamedAttr("num_groups",
                                 args.builder.getI64IntegerAttr(*groups)),
       args.f64("eps", *eps)});
}

static FailureOr<Value> lowerBatchNorm(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> mean =
      failed(input) ? FailureOr<Value>() : args.optionalTensor("running_mean");
  FailureOr<Value> var =
      failed(mean) ? FailureOr<Value>() : args.optionalTensor("running_var");
  Value weight, bias;
  if (failed(var) || failed(getAffine(args, weight, bias)))
    return failure();
  FailureOr<bool> training = args.boolean("training", false);
  FailureOr<double> momentum =
      failed(training) ? FailureOr<double>() : args.number("momentum", 0.1);
  FailureOr<double> eps =
      failed(momentum) ? FailureOr<double>() : args.number("eps", 1e-5);
  if (failed(eps))
    return failure();
  if (!*training && (!*mean || !*var))
    return args.lowering.emitError(args.getLoc())
           << "batch_norm() with training=false normalizes with running "
              "statistics: pass running_mean and running_var, or set "
              "training=true";
  SmallVector<NamedAttribute> attributes{args.f64("eps", *eps)};
  args.addFlag(attributes, "training", *training);
  return args.lowering.createWithOptionalOperands<BatchNormOp>(
      args.getLoc(), {*input, *mean, *var, weight, bias}, attributes);
}

static FailureOr<Value> lowerInstanceNorm(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  for (StringRef param : {"running_mean", "running_var"})
    if (args.get(param))
      return args.lowering.emitError(args.get(param)->loc)
             << "instance_norm() with running statistics is not supported";
  Value weight, bias;
  if (failed(getAffine(args, weight, bias)))
    return failure();
  FailureOr<bool> useInputStats = args.boolean("use_input_stats", true);
  FailureOr<double> momentum = failed(useInputStats)
                                   ? FailureOr<double>()
                                   : args.number("momentum", 0.1);
  FailureOr<double> eps =
      failed(momentum) ? FailureOr<double>() : args.number("eps", 1e-5);
  if (failed(eps))
    return failure();
  if (!*useInputStats)
    return args.lowering.emitError(args.get("use_input_stats")->loc)
           << "instance_norm() with use_input_stats=false is not supported";
  return args.lowering.createWithOptionalOperands<InstanceNormOp>(
      args.getLoc(), {*input, weight, bias}, {args.f64("eps", *eps)});
}

static FailureOr<Value> lowerTransposeBuiltin(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = getRank(*input);
  FailureOr<int64_t> dim0 = args.dim("dim0", rank);
  FailureOr<int64_t> dim1 =
      failed(dim0) ? FailureOr<int64_t>() : args.dim("dim1", rank);
  if (failed(dim1))
    return failure();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[*dim0], perm[*dim1]);
  return args.lowering.create<TransposeOp>(args.getLoc(), {*input},
                                           {args.i64s("perm", perm)});
}

/// reshape(input, shape): sizes, at most one -1, and dim names. A -1 is
/// computed at compile time when the symbolic dims of both shapes cancel.
static FailureOr<Value> lowerReshape(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  const EvalValue *shapeArg = args.get("shape");
  ArrayRef<EvalValue> elements(*shapeArg);
  if (shapeArg->kind == EvalValue::Kind::List)
    elements = shapeArg->list;
  if (elements.size() > kMaxRank)
    return args.lowering.emitError(shapeArg->loc)
           << "reshape() to " << elements.size() << " dims; the limit is "
           << kMaxRank;

  // The symbolic dims of the input still to be matched by the result.
  SmallVector<std::string> unmatched;
  bool inputFullyNamed = true;
  int64_t inputCount = 1, resultCount = 1;
  for (auto [size, name] :
       llvm::zip(inputType.getShape(), args.lowering.getDimNames(*input))) {
    if (!ShapedType::isDynamic(size))
      inputCount *= size;
    else if (name.empty())
      inputFullyNamed = false;
    else
      unmatched.push_back(name);
  }

  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  std::optional<size_t> inferred;
  bool resultMatched = true;
  for (const EvalValue &element : elements) {
    if (element.kind == EvalValue::Kind::Dim) {
      auto it = llvm::find(unmatched, element.text);
      if (it != unmatched.end())
        unmatched.erase(it);
      else
        resultMatched = false;
      shape.push_back(ShapedType::kDynamic);
      names.push_back(element.text);
      continue;
    }
    if (element.kind != EvalValue::Kind::Number || !element.isInteger)
      return args.emitWrongKind("shape",
                                "a list of sizes, dim names and one -1");
    if (element.integer == -1) {
      if (inferred)
        return args.lowering.emitError(element.loc)
               << "reshape() can infer only one dim (-1)";
      inferred = shape.size();
    } else if (element.integer < 1) {
      return args.lowering.emitError(element.loc)
             << "reshape() sizes must be at least 1 (or -1), got "
             << element.integer;
    } else if (llvm::MulOverflow(resultCount, element.integer, resultCount)) {
      return args.lowering.emitError(element.loc)
             << "reshape() shape has too many elements";
    }
    shape.push_back(element.integer);
    names.push_back("");
  }

  bool known = inputFullyNamed && resultMatched && unmatched.empty();
  if (known && inferred) {
    if (inputCount % resultCount != 0)
      return args.lowering.emitError(args.getLoc())
             << "reshape() cannot infer the -1 dim: " << inputCount
             << " elements are not a multiple of " << resultCount;
    shape[*inferred] = inputCount / resultCount;
  } else if (known && inputCount != resultCount) {
    return args.lowering.emitError(args.getLoc())
           << "reshape() changes the element count: the input has "
           << inputCount << " elements (per symbolic dim), the shape "
           << resultCount;
  } else if (inferred) {
    shape[*inferred] = ShapedType::kDynamic;
  }

  FailureOr<Value> result = args.lowering.create<ReshapeOp>(
      args.getLoc(), {*input}, {}, inputType.clone(shape));
  if (succeeded(result))
    args.lowering.setDimNames(*result, std::move(names));
  return result;
}

/// The builtin functions, by name.
static ArrayRef<Builtin> getBuiltins() {
  static const std::vector<Builtin> builtins = {
      {{"matmul", {"input", "other"}, 2}, lowerMatmulBuiltin},
      {{"linear", {"input", "weight", "bias"}, 2}, lowerLinear},
      {{"relu", {"input"}, 1}, lowerUnary<ReluOp>},
      {{"leaky_relu", {"input", "negative_slope"}, 1}, lowerLeakyRelu},
      {{"gelu", {"input", "approximate"}, 1}, lowerGelu},
      {{"sigmoid", {"input"}, 1}, lowerUnary<SigmoidOp>},
      {{"tanh", {"input"}, 1}, lowerUnary<TanhOp>},
      {{"silu", {"input"}, 1}, lowerUnary<SiluOp>},
      {{"swish", {"input"}, 1}, lowerUnary<SiluOp>},
      {{"mish", {"input"}, 1}, lowerUnary<MishOp>},
      {{"softplus", {"input", "beta", "threshold"}, 1}, lowerSoftplus},
      {{"elu", {"input", "alpha"}, 1}, lowerElu},
      {{"selu", {"input"}, 1}, lowerUnary<SeluOp>},
      {{"hardtanh", {"input", "min_val", "max_val"}, 1}, lowerHardtanh},
      {{"hardsigmoid", {"input"}, 1}, lowerUnary<HardsigmoidOp>},
      {{"hardswish", {"input"}, 1}, lowerUnary<HardswishOp>},
      {{"softsign", {"input"}, 1}, lowerUnary<SoftsignOp>},
      {{"clamp", {"input", "min", "max"}, 1}, lowerClamp},
      {{"exp", {"input"}, 1}, lowerUnary<ExpOp>},
      {{"log", {"input"}, 1}, lowerUnary<LogOp>},
      {{"sqrt", {"input"}, 1}, lowerUnary<SqrtOp>},
      {{"rsqrt", {"input"}, 1}, lowerUnary<RsqrtOp>},
      {{"abs", {"input"}, 1}, lowerUnary<AbsOp>},
      {{"maximum", {"input", "other"}, 2}, lowerBinary<MaximumOp>},
      {{"minimum", {"input", "other"}, 2}, lowerBinary<MinimumOp>},
      {{"pow", {"input", "exponent"}, 2}, lowerBinary<PowOp>},
      {{"sum", {"input", "dim", "keepdim"}, 1}, lowerReduction<SumOp>},
      {{"mean", {"input", "dim", "keepdim"}, 1}, lowerReduction<MeanOp>},
      {{"max", {"input", "dim", "keepdim"}, 1}, lowerReduction<MaxOp>},
      {{"min", {"input", "dim", "keepdim"}, 1}, lowerReduction<MinOp>},
      {{"prod", {"input", "dim", "keepdim"}, 1}, lowerReduction<ProdOp>},
      {{"logsumexp", {"input", "dim", "keepdim"}, 2},
       lowerReduction<LogsumexpOp>},
      {{"argmax", {"input", "dim", "keepdim"}, 1}, lowerArgReduction<ArgmaxOp>},
      {{"argmin", {"input", "dim", "keepdim"}, 1}, lowerArgReduction<ArgminOp>},
      {{"var", {"input", "dim", "unbiased", "keepdim"}, 1},
       lowerReduction<VarOp>},
      {{"softmax", {"input", "dim"}, 2}, lowerSoftmax<SoftmaxOp>},
      {{"log_softmax", {"input", "dim"}, 2}, lowerSoftmax<LogSoftmaxOp>},
      {{"layer_norm",
        {"input", "normalized_shape", "weight", "bias", "eps"},
        2},
       lowerLayerNorm},
      {{"group_norm", {"input", "num_groups", "weight", "bias", "eps"}, 2},
       lowerGroupNorm},
      {{"batch_norm",
        {"input", "running_mean", "running_var", "weight", "bias", "training",
         "momentum", "eps"},
        1},
       lowerBatchNorm},
      {{"instance_norm",
        {"input", "running_mean", "running_var", "weight", "bias",
         "use_input_stats", "momentum", "eps"},
        1},
       lowerInstanceNorm},
      {{"rms_norm", {"input", "normalized_shape", "weight", "eps"}, 2},
       lowerRmsNorm},
      {{"transpose", {"input", "dim0", "dim1"}, 3}, lowerTransposeBuiltin},
      {{"reshape", {"input", "shape"}, 2}, lowerReshape},
  };
  return builtins;
}

/// The init hints of params: randn() rand() zeros() ones() uniform(lo, hi)
/// normal(mean, std) linear_default(fan_in).
static ArrayRef<Signature> getInitHints() {
  static const std::vector<Signature> hints = {
      {"randn", {}, 0},
      {"rand", {}, 0},
      {"zeros", {}, 0},
      {"ones", {}, 0},
      {"uniform", {"lo", "hi"}, 0},
      {"normal", {"mean", "std"}, 0},
      {"linear_default", {"fan_in"}, 0},
  };
  return hints;
}

/// Names of `entries` for suggestions and messages.
template <typename Range, typename GetName>
static SmallVector<StringRef> getNames(Range entries, GetName getName) {
  SmallVector<StringRef> names;
  for (const auto &entry : entries)
    names.push_back(getName(entry));
  return names;
}

static SmallVector<StringRef> getInitHintNames() {
  return getNames(getInitHints(),
                  [](const Signature &hint) { return hint.name; });
}

FailureOr<EvalValue> ModelLowering::lowerCall(const Expr &call) {
  if (inInitHint)
    return emitError(call.loc) << "arguments of an init hint must be numbers";
  ArrayRef<Builtin> builtins = getBuiltins();
  const Builtin *builtin = llvm::find_if(builtins, [&](const Builtin &entry) {
    return entry.signature.name == call.text;
  });
  if (builtin == builtins.end()) {
    InFlightDiagnostic diag = emitError(call.loc);
    if (llvm::is_contained(getInitHintNames(), call.text))
      return diag << "'" << call.text
                  << "' is an init hint; it can only initialize a param, as "
                     "in 'param w: f32[64, 64] = "
                  << call.text << "()'";
    if (scope.count(call.text))
      return diag << "'" << call.text << "' is a value, not a function";
    diag << "unknown function '" << call.text << "'";
    suggestClosest(diag, call.text,
                   getNames(builtins, [](const Builtin &entry) {
                     return entry.signature.name;
                   }));
    return failure();
  }
  FailureOr<BoundCall> bound = bindArguments(*this, call, builtin->signature);
  if (failed(bound))
    return failure();
  FailureOr<Value> result = builtin->lower(Arguments(*this, *bound));
  if (failed(result))
    return failure();
  return EvalValue::getTensor(*result, call.loc);
}

/// Checks the arguments of an init hint (one value per parameter).
static LogicalResult checkInitHint(ModelLowering &lowering, SMLoc loc,
                                   const InitHint &hint) {
  if (hint.kind == "uniform" && !(hint.args[0] <= hint.args[1]))
    return lowering.emitError(loc)
           << "uniform(lo, hi) needs lo <= hi, got "
           << formatNumber(hint.args[0]) << " > " << formatNumber(hint.args[1]);
  if (hint.kind == "normal" && !(hint.args[1] >= 0.0))
    return lowering.emitError(loc) << "normal(mean, std) needs std >= 0, got "
                                   << formatNumber(hint.args[1]);
  if (hint.kind == "linear_default" &&
      (hint.args[0] < 1.0 || hint.args[0] != std::floor(hint.args[0])))
    return lowering.emitError(loc)
           << "linear_default(fan_in) needs an integer fan_in >= 1, got "
           << formatNumber(hint.args[0]);
  return success();
}

FailureOr<InitHint> ModelLowering::lowerInitHint(const Expr *init,
                                                 int64_t defaultFanIn) {
  if (!init)
    return InitHint{"linear_default", {static_cast<double>(defaultFanIn)}};
  SmallVector<StringRef> hintNames = getInitHintNames();
  std::string expected =
      "an init hint (" + llvm::join(hintNames, "(), ") + "())";
  if (init->kind != Expr::Kind::Call)
    return emitError(init->loc) << "a param is initialized by " << expected;
  ArrayRef<Signature> hints = getInitHints();
  const Signature *signature = llvm::find_if(
      hints, [&](const Signature &hint) { return hint.name == init->text; });
  if (signature == hints.end()) {
    InFlightDiagnostic diag = emitError(init->loc)
                              << "unknown init hint '" << init->text << "'";
    if (!suggestClosest(diag, init->text, hintNames))
      diag << "; expected " << expected;
    return failure();
  }

  inInitHint = true;
  FailureOr<BoundCall> bound = bindArguments(*this, *init, *signature);
  inInitHint = false;
  if (failed(bound))
    return failure();
  InitHint hint{signature->name.str(), {}};
  for (StringRef param : signature->params) {
    const EvalValue *value = bound->lookup(param);
    if (value && value->kind != EvalValue::Kind::Number)
      return emitError(value->loc)
             << "argument '" << param << "' of " << signature->name
             << "() must be a number, got " << value->describe();
    double fallback = param == "fan_in" ? static_cast<double>(defaultFanIn)
                      : param == "hi" || param == "std" ? 1.0
                                                        : 0.0;
    hint.args.push_back(value ? value->number : fallback);
  }
  if (failed(checkInitHint(*this, init->loc, hint)))
    return failure();
  return hint;
}
