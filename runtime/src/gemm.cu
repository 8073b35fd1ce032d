//===- gemm.cu - Row-major GEMM and GEMV through cuBLAS -------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// cuBLAS is column-major. A row-major matrix read column-major is its
// transpose, so the row-major C = op(A) op(B) is computed as the column-major
// C^T = op(B)^T op(A)^T: the same buffers and leading dimensions, with the
// operands swapped and M and N exchanged. No data is copied or transposed.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

namespace sinter::rt {

namespace {

/// Fails unless \p ctx is non-null; the message goes to the thread's buffer.
sinter_status checkContext(const sinter_rt_context *ctx, const char *fn) {
  if (ctx)
    return SINTER_OK;
  return fail(nullptr, SINTER_ERROR_NULL_POINTER, "%s: ctx: null pointer", fn);
}

/// The number of elements in one stored row of op(X) = trans ? X^T : X, where
/// op(X) has \p rows rows and \p cols columns.
int64_t storedRowLength(sinter_transpose trans, int64_t rows, int64_t cols) {
  return trans == SINTER_OP_N ? cols : rows;
}

} // namespace

cublasComputeType_t computeTypeOf(sinter_precision precision) {
  switch (precision) {
  case SINTER_PRECISION_TF32:
    return CUBLAS_COMPUTE_32F_FAST_TF32;
  case SINTER_PRECISION_BF16:
    return CUBLAS_COMPUTE_32F_FAST_16BF;
  case SINTER_PRECISION_FP32:
    break;
  }
  return CUBLAS_COMPUTE_32F;
}

cublasOperation_t operationOf(sinter_transpose trans) {
  return trans == SINTER_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
}

sinter_status checkGemmArgs(sinter_rt_context *ctx, const char *fn,
                            sinter_precision precision, sinter_transpose transA,
                            sinter_transpose transB, int64_t m, int64_t n,
                            int64_t k, const float *a, int64_t lda,
                            const float *b, int64_t ldb, const float *c,
                            int64_t ldc) {
  SINTER_RT_TRY(checkContext(ctx, fn));
  SINTER_RT_TRY(checkEnum(ctx, fn, "precision", precision,
                          SINTER_PRECISION_BF16 + 1, "sinter_precision"));
  SINTER_RT_TRY(checkEnum(ctx, fn, "trans_a", transA, 2, "sinter_transpose"));
  SINTER_RT_TRY(checkEnum(ctx, fn, "trans_b", transB, 2, "sinter_transpose"));
  SINTER_RT_TRY(checkDim(ctx, fn, "M", m, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "N", n, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "K", k, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "lda", lda, storedRowLength(transA, m, k),
                         SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "ldb", ldb, storedRowLength(transB, k, n),
                         SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "ldc", ldc, n, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkPointer(ctx, fn, "A", a, alignof(float)));
  SINTER_RT_TRY(checkPointer(ctx, fn, "B", b, alignof(float)));
  return checkPointer(ctx, fn, "C", c, alignof(float));
}

} // namespace sinter::rt

using namespace sinter::rt;

extern "C" {

sinter_status sinter_rt_gemm(sinter_rt_context *ctx, sinter_precision precision,
                             sinter_transpose trans_a, sinter_transpose trans_b,
                             int64_t M, int64_t N, int64_t K, float alpha,
                             const float *A, int64_t lda, const float *B,
                             int64_t ldb, float beta, float *C, int64_t ldc) {
  const char *fn = "sinter_rt_gemm";
  SINTER_RT_TRY(checkGemmArgs(ctx, fn, precision, trans_a, trans_b, M, N, K, A,
                              lda, B, ldb, C, ldc));
  SINTER_RT_TRY(ensureBlas(ctx));
  return checkCublas(
      ctx,
      cublasGemmEx(ctx->blas, operationOf(trans_b), operationOf(trans_a),
                   static_cast<int>(N), static_cast<int>(M),
                   static_cast<int>(K), &alpha, B, CUDA_R_32F,
                   static_cast<int>(ldb), A, CUDA_R_32F, static_cast<int>(lda),
                   &beta, C, CUDA_R_32F, static_cast<int>(ldc),
                   computeTypeOf(precision), CUBLAS_GEMM_DEFAULT),
      "sinter_rt_gemm: cublasGemmEx");
}

sinter_status sinter_rt_gemm_batched(
    sinter_rt_context *ctx, sinter_precision precision,
    sinter_transpose trans_a, sinter_transpose trans_b, int64_t M, int64_t N,
    int64_t K, float alpha, const float *A, int64_t lda, int64_t stride_a,
    const float *B, int64_t ldb, int64_t stride_b, float beta, float *C,
    int64_t ldc, int64_t stride_c, int64_t batch) {
  const char *fn = "sinter_rt_gemm_batched";
  SINTER_RT_TRY(checkGemmArgs(ctx, fn, precision, trans_a, trans_b, M, N, K, A,
                              lda, B, ldb, C, ldc));
  SINTER_RT_TRY(checkDim(ctx, fn, "batch", batch, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "stride_a", stride_a, 0, INT64_MAX));
  SINTER_RT_TRY(checkDim(ctx, fn, "stride_b", stride_b, 0, INT64_MAX));
  // Distinct batches of C must not overlap.
  SINTER_RT_TRY(checkDim(ctx, fn, "stride_c", stride_c, batch > 1 ? M * ldc : 0,
                         INT64_MAX));
  SINTER_RT_TRY(ensureBlas(ctx));
  return checkCublas(
      ctx,
      cublasGemmStridedBatchedEx(
          ctx->blas, operationOf(trans_b), operationOf(trans_a),
          static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &alpha,
          B, CUDA_R_32F, static_cast<int>(ldb), stride_b, A, CUDA_R_32F,
          static_cast<int>(lda), stride_a, &beta, C, CUDA_R_32F,
          static_cast<int>(ldc), stride_c, static_cast<int>(batch),
          computeTypeOf(precision), CUBLAS_GEMM_DEFAULT),
      "sinter_rt_gemm_batched: cublasGemmStridedBatchedEx");
}

sinter_status sinter_rt_gemv(sinter_rt_context *ctx, sinter_transpose trans_a,
                             int64_t M, int64_t N, float alpha, const float *A,
                             int64_t lda, const float *x, float beta,
                             float *y) {
  const char *fn = "sinter_rt_gemv";
  SINTER_RT_TRY(checkContext(ctx, fn));
  SINTER_RT_TRY(checkEnum(ctx, fn, "trans_a", trans_a, 2, "sinter_transpose"));
  SINTER_RT_TRY(checkDim(ctx, fn, "M", M, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "N", N, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "lda", lda, N, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkPointer(ctx, fn, "A", A, alignof(float)));
  SINTER_RT_TRY(checkPointer(ctx, fn, "x", x, alignof(float)));
  SINTER_RT_TRY(checkPointer(ctx, fn, "y", y, alignof(float)));
  // Column-major, A is the N x M matrix A^T: A x = (A^T)^T x, A^T x = A^T x.
  cublasOperation_t op = trans_a == SINTER_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N;
  SINTER_RT_TRY(ensureBlas(ctx));
  return checkCublas(ctx,
                     cublasSgemv(ctx->blas, op, static_cast<int>(N),
                                 static_cast<int>(M), &alpha, A,
                                 static_cast<int>(lda), x, 1, &beta, y, 1),
                     "sinter_rt_gemv: cublasSgemv");
}

} // extern "C"
