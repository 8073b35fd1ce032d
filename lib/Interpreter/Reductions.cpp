//===- Reductions.cpp - Reductions and softmax of the interpreter ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Reductions walk the input once in memory order and accumulate into one
// double per output element, so row and column reductions are both
// cache-friendly. logsumexp, var and softmax take a first pass for the
// maximum (or mean) and a second for the sum, as PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "Loops.h"
#include "OpEvaluators.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

namespace {
/// Where each input element of a reduction accumulates.
struct ReductionLayout {
  /// The output's shape (reduced dims kept as 1 with keepdim, else dropped).
  SmallVector<int64_t> resultShape;
  /// Contiguous strides of the input.
  SmallVector<int64_t> inputStrides;
  /// Per input dim, the stride of the output element it accumulates into:
  /// 0 on reduced dims.
  SmallVector<int64_t> outputStrides;
  /// Number of input elements that reduce into one output element.
  int64_t reducedCount = 1;
};
} // namespace

static ReductionLayout getReductionLayout(ArrayRef<int64_t> shape,
                                          ArrayRef<int64_t> dims,
                                          bool keepdim) {
  ReductionLayout layout;
  layout.resultShape = reducedShape(shape, dims, keepdim);
  layout.inputStrides = getContiguousStrides(shape);
  SmallVector<int64_t> keptShape = reducedShape(shape, dims, true);
  layout.outputStrides = getContiguousStrides(keptShape);
  for (int64_t dim : dims) {
    layout.outputStrides[dim] = 0;
    layout.reducedCount *= shape[dim];
  }
  return layout;
}

/// Calls `visit(outputIndex, x)` for every input element `x`, in memory
/// order.
template <typename Visit>
static void forEachReduced(const HostTensor &input,
                           const ReductionLayout &layout, Visit visit) {
  const double *data = input.data.data();
  forEachRow<2>(input.shape, {layout.inputStrides, layout.outputStrides},
                [&](const std::array<int64_t, 2> &offsets, int64_t count,
                    const std::array<int64_t, 2> &strides) {
                  const double *in = data + offsets[0];
                  for (int64_t j = 0; j < count; ++j)
                    visit(offsets[1] + j * strides[1], in[j * strides[0]]);
                });
}

/// Returns true if `x` replaces `best` as the maximum so far: it is larger,
/// or the first NaN (NaN wins, as in torch.max and torch.argmax).
static bool isNewMaximum(double x, double best) {
  return x > best || (std::isnan(x) && !std::isnan(best));
}

/// Returns true if `x` replaces `best` as the minimum so far.
static bool isNewMinimum(double x, double best) {
  return x < best || (std::isnan(x) && !std::isnan(best));
}

/// Whether `x` replaces `best` as the maximum value so far: as isNewMaximum,
/// and +0 replaces -0 (IEEE 754-2019, as the elementwise maximum), so that
/// the order in which a kernel combines values never matters. Arg-reductions
/// keep the first of equal values instead.
static bool isNewMaximumValue(double x, double best) {
  return isNewMaximum(x, best) ||
         (x == best && std::signbit(best) && !std::signbit(x));
}

/// Whether `x` replaces `best` as the minimum value so far: -0 replaces +0.
static bool isNewMinimumValue(double x, double best) {
  return isNewMinimum(x, best) ||
         (x == best && !std::signbit(best) && std::signbit(x));
}

/// Reduces with `combine(accumulator, x)` from `initial`.
template <typename Combine>
static FailureOr<HostTensor> reduce(Operation *op, const HostTensor &input,
                                    const ReductionLayout &layout,
                                    double initial, Combine combine) {
  FailureOr<HostTensor> result = allocateResult(op, layout.resultShape);
  if (failed(result))
    return failure();
  std::vector<double> &acc = result->data;
  std::fill(acc.begin(), acc.end(), initial);
  forEachReduced(input, layout, [&](int64_t out, double x) {
    acc[out] = combine(acc[out], x);
  });
  return result;
}

