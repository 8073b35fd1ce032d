//===- math_host_test.cu - Device math helpers checked on the host -----===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Runs without a GPU (CI). The elementwise functions, NaN-propagating
// comparisons, reduction combiners, Welford and online softmax states and
// blocked sums of sinter/rt_device.cuh are host-callable too; this checks
// their formulas with the host's libm against float64 definitions, on the
// same cases as the GPU test (math_cases.h). Prints one line per check and
// exits non-zero when any fails.
//
//===----------------------------------------------------------------------===//

#include "sinter/rt_device.cuh"

#include "math_cases.h"

#include <cstdio>
#include <string>

namespace {

using namespace sinter::test;

int checks = 0;
int failures = 0;

void report(const std::string &name, double error, double tolerance) {
  bool ok = error <= tolerance;
  ++checks;
  failures += !ok;
  std::printf("%-4s %-40s error %.3e (tolerance %.0e)\n", ok ? "ok" : "FAIL",
              name.c_str(), error, tolerance);
}

void testFunctions() {
  std::vector<float> inputs = mathInputs();
  for (int fn = 0; fn < kMathFnCount; ++fn) {
    double error = 0;
    for (float x : inputs)
      error =
          std::max(error, mathError(applyMath(fn, x), referenceMath(fn, x)));
    report(std::string("math ") + kMathFnNames[fn], error, kMathTolerance);
  }
}

/// 0 when \p got is \p expected bit for bit or both are NaN, else kInf.
double sameValue(float got, float expected) {
  bool same =
      std::isnan(expected)
          ? std::isnan(got)
          : got == expected && std::signbit(got) == std::signbit(expected);
  return same ? 0 : kInf;
}

void testComparisons() {
  const float nan = NAN;
  double error = 0;
  error = std::max({error, sameValue(dev::maximum(nan, 1.f), nan),
                    sameValue(dev::maximum(1.f, nan), nan),
                    sameValue(dev::maximum(-1.f, 2.f), 2.f),
                    sameValue(dev::minimum(nan, 1.f), nan),
                    sameValue(dev::minimum(1.f, nan), nan),
                    sameValue(dev::minimum(-1.f, 2.f), -1.f)});
  report("maximum/minimum propagate NaN", error, 0);
  // IEEE 754-2019: -0 < +0 whatever the order of the operands.
  error = std::max({sameValue(dev::maximum(-0.f, 0.f), 0.f),
                    sameValue(dev::maximum(0.f, -0.f), 0.f),
                    sameValue(dev::minimum(-0.f, 0.f), -0.f),
                    sameValue(dev::minimum(0.f, -0.f), -0.f)});
  report("maximum/minimum order signed zeros", error, 0);
  // std::max(a, b) is (a < b) ? b : a: the first operand wins ties and NaN.
  error = std::max({sameValue(dev::stdMax(nan, 1.f), nan),
                    sameValue(dev::stdMax(1.f, nan), 1.f),
                    sameValue(dev::stdMin(nan, 1.f), nan),
                    sameValue(dev::stdMin(1.f, nan), 1.f),
                    sameValue(dev::stdMax(-0.f, 0.f), -0.f)});
  report("stdMax/stdMin follow std::max/std::min", error, 0);
  error = std::max({sameValue(dev::relu(nan), nan),
                    sameValue(dev::hardtanh(nan, -1.f, 1.f), nan),
                    sameValue(dev::hardsigmoid(nan), nan),
                    sameValue(dev::leakyRelu(nan), nan)});
  report("NaN stays NaN", error, 0);
}

/// Folds \p values with the combiner \p Op from its identity, in order.
template <typename Op, typename T> T fold(const std::vector<T> &values) {
  T acc = Op::identity();
  for (const T &value : values)
    acc = Op()(acc, value);
  return acc;
}

void testCombiners() {
  const float nan = NAN;
  double error =
      std::max({sameValue(fold<dev::SumOp>(std::vector<float>{}), 0),
                sameValue(fold<dev::ProdOp>(std::vector<float>{}), 1),
                sameValue(fold<dev::MaxOp>(std::vector<float>{}), -INFINITY),
                sameValue(fold<dev::MinOp>(std::vector<float>{}), INFINITY)});
  report("combiner identities", error, 0);
  std::vector<float> values = {1.5f, -2.f, 4.f, 0.5f};
  error = std::max({sameValue(fold<dev::SumOp>(values), 4.f),
                    sameValue(fold<dev::ProdOp>(values), -6.f),
                    sameValue(fold<dev::MaxOp>(values), 4.f),
                    sameValue(fold<dev::MinOp>(values), -2.f)});
  report("sum/prod/max/min", error, 0);
  // torch.argmax/argmin: the first index of the extreme; the first NaN wins.
  auto indexOf = [](dev::ArgValue result, int64_t expected) {
    return result.index == expected ? 0.0 : kInf;
  };
  std::vector<dev::ArgValue> ties = {
      {1.f, 0}, {3.f, 1}, {3.f, 2}, {-1.f, 3}, {-1.f, 4}};
  std::vector<dev::ArgValue> nans = {{1.f, 0}, {nan, 1}, {5.f, 2}, {nan, 3}};
  error = std::max({indexOf(fold<dev::ArgMaxOp>(ties), 1),
                    indexOf(fold<dev::ArgMinOp>(ties), 3),
                    indexOf(fold<dev::ArgMaxOp>(nans), 1),
                    indexOf(fold<dev::ArgMinOp>(nans), 1),
                    // Combined in reverse (as a tree may), the same winner.
                    indexOf(dev::ArgMaxOp()(ties[2], ties[1]), 1),
                    indexOf(dev::ArgMinOp()(nans[3], nans[1]), 1)});
  report("argmax/argmin: first index, first NaN", error, 0);
  // A thread's pushes in index order (dev::argPush) from argStart: the same
  // winners; a row of the identity value answers its first index.
  auto push = [](auto op, const std::vector<dev::ArgValue> &row) {
    dev::ArgValue state = dev::argStart(op, row.front().index);
    for (const dev::ArgValue &element : row)
      state = dev::argPush(op, state, element.value, element.index);
    return state;
  };
  std::vector<dev::ArgValue> lows = {{-INFINITY, 5}, {-INFINITY, 6}};
  std::vector<dev::ArgValue> highs = {{INFINITY, 0}, {INFINITY, 1}};
  error = std::max({indexOf(push(dev::ArgMaxOp(), ties), 1),
                    indexOf(push(dev::ArgMinOp(), ties), 3),
                    indexOf(push(dev::ArgMaxOp(), nans), 1),
                    indexOf(push(dev::ArgMinOp(), nans), 1),
                    indexOf(push(dev::ArgMaxOp(), lows), 5),
                    indexOf(push(dev::ArgMinOp(), highs), 0)});
  report("argPush: first index, first NaN, rows of the identity", error, 0);
}

/// Welford over \p values: pushed one by one into \p parts states, then the
/// states combined pairwise, as a block reduction does.
dev::Welford welfordOf(const std::vector<float> &values, size_t parts) {
  std::vector<dev::Welford> states(parts, dev::welfordEmpty());
  for (size_t i = 0; i < values.size(); ++i)
    states[i % parts] = dev::welfordPush(states[i % parts], values[i]);
  for (size_t width = parts / 2; width > 0; width /= 2)
    for (size_t i = 0; i < width; ++i)
      states[i] = dev::welfordCombine(states[i], states[i + width]);
  return states[0];
}

void testWelford() {
  for (float offset : {0.f, 100.f}) {
    for (size_t length : {1, 5, 1000, 4097}) {
      std::vector<float> values(length);
      for (size_t i = 0; i < length; ++i)
        values[i] = offset + std::sin(static_cast<float>(i) * 0.37f);
      double mean = 0, var = 0;
      for (float v : values)
        mean += v;
      mean /= length;
      for (float v : values)
        var += (v - mean) * (v - mean);
      var /= length;
      dev::Welford w = welfordOf(values, 256);
      double meanError =
          std::fabs(w.mean - mean) / std::max(std::fabs(mean), 1.0);
      double varError =
          var == 0 ? std::fabs(w.m2) : std::fabs(w.m2 / w.count - var) / var;
      std::string name = "welford n=" + std::to_string(length) +
                         (offset == 0.f ? "" : " around 100");
      report(name + " mean", meanError, 1e-6);
      report(name + " var", varError, 1e-5);
      report(name + " count", std::fabs(w.count - double(length)), 0);
    }
  }
}

/// The online softmax state of \p values: pushed one by one into \p parts
/// states, then combined as a tree (as a block of threads does).
dev::OnlineSoftmax onlineSoftmaxOf(const std::vector<float> &values,
                                   size_t parts) {
  std::vector<dev::OnlineSoftmax> states(parts, dev::onlineSoftmaxEmpty());
  for (size_t i = 0; i < values.size(); ++i)
    states[i % parts] = dev::onlineSoftmaxPush(states[i % parts], values[i]);
  for (size_t width = parts / 2; width > 0; width /= 2)
    for (size_t i = 0; i < width; ++i)
      states[i] = dev::onlineSoftmaxCombine(states[i], states[i + width]);
  return states[0];
}

/// The max and sum of exp(x - max) of the online softmax against float64,
/// and PyTorch's NaN for rows holding NaN or +inf.
void testOnlineSoftmax() {
  for (size_t length : {1, 5, 1000, 4097}) {
    std::vector<float> values(length);
    for (size_t i = 0; i < length; ++i)
      values[i] = 20.f * std::sin(static_cast<float>(i) * 0.37f);
    double max = -kInf, sum = 0;
    for (float v : values)
      max = std::max(max, double(v));
    for (float v : values)
      sum += std::exp(double(v) - max);
    dev::OnlineSoftmax state = onlineSoftmaxOf(values, 256);
    std::string name = "online softmax n=" + std::to_string(length);
    report(name + " max", sameValue(state.max, static_cast<float>(max)), 0);
    report(name + " sum", std::fabs(state.sum - sum) / sum, 1e-6);
  }
  const float inf = INFINITY;
  // -inf counts for nothing next to a finite value.
  dev::OnlineSoftmax masked = onlineSoftmaxOf({-inf, 0.f, -inf, 0.f}, 2);
  report("online softmax -inf masked",
         std::max(sameValue(masked.max, 0.f), sameValue(masked.sum, 2.f)), 0);
  double error = 0;
  for (std::vector<float> row :
       {std::vector<float>{1.f, NAN, 2.f}, std::vector<float>{1.f, inf, 2.f},
        std::vector<float>{NAN, -inf}}) {
    dev::OnlineSoftmax state = onlineSoftmaxOf(row, 2);
    error = std::max(error, sameValue(state.sum, NAN));
  }
  report("online softmax NaN, +inf: NaN sum", error, 0);
  // A float4 group at once (onlineSoftmaxPushFour) agrees with four pushes
  // on -inf (from the empty state and after a finite max), NaN and +inf.
  error = 0;
  for (std::vector<float> row :
       {std::vector<float>{-inf, -inf, -inf, -inf, 3.f, -inf, 1.f, 2.f},
        std::vector<float>{0.5f, 4.f, -1.f, 4.f, 9.f, 1.f, 8.f, 0.f},
        std::vector<float>{1.f, 2.f, 3.f, 4.f, 1.f, NAN, 2.f, 3.f},
        std::vector<float>{1.f, 2.f, 3.f, 4.f, 1.f, inf, 2.f, 3.f}}) {
    dev::OnlineSoftmax pushed = dev::onlineSoftmaxEmpty();
    dev::OnlineSoftmax grouped = dev::onlineSoftmaxEmpty();
    for (size_t i = 0; i < row.size(); i += 4) {
      const float four[4] = {row[i], row[i + 1], row[i + 2], row[i + 3]};
      grouped = dev::onlineSoftmaxPushFour(grouped, four);
      for (float v : four)
        pushed = dev::onlineSoftmaxPush(pushed, v);
      error = std::max({error, sameValue(grouped.max, pushed.max),
                        double(std::fabs(grouped.sum - pushed.sum) /
                               std::max(1.f, std::fabs(pushed.sum)))});
    }
    // Both NaN or neither.
    error = std::max(
        error, std::isnan(grouped.sum) == std::isnan(pushed.sum) ? 0.0 : kInf);
  }
  report("online softmax float4 groups", error, 1e-6);
}

/// The online softmax state of a split reduction over \p values: chunks
/// of 16 (the last one short) into \p parts accumulators, then a tree of
/// OnlineSoftmaxDoubleOp, as a partial kernel and its fold do; the chunks
/// push their values into a state (OnlineSoftmaxAccumulator).
dev::OnlineSoftmaxDouble splitSoftmaxOf(const std::vector<float> &values,
                                        size_t parts) {
  constexpr int kCount = 16;
  std::vector<dev::OnlineSoftmaxAccumulator> accumulators(parts);
  for (size_t begin = 0, chunk = 0; begin < values.size();
       begin += kCount, ++chunk) {
    float slots[kCount];
    int count = 0;
    for (int i = 0; i < kCount; ++i) {
      bool row = begin + i < values.size();
      slots[i] = row ? values[begin + i] : dev::MaxOp::identity();
      count += row;
    }
    accumulators[chunk % parts].pushChunk<kCount>(slots, count);
  }
  std::vector<dev::OnlineSoftmaxDouble> states;
  for (size_t i = 0; i < parts; ++i)
    states.push_back(accumulators[i].result());
  for (size_t width = parts / 2; width > 0; width /= 2)
    for (size_t i = 0; i < width; ++i)
      states[i] = dev::OnlineSoftmaxDoubleOp()(states[i], states[i + width]);
  return states[0];
}

/// Split reductions' online softmax states (split_online_softmax) against
/// float64, and the row states' semantics on -inf, NaN and +inf.
void testSplitOnlineSoftmax() {
  for (size_t length : {1, 5, 17, 4097, 100003}) {
    std::vector<float> values(length);
    for (size_t i = 0; i < length; ++i)
      values[i] = 20.f * std::sin(static_cast<float>(i) * 0.37f) +
                  static_cast<float>(i % 7);
    double max = -kInf, sum = 0;
    for (float v : values)
      max = std::max(max, double(v));
    for (float v : values)
      sum += std::exp(double(v) - max);
    dev::OnlineSoftmaxDouble state = splitSoftmaxOf(values, 64);
    std::string name = "split online softmax n=" + std::to_string(length);
    report(name + " max", sameValue(state.max, static_cast<float>(max)), 0);
    report(name + " sum", std::fabs(state.sum - sum) / sum, 1e-6);
  }
  const float inf = INFINITY;
  // -inf counts for nothing next to a finite value; a row of -inf only
  // counts its values, as the row states do.
  dev::OnlineSoftmaxDouble masked =
      splitSoftmaxOf({-inf, 0.f, -inf, 0.f, -inf}, 2);
  dev::OnlineSoftmaxDouble allMasked =
      splitSoftmaxOf(std::vector<float>(40, -inf), 2);
  // A chunk of -inf after a finite max adds nothing; one after chunks of
  // -inf rescales their count away.
  std::vector<float> late(40, -inf);
  late[37] = 1.f;
  dev::OnlineSoftmaxDouble lateFinite = splitSoftmaxOf(late, 1);
  double masking =
      std::max({sameValue(masked.max, 0.f),
                sameValue(static_cast<float>(masked.sum), 2.f),
                sameValue(allMasked.max, -inf),
                sameValue(static_cast<float>(allMasked.sum), 40.f),
                sameValue(lateFinite.max, 1.f),
                sameValue(static_cast<float>(lateFinite.sum), 1.f)});
  double error = 0;
  for (std::vector<float> row :
       {std::vector<float>{1.f, NAN, 2.f}, std::vector<float>{1.f, inf, 2.f},
        std::vector<float>(33, inf), std::vector<float>{NAN, -inf}}) {
    dev::OnlineSoftmaxDouble state = splitSoftmaxOf(row, 2);
    error = std::max(error, sameValue(static_cast<float>(state.sum), NAN));
  }
  report("split online softmax -inf masked", masking, 0);
  report("split online softmax NaN, +inf: NaN sum", error, 0);
}

/// The accumulator sums every push exactly once, across runs, and a long
/// sum about as accurately as a pairwise tree.
void testAccumulator() {
  for (int length : {0, 1, 3, 15, 16, 17, 4097}) {
    dev::Accumulator<dev::SumOp, float> accumulator;
    for (int i = 0; i < length; ++i)
      accumulator.push(static_cast<float>(i));
    double expected = 0.5 * length * (length > 0 ? length - 1.0 : 0.0);
    report("accumulator n=" + std::to_string(length),
           std::fabs(accumulator.result() - expected), 0);
  }
  const int length = 1 << 12;
  dev::Accumulator<dev::SumOp, float> accumulator;
  double exact = 0;
  for (int i = 0; i < length; ++i) {
    float value = 1.f + std::sin(static_cast<float>(i) * 0.37f);
    accumulator.push(value);
    exact += value;
  }
  report("accumulator n=4096 relative error",
         std::fabs(accumulator.result() - exact) / exact, 1e-6);
  // Chunks of Welford states: three of five values, one cut short.
  const float chunks[3][8] = {{1, 2, 3, 4, 5, 6, 7, 8},
                              {9, 10, 11, 12, 13, 14, 15, 16},
                              {17, 18, 19, 0, 0, 0, 0, 0}};
  dev::Accumulator<dev::WelfordOp, dev::Welford, 2> welford;
  for (int i = 0; i < 3; ++i)
    welford.push(dev::welfordOfChunk<8>(chunks[i], i < 2 ? 8 : 3));
  dev::Welford w = welford.result();
  // 1 .. 19: mean 10, M2 = 19 * (19^2 - 1) / 12 = 570.
  report("welford chunks mean", std::fabs(w.mean - 10.0), 0);
  report("welford chunks m2", std::fabs(w.m2 - 570.0) / 570.0, 1e-6);
  report("welford chunks count", std::fabs(w.count - 19.0), 0);
}

} // namespace

int main() {
  testFunctions();
  testComparisons();
  testCombiners();
  testWelford();
  testOnlineSoftmax();
  testSplitOnlineSoftmax();
  testAccumulator();
  std::printf("%s: %d of %d checks failed\n", failures ? "FAILED" : "PASSED",
              failures, checks);
  return failures ? 1 : 0;
}
