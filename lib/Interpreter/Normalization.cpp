//===- Normalization.cpp - Normalization ops of the interpreter -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// layer_norm, rms_norm, group_norm, instance_norm and batch_norm as in
// torch.nn.functional: statistics are the mean and the biased variance,
// computed in two passes in double, and the output is
// (x - mean) * (1 / sqrt(var + eps)) * weight + bias.
//
//===----------------------------------------------------------------------===//

#include "Loops.h"
#include "OpEvaluators.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

/// Returns the value of the optional operand `value` (named `what`), null
/// when absent, after checking that its run-time shape is `expected`.
static FailureOr<const HostTensor *> getParameter(Operation *op, Value value,
                                                  ValueLookup lookup,
                                                  StringRef what,
                                                  ArrayRef<int64_t> expected) {
  if (!value)
    return static_cast<const HostTensor *>(nullptr);
  const HostTensor *tensor = lookup(value);
  if (ArrayRef<int64_t>(tensor->shape) != expected)
    return op->emitOpError()
           << what << " has shape " << formatShape(tensor->shape)
           << " at run time "
           << "but " << formatShape(expected) << " is expected";
  return tensor;
}

namespace {
/// Mean and biased variance of a group of values.
struct Moments {
  double mean = 0.0;
  double variance = 0.0;
};
} // namespace

/// Two-pass moments of the `count` contiguous values at `x`.
static Moments getMoments(const double *x, int64_t count) {
  Moments moments;
  for (int64_t i = 0; i < count; ++i)
    moments.mean += x[i];
  moments.mean /= static_cast<double>(count);
  for (int64_t i = 0; i < count; ++i)
    moments.variance += (x[i] - moments.mean) * (x[i] - moments.mean);
  moments.variance /= static_cast<double>(count);
  return moments;
}

static double getReciprocalStd(double variance, double eps) {
  return 1.0 / std::sqrt(variance + eps);
}

/// Returns the value at `index` of an optional per-feature tensor, or
/// `absent` without one.
static double getOr(const HostTensor *tensor, int64_t index, double absent) {
  return tensor ? tensor->data[index] : absent;
}

//===----------------------------------------------------------------------===//
// Normalization over trailing dims: layer_norm, rms_norm
//===----------------------------------------------------------------------===//

/// Normalizes every row of the trailing `normalized` dims of `op`'s input:
/// with `centered`, y = (x - mean) / sqrt(var + eps) * weight + bias;
/// without, y = x / sqrt(mean(x^2) + eps) * weight.
static FailureOr<HostTensor>
normalizeTrailing(Operation *op, const HostTensor &input,
                  ArrayRef<int64_t> normalized, const HostTensor *weight,
                  const HostTensor *bias, double eps, bool centered) {
  ArrayRef<int64_t> shape = input.shape;
  if (shape.take_back(normalized.size()) != normalized)
    return op->emitOpError("normalized_shape ")
           << formatShape(normalized)
           << " does not match the trailing dims of the input "
           << formatShape(shape) << " at run time";
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  int64_t inner = getSizeOfDims(normalized, 0, normalized.size());
  int64_t outer = getSizeOfDims(shape, 0, shape.size() - normalized.size());
  for (int64_t o = 0; o < outer; ++o) {
    const double *x = input.data.data() + o * inner;
    double *y = result->data.data() + o * inner;
    Moments moments;
    if (centered) {
      moments = getMoments(x, inner);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        moments.variance += x[i] * x[i];
      moments.variance /= static_cast<double>(inner);
    }
    double rstd = getReciprocalStd(moments.variance, eps);
    for (int64_t i = 0; i < inner; ++i)
      y[i] = (x[i] - moments.mean) * rstd * getOr(weight, i, 1.0) +
             getOr(bias, i, 0.0);
  }
  return result;
}

FailureOr<HostTensor> interp::evaluateLayerNorm(LayerNormOp op,
                                                ValueLookup lookup) {
  ArrayRef<int64_t> normalized = op.getNormalizedShape();
  FailureOr<const HostTensor *> weight =
      getParameter(op, op.getWeight(), lookup, "weight", normalized);
  FailureOr<const HostTensor *> bias =
      getParameter(op, op.getBias(), lookup, "bias", normalized);
  if (failed(weight) || failed(bias))
    return failure();
  return normalizeTrailing(op, *lookup(op.getInput()), normalized, *weight,
                           *bias, op.getEps().convertToDouble(), true);
}

