//===- gemm_tf32x3.cu - fp32-accurate GEMM on Hopper tensor cores ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Y[M,N] = alpha X[M,K] W[N,K]^T + beta Y, both operands K-major, at fp32
// accuracy on TF32 tensor cores (sm_90a wgmma): each operand is split into
// TF32 parts hi + lo (tf32x3.h), and Y = Xh Wh + Xh Wl + Xl Wh.
//
// The tensor cores accumulate with truncation, so one long accumulation loses
// accuracy linearly in K. Each K-block of kTileK elements is therefore
// accumulated into a temporary (small products first, then the big one) and
// promoted into the fp32 accumulator with round-to-nearest FADDs; this makes
// the result more accurate against float64 than SGEMM's.
//
// The kernel: one thread block per 128x128 tile of Y; warpgroup 0 is the
// producer (one thread issues TMA loads of Xh, Xl, Wh, Wl into a ring of
// shared-memory stages, each completing on a "full" mbarrier); warpgroups 1
// and 2 consume, each computing 64 rows with wgmma.mma_async m64n128k8, and
// release a stage through an "empty" mbarrier. W's parts are made once by
// sinter_rt_tf32x3_prepare_weight (when a model is created) and kept by the
// context; X's by a pre-pass kernel into the caller's scratch.
//
// Device code is compiled only for sm_90a (the wgmma and setmaxnreg
// instructions); elsewhere the entry points run cuBLAS SGEMM instead and
// sinter_rt_gemm_algorithm says so.
//
//===----------------------------------------------------------------------===//

#include "internal.h"
#include "tf32x3.h"

#include <algorithm>

#include <cuda.h>
#include <cudaTypedefs.h>

namespace sinter::rt::tf32x3 {

namespace {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SINTER_RT_HAS_WGMMA 1
#else
#define SINTER_RT_HAS_WGMMA 0
#endif

// Constants that only the wgmma path reads are [[maybe_unused]]: a build
// without sm_90a compiles that path out.

/// Pipeline stages of the shared-memory ring.
constexpr int kStages = 3;
/// Consumer warpgroups; each computes kTileM / kConsumers rows of the tile.
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
[[maybe_unused]] constexpr int kRowsPerConsumer = kTileM / kConsumers;
/// wgmma's K per instruction for TF32.
[[maybe_unused]] constexpr int kMmaK = 8;
/// One row of a stage's tile, in bytes: the 128-byte swizzle span.
constexpr int kRowBytes = kTileK * 4;
static_assert(kRowBytes == 128, "tiles use the 128-byte swizzle");
constexpr int kTileBytesX = kTileM * kRowBytes;
constexpr int kTileBytesW = kTileN * kRowBytes;
constexpr int kStageBytes = 2 * kTileBytesX + 2 * kTileBytesW;
/// Dynamic shared memory: the stages, 1024-byte aligned for the swizzle,
/// then the mbarriers.
constexpr int kSmemBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;
/// Accumulator registers per thread of a consumer for its 64 x kTileN part.
[[maybe_unused]] constexpr int kAccRegs = kTileN / 2;
/// K-blocks that the tensor cores accumulate before the promotion into the
/// fp32 accumulator: 1 (every 32 K elements). Measured on the H100
/// (bench/gemm): 2 (every 64) is no faster, and less accurate on 3 of 4
/// shapes (1.6e-7 -> 3.7e-7 at 32768 x 4096 x 1024).
[[maybe_unused]] constexpr int kPromoteBlocks = 1;
/// Tiles of one group along M in the raster order (L2 reuse of W tiles).
[[maybe_unused]] constexpr int kGroupM = 8;

/// The epilogue of the 3xTF32 GEMM, applied to alpha * acc + beta * C.
struct Epilogue {
  float alpha;
  float beta;
  sinter_epilogue kind;
  const float *bias;
};

#if SINTER_RT_HAS_WGMMA

__device__ __forceinline__ uint32_t smemAddress(const void *ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

__device__ __forceinline__ void mbarrierInit(uint64_t *bar, int count) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddress(bar)),
      "r"(count));
}

