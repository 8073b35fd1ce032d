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
// L(W) and L(b) computed once in @prepare: shifts by params (vectors or
// scalars) regroup into the bias, a param minus the linear negates the
// weight, a sum or mean over groups of adjacent or strided columns reduces
// the weight's rows, a product with a param matrix multiplies into the
// weight where that costs no more, column scales move through relu and
// leaky_relu when they are known positive and into the weight from either
// side, and the centering of training batch norm drops what is constant
// along the batch. Each rewrite leaves a linear layer again, so that they
// compose. SimplifyLinear.cpp then folds what reaches the matmul.
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

/// Returns true if `value` broadcasts along the rows of a result of rank
/// `rank`: a scalar or a row vector (of one element or one per column).
static bool isRowBroadcast(Value value, int64_t rank) {
  return isScalar(value) || isRowVector(value, rank);
}

/// Returns true if `value` holds one element (a scalar, or every dim 1).
static bool isSingleElement(Value value) {
  return llvm::all_of(getTensorShape(value),
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
        !isRowBroadcast(bias, rank) || (isa<SubOp>(op) && index == 1))
      continue;
    return LinearLayer{matmul, bias, isa<SubOp>(op)};
  }
  return std::nullopt;
}

/// Returns the bias of `layer` as a vector of its `n` columns: a row vector
/// reshaped, a single element broadcast (c + 0 = c, exactly).
static Value createBiasRow(OpBuilder &builder, Location loc,
                           const LinearLayer &layer, int64_t n) {
  Value bias = layer.bias;
  if (!isSingleElement(bias) || n == 1)
    return createReshape(builder, loc, bias, {n});
  auto type = RankedTensorType::get({n}, getElementType(bias));
  return AddOp::create(builder, loc,
                       createSplatConstant(builder, loc, type, APFloat(0.0)),
                       createReshape(builder, loc, bias, {}));
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
          return notifyForbiddenByFpMode(rewriter, op);
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
    return rewriter.notifyMatchFailure(
        op, "no param shift of a costly value to regroup");
  }
};

/// y * c + y = y * (c + 1), y + y * c = y * (1 + c), y * c - y = y * (c - 1)
/// and y - y * c = y * (1 - c), for a cheap c
template <typename OpTy>
struct FactorScaledSelf : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    for (Value product : {op.getLhs(), op.getRhs()}) {
      auto mul = product.template getDefiningOp<MulOp>();
      Value y = getOtherOperand(op, product);
      if (!mul || isCheapFactor(y))
        continue;
      for (Value c : {mul.getRhs(), mul.getLhs()}) {
        if (getOtherOperand(mul, c) != y || !isCheapFactor(c) ||
            !broadcastsTo(getTensorShape(y), getTensorShape(c),
                          op.getType().getShape()))
          continue;
        if (!this->allows(RewriteEffect::Rounding))
          return notifyForbiddenByFpMode(rewriter, op);
        Location loc = op.getLoc();
        Value one = createScalarConstant(rewriter, loc, getElementType(y), 1.0);
        // The factor keeps the operands' order: (c op 1) or (1 op c).
        Value factor = product == op.getLhs()
                           ? OpTy::create(rewriter, loc, c, one).getResult()
                           : OpTy::create(rewriter, loc, one, c).getResult();
        rewriter.replaceOpWithNewOp<MulOp>(op, y, factor);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no operand is y * c for a cheap c");
  }
};

/// p - (x @ W^T + b) = x @ (-W)^T + (p - b) (and p + b for - b) for
/// param-only W, b and a param-only p that broadcasts along the rows: the
/// result is a linear layer that linear maps fold into (without b, negating
/// W negates every product exactly)
struct NegatedLinearToLinear : public SimplifyPattern<SubOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<LinearLayer> layer = matchLinearLayer(op.getRhs());
    Value p = op.getLhs();
    if (!layer || layer->matmul.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not a param minus a linear");
    if (!isParamOnly(p) || !isRowBroadcast(p, op.getType().getRank()))
      return rewriter.notifyMatchFailure(op,
                                         "the minuend is not a param-only row");
    if (!allows(layer->bias ? RewriteEffect::Rounding : RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    Location loc = op.getLoc();
    MatmulOp matmul = layer->matmul;
    Value negated = NegOp::create(rewriter, loc, matmul.getRhs());
    Value product =
        MatmulOp::create(rewriter, loc, matmul.getLhs(), negated,
                         matmul.getTransposeA(), matmul.getTransposeB());
    Value shift = p;
    if (layer->bias)
      shift = createShift(rewriter, loc, p, layer->bias, !layer->subtractsBias);
    rewriter.replaceOpWithNewOp<AddOp>(op, product, shift);
    return success();
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
      return rewriter.notifyMatchFailure(
          op, "not a shifted value minus its mean (keepdim)");
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
        return notifyForbiddenByFpMode(rewriter, op);
      Value centered = MeanOp::create(rewriter, mean.getLoc(), h,
                                      mean.getDims(), /*keepdim=*/true);
      rewriter.replaceOpWithNewOp<SubOp>(op, h, centered);
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "the shift varies along the reduced dims");
  }
};

