//===- NormalizationOps.cpp - Sinter softmax and norms --------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of the normalizations: the shapes of their affine parameters,
// their normalized dims and eps.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Normalization verifiers
//===----------------------------------------------------------------------===//

/// Checks that an optional affine or statistics operand `value` (named
/// `what`) has exactly `expected` as its shape, `?` matching anything.
static LogicalResult verifyParameterShape(Operation *op, Value value,
                                          StringRef what,
                                          ArrayRef<int64_t> expected,
                                          StringRef expectedFrom) {
  if (!value)
    return success();
  auto type = cast<RankedTensorType>(value.getType());
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (type.getElementType() != inputType.getElementType())
    return op->emitOpError()
           << what << " has element type " << type.getElementType()
           << " but the input has " << inputType.getElementType();
  bool matches = type.getRank() == static_cast<int64_t>(expected.size());
  for (auto [actual, wanted] : llvm::zip(type.getShape(), expected))
    if (!ShapedType::isDynamic(actual) && !ShapedType::isDynamic(wanted) &&
        actual != wanted)
      matches = false;
  if (!matches)
    return op->emitOpError()
           << what << " has shape " << formatShape(type.getShape()) << " but "
           << expectedFrom << " is " << formatShape(expected);
  return success();
}

/// Checks `normalized_shape` against the trailing dims of the input.
static LogicalResult verifyNormalizedShape(Operation *op,
                                           ArrayRef<int64_t> normalized) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (normalized.empty())
    return op->emitOpError("normalized_shape must not be empty");
  if (static_cast<int64_t>(normalized.size()) > inputType.getRank())
    return op->emitOpError("normalized_shape ")
           << formatShape(normalized) << " has more dims than the input "
           << formatShape(inputType.getShape());
  ArrayRef<int64_t> trailing =
      inputType.getShape().take_back(normalized.size());
  for (auto [actual, wanted] : llvm::zip(trailing, normalized))
    if (wanted < 1 || (!ShapedType::isDynamic(actual) && actual != wanted))
      return op->emitOpError("normalized_shape ")
             << formatShape(normalized)
             << " does not match the trailing dims of the input "
             << formatShape(inputType.getShape());
  return success();
}

/// Checks that the input has at least `minRank` dims and returns the size of
/// its channel dim (dim 1) through `channels`.
static LogicalResult verifyChannelInput(Operation *op, int64_t minRank,
                                        int64_t &channels) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (inputType.getRank() < minRank)
    return op->emitOpError("input must have rank ")
           << minRank << " or more, got " << formatShape(inputType.getShape());
  channels = inputType.getDimSize(1);
  return success();
}

static LogicalResult verifyEps(Operation *op, double eps) {
  if (!(eps >= 0.0))
    return op->emitOpError("eps must be non-negative, got ") << eps;
  return success();
}

LogicalResult LayerNormOp::verify() {
  ArrayRef<int64_t> shape = getNormalizedShape();
  if (failed(verifyNormalizedShape(*this, shape)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             shape, "normalized_shape")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias", shape,
                                             "normalized_shape")));
}

LogicalResult RmsNormOp::verify() {
  ArrayRef<int64_t> shape = getNormalizedShape();
  if (failed(verifyNormalizedShape(*this, shape)))
    return failure();
  if (getEps() && failed(verifyEps(*this, getEps()->convertToDouble())))
    return failure();
  return verifyParameterShape(*this, getWeight(), "weight", shape,
                              "normalized_shape");
}

LogicalResult GroupNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 2, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  int64_t groups = getNumGroups();
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return emitOpError("channels (")
           << channels << ") are not divisible by num_groups (" << groups
           << ")";
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             {channels}, "channel count")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias",
                                             {channels}, "channel count")));
}

LogicalResult InstanceNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 3, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             {channels}, "channel count")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias",
                                             {channels}, "channel count")));
}

LogicalResult BatchNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 2, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  if (!getTraining() && (!getRunningMean() || !getRunningVar()))
    return emitOpError("needs running mean and var operands in inference mode");
  for (auto [value, what] : {std::pair{getRunningMean(), "running_mean"},
                             {getRunningVar(), "running_var"},
                             {getWeight(), "weight"},
                             {getBias(), "bias"}})
    if (failed(verifyParameterShape(*this, value, what, {channels},
                                    "channel count")))
      return failure();
  return success();
}
