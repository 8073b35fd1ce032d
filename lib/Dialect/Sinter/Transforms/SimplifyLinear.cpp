//===- SimplifyLinear.cpp - Algebraic rewrites around matmuls -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The rewrites of sinter-simplify that involve a matmul: scalar factors
// leave its operands, a sum or mean over its N (or M) dim becomes a
// matrix-vector product with the reduced weight (bias included), and scales
// and shifts after it fold into its param operand. A rewrite never leaves
// two matmuls where there was one: the matmul it replaces must have no other
// use.
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

/// The result dims of a matmul: M (rows, second to last) and N (columns,
/// last).
enum class MatmulDim { Rows, Columns };

/// The dim of the lhs that holds the rows (M) of the product.
static int64_t lhsRowsDim(MatmulOp op) {
  int64_t rank = op.getLhs().getType().getRank();
  return op.getTransposeA() ? rank - 1 : rank - 2;
}

/// The dim of the rhs that holds the columns (N) of the product.
static int64_t rhsColumnsDim(MatmulOp op) {
  int64_t rank = op.getRhs().getType().getRank();
  return op.getTransposeB() ? rank - 2 : rank - 1;
}

/// Returns the result dim of `op` that a reduction over `dims` reduces
/// alone, M or N, when its size is not 1 (a reduction over a size-1 dim
/// vanishes instead).
static std::optional<MatmulDim> reducedMatmulDim(MatmulOp op,
                                                 ArrayRef<int64_t> dims) {
  RankedTensorType type = op.getType();
  int64_t rank = type.getRank();
  if (dims.size() != 1 || type.getDimSize(dims.front()) == 1)
    return std::nullopt;
  if (dims.front() == rank - 1)
    return MatmulDim::Columns;
  if (dims.front() == rank - 2)
    return MatmulDim::Rows;
  return std::nullopt;
}

/// Returns the single-use matmul that defines `value`, or null: rewriting a
/// matmul with other uses would compute it twice.
static MatmulOp getSingleUseMatmul(Value value) {
  auto matmul = value.getDefiningOp<MatmulOp>();
  return matmul && matmul->hasOneUse() ? matmul : MatmulOp();
}

/// Returns the shape to which `factor` is reshaped so that multiplying the
/// rhs of `matmul` by it scales the columns of the product as multiplying
/// the product by `factor` does; nothing unless `factor` is a scalar or
/// varies along N only (and the rhs then has rank 2).
static std::optional<SmallVector<int64_t>> columnFactorShape(MatmulOp matmul,
                                                             Value factor) {
  auto type = cast<RankedTensorType>(factor.getType());
  if (type.getRank() == 0)
    return SmallVector<int64_t>();
  RankedTensorType product = matmul.getType();
  if (matmul.getRhs().getType().getRank() != 2 ||
      type.getRank() > product.getRank())
    return std::nullopt;
  if (llvm::any_of(type.getShape().drop_back(),
                   [](int64_t size) { return size != 1; }))
    return std::nullopt;
  int64_t columns = type.getShape().back();
  int64_t productColumns = product.getShape().back();
  if (columns != 1 &&
      (ShapedType::isDynamic(columns) || columns != productColumns))
    return std::nullopt;
  if (matmul.getTransposeB())
    return SmallVector<int64_t>{columns, 1};
  return SmallVector<int64_t>{columns};
}

/// How a reduction over `dims` of a `full`-shaped tensor applies to an
/// operand that broadcasts into it: reduce the operand over `dims` where it
/// has the full size, and (for a sum) multiply by the count of the dims
/// along which it broadcasts.
struct BroadcastReduction {
  SmallVector<int64_t> dims;
  int64_t factor = 1;
};

/// Plans the reduction of `operand` (broadcast into `full`) over `dims` of
/// `full`; nothing when a size that decides the plan is dynamic.
static std::optional<BroadcastReduction>
planBroadcastReduction(RankedTensorType operand, RankedTensorType full,
                       ArrayRef<int64_t> dims, bool isSum) {
  BroadcastReduction plan;
  int64_t offset = full.getRank() - operand.getRank();
  for (int64_t dim : dims) {
    int64_t fullSize = full.getDimSize(dim);
    int64_t operandSize = dim < offset ? 1 : operand.getDimSize(dim - offset);
    if (operandSize == 1) {
      if (isSum && ShapedType::isDynamic(fullSize))
        return std::nullopt;
      plan.factor *= isSum ? fullSize : 1;
    } else if (operandSize == fullSize && !ShapedType::isDynamic(fullSize)) {
      plan.dims.push_back(dim - offset);
    } else {
      return std::nullopt;
    }
  }
  return plan;
}

