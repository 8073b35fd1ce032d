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

/// Options of the whole Sinter pipeline (`sinter-pipeline{...}`).
struct SinterPipelineOptions
    : public PassPipelineOptions<SinterPipelineOptions> {
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
