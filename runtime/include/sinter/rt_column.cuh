//===- rt_column.cuh - Split column reductions -----------------*- CUDA -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the partial and final kernels of a split reduction (sinterc's column
// kernels) use beside rt_device.cuh's combiners; rt_device.cuh includes this
// file after its Welford states.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_COLUMN_CUH
#define SINTER_RT_COLUMN_CUH

namespace sinter {
namespace dev {

/// welfordCombine with the weight of \p b, b.count / count, from the fast
/// division on the device (__fdividef: within 2 ulp for counts below
/// 2^126), where the IEEE division's slow path kept a partial kernel of
/// Welford states at 77 registers and 0.88x of torch.compile on the H100
/// (var over the first dim of [4194304, 16]; 7% faster with it). The weight
/// only scales the correction delta * weight, so its error is far below the
/// rounding of the mean and M2 themselves.
SINTER_RT_HOST_DEVICE Welford welfordCombineFast(Welford a, Welford b) {
  float count = a.count + b.count;
  if (count == 0.f)
    return welfordEmpty();
#ifdef __CUDA_ARCH__
  float weightB = __fdividef(b.count, count);
#else
  float weightB = b.count / count;
#endif
  return welfordCombineWeighted(a, b, count, weightB);
}

/// A Welford state in double: the final kernels fold the partials' float
/// states in it and round the mean and M2 once.
struct WelfordDouble {
  double mean;
  double m2;
  double count;
};

/// \p state in double (exactly).
SINTER_RT_HOST_DEVICE WelfordDouble widen(Welford state) {
  return {state.mean, state.m2, state.count};
}

/// \p state rounded to float.
SINTER_RT_HOST_DEVICE Welford narrow(WelfordDouble state) {
  return {static_cast<float>(state.mean), static_cast<float>(state.m2),
          static_cast<float>(state.count)};
}

/// welfordCombine in double.
struct WelfordDoubleOp {
  SINTER_RT_HOST_DEVICE WelfordDouble operator()(WelfordDouble a,
                                                 WelfordDouble b) const {
    double count = a.count + b.count;
    if (count == 0.0)
      return identity();
    return welfordCombineWeighted(a, b, count, b.count / count);
  }
  SINTER_RT_HOST_DEVICE static WelfordDouble identity() {
    return {0.0, 0.0, 0.0};
  }
};

/// Warp shuffles of a WelfordDouble (blockReduce of a final kernel).
__device__ __forceinline__ WelfordDouble
shuffleDown(WelfordDouble v, int delta, unsigned mask = kFullWarpMask,
            int width = kWarpSize) {
  return {__shfl_down_sync(mask, v.mean, delta, width),
          __shfl_down_sync(mask, v.m2, delta, width),
          __shfl_down_sync(mask, v.count, delta, width)};
}
__device__ __forceinline__ WelfordDouble shuffle(WelfordDouble v, int lane,
                                                 unsigned mask = kFullWarpMask,
                                                 int width = kWarpSize) {
  return {__shfl_sync(mask, v.mean, lane, width),
          __shfl_sync(mask, v.m2, lane, width),
          __shfl_sync(mask, v.count, lane, width)};
}

/// The Welford combination of the split reductions (see welfordCombineFast).
struct ColumnWelfordOp {
  SINTER_RT_HOST_DEVICE Welford operator()(Welford a, Welford b) const {
    return welfordCombineFast(a, b);
  }
  SINTER_RT_HOST_DEVICE static Welford identity() { return welfordEmpty(); }
};

/// An online softmax state of a split reduction: the max, and the sum of
/// exp(value - max) in double, which the tree over a partial kernel's
/// threads and the fold of the partials add and rescale
/// (onlineSoftmaxRescale) in double, rounded to float once when it is
/// stored, as a split sum's partials are.
struct OnlineSoftmaxDouble {
  float max;
  double sum;
};

/// The combination of online softmax states of a split reduction.
struct OnlineSoftmaxDoubleOp {
  SINTER_RT_HOST_DEVICE OnlineSoftmaxDouble
  operator()(OnlineSoftmaxDouble a, OnlineSoftmaxDouble b) const {
    float max = maximum(a.max, b.max);
    return {max, onlineSoftmaxRescale(a.sum, a.max, max) +
                     onlineSoftmaxRescale(b.sum, b.max, max)};
  }
  SINTER_RT_HOST_DEVICE static OnlineSoftmaxDouble identity() {
    return {-INFINITY, 0.0};
  }
};

/// Warp shuffles of an OnlineSoftmaxDouble (blockReduce of a partial or
/// final kernel).
__device__ __forceinline__ OnlineSoftmaxDouble
shuffleDown(OnlineSoftmaxDouble v, int delta, unsigned mask = kFullWarpMask,
            int width = kWarpSize) {
  return {__shfl_down_sync(mask, v.max, delta, width),
          __shfl_down_sync(mask, v.sum, delta, width)};
}
__device__ __forceinline__ OnlineSoftmaxDouble
shuffle(OnlineSoftmaxDouble v, int lane, unsigned mask = kFullWarpMask,
        int width = kWarpSize) {
  return {__shfl_sync(mask, v.max, lane, width),
          __shfl_sync(mask, v.sum, lane, width)};
}

/// The sum of exp(value - \p max) over \p values[0] .. values[kCount - 1]
/// (a fixed tree), \p max at least each of them: onlineSoftmaxScale of
/// each, with its -inf case decided once for the group. Where \p max is
/// -inf every value is, and each of the first \p count counts 1; else a
/// value of -inf adds exp(-inf) = 0, as the values beyond \p count (-inf)
/// do. No branch: the sum of NaNs where \p max is -inf is not used.
template <int kCount>
SINTER_RT_HOST_DEVICE float onlineSoftmaxScaleSum(const float *values,
                                                  float max, int count) {
  float exps[kCount];
  SINTER_RT_UNROLL
  for (int i = 0; i < kCount; ++i)
    exps[i] = expf(values[i] - max);
  const float sum = treeCombine<SumOp, kCount>(exps);
  return max == -INFINITY ? static_cast<float>(count) : sum;
}

/// A partial kernel thread's online softmax state for one of its columns,
/// or for its part of a row split over a block (chunks of 4, 8 or 16
/// values): each chunk rescales the sum only where it raises the max (in
/// double), then adds the exp of each value against that max. A state per
/// chunk, combined, took a double exp per chunk: a softmax over the
/// columns of [16384, 4096] ran at 0.52 of copy on the H100 (0.59 so), a
/// logsumexp over [64, 1048576] at 0.86 (0.88 so).
struct OnlineSoftmaxAccumulator {
  OnlineSoftmaxDouble state = OnlineSoftmaxDoubleOp::identity();

