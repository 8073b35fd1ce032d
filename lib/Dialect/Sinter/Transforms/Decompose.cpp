//===- Decompose.cpp - Softmax, var and norms into reductions -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-decompose rewrites softmax, log_softmax, logsumexp, var and the
// normalizations into reductions and elementwise ops, following PyTorch's
// definitions: exponentials are max-subtracted, the norms use the biased
// variance and var divides by N - 1 when unbiased. Every op is rewritten
// once, in one walk; an op whose shapes the decomposition cannot express is
// reported at that op.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERDECOMPOSE
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Legality: shapes that the decompositions can express
//===----------------------------------------------------------------------===//

/// The shape [C, 1, ..., 1] under which a per-channel vector [C] broadcasts
/// along dim 1 of a rank-`rank` input.
static SmallVector<int64_t> channelShape(Value perChannel, int64_t rank) {
  SmallVector<int64_t> shape{
      cast<RankedTensorType>(perChannel.getType()).getDimSize(0)};
  shape.append(rank - 2, 1);
  return shape;
}

/// The shape [N, G, C / G * spatial...] in which group_norm's groups are the
/// rows of dim 2, when a reshape there and back can express it: a static
/// channel count and at most one dynamic dim in the input (a reshape has at
/// most one); nothing otherwise.
static std::optional<SmallVector<int64_t>> groupedShape(GroupNormOp op) {
  ArrayRef<int64_t> shape = op.getInput().getType().getShape();
  int64_t channels = shape[1], groups = op.getNumGroups();
  if (ShapedType::isDynamic(channels) ||
      llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return std::nullopt;
  int64_t perGroup = channels / groups;
  bool dynamicSpatial = false;
  for (int64_t size : shape.drop_front(2)) {
    dynamicSpatial |= ShapedType::isDynamic(size);
    if (!dynamicSpatial)
      perGroup *= size;
  }
  return SmallVector<int64_t>{shape[0], groups,
                              dynamicSpatial ? ShapedType::kDynamic : perGroup};
}

/// Returns true if every dim of `type` but the channel dim (1) has static
/// size 1: batch statistics of one value (PyTorch rejects that in training).
static bool hasOneValuePerChannel(RankedTensorType type) {
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (dim != 1 && size != 1)
      return false;
  return true;
}

/// Returns why `op` cannot be decomposed, or nothing if it can: every
/// per-feature operand must broadcast into the input without changing its
/// type, and group_norm needs a shape that one reshape can regroup.
static std::optional<std::string> decompositionBlocker(Operation *op) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto blockedBy = [&](ArrayRef<Value> operands,
                       bool perChannel) -> std::optional<std::string> {
    for (Value operand : operands) {
      if (!operand)
        continue;
      SmallVector<int64_t> shape =
          perChannel
              ? channelShape(operand, input.getRank())
              : llvm::to_vector(
                    cast<RankedTensorType>(operand.getType()).getShape());
      if (!broadcastsTo(input.getShape(), shape, input.getShape()))
        return std::string("an affine or statistics operand of static shape "
                           "would change the input's dynamic shape");
    }
    return std::nullopt;
  };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case([&](LayerNormOp norm) {
        return blockedBy({norm.getWeight(), norm.getBias()}, false);
      })
      .Case(
          [&](RmsNormOp norm) { return blockedBy({norm.getWeight()}, false); })
      .Case([&](GroupNormOp norm) -> std::optional<std::string> {
        if (norm.getInput().getType().isDynamicDim(1))
          return std::string("its channel count must be static");
        return blockedBy({norm.getWeight(), norm.getBias()}, true);
      })
      .Case([&](InstanceNormOp norm) {
        return blockedBy({norm.getWeight(), norm.getBias()}, true);
      })
      .Case([&](BatchNormOp norm) -> std::optional<std::string> {
        if (norm.getTraining() && hasOneValuePerChannel(input))
          return std::string("in training mode it needs more than one value "
                             "per channel, but the batch and spatial dims "
                             "hold one element");
        return blockedBy({norm.getRunningMean(), norm.getRunningVar(),
                          norm.getWeight(), norm.getBias()},
                         true);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Returns true for the ops that sinter-decompose removes.
static bool isDecomposedOp(Operation *op) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  return isCompositeOp(op) ||
         (reduction && getCombinerInfo(reduction.getCombiner()).isDecomposed());
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// A rank-0 constant of the element type of `like`.
static Value scalarLike(ImplicitLocOpBuilder &b, Value like, double value) {
  return createScalarConstant(b, b.getLoc(), getElementType(like), value);
}

/// The dims [first, rank).
static SmallVector<int64_t> dimsFrom(int64_t first, int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(first, rank));
}

/// x - max(x) over `dims` (kept), the shift that keeps exp from overflowing.
static Value subtractMax(ImplicitLocOpBuilder &b, Value x,
                         ArrayRef<int64_t> dims) {
  return SubOp::create(b, x, MaxOp::create(b, x, dims, /*keepdim=*/true));
}

/// clamp(v, -largest, largest): PyTorch's logsumexp uses 0 instead of an
/// infinite maximum; any finite value gives the same result, and clamping
/// to the largest finite value yields one without a select op.
static Value clampToFinite(ImplicitLocOpBuilder &b, Value v) {
  auto type = cast<FloatType>(getElementType(v));
  double largest =
      APFloat::getLargest(type.getFloatSemantics()).convertToDouble();
  return ClampOp::create(b, v, b.getF64FloatAttr(-largest),
                         b.getF64FloatAttr(largest));
}

/// (x - mean(x)) * rsqrt(mean((x - mean(x))^2) + eps) over `dims`: the
/// normalization that every norm shares, with the biased variance.
static Value normalize(ImplicitLocOpBuilder &b, Value x, ArrayRef<int64_t> dims,
                       double eps) {
  Value centered =
      SubOp::create(b, x, MeanOp::create(b, x, dims, /*keepdim=*/true));
  Value variance = MeanOp::create(b, MulOp::create(b, centered, centered), dims,
                                  /*keepdim=*/true);
  Value rstd =
      RsqrtOp::create(b, AddOp::create(b, variance, scalarLike(b, x, eps)));
  return MulOp::create(b, centered, rstd);
}

/// The mean of `perChannel` [N, C, 1, ...] over each group of C / `groups`
/// channels, broadcast back to [N, C, 1, ...]: mean over dim 2 of [N, G,
/// C / G], times ones [1, 1, C / G] (exact) to widen it again.
static Value meanOverGroups(ImplicitLocOpBuilder &b, Value perChannel,
                            int64_t groups) {
  auto type = cast<RankedTensorType>(perChannel.getType());
  int64_t n = type.getDimSize(0), channels = type.getDimSize(1);
  Value grouped =
      createReshape(b, b.getLoc(), perChannel, {n, groups, channels / groups});
  Value mean = MeanOp::create(b, grouped, {2}, /*keepdim=*/true);
  auto onesType =
      RankedTensorType::get({1, 1, channels / groups}, type.getElementType());
  Value ones = ConstantOp::create(
      b, DenseElementsAttr::get(onesType,
                                b.getFloatAttr(type.getElementType(), 1.0)));
  return createReshape(b, b.getLoc(), MulOp::create(b, mean, ones),
                       type.getShape());
}

/// group_norm's normalization of `x` [N, C, spatial...] from per-channel
/// statistics, for shapes that no reshape can regroup (two dynamic dims):
/// every channel holds as many elements, so a group's mean is the mean of
/// its channels' means, and its biased variance the mean of their mean
/// squared deviations from the group mean.
static Value normalizeGroupsByChannel(ImplicitLocOpBuilder &b, Value x,
                                      int64_t groups, double eps) {
  SmallVector<int64_t> spatial =
      dimsFrom(2, cast<RankedTensorType>(x.getType()).getRank());
  auto groupMean = [&](Value v) {
    return meanOverGroups(b, MeanOp::create(b, v, spatial, /*keepdim=*/true),
                          groups);
  };
  Value centered = SubOp::create(b, x, groupMean(x));
  Value variance = groupMean(MulOp::create(b, centered, centered));
  Value rstd =
      RsqrtOp::create(b, AddOp::create(b, variance, scalarLike(b, x, eps)));
  return MulOp::create(b, centered, rstd);
}

/// Reshapes a per-channel vector [C] so that it broadcasts along dim 1 of
/// `like`.
static Value alongChannels(ImplicitLocOpBuilder &b, Value perChannel,
                           Value like) {
  auto rank = cast<RankedTensorType>(like.getType()).getRank();
  return createReshape(b, b.getLoc(), perChannel,
                       channelShape(perChannel, rank));
}

/// Whether an affine weight and bias apply along the trailing dims (layer
/// and rms norm) or per channel, along dim 1 (the other norms).
enum class AffineLayout { Trailing, PerChannel };

/// y * weight + bias, each optional.
static Value applyAffine(ImplicitLocOpBuilder &b, Value y, Value weight,
                         Value bias, AffineLayout layout) {
  auto align = [&](Value operand) {
    return layout == AffineLayout::PerChannel ? alongChannels(b, operand, y)
                                              : operand;
  };
  if (weight)
    y = MulOp::create(b, y, align(weight));
  if (bias)
    y = AddOp::create(b, y, align(bias));
  return y;
}

/// The rank of the input of a single-input op.
static int64_t inputRank(Operation *op) {
  return cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// Base of the decompositions: checks the blocker, then builds the
/// replacement at the op's location with `decompose`.
template <typename OpTy>
struct DecomposePattern : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    if (!appliesTo(op))
      return rewriter.notifyMatchFailure(op, "another pattern decomposes it");
    if (std::optional<std::string> blocker = decompositionBlocker(op))
      return rewriter.notifyMatchFailure(op, *blocker);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op, decompose(op, b));
    return success();
  }

  /// Returns false for the ops of the matched kind that another pattern
  /// decomposes.
  virtual bool appliesTo(OpTy op) const { return true; }

  /// Builds the value that replaces `op`.
  virtual Value decompose(OpTy op, ImplicitLocOpBuilder &b) const = 0;
};

