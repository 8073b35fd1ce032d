//===- Simplify.cpp - Algebraic simplification ----------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-simplify applies the rewrite catalog of DESIGN.md with the ops'
// folders, then common-subexpression elimination, and repeats until nothing
// changes. This file holds the pass and the elementwise, reduction and shape
// rewrites; SimplifyLinear.cpp holds those around matmuls.
//
// The rewrites run in two rounds: the first normalizes (scalar factors move
// outward and merge, matmuls reduced over N or M become matrix-vector
// products), the second folds the scales left after a matmul into its param
// operand. Folding earlier would scale a full weight matrix where a reduced
// one suffices.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"
#include "sinter/Dialect/Sinter/Transforms/SimplifyPatterns.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERSIMPLIFY
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// Clamp bounds of relu (min 0), clamp and hardtanh; NaN propagates through
/// all three.
struct ClampBounds {
  std::optional<double> min, max;
};

/// Returns the bounds of `op` if it is a relu, clamp or hardtanh.
static std::optional<ClampBounds> getClampBounds(Operation *op) {
  if (!op)
    return std::nullopt;
  if (isa<ReluOp>(op))
    return ClampBounds{0.0, std::nullopt};
  if (auto clamp = dyn_cast<ClampOp>(op)) {
    ClampBounds bounds;
    if (clamp.getMin())
      bounds.min = clamp.getMin()->convertToDouble();
    if (clamp.getMax())
      bounds.max = clamp.getMax()->convertToDouble();
    return bounds;
  }
  if (auto hardtanh = dyn_cast<HardtanhOp>(op))
    return ClampBounds{hardtanh.getMin().convertToDouble(),
                       hardtanh.getMax().convertToDouble()};
  return std::nullopt;
}

/// Returns true if the bounds describe a non-empty interval.
static bool isNonEmpty(const ClampBounds &bounds) {
  return !bounds.min || !bounds.max || *bounds.min <= *bounds.max;
}

/// The bounds of clamping with `inner`, then `outer`: the intersection of
/// the intervals, or nothing when it is empty (the composition is then a
/// constant that one clamp does not express).
static std::optional<ClampBounds> composeClamps(const ClampBounds &inner,
                                                const ClampBounds &outer) {
  if (!isNonEmpty(inner) || !isNonEmpty(outer))
    return std::nullopt;
  auto tighter = [](std::optional<double> a, std::optional<double> b,
                    bool takeMax) -> std::optional<double> {
    if (!a || !b)
      return a ? a : b;
    return takeMax ? std::max(*a, *b) : std::min(*a, *b);
  };
  ClampBounds result{tighter(inner.min, outer.min, /*takeMax=*/true),
                     tighter(inner.max, outer.max, /*takeMax=*/false)};
  if (!isNonEmpty(result))
    return std::nullopt;
  return result;
}

/// The dims among `dims` whose size in `type` is not a static 1.
static SmallVector<int64_t> nonUnitDims(RankedTensorType type,
                                        ArrayRef<int64_t> dims) {
  return llvm::filter_to_vector(
      dims, [&](int64_t dim) { return type.getDimSize(dim) != 1; });
}

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

namespace {

/// x / c = x * (1 / c), where 1 / c is exact (c a power of two). An inexact
/// reciprocal would round twice where the division rounds once: a result
/// up to an ulp off, in the same direction for every element (var over 64
/// rows, x / 63, ran 42% above eager PyTorch's error against float64), so
/// fast mode keeps the division too (DESIGN.md: a rewrite at least as
/// accurate as the model).
struct DivByConstantToMul : public SimplifyPattern<DivOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<APFloat> divisor = matchSplatConstant(op.getRhs());
    if (!divisor)
      return rewriter.notifyMatchFailure(op,
                                         "the divisor is not a splat constant");
    APFloat reciprocal(divisor->getSemantics(), 1);
    APFloat::opStatus status =
        reciprocal.divide(*divisor, APFloat::rmNearestTiesToEven);
    // A zero or subnormal divisor has no finite reciprocal to multiply by.
    if (status != APFloat::opOK && status != APFloat::opInexact)
      return rewriter.notifyMatchFailure(op, "no finite reciprocal");
    if (status != APFloat::opOK)
      return rewriter.notifyMatchFailure(op, "inexact reciprocal");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    Value factor =
        createSplatConstantLike(rewriter, op.getLoc(), op.getRhs(), reciprocal);
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), factor);
    return success();
  }
};

