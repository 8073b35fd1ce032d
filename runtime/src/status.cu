//===- status.cu - Status codes, failure messages and checks --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The text of every status, the recording of failure messages (per context,
// or per thread when there is no context), the mapping of CUDA and cuBLAS
// errors to statuses, and the argument checks offered to generated code.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace sinter::rt {

namespace {

/// The message of the last failure that had no context, per host thread.
thread_local char threadLastError[512];

struct StatusInfo {
  const char *name;
  const char *text;
};

/// Indexed by sinter_status.
constexpr StatusInfo kStatusInfo[] = {
    {"SINTER_OK", "success"},
    {"SINTER_ERROR_INVALID_ARGUMENT", "invalid argument"},
    {"SINTER_ERROR_NULL_POINTER", "null pointer"},
    {"SINTER_ERROR_MISALIGNED_POINTER", "misaligned pointer"},
    {"SINTER_ERROR_BAD_DIM", "a dimension is out of range"},
    {"SINTER_ERROR_NO_DEVICE", "no CUDA device or driver"},
    {"SINTER_ERROR_CUDA", "CUDA runtime error"},
    {"SINTER_ERROR_CUBLAS", "cuBLAS error"},
    {"SINTER_ERROR_OUT_OF_MEMORY", "out of memory"},
    {"SINTER_ERROR_NOT_SUPPORTED", "not supported"},
};

constexpr int kStatusCount = sizeof(kStatusInfo) / sizeof(kStatusInfo[0]);
static_assert(kStatusCount == SINTER_ERROR_NOT_SUPPORTED + 1,
              "every sinter_status needs a name and a text");

const StatusInfo *statusInfo(sinter_status status) {
  int index = static_cast<int>(status);
  return index >= 0 && index < kStatusCount ? &kStatusInfo[index] : nullptr;
}

/// What follows the optional function name that prefixes a check's message.
const char *separatorAfter(const char *fn) { return fn ? ": " : ""; }

} // namespace

sinter_status fail(sinter_rt_context *ctx, sinter_status status,
                   const char *format, ...) {
  char *buffer = ctx ? ctx->lastError : threadLastError;
  size_t size = ctx ? sizeof(ctx->lastError) : sizeof(threadLastError);
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, size, format, args);
  va_end(args);
  return status;
}

sinter_status statusOfCuda(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return SINTER_OK;
  case cudaErrorMemoryAllocation:
    return SINTER_ERROR_OUT_OF_MEMORY;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
    return SINTER_ERROR_NO_DEVICE;
  default:
    return SINTER_ERROR_CUDA;
  }
}

sinter_status statusOfCublas(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return SINTER_OK;
  case CUBLAS_STATUS_ALLOC_FAILED:
    return SINTER_ERROR_OUT_OF_MEMORY;
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return SINTER_ERROR_NOT_SUPPORTED;
  default:
    return SINTER_ERROR_CUBLAS;
  }
}

sinter_status checkCublas(sinter_rt_context *ctx, cublasStatus_t status,
                          const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return SINTER_OK;
  return fail(ctx, statusOfCublas(status), "%s: %s: %s", what,
              cublasGetStatusName(status), cublasGetStatusString(status));
}

sinter_status checkPointer(sinter_rt_context *ctx, const char *fn,
                           const char *name, const void *ptr,
                           size_t alignment) {
  const char *sep = separatorAfter(fn);
  fn = fn ? fn : "";
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return fail(ctx, SINTER_ERROR_INVALID_ARGUMENT,
                "%s%s%s: alignment %zu is not a power of two", fn, sep, name,
                alignment);
  if (!ptr)
    return fail(ctx, SINTER_ERROR_NULL_POINTER, "%s%s%s: null pointer", fn, sep,
                name);
  if (!sinter_rt_is_aligned(ptr, alignment))
    return fail(ctx, SINTER_ERROR_MISALIGNED_POINTER,
                "%s%s%s: pointer %p is not %zu-byte aligned", fn, sep, name,
                ptr, alignment);
  return SINTER_OK;
}

sinter_status checkDim(sinter_rt_context *ctx, const char *fn, const char *name,
                       int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max)
    return SINTER_OK;
  return fail(ctx, SINTER_ERROR_BAD_DIM,
              "%s%s%s = %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]",
              fn ? fn : "", separatorAfter(fn), name, value, min, max);
}

sinter_status checkEnum(sinter_rt_context *ctx, const char *fn,
                        const char *name, int value, int count,
                        const char *type) {
  if (value >= 0 && value < count)
    return SINTER_OK;
  return fail(ctx, SINTER_ERROR_INVALID_ARGUMENT, "%s: %s = %d is not a %s", fn,
              name, value, type);
}

} // namespace sinter::rt

using namespace sinter::rt;

extern "C" {

const char *sinter_status_string(sinter_status status) {
  const StatusInfo *info = statusInfo(status);
  return info ? info->text : "unknown sinter_status";
}

const char *sinter_status_name(sinter_status status) {
  const StatusInfo *info = statusInfo(status);
  return info ? info->name : "SINTER_STATUS_UNKNOWN";
}

const char *sinter_rt_last_error(const sinter_rt_context *ctx) {
  return ctx ? ctx->lastError : threadLastError;
}

sinter_status sinter_rt_check_cuda(sinter_rt_context *ctx, cudaError_t error,
                                   const char *what) {
  if (error == cudaSuccess)
    return SINTER_OK;
  return fail(ctx, statusOfCuda(error), "%s: %s: %s", what ? what : "CUDA",
              cudaGetErrorName(error), cudaGetErrorString(error));
}

sinter_status sinter_rt_check_launch(sinter_rt_context *ctx,
                                     const char *kernel_name) {
  return sinter_rt_check_cuda(ctx, cudaGetLastError(),
                              kernel_name ? kernel_name : "kernel launch");
}

sinter_status sinter_rt_check_pointer(sinter_rt_context *ctx, const char *name,
                                      const void *ptr, size_t alignment) {
  return checkPointer(ctx, nullptr, name ? name : "pointer", ptr, alignment);
}

sinter_status sinter_rt_check_dim(sinter_rt_context *ctx, const char *name,
                                  int64_t value, int64_t min, int64_t max) {
  return checkDim(ctx, nullptr, name ? name : "dimension", value, min, max);
}

int sinter_rt_is_aligned(const void *ptr, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return 0;
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

} // extern "C"
