//===- rt_cluster.cuh - Rows shared by a thread block cluster --*- CUDA -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What a row kernel whose rows a cluster of blocks shares uses (the plan's
// `cluster`): each block holds a slice of the row in its shared memory, and
// the blocks combine their results through distributed shared memory.
// rt_device.cuh includes this file after blockReduce.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_CLUSTER_CUH
#define SINTER_RT_CLUSTER_CUH

#include <cooperative_groups.h>

namespace sinter {
namespace dev {

/// The shared memory through which the blocks of a cluster exchange their
/// results (clusterReduce): two slots, which consecutive reductions use in
/// turn, so that one cluster barrier a reduction keeps a block from
/// overwriting a slot that another block still reads.
struct ClusterExchange {
  double *slots; // a __shared__ double[2] of this block
  int next = 0;
};

/// Reduces \p value over the kCluster blocks of kThreads threads of this
/// block's cluster (a 1-D cluster of a 1-D grid), all of whose threads must
/// call it with the same \p exchange, and returns the result to every
/// thread: each block reduces its values (blockReduce), then every thread
/// combines the blocks' results in rank order, read from their shared
/// memory, so that every block of the cluster gets the same value
/// (deterministic). One cluster barrier; the kernel ends with clusterSync,
/// so that no block exits while another reads its slots. \p T is float or
/// double (a slot holds either exactly).
template <int kThreads, int kCluster, typename Op, typename T>
__device__ __forceinline__ T clusterReduce(T value, ClusterExchange &exchange,
                                           Op op = Op()) {
  static_assert(kCluster >= 2 && kCluster <= 8,
                "clusterReduce needs a portable cluster of 2 to 8 blocks");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const T own = blockReduce<kThreads, Op>(value, op);
  double *const slot = exchange.slots + exchange.next;
  exchange.next ^= 1;
  if (threadIdx.x == 0)
    *slot = own;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  T total = static_cast<T>(*cluster.map_shared_rank(slot, 0));
#pragma unroll
  for (int rank = 1; rank < kCluster; ++rank)
    total = op(total, static_cast<T>(*cluster.map_shared_rank(slot, rank)));
  return total;
#else
  (void)value;
  (void)exchange;
  (void)op;
  __trap();
  return Op::identity();
#endif
}

/// Waits for every block of this block's cluster: the end of a kernel that
/// calls clusterReduce.
__device__ __forceinline__ void clusterSync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cooperative_groups::this_cluster().sync();
#else
  __trap();
#endif
}

} // namespace dev
} // namespace sinter

#endif // SINTER_RT_CLUSTER_CUH
