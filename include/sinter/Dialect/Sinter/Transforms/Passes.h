//===- Passes.h - Sinter transformation passes ------------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

#define GEN_PASS_DECL
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

/// Adds the whole Sinter optimization pipeline (DESIGN.md, "Pipeline") to
/// `pm`, which runs on the module.
void buildSinterPipeline(OpPassManager &pm);

/// Registers `buildSinterPipeline` as the pass pipeline `sinter-pipeline`.
void registerSinterPipeline();

#define GEN_PASS_REGISTRATION
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_H
