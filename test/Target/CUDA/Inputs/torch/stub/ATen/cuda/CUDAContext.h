// Stand-in for <ATen/cuda/CUDAContext.h> (see ../../README.md).
#pragma once

#include <cuda_runtime_api.h>
#include <torch/extension.h>

namespace c10::cuda {
class CUDAStream {
public:
  cudaStream_t stream() const;
};
DeviceIndex current_device();
} // namespace c10::cuda

namespace at::cuda {
c10::cuda::CUDAStream getCurrentCUDAStream(c10::DeviceIndex device = -1);
} // namespace at::cuda