/// Reports that `op` reduces an empty dim into a non-empty result when it
/// has no value for an empty set (`what`).
static LogicalResult checkNonEmptyReduction(Operation *op, int64_t reducedCount,
                                            ArrayRef<int64_t> resultShape,
                                            StringRef what) {
  if (reducedCount == 0 && getSizeOfDims(resultShape, 0, resultShape.size()))
    return op->emitOpError("reduces an empty dimension, which has no ") << what;
  return success();
}

/// max or min: the first NaN wins; an empty reduction is an error.
template <typename IsBetter>
static FailureOr<HostTensor>
reduceExtremum(Operation *op, const HostTensor &input,
               const ReductionLayout &layout, double initial, IsBetter isBetter,
               StringRef what) {
  if (failed(checkNonEmptyReduction(op, layout.reducedCount, layout.resultShape,
                                    what)))
    return failure();
  return reduce(op, input, layout, initial, [&](double best, double x) {
    return isBetter(x, best) ? x : best;
  });
}

/// logsumexp = log(sum(exp(x - m))) + m, with m the maximum, replaced by 0
/// where it is infinite (as torch.logsumexp).
static FailureOr<HostTensor> reduceLogsumexp(Operation *op,
                                             const HostTensor &input,
                                             const ReductionLayout &layout) {
  FailureOr<HostTensor> maxima =
      reduce(op, input, layout, -HUGE_VAL, [](double best, double x) {
        return isNewMaximum(x, best) ? x : best;
      });
  if (failed(maxima))
    return failure();
  std::vector<double> shift = std::move(maxima->data);
  for (double &m : shift)
    if (std::isinf(m))
      m = 0.0;
  FailureOr<HostTensor> result = allocateResult(op, layout.resultShape);
  if (failed(result))
    return failure();
  std::vector<double> &acc = result->data;
  forEachReduced(input, layout, [&](int64_t out, double x) {
    acc[out] += std::exp(x - shift[out]);
  });
  for (size_t i = 0; i < acc.size(); ++i)
    acc[i] = std::log(acc[i]) + shift[i];
  return result;
}

/// var = sum((x - mean)^2) / max(0, N - correction), two-pass.
static FailureOr<HostTensor> reduceVariance(Operation *op,
                                            const HostTensor &input,
                                            const ReductionLayout &layout,
                                            bool unbiased) {
  FailureOr<HostTensor> sums = reduce(
      op, input, layout, 0.0, [](double acc, double x) { return acc + x; });
  if (failed(sums))
    return failure();
  std::vector<double> mean = std::move(sums->data);
  for (double &m : mean)
    m /= static_cast<double>(layout.reducedCount);
  FailureOr<HostTensor> result = allocateResult(op, layout.resultShape);
  if (failed(result))
    return failure();
  std::vector<double> &acc = result->data;
  forEachReduced(input, layout, [&](int64_t out, double x) {
    double deviation = x - mean[out];
    acc[out] += deviation * deviation;
  });
  int64_t divisor =
      std::max<int64_t>(0, layout.reducedCount - (unbiased ? 1 : 0));
  for (double &value : acc)
    value /= static_cast<double>(divisor);
  return result;
}

/// argmax/argmin over the single dim `dim`: the index of the first extremum.
template <typename IsBetter>
static FailureOr<HostTensor>
reduceArgExtremum(Operation *op, const HostTensor &input, int64_t dim,
                  bool keepdim, IsBetter isBetter) {
  ArrayRef<int64_t> shape = input.shape;
  int64_t outer = getSizeOfDims(shape, 0, dim);
  int64_t extent = shape[dim];
  int64_t inner = getSizeOfDims(shape, dim + 1, shape.size());
  SmallVector<int64_t> resultShape = reducedShape(shape, {dim}, keepdim);
  if (failed(checkNonEmptyReduction(op, extent, resultShape, "index")))
    return failure();
  FailureOr<HostTensor> result = allocateResult(op, resultShape, true);
  if (failed(result))
    return failure();
  std::vector<double> best(inner);
  const double *in = input.data.data();
  double *indices = result->data.data();
  for (int64_t o = 0; o < outer; ++o) {
    const double *slice = in + o * extent * inner;
    double *sliceIndices = indices + o * inner;
    std::copy(slice, slice + inner, best.begin());
    for (int64_t r = 1; r < extent; ++r) {
      const double *row = slice + r * inner;
      for (int64_t i = 0; i < inner; ++i) {
        if (isBetter(row[i], best[i])) {
          best[i] = row[i];
          sliceIndices[i] = static_cast<double>(r);
        }
      }
    }
  }
  return result;
}

