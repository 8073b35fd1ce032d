//===- SimplifyConstants.cpp - Zeros and constants of any shape -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The rewrites of sinter-simplify that find values known to be constant and
// propagate them. A constant of a static shape is a splat `sinter.constant`;
// one whose shape has a symbolic dim is a `sinter.fill` of a model input's
// dims, so that it no longer depends on what computed it (`x - x` needs no
// x). Elementwise ops of constants fold with the interpreter's definition of
// the op, so the folded value is exactly what the reference computes;
// reductions of constants fold where the result is again a constant.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"
#include "sinter/Dialect/Sinter/Transforms/SimplifyPatterns.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Interpreter/Interpreter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// Returns true if `value` is +0 everywhere in every finite run: a splat +0
/// (constant or fill), or `x - x` (NaN where x is infinite or NaN).
static bool isZeroLike(Value value) {
  if (std::optional<APFloat> splat = matchSplatValue(value))
    return splat->isPosZero();
  auto sub = value.getDefiningOp<SubOp>();
  return sub && sub.getLhs() == sub.getRhs();
}

/// What folding `op` on constants changes: nothing for the ops whose f32
/// result IEEE 754 defines exactly (the generated code computes them the
/// same way); for the transcendental ones the folded value is the
/// correctly rounded one, which may differ from the GPU's in the last bit.
static RewriteEffect getFoldEffect(Operation *op) {
  if (op->hasTrait<OpTrait::sinter::CorrectlyRounded>())
    return RewriteEffect::Exact;
  return RewriteEffect::Rounding;
}

/// `value` rounded to the element type of `like`.
static APFloat roundLike(Value like, double value) {
  auto type = cast<FloatType>(getElementType(like));
  APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return rounded;
}

/// The number of input elements behind each result element of the
/// reduction `op`, when static.
static std::optional<int64_t> getReducedCount(Operation *op) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  ArrayRef<int64_t> dims = cast<ReductionOpInterface>(op).getDims();
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (input.isDynamicDim(dim))
      return std::nullopt;
    count *= input.getDimSize(dim);
  }
  return count;
}

/// Replaces `op` by a splat of `value` shaped like its result, or fails
/// when a symbolic dim of the result has no source.
static LogicalResult replaceBySplat(PatternRewriter &rewriter, Operation *op,
                                    const APFloat &value) {
  Value splat =
      createSplatLike(rewriter, op->getLoc(), op->getResult(0), value);
  if (!splat)
    return rewriter.notifyMatchFailure(
        op, "a symbolic dim of the result has no model input to take it from");
  rewriter.replaceOp(op, splat);
  return success();
}

namespace {

//===----------------------------------------------------------------------===//
// Zeros
//===----------------------------------------------------------------------===//

/// x - x = 0
struct SubSelfToZero : public SimplifyPattern<SubOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    // Strict mode keeps x - x: it is NaN where x is infinite or NaN.
    if (op.getLhs() != op.getRhs())
      return rewriter.notifyMatchFailure(op, "the operands differ");
    if (!allows(RewriteEffect::FiniteOnly))
      return notifyForbiddenByFpMode(rewriter, op);
    return replaceBySplat(rewriter, op, APFloat(0.0));
  }
};

/// f(0) = 0 for an f whose ValueFactsOpInterface says it maps 0 to 0 (relu,
/// gelu, silu, tanh, ...; each also maps NaN to NaN)
struct ZeroPreservingUnary
    : public OpInterfaceRewritePattern<ValueFactsOpInterface> {
  ZeroPreservingUnary(MLIRContext *context, FpMode mode)
      : OpInterfaceRewritePattern(context), mode(mode) {}
  LogicalResult matchAndRewrite(ValueFactsOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (!op.mapsZeroToZero())
      return rewriter.notifyMatchFailure(op, "f(0) may be nonzero");
    Value input = op->getOperand(0);
    if (!isZeroLike(input))
      return rewriter.notifyMatchFailure(op, "the input is not all zeros");
    if (!isRewriteAllowed(RewriteEffect::Exact, mode))
      return rewriter.notifyMatchFailure(op, "the fp mode forbids it");
    rewriter.replaceOp(op, input);
    return success();
  }

private:
  FpMode mode;
};