/// softmax(x) = exp(x - max x) / sum(exp(x - max x))
struct DecomposeSoftmax : public DecomposePattern<SoftmaxOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(SoftmaxOp op, ImplicitLocOpBuilder &b) const override {
    int64_t dim = op.getDim();
    Value e = ExpOp::create(b, subtractMax(b, op.getInput(), dim));
    return DivOp::create(b, e, SumOp::create(b, e, dim, /*keepdim=*/true));
  }
};

/// log_softmax(x) = (x - max x) - log(sum(exp(x - max x)))
struct DecomposeLogSoftmax : public DecomposePattern<LogSoftmaxOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(LogSoftmaxOp op, ImplicitLocOpBuilder &b) const override {
    int64_t dim = op.getDim();
    Value shifted = subtractMax(b, op.getInput(), dim);
    Value sum =
        SumOp::create(b, ExpOp::create(b, shifted), dim, /*keepdim=*/true);
    return SubOp::create(b, shifted, LogOp::create(b, sum));
  }
};

/// logsumexp(x) = m + log(sum(exp(x - m))), m = max x clamped to finite;
/// over size-1 dims logsumexp(x) = x exactly
struct DecomposeLogsumexp : public DecomposePattern<LogsumexpOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(LogsumexpOp op, ImplicitLocOpBuilder &b) const override {
    Value x = op.getInput();
    if (op.reducesOnlyUnitDims() && canDropReducedDims(op))
      return createReshape(b, b.getLoc(), x, op.getType().getShape());
    ArrayRef<int64_t> dims = op.getDims();
    bool keepdim = op.getKeepdim();
    Value kept = clampToFinite(b, MaxOp::create(b, x, dims, /*keepdim=*/true));
    // Without keepdim the result is reshaped to drop the reduced dims, so
    // that one max pairs with the sum (an online softmax pass); where a
    // reshape could not drop several dynamic dims, the sum drops them and
    // the maximum is taken again in the reduced shape.
    ArrayRef<int64_t> shape = op.getType().getShape();
    bool reshape = !keepdim && isReshapeTarget(shape);
    Value sum = SumOp::create(b, ExpOp::create(b, SubOp::create(b, x, kept)),
                              dims, keepdim || reshape);
    Value max = keepdim || reshape
                    ? kept
                    : clampToFinite(b, MaxOp::create(b, x, dims, keepdim));
    Value result = AddOp::create(b, max, LogOp::create(b, sum));
    return reshape ? createReshape(b, b.getLoc(), result, shape) : result;
  }
};