__device__ __forceinline__ void mbarrierWait(uint64_t *bar, int parity) {
  asm volatile("{\n"
               ".reg .pred p;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra WAIT_%=;\n"
               "}\n" ::"r"(smemAddress(bar)),
               "r"(parity));
}

__device__ __forceinline__ void mbarrierExpectTx(uint64_t *bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smemAddress(bar)),
               "r"(bytes));
}

__device__ __forceinline__ void mbarrierArrive(uint64_t *bar) {
  asm volatile(
      "mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddress(bar)));
}

/// Loads the box at (\p inner, \p outer) of \p map into \p dst, completing
/// on \p bar.
__device__ __forceinline__ void tmaLoad(void *dst, const CUtensorMap *map,
                                        uint64_t *bar, int inner, int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(smemAddress(dst)),
      "l"(map), "r"(smemAddress(bar)), "r"(inner), "r"(outer)
      : "memory");
}

/// The wgmma descriptor of a K-major tile with rows of 128 bytes in the
/// 128-byte swizzle: 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t descriptorOf(const void *tile) {
  uint64_t address = smemAddress(tile);
  return ((address & 0x3ffff) >> 4) | (uint64_t{1} << 16) |
         (uint64_t{1024 >> 4} << 32) | (uint64_t{1} << 62);
}

__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaWaitAll() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

/// d (+)= A B^T for a 64x8 A and a 128x8 B, both TF32 K-major in shared
/// memory; d is overwritten when \p accumulate is 0.
__device__ __forceinline__ void wgmma128(float (&d)[kAccRegs], uint64_t descA,
                                         uint64_t descB, int accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
      "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "
      "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, "
      "%58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
        "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),
        "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
        "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(descA), "l"(descB), "r"(accumulate));
}

__device__ __forceinline__ float applyEpilogue(const Epilogue &epilogue,
                                               float acc, const float *c,
                                               int64_t col) {
  float value = epilogue.alpha * acc;
  if (epilogue.beta != 0.0f)
    value += epilogue.beta * *c;
  if (epilogue.kind == SINTER_EPILOGUE_NONE)
    return value;
  value += epilogue.bias[col];
  if (epilogue.kind == SINTER_EPILOGUE_RELU_BIAS)
    return value > 0.0f ? value : (value != value ? value : 0.0f);
  if (epilogue.kind == SINTER_EPILOGUE_GELU_TANH_BIAS) {
    float inner =
        0.7978845608028654f * (value + 0.044715f * value * value * value);
    return 0.5f * value * (1.0f + tanhf(inner));
  }
  return value;
}

/// The producer: one thread loads the K-blocks of the tile's rows of Xh, Xl
/// and columns of Wh, Wl into the ring, waiting for each stage to be empty.
__device__ __forceinline__ void
produce(const CUtensorMap *mapXh, const CUtensorMap *mapXl,
        const CUtensorMap *mapWh, const CUtensorMap *mapWl, unsigned char *smem,
        uint64_t *full, uint64_t *empty, int tileM, int tileN, int kBlocks) {
  if (threadIdx.x != 0)
    return;
  for (int kb = 0; kb < kBlocks; ++kb) {
    int s = kb % kStages;
    mbarrierWait(&empty[s], ((kb / kStages) & 1) ^ 1);
    unsigned char *stage = smem + s * kStageBytes;
    mbarrierExpectTx(&full[s], kStageBytes);
    int kOffset = kb * kTileK;
    tmaLoad(stage, mapXh, &full[s], kOffset, tileM * kTileM);
    tmaLoad(stage + kTileBytesX, mapXl, &full[s], kOffset, tileM * kTileM);
    tmaLoad(stage + 2 * kTileBytesX, mapWh, &full[s], kOffset, tileN * kTileN);
    tmaLoad(stage + 2 * kTileBytesX + kTileBytesW, mapWl, &full[s], kOffset,
            tileN * kTileN);
  }
}

