//===- internal.h - Sinter runtime internals --------------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the runtime's sources share and its users do not see: the layout of
// sinter_rt_context, failure recording, and the argument checks that every
// GEMM entry point runs.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_INTERNAL_H
#define SINTER_RT_INTERNAL_H

#include "sinter/rt.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstddef>
#include <cstdint>

namespace sinter::rt {

/// Everything that selects a cuBLASLt algorithm for one GEMM-with-epilogue
/// request; two requests with equal keys can run the same plan.
struct LtPlanKey {
  int precision;
  int transA;
  int transB;
  int epilogue;
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  /// Largest power of two (at most 256) dividing each pointer: cuBLASLt picks
  /// algorithms by the alignment it is promised.
  uint32_t alignA, alignB, alignC, alignBias;
};

/// Returns true when \p a and \p b select the same plan.
bool operator==(const LtPlanKey &a, const LtPlanKey &b);

/// A cuBLASLt matmul descriptor, its three layouts and the algorithm the
/// heuristic chose for them. A plain aggregate: contexts are zero-filled.
struct LtPlan {
  bool valid;
  LtPlanKey key;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t layoutA, layoutB, layoutC;
  cublasLtMatmulAlgo_t algo;
};

/// How many cuBLASLt plans a context keeps; the oldest is replaced.
constexpr int kLtPlanCacheSize = 32;

/// The TF32 parts of one weight of the 3xTF32 GEMM, made by
/// sinter_rt_tf32x3_prepare_weight: hi then lo, each n x splitLeadingDim(k).
struct Tf32x3Weight {
  const float *w;
  int64_t n, k, ld;
  float *parts;
};

/// How many weights' parts a context keeps.
constexpr int kTf32x3WeightCount = 64;

/// Destroys the handles of \p plan and marks it invalid; returns the first
/// cuBLASLt failure (all handles are destroyed regardless).
cublasStatus_t destroyLtPlan(LtPlan &plan);

} // namespace sinter::rt

/// The runtime context (opaque to users). Zero-filled at creation, so a
/// partly created context can be destroyed by sinter_rt_destroy.
struct sinter_rt_context {
  int device;
  int smCount;
  cudaStream_t stream;
  /// Orders a new stream after the old one in sinter_rt_set_stream.
  cudaEvent_t streamSwitchEvent;
  /// Whether blas, lt and workspace exist (created by ensureBlas on the
  /// first GEMM or by sinter_rt_init_blas).
  bool blasReady;
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  /// Device memory shared by cuBLAS (cublasSetWorkspace) and cuBLASLt;
  /// both only ever run on the context's stream.
  void *workspace;
  size_t workspaceBytes;
  sinter::rt::LtPlan plans[sinter::rt::kLtPlanCacheSize];
  /// Whether the 3xTF32 GEMM runs on the device: 0 unknown, 1 yes, -1 no.
  int tf32x3Support;
  /// The TF32 parts of X for the 3xTF32 GEMM (hi, then lo), when the caller
  /// lends no scratch.
  void *splitBuffer;
  size_t splitBytes;
  sinter::rt::Tf32x3Weight weights[sinter::rt::kTf32x3WeightCount];
  int weightCount;
  int nextPlan;
  char lastError[512];
};

namespace sinter::rt {

/// Records the printf-style message in \p ctx (or in the calling thread's
/// buffer when \p ctx is NULL) and returns \p status.
sinter_status fail(sinter_rt_context *ctx, sinter_status status,
                   const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Creates the cuBLAS and cuBLASLt handles and the workspace of \p ctx,
/// bound to its stream, unless they exist. Every GEMM entry point calls it.
sinter_status ensureBlas(sinter_rt_context *ctx);

/// The status a CUDA runtime error maps to.
sinter_status statusOfCuda(cudaError_t error);

/// The status a cuBLAS / cuBLASLt error maps to.
sinter_status statusOfCublas(cublasStatus_t status);

/// Maps \p status of the cuBLAS or cuBLASLt call \p what to a sinter_status,
/// recording the library's name and text of the error on failure.
sinter_status checkCublas(sinter_rt_context *ctx, cublasStatus_t status,
                          const char *what);

/// sinter_rt_check_pointer with messages prefixed by \p fn (when not NULL).
sinter_status checkPointer(sinter_rt_context *ctx, const char *fn,
                           const char *name, const void *ptr, size_t alignment);

/// sinter_rt_check_dim with messages prefixed by \p fn (when not NULL).
sinter_status checkDim(sinter_rt_context *ctx, const char *fn, const char *name,
                       int64_t value, int64_t min, int64_t max);

/// Fails with SINTER_ERROR_INVALID_ARGUMENT unless \p value, the argument
/// \p name of \p fn, is one of the \p count enumerators of the C enum
/// \p type (numbered from 0).
sinter_status checkEnum(sinter_rt_context *ctx, const char *fn,
                        const char *name, int value, int count,
                        const char *type);

/// Checks the arguments shared by every GEMM entry point (named \p fn in
/// messages): the enums, 1 <= M, N, K <= SINTER_RT_MAX_DIM, the leading
/// dimensions against the stored row lengths, and A, B, C non-null and
/// aligned to their element type.
sinter_status checkGemmArgs(sinter_rt_context *ctx, const char *fn,
                            sinter_precision precision, sinter_transpose transA,
                            sinter_transpose transB, int64_t m, int64_t n,
                            int64_t k, const float *a, int64_t lda,
                            const float *b, int64_t ldb, const float *c,
                            int64_t ldc);

/// The cuBLAS compute type of \p precision (a checked enum).
cublasComputeType_t computeTypeOf(sinter_precision precision);

/// The cuBLAS operation of \p trans (a checked enum).
cublasOperation_t operationOf(sinter_transpose trans);

/// The 3xTF32 kernel of sinter_rt_gemm_tf32x3, whatever the shape rule says
/// (for benchmarks that measure the rule); the arguments are not checked.
/// Fails with SINTER_ERROR_NOT_SUPPORTED where the kernel cannot run or W's
/// parts cannot be kept.
sinter_status runTf32x3(sinter_rt_context *ctx, int64_t m, int64_t n, int64_t k,
                        float alpha, const float *x, int64_t ldx,
                        const float *w, int64_t ldw, float beta, float *y,
                        int64_t ldy, sinter_epilogue epilogue,
                        const float *bias, void *scratch);

} // namespace sinter::rt

#endif // SINTER_RT_INTERNAL_H
