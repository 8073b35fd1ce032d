//===- tf32x3_gpu_test.cu - The 3xTF32 GEMM on a GPU ----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Needs a GPU. Runs the kernel of sinter_rt_gemm_tf32x3 on shapes that are not
// multiples of the tile (with padded leading dimensions, every epilogue, beta 0
// and not), and checks against float64 on the host that its error is no larger
// than cuBLAS SGEMM's on the same data; that infinities and NaNs in X and W
// (prepared or not) give the same non-finite outputs as SGEMM; that results are
// bitwise the same run to run; and that the algorithm query matches the device.
// Prints one line per check; exits non-zero when any fails.
//
//===----------------------------------------------------------------------===//

#include "../src/internal.h"
#include "tf32x3_specials.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int checks = 0;
int failures = 0;

void check(bool ok, const std::string &what) {
  ++checks;
  failures += !ok;
  std::printf("%-4s %s\n", ok ? "ok" : "FAIL", what.c_str());
}

void require(bool ok, const char *what, sinter_rt_context *ctx) {
  if (ok)
    return;
  std::fprintf(stderr, "fatal: %s: %s\n", what, sinter_rt_last_error(ctx));
  std::exit(2);
}

/// A device copy of a host vector.
struct Device {
  float *ptr = nullptr;
  explicit Device(const std::vector<float> &host) {
    require(cudaMalloc(&ptr, host.size() * sizeof(float)) == cudaSuccess,
            "cudaMalloc", nullptr);
    cudaMemcpy(ptr, host.data(), host.size() * sizeof(float),
               cudaMemcpyHostToDevice);
  }
  ~Device() { cudaFree(ptr); }
  std::vector<float> download(size_t n) const {
    std::vector<float> host(n);
    cudaMemcpy(host.data(), ptr, n * sizeof(float), cudaMemcpyDeviceToHost);
    return host;
  }
};

/// Y = epilogue(alpha X W^T + beta Y) with padded leading dimensions.
struct Problem {
  int64_t m, n, k, ldx, ldw, ldy;
  float alpha, beta;
  sinter_epilogue epilogue;
  std::vector<float> x, w, y, bias;
};

Problem makeProblem(int64_t m, int64_t n, int64_t k, float beta,
                    sinter_epilogue epilogue) {
  static std::mt19937 random(11);
  std::normal_distribution<float> normal;
  Problem p{m,    n,        k,  k + 3, k + 1, n + 2, 1.25f,
            beta, epilogue, {}, {},    {},    {}};
  auto draw = [&](size_t count) {
    std::vector<float> v(count);
    for (float &value : v)
      value = normal(random);
    return v;
  };
  p.x = draw(m * p.ldx);
  p.w = draw(n * p.ldw);
  p.y = draw(m * p.ldy);
  p.bias = draw(n);
  return p;
}

double epilogueOf(sinter_epilogue epilogue, double v) {
  switch (epilogue) {
  case SINTER_EPILOGUE_RELU_BIAS:
    return v > 0 ? v : 0;
  case SINTER_EPILOGUE_GELU_TANH_BIAS:
    return 0.5 * v *
           (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  default:
    return v;
  }
}

/// The float64 result (results only, row-major m x n).
std::vector<double> reference(const Problem &p) {
  std::vector<double> out(p.m * p.n);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < p.k; ++l)
        sum += static_cast<double>(p.x[i * p.ldx + l]) * p.w[j * p.ldw + l];
      double v =
          p.alpha * sum + (p.beta == 0 ? 0.0 : p.beta * p.y[i * p.ldy + j]);
      if (p.epilogue != SINTER_EPILOGUE_NONE)
        v += p.bias[j];
      out[i * p.n + j] = epilogueOf(p.epilogue, v);
    }
  return out;
}

/// Runs \p p with the 3xTF32 kernel of sinter_rt_gemm_tf32x3 whatever the
/// shape rule says (or, with \p sgemm, cuBLAS through
/// sinter_rt_gemm_epilogue), after sinter_rt_tf32x3_prepare_weight when
/// \p prepare; returns Y.
std::vector<float> run(sinter_rt_context *ctx, const Problem &p, bool sgemm,
                       bool prepare = false) {
  using sinter::rt::runTf32x3;
  Device x(p.x), w(p.w), y(p.y), bias(p.bias);
  if (prepare)
    require(sinter_rt_tf32x3_prepare_weight(ctx, w.ptr, p.n, p.k, p.ldw) ==
                SINTER_OK,
            "sinter_rt_tf32x3_prepare_weight", ctx);
  sinter_status status =
      sgemm ? sinter_rt_gemm_epilogue(ctx, SINTER_PRECISION_FP32, SINTER_OP_N,
                                      SINTER_OP_T, p.m, p.n, p.k, p.alpha,
                                      x.ptr, p.ldx, w.ptr, p.ldw, p.beta, y.ptr,
                                      p.ldy, p.epilogue, bias.ptr)
            : runTf32x3(ctx, p.m, p.n, p.k, p.alpha, x.ptr, p.ldx, w.ptr, p.ldw,
                        p.beta, y.ptr, p.ldy, p.epilogue, bias.ptr, nullptr);
  require(status == SINTER_OK, "GEMM", ctx);
  require(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize", ctx);
  return y.download(p.y.size());
}

/// ||got - ref|| / ||ref|| over the results; infinite when padding changed.
double relativeError(const Problem &p, const std::vector<float> &got,
                     const std::vector<double> &ref) {
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.ldy; ++j) {
      float value = got[i * p.ldy + j];
      if (j >= p.n) {
        if (value != p.y[i * p.ldy + j])
          return INFINITY;
        continue;
      }
      double expected = ref[i * p.n + j];
      diff += (value - expected) * (value - expected);
      norm += expected * expected;
    }
  return std::sqrt(diff / norm);
}

