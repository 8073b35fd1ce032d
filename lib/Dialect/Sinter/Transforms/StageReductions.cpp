//===- StageReductions.cpp - Long runs of a few channels in two stages ----===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-stage-reductions splits a reduction over [A, R, C] along a long R
// whose kept run C is a few channels (not a power of two) into a reduction
// along R2 of [A, S, R2, C] and one along S of its result, so that the
// first stage's positions are short enough for warp runs (see Passes.td).
// The decision (getFirstStageRows) is apart from the rewrite.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERSTAGEREDUCTIONS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Policy: which reductions take two stages, and where R splits
//===----------------------------------------------------------------------===//

/// The fewest reduced elements of a first-stage position (R2 * C): shorter
/// ones would leave the second stage too much to read (an S of R / R2).
/// Two stages against one on the H100 (bench/results/2026-12-08-h100-ab):
/// mean over [256, 256, 256, 3] 1.50x torch.compile (one stage 0.62x on
/// the H200), sum over dim 1 of [65536, 2048, 3] 520 against 881 us, mean
/// over dim 1 of [256, 65536, 6] 138 against 272 us, sum over dim 1 of
/// [512, 16384, 7] 83 against 159 us; over the leading dim of
/// [16777216, 3] 75 against 73 us (within 2%).
static constexpr int64_t kMinStageElements = 512;

/// The sizes of `shape` from `begin` to `end`, multiplied; nullopt where one
/// is symbolic.
static std::optional<int64_t> getStaticProduct(ArrayRef<int64_t> shape,
                                               size_t begin, size_t end) {
  int64_t product = 1;
  for (int64_t size : shape.slice(begin, end - begin)) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    product *= size;
  }
  return product;
}

/// The first and last reduced dims of `reduction` (of a middle or the
/// leading geometry, every dim between them reduced).
static std::pair<int64_t, int64_t>
getReducedSpan(ReductionOpInterface reduction) {
  return {*llvm::min_element(reduction.getDims()),
          *llvm::max_element(reduction.getDims())};
}

/// The reduced rows R2 of the first stage of `reduction`, or nullopt where
/// it stays one reduction: its combiner reduces its own partials (exactly,
/// under `FpMode::Strict`); it
/// reduces a middle or the leading dims of [A, R, C] with R and C static,
/// at most one symbolic dim in A (one reshape can express), and C from
/// kMinWarpRunChannels to kMaxWarpRunChannels but not a power of two (a
/// block reads runs of those, getRunColumnsPerBlock); R * C is at least
/// kMinRunBlockElements (shorter positions take warp runs whole); R2 is the
/// largest power of two that divides R with R2 * C below
/// kMinRunBlockElements, and R2 * C is kMinStageElements at least.
static std::optional<int64_t> getFirstStageRows(ReductionOpInterface reduction,
                                                FpMode fpMode) {
  ReductionGeometry geometry = reduction.getGeometry();
  const CombinerInfo &combiner = getCombinerInfo(reduction.getCombiner());
  if (!combiner.reducesPartials ||
      (fpMode == FpMode::Strict && !combiner.exactInAnyOrder) ||
      (geometry != ReductionGeometry::middle &&
       geometry != ReductionGeometry::leading))
    return std::nullopt;
  ArrayRef<int64_t> shape =
      cast<ShapedType>(reduction.getInput().getType()).getShape();
  auto [first, last] = getReducedSpan(reduction);
  std::optional<int64_t> rows = getStaticProduct(shape, first, last + 1);
  std::optional<int64_t> channels =
      getStaticProduct(shape, last + 1, shape.size());
  if (!rows || !channels ||
      llvm::count_if(shape.take_front(first), ShapedType::isDynamic) > 1 ||
      *channels < kMinWarpRunChannels || *channels > kMaxWarpRunChannels ||
      llvm::isPowerOf2_64(*channels) ||
      *rows * *channels < kMinRunBlockElements)
    return std::nullopt;
  int64_t stageRows = int64_t{1} << llvm::countr_zero<uint64_t>(*rows);
  while (stageRows * *channels >= kMinRunBlockElements)
    stageRows /= 2;
  if (stageRows * *channels < kMinStageElements)
    return std::nullopt;
  return stageRows;
}

/// Whether the elementwise ops that compute `value` (of the reduced shape
/// `full`) can be computed over the staged shape instead, so that the first
/// stage's kernel still fuses them: each operand they read is of `full`'s
/// shape (a view of it is reshaped, or its producers recomputed in turn) or
/// broadcasts along the kept run alone (at most `channelRank` dims: a
/// scalar, a per-channel scale), which the staged shape keeps last.
/// `checked` holds the values found so already (a value that several
/// producers read is walked once).
static bool canStageProducers(Value value, ArrayRef<int64_t> full,
                              size_t channelRank,
                              llvm::DenseSet<Value> &checked) {
  Operation *producer = value.getDefiningOp();
  if (!producer || !isElementwiseOp(producer) || !checked.insert(value).second)
    return true;
  return llvm::all_of(producer->getOperands(), [&](Value operand) {
    ArrayRef<int64_t> shape = cast<ShapedType>(operand.getType()).getShape();
    return shape == full
               ? canStageProducers(operand, full, channelRank, checked)
               : shape.size() <= channelRank;
  });
}