/// x - c = x + (-c)
struct SubConstantToAdd : public SimplifyPattern<SubOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<APFloat> constant = matchSplatConstant(op.getRhs());
    if (!constant)
      return rewriter.notifyMatchFailure(
          op, "the subtrahend is not a splat constant");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    Value negated = createSplatConstantLike(rewriter, op.getLoc(), op.getRhs(),
                                            neg(*constant));
    rewriter.replaceOpWithNewOp<AddOp>(op, op.getLhs(), negated);
    return success();
  }
};

/// x + x = x * 2
struct AddSelfToMul : public SimplifyPattern<AddOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLhs() != op.getRhs())
      return rewriter.notifyMatchFailure(op, "the operands differ");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    Value two = createScalarConstant(rewriter, op.getLoc(),
                                     getElementType(op.getLhs()), 2.0);
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), two);
    return success();
  }
};

/// (x * p) * q = x * (p * q) and (x + p) + q = x + (p + q), p and q cheap
template <typename OpTy>
struct RegroupCheapFactors : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!this->allows(RewriteEffect::Rounding))
      return notifyForbiddenByFpMode(rewriter, op);
    for (Value innerValue : {op.getLhs(), op.getRhs()}) {
      auto inner = innerValue.getDefiningOp<OpTy>();
      Value q = getOtherOperand(op, innerValue);
      if (!inner || !inner->hasOneUse() || !isCheapFactor(q))
        continue;
      for (Value x : {inner.getLhs(), inner.getRhs()}) {
        Value p = getOtherOperand(inner, x);
        // x must be the costly operand, or the regrouped form would match
        // again with the roles swapped.
        if (isCheapFactor(x) || !isCheapFactor(p) ||
            !regroupKeepsShape(x, p, q, op.getType().getShape()) ||
            !regroupStaysSmall(p, q))
          continue;
        Value pq = OpTy::create(rewriter, op.getLoc(), p, q);
        rewriter.replaceOpWithNewOp<OpTy>(op, x, pq);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no cheap factors to regroup");
  }
};

/// neg(x) * c = x * (-c)
struct MulOfNegToNegatedConstant : public SimplifyPattern<MulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto negOp = op.getLhs().getDefiningOp<NegOp>();
    std::optional<APFloat> constant = matchSplatConstant(op.getRhs());
    if (!negOp || !constant)
      return rewriter.notifyMatchFailure(
          op, "not a negation times a splat constant");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    Value negated = createSplatConstantLike(rewriter, op.getLoc(), op.getRhs(),
                                            neg(*constant));
    rewriter.replaceOpWithNewOp<MulOp>(op, negOp.getInput(), negated);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Clamps
//===----------------------------------------------------------------------===//

/// relu(y) = y when y >= 0 (exp, abs, sigmoid, hardsigmoid, softplus)
struct ReluOfNonNegative : public SimplifyPattern<ReluOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(ReluOp op,
                                PatternRewriter &rewriter) const override {
    if (!isNonNegative(op.getInput()))
      return rewriter.notifyMatchFailure(op, "the input may be negative");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// relu(x) * s = relu(x * s) and leaky_relu(x) * s = leaky_relu(x * s) for
/// s > 0 (positive scales commute with max(., 0) and with x -> alpha * x):
/// a constant, or a param-only value known to be positive (exp(p)), which
/// then reaches a linear before the activation
template <typename OpTy> struct ScaleIntoRelu : public SimplifyPattern<MulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (Value operand : {op.getLhs(), op.getRhs()}) {
      auto relu = operand.getDefiningOp<OpTy>();
      Value factor = getOtherOperand(op, operand);
      if (!relu || !relu->hasOneUse() || relu.getType() != op.getType() ||
          !isParamOnly(factor))
        continue;
      if (!isPositive(factor))
        return rewriter.notifyMatchFailure(op, "the scale may not be positive");
      if (!allows(getEffect(factor)))
        return notifyForbiddenByFpMode(rewriter, op);
      Value scaled =
          MulOp::create(rewriter, op.getLoc(), relu.getInput(), factor);
      rewriter.replaceOpWithNewOp<OpTy>(op, op.getType(), ValueRange{scaled},
                                        relu->getAttrs());
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "no single-use activation times a param-only factor");
  }

  /// relu(x) * c = relu(x * c) exactly for a positive constant c; exp or
  /// sigmoid of a param may round to +0, where relu(x) * 0 and relu(x * 0)
  /// differ for infinite x; leaky_relu rounds alpha * x * s in another order.
  static RewriteEffect getEffect(Value factor) {
    if constexpr (std::is_same_v<OpTy, LeakyReluOp>)
      return RewriteEffect::Rounding;
    return matchPattern(factor, m_Constant()) ? RewriteEffect::Exact
                                              : RewriteEffect::FiniteOnly;
  }
};

/// clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d)); relu and
/// hardtanh are clamps
template <typename OpTy> struct MergeClamps : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *inner = op.getInput().getDefiningOp();
    std::optional<ClampBounds> innerBounds = getClampBounds(inner);
    if (!innerBounds)
      return rewriter.notifyMatchFailure(op, "the input is not a clamp");
    std::optional<ClampBounds> bounds =
        composeClamps(*innerBounds, *getClampBounds(op));
    if (!bounds)
      return rewriter.notifyMatchFailure(op, "the bounds do not compose");
    if (!this->allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    auto attr = [&](std::optional<double> bound) {
      return bound ? rewriter.getF64FloatAttr(*bound) : FloatAttr();
    };
    rewriter.replaceOpWithNewOp<ClampOp>(op, inner->getOperand(0),
                                         attr(bounds->min), attr(bounds->max));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// sum(x * c) = sum(x) * c, mean likewise, for a scalar c; max(x * c) =
/// max(x) * c, min likewise, for a constant c > 0 (rounding is monotonic)
/// where only reductions read x * c
template <typename OpTy>
struct ScaleOutOfReduction : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto mul = op.getInput().template getDefiningOp<MulOp>();
    if (!mul)
      return rewriter.notifyMatchFailure(op, "the input is not a product");
    // Where an op other than these reductions needs the product, moving the
    // factor out of a max or min saves no multiply, and softmax(x * c)'s
    // sum of exp(x * c - max(x * c)) would no longer read the max of its
    // own input: its statistics would take two passes where an online
    // softmax takes one.
    if (isExtremum() &&
        !llvm::all_of(mul->getUsers(),
                      llvm::IsaPred<SumOp, MeanOp, MaxOp, MinOp>))
      return rewriter.notifyMatchFailure(
          op, "the product is needed elementwise: a max or min of it stays");
    for (Value factor : {mul.getRhs(), mul.getLhs()}) {
      Value x = getOtherOperand(mul, factor);
      std::optional<RewriteEffect> effect = effectOfMovingOut(factor);
      if (!effect || x.getType() != mul.getType())
        continue;
      if (!this->allows(*effect))
        return notifyForbiddenByFpMode(rewriter, op);
      Value reduced =
          OpTy::create(rewriter, op.getLoc(), x, op.getDims(), op.getKeepdim());
      rewriter.replaceOpWithNewOp<MulOp>(op, reduced, factor);
      return success();
    }
    return rewriter.notifyMatchFailure(op,
                                       "no factor moves out of the reduction");
  }

  /// Whether the reduction is a max or a min.
  static constexpr bool isExtremum() {
    return std::is_same_v<OpTy, MaxOp> || std::is_same_v<OpTy, MinOp>;
  }

  /// What moving `factor` out of the reduction changes, or nothing if it
  /// may not move.
  static std::optional<RewriteEffect> effectOfMovingOut(Value factor) {
    if (!isScalar(factor))
      return std::nullopt;
    if constexpr (std::is_same_v<OpTy, SumOp> || std::is_same_v<OpTy, MeanOp>)
      return RewriteEffect::Rounding;
    std::optional<APFloat> constant = matchSplatConstant(factor);
    if (!constant || !constant->isFiniteNonZero() || constant->isNegative())
      return std::nullopt;
    return RewriteEffect::Exact;
  }
};

/// reduce(x) over size-1 dims = x; they drop out of a longer dim list
template <typename OpTy>
struct DropUnitReductionDims : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> kept =
        nonUnitDims(op.getInput().getType(), op.getDims());
    if (kept.size() == op.getDims().size())
      return rewriter.notifyMatchFailure(op,
                                         "no reduced dim has static size 1");
    if (!this->allows(effectOfDropping(kept)))
      return rewriter.notifyMatchFailure(
          op, "over one element, the reduction turns -0 into +0");
    // With keepdim the size-1 dims stay in place; without, a reshape drops
    // them.
    if (!canDropReducedDims(op))
      return rewriter.notifyMatchFailure(op, "reshape to several dynamic dims");
    Value reduced = op.getInput();
    if (!kept.empty())
      reduced =
          OpTy::create(rewriter, op.getLoc(), reduced, kept, op.getKeepdim());
    if (reduced.getType() == op.getType())
      rewriter.replaceOp(op, reduced);
    else
      rewriter.replaceOp(op, createReshape(rewriter, op.getLoc(), reduced,
                                           op.getType().getShape()));
    return success();
  }

  /// What dropping the size-1 dims changes when `kept` dims stay reduced:
  /// nothing while some do (the same elements in the same order); with none
  /// left, sum, mean and logsumexp of one element are 0 + x, not x.
  static RewriteEffect effectOfDropping(ArrayRef<int64_t> kept) {
    if (!kept.empty() || std::is_same_v<OpTy, MaxOp> ||
        std::is_same_v<OpTy, MinOp> || std::is_same_v<OpTy, ProdOp>)
      return RewriteEffect::Exact;
    return RewriteEffect::SignedZero;
  }
};

