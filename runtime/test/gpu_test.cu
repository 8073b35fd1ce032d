//===- gpu_test.cu - The runtime on a GPU, against float64 references -----===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Needs a CUDA GPU (written for an H100). Checks every GEMM path of the
// runtime (plain, transposed, batched, cuBLASLt epilogues, GEMV, each
// precision) on random data with odd shapes and padded leading dimensions
// against a float64 CPU reference, the argument checks with a live context,
// the warp and block reductions and the 16-byte vector helpers of
// rt_device.cuh, and every device math function against a double-precision
// host implementation. Prints one line per check with its error and
// tolerance, and exits non-zero when any check fails.
//
//   sinter-rt-gpu-test [--dump-math FILE] [--no-provoked-errors]
//
// --no-provoked-errors skips the one check that makes CUDA fail on purpose
// (a launch with too many threads, to test sinter_rt_check_launch), which
// compute-sanitizer would rightly report as an API error.
//
// --dump-math writes the inputs and outputs of the math functions for
// compare_with_torch.py, which compares them with PyTorch's own kernels.
//
//===----------------------------------------------------------------------===//

#include "sinter/rt.h"
#include "sinter/rt_device.cuh"

#include "math_cases.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sinter::test;

int checks = 0;
int failures = 0;

/// Ends the program when the harness itself cannot go on (not a check).
[[noreturn]] void fatal(const char *what, const char *detail) {
  std::fprintf(stderr, "fatal: %s: %s\n", what, detail);
  std::exit(2);
}

void checkCuda(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    fatal(what, cudaGetErrorString(error));
}

void checkRt(sinter_rt_context *ctx, sinter_status status, const char *what) {
  if (status != SINTER_OK)
    fatal(what, sinter_rt_last_error(ctx));
}

/// Prints one check and counts it; a NaN error fails.
void report(const std::string &name, const char *measure, double error,
            double tolerance) {
  bool ok = error <= tolerance;
  ++checks;
  failures += !ok;
  std::printf("%-4s %-52s %-14s %.3e (tolerance %.0e)\n", ok ? "ok" : "FAIL",
              name.c_str(), measure, error, tolerance);
}

/// Prints one check of a condition and counts it.
void reportTrue(const std::string &name, bool ok, const std::string &detail) {
  ++checks;
  failures += !ok;
  std::printf("%-4s %-52s %s\n", ok ? "ok" : "FAIL", name.c_str(),
              detail.c_str());
}

/// A device array of T, freed on destruction.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(size_t size) : size(size) {
    checkCuda(cudaMalloc(&data, bytes()), "cudaMalloc");
  }
  explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) {
    upload(host);
  }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(data); }

  T *get() const { return data; }
  /// Copies \p host in and waits for the copy: a copy from pageable memory
  /// may still be in flight when cudaMemcpy returns, which a kernel on a
  /// non-blocking stream would not wait for.
  void upload(const std::vector<T> &host) {
    checkCuda(cudaMemcpy(data, host.data(), bytes(), cudaMemcpyHostToDevice),
              "cudaMemcpy to the device");
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  std::vector<T> download() const {
    std::vector<T> host(size);
    checkCuda(cudaMemcpy(host.data(), data, bytes(), cudaMemcpyDeviceToHost),
              "cudaMemcpy to the host");
    return host;
  }

private:
  size_t bytes() const { return size * sizeof(T); }
  size_t size;
  T *data = nullptr;
};

std::mt19937 &rng() {
  static std::mt19937 generator(20240521u);
  return generator;
}

/// \p n floats uniform in [lo, hi).
std::vector<float> randomFloats(size_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(rng());
  return values;
}

//===----------------------------------------------------------------------===//
// GEMM references and comparisons
//===----------------------------------------------------------------------===//

/// The largest relative error norm each precision may give on these tests.
double toleranceOf(sinter_precision precision) {
  switch (precision) {
  case SINTER_PRECISION_TF32:
    return 2e-3;
  case SINTER_PRECISION_BF16:
    return 1e-2;
  case SINTER_PRECISION_FP32:
    break;
  }
  // Sequential fp32 accumulation of K = 4097 products of U(-1, 1) values
  // gives about 1e-6; TF32 gives about 3e-4.
  return 5e-6;
}

const char *precisionName(sinter_precision precision) {
  switch (precision) {
  case SINTER_PRECISION_TF32:
    return "tf32";
  case SINTER_PRECISION_BF16:
    return "bf16";
  case SINTER_PRECISION_FP32:
    break;
  }
  return "fp32";
}

