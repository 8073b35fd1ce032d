//===- gemm_bench.cu - fp32 GEMMs on the H100: time and accuracy ----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Y[M,N] = X[M,K] W[N,K]^T with cuBLAS SGEMM, cuBLAS TF32 (one pass), the
// runtime's 3xTF32 kernel and sinter_rt_gemm_tf32x3 (the shape rule: 3xTF32
// or SGEMM), in one run. Each is timed with CUDA events (median of --runs,
// after warm-up, L2 flushed before every run) on uniform data, and its error
// is measured against cublasDgemm on the same data for three data sets:
//   uniform  X ~ U[0,1), W ~ nn.Linear's U(-1/sqrt(K), 1/sqrt(K))
//   normal   X, W ~ N(0,1)
//   wide     N(0,1) values scaled by 2^U(-20,20)
// error = ||Y - Y64||_F / ||Y64||_F. Writes a JSON and a Markdown table.
//
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
//     -Iruntime/include bench/gemm/gemm_bench.cu runtime/src/*.cu \
//     -lcublas -lcublasLt -o gemm_bench
//   ./gemm_bench [--runs 15] [--json out.json] [--md out.md] [--shapes
//   M,N,K;...]
//
//===----------------------------------------------------------------------===//

#include "../../runtime/src/internal.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(expr)                                                       \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,       \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_SINTER(ctx, expr)                                                \
  do {                                                                         \
    sinter_status s_ = (expr);                                                 \
    if (s_ != SINTER_OK) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,       \
                   sinter_rt_last_error(ctx));                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_CUBLAS(expr)                                                     \
  do {                                                                         \
    cublasStatus_t s_ = (expr);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #expr,       \
                   static_cast<int>(s_));                                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Shape {
  int64_t m, n, k;
};

enum class Data { Uniform, Normal, Wide };
const char *const kDataNames[] = {"uniform", "normal", "wide"};

/// A counter-based hash (splitmix64) to draw data on the device.
__device__ uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__device__ double uniform01(uint64_t seed, int64_t i, int draw) {
  return (mix(seed * 0x100000001b3ull + 4 * i + draw) >> 11) * 0x1.0p-53;
}

/// Fills \p out (n elements) with data set \p data; \p isWeight selects W's
/// distribution, \p fanIn its nn.Linear bound. Also writes a double copy.
__global__ void fillKernel(float *out, double *out64, int64_t n, Data data,
                           bool isWeight, int64_t fanIn, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    double u = uniform01(seed, i, 0);
    double value;
    if (data == Data::Uniform) {
      double bound = 1.0 / sqrt(static_cast<double>(fanIn));
      value = isWeight ? (2 * u - 1) * bound : u;
    } else {
      double v = uniform01(seed, i, 1);
      value = sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
      if (data == Data::Wide)
        value *= exp2(40 * uniform01(seed, i, 2) - 20);
    }
    out[i] = static_cast<float>(value);
    if (out64)
      out64[i] = static_cast<float>(value);
  }
}

/// Accumulates sum (y - ref)^2 and sum ref^2 (doubles) into \p sums.
__global__ void errorKernel(const float *y, const double *ref, int64_t n,
                            double *sums) {
  double diff = 0, norm = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    double d = y[i] - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    diff += __shfl_down_sync(0xffffffffu, diff, offset);
    norm += __shfl_down_sync(0xffffffffu, norm, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], diff);
    atomicAdd(&sums[1], norm);
  }
}

struct Contestant {
  const char *name;
  /// Runs Y = X W^T once.
  void (*run)(sinter_rt_context *, const Shape &, const float *x,
              const float *w, void *scratch, float *y);
};

void runSgemm(sinter_rt_context *ctx, const Shape &s, const float *x,
              const float *w, void *, float *y) {
  CHECK_SINTER(ctx, sinter_rt_gemm(ctx, SINTER_PRECISION_FP32, SINTER_OP_N,
                                   SINTER_OP_T, s.m, s.n, s.k, 1.f, x, s.k, w,
                                   s.k, 0.f, y, s.n));
}

void runTf32(sinter_rt_context *ctx, const Shape &s, const float *x,
             const float *w, void *, float *y) {
  CHECK_SINTER(ctx, sinter_rt_gemm(ctx, SINTER_PRECISION_TF32, SINTER_OP_N,
                                   SINTER_OP_T, s.m, s.n, s.k, 1.f, x, s.k, w,
                                   s.k, 0.f, y, s.n));
}

void runKernel(sinter_rt_context *ctx, const Shape &s, const float *x,
               const float *w, void *scratch, float *y) {
  CHECK_SINTER(ctx, sinter::rt::runTf32x3(
                        ctx, s.m, s.n, s.k, 1.f, x, s.k, w, s.k, 0.f, y, s.n,
                        SINTER_EPILOGUE_NONE, nullptr, scratch));
}