/// A consumer warpgroup: rows [64 consumer, 64 consumer + 64) of the tile.
/// Per K-block, the three products go to a temporary accumulator (the small
/// ones first), which is then added to the fp32 accumulator.
__device__ __forceinline__ void consume(unsigned char *smem, uint64_t *full,
                                        uint64_t *empty, int consumer,
                                        int tileM, int tileN, int kBlocks,
                                        int m, int n, float *y, int64_t ldy,
                                        const Epilogue &epilogue) {
  float acc[kAccRegs];
  float part[kAccRegs];
#pragma unroll
  for (int i = 0; i < kAccRegs; ++i)
    acc[i] = 0.0f;

  for (int kb = 0; kb < kBlocks; ++kb) {
    int s = kb % kStages;
    mbarrierWait(&full[s], (kb / kStages) & 1);
    unsigned char *stage = smem + s * kStageBytes;
    const unsigned char *xh = stage + consumer * kRowsPerConsumer * kRowBytes;
    const unsigned char *xl = xh + kTileBytesX;
    const unsigned char *wh = stage + 2 * kTileBytesX;
    const unsigned char *wl = wh + kTileBytesW;
    uint64_t descXh = descriptorOf(xh), descXl = descriptorOf(xl);
    uint64_t descWh = descriptorOf(wh), descWl = descriptorOf(wl);
    wgmmaFence();
    // A K-step of 8 TF32 elements is 32 bytes: 2 in the descriptors'
    // 16-byte address units. The first product after a promotion
    // overwrites the temporary.
    int carried = kb % kPromoteBlocks != 0;
#pragma unroll
    for (int step = 0; step < kTileK / kMmaK; ++step)
      wgmma128(part, descXh + 2 * step, descWl + 2 * step, step + carried);
#pragma unroll
    for (int step = 0; step < kTileK / kMmaK; ++step)
      wgmma128(part, descXl + 2 * step, descWh + 2 * step, 1);
#pragma unroll
    for (int step = 0; step < kTileK / kMmaK; ++step)
      wgmma128(part, descXh + 2 * step, descWh + 2 * step, 1);
    wgmmaCommit();
    wgmmaWaitAll();
    if (threadIdx.x % 32 == 0)
      mbarrierArrive(&empty[s]);
    if ((kb + 1) % kPromoteBlocks == 0 || kb + 1 == kBlocks) {
#pragma unroll
      for (int i = 0; i < kAccRegs; ++i)
        acc[i] += part[i];
    }
  }

  // Accumulator layout of m64nNk8: register 4j + 2h + e of a thread holds
  // row 16 * warp + lane / 4 + 8 h, column 8 j + 2 (lane % 4) + e.
  int warp = (threadIdx.x % 128) / 32;
  int lane = threadIdx.x % 32;
  int64_t rowBase = static_cast<int64_t>(tileM) * kTileM +
                    consumer * kRowsPerConsumer + 16 * warp + lane / 4;
  int64_t colBase = static_cast<int64_t>(tileN) * kTileN + 2 * (lane % 4);
  // Pairs of columns go out as one 8-byte store where Y allows it.
  bool pairs = ldy % 2 == 0 && reinterpret_cast<uintptr_t>(y) % 8 == 0;
#pragma unroll
  for (int i = 0; i < kAccRegs; i += 2) {
    int64_t row = rowBase + 8 * ((i / 2) % 2);
    int64_t col = colBase + 8 * (i / 4);
    if (row >= m)
      continue;
    float *out = y + row * ldy + col;
    if (pairs && col + 1 < n) {
      float2 value =
          make_float2(applyEpilogue(epilogue, acc[i], out, col),
                      applyEpilogue(epilogue, acc[i + 1], out + 1, col + 1));
      *reinterpret_cast<float2 *>(out) = value;
      continue;
    }
    if (col < n)
      out[0] = applyEpilogue(epilogue, acc[i], out, col);
    if (col + 1 < n)
      out[1] = applyEpilogue(epilogue, acc[i + 1], out + 1, col + 1);
  }
}

#endif // SINTER_RT_HAS_WGMMA