/// var(x) = sum((x - mean x)^2) / (unbiased ? N - 1 : N)
struct DecomposeVar : public DecomposePattern<VarOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(VarOp op, ImplicitLocOpBuilder &b) const override {
    Value x = op.getInput();
    ArrayRef<int64_t> dims = op.getDims();
    bool keepdim = op.getKeepdim();
    Value centered =
        SubOp::create(b, x, MeanOp::create(b, x, dims, /*keepdim=*/true));
    Value squares = MulOp::create(b, centered, centered);
    if (!op.getUnbiased())
      return MeanOp::create(b, squares, dims, keepdim);
    Value sum = SumOp::create(b, squares, dims, keepdim);
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    int64_t count = 1;
    for (int64_t dim : dims)
      count = ShapedType::isDynamic(shape[dim]) || ShapedType::isDynamic(count)
                  ? ShapedType::kDynamic
                  : count * shape[dim];
    if (!ShapedType::isDynamic(count))
      return DivOp::create(b, sum, scalarLike(b, x, count - 1));
    // N is known at run time only: count the elements as sum(x^0), since
    // x^0 = 1 for every x, inf and NaN included.
    Value ones = PowOp::create(b, x, scalarLike(b, x, 0.0));
    Value elements = SumOp::create(b, ones, dims, keepdim);
    return DivOp::create(b, sum,
                         SubOp::create(b, elements, scalarLike(b, x, 1.0)));
  }
};