const char *epilogueName(sinter_epilogue epilogue) {
  switch (epilogue) {
  case SINTER_EPILOGUE_BIAS:
    return "bias";
  case SINTER_EPILOGUE_RELU_BIAS:
    return "relu_bias";
  case SINTER_EPILOGUE_GELU_TANH_BIAS:
    return "gelu_tanh_bias";
  case SINTER_EPILOGUE_NONE:
    break;
  }
  return "none";
}

double applyEpilogue(sinter_epilogue epilogue, double v) {
  switch (epilogue) {
  case SINTER_EPILOGUE_RELU_BIAS:
    return v > 0 ? v : 0;
  case SINTER_EPILOGUE_GELU_TANH_BIAS:
    return geluTanhReference(v);
  case SINTER_EPILOGUE_NONE:
  case SINTER_EPILOGUE_BIAS:
    break;
  }
  return v;
}

/// One row-major GEMM problem with its operands on the host.
struct GemmProblem {
  sinter_transpose transA, transB;
  int64_t m, n, k;
  float alpha, beta;
  int64_t lda, ldb, ldc;
  int64_t batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  std::vector<float> a, b, c, bias;
};

/// Element (row, col) of op(X), X stored row-major with leading dim \p ld.
double opElement(const float *x, sinter_transpose trans, int64_t ld,
                 int64_t row, int64_t col) {
  return trans == SINTER_OP_N ? x[row * ld + col] : x[col * ld + row];
}

/// Stored rows of op(X) = trans ? X^T : X where op(X) is rows x cols.
int64_t storedRows(sinter_transpose trans, int64_t rows, int64_t cols) {
  return trans == SINTER_OP_N ? rows : cols;
}

/// A problem with random operands, leading dims padded by \p pad, and
/// batches \p gap elements apart.
GemmProblem makeProblem(sinter_transpose transA, sinter_transpose transB,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        float beta, int64_t batch = 1, int64_t pad = 3,
                        int64_t gap = 5) {
  GemmProblem p;
  p.transA = transA;
  p.transB = transB;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  p.lda = (transA == SINTER_OP_N ? k : m) + pad;
  p.ldb = (transB == SINTER_OP_N ? n : k) + pad;
  p.ldc = n + pad;
  p.batch = batch;
  p.strideA = storedRows(transA, m, k) * p.lda + gap;
  p.strideB = storedRows(transB, k, n) * p.ldb + gap;
  p.strideC = m * p.ldc + gap;
  p.a = randomFloats(p.strideA * batch);
  p.b = randomFloats(p.strideB * batch);
  p.c = randomFloats(p.strideC * batch);
  p.bias = randomFloats(n);
  return p;
}

/// Expected contents of an output buffer: float64 values, and which elements
/// are results (the others, padding and gaps, must keep their values).
struct Reference {
  std::vector<double> values;
  std::vector<bool> isResult;
};

/// The float64 result of \p p (with \p epilogue) over the whole C buffer.
Reference referenceGemm(const GemmProblem &p, sinter_epilogue epilogue) {
  Reference ref{std::vector<double>(p.c.begin(), p.c.end()),
                std::vector<bool>(p.c.size(), false)};
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    const float *a = p.a.data() + batch * p.strideA;
    const float *b = p.b.data() + batch * p.strideB;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < p.k; ++l)
          sum += opElement(a, p.transA, p.lda, i, l) *
                 opElement(b, p.transB, p.ldb, l, j);
        int64_t index = batch * p.strideC + i * p.ldc + j;
        double &out = ref.values[index];
        ref.isResult[index] = true;
        double v = p.alpha * sum + (p.beta == 0.f ? 0.0 : p.beta * out);
        if (epilogue != SINTER_EPILOGUE_NONE)
          v += p.bias[j];
        out = applyEpilogue(epilogue, v);
      }
    }
  }
  return ref;
}

/// Relative error norm ||got - ref|| / ||ref|| over the results; infinite
/// when an element that is not a result changed.
double relativeErrorNorm(const std::vector<float> &got, const Reference &ref) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double expected = ref.values[i];
    if (!ref.isResult[i]) {
      if (got[i] != expected)
        return kInf;
      continue;
    }
    diff += (got[i] - expected) * (got[i] - expected);
    norm += expected * expected;
  }
  return std::sqrt(diff / norm);
}

