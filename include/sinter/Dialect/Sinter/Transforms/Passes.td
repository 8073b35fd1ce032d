//===- Passes.td - Sinter transformation passes ------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The passes of the Sinter pipeline (see DESIGN.md, "Pipeline"). Each one is
// declared here, defined in its own file of lib/Dialect/Sinter/Transforms,
// and runs alone in sinter-opt.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
