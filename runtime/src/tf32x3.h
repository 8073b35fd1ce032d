//===- tf32x3.h - The 3xTF32 GEMM's split and shape rule --------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the 3xTF32 GEMM (gemm_tf32x3.cu) decides with plain integer and float
// arithmetic, callable on the host and the device so that the runtime's host
// tests check it without a GPU:
//  - the split of an fp32 value a into hi (a rounded to TF32: to nearest for
//    X, toward zero for W) and lo = rna_tf32(a - hi), such that hi + lo
//    carries 21-22 of a's 24 mantissa bits and hi * hi' + hi * lo' + lo * hi'
//    is a product at fp32 accuracy, with infinities and NaNs in X and W
//    propagating as in SGEMM (see Operand);
//  - the rule that picks it or cuBLAS SGEMM for a shape.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_TF32X3_H
#define SINTER_RT_TF32X3_H

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define SINTER_RT_TF32X3_HD __host__ __device__ __forceinline__
#else
#define SINTER_RT_TF32X3_HD inline
#endif

namespace sinter::rt::tf32x3 {

/// The fp32 bits that TF32 drops: the low 13 of the 23 mantissa bits.
constexpr uint32_t kDroppedMask = 0x1fffu;
/// Half a TF32 unit in the last place, in fp32 bits.
constexpr uint32_t kHalfUlp = 0x1000u;
/// The exponent field of an fp32 value.
constexpr uint32_t kExponentMask = 0x7f800000u;

SINTER_RT_TF32X3_HD uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

SINTER_RT_TF32X3_HD float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// \p value rounded to TF32 (10 mantissa bits), to nearest with ties away
/// from zero (PTX cvt.rna.tf32.f32), kept in an fp32 container. Infinities
/// and NaNs are returned unchanged; a finite value never becomes infinite:
/// where rounding up would overflow, the value is truncated instead.
SINTER_RT_TF32X3_HD float roundToTf32(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & kExponentMask) == kExponentMask)
    return value;
  uint32_t rounded = (bits + kHalfUlp) & ~kDroppedMask;
  if ((rounded & kExponentMask) == kExponentMask)
    rounded = bits & ~kDroppedMask;
  return floatOf(rounded);
}

/// The hi and lo TF32 parts of one fp32 value.
struct Tf32Pair {
  float hi;
  float lo;
};

/// The smallest normal fp32 magnitude, 2^-126 (a TF32 value).
constexpr uint32_t kTinyBits = 0x00800000u;
constexpr uint32_t kSignBit = 0x80000000u;
/// The quiet bit of an fp32 NaN: the highest mantissa bit, which TF32 keeps.
constexpr uint32_t kQuietBit = 0x00400000u;

/// \p value truncated to TF32 (toward zero): the same sign, never larger.
SINTER_RT_TF32X3_HD float truncateToTf32(float value) {
  return floatOf(bitsOf(value) & ~kDroppedMask);
}

/// Which operand of Y = X W^T a value belongs to: the two are split
/// differently so that the three products Xh Wh, Xh Wl and Xl Wh give, for
/// every pair (x, w), the class of SGEMM's x * w: finite, an infinity of the
/// same sign, or NaN (their sum is then finite, the same infinity or NaN as
/// SGEMM's sum in any order). The split keeps two invariants:
///  (a) Wh and Xl are never infinite, so the term Xl Wh is finite or NaN
///      (NaN only where w is NaN);
///  (b) every infinity meets the other operand's part that has the sign of
///      its value and is 0 only where the value is 0 (x's hi, or w's hi and
///      lo), so inf times it is SGEMM's inf * x or NaN exactly where SGEMM
///      has inf * 0.
/// Case by case (T1 = Xh Wh, T2 = Xh Wl, T3 = Xl Wh):
///  - x or w NaN: T1 = NaN, as SGEMM's;
///  - x inf, w inf: T1 = inf 2^-126, T2 = inf inf (both inf with the sign
///    of x w), T3 = 0;
///  - x inf, w 0: T1 = inf 0 = NaN, as SGEMM's;
///  - x inf, w finite and not 0: Wh and Wl have w's sign and are not 0, so
///    T1 and T2 are inf with the sign of x w; T3 = 0 Wh = 0;
///  - x finite, w inf: T2 = Xh inf, inf with the sign of x w or NaN where
///    Xh = x = 0 (SGEMM's 0 inf); T1 = Xh 2^-126 and T3 = Xl 2^-126 finite.
/// Subnormal values are outside this: one below 2^-136 (TF32's smallest
/// subnormal) has hi = 0, so it times an infinity is NaN here where SGEMM
/// gives inf (measured on the H100, whose tensor cores keep subnormal parts:
/// 1e-40 * inf is inf, 1.4e-45 * inf NaN).
enum class Operand {
  /// X, the activation: hi rounded to nearest (ties away), so that hi + lo
  /// holds x to 2^-22 and lo has either sign (unbiased products). x's
  /// infinity is kept in hi (lo = 0, invariant (a)).
  X,
  /// W, the weight: hi truncated toward zero, so that lo has w's sign (hi +
  /// lo holds w to 2^-21), and lo is 2^-126 with w's sign where the
  /// remainder is 0 (invariant (b); the cost is at most 2^-126 |x| on a
  /// product). w's infinity is kept in lo, with hi = 2^-126 of its sign
  /// (invariant (a)).
  W,
};