/// The 3xTF32 GEMM; see the file comment. Tensor maps: Xh, Xl (boxes of
/// kTileK x kTileM) and Wh, Wl (kTileK x kTileN).
__global__ void __launch_bounds__(kThreads, 1)
    gemmKernel(const __grid_constant__ CUtensorMap mapXh,
               const __grid_constant__ CUtensorMap mapXl,
               const __grid_constant__ CUtensorMap mapWh,
               const __grid_constant__ CUtensorMap mapWl, int m, int n, int k,
               float *y, int64_t ldy, Epilogue epilogue) {
#if SINTER_RT_HAS_WGMMA
  extern __shared__ __align__(1024) unsigned char smemRaw[];
  unsigned char *smem = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t{1023});
  uint64_t *full = reinterpret_cast<uint64_t *>(smem + kStages * kStageBytes);
  uint64_t *empty = full + kStages;

  int tilesM = (m + kTileM - 1) / kTileM;
  int tilesN = (n + kTileN - 1) / kTileN;
  // Grouped raster order: kGroupM tiles along M share each W tile in L2.
  int inGroup = blockIdx.x % (kGroupM * tilesN);
  int firstM = blockIdx.x / (kGroupM * tilesN) * kGroupM;
  int groupSize = min(tilesM - firstM, kGroupM);
  int tileM = firstM + inGroup % groupSize;
  int tileN = inGroup / groupSize;
  int kBlocks = (k + kTileK - 1) / kTileK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrierInit(&full[s], 1);
      mbarrierInit(&empty[s], kConsumers * 4);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (threadIdx.x / 128 == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    produce(&mapXh, &mapXl, &mapWh, &mapWl, smem, full, empty, tileM, tileN,
            kBlocks);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    consume(smem, full, empty, threadIdx.x / 128 - 1, tileM, tileN, kBlocks, m,
            n, y, ldy, epilogue);
  }
#else
  (void)mapXh, (void)mapXl, (void)mapWh, (void)mapWl, (void)m, (void)n, (void)k,
      (void)y, (void)ldy, (void)epilogue;
#endif
}

/// Writes the hi and lo parts of the rows x cols matrix \p src (leading
/// dimension \p ldSrc) to \p hi and \p lo (leading dimension \p ldDst, a
/// multiple of 4, >= cols); columns cols..ldDst-1 of the parts are zero.
/// Each thread splits 4 consecutive elements of a row (one float4 load when
/// \p vectorLoads: src 16-byte aligned and ldSrc a multiple of 4) and stores
/// two float4s; x strides over a row's quads, y over the rows.
__global__ void splitKernel(int64_t rows, int64_t cols, const float *src,
                            int64_t ldSrc, float *hi, float *lo, int64_t ldDst,
                            bool vectorLoads, Operand operand) {
  int64_t quads = ldDst / 4;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const float *in = src + row * ldSrc;
    for (int64_t quad =
             static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         quad < quads; quad += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      int64_t col = 4 * quad;
      float values[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (vectorLoads && col + 4 <= cols) {
        float4 v = *reinterpret_cast<const float4 *>(in + col);
        values[0] = v.x, values[1] = v.y, values[2] = v.z, values[3] = v.w;
      } else {
        for (int e = 0; e < 4 && col + e < cols; ++e)
          values[e] = in[col + e];
      }
      Tf32Pair p0 = splitTf32(values[0], operand);
      Tf32Pair p1 = splitTf32(values[1], operand);
      Tf32Pair p2 = splitTf32(values[2], operand);
      Tf32Pair p3 = splitTf32(values[3], operand);
      int64_t out = row * ldDst + col;
      *reinterpret_cast<float4 *>(hi + out) =
          make_float4(p0.hi, p1.hi, p2.hi, p3.hi);
      *reinterpret_cast<float4 *>(lo + out) =
          make_float4(p0.lo, p1.lo, p2.lo, p3.lo);
    }
  }
}

/// Writes 1 to \p out when this build has the 3xTF32 kernel for the device
/// (sm_90a code), 0 otherwise.
__global__ void probeKernel(int *out) { *out = SINTER_RT_HAS_WGMMA; }

/// The driver's cuTensorMapEncodeTiled, through the runtime (no -lcuda).
PFN_cuTensorMapEncodeTiled_v12000 encodeTiledFunction() {
  static PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void *address = nullptr;
    cudaDriverEntryPointQueryResult query;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &address,
                                         12000, cudaEnableDefault,
                                         &query) != cudaSuccess ||
        query != cudaDriverEntryPointSuccess)
      address = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(address);
  }();
  return function;
}

