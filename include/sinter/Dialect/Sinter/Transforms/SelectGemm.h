//===- SelectGemm.h - Which GEMM a gemm kernel runs -------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The GEMM algorithm of a gemm kernel is a discardable attribute of the
// kernel, set by sinter-select-gemm and read by the CUDA emitter and the
// fusion plan: the decision lives in the IR, where lit tests see it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_SELECTGEMM_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_SELECTGEMM_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

/// sinter.kernel attribute: the GEMM algorithm of a gemm kernel. Absent: the
/// library GEMM at the precision the emitter is given.
constexpr llvm::StringLiteral kGemmAlgorithmAttrName = "sinter.gemm_algorithm";
/// Value of sinter.gemm_algorithm: 3xTF32 on sm_90 (sinter_rt_gemm_tf32x3).
constexpr llvm::StringLiteral kTf32x3Algorithm = "3xtf32";

/// Whether gemm kernel `kernel` of @forward can run as 3xTF32: its one
/// matmul is `x @ w^T` (transpose_b, or an explicit transpose of the last two
/// dims) in f32, with `x` a kernel input of rank 2 or 3, not transposed, and
/// `w` a 2-D kernel input that is a param or a prepared value of @forward,
/// so that its split can be made once, at creation.
bool isTf32x3Candidate(KernelOp kernel);

/// The GEMM algorithm set on `kernel`, or "" when none is.
StringRef getGemmAlgorithm(KernelOp kernel);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_SELECTGEMM_H
