//===- SimplifyLinearMaps.cpp - Linear maps that fold into weights --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The rewrites of sinter-simplify that bring a map L, linear along the
// output features of a linear layer and built from params and constants
// only, next to the matmul, so that L(x @ W^T + b) = x @ L(W)^T + L(b) with
// L(W) and L(b) computed once in @prepare: shifts by params regroup into the
// bias, a mean over groups of adjacent columns (average pooling) reduces the
// weight's rows, a product with a param matrix multiplies into the weight,
// column scales move through relu when they are known positive and into the
// weight from either side, and the centering of training batch norm drops
// what is constant along the batch. SimplifyLinear.cpp then folds what
// reaches the matmul.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"
#include "sinter/Dialect/Sinter/Transforms/SimplifyPatterns.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// Returns true if `value` broadcasts along `dims` of a result of rank
/// `rank`: its size there is 1 or the dim is missing.
static bool isConstantAlong(Value value, ArrayRef<int64_t> dims, int64_t rank) {
  ArrayRef<int64_t> shape = getTensorShape(value);
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  return llvm::all_of(dims, [&](int64_t dim) {
    return dim < offset || shape[dim - offset] == 1;
  });
}

/// Returns true if `value` is a row vector along the last dim of a result of
/// rank `rank`: every other dim has size 1 or is missing.
static bool isRowVector(Value value, int64_t rank) {
  ArrayRef<int64_t> shape = getTensorShape(value);
  return static_cast<int64_t>(shape.size()) <= rank && !shape.empty() &&
         llvm::all_of(shape.drop_back(),
                      [](int64_t size) { return size == 1; });
}

/// Returns the single-use matmul that defines `value` with a param-only rank
/// 2 rhs (the weight), or null.
static MatmulOp getWeightMatmul(Value value) {
  auto matmul = value.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse() ||
      matmul.getRhs().getType().getRank() != 2 || !isParamOnly(matmul.getRhs()))
    return MatmulOp();
  return matmul;
}

/// A linear layer `matmul ± bias` (the bias optional, param-only and a row
/// vector).
struct LinearLayer {
  MatmulOp matmul;
  Value bias;
  bool subtractsBias = false;
};

/// Matches `value` as a linear layer whose every op has one use.
static std::optional<LinearLayer> matchLinearLayer(Value value) {
  if (MatmulOp matmul = getWeightMatmul(value))
    return LinearLayer{matmul, Value()};
  Operation *op = value.getDefiningOp();
  if (!isa_and_present<AddOp, SubOp>(op) || !op->hasOneUse())
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  for (unsigned index : {0u, 1u}) {
    MatmulOp matmul = getWeightMatmul(op->getOperand(index));
    Value bias = op->getOperand(1 - index);
    // bias - matmul would negate the weights: not a linear layer here.
    if (!matmul || matmul.getType() != value.getType() || !isParamOnly(bias) ||
        !isRowVector(bias, rank) || (isa<SubOp>(op) && index == 1))
      continue;
    return LinearLayer{matmul, bias, isa<SubOp>(op)};
  }
  return std::nullopt;
}

/// Returns `lhs + rhs` or `lhs - rhs`.
static Value createShift(OpBuilder &builder, Location loc, Value lhs, Value rhs,
                         bool subtract) {
  if (subtract)
    return SubOp::create(builder, loc, lhs, rhs);
  return AddOp::create(builder, loc, lhs, rhs);
}

