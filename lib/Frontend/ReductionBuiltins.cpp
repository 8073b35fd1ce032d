//===- ReductionBuiltins.cpp - Reduction builtins of .sinter --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Reductions over dims (torch.sum ... torch.var, amax, amin, argmax, argmin),
// norms built from them (norm, normalize), and softmax / log_softmax.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;

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
      failed(dims) ? FailureOr<bool>() : args.boolean("keepdim");
  if (failed(keepdim))
    return failure();
  SmallVector<NamedAttribute> attributes{args.i64s("dims", *dims)};
  args.addFlag(attributes, "keepdim", *keepdim);
  if constexpr (std::is_same_v<OpTy, VarOp>) {
    FailureOr<bool> unbiased = args.boolean("unbiased");
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
      failed(dim) ? FailureOr<bool>() : args.boolean("keepdim");
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

/// The p of norm() and normalize(): 2 or 'fro' (the 2-norm of the elements),
/// or 1.
static FailureOr<double> getNormOrder(const Arguments &args) {
  const EvalValue *p = args.get("p");
  if (p->kind == EvalValue::Kind::String && p->text == "fro")
    return 2.0;
  if (p->kind == EvalValue::Kind::Number &&
      (p->number == 2.0 || p->number == 1.0))
    return p->number;
  return args.emitWrongKind("p", "2, 1 or 'fro'");
}

/// The p-norm of `input` over `dims`: sqrt(sum(x^2)) or sum(|x|).
static FailureOr<Value> lowerPNorm(const Arguments &args, Value input, double p,
                                   ArrayRef<int64_t> dims, bool keepdim) {
  ModelLowering &lowering = args.lowering;
  llvm::SMLoc loc = args.getLoc();
  FailureOr<Value> terms;
  if (p == 1.0) {
    terms = lowering.create<AbsOp>(loc, {input});
  } else {
    FailureOr<Value> two =
        lowering.createScalar(loc, 2.0, lowering.getScalarTypeFor(input));
    terms = failed(two) ? FailureOr<Value>()
                        : lowering.create<PowOp>(loc, {input, *two});
  }
  if (failed(terms))
    return failure();
  SmallVector<NamedAttribute> attributes{args.i64s("dims", dims)};
  args.addFlag(attributes, "keepdim", keepdim);
  FailureOr<Value> sum = lowering.create<SumOp>(loc, {*terms}, attributes);
  if (failed(sum) || p == 1.0)
    return sum;
  return lowering.create<SqrtOp>(loc, {*sum});
}

/// The input, p and dims of norm() and normalize().
struct NormArguments {
  Value input;
  double p;
  SmallVector<int64_t> dims;
};

static FailureOr<NormArguments> getNormArguments(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> p =
      failed(input) ? FailureOr<double>() : getNormOrder(args);
  FailureOr<SmallVector<int64_t>> dims =
      failed(p) ? FailureOr<SmallVector<int64_t>>()
                : args.dims("dim", getRank(*input));
  if (failed(dims))
    return failure();
  return NormArguments{*input, *p, std::move(*dims)};
}

static FailureOr<Value> lowerNorm(const Arguments &args) {
  FailureOr<NormArguments> norm = getNormArguments(args);
  FailureOr<bool> keepdim =
      failed(norm) ? FailureOr<bool>() : args.boolean("keepdim");
  if (failed(keepdim))
    return failure();
  return lowerPNorm(args, norm->input, norm->p, norm->dims, *keepdim);
}

/// normalize(x, p, dim, eps) = x / max(norm(x, p, dim, keepdim), eps).
static FailureOr<Value> lowerNormalize(const Arguments &args) {
  FailureOr<NormArguments> norm = getNormArguments(args);
  FailureOr<double> eps =
      failed(norm) ? FailureOr<double>() : args.number("eps");
  if (failed(eps))
    return failure();
  FailureOr<Value> length =
      lowerPNorm(args, norm->input, norm->p, norm->dims, true);
  FailureOr<Value> clamped =
      failed(length) ? FailureOr<Value>()
                     : args.lowering.create<ClampOp>(args.getLoc(), {*length},
                                                     {args.f64("min", *eps)});
  if (failed(clamped))
    return failure();
  return args.lowering.create<DivOp>(args.getLoc(), {norm->input, *clamped});
}

void frontend::addReductionBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, bool isMethod,
                 LowerFn lower) {
    builtins.push_back(
        {name, std::move(params), mirrors, summary, isMethod, lower});
  };
  add("sum", {"input", "dim=None", "keepdim=False"}, "torch.sum",
      "sum over dims (all when dim is None)", true, lowerReduction<SumOp>);
  add("mean", {"input", "dim=None", "keepdim=False"}, "torch.mean",
      "arithmetic mean over dims", true, lowerReduction<MeanOp>);
  add("max", {"input", "dim=None", "keepdim=False"}, "torch.max",
      "maximum over dims; with a dim, [0]/.values and [1]/.indices as in "
      "PyTorch",
      true, lowerReduction<MaxOp>);
  add("min", {"input", "dim=None", "keepdim=False"}, "torch.min",
      "minimum over dims; with a dim, [0]/.values and [1]/.indices as in "
      "PyTorch",
      true, lowerReduction<MinOp>);
  add("amax", {"input", "dim=None", "keepdim=False"}, "torch.amax",
      "maximum over dims", true, lowerReduction<MaxOp>);
  add("amin", {"input", "dim=None", "keepdim=False"}, "torch.amin",
      "minimum over dims", true, lowerReduction<MinOp>);
  add("prod", {"input", "dim=None", "keepdim=False"}, "torch.prod",
      "product over dims", true, lowerReduction<ProdOp>);
  add("logsumexp", {"input", "dim", "keepdim=False"}, "torch.logsumexp",
      "log(sum(exp(x))) over dims, max-subtracted", true,
      lowerReduction<LogsumexpOp>);
  add("argmax", {"input", "dim=None", "keepdim=False"}, "torch.argmax",
      "index of the first maximum along one dim (i64)", true,
      lowerArgReduction<ArgmaxOp>);
  add("argmin", {"input", "dim=None", "keepdim=False"}, "torch.argmin",
      "index of the first minimum along one dim (i64)", true,
      lowerArgReduction<ArgminOp>);
  add("var", {"input", "dim=None", "unbiased=True", "keepdim=False"},
      "torch.var", "variance over dims (N - 1 divisor when unbiased)", true,
      lowerReduction<VarOp>);
  add("norm", {"input", "p='fro'", "dim=None", "keepdim=False"}, "torch.norm",
      "2-norm (p=2 or 'fro') or 1-norm (p=1) over dims", true, lowerNorm);
  add("normalize", {"input", "p=2.0", "dim=1", "eps=1e-12"},
      "torch.nn.functional.normalize", "x / max(norm(x, p, dim), eps)", false,
      lowerNormalize);
  add("softmax", {"input", "dim"}, "torch.nn.functional.softmax",
      "e^x / sum(e^x) along dim", true, lowerSoftmax<SoftmaxOp>);
  add("log_softmax", {"input", "dim"}, "torch.nn.functional.log_softmax",
      "x - logsumexp(x) along dim", true, lowerSoftmax<LogSoftmaxOp>);
}