/// x * 0 = 0
struct MulByZero : public SimplifyPattern<MulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Value zero = isZeroLike(op.getRhs())   ? op.getRhs()
                 : isZeroLike(op.getLhs()) ? op.getLhs()
                                           : Value();
    if (!zero)
      return rewriter.notifyMatchFailure(op, "neither operand is zero");
    if (!allows(RewriteEffect::FiniteOnly))
      return notifyForbiddenByFpMode(rewriter, op);
    if (zero.getType() == op.getType()) {
      rewriter.replaceOp(op, zero);
      return success();
    }
    return replaceBySplat(rewriter, op, APFloat(0.0));
  }
};

/// x + (y - y) = x
struct AddZeroLike : public SimplifyPattern<AddOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (Value zero : {op.getRhs(), op.getLhs()}) {
      Value x = getOtherOperand(op, zero);
      if (!isZeroLike(zero) || x.getType() != op.getType())
        continue;
      if (!allows(RewriteEffect::FiniteOnly))
        return notifyForbiddenByFpMode(rewriter, op);
      rewriter.replaceOp(op, x);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no zero operand to drop");
  }
};

//===----------------------------------------------------------------------===//
// Constant propagation
//===----------------------------------------------------------------------===//

/// f(c1, ...) = c for an elementwise f of splats (constants or fills)
struct FoldElementwiseOfSplats : public RewritePattern {
  FoldElementwiseOfSplats(MLIRContext *context, FpMode mode)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        mode(mode) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseOp(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise op");
    SmallVector<double, 2> operands;
    bool allConstants = true;
    for (Value operand : op->getOperands()) {
      std::optional<APFloat> splat = matchSplatValue(operand);
      if (!splat)
        return rewriter.notifyMatchFailure(op, "an operand is not a splat");
      allConstants &= !operand.getDefiningOp<FillOp>();
      operands.push_back(splat->convertToDouble());
    }
    // The binary folders handle constants of a static result.
    if (allConstants && op->getNumOperands() == 2 &&
        cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape() &&
        getFoldEffect(op) == RewriteEffect::Exact)
      return rewriter.notifyMatchFailure(
          op, "the op's own folder handles constants of a static shape");
    std::optional<double> value = evaluateElementwiseScalar(op, operands);
    if (!value)
      return rewriter.notifyMatchFailure(op, "no scalar formula for the op");
    if (!isRewriteAllowed(getFoldEffect(op), mode))
      return notifyForbiddenByFpMode(rewriter, op);
    return replaceBySplat(rewriter, op, roundLike(op->getResult(0), *value));
  }

private:
  FpMode mode;
};

/// mean, max and min of a splat c are c; sum over n elements is n * c
template <typename OpTy>
struct FoldReductionOfSplat : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<APFloat> splat = matchSplatValue(op.getInput());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "the input is not a splat");
    APFloat value = *splat;
    RewriteEffect effect = RewriteEffect::Exact;
    if constexpr (std::is_same_v<OpTy, SumOp>) {
      std::optional<int64_t> count = getReducedCount(op);
      // A sum of +0 is +0 however many elements there are.
      if (!count && !value.isPosZero())
        return rewriter.notifyMatchFailure(op, "sum over a symbolic dim");
      APFloat factor(value.getSemantics(), count.value_or(1));
      if (value.multiply(factor, APFloat::rmNearestTiesToEven) != APFloat::opOK)
        effect = RewriteEffect::Rounding;
    }
    if (!this->allows(effect))
      return notifyForbiddenByFpMode(rewriter, op);
    return replaceBySplat(rewriter, op, value);
  }
};

