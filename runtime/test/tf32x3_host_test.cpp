//===- tf32x3_host_test.cpp - The 3xTF32 split and shape rule on the host -===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Runs without a GPU (CI). Checks the TF32 rounding and hi/lo split of
// tf32x3.h (the code the split kernel runs) bit for bit on edge cases and
// against float64 on many values, and the shape rule that chooses between
// the 3xTF32 GEMM and SGEMM. Prints one line per check; exits non-zero when
// any fails.
//
//===----------------------------------------------------------------------===//

#include "../src/tf32x3.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>

namespace {

using namespace sinter::rt::tf32x3;

int checks = 0;
int failures = 0;

void check(bool ok, const char *what) {
  ++checks;
  failures += !ok;
  std::printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
}

/// Whether \p value fits in TF32: its 13 low mantissa bits are zero.
bool isTf32(float value) { return (bitsOf(value) & kDroppedMask) == 0; }

bool sameBits(float a, float b) { return bitsOf(a) == bitsOf(b); }

void testRounding() {
  const float ulp = std::ldexp(1.0f, -10); // TF32's unit at 1.
  check(sameBits(roundToTf32(1.0f), 1.0f), "round 1 is exact");
  check(sameBits(roundToTf32(1.0f + ulp / 2), 1.0f + ulp),
        "round a tie away from zero");
  check(sameBits(roundToTf32(-1.0f - ulp / 2), -1.0f - ulp),
        "round a negative tie away from zero");
  check(sameBits(roundToTf32(1.0f + ulp / 4), 1.0f), "round below half down");
  check(sameBits(roundToTf32(1.0f + 3 * ulp / 4), 1.0f + ulp),
        "round above half up");
  check(std::isfinite(roundToTf32(FLT_MAX)) && isTf32(roundToTf32(FLT_MAX)),
        "round FLT_MAX stays finite");
  check(std::isfinite(roundToTf32(-FLT_MAX)), "round -FLT_MAX stays finite");
  check(sameBits(roundToTf32(INFINITY), INFINITY), "round inf is inf");
  check(std::isnan(roundToTf32(NAN)), "round NaN is NaN");
  check(sameBits(roundToTf32(-0.0f), -0.0f), "round -0 keeps its sign");
  float denormal = std::ldexp(1.0f, -130);
  check(sameBits(roundToTf32(denormal), denormal),
        "round a denormal that fits in TF32");
}

void testSpecialSplits() {
  Tf32Pair inf = splitTf32(-INFINITY);
  check(sameBits(inf.hi, -INFINITY) && inf.lo == 0.0f,
        "split -inf: hi -inf, lo 0");
  Tf32Pair nan = splitTf32(NAN);
  check(std::isnan(nan.hi) && nan.lo == 0.0f, "split NaN: hi NaN, lo 0");
  Tf32Pair big = splitTf32(FLT_MAX);
  check(std::isfinite(big.hi) && std::isfinite(big.lo) && isTf32(big.hi) &&
            isTf32(big.lo),
        "split FLT_MAX: finite TF32 parts");
  check(std::fabs(static_cast<double>(big.hi) + big.lo - FLT_MAX) <=
            FLT_MAX * std::ldexp(1.0, -22),
        "split FLT_MAX: hi + lo within 2^-22");
  Tf32Pair zero = splitTf32(0.0f);
  check(zero.hi == 0.0f && zero.lo == 0.0f, "split 0");
}

/// hi + lo holds a to 2^-22 relatively (hi's error is at most 2^-11 |a|, and
/// lo rounds it to 11 bits), and both parts fit in TF32.
void testRandomSplits() {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-100, 100);
  double worst = 0;
  bool allTf32 = true;
  for (int i = 0; i < 1000000; ++i) {
    float a =
        static_cast<float>(std::ldexp(mantissa(random), exponent(random)));
    if (a == 0.0f)
      continue;
    Tf32Pair parts = splitTf32(a);
    allTf32 = allTf32 && isTf32(parts.hi) && isTf32(parts.lo);
    double error = std::fabs(static_cast<double>(parts.hi) + parts.lo - a) /
                   std::fabs(static_cast<double>(a));
    worst = std::max(worst, error);
  }
  std::printf("     worst relative error of hi + lo: %.3e\n", worst);
  check(allTf32, "random splits: parts fit in TF32");
  check(worst <= std::ldexp(1.0, -22), "random splits: hi + lo within 2^-22");
}

/// The rule on shapes measured with bench/gemm on an H100 (132 SMs): the
/// expected choice is the faster of the two there (or SGEMM within 10%).
void testShapeRule() {
  struct Case {
    int64_t m, n, k;
    Algorithm faster;
  };
  const Case cases[] = {
      {1024, 8192, 8192, Algorithm::Tf32x3},
      {2048, 8192, 8192, Algorithm::Tf32x3},
      {16384, 4096, 4096, Algorithm::Tf32x3},
      {32768, 4096, 1024, Algorithm::Tf32x3},
      {128, 32768, 32768, Algorithm::Tf32x3},
      {1000, 4097, 1001, Algorithm::Tf32x3},
      {128, 8192, 8192, Algorithm::Tf32x3},
      {256, 4096, 4096, Algorithm::Tf32x3},
      {8192, 256, 4096, Algorithm::Tf32x3},
      {4096, 4096, 64, Algorithm::Tf32x3},
      {1, 8192, 8192, Algorithm::Sgemm},
      {64, 8192, 8192, Algorithm::Sgemm},
      {128, 4096, 4096, Algorithm::Sgemm},
      {8192, 128, 4096, Algorithm::Sgemm},
      {4096, 4096, 32, Algorithm::Sgemm},
      {512, 512, 512, Algorithm::Sgemm},
  };
  for (const Case &c : cases) {
    char what[96];
    std::snprintf(what, sizeof(what), "rule %ldx%ldx%ld: %s",
                  static_cast<long>(c.m), static_cast<long>(c.n),
                  static_cast<long>(c.k),
                  c.faster == Algorithm::Tf32x3 ? "3xTF32" : "SGEMM");
    check(chooseAlgorithm(c.m, c.n, c.k, 132) == c.faster, what);
  }
  check(chooseAlgorithm(4096, 4096, 4096, 0) == Algorithm::Sgemm,
        "rule without a device: SGEMM");
  check(splitLeadingDim(1001) == 1004 && splitLeadingDim(1024) == 1024,
        "split leading dimension rounds K up to 4");
}

} // namespace

int main() {
  testRounding();
  testSpecialSplits();
  testRandomSplits();
  testShapeRule();
  std::printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