namespace {

//===----------------------------------------------------------------------===//
// Shifts and common factors
//===----------------------------------------------------------------------===//

/// (x + p) - q = x + (p - q), (x - p) + q = x + (q - p) and (x - p) - q =
/// x - (p + q) for cheap p and q (a param shift joins the bias)
template <typename OuterOp>
struct RegroupCheapShifts : public SimplifyPattern<OuterOp> {
  using SimplifyPattern<OuterOp>::SimplifyPattern;
  LogicalResult matchAndRewrite(OuterOp op,
                                PatternRewriter &rewriter) const override {
    constexpr bool outerSubtracts = std::is_same_v<OuterOp, SubOp>;
    for (unsigned innerIndex : {0u, 1u}) {
      // q - (x ± p) negates x; only the lhs of a subtraction is regrouped.
      if (outerSubtracts && innerIndex == 1)
        break;
      Value innerValue = op->getOperand(innerIndex);
      Value q = op->getOperand(1 - innerIndex);
      Operation *inner = innerValue.getDefiningOp();
      bool innerSubtracts = isa_and_present<SubOp>(inner);
      // (x + p) + q is RegroupCheapFactors<AddOp>'s.
      if (!isa_and_present<AddOp, SubOp>(inner) || !inner->hasOneUse() ||
          (!innerSubtracts && !outerSubtracts) || !isCheapFactor(q))
        continue;
      for (unsigned xIndex : {0u, 1u}) {
        if (innerSubtracts && xIndex == 1)
          break;
        Value x = inner->getOperand(xIndex);
        Value p = inner->getOperand(1 - xIndex);
        if (isCheapFactor(x) || !isCheapFactor(p) ||
            !regroupKeepsShape(x, p, q, op.getType().getShape()) ||
            !regroupStaysSmall(p, q))
          continue;
        if (!this->allows(RewriteEffect::Rounding))
          return failure();
        Location loc = op.getLoc();
        if (innerSubtracts && outerSubtracts) {
          rewriter.replaceOpWithNewOp<SubOp>(
              op, x, AddOp::create(rewriter, loc, p, q));
        } else {
          Value shift = innerSubtracts ? SubOp::create(rewriter, loc, q, p)
                                       : SubOp::create(rewriter, loc, p, q);
          rewriter.replaceOpWithNewOp<AddOp>(op, x, shift);
        }
        return success();
      }
    }
    return failure();
  }
};

/// y * c + y = y * (1 + c) and y + y * c likewise, for a cheap c
struct FactorScaledSelf : public SimplifyPattern<AddOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (Value product : {op.getLhs(), op.getRhs()}) {
      auto mul = product.getDefiningOp<MulOp>();
      Value y = getOtherOperand(op, product);
      if (!mul || isCheapFactor(y))
        continue;
      for (Value c : {mul.getRhs(), mul.getLhs()}) {
        if (getOtherOperand(mul, c) != y || !isCheapFactor(c) ||
            !broadcastsTo(getTensorShape(y), getTensorShape(c),
                          op.getType().getShape()))
          continue;
        if (!allows(RewriteEffect::Rounding))
          return failure();
        Location loc = op.getLoc();
        Value one = createScalarConstant(rewriter, loc, getElementType(y), 1.0);
        rewriter.replaceOpWithNewOp<MulOp>(
            op, y, AddOp::create(rewriter, loc, one, c));
        return success();
      }
    }
    return failure();
  }
};