/// f(x, reduce(x, [0..k), keepdim)) = f(x, reduce(x, [0..k))) for a
/// broadcasting op f whose result keeps its rank: the size-1 leading dims
/// broadcast as absent ones do, so a var's centering shares the mean taken
/// beside it (standardizing columns by hand reads them once for both).
template <typename OpTy>
struct ShareKeptReduction : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getKeepdim())
      return rewriter.notifyMatchFailure(op, "not a keepdim reduction");
    ArrayRef<int64_t> dims = op.getDims();
    for (auto [index, dim] : llvm::enumerate(dims))
      if (dim != static_cast<int64_t>(index))
        return rewriter.notifyMatchFailure(op, "reduces other than leading "
                                               "dims");
    OpTy sibling;
    for (Operation *user : op.getInput().getUsers()) {
      auto other = dyn_cast<OpTy>(user);
      if (other && other != op && !other.getKeepdim() &&
          other.getDims() == dims) {
        sibling = other;
        break;
      }
    }
    if (!sibling || sibling->getBlock() != op->getBlock())
      return rewriter.notifyMatchFailure(
          op, "no reduction without keepdim of the same input and dims");
    // Another operand of the user's rank keeps its result shape.
    int64_t rank = op.getType().getRank();
    auto keepsShape = [&](Operation *user) {
      return isElementwiseOp(user) &&
             llvm::any_of(user->getOperands(), [&](Value operand) {
               return operand != op.getResult() &&
                      cast<ShapedType>(operand.getType()).getRank() == rank;
             });
    };
    if (!llvm::all_of(op->getUsers(), keepsShape))
      return rewriter.notifyMatchFailure(
          op, "a user is not elementwise beside an operand of its rank");
    if (!this->allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    if (op->isBeforeInBlock(sibling))
      rewriter.moveOpBefore(sibling, op);
    rewriter.replaceOp(op, sibling.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Transposes
//===----------------------------------------------------------------------===//

/// transpose(transpose(x, p), q) = transpose(x, p o q)
struct ComposeTransposes : public SimplifyPattern<TransposeOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "the input is not a transpose");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    SmallVector<int64_t> perm;
    for (int64_t index : op.getPerm())
      perm.push_back(inner.getPerm()[index]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), perm);
    return success();
  }
};

} // namespace

