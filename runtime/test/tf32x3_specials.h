//===- tf32x3_specials.h - Special values for the 3xTF32 tests --*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The values whose products the 3xTF32 GEMM must classify as SGEMM does
// (finite, an infinity of the same sign, or NaN), shared by the host test
// (the split's products on the CPU) and the GPU test (the kernel against
// cuBLAS SGEMM).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_TEST_TF32X3_SPECIALS_H
#define SINTER_RT_TEST_TF32X3_SPECIALS_H

#include "../src/tf32x3.h"

#include <cfloat>
#include <cmath>
#include <vector>

namespace sinter::rt::tf32x3::test {

/// Signed zeros, infinities, NaNs (one whose payload is only in the bits
/// TF32 drops), +-FLT_MAX, values exact in TF32 and values that TF32 rounds
/// up (X's lo negative) and down. Subnormals are left out (see Operand).
inline std::vector<float> specialValues() {
  const float ulp = std::ldexp(1.0f, -10); // TF32's unit at 1.
  return {0.0f,
          -0.0f,
          1.0f,
          -2.0f,
          1.0f + 3 * ulp / 4,
          -(1.0f + 3 * ulp / 4),
          1.0f + ulp / 4,
          3.0e-30f,
          FLT_MAX,
          -FLT_MAX,
          INFINITY,
          -INFINITY,
          NAN,
          floatOf(0x7f800001u)};
}

/// Whether x * w is finite but within a factor 2 of overflowing: there
/// rounding, not the handling of special values, decides the class.
inline bool nearOverflow(float x, float w) {
  double product = static_cast<double>(x) * w;
  return std::isfinite(product) && std::fabs(product) > FLT_MAX / 2;
}

/// The class of a value that a sum keeps: 0 finite, +1 / -1 an infinity of
/// that sign, 2 NaN.
inline int classOf(float value) {
  if (std::isnan(value))
    return 2;
  if (std::isinf(value))
    return value > 0 ? 1 : -1;
  return 0;
}

} // namespace sinter::rt::tf32x3::test

#endif // SINTER_RT_TEST_TF32X3_SPECIALS_H