/// The machine epsilon of `type`'s element type (torch.finfo(dtype).eps).
static double getMachineEpsilon(Type type) {
  auto floatType = cast<FloatType>(getElementTypeOrSelf(type));
  int precision =
      llvm::APFloat::semanticsPrecision(floatType.getFloatSemantics());
  return std::ldexp(1.0, 1 - precision);
}

FailureOr<HostTensor> interp::evaluateRmsNorm(RmsNormOp op,
                                              ValueLookup lookup) {
  ArrayRef<int64_t> normalized = op.getNormalizedShape();
  FailureOr<const HostTensor *> weight =
      getParameter(op, op.getWeight(), lookup, "weight", normalized);
  if (failed(weight))
    return failure();
  double eps = op.getEps() ? op.getEps()->convertToDouble()
                           : getMachineEpsilon(op.getInput().getType());
  return normalizeTrailing(op, *lookup(op.getInput()), normalized, *weight,
                           nullptr, eps, false);
}

//===----------------------------------------------------------------------===//
// Normalization over channels: group_norm, instance_norm, batch_norm
//===----------------------------------------------------------------------===//

namespace {
/// An input seen as [samples, channels, spatial] with one pair of
/// statistics per (sample, channel group), or per channel when
/// `statsPerSample` is 0 (batch_norm).
struct ChannelLayout {
  int64_t samples = 0, channels = 0, spatial = 0;
  int64_t statsPerSample = 0;
  int64_t channelsPerStat = 1;

  int64_t getStatIndex(int64_t sample, int64_t channel) const {
    return sample * statsPerSample + channel / channelsPerStat;
  }
};
} // namespace

static ChannelLayout getChannelLayout(ArrayRef<int64_t> shape) {
  ChannelLayout layout;
  layout.samples = shape[0];
  layout.channels = shape[1];
  layout.spatial = getSizeOfDims(shape, 2, shape.size());
  return layout;
}

/// y = (x - mean[s]) * rstd[s] * weight[c] + bias[c], s the statistics of
/// (sample, channel c).
static FailureOr<HostTensor>
applyChannelNormalization(Operation *op, const HostTensor &input,
                          const ChannelLayout &layout, ArrayRef<double> mean,
                          ArrayRef<double> rstd, const HostTensor *weight,
                          const HostTensor *bias) {
  FailureOr<HostTensor> result = allocateResult(op, input.shape);
  if (failed(result))
    return failure();
  for (int64_t n = 0; n < layout.samples; ++n) {
    for (int64_t c = 0; c < layout.channels; ++c) {
      int64_t stat = layout.getStatIndex(n, c);
      double scale = rstd[stat] * getOr(weight, c, 1.0);
      double shift = getOr(bias, c, 0.0);
      int64_t offset = (n * layout.channels + c) * layout.spatial;
      const double *x = input.data.data() + offset;
      double *y = result->data.data() + offset;
      for (int64_t s = 0; s < layout.spatial; ++s)
        y[s] = (x[s] - mean[stat]) * scale + shift;
    }
  }
  return result;
}

/// Reads the optional per-channel weight and bias of a channel norm.
static LogicalResult getAffine(Operation *op, Value weightValue,
                               Value biasValue, ValueLookup lookup,
                               int64_t channels, const HostTensor *&weight,
                               const HostTensor *&bias) {
  FailureOr<const HostTensor *> w =
      getParameter(op, weightValue, lookup, "weight", {channels});
  FailureOr<const HostTensor *> b =
      getParameter(op, biasValue, lookup, "bias", {channels});
  if (failed(w) || failed(b))
    return failure();
  weight = *w;
  bias = *b;
  return success();
}