/// The shape of `operand` reduced by `plan`, without the dims of `dims`
/// (of the full shape) unless `keepdim`.
static SmallVector<int64_t> plannedShape(RankedTensorType operand,
                                         RankedTensorType full,
                                         ArrayRef<int64_t> dims,
                                         const BroadcastReduction &plan,
                                         bool keepdim) {
  SmallVector<int64_t> shape =
      reducedShape(operand.getShape(), plan.dims, /*keepdim=*/true);
  if (keepdim)
    return shape;
  int64_t offset = full.getRank() - operand.getRank();
  SmallVector<int64_t> dropped;
  for (auto [index, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(index) + offset))
      dropped.push_back(size);
  return dropped;
}

/// Returns true if `perm` swaps the last two dims and keeps the others.
static bool swapsLastTwoDims(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    if (perm[dim] != dim)
      return false;
  return rank >= 2 && perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// sum_n (A @ B)[m, n] = A @ sum_n B[:, n] ; sum_m (A @ B)[m, n] =
/// (sum_m A[m, :]) @ B ; mean likewise
template <typename OpTy>
struct ReductionOfMatmulToMatvec : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    MatmulOp matmul = getSingleUseMatmul(op.getInput());
    if (!matmul)
      return rewriter.notifyMatchFailure(
          op, "the input is not a single-use matmul");
    std::optional<MatmulDim> dim = reducedMatmulDim(matmul, op.getDims());
    if (!dim)
      return rewriter.notifyMatchFailure(op, "does not reduce M or N alone");
    // Without keepdim a reshape drops the reduced dim of the product.
    if (!canDropReducedDims(op))
      return rewriter.notifyMatchFailure(op, "reshape to several dynamic dims");
    if (!this->allows(RewriteEffect::Rounding))
      return notifyForbiddenByFpMode(rewriter, op);
    Location loc = op.getLoc();
    Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
    if (*dim == MatmulDim::Columns)
      rhs = OpTy::create(rewriter, loc, rhs, {rhsColumnsDim(matmul)},
                         /*keepdim=*/true);
    else
      lhs = OpTy::create(rewriter, loc, lhs, {lhsRowsDim(matmul)},
                         /*keepdim=*/true);
    Value product =
        MatmulOp::create(rewriter, loc, lhs, rhs, matmul.getTransposeA(),
                         matmul.getTransposeB());
    rewriter.replaceOp(
        op, createReshape(rewriter, loc, product, op.getType().getShape()));
    return success();
  }
};