/// Splits \p value of operand \p operand into TF32 parts hi and lo (see
/// Operand) with lo = roundToTf32(value - hi); value - hi is exact in fp32,
/// and a finite value never gives an infinite part (values near FLT_MAX do
/// not round up to inf). A NaN gives a quiet NaN hi (TF32 keeps its quiet
/// bit, so the tensor cores see a NaN whatever the payload) and lo = 0.
SINTER_RT_TF32X3_HD Tf32Pair splitTf32(float value, Operand operand) {
  uint32_t bits = bitsOf(value);
  if ((bits & kExponentMask) == kExponentMask) {
    if (bits & ~(kSignBit | kExponentMask))
      return {floatOf(bits | kQuietBit), 0.0f};
    if (operand == Operand::X)
      return {value, 0.0f};
    return {floatOf(kTinyBits | (bits & kSignBit)), value};
  }
  float hi = operand == Operand::X ? roundToTf32(value) : truncateToTf32(value);
  float lo = roundToTf32(value - hi);
  if (operand == Operand::W && lo == 0.0f && value != 0.0f)
    lo = floatOf(kTinyBits | (bits & kSignBit));
  return {hi, lo};
}

/// K rounded up to a multiple of 4: the leading dimension of split operands,
/// whose rows the tensor-memory accelerator reads at 16-byte strides.
SINTER_RT_TF32X3_HD int64_t splitLeadingDim(int64_t k) {
  return (k + 3) / 4 * 4;
}

/// The tile of one thread block: kTileM x kTileN outputs, kTileK deep per
/// pipeline stage.
constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 32;

/// Which GEMM computes Y[M,N] = X[M,K] W[N,K]^T at fp32 accuracy.
enum class Algorithm {
  /// cuBLAS SGEMM (fp32 FMA).
  Sgemm,
  /// The 3xTF32 tensor-core GEMM with fp32 promotion.
  Tf32x3,
};

/// Throughputs of an H100 SXM (measured with bench/gemm, cuBLAS and this
/// kernel): TF32 tensor-core flops of one multiprocessor, SGEMM's flops,
/// and device-memory bytes, per microsecond.
constexpr double kTf32FlopsPerSmUs = 3.14e6;
constexpr double kSgemmFlopsPerUs = 51e6;
constexpr double kBytesPerUs = 3.0e6;
/// What a 3xTF32 GEMM costs beyond its tiles: two launches (split, GEMM).
constexpr double kTf32x3OverheadUs = 8;

/// The estimated time of the 3xTF32 GEMM in microseconds: its waves of
/// tiles at TF32 rate (three products per tile) or the bytes it moves (X's
/// and W's parts, Y), whichever is longer, plus X's split (read 4, write 8
/// bytes an element) and the launches.
SINTER_RT_TF32X3_HD double estimateTf32x3Us(int64_t m, int64_t n, int64_t k,
                                            int smCount) {
  int64_t tiles = ((m + kTileM - 1) / kTileM) * ((n + kTileN - 1) / kTileN);
  int64_t waves = (tiles + smCount - 1) / smCount;
  double compute = static_cast<double>(waves) * k * 3.0 * 2.0 * kTileM *
                   kTileN / kTf32FlopsPerSmUs;
  double bytes =
      8.0 * (static_cast<double>(n) * k + static_cast<double>(m) * k) +
      4.0 * static_cast<double>(m) * n;
  double split = 12.0 * static_cast<double>(m) * k / kBytesPerUs;
  double longer = compute > bytes / kBytesPerUs ? compute : bytes / kBytesPerUs;
  return longer + split + kTf32x3OverheadUs;
}

/// The estimated time of cuBLAS SGEMM in microseconds: its flops or its
/// bytes, whichever is longer. Small shapes run slower than this, so the
/// estimate errs towards SGEMM.
SINTER_RT_TF32X3_HD double estimateSgemmUs(int64_t m, int64_t n, int64_t k) {
  double flops = 2.0 * m * n * static_cast<double>(k);
  double bytes =
      4.0 * (static_cast<double>(m) * k + static_cast<double>(n) * k +
             static_cast<double>(m) * n);
  double compute = flops / kSgemmFlopsPerUs;
  return compute > bytes / kBytesPerUs ? compute : bytes / kBytesPerUs;
}

/// The shape rule: the 3xTF32 GEMM where its estimated time, with a 10%
/// margin, is below SGEMM's. It loses where a few tiles cannot fill the
/// device (small M or N: 128 x 4096 x 4096 has 32 tiles for 132
/// multiprocessors), where reading W's two parts dominates (M <= 64), and
/// where the problem is tiny; \p smCount is the device's multiprocessors.
SINTER_RT_TF32X3_HD Algorithm chooseAlgorithm(int64_t m, int64_t n, int64_t k,
                                              int smCount) {
  if (smCount <= 0)
    return Algorithm::Sgemm;
  return 1.1 * estimateTf32x3Us(m, n, k, smCount) < estimateSgemmUs(m, n, k)
             ? Algorithm::Tf32x3
             : Algorithm::Sgemm;
}

} // namespace sinter::rt::tf32x3

#endif // SINTER_RT_TF32X3_H