std::string shapeName(const GemmProblem &p) {
  char name[96];
  std::snprintf(name, sizeof(name), "%c%c %lldx%lldx%lld",
                p.transA == SINTER_OP_N ? 'N' : 'T',
                p.transB == SINTER_OP_N ? 'N' : 'T',
                static_cast<long long>(p.m), static_cast<long long>(p.n),
                static_cast<long long>(p.k));
  return name;
}

/// Which entry point runs a problem.
enum class GemmPath { Gemm, Batched, Epilogue };

/// Runs \p p through \p path (with \p epilogue for GemmPath::Epilogue) and
/// stores C in \p result. \p offsetA shifts A by that many floats (unaligned
/// pointers).
sinter_status runGemm(sinter_rt_context *ctx, const GemmProblem &p,
                      GemmPath path, sinter_precision precision,
                      sinter_epilogue epilogue, std::vector<float> &result,
                      int64_t offsetA = 0) {
  std::vector<float> hostA(offsetA, 0.f);
  hostA.insert(hostA.end(), p.a.begin(), p.a.end());
  DeviceArray<float> a(hostA), b(p.b), c(p.c), bias(p.bias);
  const float *aPtr = a.get() + offsetA;
  sinter_status status = SINTER_OK;
  switch (path) {
  case GemmPath::Gemm:
    status = sinter_rt_gemm(ctx, precision, p.transA, p.transB, p.m, p.n, p.k,
                            p.alpha, aPtr, p.lda, b.get(), p.ldb, p.beta,
                            c.get(), p.ldc);
    break;
  case GemmPath::Batched:
    status = sinter_rt_gemm_batched(ctx, precision, p.transA, p.transB, p.m,
                                    p.n, p.k, p.alpha, aPtr, p.lda, p.strideA,
                                    b.get(), p.ldb, p.strideB, p.beta, c.get(),
                                    p.ldc, p.strideC, p.batch);
    break;
  case GemmPath::Epilogue:
    status = sinter_rt_gemm_epilogue(
        ctx, precision, p.transA, p.transB, p.m, p.n, p.k, p.alpha, aPtr, p.lda,
        b.get(), p.ldb, p.beta, c.get(), p.ldc, epilogue, bias.get());
    break;
  }
  checkCuda(cudaStreamSynchronize(sinter_rt_get_stream(ctx)), "GEMM");
  result = c.download();
  return status;
}

void checkGemm(sinter_rt_context *ctx, const std::string &label,
               const GemmProblem &p, GemmPath path, sinter_precision precision,
               sinter_epilogue epilogue = SINTER_EPILOGUE_NONE,
               int64_t offsetA = 0) {
  std::string name =
      label + " " + precisionName(precision) + " " + shapeName(p);
  std::vector<float> got;
  sinter_status status =
      runGemm(ctx, p, path, precision, epilogue, got, offsetA);
  if (status != SINTER_OK)
    return reportTrue(name, false,
                      std::string(sinter_status_name(status)) + ": " +
                          sinter_rt_last_error(ctx));
  report(name, "rel err norm",
         relativeErrorNorm(got, referenceGemm(p, epilogue)),
         toleranceOf(precision));
}

void testGemm(sinter_rt_context *ctx) {
  const sinter_transpose ops[] = {SINTER_OP_N, SINTER_OP_T};
  for (sinter_transpose ta : ops)
    for (sinter_transpose tb : ops)
      checkGemm(ctx, "gemm", makeProblem(ta, tb, 127, 257, 129, 1.25f, -0.5f),
                GemmPath::Gemm, SINTER_PRECISION_FP32);
  checkGemm(ctx, "gemm beta=0",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 1, 1000, 4097, 1.f, 0.f),
            GemmPath::Gemm, SINTER_PRECISION_FP32);
  for (sinter_precision precision :
       {SINTER_PRECISION_TF32, SINTER_PRECISION_BF16})
    checkGemm(ctx, "gemm",
              makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.5f),
              GemmPath::Gemm, precision);
}

