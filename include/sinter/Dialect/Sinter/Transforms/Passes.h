//===- Passes.h - Sinter transformation passes ------------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/Transforms/RewritePolicy.h"

namespace mlir::sinter {

#define GEN_PASS_DECL
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

/// The stages of the Sinter pipeline, in order.
enum class PipelineStage { Simplify, HoistParams, FormKernels };

/// Options of the whole Sinter pipeline (`sinter-pipeline{...}`).
struct SinterPipelineOptions
    : public PassPipelineOptions<SinterPipelineOptions> {
  PassOptions::Option<PipelineStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("The last stage to run"),
      llvm::cl::init(PipelineStage::FormKernels),
      llvm::cl::values(
          clEnumValN(PipelineStage::Simplify, "simplify",
                     "decompose and simplify"),
          clEnumValN(PipelineStage::HoistParams, "hoist-params",
                     "also move param-only computation to @prepare"),
          clEnumValN(PipelineStage::FormKernels, "form-kernels",
                     "also group the ops into kernels and plan "
                     "each (the default)"))};
  PassOptions::Option<FpMode> fpMode{
      *this, "fp-mode",
      llvm::cl::desc("Which rewrites may change floating-point results"),
      llvm::cl::init(FpMode::Fast),
      llvm::cl::values(
          clEnumValN(FpMode::Strict, "strict",
                     "value-preserving rewrites only"),
          clEnumValN(FpMode::Fast, "fast",
                     "also reassociate and assume finite values"))};
};

/// Adds the whole Sinter optimization pipeline (DESIGN.md, "Pipeline") to
/// `pm`, which runs on the module.
void buildSinterPipeline(
    OpPassManager &pm,
    const SinterPipelineOptions &options = SinterPipelineOptions());

/// Registers `buildSinterPipeline` as the pass pipeline `sinter-pipeline`.
void registerSinterPipeline();

#define GEN_PASS_REGISTRATION
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
