//===- math_cases.h - Math functions and their float64 references -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The elementwise functions of sinter/rt_device.cuh as test cases: one index
// per function (with the parameters tested), the float64 definition of each,
// the error measure and the inputs. Shared by the host test (CI, no GPU) and
// the GPU test, so both check the same functions the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_TEST_MATH_CASES_H
#define SINTER_RT_TEST_MATH_CASES_H

#include "sinter/rt_device.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sinter::test {

namespace dev = sinter::dev;

/// The error of a result that should not be there (wrong NaN, infinity).
constexpr double kInf = HUGE_VAL;

/// gelu(approximate='tanh') in double precision.
inline double geluTanhReference(double x) {
  // 1 + tanh(y) = 2 / (1 + exp(-2y)), without cancellation for y << 0.
  double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * inner));
}

/// The functions under test; kMathFnNames are the names compare_with_torch.py
/// knows them by.
enum MathFn {
  kGeluErf,
  kGeluTanh,
  kSilu,
  kMish,
  kSoftplus,
  kSoftplusBeta2,
  kElu,
  kEluAlphaHalf,
  kSelu,
  kHardsigmoid,
  kHardswish,
  kSoftsign,
  kLeakyRelu,
  kLeakyReluFifth,
  kSigmoid,
  kRelu,
  kHardtanh,
  kHardtanhWide,
  kSign,
  kMathFnCount
};

inline const char *const kMathFnNames[kMathFnCount] = {
    "gelu",        "gelu_tanh",      "silu",
    "mish",        "softplus",       "softplus_beta2_threshold5",
    "elu",         "elu_alpha0.5",   "selu",
    "hardsigmoid", "hardswish",      "softsign",
    "leaky_relu",  "leaky_relu_0.2", "sigmoid",
    "relu",        "hardtanh",       "hardtanh_-2_3",
    "sign"};

/// Applies the function \p fn of rt_device.cuh to \p x (on either side).
__host__ __device__ inline float applyMath(int fn, float x) {
  switch (fn) {
  case kGeluErf:
    return dev::geluErf(x);
  case kGeluTanh:
    return dev::geluTanh(x);
  case kSilu:
    return dev::silu(x);
  case kMish:
    return dev::mish(x);
  case kSoftplus:
    return dev::softplus(x);
  case kSoftplusBeta2:
    return dev::softplus(x, 2.f, 5.f);
  case kElu:
    return dev::elu(x);
  case kEluAlphaHalf:
    return dev::elu(x, 0.5f);
  case kSelu:
    return dev::selu(x);
  case kHardsigmoid:
    return dev::hardsigmoid(x);
  case kHardswish:
    return dev::hardswish(x);
  case kSoftsign:
    return dev::softsign(x);
  case kLeakyRelu:
    return dev::leakyRelu(x);
  case kLeakyReluFifth:
    return dev::leakyRelu(x, 0.2f);
  case kSigmoid:
    return dev::sigmoid(x);
  case kRelu:
    return dev::relu(x);
  case kHardtanh:
    return dev::hardtanh(x, -1.f, 1.f);
  case kHardtanhWide:
    return dev::hardtanh(x, -2.f, 3.f);
  case kSign:
    return dev::sign(x);
  }
  return NAN;
}

/// clamp(x, lo, hi) in double precision; NaN stays NaN.
inline double clampReference(double x, double lo, double hi) {
  return std::isnan(x) ? x : std::min(std::max(x, lo), hi);
}

/// softplus(x, beta, threshold) in double precision.
inline double softplusReference(double x, double beta, double threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
}

/// The mathematical functions, in double precision.
inline double referenceMath(int fn, double x) {
  const double seluAlpha = 1.6732632423543772848170429916717;
  const double seluScale = 1.0507009873554804934193349852946;
  switch (fn) {
  case kGeluErf:
    return 0.5 * x * std::erfc(-x * M_SQRT1_2);
  case kGeluTanh:
    return geluTanhReference(x);
  case kSilu:
    return x / (1 + std::exp(-x));
  case kMish:
    return x * std::tanh(std::log1p(std::exp(x)));
  case kSoftplus:
    return softplusReference(x, 1, 20);
  case kSoftplusBeta2:
    return softplusReference(x, 2, 5);
  case kElu:
    return x > 0 ? x : std::expm1(x);
  case kEluAlphaHalf:
    return x > 0 ? x : 0.5 * std::expm1(x);
  case kSelu:
    return seluScale * (x > 0 ? x : seluAlpha * std::expm1(x));
  case kHardsigmoid:
    return clampReference(x + 3, 0, 6) / 6;
  case kHardswish:
    return x * clampReference(x + 3, 0, 6) / 6;
  case kSoftsign:
    return x / (1 + std::fabs(x));
  case kLeakyRelu:
    return x > 0 ? x : 0.01 * x;
  case kLeakyReluFifth:
    return x > 0 ? x : 0.2 * x;
  case kSigmoid:
    return 1 / (1 + std::exp(-x));
  case kRelu:
    return std::isnan(x) ? x : std::max(x, 0.0);
  case kHardtanh:
    return clampReference(x, -1, 1);
  case kHardtanhWide:
    return clampReference(x, -2, 3);
  case kSign:
    return (0 < x) - (x < 0);
  }
  return NAN;
}

/// |got - ref| / max(|ref|, 1): relative where |ref| >= 1, absolute below.
/// NaN must give NaN and infinity the same infinity; a reference beyond the
/// float range must give the infinity it rounds to.
inline double mathError(float got, double ref) {
  if (std::isnan(ref))
    return std::isnan(got) ? 0 : kInf;
  if (std::isinf(static_cast<float>(ref)))
    return got == static_cast<float>(ref) ? 0 : kInf;
  if (!std::isfinite(got))
    return kInf;
  return std::fabs(got - ref) / std::max(std::fabs(ref), 1.0);
}

/// A dense sweep of [-30, 30] and the special values.
inline std::vector<float> mathInputs() {
  std::vector<float> x;
  for (int i = -60000; i <= 60000; ++i)
    x.push_back(static_cast<float>(i) * 5e-4f);
  const float specials[] = {
      0.f,        1e-30f,     1e-40f,     88.f,     89.f, 100.f, 1e4f,
      1e10f,      1e30f,      1e37f,      INFINITY, 2.5f, 20.f,  19.999998f,
      20.000002f, 2.4999998f, 2.5000002f, 3.f,      1.f};
  for (float s : specials) {
    x.push_back(s);
    x.push_back(-s);
  }
  x.push_back(NAN);
  return x;
}

/// The tolerance of mathError for every function: a few units in the last
/// place of fp32.
constexpr double kMathTolerance = 1e-6;

} // namespace sinter::test

#endif // SINTER_RT_TEST_MATH_CASES_H