  /// Adds \p values[0] .. values[count - 1] (1 <= count <= kCount; the
  /// values beyond are -inf): their max as a fixed tree, then their exps
  /// against the new max as one, in float.
  template <int kCount>
  SINTER_RT_HOST_DEVICE void pushChunk(const float *values, int count) {
    const float max = maximum(state.max, treeCombine<MaxOp, kCount>(values));
    state = {max, onlineSoftmaxRescale(state.sum, state.max, max) +
                      static_cast<double>(
                          onlineSoftmaxScaleSum<kCount>(values, max, count))};
  }

  /// The state of every value pushed (the identity of none).
  SINTER_RT_HOST_DEVICE OnlineSoftmaxDouble result() const { return state; }
};

/// The interface of Accumulator without its blocked runs, for the combiners
/// whose result does not depend on the order (max, min, argmax, argmin):
/// one state in registers rather than two and a counter.
template <typename Op, typename T> struct ExactAccumulator {
  T total = Op::identity();

  /// Adds \p value after the values pushed so far.
  SINTER_RT_HOST_DEVICE void push(T value, Op op = Op()) {
    total = op(total, value);
  }

  /// The combination of every value pushed (the identity of none).
  SINTER_RT_HOST_DEVICE T result(Op = Op()) const { return total; }
};

/// ArgExtremeOp for operands in index order (the index of \p a below that
/// of \p b, or \p b the identity): the first NaN, else the extreme that
/// \p Better prefers, \p a on ties, without comparing the indices. The
/// fixed tree over a partial kernel's chunk, whose slots hold increasing
/// indices with the identity after them, combines with it.
template <typename Better> struct ArgExtremeInOrderOp {
  SINTER_RT_HOST_DEVICE ArgValue operator()(ArgValue a, ArgValue b) const {
    bool aNan = a.value != a.value, bNan = b.value != b.value;
    return aNan || (!bNan && !Better()(b.value, a.value)) ? a : b;
  }
  SINTER_RT_HOST_DEVICE static ArgValue identity() {
    return ArgExtremeOp<Better>::identity();
  }
};
using ArgMaxInOrderOp = ArgExtremeInOrderOp<GreaterThan>;
using ArgMinInOrderOp = ArgExtremeInOrderOp<LessThan>;

/// The argmax (\p Better GreaterThan) or argmin (LessThan) of a partial
/// kernel's chunk of \p kCount values, slot i holding the element of index
/// \p first + (i / kRun) * \p stride + i % kRun (the slots past the rows
/// hold the identity's value and follow the others): a fixed tree in
/// order. The chunk keeps a register a slot where (value, index) pairs
/// took three (77 registers a thread for an argmax over a middle dim).
template <typename Better, int kCount, int kRun>
SINTER_RT_HOST_DEVICE ArgValue argTreeCombine(const float *values,
                                              int64_t first, int64_t stride) {
  ArgValue leaves[kCount];
  SINTER_RT_UNROLL
  for (int i = 0; i < kCount; ++i)
    leaves[i] = {values[i], first + (i / kRun) * stride + i % kRun};
  return treeCombine<ArgExtremeInOrderOp<Better>, kCount>(leaves);
}

/// Reduces \p value over the lanes of the calling warp that share a channel
/// (lane % kChannels), among its first kWarpSize / kChannels * kChannels
/// lanes (the values of the lanes past them are not read); all 32 lanes
/// call it, and lane c < kChannels receives channel c's result (a warp-run
/// kernel: lane l reads channel l % kChannels of [A, R, C]). The order is
/// fixed: a pairwise tree (lane i combines with lane i + 16, then i + 8,
/// ..., down to kChannels; the lower lane is always the left operand) where
/// kChannels is a power of two, else lane c combines lanes c, c +
/// kChannels, ... in order.
template <int kChannels, typename Op, typename T>
__device__ __forceinline__ T warpReduceChannels(T value, Op op = Op()) {
  static_assert(kChannels >= 1 && kChannels <= kWarpSize,
                "a warp's channels are 1 to 32 lanes apart");
  if constexpr ((kChannels & (kChannels - 1)) == 0) {
    SINTER_RT_UNROLL
    for (int delta = kWarpSize / 2; delta >= kChannels; delta /= 2)
      value = op(value, shuffleDown(value, delta));
    return value;
  } else {
    constexpr int kGroups = kWarpSize / kChannels;
    const int channel = threadIdx.x % kWarpSize % kChannels;
    T total = shuffle(value, channel);
    SINTER_RT_UNROLL
    for (int group = 1; group < kGroups; ++group)
      total = op(total, shuffle(value, channel + group * kChannels));
    return total;
  }
}

//===----------------------------------------------------------------------===//
// The fold in the partial kernel (a plan with last_block_folds)
//===----------------------------------------------------------------------===//

/// Sum in double: the fold of a sum's partials (and the tree over a
/// partial kernel's threads), rounded to float once at the end.
struct SumDoubleOp {
  SINTER_RT_HOST_DEVICE double operator()(double a, double b) const {
    return a + b;
  }
  SINTER_RT_HOST_DEVICE static double identity() { return 0.0; }
};

/// *\p ptr read from L2 (ld.global.cg, 4 bytes at a time), never from this
/// multiprocessor's L1: the partials other blocks of the same launch wrote.
template <typename T> __device__ __forceinline__ T loadFromL2(const T *ptr) {
  static_assert(sizeof(T) % 4 == 0 && alignof(T) >= 4,
                "loadFromL2 reads whole 4-byte words");
  constexpr int kWords = sizeof(T) / 4;
  union {
    unsigned words[kWords];
    T value;
  } loaded;
  const unsigned *words = reinterpret_cast<const unsigned *>(ptr);
  SINTER_RT_UNROLL
  for (int i = 0; i < kWords; ++i)
    loaded.words[i] = __ldcg(words + i);
  return loaded.value;
}

/// Copies *\p global into *\p shared without passing through registers
/// (cp.async, 4 bytes, cached in L1 as a load would be): a strip staged in
/// shared memory has every one of its thread's loads in flight at once.
/// The copy lands by waitAsyncCopies (copyAsync16: 16 bytes).
__device__ __forceinline__ void copyAsync(float *shared, const float *global) {
  const unsigned address =
      static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(address),
               "l"(global)
               : "memory");
}

/// Copies the 16 bytes at \p global into \p shared (both 16-byte
/// aligned) as copyAsync does, through L2 only (cp.async.cg).
__device__ __forceinline__ void copyAsync16(float *shared,
                                            const float *global) {
  const unsigned address =
      static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address),
               "l"(global)
               : "memory");
}

