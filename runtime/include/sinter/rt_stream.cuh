//===- rt_stream.cuh - Rows streamed through L2 in slices -------*- CUDA
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What a row kernel whose rows are streamed in slices uses (the plan's
// `row_slices`): a persistent grid whose blocks draw items from a queue.
// An item is a slice's statistics (the first pass: the block stores the
// slice's partial results) or a slice's outputs (the second pass: the block
// waits until every slice of the row has stored its partials, folds them in
// slice order, and writes the slice's outputs). The second pass of a slice
// trails its first by a bounded lag of items, so that the slice is read
// again from L2: the first pass reads it with an evict-last L2 policy, the
// second with evict-first, and the outputs are streaming stores. HBM is
// read once for rows far too long for shared memory. rt_device.cuh
// includes this file.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_STREAM_CUH
#define SINTER_RT_STREAM_CUH

#include <cstdint>
#include <cuda/atomic>

namespace sinter {
namespace dev {

/// An item of a streamed row kernel's queue.
struct StreamItem {
  int64_t slice; // row * slices + the slice's index in its row
  bool second;   // its outputs (else its statistics)
  bool done;     // no item left
};

/// Draws this block's next item from the queue of 2 * \p items items (every
/// thread calls it; thread 0 draws). The items interleave the two passes:
/// the statistics of slices 0 to lag - 1, then those of slice lag + i and
/// the outputs of slice i in turn, then the remaining outputs. With \p lag at
/// least the slices of a row (and at most \p items), the statistics of every
/// slice of a row are drawn before the outputs of any of its slices, so that
/// a block waits only on blocks that run (no deadlock, without a
/// cooperative launch).
__device__ __forceinline__ StreamItem nextStreamItem(unsigned long long *queue,
                                                     int64_t items,
                                                     int64_t lag) {
  __shared__ unsigned long long drawn;
  __syncthreads(); // every thread has read the last item
  if (threadIdx.x == 0)
    drawn = atomicAdd(queue, 1ull);
  __syncthreads();
  const int64_t t = static_cast<int64_t>(drawn);
  StreamItem item;
  item.done = t >= 2 * items;
  if (t < lag) {
    item.second = false;
    item.slice = t;
  } else if (t < 2 * items - lag) {
    const int64_t u = t - lag;
    item.second = (u & 1) != 0;
    item.slice = item.second ? u / 2 : lag + u / 2;
  } else {
    item.second = true;
    item.slice = t - items;
  }
  return item;
}

/// Counts this block's slice of a row as having stored its partials, once
/// thread 0 has stored them (release: they are visible to whoever sees the
/// count).
__device__ __forceinline__ void arriveSlice(unsigned *arrived) {
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*arrived);
    count.fetch_add(1u, cuda::memory_order_release);
  }
}

/// Waits until the \p slices slices of a row have stored their partials
/// (acquire), before any thread of the block reads them (with __ldcg).
__device__ __forceinline__ void awaitSlices(unsigned *arrived,
                                            unsigned slices) {
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*arrived);
    while (count.load(cuda::memory_order_acquire) < slices) {
    }
  }
  __syncthreads();
}

/// An L2 cache policy that keeps lines (evict-last) or lets them go first
/// (evict-first), for loadWithPolicy.
__device__ __forceinline__ uint64_t evictLastPolicy() {
  uint64_t policy = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}
__device__ __forceinline__ uint64_t evictFirstPolicy() {
  uint64_t policy = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}

/// *\p address, read under the L2 cache \p policy.
__device__ __forceinline__ float loadWithPolicy(const float *address,
                                                uint64_t policy) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float value;
  asm("ld.global.L2::cache_hint.f32 %0, [%1], %2;"
      : "=f"(value)
      : "l"(address), "l"(policy));
  return value;
#else
  (void)policy;
  return *address;
#endif
}

/// The four floats at \p address (16-byte aligned), read under the L2 cache
/// \p policy.
__device__ __forceinline__ float4 loadFloat4WithPolicy(const float *address,
                                                       uint64_t policy) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float4 value;
  asm("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
      : "=f"(value.x), "=f"(value.y), "=f"(value.z), "=f"(value.w)
      : "l"(address), "l"(policy));
  return value;
#else
  (void)policy;
  return *reinterpret_cast<const float4 *>(address);
#endif
}

/// Stores \p value at \p address (16-byte aligned) past L2's kept lines
/// (a streaming store, evict-first).
__device__ __forceinline__ void storeFloat4Streaming(float *address,
                                                     float4 value) {
  __stcs(reinterpret_cast<float4 *>(address), value);
}

} // namespace dev
} // namespace sinter

#endif // SINTER_RT_STREAM_CUH