/// layer_norm(x) = (x - E[x]) * rsqrt(Var[x] + eps) * w + b, trailing dims
struct DecomposeLayerNorm : public DecomposePattern<LayerNormOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(LayerNormOp op, ImplicitLocOpBuilder &b) const override {
    int64_t rank = inputRank(op);
    auto dims = dimsFrom(rank - op.getNormalizedShape().size(), rank);
    Value y = normalize(b, op.getInput(), dims, op.getEps().convertToDouble());
    return applyAffine(b, y, op.getWeight(), op.getBias(),
                       AffineLayout::Trailing);
  }
};

/// rms_norm(x) = x * rsqrt(E[x^2] + eps) * w over the trailing dims
struct DecomposeRmsNorm : public DecomposePattern<RmsNormOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(RmsNormOp op, ImplicitLocOpBuilder &b) const override {
    Value x = op.getInput();
    int64_t rank = inputRank(op);
    auto dims = dimsFrom(rank - op.getNormalizedShape().size(), rank);
    // PyTorch's default eps is the machine epsilon of the element type.
    auto type = cast<FloatType>(getElementType(x));
    double eps = op.getEps() ? op.getEps()->convertToDouble()
                             : std::ldexp(1.0, 1 - type.getFPMantissaWidth());
    Value meanSquare =
        MeanOp::create(b, MulOp::create(b, x, x), dims, /*keepdim=*/true);
    Value rms =
        RsqrtOp::create(b, AddOp::create(b, meanSquare, scalarLike(b, x, eps)));
    return applyAffine(b, MulOp::create(b, x, rms), op.getWeight(), Value(),
                       AffineLayout::Trailing);
  }
};