/// (h + p) - mean(h + p) = h - mean(h) over dims along which p is constant
/// (training batch norm drops the bias of the linear before it); also for -
struct CenteringCancelsShift : public SimplifyPattern<SubOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    auto mean = op.getRhs().getDefiningOp<MeanOp>();
    Operation *shifted = op.getLhs().getDefiningOp();
    if (!mean || mean.getInput() != op.getLhs() || !mean.getKeepdim() ||
        !isa_and_present<AddOp, SubOp>(shifted))
      return failure();
    int64_t rank = op.getType().getRank();
    for (unsigned index : {0u, 1u}) {
      Value h = shifted->getOperand(index);
      Value p = shifted->getOperand(1 - index);
      // p - h negates h; only h ± p cancels.
      if ((isa<SubOp>(shifted) && index == 1) ||
          h.getType() != op.getLhs().getType() ||
          !isConstantAlong(p, mean.getDims(), rank))
        continue;
      if (!allows(RewriteEffect::Rounding))
        return failure();
      Value centered = MeanOp::create(rewriter, mean.getLoc(), h,
                                      mean.getDims(), /*keepdim=*/true);
      rewriter.replaceOpWithNewOp<SubOp>(op, h, centered);
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Linear maps of a linear layer
//===----------------------------------------------------------------------===//

/// reduce_g(reshape(x @ W^T + b, [.., N/g, g])) = x @ reduce_g(W)^T +
/// reduce_g(b) for sum and mean over groups of g adjacent columns
template <typename OpTy>
struct GroupReductionOfLinear : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getInput().template getDefiningOp<ReshapeOp>();
    if (!reshape || !reshape->hasOneUse())
      return failure();
    RankedTensorType grouped = reshape.getType();
    RankedTensorType flat = reshape.getInput().getType();
    int64_t rank = flat.getRank();
    // [.., N] -> [.., N/g, g], reduced over the last dim.
    if (grouped.getRank() != rank + 1 ||
        op.getDims() != ArrayRef<int64_t>{rank} ||
        flat.getShape().drop_back() !=
            grouped.getShape().take_front(rank - 1) ||
        grouped.isDynamicDim(rank) || grouped.isDynamicDim(rank - 1) ||
        flat.isDynamicDim(rank - 1))
      return failure();
    std::optional<LinearLayer> layer = matchLinearLayer(reshape.getInput());
    if (!layer ||
        (!op.getKeepdim() && !isReshapeTarget(op.getType().getShape())))
      return failure();
    if (!this->allows(RewriteEffect::Rounding))
      return failure();
    int64_t groups = grouped.getDimSize(rank - 1);
    int64_t size = grouped.getDimSize(rank);
    Location loc = op.getLoc();
    MatmulOp matmul = layer->matmul;
    Value weight = matmul.getRhs();
    ArrayRef<int64_t> weightShape = getTensorShape(weight);
    Value reducedWeight;
    if (matmul.getTransposeB()) {
      // W: [N, K] -> [N/g, g, K], reduced over dim 1.
      Value split =
          createReshape(rewriter, loc, weight, {groups, size, weightShape[1]});
      reducedWeight = OpTy::create(rewriter, loc, split, {1}, false);
    } else {
      // W: [K, N] -> [K, N/g, g], reduced over dim 2.
      Value split =
          createReshape(rewriter, loc, weight, {weightShape[0], groups, size});
      reducedWeight = OpTy::create(rewriter, loc, split, {2}, false);
    }
    Value result =
        MatmulOp::create(rewriter, loc, matmul.getLhs(), reducedWeight,
                         matmul.getTransposeA(), matmul.getTransposeB());
    if (layer->bias) {
      Value split = createReshape(rewriter, loc, layer->bias, {groups, size});
      Value bias = OpTy::create(rewriter, loc, split, {1}, false);
      result = createShift(rewriter, loc, result, bias, layer->subtractsBias);
    }
    rewriter.replaceOp(
        op, createReshape(rewriter, loc, result, op.getType().getShape()));
    return success();
  }
};