const char *epilogueName(sinter_epilogue epilogue) {
  const char *const names[] = {"none", "bias", "relu_bias", "gelu_tanh_bias"};
  return names[epilogue];
}

void testAccuracy(sinter_rt_context *ctx) {
  const sinter_epilogue epilogues[] = {
      SINTER_EPILOGUE_NONE, SINTER_EPILOGUE_BIAS, SINTER_EPILOGUE_RELU_BIAS,
      SINTER_EPILOGUE_GELU_TANH_BIAS};
  for (sinter_epilogue epilogue : epilogues)
    for (float beta : {0.0f, 0.5f}) {
      Problem p = makeProblem(300, 257, 1001, beta, epilogue);
      std::vector<double> ref = reference(p);
      double ours = relativeError(p, run(ctx, p, false), ref);
      double sgemm = relativeError(p, run(ctx, p, true), ref);
      char line[160];
      std::snprintf(line, sizeof(line),
                    "3xtf32 300x257x1001 %s beta=%g: error %.2e <= SGEMM's "
                    "%.2e",
                    epilogueName(epilogue), beta, ours, sgemm);
      check(ours <= sgemm, line);
    }
}

/// Bit patterns that must agree: NaN where SGEMM has NaN, the same infinity
/// where it has one.
bool sameSpecials(const std::vector<float> &a, const std::vector<float> &b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i]))
      return false;
    if (std::isinf(a[i]) != std::isinf(b[i]) ||
        (std::isinf(a[i]) && a[i] != b[i]))
      return false;
  }
  return true;
}

void testSpecialValues(sinter_rt_context *ctx) {
  Problem p = makeProblem(256, 256, 256, 0.0f, SINTER_EPILOGUE_NONE);
  // Weights of both signs and a zero (inf * 0 is NaN in SGEMM), exact in
  // TF32 (W's lo would be 0) where x is infinite; infinite weights where X
  // is normal data (X's lo, rounded to nearest, has either sign).
  for (int64_t n = 0; n < p.n; ++n)
    p.w[n * p.ldw + 5] = n % 2 ? -2.0f : 0.5f;
  p.w[2 * p.ldw + 5] = 0.0f;
  p.w[20 * p.ldw + 9] = INFINITY;
  p.w[21 * p.ldw + 9] = -INFINITY;
  p.w[22 * p.ldw + 10] = NAN;
  p.x[3 * p.ldx + 5] = INFINITY;
  p.x[7 * p.ldx + 0] = -INFINITY;
  p.x[11 * p.ldx + 100] = NAN;
  p.x[13 * p.ldx + 17] = 1.0e37f; // Large, finite products.
  p.x[15 * p.ldx + 9] = 0.0f;     // 0 * inf is NaN in SGEMM.
  for (bool prepare : {false, true}) {
    std::vector<float> ours = run(ctx, p, false, prepare);
    std::vector<float> sgemm = run(ctx, p, true);
    std::string weight = prepare ? " (prepared W)" : "";
    check(sameSpecials(ours, sgemm),
          "3xtf32 inf, -inf, NaN, 1e37 in X and inf, -inf, NaN, 0 in W: the "
          "same inf (with sign) and NaN as SGEMM" +
              weight);
    check(std::isinf(ours[3 * p.ldy]) && ours[3 * p.ldy] > 0 &&
              std::isinf(ours[3 * p.ldy + 1]) && ours[3 * p.ldy + 1] < 0 &&
              std::isnan(ours[3 * p.ldy + 2]) && std::isnan(ours[11 * p.ldy]),
          "3xtf32 inf * 0.5 = inf, inf * -2 = -inf, inf * 0 = NaN, NaN stays" +
              weight);
  }
}