/// group_norm(x) = normalize(x as [N, G, C/G * ...] over dim 2) * w[c] + b[c]
struct DecomposeGroupNorm : public DecomposePattern<GroupNormOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(GroupNormOp op, ImplicitLocOpBuilder &b) const override {
    double eps = op.getEps().convertToDouble();
    Value y;
    if (std::optional<SmallVector<int64_t>> grouped = groupedShape(op)) {
      y = normalize(b, createReshape(b, b.getLoc(), op.getInput(), *grouped),
                    {2}, eps);
      y = createReshape(b, b.getLoc(), y, op.getInput().getType().getShape());
    } else {
      y = normalizeGroupsByChannel(b, op.getInput(), op.getNumGroups(), eps);
    }
    return applyAffine(b, y, op.getWeight(), op.getBias(),
                       AffineLayout::PerChannel);
  }
};

/// instance_norm(x) = normalize(x over dims 2..) * w[c] + b[c]
struct DecomposeInstanceNorm : public DecomposePattern<InstanceNormOp> {
  using DecomposePattern::DecomposePattern;
  Value decompose(InstanceNormOp op, ImplicitLocOpBuilder &b) const override {
    int64_t rank = inputRank(op);
    Value y = normalize(b, op.getInput(), dimsFrom(2, rank),
                        op.getEps().convertToDouble());
    return applyAffine(b, y, op.getWeight(), op.getBias(),
                       AffineLayout::PerChannel);
  }
};

/// batch_norm_train(x) = normalize(x over dims 0, 2..) * w[c] + b[c]
struct DecomposeTrainingBatchNorm : public DecomposePattern<BatchNormOp> {
  using DecomposePattern::DecomposePattern;
  bool appliesTo(BatchNormOp op) const override { return op.getTraining(); }
  Value decompose(BatchNormOp op, ImplicitLocOpBuilder &b) const override {
    int64_t rank = inputRank(op);
    SmallVector<int64_t> dims{0};
    llvm::append_range(dims, dimsFrom(2, rank));
    Value y = normalize(b, op.getInput(), dims, op.getEps().convertToDouble());
    return applyAffine(b, y, op.getWeight(), op.getBias(),
                       AffineLayout::PerChannel);
  }
};

/// batch_norm_eval(x) = x * a + (b - mean * a), a = w * rsqrt(var + eps)
struct DecomposeInferenceBatchNorm : public DecomposePattern<BatchNormOp> {
  using DecomposePattern::DecomposePattern;
  bool appliesTo(BatchNormOp op) const override { return !op.getTraining(); }
  Value decompose(BatchNormOp op, ImplicitLocOpBuilder &b) const override {
    Value x = op.getInput();
    Value scale = RsqrtOp::create(
        b, AddOp::create(b, op.getRunningVar(),
                         scalarLike(b, x, op.getEps().convertToDouble())));
    if (op.getWeight())
      scale = MulOp::create(b, op.getWeight(), scale);
    Value meanScaled = MulOp::create(b, op.getRunningMean(), scale);
    Value shift = op.getBias()
                      ? Value(SubOp::create(b, op.getBias(), meanScaled))
                      : Value(NegOp::create(b, meanScaled));
    Value scaled = MulOp::create(b, x, alongChannels(b, scale, x));
    return AddOp::create(b, scaled, alongChannels(b, shift, x));
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

struct SinterDecomposePass
    : public sinter::impl::SinterDecomposeBase<SinterDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeSoftmax, DecomposeLogSoftmax, DecomposeLogsumexp,
                 DecomposeVar, DecomposeLayerNorm, DecomposeRmsNorm,
                 DecomposeGroupNorm, DecomposeInstanceNorm,
                 DecomposeTrainingBatchNorm, DecomposeInferenceBatchNorm>(
        &getContext());
    // Every decomposition yields only ops that stay, so one walk suffices.
    walkAndApplyPatterns(getOperation(), std::move(patterns));

    bool failedAny = false;
    getOperation().walk([&](Operation *op) {
      if (!isDecomposedOp(op))
        return;
      std::optional<std::string> blocker = decompositionBlocker(op);
      op->emitOpError("cannot be decomposed: ")
          << (blocker ? *blocker : std::string("no pattern applies"));
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
