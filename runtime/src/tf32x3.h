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
//  - the split of an fp32 value a into hi = rna_tf32(a) and
//    lo = rna_tf32(a - hi), such that hi + lo carries 21 of a's 24 mantissa
//    bits and hi * hi' + hi * lo' + lo * hi' is a product at fp32 accuracy;
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

/// Splits \p value into hi = roundToTf32(value) and
/// lo = roundToTf32(value - hi); value - hi is exact in fp32. Where value is
/// infinite or NaN, hi is value and lo is 0, so that products propagate
/// special values as SGEMM does (inf - inf would make a NaN).
SINTER_RT_TF32X3_HD Tf32Pair splitTf32(float value) {
  float hi = roundToTf32(value);
  if ((bitsOf(value) & kExponentMask) == kExponentMask)
    return {hi, 0.0f};
  return {hi, roundToTf32(value - hi)};
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
