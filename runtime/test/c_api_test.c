//===- c_api_test.c - The runtime's C API, compiled as C --------*- C -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Runs with or without a GPU. Compiled as C99 with warnings as errors, it
// proves that sinter/rt.h is a C header; run, it checks the status strings,
// the argument checks and their messages, that NULL contexts are refused,
// and that sinter_rt_create succeeds exactly when a CUDA device is usable
// (without one it must return an error status, not crash). Prints what it
// checks for FileCheck and exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "sinter/rt.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

/// Counts and reports a failed expectation.
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/// Every status, in enum order.
static const sinter_status kAllStatuses[] = {
    SINTER_OK,
    SINTER_ERROR_INVALID_ARGUMENT,
    SINTER_ERROR_NULL_POINTER,
    SINTER_ERROR_MISALIGNED_POINTER,
    SINTER_ERROR_BAD_DIM,
    SINTER_ERROR_NO_DEVICE,
    SINTER_ERROR_CUDA,
    SINTER_ERROR_CUBLAS,
    SINTER_ERROR_OUT_OF_MEMORY,
    SINTER_ERROR_NOT_SUPPORTED,
};
enum { kStatusCount = sizeof(kAllStatuses) / sizeof(kAllStatuses[0]) };

static void checkStatusStrings(void) {
  for (int i = 0; i < kStatusCount; ++i) {
    const char *name = sinter_status_name(kAllStatuses[i]);
    const char *text = sinter_status_string(kAllStatuses[i]);
    printf("status %d %s: %s\n", (int)kAllStatuses[i], name, text);
    EXPECT(strncmp(name, "SINTER_", 7) == 0);
    EXPECT(strcmp(name, "SINTER_STATUS_UNKNOWN") != 0);
    EXPECT(text[0] != '\0');
    EXPECT(strcmp(text, "unknown sinter_status") != 0);
    for (int j = 0; j < i; ++j) {
      EXPECT(strcmp(name, sinter_status_name(kAllStatuses[j])) != 0);
      EXPECT(strcmp(text, sinter_status_string(kAllStatuses[j])) != 0);
    }
  }
  sinter_status outOfRange[] = {(sinter_status)kStatusCount, (sinter_status)-1};
  for (int i = 0; i < 2; ++i) {
    printf("status %d %s: %s\n", (int)outOfRange[i],
           sinter_status_name(outOfRange[i]),
           sinter_status_string(outOfRange[i]));
    EXPECT(strcmp(sinter_status_name(outOfRange[i]), "SINTER_STATUS_UNKNOWN") ==
           0);
    EXPECT(strcmp(sinter_status_string(outOfRange[i]),
                  "unknown sinter_status") == 0);
  }
}

/// Runs one check expected to give \p expected and prints its message.
static void expectStatus(const char *what, sinter_status status,
                         sinter_status expected) {
  printf("%s -> %s: %s\n", what, sinter_status_name(status),
         status == SINTER_OK ? "" : sinter_rt_last_error(NULL));
  EXPECT(status == expected);
}

static void checkArgumentChecks(void) {
  float buffer[8];
  const char *aligned = (const char *)buffer;
  while (!sinter_rt_is_aligned(aligned, SINTER_RT_VECTOR_ALIGNMENT))
    ++aligned;
  EXPECT(sinter_rt_is_aligned(aligned, 16));
  EXPECT(!sinter_rt_is_aligned(aligned + 4, 16));
  EXPECT(sinter_rt_is_aligned(aligned + 4, 4));
  EXPECT(!sinter_rt_is_aligned(aligned, 3));

  expectStatus("pointer aligned",
               sinter_rt_check_pointer(NULL, "x", aligned, 16), SINTER_OK);
  expectStatus("pointer null", sinter_rt_check_pointer(NULL, "x", NULL, 16),
               SINTER_ERROR_NULL_POINTER);
  expectStatus("pointer misaligned",
               sinter_rt_check_pointer(NULL, "x", aligned + 4, 16),
               SINTER_ERROR_MISALIGNED_POINTER);
  EXPECT(strstr(sinter_rt_last_error(NULL), "not 16-byte aligned") != NULL);
  expectStatus("alignment not a power of two",
               sinter_rt_check_pointer(NULL, "x", aligned, 12),
               SINTER_ERROR_INVALID_ARGUMENT);

  expectStatus("dim in range",
               sinter_rt_check_dim(NULL, "B", 64, 1, SINTER_RT_MAX_DIM),
               SINTER_OK);
  expectStatus("dim zero",
               sinter_rt_check_dim(NULL, "B", 0, 1, SINTER_RT_MAX_DIM),
               SINTER_ERROR_BAD_DIM);
  expectStatus("dim too large",
               sinter_rt_check_dim(NULL, "B", SINTER_RT_MAX_DIM + 1, 1,
                                   SINTER_RT_MAX_DIM),
               SINTER_ERROR_BAD_DIM);

  static const struct {
    const char *check;
    cudaError_t error;
    sinter_status expected;
  } kCudaCases[] = {
      {"cuda success", cudaSuccess, SINTER_OK},
      {"cuda out of memory", cudaErrorMemoryAllocation,
       SINTER_ERROR_OUT_OF_MEMORY},
      {"cuda no device", cudaErrorNoDevice, SINTER_ERROR_NO_DEVICE},
      {"cuda invalid value", cudaErrorInvalidValue, SINTER_ERROR_CUDA},
  };
  for (size_t i = 0; i < sizeof(kCudaCases) / sizeof(kCudaCases[0]); ++i)
    expectStatus(kCudaCases[i].check,
                 sinter_rt_check_cuda(NULL, kCudaCases[i].error, "cudaCall"),
                 kCudaCases[i].expected);
}

