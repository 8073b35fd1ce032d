//===- context.cu - The runtime context -----------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Creation, destruction and stream binding of sinter_rt_context. cuBLAS is set
// up for strict, reproducible fp32: default math mode (no TF32 unless a call
// asks for it through its compute type), host scalars, and a workspace owned
// by the context instead of cuBLAS's per-stream pool.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <cstdlib>

using namespace sinter::rt;

namespace {

/// Binds the cuBLAS handle of \p ctx to \p stream. cublasSetStream resets the
/// workspace to cuBLAS's own pool, so the context's workspace is set again.
sinter_status bindBlasToStream(sinter_rt_context *ctx, cudaStream_t stream) {
  SINTER_RT_TRY(
      checkCublas(ctx, cublasSetStream(ctx->blas, stream), "cublasSetStream"));
  return checkCublas(
      ctx, cublasSetWorkspace(ctx->blas, ctx->workspace, ctx->workspaceBytes),
      "cublasSetWorkspace");
}

/// Fails with SINTER_ERROR_NO_DEVICE unless a CUDA device can be used.
sinter_status checkDevicePresent(sinter_rt_context *ctx) {
  int count = 0;
  SINTER_RT_TRY(sinter_rt_check_cuda(ctx, cudaGetDeviceCount(&count),
                                     "cudaGetDeviceCount"));
  if (count == 0)
    return fail(ctx, SINTER_ERROR_NO_DEVICE, "cudaGetDeviceCount: no device");
  return SINTER_OK;
}

/// Creates what every context needs; on failure, what was created stays in
/// \p ctx for sinter_rt_destroy to release. cuBLAS, cuBLASLt and their
/// workspace wait for ensureBlas.
sinter_status initContext(sinter_rt_context *ctx, cudaStream_t stream,
                          size_t workspaceBytes) {
  SINTER_RT_TRY(checkDevicePresent(ctx));
  SINTER_RT_TRY(
      sinter_rt_check_cuda(ctx, cudaGetDevice(&ctx->device), "cudaGetDevice"));
  SINTER_RT_TRY(sinter_rt_check_cuda(
      ctx,
      cudaDeviceGetAttribute(&ctx->smCount, cudaDevAttrMultiProcessorCount,
                             ctx->device),
      "cudaDeviceGetAttribute"));
  SINTER_RT_TRY(sinter_rt_check_cuda(
      ctx,
      cudaEventCreateWithFlags(&ctx->streamSwitchEvent, cudaEventDisableTiming),
      "cudaEventCreateWithFlags"));
  ctx->workspaceBytes =
      workspaceBytes ? workspaceBytes : SINTER_RT_DEFAULT_WORKSPACE_BYTES;
  ctx->stream = stream;
  return SINTER_OK;
}

/// Creates the workspace and the cuBLAS and cuBLASLt handles of \p ctx and
/// binds them to its stream; on failure, what was created stays in \p ctx.
sinter_status initBlas(sinter_rt_context *ctx) {
  SINTER_RT_TRY(sinter_rt_check_cuda(
      ctx, cudaMalloc(&ctx->workspace, ctx->workspaceBytes),
      "cudaMalloc of the workspace"));
  SINTER_RT_TRY(checkCublas(ctx, cublasCreate(&ctx->blas), "cublasCreate"));
  SINTER_RT_TRY(checkCublas(ctx,
                            cublasSetMathMode(ctx->blas, CUBLAS_DEFAULT_MATH),
                            "cublasSetMathMode"));
  SINTER_RT_TRY(checkCublas(
      ctx, cublasSetPointerMode(ctx->blas, CUBLAS_POINTER_MODE_HOST),
      "cublasSetPointerMode"));
  SINTER_RT_TRY(checkCublas(ctx, cublasLtCreate(&ctx->lt), "cublasLtCreate"));
  SINTER_RT_TRY(bindBlasToStream(ctx, ctx->stream));
  ctx->blasReady = true;
  return SINTER_OK;
}

/// Keeps the first failure of a sequence of release calls.
struct FirstFailure {
  sinter_status status = SINTER_OK;
  void operator()(sinter_status next) {
    if (status == SINTER_OK)
      status = next;
  }
};

/// Releases the cuBLASLt plans, the handles and the workspace of \p ctx,
/// continuing past failures, and leaves them unset; returns the first
/// failure (recorded in the thread's buffer).
sinter_status releaseBlas(sinter_rt_context *ctx) {
  FirstFailure result;
  for (LtPlan &plan : ctx->plans)
    if (plan.valid)
      result(checkCublas(nullptr, destroyLtPlan(plan), "cuBLASLt plan"));
  if (ctx->lt)
    result(checkCublas(nullptr, cublasLtDestroy(ctx->lt), "cublasLtDestroy"));
  if (ctx->blas)
    result(checkCublas(nullptr, cublasDestroy(ctx->blas), "cublasDestroy"));
  if (ctx->workspace)
    result(sinter_rt_check_cuda(nullptr, cudaFree(ctx->workspace),
                                "cudaFree of the workspace"));
  ctx->lt = nullptr;
  ctx->blas = nullptr;
  ctx->workspace = nullptr;
  ctx->blasReady = false;
  return result.status;
}

/// Releases what \p ctx owns, in reverse order of creation, continuing past
/// failures; returns the first failure (recorded in the thread's buffer,
/// since the context is about to go away).
sinter_status releaseContext(sinter_rt_context *ctx) {
  FirstFailure result;
  result(releaseBlas(ctx));
  if (ctx->splitBuffer)
    result(sinter_rt_check_cuda(nullptr, cudaFree(ctx->splitBuffer),
                                "cudaFree of the split buffer"));
  for (int i = 0; i < ctx->weightCount; ++i)
    result(sinter_rt_check_cuda(nullptr, cudaFree(ctx->weights[i].parts),
                                "cudaFree of a weight's TF32 parts"));
  if (ctx->streamSwitchEvent)
    result(sinter_rt_check_cuda(
        nullptr, cudaEventDestroy(ctx->streamSwitchEvent), "cudaEventDestroy"));
  return result.status;
}

} // namespace

