//===- NormBuiltins.cpp - Normalization builtins of .sinter ---------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// layer_norm, rms_norm, group_norm, batch_norm and instance_norm with
// torch.nn.functional's signatures; each lowers to its sinter op.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;

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
  FailureOr<double> eps = args.number("eps");
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
    FailureOr<double> eps = args.number("eps");
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
  FailureOr<double> eps = args.number("eps");
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
  FailureOr<bool> training = args.boolean("training");
  FailureOr<double> momentum =
      failed(training) ? FailureOr<double>() : args.number("momentum");
  FailureOr<double> eps =
      failed(momentum) ? FailureOr<double>() : args.number("eps");
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
  FailureOr<bool> useInputStats = args.boolean("use_input_stats");
  FailureOr<double> momentum =
      failed(useInputStats) ? FailureOr<double>() : args.number("momentum");
  FailureOr<double> eps =
      failed(momentum) ? FailureOr<double>() : args.number("eps");
  if (failed(eps))
    return failure();
  if (!*useInputStats)
    return args.lowering.emitError(args.get("use_input_stats")->loc)
           << "instance_norm() with use_input_stats=false is not supported";
  return args.lowering.createWithOptionalOperands<InstanceNormOp>(
      args.getLoc(), {*input, weight, bias}, {args.f64("eps", *eps)});
}

void frontend::addNormBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, LowerFn lower) {
    builtins.push_back(
        {name, std::move(params), mirrors, summary, false, lower});
  };
  add("layer_norm",
      {"input", "normalized_shape", "weight=None", "bias=None", "eps=1e-05"},
      "torch.nn.functional.layer_norm",
      "normalizes over the trailing normalized_shape dims", lowerLayerNorm);
  add("rms_norm", {"input", "normalized_shape", "weight=None", "eps=None"},
      "torch.nn.functional.rms_norm",
      "x / sqrt(mean(x^2) + eps) * weight over the trailing dims",
      lowerRmsNorm);
  add("group_norm",
      {"input", "num_groups", "weight=None", "bias=None", "eps=1e-05"},
      "torch.nn.functional.group_norm", "normalizes groups of channels (dim 1)",
      lowerGroupNorm);
  add("batch_norm",
      {"input", "running_mean=None", "running_var=None", "weight=None",
       "bias=None", "training=False", "momentum=0.1", "eps=1e-05"},
      "torch.nn.functional.batch_norm",
      "normalizes every channel (dim 1) over the batch", lowerBatchNorm);
  add("instance_norm",
      {"input", "running_mean=None", "running_var=None", "weight=None",
       "bias=None", "use_input_stats=True", "momentum=0.1", "eps=1e-05"},
      "torch.nn.functional.instance_norm",
      "normalizes every (sample, channel) over the spatial dims",
      lowerInstanceNorm);
}
