//===- FusionPlan.h - The fusion plan of a module with kernels --*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Describes the sinter.kernel ops of a module after sinter-form-kernels: what
// each kernel computes, reads and writes, and what that costs. sinterc prints
// it for --print-fusion-plan, sinter-opt for -sinter-print-fusion-plan, and
// the CUDA emitter may quote it in the header of the generated source.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONPLAN_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONPLAN_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::sinter {

/// One row of the fusion plan: one sinter.kernel of a function.
struct KernelSummary {
  /// `k<i>`, numbered in program order within the function.
  std::string name;
  KernelKind kind = KernelKind::pointwise;
  /// The ops of the kernel body in order, without the `sinter.` prefix.
  SmallVector<std::string> ops;
  /// What the kernel reads and writes: an argument's sinter.name (or
  /// `arg<i>`), a returned value's result name (or `out<i>`), or `k<i>#<j>`
  /// for result j of kernel k<i>.
  SmallVector<std::string> inputs;
  SmallVector<std::string> outputs;
  /// The plan's strategy (`block_per_row`, `split_reduction`,
  /// `library_gemm+generated` ...), `-` for a kernel without a plan.
  std::string strategy = "-";
  /// The launches the plan makes (0 without a plan).
  int64_t launches = 0;
  /// HBM bytes moved: every input read as many times as the plan's passes
  /// (once without a plan), every output written once.
  int64_t bytes = 0;
  /// FLOPs, counted as CostModel::getFlops does.
  int64_t flops = 0;
  /// Gemm kernels: the GEMM algorithm chosen by sinter-select-gemm
  /// (SelectGemm.h), or "" for the library GEMM at the emitter's precision.
  std::string gemmAlgorithm;
};

/// Describes the kernels of `func` in program order, with symbolic dims at
/// their sinter.dims defaults.
SmallVector<KernelSummary, 4> summarizeKernels(func::FuncOp func);

/// Prints, for every function of `module` that has kernels (@forward first,
/// then @prepare, then any other), a table of its kernels: name, kind,
/// strategy, launches, bytes, FLOPs, inputs, outputs and ops, with a header
/// that states the dim values the estimates assume, a line per kernel whose
/// GEMM algorithm sinter-select-gemm chose, and a line counting any op left
/// outside kernels.
void printFusionPlan(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_FUSIONPLAN_H