/// sum(A @ B + b) = sum(A @ B) + sum(b) over N or M, b broadcast (a sum
/// over a dim that b broadcasts along multiplies it by the dim's size);
/// mean likewise; also for -
template <typename OpTy>
struct ReductionOfBiasedMatmul : public SimplifyPattern<OpTy> {
  using SimplifyPattern<OpTy>::SimplifyPattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *combine = op.getInput().getDefiningOp();
    if (!isa_and_present<AddOp, SubOp>(combine) || !combine->hasOneUse())
      return rewriter.notifyMatchFailure(
          op, "the input is not a single-use add or sub");
    auto full = cast<RankedTensorType>(combine->getResult(0).getType());
    for (auto [index, operand] : llvm::enumerate(combine->getOperands())) {
      MatmulOp matmul = getSingleUseMatmul(operand);
      if (!matmul || matmul.getType() != full ||
          !reducedMatmulDim(matmul, op.getDims()))
        continue;
      Value bias = combine->getOperand(1 - index);
      auto biasType = cast<RankedTensorType>(bias.getType());
      std::optional<BroadcastReduction> plan = planBroadcastReduction(
          biasType, full, op.getDims(), std::is_same_v<OpTy, SumOp>);
      if (!plan)
        continue;
      SmallVector<int64_t> biasShape =
          plannedShape(biasType, full, op.getDims(), *plan, op.getKeepdim());
      if (!isReshapeTarget(biasShape) ||
          !broadcastsTo(
              reducedShape(full.getShape(), op.getDims(), op.getKeepdim()),
              biasShape, op.getType().getShape()))
        continue;
      if (!this->allows(RewriteEffect::Rounding))
        return notifyForbiddenByFpMode(rewriter, op);
      rewriter.replaceOp(
          op, distribute(rewriter, op, combine, index, *plan, biasShape));
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "no matmul operand with a bias that distributes");
  }

  /// Builds reduce(matmul) combined with the planned reduction of the bias,
  /// the operands in their original order.
  Value distribute(PatternRewriter &rewriter, OpTy op, Operation *combine,
                   size_t matmulIndex, const BroadcastReduction &plan,
                   ArrayRef<int64_t> biasShape) const {
    Location loc = op.getLoc();
    Value bias = combine->getOperand(1 - matmulIndex);
    if (!plan.dims.empty())
      bias = OpTy::create(rewriter, loc, bias, plan.dims, /*keepdim=*/true);
    if (plan.factor != 1)
      bias = MulOp::create(
          rewriter, loc, bias,
          createScalarConstant(rewriter, loc, getElementType(bias),
                               static_cast<double>(plan.factor)));
    bias = createReshape(rewriter, loc, bias, biasShape);
    Value reduced =
        OpTy::create(rewriter, loc, combine->getOperand(matmulIndex),
                     op.getDims(), op.getKeepdim());
    SmallVector<Value, 2> operands{reduced, bias};
    if (matmulIndex == 1)
      std::swap(operands[0], operands[1]);
    if (isa<AddOp>(combine))
      return AddOp::create(rewriter, loc, operands[0], operands[1]);
    return SubOp::create(rewriter, loc, operands[0], operands[1]);
  }
};

/// transpose(A) @ B = A @ B with transpose_a flipped; likewise for B
struct TransposeIntoMatmul : public SimplifyPattern<MatmulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsTranspose = op.getLhs().getDefiningOp<TransposeOp>();
    auto rhsTranspose = op.getRhs().getDefiningOp<TransposeOp>();
    bool foldLhs = lhsTranspose && swapsLastTwoDims(lhsTranspose.getPerm());
    bool foldRhs = rhsTranspose && swapsLastTwoDims(rhsTranspose.getPerm());
    if ((!foldLhs && !foldRhs))
      return rewriter.notifyMatchFailure(
          op, "no operand is a transpose of the last two dims");
    if (!allows(RewriteEffect::Exact))
      return notifyForbiddenByFpMode(rewriter, op);
    rewriter.replaceOpWithNewOp<MatmulOp>(
        op, foldLhs ? lhsTranspose.getInput() : op.getLhs(),
        foldRhs ? rhsTranspose.getInput() : op.getRhs(),
        op.getTransposeA() != foldLhs, op.getTransposeB() != foldRhs);
    return success();
  }
};

/// (c * A) @ B = (A @ B) * c and A @ (c * B) = (A @ B) * c for a scalar c
/// on an operand that is not param-only
struct ScalarOutOfMatmulOperand : public SimplifyPattern<MatmulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : op->getOpOperands()) {
      auto mul = operand.get().getDefiningOp<MulOp>();
      // A param-only operand is computed once; its factor stays there.
      if (!mul || isParamOnly(mul))
        continue;
      for (Value factor : {mul.getRhs(), mul.getLhs()}) {
        Value x = getOtherOperand(mul, factor);
        if (!isScalar(factor) || x.getType() != mul.getType())
          continue;
        if (!allows(RewriteEffect::Rounding))
          return notifyForbiddenByFpMode(rewriter, op);
        SmallVector<Value, 2> operands(op->getOperands());
        operands[operand.getOperandNumber()] = x;
        Value product =
            MatmulOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                             op.getTransposeA(), op.getTransposeB());
        rewriter.replaceOpWithNewOp<MulOp>(op, product, factor);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        op, "no operand is a product with a scalar factor");
  }
};