/// The reductions of `func` that are statistics of a single-pass pair (a
/// mean and the variance around it, a max and its sum of exponentials),
/// which a split reduction computes in one pass only while both are whole.
static llvm::DenseSet<Operation *> getPairedStatistics(func::FuncOp func) {
  llvm::DenseSet<Operation *> paired;
  func.walk([&](ReductionOpInterface reduction) {
    if (std::optional<SinglePassPair> pair =
            matchSinglePassPair(reduction.getOperation())) {
      paired.insert(pair->first);
      paired.insert(pair->second);
    }
  });
  return paired;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

namespace {

// red_R(x) over [A, R, C] = red_S(red_R2(reshape(x, [A, S, R2, C]))), R = S R2.
struct ReduceInTwoStages
    : public OpInterfaceRewritePattern<ReductionOpInterface> {
  ReduceInTwoStages(MLIRContext *context, FpMode fpMode,
                    const llvm::DenseSet<Operation *> &paired)
      : OpInterfaceRewritePattern(context), fpMode(fpMode), paired(paired) {}

  LogicalResult matchAndRewrite(ReductionOpInterface reduction,
                                PatternRewriter &rewriter) const override {
    Operation *op = reduction.getOperation();
    if (paired.contains(op))
      return rewriter.notifyMatchFailure(op, "a statistic of a pair");
    std::optional<int64_t> stageRows = getFirstStageRows(reduction, fpMode);
    if (!stageRows)
      return rewriter.notifyMatchFailure(op, "one stage suffices");
    auto inputType = cast<RankedTensorType>(reduction.getInput().getType());
    ArrayRef<int64_t> shape = inputType.getShape();
    auto [first, last] = getReducedSpan(reduction);
    const size_t channelRank = shape.size() - last - 1;
    llvm::DenseSet<Value> checked;
    if (!canStageProducers(reduction.getInput(), shape, channelRank, checked))
      return rewriter.notifyMatchFailure(
          op, "a producer broadcasts along the reduced dims");
    int64_t rows = *getStaticProduct(shape, first, last + 1);
    // [A, S, R2, C]: A and C as they are.
    SmallVector<int64_t> staged(shape.take_front(first));
    staged.push_back(rows / *stageRows);
    staged.push_back(*stageRows);
    llvm::append_range(staged, shape.drop_front(last + 1));
    Location loc = op->getLoc();
    llvm::DenseMap<Value, Value> stagedValues;
    SmallVector<Operation *> originals;
    Value reshaped = stageProducers(rewriter, reduction.getInput(), staged,
                                    stagedValues, originals);
    Value partials = createStage(rewriter, op, reshaped, first + 1);
    Value whole = createStage(rewriter, op, partials, first);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(
        op, createReshape(rewriter, loc, whole, resultType.getShape()));
    // The producers that only the reduction read are dead now (operands
    // were staged before their users: erase users first).
    for (Operation *original : llvm::reverse(originals))
      if (original->use_empty())
        rewriter.eraseOp(original);
    return success();
  }

private:
  /// `value` over the `staged` shape: its elementwise producers computed
  /// again there over staged operands (canStageProducers; operands of
  /// another shape broadcast along the kept run as before), any other value
  /// reshaped. Each value is staged once (`stagedValues`); the producers
  /// computed again are appended to `originals`, operands first, which stay
  /// for their other users, if any.
  static Value stageProducers(PatternRewriter &rewriter, Value value,
                              ArrayRef<int64_t> staged,
                              llvm::DenseMap<Value, Value> &stagedValues,
                              SmallVectorImpl<Operation *> &originals) {
    if (Value done = stagedValues.lookup(value))
      return done;
    auto type = cast<RankedTensorType>(value.getType());
    Operation *producer = value.getDefiningOp();
    Value result;
    if (!producer || !isElementwiseOp(producer)) {
      result = createReshape(rewriter, value.getLoc(), value, staged);
    } else {
      // (Operands of the reduced shape, whatever their element type, as
      // canStageProducers walked them.)
      IRMapping mapping;
      for (Value operand : producer->getOperands())
        if (cast<ShapedType>(operand.getType()).getShape() == type.getShape())
          mapping.map(operand, stageProducers(rewriter, operand, staged,
                                              stagedValues, originals));
      Operation *clone = rewriter.clone(*producer, mapping);
      clone->getResult(0).setType(type.clone(staged));
      result = clone->getResult(0);
      originals.push_back(producer);
    }
    stagedValues[value] = result;
    return result;
  }

  /// The reduction of `op`'s kind over dim `dim` of `input`, not kept.
  static Value createStage(PatternRewriter &rewriter, Operation *op,
                           Value input, int64_t dim) {
    auto inputType = cast<RankedTensorType>(input.getType());
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(input);
    state.addAttributes(op->getAttrs());
    state.attributes.set("dims", rewriter.getDenseI64ArrayAttr({dim}));
    state.attributes.erase("keepdim");
    state.addTypes(RankedTensorType::get(
        reducedShape(inputType.getShape(), {dim}, /*keepdim=*/false),
        inputType.getElementType()));
    return rewriter.create(state)->getResult(0);
  }

  FpMode fpMode;
  const llvm::DenseSet<Operation *> &paired;
};

struct SinterStageReductionsPass
    : public sinter::impl::SinterStageReductionsBase<
          SinterStageReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::DenseSet<Operation *> paired = getPairedStatistics(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<ReduceInTwoStages>(&getContext(), fpMode, paired);
    // Each stage is short or small: one walk, not revisiting new ops.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
