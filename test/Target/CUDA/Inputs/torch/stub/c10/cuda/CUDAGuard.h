// Stand-in for <c10/cuda/CUDAGuard.h> (see ../../README.md).
#pragma once

#include <torch/extension.h>

namespace c10::cuda {
class CUDAGuard {
public:
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard &) = delete;
  CUDAGuard &operator=(const CUDAGuard &) = delete;
  ~CUDAGuard();
};
} // namespace c10::cuda