/// Waits for every copyAsync of this thread: its own copies are then
/// visible to it (to other threads after a barrier).
__device__ __forceinline__ void waitAsyncCopies() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

/// Whether this block is the last of the gridDim.y blocks of its column
/// group (blockIdx.x) to finish: every thread calls it after storing its
/// partials. The last one resets the group's ticket to 0 for the next
/// launch (the tickets start at 0: the model zeroes them at creation) and,
/// after the fence, sees every other block's partials. Without float
/// atomics: only the order of arrival is counted, and the fold that
/// follows reads the partials in slice order whichever block runs it.
__device__ __forceinline__ bool arrivesLast(unsigned *tickets) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last =
        gridDim.y == 1 || atomicAdd(tickets + blockIdx.x, 1u) == gridDim.y - 1;
    if (last && gridDim.y > 1)
      tickets[blockIdx.x] = 0;
  }
  __syncthreads();
  if (last)
    __threadfence();
  return last;
}

/// Folds the lanes of a block of \p kThreads threads that covers
/// \p kColumns columns (thread t: column t % kColumns, lane t / kColumns)
/// over \p slices slices, lane k having folded slices k, k + lanes, ...:
/// as a fixed tree over the lanes. Every thread calls it, and threads
/// t < kColumns receive their column's result. One slice needs no tree,
/// and for one column, up to 32 slices are all in the first warp.
template <int kThreads, int kColumns, typename Op, typename T>
__device__ __forceinline__ T foldLanes(T value, int64_t slices, Op op = Op()) {
  static_assert(kThreads % kColumns == 0, "whole lanes of columns");
  if constexpr (kColumns == kThreads) {
    return value;
  } else {
    if (slices == 1)
      return value;
    if constexpr (kColumns == 1) {
      if (slices <= kWarpSize)
        return warpReduce<Op>(value, op);
      return blockReduce<kThreads, Op>(value, op);
    } else {
      __shared__ T lanes[kThreads];
      lanes[threadIdx.x] = value;
      __syncthreads();
      const int lane = threadIdx.x / kColumns;
      SINTER_RT_UNROLL
      for (int half = kThreads / kColumns / 2; half >= 1; half /= 2) {
        if (lane < half)
          lanes[threadIdx.x] =
              op(lanes[threadIdx.x], lanes[threadIdx.x + half * kColumns]);
        __syncthreads();
      }
      return lanes[threadIdx.x % kColumns];
    }
  }
}

} // namespace dev
} // namespace sinter

#endif // SINTER_RT_COLUMN_CUH