void testBatched(sinter_rt_context *ctx) {
  checkGemm(ctx, "batched x3",
            makeProblem(SINTER_OP_N, SINTER_OP_N, 33, 65, 17, 0.5f, 2.f, 3),
            GemmPath::Batched, SINTER_PRECISION_FP32);
  checkGemm(ctx, "batched x3",
            makeProblem(SINTER_OP_T, SINTER_OP_T, 33, 65, 17, 1.f, 0.f, 3),
            GemmPath::Batched, SINTER_PRECISION_FP32);
  // One B for every batch (a shared weight).
  GemmProblem shared =
      makeProblem(SINTER_OP_N, SINTER_OP_T, 31, 63, 129, 1.f, 0.f, 4);
  shared.strideB = 0;
  checkGemm(ctx, "batched x4 stride_b=0", shared, GemmPath::Batched,
            SINTER_PRECISION_FP32);
  checkGemm(ctx, "batched x3",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 33, 65, 17, 1.f, 0.f, 3),
            GemmPath::Batched, SINTER_PRECISION_TF32);
}

void testEpilogue(sinter_rt_context *ctx) {
  const sinter_epilogue epilogues[] = {
      SINTER_EPILOGUE_NONE, SINTER_EPILOGUE_BIAS, SINTER_EPILOGUE_RELU_BIAS,
      SINTER_EPILOGUE_GELU_TANH_BIAS};
  for (sinter_epilogue epilogue : epilogues) {
    for (float beta : {0.f, 0.5f}) {
      std::string label = std::string("lt ") + epilogueName(epilogue) +
                          (beta == 0.f ? " beta=0" : " beta=.5");
      checkGemm(
          ctx, label,
          makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.5f, beta),
          GemmPath::Epilogue, SINTER_PRECISION_FP32, epilogue);
    }
  }
  checkGemm(ctx, "lt bias",
            makeProblem(SINTER_OP_T, SINTER_OP_N, 127, 257, 129, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_FP32, SINTER_EPILOGUE_BIAS);
  // A 4-byte aligned A: the plan must not assume cuBLASLt's default 256.
  checkGemm(ctx, "lt bias A+1",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_FP32, SINTER_EPILOGUE_BIAS, 1);
  checkGemm(ctx, "lt relu_bias",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_TF32,
            SINTER_EPILOGUE_RELU_BIAS);
  checkGemm(ctx, "lt gelu_tanh_bias",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_BF16,
            SINTER_EPILOGUE_GELU_TANH_BIAS);

  // The second call finds the cached plan and gives the same bits.
  GemmProblem p =
      makeProblem(SINTER_OP_N, SINTER_OP_T, 255, 129, 513, 1.f, 0.f);
  std::vector<float> first, second;
  sinter_status status =
      runGemm(ctx, p, GemmPath::Epilogue, SINTER_PRECISION_FP32,
              SINTER_EPILOGUE_GELU_TANH_BIAS, first);
  if (status == SINTER_OK)
    status = runGemm(ctx, p, GemmPath::Epilogue, SINTER_PRECISION_FP32,
                     SINTER_EPILOGUE_GELU_TANH_BIAS, second);
  reportTrue(
      "lt cached plan: bitwise equal results",
      status == SINTER_OK && std::memcmp(first.data(), second.data(),
                                         first.size() * sizeof(float)) == 0,
      std::string("255x129x513 run twice: ") + sinter_status_name(status));
}

void testGemv(sinter_rt_context *ctx) {
  const int64_t m = 1000, n = 4097, lda = n + 3;
  for (sinter_transpose trans : {SINTER_OP_N, SINTER_OP_T}) {
    int64_t xSize = trans == SINTER_OP_N ? n : m;
    int64_t ySize = trans == SINTER_OP_N ? m : n;
    std::vector<float> a = randomFloats(m * lda), x = randomFloats(xSize),
                       y = randomFloats(ySize);
    DeviceArray<float> dA(a), dX(x), dY(y);
    float alpha = 0.75f, beta = 0.25f;
    checkRt(ctx,
            sinter_rt_gemv(ctx, trans, m, n, alpha, dA.get(), lda, dX.get(),
                           beta, dY.get()),
            "sinter_rt_gemv");
    std::vector<float> got = dY.download();
    Reference ref{std::vector<double>(ySize), std::vector<bool>(ySize, true)};
    for (int64_t i = 0; i < ySize; ++i) {
      double sum = 0;
      for (int64_t l = 0; l < xSize; ++l)
        sum +=
            opElement(a.data(), trans, lda, i, l) * static_cast<double>(x[l]);
      ref.values[i] = alpha * sum + beta * static_cast<double>(y[i]);
    }
    report(std::string("gemv ") + (trans == SINTER_OP_N ? "N" : "T") +
               " 1000x4097",
           "rel err norm", relativeErrorNorm(got, ref),
           toleranceOf(SINTER_PRECISION_FP32));
  }
}