sinter_status sinter::rt::ensureBlas(sinter_rt_context *ctx) {
  if (ctx->blasReady)
    return SINTER_OK;
  // A failed attempt releases what it created, so that a later call starts
  // again from scratch; the message of the first failure is kept.
  sinter_status status = initBlas(ctx);
  if (status != SINTER_OK)
    releaseBlas(ctx);
  return status;
}

extern "C" {

sinter_status sinter_rt_create(sinter_rt_context **ctx, cudaStream_t stream,
                               size_t workspace_bytes) {
  if (!ctx)
    return fail(nullptr, SINTER_ERROR_NULL_POINTER,
                "sinter_rt_create: ctx: null pointer");
  *ctx = nullptr;
  // Zero-filled, so that a partly initialized context can be released.
  auto *created = static_cast<sinter_rt_context *>(
      std::calloc(1, sizeof(sinter_rt_context)));
  if (!created)
    return fail(nullptr, SINTER_ERROR_OUT_OF_MEMORY,
                "sinter_rt_create: cannot allocate the context");
  sinter_status status = initContext(created, stream, workspace_bytes);
  if (status != SINTER_OK) {
    // The message lives in the context: move it to the thread's buffer once
    // the release (which may record its own failure there) is done.
    releaseContext(created);
    fail(nullptr, status, "sinter_rt_create: %s", created->lastError);
    std::free(created);
    return status;
  }
  *ctx = created;
  return SINTER_OK;
}

sinter_status sinter_rt_destroy(sinter_rt_context *ctx) {
  if (!ctx)
    return SINTER_OK;
  sinter_status status = releaseContext(ctx);
  std::free(ctx);
  return status;
}

sinter_status sinter_rt_set_stream(sinter_rt_context *ctx,
                                   cudaStream_t stream) {
  if (!ctx)
    return fail(nullptr, SINTER_ERROR_NULL_POINTER,
                "sinter_rt_set_stream: ctx: null pointer");
  if (stream == ctx->stream)
    return SINTER_OK;
  SINTER_RT_TRY(sinter_rt_check_cuda(
      ctx, cudaEventRecord(ctx->streamSwitchEvent, ctx->stream),
      "sinter_rt_set_stream: cudaEventRecord"));
  SINTER_RT_TRY(sinter_rt_check_cuda(
      ctx, cudaStreamWaitEvent(stream, ctx->streamSwitchEvent, 0),
      "sinter_rt_set_stream: cudaStreamWaitEvent"));
  if (ctx->blasReady)
    SINTER_RT_TRY(bindBlasToStream(ctx, stream));
  ctx->stream = stream;
  return SINTER_OK;
}

sinter_status sinter_rt_init_blas(sinter_rt_context *ctx) {
  if (!ctx)
    return fail(nullptr, SINTER_ERROR_NULL_POINTER,
                "sinter_rt_init_blas: ctx: null pointer");
  return sinter::rt::ensureBlas(ctx);
}

cudaStream_t sinter_rt_get_stream(const sinter_rt_context *ctx) {
  return ctx ? ctx->stream : nullptr;
}

int sinter_rt_sm_count(const sinter_rt_context *ctx) {
  return ctx ? ctx->smCount : 0;
}

} // extern "C"