//===----------------------------------------------------------------------===//
// Linear maps of a linear layer
//===----------------------------------------------------------------------===//

/// The split of the last dim of a reshape's input into static parts
/// [d1, .., dm] (the rows untouched), and the parts a reduction reduces.
struct ColumnSplit {
  SmallVector<int64_t> parts;
  SmallVector<int64_t> reducedParts;
};

/// Matches `reshape` [.., N] -> [.., d1, .., dm] reduced over `dims`, every
/// dim among the parts; nothing otherwise.
static std::optional<ColumnSplit> matchColumnSplit(ReshapeOp reshape,
                                                   ArrayRef<int64_t> dims) {
  RankedTensorType flat = reshape.getInput().getType();
  RankedTensorType split = reshape.getType();
  if (flat.getRank() == 0)
    return std::nullopt; // A scalar has no columns to split.
  int64_t rows = flat.getRank() - 1;
  if (split.getRank() <= rows || flat.isDynamicDim(rows) ||
      flat.getShape().take_front(rows) != split.getShape().take_front(rows))
    return std::nullopt;
  ColumnSplit result;
  llvm::append_range(result.parts, split.getShape().drop_front(rows));
  if (llvm::any_of(result.parts, ShapedType::isDynamic))
    return std::nullopt;
  for (int64_t dim : dims) {
    if (dim < rows)
      return std::nullopt;
    result.reducedParts.push_back(dim - rows);
  }
  return result;
}

/// reduce(reshape(x @ W^T + b, [.., d1, .., dm]), dims) = x @ reduce(W)^T +
/// reduce(b) for sum and mean over any of the parts of the columns: groups
/// of adjacent columns (average pooling), columns a stride apart, or both
template <typename OpTy>
struct GroupReductionOfLinear : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getInput().template getDefiningOp<ReshapeOp>();
    if (!reshape || !reshape->hasOneUse())
      return rewriter.notifyMatchFailure(
          op, "the input is not a single-use reshape");
    std::optional<ColumnSplit> split = matchColumnSplit(reshape, op.getDims());
    if (!split)
      return rewriter.notifyMatchFailure(
          op, "not a reduction of a static split of the last dim");
    std::optional<LinearLayer> layer = matchLinearLayer(reshape.getInput());
    if (!layer)
      return rewriter.notifyMatchFailure(op, "the input is no linear layer");
    if (!canDropReducedDims(op))
      return rewriter.notifyMatchFailure(op, "reshape to several dynamic dims");
    if (!this->allows(RewriteEffect::Rounding))
      return notifyForbiddenByFpMode(rewriter, op);
    ArrayRef<int64_t> parts = split->parts;
    int64_t n = getTensorShape(reshape.getInput()).back();
    int64_t kept = n;
    for (int64_t part : split->reducedParts)
      kept /= parts[part];
    Location loc = op.getLoc();
    MatmulOp matmul = layer->matmul;
    Value weight = matmul.getRhs();
    int64_t k = getTensorShape(weight)[matmul.getTransposeB() ? 1 : 0];
    // W: [N, K] -> [d1, .., dm, K] (or [K, N] -> [K, d1, .., dm]), reduced
    // over the same parts and flattened to [N', K] (or [K, N']).
    SmallVector<int64_t> weightShape(parts);
    SmallVector<int64_t> weightDims(split->reducedParts);
    if (matmul.getTransposeB()) {
      weightShape.push_back(k);
    } else {
      weightShape.insert(weightShape.begin(), k);
      for (int64_t &dim : weightDims)
        ++dim;
    }
    Value reducedWeight = OpTy::create(
        rewriter, loc, createReshape(rewriter, loc, weight, weightShape),
        weightDims, /*keepdim=*/false);
    reducedWeight =
        createReshape(rewriter, loc, reducedWeight,
                      matmul.getTransposeB() ? SmallVector<int64_t>{kept, k}
                                             : SmallVector<int64_t>{k, kept});
    Value result =
        MatmulOp::create(rewriter, loc, matmul.getLhs(), reducedWeight,
                         matmul.getTransposeA(), matmul.getTransposeB());
    if (layer->bias) {
      Value row = createBiasRow(rewriter, loc, *layer, n);
      Value bias =
          OpTy::create(rewriter, loc, createReshape(rewriter, loc, row, parts),
                       split->reducedParts, /*keepdim=*/false);
      bias = createReshape(rewriter, loc, bias, {kept});
      result = createShift(rewriter, loc, result, bias, layer->subtractsBias);
    }
    rewriter.replaceOp(
        op, createReshape(rewriter, loc, result, op.getType().getShape()));
    return success();
  }
};