//===----------------------------------------------------------------------===//
// Argument checks, launch checks, streams
//===----------------------------------------------------------------------===//

void expectStatus(sinter_rt_context *ctx, const char *what,
                  sinter_status status, sinter_status expected) {
  reportTrue(what, status == expected,
             std::string(sinter_status_name(status)) + ": " +
                 (status == SINTER_OK ? "" : sinter_rt_last_error(ctx)));
}

void testArgumentErrors(sinter_rt_context *ctx) {
  DeviceArray<float> buffer(64);
  float *p = buffer.get();
  const float *misaligned =
      reinterpret_cast<const float *>(reinterpret_cast<const char *>(p) + 2);
  const sinter_precision fp32 = SINTER_PRECISION_FP32;
  const sinter_transpose n = SINTER_OP_N, t = SINTER_OP_T;
  expectStatus(ctx, "gemm M = 0",
               sinter_rt_gemm(ctx, fp32, n, n, 0, 4, 4, 1, p, 4, p, 4, 0, p, 4),
               SINTER_ERROR_BAD_DIM);
  expectStatus(ctx, "gemm K > INT32_MAX",
               sinter_rt_gemm(ctx, fp32, n, n, 4, 4, int64_t(1) << 31, 1, p, 4,
                              p, 4, 0, p, 4),
               SINTER_ERROR_BAD_DIM);
  expectStatus(ctx, "gemm lda < K",
               sinter_rt_gemm(ctx, fp32, n, n, 4, 4, 5, 1, p, 4, p, 4, 0, p, 4),
               SINTER_ERROR_BAD_DIM);
  expectStatus(ctx, "gemm trans_a, lda < M",
               sinter_rt_gemm(ctx, fp32, t, n, 5, 4, 4, 1, p, 4, p, 4, 0, p, 4),
               SINTER_ERROR_BAD_DIM);
  expectStatus(
      ctx, "gemm misaligned A",
      sinter_rt_gemm(ctx, fp32, n, n, 4, 4, 4, 1, misaligned, 4, p, 4, 0, p, 4),
      SINTER_ERROR_MISALIGNED_POINTER);
  expectStatus(
      ctx, "gemm null B",
      sinter_rt_gemm(ctx, fp32, n, n, 4, 4, 4, 1, p, 4, nullptr, 4, 0, p, 4),
      SINTER_ERROR_NULL_POINTER);
  expectStatus(ctx, "gemm precision 7",
               sinter_rt_gemm(ctx, static_cast<sinter_precision>(7), n, n, 4, 4,
                              4, 1, p, 4, p, 4, 0, p, 4),
               SINTER_ERROR_INVALID_ARGUMENT);
  expectStatus(ctx, "batched overlapping C",
               sinter_rt_gemm_batched(ctx, fp32, n, n, 4, 4, 4, 1, p, 4, 16, p,
                                      4, 16, 0, p, 4, 8, 2),
               SINTER_ERROR_BAD_DIM);
  expectStatus(ctx, "batched batch = 0",
               sinter_rt_gemm_batched(ctx, fp32, n, n, 4, 4, 4, 1, p, 4, 16, p,
                                      4, 16, 0, p, 4, 16, 0),
               SINTER_ERROR_BAD_DIM);
  expectStatus(ctx, "epilogue bias null",
               sinter_rt_gemm_epilogue(ctx, fp32, n, n, 4, 4, 4, 1, p, 4, p, 4,
                                       0, p, 4, SINTER_EPILOGUE_RELU_BIAS,
                                       nullptr),
               SINTER_ERROR_NULL_POINTER);
  expectStatus(ctx, "epilogue 9",
               sinter_rt_gemm_epilogue(ctx, fp32, n, n, 4, 4, 4, 1, p, 4, p, 4,
                                       0, p, 4, static_cast<sinter_epilogue>(9),
                                       p),
               SINTER_ERROR_INVALID_ARGUMENT);
  expectStatus(ctx, "gemv lda < N",
               sinter_rt_gemv(ctx, n, 4, 8, 1, p, 4, p, 0, p),
               SINTER_ERROR_BAD_DIM);
}

__global__ void emptyKernel() {}