/// Normalizes each of `groups` channel groups of each sample over its
/// channels and spatial positions (group_norm; instance_norm when every
/// channel is a group).
static FailureOr<HostTensor> normalizeGroups(Operation *op, Value inputValue,
                                             Value weightValue, Value biasValue,
                                             int64_t groups, double eps,
                                             ValueLookup lookup) {
  const HostTensor &input = *lookup(inputValue);
  ChannelLayout layout = getChannelLayout(input.shape);
  if (layout.channels == 0)
    return allocateResult(op, input.shape);
  if (layout.channels % groups != 0)
    return op->emitOpError("channels (")
           << layout.channels << ") are not divisible by num_groups (" << groups
           << ") at run time";
  const HostTensor *weight = nullptr, *bias = nullptr;
  if (failed(getAffine(op, weightValue, biasValue, lookup, layout.channels,
                       weight, bias)))
    return failure();
  layout.statsPerSample = groups;
  layout.channelsPerStat = layout.channels / groups;
  int64_t groupSize = layout.channelsPerStat * layout.spatial;
  std::vector<double> mean(layout.samples * groups),
      rstd(layout.samples * groups);
  for (int64_t i = 0, e = layout.samples * groups; i < e; ++i) {
    Moments moments = getMoments(input.data.data() + i * groupSize, groupSize);
    mean[i] = moments.mean;
    rstd[i] = getReciprocalStd(moments.variance, eps);
  }
  return applyChannelNormalization(op, input, layout, mean, rstd, weight, bias);
}

FailureOr<HostTensor> interp::evaluateGroupNorm(GroupNormOp op,
                                                ValueLookup lookup) {
  return normalizeGroups(op, op.getInput(), op.getWeight(), op.getBias(),
                         op.getNumGroups(), op.getEps().convertToDouble(),
                         lookup);
}

FailureOr<HostTensor> interp::evaluateInstanceNorm(InstanceNormOp op,
                                                   ValueLookup lookup) {
  int64_t channels = lookup(op.getInput())->shape[1];
  return normalizeGroups(op, op.getInput(), op.getWeight(), op.getBias(),
                         channels, op.getEps().convertToDouble(), lookup);
}

/// The batch's per-channel mean and biased variance over samples and
/// spatial positions (batch_norm in training mode).
static void getBatchMoments(const HostTensor &input,
                            const ChannelLayout &layout,
                            std::vector<double> &mean,
                            std::vector<double> &variance) {
  mean.assign(layout.channels, 0.0);
  variance.assign(layout.channels, 0.0);
  double count = static_cast<double>(layout.samples * layout.spatial);
  auto forEachSlice = [&](auto visit) {
    for (int64_t n = 0; n < layout.samples; ++n)
      for (int64_t c = 0; c < layout.channels; ++c)
        visit(c,
              input.data.data() + (n * layout.channels + c) * layout.spatial);
  };
  forEachSlice([&](int64_t c, const double *x) {
    for (int64_t s = 0; s < layout.spatial; ++s)
      mean[c] += x[s];
  });
  for (double &m : mean)
    m /= count;
  forEachSlice([&](int64_t c, const double *x) {
    for (int64_t s = 0; s < layout.spatial; ++s)
      variance[c] += (x[s] - mean[c]) * (x[s] - mean[c]);
  });
  for (double &v : variance)
    v /= count;
}

FailureOr<HostTensor> interp::evaluateBatchNorm(BatchNormOp op,
                                                ValueLookup lookup) {
  const HostTensor &input = *lookup(op.getInput());
  ChannelLayout layout = getChannelLayout(input.shape);
  const HostTensor *weight = nullptr, *bias = nullptr;
  if (failed(getAffine(op, op.getWeight(), op.getBias(), lookup,
                       layout.channels, weight, bias)))
    return failure();
  double eps = op.getEps().convertToDouble();
  std::vector<double> mean, variance;
  if (op.getTraining()) {
    if (layout.samples * layout.spatial <= 1)
      return op->emitOpError("in training mode needs more than one value per "
                             "channel, got an input of shape ")
             << formatShape(input.shape);
    getBatchMoments(input, layout, mean, variance);
  } else {
    FailureOr<const HostTensor *> runningMean = getParameter(
        op, op.getRunningMean(), lookup, "running_mean", {layout.channels});
    FailureOr<const HostTensor *> runningVar = getParameter(
        op, op.getRunningVar(), lookup, "running_var", {layout.channels});
    if (failed(runningMean) || failed(runningVar))
      return failure();
    mean = (*runningMean)->data;
    variance = (*runningVar)->data;
  }
  std::vector<double> rstd(layout.channels);
  for (int64_t c = 0; c < layout.channels; ++c)
    rstd[c] = getReciprocalStd(variance[c], eps);
  return applyChannelNormalization(op, input, layout, mean, rstd, weight, bias);
}