/// Returns true if folding a [K, N] weight and an [N, P] param V into one
/// [K, P] weight costs no more per row of x: K * P <= K * N + N * P (FLOPs
/// per row are twice each side, bytes of weights read once per run the same).
static bool isFoldCheaper(int64_t k, int64_t n, int64_t p) {
  return k * p <= k * n + n * p;
}

/// (x @ W^T + b) @ V = x @ (W^T @ V) + b @ V for a param-only V, when the
/// folded weight costs no more than W and V: W^T @ V is prepared once
struct MatmulOfLinear : public SimplifyPattern<MatmulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value v = op.getRhs();
    if (op.getTransposeA() || op.getRhs().getType().getRank() != 2 ||
        !isParamOnly(v))
      return rewriter.notifyMatchFailure(op, "the rhs is no param matrix");
    std::optional<LinearLayer> layer = matchLinearLayer(op.getLhs());
    if (!layer)
      return rewriter.notifyMatchFailure(op, "the lhs is no linear layer");
    MatmulOp inner = layer->matmul;
    ArrayRef<int64_t> weightShape = getTensorShape(inner.getRhs());
    int64_t k = weightShape[inner.getTransposeB() ? 1 : 0];
    int64_t n = inner.getType().getShape().back();
    int64_t p = op.getType().getShape().back();
    if (!isFoldCheaper(k, n, p))
      return rewriter.notifyMatchFailure(
          op, "the folded weight would cost more than W and V");
    if (!allows(RewriteEffect::Rounding))
      return notifyForbiddenByFpMode(rewriter, op);
    Location loc = op.getLoc();
    // op(W) @ op(V): [K, N] x [N, P] -> [K, P].
    Value weight = MatmulOp::create(rewriter, loc, inner.getRhs(), v,
                                    inner.getTransposeB(), op.getTransposeB());
    Value result = MatmulOp::create(rewriter, loc, inner.getLhs(), weight,
                                    inner.getTransposeA(), false);
    if (layer->bias) {
      Value row = createReshape(
          rewriter, loc, createBiasRow(rewriter, loc, *layer, n), {1, n});
      Value bias =
          MatmulOp::create(rewriter, loc, row, v, false, op.getTransposeB());
      bias = createReshape(rewriter, loc, bias, {p});
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
      return rewriter.notifyMatchFailure(
          op, "not a single-use product times a param weight");
    int64_t rank = mul.getType().getRank();
    int64_t k = mul.getType().getShape().back();
    for (Value s : {mul.getRhs(), mul.getLhs()}) {
      Value x = getOtherOperand(mul, s);
      if (x.getType() != mul.getType() || isScalar(s) || !isParamOnly(s) ||
          isParamOnly(x) || !isRowVector(s, rank) ||
          getTensorShape(s).back() != k)
        continue;
      if (!allows(RewriteEffect::Rounding))
        return notifyForbiddenByFpMode(rewriter, op);
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
    return rewriter.notifyMatchFailure(
        op, "no param row scale of the contraction dim");
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
      return rewriter.notifyMatchFailure(
          op, "not a costly value divided by a non-constant param");
    if (!allows(RewriteEffect::Rounding))
      return notifyForbiddenByFpMode(rewriter, op);
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
  patterns.addWithLabel<FactorScaledSelf<AddOp>, FactorScaledSelf<SubOp>>(
      {"factor-scaled-self"}, context, mode);
  patterns.addWithLabel<NegatedLinearToLinear>({"negated-linear"}, context,
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