void testLaunchCheck(sinter_rt_context *ctx, bool provokeErrors) {
  emptyKernel<<<1, 32, 0, sinter_rt_get_stream(ctx)>>>();
  expectStatus(ctx, "check_launch of a good launch",
               sinter_rt_check_launch(ctx, "emptyKernel"), SINTER_OK);
  if (!provokeErrors)
    return;
  // 2048 threads per block is more than any GPU allows.
  emptyKernel<<<1, 2048, 0, sinter_rt_get_stream(ctx)>>>();
  sinter_status status = sinter_rt_check_launch(ctx, "emptyKernel<2048>");
  expectStatus(ctx, "check_launch of a bad launch", status, SINTER_ERROR_CUDA);
  reportTrue("check_launch names the kernel",
             std::strstr(sinter_rt_last_error(ctx), "emptyKernel<2048>") !=
                 nullptr,
             sinter_rt_last_error(ctx));
}

void testStreams(sinter_rt_context *ctx) {
  cudaStream_t stream;
  checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            "cudaStreamCreate");
  checkRt(ctx, sinter_rt_set_stream(ctx, stream), "sinter_rt_set_stream");
  reportTrue("set_stream binds the stream", sinter_rt_get_stream(ctx) == stream,
             "");
  checkGemm(ctx, "gemm on a non-blocking stream",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.f),
            GemmPath::Gemm, SINTER_PRECISION_FP32);
  checkGemm(ctx, "lt bias on a non-blocking stream",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 127, 257, 129, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_FP32, SINTER_EPILOGUE_BIAS);
  checkRt(ctx, sinter_rt_set_stream(ctx, nullptr), "sinter_rt_set_stream");
  checkCuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

/// cuBLAS is set up by the first GEMM, on the stream the context has then,
/// or by sinter_rt_init_blas (which a second call leaves alone).
void testLazyBlas() {
  cudaStream_t stream;
  checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            "cudaStreamCreate");
  sinter_rt_context *lazy = nullptr;
  checkRt(nullptr, sinter_rt_create(&lazy, nullptr, 0), "sinter_rt_create");
  checkRt(lazy, sinter_rt_set_stream(lazy, stream), "sinter_rt_set_stream");
  checkGemm(lazy, "first gemm of a context, on a non-blocking stream",
            makeProblem(SINTER_OP_N, SINTER_OP_N, 33, 65, 17, 1.f, 0.f),
            GemmPath::Gemm, SINTER_PRECISION_FP32);
  checkRt(lazy, sinter_rt_destroy(lazy), "sinter_rt_destroy");

  checkRt(nullptr, sinter_rt_create(&lazy, stream, 0), "sinter_rt_create");
  expectStatus(lazy, "init_blas", sinter_rt_init_blas(lazy), SINTER_OK);
  expectStatus(lazy, "init_blas again", sinter_rt_init_blas(lazy), SINTER_OK);
  checkGemm(lazy, "lt bias after init_blas",
            makeProblem(SINTER_OP_N, SINTER_OP_T, 31, 63, 15, 1.f, 0.f),
            GemmPath::Epilogue, SINTER_PRECISION_FP32, SINTER_EPILOGUE_BIAS);
  checkRt(lazy, sinter_rt_destroy(lazy), "sinter_rt_destroy");
  checkCuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

//===----------------------------------------------------------------------===//
// Reductions and vector access
//===----------------------------------------------------------------------===//

constexpr int kBlockThreads = 256;

struct RowStats {
  float sum, max, min, mean, var;
};

/// One block per row: sum, max, min and Welford mean / biased variance of the
/// row, through the warp functions (blockDim 32) or the block functions
/// (blockDim kBlockThreads). Every thread stores the sum it received.
template <bool kWarp>
__global__ void rowStatsKernel(const float *x, int64_t length, RowStats *out,
                               float *sumPerThread) {
  const float *row = x + blockIdx.x * length;
  float sum = 0.f, max = -INFINITY, min = INFINITY;
  dev::Welford welford = dev::welfordEmpty();
  for (int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    float v = row[i];
    sum += v;
    max = dev::maximum(max, v);
    min = dev::minimum(min, v);
    welford = dev::welfordPush(welford, v);
  }
  if constexpr (kWarp) {
    sum = dev::warpSum(sum);
    max = dev::warpMax(max);
    min = dev::warpMin(min);
    welford = dev::warpWelford(welford);
  } else {
    sum = dev::blockSum<kBlockThreads>(sum);
    max = dev::blockMax<kBlockThreads>(max);
    min = dev::blockMin<kBlockThreads>(min);
    welford = dev::blockWelford<kBlockThreads>(welford);
  }
  sumPerThread[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 0)
    out[blockIdx.x] = {sum, max, min, welford.mean, welford.m2 / welford.count};
}

