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

/// The shape rule: the 3xTF32 GEMM reads W twice (hi and lo) and X's split
/// copy, so where M is small the GEMM is bound by reading W and SGEMM,
/// which reads it once, is faster; so is a GEMM too small to fill the
/// device. \p smCount is the number of multiprocessors.
SINTER_RT_TF32X3_HD Algorithm chooseAlgorithm(int64_t m, int64_t n, int64_t k,
                                              int smCount) {
  (void)smCount;
  if (m < 128 || n < 128 || k < 64)
    return Algorithm::Sgemm;
  return Algorithm::Tf32x3;
}

} // namespace sinter::rt::tf32x3

#endif // SINTER_RT_TF32X3_H
