//===- sinter-opt.cpp - Sinter optimizer driver ---------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for the sinter dialect: parses .mlir, runs the requested passes
// (Sinter's and MLIR's generic ones such as -canonicalize and -cse) and
// prints the result. Used by the lit tests of every pass.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

namespace mlir::sinter::test {
void registerTestOpCoveragePass();
void registerTestSymbolicShapesPass();
} // namespace mlir::sinter::test

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::sinter::test::registerTestOpCoveragePass();
  mlir::sinter::test::registerTestSymbolicShapesPass();
  mlir::sinter::registerSinterPasses();
  mlir::sinter::registerSinterPipeline();

  mlir::DialectRegistry registry;
  registry.insert<mlir::sinter::SinterDialect, mlir::func::FuncDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Sinter optimizer driver\n", registry));
}