/// Float bits, for bitwise comparisons that treat equal NaNs as equal.
uint32_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

/// 0 when \p got and \p ref are the same value (both NaN counts), else inf.
double exactError(float got, float ref) {
  return (got == ref || (std::isnan(got) && std::isnan(ref))) ? 0 : kInf;
}

/// Checks the statistics of \p rows rows of \p length values from \p x.
void checkRowStats(const std::string &label, bool warp,
                   const std::vector<float> &x, int64_t rows, int64_t length) {
  int threads = warp ? dev::kWarpSize : kBlockThreads;
  DeviceArray<float> dX(x), sums(rows * threads);
  DeviceArray<RowStats> out(rows);
  auto run = [&] {
    if (warp)
      rowStatsKernel<true>
          <<<rows, threads>>>(dX.get(), length, out.get(), sums.get());
    else
      rowStatsKernel<false>
          <<<rows, threads>>>(dX.get(), length, out.get(), sums.get());
    checkCuda(cudaGetLastError(), "rowStatsKernel launch");
    return out.download();
  };
  std::vector<RowStats> got = run();
  std::vector<RowStats> again = run();
  std::vector<float> perThread = sums.download();

  double sumError = 0, extremaError = 0, meanError = 0, varError = 0;
  bool uniform = true;
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x.data() + r * length;
    double sum = 0, absSum = 0;
    float maxValue = -INFINITY, minValue = INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < length; ++i) {
      sum += row[i];
      absSum += std::fabs(row[i]);
      nan |= std::isnan(row[i]);
      maxValue = std::max(maxValue, row[i]);
      minValue = std::min(minValue, row[i]);
    }
    if (nan)
      maxValue = minValue = NAN;
    double mean = sum / length, var = 0;
    for (int64_t i = 0; i < length; ++i)
      var += (row[i] - mean) * (row[i] - mean);
    var /= length;
    const RowStats &g = got[r];
    extremaError = std::max({extremaError, exactError(g.max, maxValue),
                             exactError(g.min, minValue)});
    if (nan) {
      extremaError = std::max(extremaError, exactError(g.sum, NAN));
      continue;
    }
    sumError = std::max(sumError, std::fabs(g.sum - sum) / absSum);
    meanError =
        std::max(meanError, std::fabs(g.mean - mean) / (absSum / length));
    varError = std::max(varError, var == 0 ? std::fabs(g.var)
                                           : std::fabs(g.var - var) / var);
    for (int t = 0; t < threads; ++t)
      uniform &= bitsOf(perThread[r * threads + t]) == bitsOf(g.sum);
  }
  std::string name = label + (warp ? " warp" : " block256");
  report(name + " sum", "err/sum|x|", sumError, 1e-6);
  report(name + " max, min (NaN-propagating)", "mismatch", extremaError, 0);
  report(name + " welford mean", "err/mean|x|", meanError, 1e-6);
  report(name + " welford var", "rel err", varError, 1e-5);
  reportTrue(name + " same result in every thread", uniform, "");
  reportTrue(
      name + " bitwise equal across runs",
      std::memcmp(got.data(), again.data(), got.size() * sizeof(RowStats)) == 0,
      "");
}

void testReductions() {
  const int64_t rows = 3;
  for (int64_t length : {1, 31, 32, 33, 1000, 4097})
    for (bool warp : {true, false})
      checkRowStats("rows of " + std::to_string(length), warp,
                    randomFloats(rows * length), rows, length);
  // Values far from zero: a naive sum of squares would lose the variance.
  for (bool warp : {true, false})
    checkRowStats("rows of 4097 in [99, 101)", warp,
                  randomFloats(rows * 4097, 99.f, 101.f), rows, 4097);
  std::vector<float> withNan = randomFloats(rows * 33);
  withNan[33 + 17] = NAN;
  for (bool warp : {true, false})
    checkRowStats("rows of 33, one NaN", warp, withNan, rows, 33);
}

/// y = gelu(x), four values per thread through 16-byte accesses.
__global__ void geluVectorKernel(const float *x, float *y, int64_t vectors) {
  for (int64_t i = dev::globalThreadIndex(); i < vectors;
       i += dev::gridStride())
    dev::storeFloat4(y + i * dev::kVectorWidth,
                     dev::mapFloat4(dev::loadFloat4(x + i * dev::kVectorWidth),
                                    [](float v) { return dev::geluErf(v); }));
}

