//===- gemm_epilogue.cu - cuBLASLt GEMM with fused epilogues --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter_rt_gemm_epilogue: the row-major GEMM of gemm.cu (operands swapped,
// M and N exchanged) through cuBLASLt, with bias, relu and gelu applied in the
// GEMM's epilogue. In the column-major view the bias runs along the rows of
// C^T, which is cuBLASLt's own bias layout: one value per output column of
// the row-major C, as a linear layer's bias.
//
// Descriptors and the heuristic's choice are built once per request shape and
// kept in the context (LtPlan); a call that finds its plan only updates the
// bias pointer and enqueues the matmul.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

namespace sinter::rt {

bool operator==(const LtPlanKey &a, const LtPlanKey &b) {
  return a.precision == b.precision && a.transA == b.transA &&
         a.transB == b.transB && a.epilogue == b.epilogue && a.m == b.m &&
         a.n == b.n && a.k == b.k && a.lda == b.lda && a.ldb == b.ldb &&
         a.ldc == b.ldc && a.alignA == b.alignA && a.alignB == b.alignB &&
         a.alignC == b.alignC && a.alignBias == b.alignBias;
}

cublasStatus_t destroyLtPlan(LtPlan &plan) {
  cublasStatus_t first = CUBLAS_STATUS_SUCCESS;
  auto keepFirst = [&](cublasStatus_t status) {
    if (first == CUBLAS_STATUS_SUCCESS)
      first = status;
  };
  for (cublasLtMatrixLayout_t layout :
       {plan.layoutA, plan.layoutB, plan.layoutC})
    if (layout)
      keepFirst(cublasLtMatrixLayoutDestroy(layout));
  if (plan.desc)
    keepFirst(cublasLtMatmulDescDestroy(plan.desc));
  plan = LtPlan{};
  return first;
}

namespace {

constexpr const char *kFn = "sinter_rt_gemm_epilogue";

/// The largest power of two, at most 256 (cuBLASLt's largest requirement),
/// that divides the address \p ptr.
uint32_t alignmentOf(const void *ptr) {
  uint32_t alignment = 256;
  while (alignment > 1 && !sinter_rt_is_aligned(ptr, alignment))
    alignment /= 2;
  return alignment;
}

/// Whether \p epilogue reads the bias vector.
bool readsBias(sinter_epilogue epilogue) {
  return epilogue != SINTER_EPILOGUE_NONE;
}

cublasLtEpilogue_t ltEpilogueOf(sinter_epilogue epilogue) {
  switch (epilogue) {
  case SINTER_EPILOGUE_BIAS:
    return CUBLASLT_EPILOGUE_BIAS;
  case SINTER_EPILOGUE_RELU_BIAS:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  case SINTER_EPILOGUE_GELU_TANH_BIAS:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  case SINTER_EPILOGUE_NONE:
    break;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

template <typename T>
sinter_status
setDescAttribute(sinter_rt_context *ctx, cublasLtMatmulDesc_t desc,
                 cublasLtMatmulDescAttributes_t attribute, const T &value) {
  return checkCublas(
      ctx,
      cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)),
      "sinter_rt_gemm_epilogue: cublasLtMatmulDescSetAttribute");
}

template <typename T>
sinter_status
setPreference(sinter_rt_context *ctx, cublasLtMatmulPreference_t preference,
              cublasLtMatmulPreferenceAttributes_t attribute, const T &value) {
  return checkCublas(ctx,
                     cublasLtMatmulPreferenceSetAttribute(
                         preference, attribute, &value, sizeof(value)),
                     "sinter_rt_gemm_epilogue: "
                     "cublasLtMatmulPreferenceSetAttribute");
}

/// Creates the column-major layout of a row-major matrix stored with
/// \p storedRows rows of \p storedCols elements, \p ld apart.
sinter_status createLayout(sinter_rt_context *ctx,
                           cublasLtMatrixLayout_t *layout, int64_t storedRows,
                           int64_t storedCols, int64_t ld) {
  return checkCublas(ctx,
                     cublasLtMatrixLayoutCreate(layout, CUDA_R_32F, storedCols,
                                                storedRows, ld),
                     "sinter_rt_gemm_epilogue: cublasLtMatrixLayoutCreate");
}

/// Asks the cuBLASLt heuristic for the best algorithm of \p plan's
/// descriptors under the context's workspace and the key's alignments.
sinter_status chooseAlgorithm(sinter_rt_context *ctx, LtPlan &plan) {
  const LtPlanKey &key = plan.key;
  cublasLtMatmulPreference_t preference = nullptr;
  SINTER_RT_TRY(
      checkCublas(ctx, cublasLtMatmulPreferenceCreate(&preference),
                  "sinter_rt_gemm_epilogue: cublasLtMatmulPreferenceCreate"));
  // Swapped operands: cuBLASLt's A is our B and its B is our A.
  uint64_t workspaceBytes = ctx->workspaceBytes;
  sinter_status status = SINTER_OK;
  auto set = [&](cublasLtMatmulPreferenceAttributes_t attribute, auto value) {
    if (status == SINTER_OK)
      status = setPreference(ctx, preference, attribute, value);
  };
  set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, workspaceBytes);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignB);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignA);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignC);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignC);
  cublasLtMatmulHeuristicResult_t result = {};
  int returned = 0;
  if (status == SINTER_OK)
    status = checkCublas(
        ctx,
        cublasLtMatmulAlgoGetHeuristic(ctx->lt, plan.desc, plan.layoutA,
                                       plan.layoutB, plan.layoutC, plan.layoutC,
                                       preference, 1, &result, &returned),
        "sinter_rt_gemm_epilogue: cublasLtMatmulAlgoGetHeuristic");
  cublasLtMatmulPreferenceDestroy(preference);
  SINTER_RT_TRY(status);
  if (returned == 0)
    return fail(ctx, SINTER_ERROR_NOT_SUPPORTED,
                "%s: cuBLASLt has no algorithm for M = %lld, N = %lld, "
                "K = %lld with this precision and epilogue",
                kFn, static_cast<long long>(key.m),
                static_cast<long long>(key.n), static_cast<long long>(key.k));
  plan.algo = result.algo;
  return SINTER_OK;
}