void runRule(sinter_rt_context *ctx, const Shape &s, const float *x,
             const float *w, void *scratch, float *y) {
  CHECK_SINTER(ctx, sinter_rt_gemm_tf32x3(
                        ctx, s.m, s.n, s.k, 1.f, x, s.k, w, s.k, 0.f, y, s.n,
                        SINTER_EPILOGUE_NONE, nullptr, scratch));
}

const Contestant kContestants[] = {
    {"cublas_sgemm", runSgemm},
    {"cublas_tf32", runTf32},
    {"sinter_3xtf32_kernel", runKernel},
    {"sinter_gemm_tf32x3", runRule},
};
constexpr int kNumContestants = 4;
constexpr int kNumData = 3;

struct Result {
  Shape shape;
  std::string rule;
  double ms[kNumContestants];
  double error[kNumContestants][kNumData];
};

std::vector<Shape> parseShapes(const char *text) {
  std::vector<Shape> shapes;
  std::string all(text);
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(';', start);
    if (end == std::string::npos)
      end = all.size();
    Shape s;
    if (std::sscanf(all.substr(start, end - start).c_str(), "%ld,%ld,%ld", &s.m,
                    &s.n, &s.k) == 3)
      shapes.push_back(s);
    start = end + 1;
  }
  return shapes;
}

void fill(float *out, double *out64, int64_t n, Data data, bool isWeight,
          int64_t fanIn, uint64_t seed) {
  fillKernel<<<1024, 256>>>(out, out64, n, data, isWeight, fanIn, seed);
  CHECK_CUDA(cudaGetLastError());
}

double relativeError(const float *y, const double *ref, int64_t n,
                     double *sums) {
  CHECK_CUDA(cudaMemset(sums, 0, 2 * sizeof(double)));
  errorKernel<<<1024, 256>>>(y, ref, n, sums);
  double host[2];
  CHECK_CUDA(cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost));
  return std::sqrt(host[0] / host[1]);
}

} // namespace