void mlir::sinter::populateSimplifyElementwisePatterns(
    RewritePatternSet &patterns, FpMode mode) {
  MLIRContext *context = patterns.getContext();
  patterns.addWithLabel<DivByConstantToMul>({"div-by-constant"}, context, mode);
  patterns.addWithLabel<SubConstantToAdd>({"sub-constant"}, context, mode);
  patterns.addWithLabel<AddSelfToMul>({"add-self"}, context, mode);
  patterns.addWithLabel<RegroupCheapFactors<MulOp>, RegroupCheapFactors<AddOp>>(
      {"regroup-cheap-factors"}, context, mode);
  patterns.addWithLabel<MulOfNegToNegatedConstant>({"mul-of-neg"}, context,
                                                   mode);
  patterns.addWithLabel<ReluOfNonNegative>({"relu-of-non-negative"}, context,
                                           mode);
  patterns.addWithLabel<ScaleIntoRelu<ReluOp>, ScaleIntoRelu<LeakyReluOp>>(
      {"scale-into-relu"}, context, mode);
  patterns.addWithLabel<MergeClamps<ClampOp>, MergeClamps<ReluOp>,
                        MergeClamps<HardtanhOp>>({"merge-clamps"}, context,
                                                 mode);
  patterns.addWithLabel<ScaleOutOfReduction<SumOp>, ScaleOutOfReduction<MeanOp>,
                        ScaleOutOfReduction<MaxOp>, ScaleOutOfReduction<MinOp>>(
      {"scale-out-of-reduction"}, context, mode);
  patterns.addWithLabel<
      DropUnitReductionDims<SumOp>, DropUnitReductionDims<MeanOp>,
      DropUnitReductionDims<MaxOp>, DropUnitReductionDims<MinOp>,
      DropUnitReductionDims<ProdOp>, DropUnitReductionDims<LogsumexpOp>>(
      {"drop-unit-reduction-dims"}, context, mode);
  patterns.addWithLabel<ComposeTransposes>({"compose-transposes"}, context,
                                           mode);
  patterns.addWithLabel<ShareKeptReduction<SumOp>, ShareKeptReduction<MeanOp>,
                        ShareKeptReduction<MaxOp>, ShareKeptReduction<MinOp>,
                        ShareKeptReduction<ProdOp>,
                        ShareKeptReduction<LogsumexpOp>>(
      {"share-kept-reduction"}, context, mode);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

/// Counts the rewrites that fire, by the label of their pattern.
struct RewriteCounter : public RewriterBase::Listener {
  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override {
    if (succeeded(status))
      for (StringRef label : pattern.getDebugLabels())
        ++counts[label.str()];
  }
  std::map<std::string, int64_t> counts;
};

struct SinterSimplifyPass
    : public sinter::impl::SinterSimplifyBase<SinterSimplifyPass> {
  using SinterSimplifyBase::SinterSimplifyBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet normalize(context);
    populateSimplifyElementwisePatterns(normalize, fpMode);
    populateSimplifyConstantPatterns(normalize, fpMode);
    populateSimplifyLinearMapPatterns(normalize, fpMode);
    populateSimplifyMatvecPatterns(normalize, fpMode);
    RewritePatternSet foldWeights(context);
    populateSimplifyElementwisePatterns(foldWeights, fpMode);
    populateSimplifyConstantPatterns(foldWeights, fpMode);
    populateSimplifyLinearMapPatterns(foldWeights, fpMode);
    populateSimplifyMatvecPatterns(foldWeights, fpMode);
    populateSimplifyWeightFoldingPatterns(foldWeights, fpMode);
    normalizePatterns = FrozenRewritePatternSet(
        std::move(normalize), disabledPatterns, enabledPatterns);
    foldWeightPatterns = FrozenRewritePatternSet(
        std::move(foldWeights), disabledPatterns, enabledPatterns);
    return success();
  }

  void runOnOperation() override {
    // Each round can expose work for the others: CSE merges two means into
    // one value, after which `x - mean` may become `x - x`.
    RewriteCounter counter;
    GreedyRewriteConfig config;
    config.setListener(&counter);
    constexpr int kMaxRounds = 8;
    for (int round = 0; round < kMaxRounds; ++round) {
      bool changed = false;
      for (const FrozenRewritePatternSet *patterns :
           {&normalizePatterns, &foldWeightPatterns}) {
        bool patternsChanged = false;
        if (failed(applyPatternsGreedily(getOperation(), *patterns, config,
                                         &patternsChanged))) {
          getOperation().emitError("sinter-simplify did not converge");
          return signalPassFailure();
        }
        changed |= patternsChanged;
      }
      bool cseChanged = false;
      IRRewriter rewriter(&getContext());
      DominanceInfo dominance(getOperation());
      eliminateCommonSubExpressions(rewriter, dominance, getOperation(),
                                    &cseChanged);
      if (!changed && !cseChanged)
        break;
    }
    recordRewrites(counter.counts);
  }

  /// Adds the counts of this run to the function's sinter.rewrites.
  void recordRewrites(const std::map<std::string, int64_t> &counts) {
    if (counts.empty())
      return;
    std::map<std::string, int64_t> total = counts;
    if (auto recorded =
            getOperation()->getAttrOfType<DictionaryAttr>(kRewritesAttrName))
      for (NamedAttribute entry : recorded)
        if (auto count = dyn_cast<IntegerAttr>(entry.getValue()))
          total[entry.getName().str()] += count.getInt();
    Builder builder(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto &[label, count] : total)
      entries.push_back(
          builder.getNamedAttr(label, builder.getI64IntegerAttr(count)));
    getOperation()->setAttr(kRewritesAttrName,
                            builder.getDictionaryAttr(entries));
  }

private:
  FrozenRewritePatternSet normalizePatterns;
  FrozenRewritePatternSet foldWeightPatterns;
};

} // namespace