/// prod of a splat c over n elements is c^n; over a symbolic count only
/// for c in {+0, 1, +inf, NaN}, whose powers are themselves
struct FoldProdOfSplat : public SimplifyPattern<ProdOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(ProdOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<APFloat> splat = matchSplatValue(op.getInput());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "the input is not a splat");
    if (isOwnPower(*splat)) {
      if (!allows(RewriteEffect::Exact))
        return notifyForbiddenByFpMode(rewriter, op);
      return replaceBySplat(rewriter, op, *splat);
    }
    std::optional<int64_t> count = getReducedCount(op);
    if (!count)
      return rewriter.notifyMatchFailure(
          op, "the power of the constant depends on a symbolic count");
    auto [power, effect] = computePower(*splat, *count);
    if (!allows(effect))
      return notifyForbiddenByFpMode(rewriter, op);
    return replaceBySplat(rewriter, op, power);
  }

  /// Returns true if c^n = c for every n >= 1.
  static bool isOwnPower(const APFloat &c) {
    return c.isPosZero() || c.isNaN() || (c.isInfinity() && !c.isNegative()) ||
           c.isExactlyValue(1.0);
  }

  /// c^n in the semantics of c, multiplied out while every step is exact
  /// (what the GPU computes then), else correctly rounded from double.
  static std::pair<APFloat, RewriteEffect> computePower(const APFloat &c,
                                                        int64_t n) {
    APFloat power(c.getSemantics(), 1);
    for (int64_t step = 0; step < n; ++step)
      if (power.multiply(c, APFloat::rmNearestTiesToEven) != APFloat::opOK ||
          power.isZero() || power.isInfinity())
        return {roundedPower(c, n), RewriteEffect::Rounding};
    return {power, RewriteEffect::Exact};
  }

  /// c^n computed in double and rounded to the semantics of c.
  static APFloat roundedPower(const APFloat &c, int64_t n) {
    APFloat power(std::pow(c.convertToDouble(), static_cast<double>(n)));
    bool losesInfo = false;
    power.convert(c.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return power;
  }
};

/// x op fill(c) = x op c when x has the result's shape: the fill only
/// broadcasts
template <typename OpTy>
struct FillOperandToScalar : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : op->getOpOperands()) {
      auto fill = operand.get().template getDefiningOp<FillOp>();
      Value x = getOtherOperand(op, operand.get());
      if (!fill || x.getType() != op.getType() ||
          !this->allows(RewriteEffect::Exact))
        continue;
      Value scalar = createSplatConstant(
          rewriter, op.getLoc(), RankedTensorType::get({}, getElementType(x)),
          fill.getElementValue());
      rewriter.modifyOpInPlace(op, [&] { operand.set(scalar); });
      return success();
    }
    return rewriter.notifyMatchFailure(op,
                                       "no fill operand of a full-shaped one");
  }
};

} // namespace

void mlir::sinter::populateSimplifyConstantPatterns(RewritePatternSet &patterns,
                                                    FpMode mode) {
  MLIRContext *context = patterns.getContext();
  patterns.addWithLabel<SubSelfToZero>({"sub-self"}, context, mode);
  patterns.addWithLabel<MulByZero>({"mul-by-zero"}, context, mode);
  patterns.addWithLabel<AddZeroLike>({"add-zero-like"}, context, mode);
  patterns.addWithLabel<ZeroPreservingUnary>({"zero-preserving-unary"}, context,
                                             mode);
  patterns.addWithLabel<FoldElementwiseOfSplats>({"fold-constants"}, context,
                                                 mode);
  patterns
      .addWithLabel<FoldReductionOfSplat<SumOp>, FoldReductionOfSplat<MeanOp>,
                    FoldReductionOfSplat<MaxOp>, FoldReductionOfSplat<MinOp>>(
          {"fold-constant-reductions"}, context, mode);
  patterns.addWithLabel<FoldProdOfSplat>({"fold-constant-reductions"}, context,
                                         mode);
  patterns
      .addWithLabel<FillOperandToScalar<AddOp>, FillOperandToScalar<SubOp>,
                    FillOperandToScalar<MulOp>, FillOperandToScalar<DivOp>,
                    FillOperandToScalar<MaximumOp>,
                    FillOperandToScalar<MinimumOp>, FillOperandToScalar<PowOp>>(
          {"fill-operand-to-scalar"}, context, mode);
}