int main(int argc, char **argv) {
  int runs = 15;
  const char *jsonPath = "gemm.json";
  const char *mdPath = "gemm.md";
  std::vector<Shape> shapes = parseShapes(
      "1024,8192,8192;2048,8192,8192;16384,4096,4096;32768,4096,1024;"
      "128,32768,32768;1000,4097,1001;1,8192,8192");
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--json"))
      jsonPath = argv[i + 1];
    else if (!std::strcmp(argv[i], "--md"))
      mdPath = argv[i + 1];
    else if (!std::strcmp(argv[i], "--shapes"))
      shapes = parseShapes(argv[i + 1]);
  }

  sinter_rt_context *ctx = nullptr;
  CHECK_SINTER(nullptr, sinter_rt_create(&ctx, nullptr, 0));
  CHECK_SINTER(ctx, sinter_rt_init_blas(ctx));
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, 3xTF32 supported: %d\n", prop.name,
              sinter_rt_tf32x3_supported(ctx));

  size_t flushBytes = size_t{256} << 20;
  void *flush;
  CHECK_CUDA(cudaMalloc(&flush, flushBytes));
  double *sums;
  CHECK_CUDA(cudaMalloc(&sums, 2 * sizeof(double)));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));

  std::vector<Result> results;
  for (const Shape &s : shapes) {
    Result result{};
    result.shape = s;
    result.rule = sinter_gemm_algorithm_name(
        sinter_rt_gemm_tf32x3_algorithm(ctx, s.m, s.n, s.k));
    float *x, *w, *y;
    void *scratch;
    double *x64, *w64, *y64;
    CHECK_CUDA(cudaMalloc(&x, s.m * s.k * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&w, s.n * s.k * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&scratch, sinter_rt_tf32x3_scratch_bytes(s.m, s.k)));
    CHECK_CUDA(cudaMalloc(&y, s.m * s.n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&x64, s.m * s.k * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&w64, s.n * s.k * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&y64, s.m * s.n * sizeof(double)));

    for (int d = 0; d < kNumData; ++d) {
      Data data = static_cast<Data>(d);
      fill(x, x64, s.m * s.k, data, false, s.k, 1000 + d);
      fill(w, w64, s.n * s.k, data, true, s.k, 2000 + d);
      CHECK_SINTER(ctx, sinter_rt_tf32x3_prepare_weight(ctx, w, s.n, s.k, s.k));
      double one = 1, zero = 0;
      // Column-major: Y^T[N,M] = W[N,K] X^T, W^T and X^T stored K-major.
      CHECK_CUBLAS(
          cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.n),
                      static_cast<int>(s.m), static_cast<int>(s.k), &one, w64,
                      static_cast<int>(s.k), x64, static_cast<int>(s.k), &zero,
                      y64, static_cast<int>(s.n)));
      for (int c = 0; c < kNumContestants; ++c) {
        kContestants[c].run(ctx, s, x, w, scratch, y);
        result.error[c][d] = relativeError(y, y64, s.m * s.n, sums);
      }
      if (data != Data::Uniform)
        continue;
      for (int c = 0; c < kNumContestants; ++c) {
        for (int i = 0; i < 3; ++i)
          kContestants[c].run(ctx, s, x, w, scratch, y);
        std::vector<float> times;
        for (int r = 0; r < runs; ++r) {
          CHECK_CUDA(cudaMemsetAsync(flush, r, flushBytes));
          CHECK_CUDA(cudaEventRecord(start));
          kContestants[c].run(ctx, s, x, w, scratch, y);
          CHECK_CUDA(cudaEventRecord(stop));
          CHECK_CUDA(cudaEventSynchronize(stop));
          float ms;
          CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
          times.push_back(ms);
        }
        std::sort(times.begin(), times.end());
        result.ms[c] = times[times.size() / 2];
      }
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    for (void *p : {(void *)x, (void *)w, scratch, (void *)y, (void *)x64,
                    (void *)w64, (void *)y64})
      CHECK_CUDA(cudaFree(p));
    results.push_back(result);
    std::printf("%ldx%ldx%ld rule=%s:", s.m, s.n, s.k, result.rule.c_str());
    for (int c = 0; c < kNumContestants; ++c)
      std::printf(" %s %.3f ms (err %.2e %.2e %.2e)", kContestants[c].name,
                  result.ms[c], result.error[c][0], result.error[c][1],
                  result.error[c][2]);
    std::printf("\n");
    std::fflush(stdout);
  }

  FILE *json = std::fopen(jsonPath, "w");
  FILE *md = std::fopen(mdPath, "w");
  if (!json || !md) {
    std::fprintf(stderr, "cannot write %s or %s\n", jsonPath, mdPath);
    return 1;
  }
  std::fprintf(json,
               "{\n  \"device\": \"%s\",\n  \"runs\": %d,\n"
               "  \"results\": [\n",
               prop.name, runs);
  std::fprintf(md,
               "Device: %s; median of %d runs, L2 flushed; error = "
               "||Y - Y64||_F / ||Y64||_F vs cublasDgemm "
               "(uniform / normal / wide data).\n\n"
               "| M,N,K | SGEMM ms | TF32 ms | 3xTF32 kernel ms | "
               "sinter_rt_gemm_tf32x3 (rule) ms | speedup vs SGEMM | "
               "SGEMM err | TF32 err | 3xTF32 err |\n"
               "|---|---|---|---|---|---|---|---|---|\n",
               prop.name, runs);
  for (size_t r = 0; r < results.size(); ++r) {
    const Result &res = results[r];
    std::fprintf(json,
                 "    {\"m\": %ld, \"n\": %ld, \"k\": %ld, \"rule\": \"%s\"",
                 res.shape.m, res.shape.n, res.shape.k, res.rule.c_str());
    for (int c = 0; c < kNumContestants; ++c) {
      std::fprintf(json, ", \"%s\": {\"ms\": %.5f", kContestants[c].name,
                   res.ms[c]);
      for (int d = 0; d < kNumData; ++d)
        std::fprintf(json, ", \"error_%s\": %.4e", kDataNames[d],
                     res.error[c][d]);
      std::fprintf(json, "}");
    }
    std::fprintf(json, "}%s\n", r + 1 < results.size() ? "," : "");
    auto errors = [&](int c) {
      static char text[3][64];
      std::snprintf(text[c % 3], sizeof(text[0]), "%.1e / %.1e / %.1e",
                    res.error[c][0], res.error[c][1], res.error[c][2]);
      return text[c % 3];
    };
    std::fprintf(md,
                 "| %ld,%ld,%ld | %.3f | %.3f | %.3f | %.3f (%s) | %.2fx | "
                 "%s | ",
                 res.shape.m, res.shape.n, res.shape.k, res.ms[0], res.ms[1],
                 res.ms[2], res.ms[3], res.rule.c_str(), res.ms[0] / res.ms[3],
                 errors(0));
    std::fprintf(md, "%s | ", errors(1));
    std::fprintf(md, "%s |\n", errors(2));
  }
  std::fprintf(json, "  ]\n}\n");
  std::fclose(json);
  std::fclose(md);
  sinter_rt_destroy(ctx);
  cublasDestroy(blas);
  return 0;
}