/// (A @ B) * s = A @ (B * s) for param-only B and a param-only s that is a
/// scalar or varies along N; (A @ B) * c = (A * c) @ B for param-only A
struct ScaleIntoMatmulWeights : public SimplifyPattern<MulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (Value product : {op.getLhs(), op.getRhs()}) {
      MatmulOp matmul = getSingleUseMatmul(product);
      Value factor = getOtherOperand(op, product);
      if (!matmul || matmul.getType() != op.getType() || !isParamOnly(factor))
        continue;
      std::optional<SmallVector<int64_t>> shape =
          columnFactorShape(matmul, factor);
      bool intoRhs = shape && isParamOnly(matmul.getRhs());
      bool intoLhs =
          !intoRhs && isScalar(factor) && isParamOnly(matmul.getLhs());
      if (!intoRhs && !intoLhs)
        continue;
      if (!allows(RewriteEffect::Rounding))
        return notifyForbiddenByFpMode(rewriter, op);
      Location loc = op.getLoc();
      Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
      if (intoRhs)
        rhs = MulOp::create(rewriter, loc, rhs,
                            createReshape(rewriter, loc, factor, *shape));
      else
        lhs = MulOp::create(rewriter, loc, lhs, factor);
      rewriter.replaceOpWithNewOp<MatmulOp>(
          op, lhs, rhs, matmul.getTransposeA(), matmul.getTransposeB());
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "no param-only factor folds into the matmul");
  }
};

/// (A @ B + b) * s = (A @ B) * s + b * s for param-only B, b and s, s a
/// scalar or varying along N
struct ScaleThroughBias : public SimplifyPattern<MulOp> {
  using SimplifyPattern::SimplifyPattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (Value sumValue : {op.getLhs(), op.getRhs()}) {
      auto add = sumValue.getDefiningOp<AddOp>();
      Value factor = getOtherOperand(op, sumValue);
      if (!add || !add->hasOneUse() || add.getType() != op.getType() ||
          !isParamOnly(factor))
        continue;
      for (Value product : {add.getLhs(), add.getRhs()}) {
        MatmulOp matmul = getSingleUseMatmul(product);
        Value bias = getOtherOperand(add, product);
        if (!matmul || matmul.getType() != op.getType() || !isParamOnly(bias) ||
            !isParamOnly(matmul.getRhs()) || !columnFactorShape(matmul, factor))
          continue;
        std::optional<SmallVector<int64_t>> biasShape = broadcastShapes(
            cast<RankedTensorType>(bias.getType()).getShape(),
            cast<RankedTensorType>(factor.getType()).getShape());
        if (!biasShape)
          continue;
        if (!broadcastsTo(op.getType().getShape(), *biasShape,
                          op.getType().getShape()))
          continue;
        if (!allows(RewriteEffect::Rounding))
          return notifyForbiddenByFpMode(rewriter, op);
        Location loc = op.getLoc();
        Value scaled = MulOp::create(rewriter, loc, product, factor);
        Value scaledBias = MulOp::create(rewriter, loc, bias, factor);
        rewriter.replaceOpWithNewOp<AddOp>(op, scaled, scaledBias);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        op, "no biased matmul with a param-only factor");
  }
};

} // namespace

void mlir::sinter::populateSimplifyMatvecPatterns(RewritePatternSet &patterns,
                                                  FpMode mode) {
  MLIRContext *context = patterns.getContext();
  patterns.addWithLabel<ReductionOfMatmulToMatvec<SumOp>,
                        ReductionOfMatmulToMatvec<MeanOp>>(
      {"reduction-of-matmul"}, context, mode);
  patterns.addWithLabel<ReductionOfBiasedMatmul<SumOp>,
                        ReductionOfBiasedMatmul<MeanOp>>(
      {"reduction-of-biased-matmul"}, context, mode);
  patterns.addWithLabel<ScalarOutOfMatmulOperand>(
      {"scalar-out-of-matmul-operand"}, context, mode);
  patterns.addWithLabel<TransposeIntoMatmul>({"transpose-into-matmul"}, context,
                                             mode);
}

void mlir::sinter::populateSimplifyWeightFoldingPatterns(
    RewritePatternSet &patterns, FpMode mode) {
  MLIRContext *context = patterns.getContext();
  patterns.addWithLabel<ScaleIntoMatmulWeights>({"scale-into-weights"}, context,
                                                mode);
  patterns.addWithLabel<ScaleThroughBias>({"scale-through-bias"}, context,
                                          mode);
}