/// Every pair of special values (tf32x3_specials.h) meets in one product of
/// an otherwise normal GEMM: Y[i][j] holds values[i] * values[j] plus finite
/// terms, and must have the class of SGEMM's Y[i][j].
void testSpecialProducts(sinter_rt_context *ctx) {
  using namespace sinter::rt::tf32x3::test;
  const std::vector<float> values = specialValues();
  int64_t count = static_cast<int64_t>(values.size());
  Problem p = makeProblem(count, count, 64, 0.0f, SINTER_EPILOGUE_NONE);
  p.alpha = 1.0f;
  for (int64_t i = 0; i < count; ++i) {
    p.x[i * p.ldx + 7] = values[i];
    p.w[i * p.ldw + 7] = values[i];
  }
  for (bool prepare : {false, true}) {
    std::vector<float> ours = run(ctx, p, false, prepare);
    std::vector<float> sgemm = run(ctx, p, true);
    int pairs = 0, wrong = 0;
    for (int64_t i = 0; i < count; ++i)
      for (int64_t j = 0; j < count; ++j) {
        if (nearOverflow(values[i], values[j]))
          continue;
        ++pairs;
        float got = ours[i * p.ldy + j], expected = sgemm[i * p.ldy + j];
        if (classOf(got) == classOf(expected) &&
            classOf(expected) == classOf(values[i] * values[j]))
          continue;
        ++wrong;
        std::printf("     x = %a, w = %a: 3xtf32 %g, SGEMM %g\n", values[i],
                    values[j], got, expected);
      }
    check(wrong == 0, "3xtf32 " + std::to_string(pairs) +
                          " products of special values: the class of SGEMM's" +
                          (prepare ? " (prepared W)" : ""));
  }
}

/// Prints (checks nothing) what SGEMM and the kernel give for subnormals
/// times infinities and ones, which Operand leaves out.
void reportSubnormals(sinter_rt_context *ctx) {
  const float xs[] = {1e-40f, -1e-40f, 1e-45f};
  const float ws[] = {INFINITY, 1.0f};
  Problem p = makeProblem(3, 2, 8, 0.0f, SINTER_EPILOGUE_NONE);
  p.alpha = 1.0f;
  std::fill(p.x.begin(), p.x.end(), 0.0f);
  std::fill(p.w.begin(), p.w.end(), 0.0f);
  for (int i = 0; i < 3; ++i)
    p.x[i * p.ldx] = xs[i];
  for (int j = 0; j < 2; ++j)
    p.w[j * p.ldw] = ws[j];
  std::vector<float> ours = run(ctx, p, false);
  std::vector<float> sgemm = run(ctx, p, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      std::printf("info subnormal %g * %g: SGEMM %g, 3xtf32 %g\n", xs[i], ws[j],
                  sgemm[i * p.ldy + j], ours[i * p.ldy + j]);
}

void testDeterminism(sinter_rt_context *ctx) {
  Problem p = makeProblem(513, 385, 777, 0.0f, SINTER_EPILOGUE_BIAS);
  std::vector<float> first = run(ctx, p, false);
  std::vector<float> second = run(ctx, p, false);
  check(std::memcmp(first.data(), second.data(),
                    first.size() * sizeof(float)) == 0,
        "3xtf32 bitwise equal run to run");
  std::vector<float> prepared = run(ctx, p, false, true);
  check(std::memcmp(first.data(), prepared.data(),
                    first.size() * sizeof(float)) == 0,
        "3xtf32 a prepared weight gives the same bits");
}

} // namespace

int main() {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "no device\n");
    return 2;
  }
  sinter_rt_context *ctx = nullptr;
  require(sinter_rt_create(&ctx, nullptr, 0) == SINTER_OK, "create", ctx);
  require(sinter_rt_init_blas(ctx) == SINTER_OK, "init_blas", ctx);
  int supported = sinter_rt_tf32x3_supported(ctx);
  std::printf("device: %s (sm_%d%d), 3xTF32 supported: %d\n", prop.name,
              prop.major, prop.minor, supported);
  check(supported == (prop.major == 9), "3xTF32 runs exactly on sm_90 devices");
  sinter_gemm_algorithm algorithm =
      sinter_rt_gemm_tf32x3_algorithm(ctx, 4096, 4096, 4096);
  check(algorithm == (supported ? SINTER_GEMM_ALGORITHM_TF32X3
                                : SINTER_GEMM_ALGORITHM_SGEMM),
        std::string("4096^3 runs ") + sinter_gemm_algorithm_name(algorithm));
  check(sinter_rt_gemm_tf32x3_algorithm(ctx, 1, 8192, 8192) ==
            SINTER_GEMM_ALGORITHM_SGEMM,
        "1x8192x8192 runs sgemm");
  testAccuracy(ctx);
  testSpecialValues(ctx);
  testSpecialProducts(ctx);
  reportSubnormals(ctx);
  testDeterminism(ctx);
  sinter_rt_destroy(ctx);
  std::printf("%s: %d of %d checks failed\n", failures ? "FAILED" : "PASSED",
              failures, checks);
  return failures ? 1 : 0;
}