/// The tensor map of a rows x cols row-major fp32 operand with leading
/// dimension \p ld (a multiple of 4), read in boxes of kTileK x \p boxRows
/// with the 128-byte swizzle; reads past the edges give zeros.
sinter_status encodeOperand(sinter_rt_context *ctx, CUtensorMap *map,
                            const float *data, int64_t rows, int64_t cols,
                            int64_t ld, int boxRows) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = encodeTiledFunction();
  if (!encode)
    return fail(ctx, SINTER_ERROR_NOT_SUPPORTED,
                "sinter_rt_gemm_tf32x3: the driver has no "
                "cuTensorMapEncodeTiled");
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols),
                        static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};
  cuuint32_t box[2] = {kTileK, static_cast<cuuint32_t>(boxRows)};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult result =
      encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(data),
             dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    return fail(ctx, SINTER_ERROR_INVALID_ARGUMENT,
                "sinter_rt_gemm_tf32x3: cuTensorMapEncodeTiled failed (%d)",
                static_cast<int>(result));
  return SINTER_OK;
}

} // namespace

} // namespace sinter::rt::tf32x3

using namespace sinter::rt;
using namespace sinter::rt::tf32x3;

namespace {

/// Launches splitKernel over a rows x cols matrix on \p ctx's stream.
sinter_status launchSplit(sinter_rt_context *ctx, const char *fn,
                          Operand operand, int64_t rows, int64_t cols,
                          const float *src, int64_t ld, float *hi, float *lo) {
  int64_t ldSplit = splitLeadingDim(cols);
  bool vectorLoads =
      ld % 4 == 0 && sinter_rt_is_aligned(src, SINTER_RT_VECTOR_ALIGNMENT);
  constexpr int kSplitThreads = 256;
  dim3 grid(static_cast<unsigned>(std::min<int64_t>(
                (ldSplit / 4 + kSplitThreads - 1) / kSplitThreads, 64)),
            static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  splitKernel<<<grid, kSplitThreads, 0, ctx->stream>>>(
      rows, cols, src, ld, hi, lo, ldSplit, vectorLoads, operand);
  return sinter_rt_check_cuda(ctx, cudaGetLastError(), fn);
}

/// Probes, once per context, whether the 3xTF32 kernel runs on its device.
bool tf32x3Supported(sinter_rt_context *ctx) {
  if (ctx->tf32x3Support != 0)
    return ctx->tf32x3Support > 0;
  ctx->tf32x3Support = -1;
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                             ctx->device) != cudaSuccess ||
      major != 9 || !encodeTiledFunction())
    return false;
  int *flag = nullptr;
  int has = 0;
  if (cudaMalloc(&flag, sizeof(int)) == cudaSuccess) {
    probeKernel<<<1, 1>>>(flag);
    if (cudaMemcpy(&has, flag, sizeof(int), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      has = 0;
    cudaFree(flag);
  }
  if (has)
    has = cudaFuncSetAttribute(gemmKernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kSmemBytes) == cudaSuccess;
  ctx->tf32x3Support = has ? 1 : -1;
  return has;
}

/// The context's split buffer, grown to hold X's parts for \p m x \p k.
sinter_status reserveSplit(sinter_rt_context *ctx, int64_t m, int64_t k) {
  size_t bytes = sinter_rt_tf32x3_scratch_bytes(m, k);
  if (bytes <= ctx->splitBytes)
    return SINTER_OK;
  if (ctx->splitBuffer) {
    SINTER_RT_TRY(sinter_rt_check_cuda(ctx, cudaFree(ctx->splitBuffer),
                                       "cudaFree of the split buffer"));
    ctx->splitBuffer = nullptr;
    ctx->splitBytes = 0;
  }
  SINTER_RT_TRY(sinter_rt_check_cuda(ctx, cudaMalloc(&ctx->splitBuffer, bytes),
                                     "cudaMalloc of the split buffer"));
  ctx->splitBytes = bytes;
  return SINTER_OK;
}

/// The parts of weight \p w kept by \p ctx, or null.
Tf32x3Weight *findWeight(sinter_rt_context *ctx, const float *w, int64_t n,
                         int64_t k, int64_t ld) {
  for (int i = 0; i < ctx->weightCount; ++i) {
    Tf32x3Weight &weight = ctx->weights[i];
    if (weight.w == w && weight.n == n && weight.k == k && weight.ld == ld)
      return &weight;
  }
  return nullptr;
}

/// Splits weight \p w into parts that \p ctx keeps (allocated on first use).
sinter_status prepareWeight(sinter_rt_context *ctx, const char *fn,
                            const float *w, int64_t n, int64_t k, int64_t ld) {
  Tf32x3Weight *weight = findWeight(ctx, w, n, k, ld);
  if (!weight) {
    if (ctx->weightCount == kTf32x3WeightCount)
      return fail(ctx, SINTER_ERROR_NOT_SUPPORTED,
                  "%s: the context already keeps the parts of %d weights", fn,
                  kTf32x3WeightCount);
    float *parts = nullptr;
    size_t bytes = sinter_rt_tf32x3_scratch_bytes(n, k);
    SINTER_RT_TRY(sinter_rt_check_cuda(ctx, cudaMalloc(&parts, bytes),
                                       "cudaMalloc of a weight's TF32 parts"));
    weight = &ctx->weights[ctx->weightCount++];
    *weight = {w, n, k, ld, parts};
  }
  return launchSplit(ctx, fn, Operand::W, n, k, w, ld, weight->parts,
                     weight->parts + n * splitLeadingDim(k));
}

} // namespace

sinter_status sinter::rt::runTf32x3(sinter_rt_context *ctx, int64_t M,
                                    int64_t N, int64_t K, float alpha,
                                    const float *X, int64_t ldx, const float *W,
                                    int64_t ldw, float beta, float *Y,
                                    int64_t ldy, sinter_epilogue epilogue,
                                    const float *bias, void *scratch) {
  const char *fn = "sinter_rt_gemm_tf32x3";
  if (!tf32x3Supported(ctx))
    return fail(ctx, SINTER_ERROR_NOT_SUPPORTED,
                "%s: the 3xTF32 GEMM needs an sm_90 device and a runtime "
                "built with sm_90a code",
                fn);
  // W's parts: those kept by the context, else split now into the context's
  // buffer (before X's parts when X has no scratch either).
  int64_t ldSplit = splitLeadingDim(K);
  const Tf32x3Weight *weight = findWeight(ctx, W, N, K, ldw);
  int64_t bufferRows = (weight ? 0 : N) + (scratch ? 0 : M);
  if (bufferRows > 0)
    SINTER_RT_TRY(reserveSplit(ctx, bufferRows, K));
  float *buffer = static_cast<float *>(ctx->splitBuffer);
  const float *wHi, *wLo;
  if (weight) {
    wHi = weight->parts;
    wLo = weight->parts + N * ldSplit;
  } else {
    float *hi = buffer, *lo = buffer + N * ldSplit;
    SINTER_RT_TRY(launchSplit(ctx, fn, Operand::W, N, K, W, ldw, hi, lo));
    wHi = hi;
    wLo = lo;
    buffer += 2 * N * ldSplit;
  }
  float *xHi = scratch ? static_cast<float *>(scratch) : buffer;
  float *xLo = xHi + M * ldSplit;
  SINTER_RT_TRY(launchSplit(ctx, fn, Operand::X, M, K, X, ldx, xHi, xLo));

  CUtensorMap maps[4];
  SINTER_RT_TRY(encodeOperand(ctx, &maps[0], xHi, M, K, ldSplit, kTileM));
  SINTER_RT_TRY(encodeOperand(ctx, &maps[1], xLo, M, K, ldSplit, kTileM));
  SINTER_RT_TRY(encodeOperand(ctx, &maps[2], wHi, N, K, ldSplit, kTileN));
  SINTER_RT_TRY(encodeOperand(ctx, &maps[3], wLo, N, K, ldSplit, kTileN));
  int64_t tiles = ((M + kTileM - 1) / kTileM) * ((N + kTileN - 1) / kTileN);
  Epilogue epi = {alpha, beta, epilogue, bias};
  gemmKernel<<<static_cast<unsigned>(tiles), kThreads, kSmemBytes,
               ctx->stream>>>(maps[0], maps[1], maps[2], maps[3],
                              static_cast<int>(M), static_cast<int>(N),
                              static_cast<int>(K), Y, ldy, epi);
  return sinter_rt_check_cuda(ctx, cudaGetLastError(), fn);
}

extern "C" {

const char *sinter_gemm_algorithm_name(sinter_gemm_algorithm algorithm) {
  switch (algorithm) {
  case SINTER_GEMM_ALGORITHM_SGEMM:
    return "sgemm";
  case SINTER_GEMM_ALGORITHM_TF32X3:
    return "3xtf32";
  }
  return "unknown";
}

int sinter_rt_tf32x3_supported(sinter_rt_context *ctx) {
  return ctx && tf32x3Supported(ctx);
}

sinter_gemm_algorithm sinter_rt_gemm_tf32x3_algorithm(sinter_rt_context *ctx,
                                                      int64_t M, int64_t N,
                                                      int64_t K) {
  if (!sinter_rt_tf32x3_supported(ctx) ||
      chooseAlgorithm(M, N, K, ctx->smCount) == Algorithm::Sgemm)
    return SINTER_GEMM_ALGORITHM_SGEMM;
  return SINTER_GEMM_ALGORITHM_TF32X3;
}

size_t sinter_rt_tf32x3_scratch_bytes(int64_t M, int64_t K) {
  if (M <= 0 || K <= 0)
    return 0;
  return 2 * static_cast<size_t>(M) * static_cast<size_t>(splitLeadingDim(K)) *
         sizeof(float);
}

sinter_status sinter_rt_tf32x3_prepare_weight(sinter_rt_context *ctx,
                                              const float *W, int64_t N,
                                              int64_t K, int64_t ldw) {
  const char *fn = "sinter_rt_tf32x3_prepare_weight";
  if (!ctx)
    return fail(nullptr, SINTER_ERROR_NULL_POINTER, "%s: ctx: null pointer",
                fn);
  SINTER_RT_TRY(checkDim(ctx, fn, "N", N, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "K", K, 1, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkDim(ctx, fn, "ldw", ldw, K, SINTER_RT_MAX_DIM));
  SINTER_RT_TRY(checkPointer(ctx, fn, "W", W, alignof(float)));
  if (!tf32x3Supported(ctx))
    return SINTER_OK;
  return prepareWeight(ctx, fn, W, N, K, ldw);
}

sinter_status sinter_rt_gemm_tf32x3(sinter_rt_context *ctx, int64_t M,
                                    int64_t N, int64_t K, float alpha,
                                    const float *X, int64_t ldx, const float *W,
                                    int64_t ldw, float beta, float *Y,
                                    int64_t ldy, sinter_epilogue epilogue,
                                    const float *bias, void *scratch) {
  const char *fn = "sinter_rt_gemm_tf32x3";
  SINTER_RT_TRY(checkGemmArgs(ctx, fn, SINTER_PRECISION_FP32, SINTER_OP_N,
                              SINTER_OP_T, M, N, K, X, ldx, W, ldw, Y, ldy));
  SINTER_RT_TRY(checkEnum(ctx, fn, "epilogue", epilogue,
                          SINTER_EPILOGUE_GELU_TANH_BIAS + 1,
                          "sinter_epilogue"));
  if (epilogue != SINTER_EPILOGUE_NONE)
    SINTER_RT_TRY(checkPointer(ctx, fn, "bias", bias, alignof(float)));
  if (scratch)
    SINTER_RT_TRY(
        checkPointer(ctx, fn, "scratch", scratch, SINTER_RT_VECTOR_ALIGNMENT));
  bool keepsWeight =
      findWeight(ctx, W, N, K, ldw) || ctx->weightCount < kTf32x3WeightCount;
  if (!keepsWeight || sinter_rt_gemm_tf32x3_algorithm(ctx, M, N, K) ==
                          SINTER_GEMM_ALGORITHM_SGEMM)
    return sinter_rt_gemm_epilogue(ctx, SINTER_PRECISION_FP32, SINTER_OP_N,
                                   SINTER_OP_T, M, N, K, alpha, X, ldx, W, ldw,
                                   beta, Y, ldy, epilogue, bias);
  return runTf32x3(ctx, M, N, K, alpha, X, ldx, W, ldw, beta, Y, ldy, epilogue,
                   bias, scratch);
}

} // extern "C"
