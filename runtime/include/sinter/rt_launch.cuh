//===- sinter/rt_launch.cuh - Programmatic dependent launch -----*- CUDA
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// How generated code launches its kernels: with programmatic dependent
// launch (Hopper, sm_90). A kernel of a model lets the next kernel of its
// stream launch as soon as each of its blocks has started, so that the
// next grid's blocks are resident when it ends, and waits itself at its
// start until the grids before it have finished and their writes are
// visible. The launch latency between dependent kernels (the fold after a
// split reduction's partials, the apply after the statistics) overlaps the
// last wave of the kernel before: 1-3% of a 256 MiB split reduction on the
// H100 (var over the rows of [16384, 4096]: 0.1061 -> 0.1029 ms).
//
// Kernels launched otherwise (cuBLAS, the runtime's GEMM) never trigger
// early: a kernel of a model after one of them starts when it ends, as in
// plain stream order.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_LAUNCH_CUH
#define SINTER_RT_LAUNCH_CUH

#ifndef __CUDACC__
#error "sinter/rt_launch.cuh holds device code: compile it with nvcc"
#endif

#include <algorithm>
#include <cuda_runtime.h>
#include <utility>

namespace sinter {

namespace dev {

/// The first statement of every generated kernel: waits until the grids
/// before this one in the stream have finished and their writes are
/// visible (griddepcontrol.wait), then lets the next grid launch
/// (griddepcontrol.launch_dependents; it does once every block of this grid
/// has called it or exited). Nothing before sm_90.
__device__ __forceinline__ void beginDependentGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

} // namespace dev

/// Launches \p kernel over \p grid blocks of \p block threads with
/// \p sharedBytes of dynamic shared memory on \p stream, allowing it to
/// launch before the kernel ahead of it ends (the kernel must begin with
/// dev::beginDependentGrid). The arguments convert to the kernel's
/// parameter types. As with <<<...>>>, an error reaches cudaGetLastError.
template <typename... Parameters, typename... Arguments>
void launchDependent(void (*kernel)(Parameters...), dim3 grid, dim3 block,
                     size_t sharedBytes, cudaStream_t stream,
                     Arguments &&...arguments) {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  // cudaGetLastError reports a failure, as after <<<...>>>.
  (void)cudaLaunchKernelEx(&config, kernel,
                           std::forward<Arguments>(arguments)...);
}

/// launchDependent for a kernel whose blocks form clusters of \p cluster
/// consecutive blocks along x (\p grid.x a multiple of it).
template <typename... Parameters, typename... Arguments>
void launchClustered(void (*kernel)(Parameters...), dim3 grid, dim3 block,
                     size_t sharedBytes, cudaStream_t stream, unsigned cluster,
                     Arguments &&...arguments) {
  cudaLaunchAttribute attributes[2] = {};
  attributes[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[0].val.programmaticStreamSerializationAllowed = 1;
  attributes[1].id = cudaLaunchAttributeClusterDimension;
  attributes[1].val.clusterDim.x = cluster;
  attributes[1].val.clusterDim.y = 1;
  attributes[1].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = 2;
  (void)cudaLaunchKernelEx(&config, kernel,
                           std::forward<Arguments>(arguments)...);
}

/// The blocks of \p threads threads with \p sharedBytes bytes of dynamic
/// shared memory running \p kernel that the current device holds at once,
/// at most \p mostPerProcessor a multiprocessor, in \p blocks: the size of
/// a persistent grid (a streamed row kernel's).
template <typename... Parameters>
cudaError_t getResidentBlocks(void (*kernel)(Parameters...), int threads,
                              size_t sharedBytes, int mostPerProcessor,
                              int *blocks) {
  int device = 0, processors = 0, perProcessor = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount,
                                   device);
  if (error == cudaSuccess)
    error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perProcessor, kernel,
                                                          threads, sharedBytes);
  *blocks = processors * std::min(perProcessor, mostPerProcessor);
  return error;
}

} // namespace sinter

#endif // SINTER_RT_LAUNCH_CUH