/// (x @ W^T + b) @ V = x @ (W^T @ V) + b @ V for param-only V with no more
/// columns than W^T: the per-run product shrinks, W^T @ V is prepared once
struct MatmulOfLinear : public SimplifyPattern<MatmulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value v = op.getRhs();
    if (op.getTransposeA() || op.getRhs().getType().getRank() != 2 ||
        !isParamOnly(v))
      return failure();
    std::optional<LinearLayer> layer = matchLinearLayer(op.getLhs());
    if (!layer || layer->matmul.getLhs().getType().getRank() != 2)
      return failure();
    MatmulOp inner = layer->matmul;
    int64_t columns = op.getType().getShape().back();
    int64_t innerColumns = inner.getType().getShape().back();
    if (ShapedType::isDynamic(columns) || columns > innerColumns)
      return rewriter.notifyMatchFailure(op, "V has more columns than W^T");
    if (!allows(RewriteEffect::Rounding))
      return failure();
    Location loc = op.getLoc();
    // op(W) @ op(V): [K, N] x [N, P] -> [K, P].
    Value weight = MatmulOp::create(rewriter, loc, inner.getRhs(), v,
                                    inner.getTransposeB(), op.getTransposeB());
    Value result = MatmulOp::create(rewriter, loc, inner.getLhs(), weight,
                                    inner.getTransposeA(), false);
    if (layer->bias) {
      int64_t n = innerColumns;
      Value row = createReshape(rewriter, loc, layer->bias, {1, n});
      Value bias =
          MatmulOp::create(rewriter, loc, row, v, false, op.getTransposeB());
      bias = createReshape(rewriter, loc, bias, {columns});
      result = createShift(rewriter, loc, result, bias, layer->subtractsBias);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// (x * s) @ W = x @ (s^T * W) for param-only s along the contraction dim
/// and param-only W: the scale of x's columns scales W's rows
struct ScaleIntoContraction : public SimplifyPattern<MatmulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto mul = op.getLhs().getDefiningOp<MulOp>();
    Value weight = op.getRhs();
    if (!mul || !mul->hasOneUse() || op.getTransposeA() ||
        op.getRhs().getType().getRank() != 2 || !isParamOnly(weight))
      return failure();
    int64_t rank = mul.getType().getRank();
    int64_t k = mul.getType().getShape().back();
    for (Value s : {mul.getRhs(), mul.getLhs()}) {
      Value x = getOtherOperand(mul, s);
      if (x.getType() != mul.getType() || isScalar(s) || !isParamOnly(s) ||
          isParamOnly(x) || !isRowVector(s, rank) ||
          getTensorShape(s).back() != k)
        continue;
      if (!allows(RewriteEffect::Rounding))
        return failure();
      Location loc = op.getLoc();
      SmallVector<int64_t> shape = op.getTransposeB()
                                       ? SmallVector<int64_t>{1, k}
                                       : SmallVector<int64_t>{k, 1};
      Value scaled = MulOp::create(rewriter, loc, weight,
                                   createReshape(rewriter, loc, s, shape));
      rewriter.replaceOpWithNewOp<MatmulOp>(op, x, scaled, false,
                                            op.getTransposeB());
      return success();
    }
    return failure();
  }
};

/// x / s = x * (1 / s) for a param-only s that is not a constant: 1 / s is
/// prepared once and the multiplication folds like any scale
struct DivByParamToMul : public SimplifyPattern<DivOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    Value s = op.getRhs();
    if (matchSplatConstant(s) || !isParamOnly(s) || isParamOnly(op.getLhs()))
      return failure();
    if (!allows(RewriteEffect::Rounding))
      return failure();
    Location loc = op.getLoc();
    Value one = createScalarConstant(rewriter, loc, getElementType(s), 1.0);
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(),
                                       DivOp::create(rewriter, loc, one, s));
    return success();
  }
};

} // namespace

void mlir::sinter::populateSimplifyLinearMapPatterns(
    RewritePatternSet &patterns, FpMode mode) {
  MLIRContext *context = patterns.getContext();
  patterns.addWithLabel<RegroupCheapShifts<AddOp>, RegroupCheapShifts<SubOp>>(
      {"regroup-cheap-shifts"}, context, mode);
  patterns.addWithLabel<FactorScaledSelf>({"factor-scaled-self"}, context,
                                          mode);
  patterns.addWithLabel<CenteringCancelsShift>({"centering-cancels-shift"},
                                               context, mode);
  patterns.addWithLabel<GroupReductionOfLinear<SumOp>,
                        GroupReductionOfLinear<MeanOp>>(
      {"group-reduction-of-linear"}, context, mode);
  patterns.addWithLabel<MatmulOfLinear>({"matmul-of-linear"}, context, mode);
  patterns.addWithLabel<ScaleIntoContraction>({"scale-into-contraction"},
                                              context, mode);
  patterns.addWithLabel<DivByParamToMul>({"div-by-param"}, context, mode);
}
