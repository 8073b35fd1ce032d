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

#include "tf32x3_specials.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>

namespace {

using namespace sinter::rt::tf32x3;
using namespace sinter::rt::tf32x3::test;

int checks = 0;
int failures = 0;

void check(bool ok, const std::string &what) {
  ++checks;
  failures += !ok;
  std::printf("%-4s %s\n", ok ? "ok" : "FAIL", what.c_str());
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
  const float tiny = std::ldexp(1.0f, -126);
  Tf32Pair xInf = splitTf32(-INFINITY, Operand::X);
  check(sameBits(xInf.hi, -INFINITY) && sameBits(xInf.lo, 0.0f),
        "split X -inf: hi -inf, lo 0");
  Tf32Pair wInf = splitTf32(-INFINITY, Operand::W);
  check(sameBits(wInf.hi, -tiny) && sameBits(wInf.lo, -INFINITY),
        "split W -inf: hi -2^-126, lo -inf");
  for (Operand operand : {Operand::X, Operand::W}) {
    const char *name = operand == Operand::X ? "X" : "W";
    // A NaN whose payload is only in the bits TF32 drops reads as inf in
    // TF32 unless hi is made quiet.
    Tf32Pair nan = splitTf32(floatOf(0xff800001u), operand);
    check(std::isnan(truncateToTf32(nan.hi)) && sameBits(nan.lo, 0.0f),
          std::string("split ") + name +
              " NaN with a low payload: hi NaN in TF32, lo 0");
    Tf32Pair big = splitTf32(-FLT_MAX, operand);
    check(std::isfinite(big.hi) && std::isfinite(big.lo) && isTf32(big.hi) &&
              isTf32(big.lo) &&
              std::fabs(static_cast<double>(big.hi) + big.lo + FLT_MAX) <=
                  FLT_MAX * std::ldexp(1.0, -21),
          std::string("split ") + name +
              " -FLT_MAX: finite TF32 parts within 2^-21");
  }
  Tf32Pair up = splitTf32(1.0f + 3 * std::ldexp(1.0f, -12), Operand::W);
  check(up.hi == 1.0f && up.lo > 0.0f,
        "split W 1 + 3/4 TF32 ulp (toward zero): hi 1, lo positive");
  Tf32Pair near = splitTf32(1.0f + 3 * std::ldexp(1.0f, -12), Operand::X);
  check(near.hi == 1.0f + std::ldexp(1.0f, -10) && near.lo < 0.0f,
        "split X 1 + 3/4 TF32 ulp (to nearest): hi 1 + ulp, lo negative");
  Tf32Pair two = splitTf32(-2.0f, Operand::W);
  check(sameBits(two.hi, -2.0f) && sameBits(two.lo, -tiny),
        "split W -2 (exact in TF32): lo -2^-126, not 0");
  check(sameBits(splitTf32(-2.0f, Operand::X).lo, 0.0f),
        "split X -2 (exact in TF32): lo 0");
  Tf32Pair zero = splitTf32(-0.0f, Operand::W);
  check(sameBits(zero.hi, -0.0f) && sameBits(zero.lo, 0.0f),
        "split W -0: hi -0, lo 0");
}

/// The class of the sum of terms of these classes (in any order).
int classOfSum(std::initializer_list<int> classes) {
  bool plus = false, minus = false;
  for (int c : classes) {
    if (c == 2)
      return 2;
    plus |= c == 1;
    minus |= c == -1;
  }
  return plus && minus ? 2 : plus ? 1 : minus ? -1 : 0;
}

/// For every pair of values that matter (signed zeros, infinities, NaNs,
/// FLT_MAX, values that TF32 holds exactly and that it rounds either way),
/// Xh Wh + Xh Wl + Xl Wh has the class of SGEMM's x * w: finite, the same
/// infinity, or NaN. (Pairs whose product overflows are left out: there
/// rounding, not the split, decides; subnormals too, see Operand.)
void testSpecialProducts() {
  const std::vector<float> values = specialValues();
  int pairs = 0, wrong = 0;
  for (float x : values)
    for (float w : values) {
      if (nearOverflow(x, w))
        continue;
      Tf32Pair xs = splitTf32(x, Operand::X), ws = splitTf32(w, Operand::W);
      // The tensor cores read TF32: the 13 low bits of each part dropped.
      float xh = truncateToTf32(xs.hi), xl = truncateToTf32(xs.lo);
      float wh = truncateToTf32(ws.hi), wl = truncateToTf32(ws.lo);
      int got =
          classOfSum({classOf(xh * wh), classOf(xh * wl), classOf(xl * wh)});
      int expected = classOf(x * w);
      ++pairs;
      if (got != expected) {
        ++wrong;
        std::printf("     x = %a, w = %a: class %d, SGEMM's %d\n", x, w, got,
                    expected);
      }
    }
  char what[96];
  std::snprintf(what, sizeof(what),
                "products of specials: %d pairs of the class of x * w", pairs);
  check(wrong == 0, what);
}

/// hi + lo holds a to 2^-22 |a| + 2^-126 (to nearest) or 2^-21 |a| + 2^-126
/// (toward zero, where lo also has a's sign): hi's error is at most half a
/// TF32 unit (or below one), lo rounds it to 11 bits, and W's zero remainder
/// becomes 2^-126; both parts fit in TF32.
void testRandomSplits(Operand operand, const char *name) {
  bool towardZero = operand == Operand::W;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-100, 100);
  double worst = 0;
  bool valid = true;
  for (int i = 0; i < 1000000; ++i) {
    float a =
        static_cast<float>(std::ldexp(mantissa(random), exponent(random)));
    if (a == 0.0f)
      continue;
    Tf32Pair parts = splitTf32(a, operand);
    valid = valid && isTf32(parts.hi) && isTf32(parts.lo);
    if (towardZero)
      valid = valid && std::signbit(parts.hi) == std::signbit(a) &&
              std::signbit(parts.lo) == std::signbit(a);
    double bound = std::fabs(static_cast<double>(a)) *
                       std::ldexp(1.0, towardZero ? -21 : -22) +
                   std::ldexp(1.0, -126);
    worst = std::max(
        worst, std::fabs(static_cast<double>(parts.hi) + parts.lo - a) / bound);
  }
  std::printf("     %s: worst |hi + lo - a| / bound: %.3f\n", name, worst);
  check(valid, (std::string("random splits ") + name +
                (towardZero ? ": TF32 parts with a's sign" : ": TF32 parts"))
                   .c_str());
  check(worst <= 1.0,
        (std::string("random splits ") + name + ": hi + lo within the bound")
            .c_str());
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
  testSpecialProducts();
  testRandomSplits(Operand::X, "X (to nearest)");
  testRandomSplits(Operand::W, "W (toward zero)");
  testShapeRule();
  std::printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
