//===- sinter-translate.cpp - Sinter translation driver -------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// mlir-translate for the sinter dialect (MLIR's standalone-translate):
// `--sinter-to-cuda` writes the CUDA source and C header of a fused module.
// With the standard flags (`--split-input-file`, `--verify-diagnostics`) it
// runs the emitter's lit tests one case per split, e.g.
//
//   sinter-opt --split-input-file --sinter-plan-kernels %s |
//     sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::sinter::registerToCUDATranslation("sinter-translate " SINTER_VERSION);
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Sinter translation driver\n"));
}
