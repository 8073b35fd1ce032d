//===- FusionPolicy.h - Which ops share a kernel ----------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The decision half of sinter-form-kernels: which top-level ops of a function
// are computed by the same kernel. FormKernels.cpp then forms the kernels
// without deciding anything.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPOLICY_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPOLICY_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

class CostModel;

/// One fusion group: what one sinter.kernel computes.
struct FusionGroup {
  KernelKind kind = KernelKind::pointwise;
  /// The ops the kernel computes, in program order: its own ops, and cheap
  /// ops of other groups that it recomputes rather than reading their
  /// results from HBM.
  SmallVector<Operation *> ops;
  /// The values of `ops` that other kernels read or the function returns.
  SmallVector<Value> outputs;
  /// An existing sinter.kernel (the only op), kept as it is.
  bool existing = false;
};

/// How decideFusion reports on its decisions.
struct FusionOptions {
  /// Emit a remark at each op a kernel could not take, with the reason:
  /// "cannot fuse add with sum: broadcasts across rows".
  bool remarks = false;
};

/// Decides the fusion groups of the top-level ops of `block`, the body of a
/// function: every op except constants and the terminator belongs to exactly
/// one group (and may also be recomputed by others). Groups come in an order
/// where each follows those it reads from. Fails with an error at the
/// offending op if `block` holds an op that no kernel can compute, such as a
/// softmax that sinter-decompose has not rewritten.
FailureOr<SmallVector<FusionGroup>>
decideFusion(Block &block, const CostModel &costs,
             const FusionOptions &options = {});

} // namespace mlir::sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPOLICY_H