/// Uses SINTER_RT_TRY the way generated code does.
static sinter_status checkTwoDims(int64_t rows, int64_t cols) {
  SINTER_RT_TRY(sinter_rt_check_dim(NULL, "rows", rows, 1, 100));
  SINTER_RT_TRY(sinter_rt_check_dim(NULL, "cols", cols, 1, 100));
  return SINTER_OK;
}

static void checkTry(void) {
  expectStatus("try both good", checkTwoDims(3, 4), SINTER_OK);
  expectStatus("try second bad", checkTwoDims(3, 400), SINTER_ERROR_BAD_DIM);
  EXPECT(strstr(sinter_rt_last_error(NULL), "cols") != NULL);
}

static void checkNullContexts(void) {
  float data[4] = {0, 0, 0, 0};
  expectStatus("create with a null out-pointer", sinter_rt_create(NULL, 0, 0),
               SINTER_ERROR_NULL_POINTER);
  expectStatus("destroy NULL", sinter_rt_destroy(NULL), SINTER_OK);
  expectStatus("set_stream on NULL", sinter_rt_set_stream(NULL, 0),
               SINTER_ERROR_NULL_POINTER);
  expectStatus("init_blas on NULL", sinter_rt_init_blas(NULL),
               SINTER_ERROR_NULL_POINTER);
  EXPECT(sinter_rt_get_stream(NULL) == 0);
  EXPECT(sinter_rt_sm_count(NULL) == 0);
  expectStatus("gemm on NULL",
               sinter_rt_gemm(NULL, SINTER_PRECISION_FP32, SINTER_OP_N,
                              SINTER_OP_N, 2, 2, 2, 1.f, data, 2, data, 2, 0.f,
                              data, 2),
               SINTER_ERROR_NULL_POINTER);
  expectStatus("gemm_batched on NULL",
               sinter_rt_gemm_batched(NULL, SINTER_PRECISION_FP32, SINTER_OP_N,
                                      SINTER_OP_N, 2, 2, 2, 1.f, data, 2, 4,
                                      data, 2, 4, 0.f, data, 2, 4, 1),
               SINTER_ERROR_NULL_POINTER);
  expectStatus("gemm_epilogue on NULL",
               sinter_rt_gemm_epilogue(NULL, SINTER_PRECISION_FP32, SINTER_OP_N,
                                       SINTER_OP_N, 2, 2, 2, 1.f, data, 2, data,
                                       2, 0.f, data, 2, SINTER_EPILOGUE_BIAS,
                                       data),
               SINTER_ERROR_NULL_POINTER);
  expectStatus(
      "gemv on NULL",
      sinter_rt_gemv(NULL, SINTER_OP_N, 2, 2, 1.f, data, 2, data, 0.f, data),
      SINTER_ERROR_NULL_POINTER);
}

static void checkCreate(void) {
  int devices = 0;
  int hasDevice = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  int failuresBefore = failures;
  // Not NULL, to see that a failed create resets it.
  sinter_rt_context *ctx = (sinter_rt_context *)&devices;
  sinter_status status = sinter_rt_create(&ctx, 0, 0);
  if (hasDevice) {
    EXPECT(status == SINTER_OK);
    EXPECT(ctx != NULL);
    EXPECT(sinter_rt_sm_count(ctx) > 0);
    EXPECT(sinter_rt_destroy(ctx) == SINTER_OK);
  } else {
    // The status is an error and the message says which call failed.
    printf("create without a device -> %s: %s\n", sinter_status_name(status),
           sinter_rt_last_error(NULL));
    EXPECT(status == SINTER_ERROR_NO_DEVICE || status == SINTER_ERROR_CUDA);
    EXPECT(ctx == NULL);
    EXPECT(strncmp(sinter_rt_last_error(NULL), "sinter_rt_create: ", 18) == 0);
  }
  if (failures == failuresBefore)
    printf("create: %s, as expected with %d device(s)\n",
           status == SINTER_OK ? "succeeded" : "failed",
           hasDevice ? devices : 0);
}

int main(void) {
  checkStatusStrings();
  checkArgumentChecks();
  checkTry();
  checkNullContexts();
  checkCreate();
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
