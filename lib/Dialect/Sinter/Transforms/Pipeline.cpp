//===- Pipeline.cpp - The Sinter optimization pipeline --------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::sinter::buildSinterPipeline(OpPassManager &pm,
                                       const SinterPipelineOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createSinterDecompose());
  SinterSimplifyOptions simplifyOptions;
  simplifyOptions.fpMode = options.fpMode;
  funcPm.addPass(createSinterSimplify(simplifyOptions));

  // Parameter hoisting, then kernel formation.
  if (options.stopAfter == PipelineStage::Simplify)
    return;
  pm.addPass(createSinterHoistParams());
  if (options.stopAfter == PipelineStage::HoistParams)
    return;
  SinterStageReductionsOptions stageOptions;
  stageOptions.fpMode = options.fpMode;
  pm.addNestedPass<func::FuncOp>(createSinterStageReductions(stageOptions));
  pm.addPass(createSinterFormKernels());
  pm.addPass(createSinterPlanKernels());
}

void mlir::sinter::registerSinterPipeline() {
  PassPipelineRegistration<SinterPipelineOptions>(
      "sinter-pipeline",
      "The Sinter optimization pipeline, from parsed model to fusion plan",
      buildSinterPipeline);
}