FailureOr<HostTensor> interp::evaluateReduction(ReductionOpInterface reduction,
                                                const HostTensor &input) {
  using Result = FailureOr<HostTensor>;
  Operation *op = reduction.getOperation();
  ReductionLayout layout = getReductionLayout(input.shape, reduction.getDims(),
                                              reduction.getKeepdim());
  auto sum = [](double acc, double x) { return acc + x; };
  switch (reduction.getCombiner()) {
  case ReductionCombiner::sum:
    return reduce(op, input, layout, 0.0, sum);
  case ReductionCombiner::mean: {
    Result result = reduce(op, input, layout, 0.0, sum);
    if (succeeded(result))
      for (double &value : result->data)
        value /= static_cast<double>(layout.reducedCount);
    return result;
  }
  case ReductionCombiner::prod:
    return reduce(op, input, layout, 1.0,
                  [](double acc, double x) { return acc * x; });
  case ReductionCombiner::max:
    return reduceExtremum(op, input, layout, -HUGE_VAL, isNewMaximumValue,
                          "maximum");
  case ReductionCombiner::min:
    return reduceExtremum(op, input, layout, HUGE_VAL, isNewMinimumValue,
                          "minimum");
  case ReductionCombiner::logsumexp:
    return reduceLogsumexp(op, input, layout);
  case ReductionCombiner::var:
    return reduceVariance(op, input, layout, cast<VarOp>(op).getUnbiased());
  case ReductionCombiner::argmax:
    return reduceArgExtremum(op, input, reduction.getDims().front(),
                             reduction.getKeepdim(), isNewMaximum);
  case ReductionCombiner::argmin:
    return reduceArgExtremum(op, input, reduction.getDims().front(),
                             reduction.getKeepdim(), isNewMinimum);
  }
  llvm_unreachable("unknown reduction combiner");
}

//===----------------------------------------------------------------------===//
// softmax and log_softmax
//===----------------------------------------------------------------------===//

FailureOr<HostTensor> interp::evaluateSoftmax(Operation *op,
                                              const HostTensor &input) {
  bool isLog = isa<LogSoftmaxOp>(op);
  int64_t dim =
      isLog ? cast<LogSoftmaxOp>(op).getDim() : cast<SoftmaxOp>(op).getDim();
  ArrayRef<int64_t> shape = input.shape;
  int64_t outer = getSizeOfDims(shape, 0, dim);
  int64_t extent = shape[dim];
  int64_t inner = getSizeOfDims(shape, dim + 1, shape.size());
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  // Per position of the trailing dims: the running maximum, then the sum.
  std::vector<double> maxima(inner), sums(inner);
  for (int64_t o = 0; o < outer; ++o) {
    const double *in = input.data.data() + o * extent * inner;
    double *out = result->data.data() + o * extent * inner;
    std::fill(maxima.begin(), maxima.end(), -HUGE_VAL);
    std::fill(sums.begin(), sums.end(), 0.0);
    for (int64_t r = 0; r < extent; ++r)
      for (int64_t i = 0; i < inner; ++i)
        if (isNewMaximum(in[r * inner + i], maxima[i]))
          maxima[i] = in[r * inner + i];
    for (int64_t r = 0; r < extent; ++r)
      for (int64_t i = 0; i < inner; ++i)
        sums[i] += std::exp(in[r * inner + i] - maxima[i]);
    for (int64_t r = 0; r < extent; ++r) {
      for (int64_t i = 0; i < inner; ++i) {
        double shifted = in[r * inner + i] - maxima[i];
        out[r * inner + i] =
            isLog ? shifted - std::log(sums[i]) : std::exp(shifted) / sums[i];
      }
    }
  }
  return result;
}
