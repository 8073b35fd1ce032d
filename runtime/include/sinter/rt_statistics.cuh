//===- rt_statistics.cuh - Reduction states --------------------*- CUDA -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The states that row and column kernels carry through a reduction: float
// pairs (a normalization rounded once), Welford mean / M2 states and online
// softmax states. Part of rt_device.cuh, which includes this file after its
// comparisons and before the combiners that use these states; include
// rt_device.cuh, not this file.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_STATISTICS_CUH
#define SINTER_RT_STATISTICS_CUH

namespace sinter {
namespace dev {

//===----------------------------------------------------------------------===//
// Float pairs: a normalization (x - mean) * rsqrt(var + eps) rounded once
//===----------------------------------------------------------------------===//

/// The value hi + lo, |lo| below half an ulp of hi (lo is 0 where hi is
/// not finite, so that infinities and NaN propagate as through one float).
struct FloatPair {
  float hi;
  float lo;
};

/// \p x where it is finite, else 0 (x - x is 0 exactly for finite x).
SINTER_RT_HOST_DEVICE float finiteOrZero(float x) {
  return x - x == 0.f ? x : 0.f;
}

/// a + b exactly, as a pair (Knuth's TwoSum: additions only, so that no
/// multiply-add contraction changes it).
SINTER_RT_HOST_DEVICE FloatPair twoSum(float a, float b) {
  float s = a + b;
  float bb = s - a;
  return {s, finiteOrZero((a - (s - bb)) + (b - bb))};
}

/// 1 / sqrt(v.hi + v.lo) to about 44 bits: rsqrtf and one Newton step
/// whose residual 1 - v * r^2 the fused multiply-adds keep exact.
SINTER_RT_HOST_DEVICE FloatPair rsqrtPair(FloatPair v) {
#ifdef __CUDA_ARCH__
  float r = rsqrtf(v.hi);
#else
  float r = 1.f / sqrtf(v.hi);
#endif
  float square = r * r;
  float squareLo = fmaf(r, r, -square);
  float residual = fmaf(-v.hi, square, 1.f);
  residual = fmaf(-v.hi, squareLo, residual);
  residual = fmaf(-v.lo, square, residual);
  return {r, finiteOrZero(0.5f * r * residual)};
}

/// (d.hi + d.lo) * (r.hi + r.lo), rounded once (up to terms of 2^-44); an
/// infinite factor gives d.hi * r.hi.
SINTER_RT_HOST_DEVICE float mulPair(FloatPair d, FloatPair r) {
  return fmaf(d.hi, r.hi, finiteOrZero(fmaf(d.hi, r.lo, d.lo * r.hi)));
}

//===----------------------------------------------------------------------===//
// Welford states
//===----------------------------------------------------------------------===//

/// The running mean and sum of squared deviations (M2) of `count` values.
/// The variance is m2 / count (biased) or m2 / (count - 1) (unbiased). The
/// count is a float, as in ATen's Welford reductions: exact up to 2^24.
struct Welford {
  float mean;
  float m2;
  float count;
};

/// The state of no values.
SINTER_RT_HOST_DEVICE Welford welfordEmpty() { return {0.f, 0.f, 0.f}; }

/// Adds the value \p x to \p state.
SINTER_RT_HOST_DEVICE Welford welfordPush(Welford state, float x) {
  float count = state.count + 1.f;
  float delta = x - state.mean;
  float mean = state.mean + delta / count;
  return {mean, state.m2 + delta * (x - mean), count};
}

/// The state of the union of the values of \p a and \p b (Chan et al.),
/// given their total \p count (not 0) and the weight of \p b, b.count /
/// count: the one formula of every Welford combination, for states of float
/// (Welford) or double (WelfordDouble) members.
template <typename State, typename Real>
SINTER_RT_HOST_DEVICE State welfordCombineWeighted(State a, State b, Real count,
                                                   Real weightB) {
  Real delta = b.mean - a.mean;
  return {a.mean + delta * weightB,
          a.m2 + b.m2 + delta * delta * a.count * weightB, count};
}

/// The state of the union of the values of \p a and \p b (Chan et al.).
SINTER_RT_HOST_DEVICE Welford welfordCombine(Welford a, Welford b) {
  float count = a.count + b.count;
  if (count == 0.f)
    return welfordEmpty();
  return welfordCombineWeighted(a, b, count, b.count / count);
}

//===----------------------------------------------------------------------===//
// Online softmax states
//===----------------------------------------------------------------------===//

/// The maximum of some values and the sum of exp(value - max) over them: the
/// max and denominator of a softmax in one pass (the sum is rescaled when
/// the max grows). Any NaN makes both NaN, as does +inf in the sum, as
/// PyTorch's softmax gives.
struct OnlineSoftmax {
  float max;
  float sum;
};

/// The state of no values.
SINTER_RT_HOST_DEVICE OnlineSoftmax onlineSoftmaxEmpty() {
  return {-INFINITY, 0.f};
}

/// exp(value - max) for a value at most max; 1 where both are -inf (values
/// of -inf count until a finite one makes them 0).
SINTER_RT_HOST_DEVICE float onlineSoftmaxScale(float value, float max) {
  return value == -INFINITY && max == -INFINITY ? 1.f : expf(value - max);
}

/// \p sum, a sum of exp(value - \p from), as the sum of exp(value - \p to)
/// for \p to at least \p from: unchanged where they are equal (both -inf:
/// see onlineSoftmaxScale; both +inf: the sum is NaN already), else times
/// exp(from - to) in double, rounded once; NaN where either is NaN. Each
/// value then goes through one exp in float, its own (onlineSoftmaxScale),
/// as in the softmax's numerator exp(x - max), so that the errors of the
/// float exp cancel in the ratio: with a float rescaling, the split
/// softmax over 64 rows of 1M had an error of 1.14e-7 against float64 on
/// the H100, eager's 9.6e-8; 9.1e-8 with it.
template <typename Real>
SINTER_RT_HOST_DEVICE Real onlineSoftmaxRescale(Real sum, float from,
                                                float to) {
  return from == to ? sum
                    : static_cast<Real>(static_cast<double>(sum) *
                                        exp(static_cast<double>(from) -
                                            static_cast<double>(to)));
}

/// logsumexp's sum of exp(value - clamp(max)), the max clamped to the
/// finite range, from an online softmax state's \p max and \p sum of
/// exp(value - max): the same where the max is finite; 0 where it is -inf
/// (every value is, or there are none); inf where it is +inf (no value is
/// NaN: the max would be), where the state's sum is NaN.
template <typename Real>
SINTER_RT_HOST_DEVICE Real onlineSoftmaxSumAtFinite(float max, Real sum) {
  return max == -INFINITY  ? Real(0)
         : max == INFINITY ? static_cast<Real>(INFINITY)
                           : sum;
}

/// Adds the value \p x to \p state: one exp per value.
SINTER_RT_HOST_DEVICE OnlineSoftmax onlineSoftmaxPush(OnlineSoftmax state,
                                                      float x) {
  if (x > state.max)
    return {x, onlineSoftmaxRescale(state.sum, state.max, x) +
                   onlineSoftmaxScale(x, x)};
  return {maximum(state.max, x), state.sum + onlineSoftmaxScale(x, state.max)};
}

/// The state of the union of the values of \p a and \p b.
SINTER_RT_HOST_DEVICE OnlineSoftmax onlineSoftmaxCombine(OnlineSoftmax a,
                                                         OnlineSoftmax b) {
  float max = maximum(a.max, b.max);
  return {max, onlineSoftmaxRescale(a.sum, a.max, max) +
                   onlineSoftmaxRescale(b.sum, b.max, max)};
}

} // namespace dev
} // namespace sinter

#endif // SINTER_RT_STATISTICS_CUH