/// y = gelu(x) from element \p begin on, one value per thread.
__global__ void geluScalarKernel(const float *x, float *y, int64_t begin,
                                 int64_t end) {
  for (int64_t i = begin + dev::globalThreadIndex(); i < end;
       i += dev::gridStride())
    y[i] = dev::geluErf(x[i]);
}

void testVectorAccess() {
  const int64_t n = 4099; // not a multiple of 4: a scalar tail remains
  std::vector<float> x = randomFloats(n, -4.f, 4.f);
  DeviceArray<float> dX(x), vec(n), scalar(n);
  bool aligned = sinter_rt_is_aligned(dX.get(), SINTER_RT_VECTOR_ALIGNMENT) &&
                 sinter_rt_is_aligned(vec.get(), SINTER_RT_VECTOR_ALIGNMENT);
  reportTrue("cudaMalloc'd buffers are 16-byte aligned", aligned, "");
  int64_t vectors = n / dev::kVectorWidth;
  geluVectorKernel<<<8, 128>>>(dX.get(), vec.get(), vectors);
  geluScalarKernel<<<1, 32>>>(dX.get(), vec.get(), vectors * dev::kVectorWidth,
                              n);
  geluScalarKernel<<<8, 128>>>(dX.get(), scalar.get(), 0, n);
  checkCuda(cudaGetLastError(), "gelu kernels");
  std::vector<float> a = vec.download(), b = scalar.download();
  reportTrue("float4 path equals scalar path (4099 values)",
             std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0, "");
}

//===----------------------------------------------------------------------===//
// Math functions
//===----------------------------------------------------------------------===//

__global__ void mathKernel(int fn, const float *x, float *y, int64_t n) {
  for (int64_t i = dev::globalThreadIndex(); i < n; i += dev::gridStride())
    y[i] = applyMath(fn, x[i]);
}

void testMath(const char *dumpPath) {
  std::vector<float> x = mathInputs();
  int64_t n = static_cast<int64_t>(x.size());
  DeviceArray<float> dX(x), dY(n);
  FILE *dump = dumpPath ? std::fopen(dumpPath, "wb") : nullptr;
  if (dumpPath && !dump)
    fatal("cannot open", dumpPath);
  for (int fn = 0; fn < kMathFnCount; ++fn) {
    mathKernel<<<256, 256>>>(fn, dX.get(), dY.get(), n);
    checkCuda(cudaGetLastError(), "mathKernel launch");
    std::vector<float> y = dY.download();
    double error = 0;
    for (int64_t i = 0; i < n; ++i)
      error = std::max(error, mathError(y[i], referenceMath(fn, x[i])));
    report(std::string("math ") + kMathFnNames[fn], "err/max(|f|,1)", error,
           kMathTolerance);
    if (dump) {
      uint32_t nameLength = std::strlen(kMathFnNames[fn]);
      uint64_t count = n;
      std::fwrite(&nameLength, sizeof(nameLength), 1, dump);
      std::fwrite(kMathFnNames[fn], 1, nameLength, dump);
      std::fwrite(&count, sizeof(count), 1, dump);
      std::fwrite(x.data(), sizeof(float), n, dump);
      std::fwrite(y.data(), sizeof(float), n, dump);
    }
  }
  if (dump && std::fclose(dump) != 0)
    fatal("cannot write", dumpPath);
}

} // namespace

int main(int argc, char **argv) {
  const char *dumpPath = nullptr;
  bool provokeErrors = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dump-math") == 0 && i + 1 < argc) {
      dumpPath = argv[++i];
    } else if (std::strcmp(argv[i], "--no-provoked-errors") == 0) {
      provokeErrors = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dump-math FILE] [--no-provoked-errors]\n",
                   argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  checkCuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount);

  sinter_rt_context *ctx = nullptr;
  checkRt(nullptr, sinter_rt_create(&ctx, nullptr, 0), "sinter_rt_create");
  testGemm(ctx);
  testBatched(ctx);
  testEpilogue(ctx);
  testGemv(ctx);
  testArgumentErrors(ctx);
  testLaunchCheck(ctx, provokeErrors);
  testStreams(ctx);
  testLazyBlas();
  testReductions();
  testVectorAccess();
  testMath(dumpPath);
  checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  checkRt(nullptr, sinter_rt_destroy(ctx), "sinter_rt_destroy");

  std::printf("%s: %d of %d checks failed\n", failures ? "FAILED" : "PASSED",
              failures, checks);
  return failures ? 1 : 0;
}