/// Creates the descriptors of \p plan (whose key is set) and chooses its
/// algorithm; \p bias is the bias pointer the heuristic sees.
sinter_status fillLtPlan(sinter_rt_context *ctx, LtPlan &plan,
                         const float *bias) {
  const LtPlanKey &key = plan.key;
  auto transA = static_cast<sinter_transpose>(key.transA);
  auto transB = static_cast<sinter_transpose>(key.transB);
  auto epilogue = static_cast<sinter_epilogue>(key.epilogue);
  SINTER_RT_TRY(checkCublas(
      ctx,
      cublasLtMatmulDescCreate(
          &plan.desc,
          computeTypeOf(static_cast<sinter_precision>(key.precision)),
          CUDA_R_32F),
      "sinter_rt_gemm_epilogue: cublasLtMatmulDescCreate"));
  SINTER_RT_TRY(setDescAttribute(ctx, plan.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                 operationOf(transB)));
  SINTER_RT_TRY(setDescAttribute(ctx, plan.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                 operationOf(transA)));
  SINTER_RT_TRY(setDescAttribute(ctx, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                 ltEpilogueOf(epilogue)));
  if (readsBias(epilogue))
    SINTER_RT_TRY(setDescAttribute(ctx, plan.desc,
                                   CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias));
  bool nA = transA == SINTER_OP_N, nB = transB == SINTER_OP_N;
  SINTER_RT_TRY(createLayout(ctx, &plan.layoutA, nB ? key.k : key.n,
                             nB ? key.n : key.k, key.ldb));
  SINTER_RT_TRY(createLayout(ctx, &plan.layoutB, nA ? key.m : key.k,
                             nA ? key.k : key.m, key.lda));
  SINTER_RT_TRY(createLayout(ctx, &plan.layoutC, key.m, key.n, key.ldc));
  return chooseAlgorithm(ctx, plan);
}

/// Finds the plan of \p key in the context's cache, or builds it in place of
/// the oldest one.
sinter_status getLtPlan(sinter_rt_context *ctx, const LtPlanKey &key,
                        const float *bias, LtPlan **out) {
  for (LtPlan &plan : ctx->plans) {
    if (plan.valid && plan.key == key) {
      *out = &plan;
      return SINTER_OK;
    }
  }
  LtPlan &slot = ctx->plans[ctx->nextPlan];
  ctx->nextPlan = (ctx->nextPlan + 1) % kLtPlanCacheSize;
  if (slot.valid)
    SINTER_RT_TRY(checkCublas(ctx, destroyLtPlan(slot),
                              "sinter_rt_gemm_epilogue: evicting a plan"));
  slot.key = key;
  sinter_status status = fillLtPlan(ctx, slot, bias);
  if (status != SINTER_OK) {
    destroyLtPlan(slot);
    return status;
  }
  slot.valid = true;
  *out = &slot;
  return SINTER_OK;
}

} // namespace

} // namespace sinter::rt

using namespace sinter::rt;

extern "C" {

sinter_status
sinter_rt_gemm_epilogue(sinter_rt_context *ctx, sinter_precision precision,
                        sinter_transpose trans_a, sinter_transpose trans_b,
                        int64_t M, int64_t N, int64_t K, float alpha,
                        const float *A, int64_t lda, const float *B,
                        int64_t ldb, float beta, float *C, int64_t ldc,
                        sinter_epilogue epilogue, const float *bias) {
  SINTER_RT_TRY(checkGemmArgs(ctx, kFn, precision, trans_a, trans_b, M, N, K, A,
                              lda, B, ldb, C, ldc));
  SINTER_RT_TRY(checkEnum(ctx, kFn, "epilogue", epilogue,
                          SINTER_EPILOGUE_GELU_TANH_BIAS + 1,
                          "sinter_epilogue"));
  bool withBias = readsBias(epilogue);
  if (withBias)
    SINTER_RT_TRY(checkPointer(ctx, kFn, "bias", bias, alignof(float)));
  LtPlanKey key = {precision,
                   trans_a,
                   trans_b,
                   epilogue,
                   M,
                   N,
                   K,
                   lda,
                   ldb,
                   ldc,
                   alignmentOf(A),
                   alignmentOf(B),
                   alignmentOf(C),
                   withBias ? alignmentOf(bias) : 0};
  SINTER_RT_TRY(ensureBlas(ctx));
  LtPlan *plan = nullptr;
  SINTER_RT_TRY(getLtPlan(ctx, key, bias, &plan));
  if (withBias)
    SINTER_RT_TRY(setDescAttribute(ctx, plan->desc,
                                   CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias));
  return checkCublas(ctx,
                     cublasLtMatmul(ctx->lt, plan->desc, &alpha, B,
                                    plan->layoutA, A, plan->layoutB, &beta, C,
                                    plan->layoutC, C, plan->layoutC,
                                    &plan->algo, ctx->workspace,
                                    ctx->workspaceBytes, ctx->stream),
                     "sinter_rt_gemm_epilogue: cublasLtMatmul");
}

} // extern "C"
