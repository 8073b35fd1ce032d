//===- Occupancy.h - Launch bounds of planned kernels -----------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The occupancy decisions of `sinter-plan-kernels`: how many blocks per
// multiprocessor a kernel's `__launch_bounds__` ask for (the plan's
// `min_blocks` and `apply_min_blocks`), which caps the registers a thread
// may use. Each was measured on the H100; the CUDA emitter prints the plan's
// values and calls these only for the epilogue of a GEMM, which has no plan
// of its own.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_OCCUPANCY_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_OCCUPANCY_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

/// The blocks of 256 threads that each partial kernel of a split reduction
/// asks to keep on a multiprocessor.
int64_t getSplitMinBlocks();

/// The blocks of 256 threads that the apply step of a split reduction asks
/// to keep on a multiprocessor, given the statistics it reads (the results
/// of the kernel's reductions); 0 for no minimum.
int64_t getApplyMinBlocks(ArrayRef<Value> statistics);

/// The rows each thread of the float4 path of a split reduction's apply step
/// walks at one group of four columns, given the statistics it reads and
/// its `params`: the inputs it reads that are broadcast along the rows and
/// vary along the innermost dim (layer_norm's weight), which count when
/// they are too large for L2 to keep; 1 walks the groups in order.
int64_t getApplyRowsPerThread(ArrayRef<Value> statistics,
                              ArrayRef<Value> params = {});

/// The blocks per multiprocessor that a row kernel asks for, given its team
/// of `block` threads, its static row `length`, the operands it caches
/// (indices), and whether it holds them in registers; 0 for no minimum.
int64_t getRowMinBlocks(KernelOp kernel, int64_t block, int64_t length,
                        ArrayRef<int64_t> cached, bool registers);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_OCCUPANCY_H
