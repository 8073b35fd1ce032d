//===- TranslateRegistration.cpp - The sinter-to-cuda translation ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Registers `--sinter-to-cuda` with mlir-translate's registry, as MLIR's
// Cpp target registers `--mlir-to-cpp`: a fused (and planned) sinter module
// in, `<model>.h` and `<model>.cu` out, each after a `// ===== <file> =====`
// line, as `sinterc -emit=cuda` prints them without -o.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::sinter;

void mlir::sinter::printCUDAOutput(raw_ostream &os, const CUDAOutput &output) {
  os << "// ===== " << output.modelName << ".h =====\n"
     << output.header << "// ===== " << output.modelName << ".cu =====\n"
     << output.source;
}

void mlir::sinter::registerToCUDATranslation(StringRef compilerVersion) {
  static llvm::cl::opt<GemmPrecision> precision(
      "precision", llvm::cl::desc("Arithmetic of the generated GEMMs"),
      llvm::cl::init(GemmPrecision::F32),
      llvm::cl::values(
          clEnumValN(GemmPrecision::F32, "f32", "fp32 (the default)"),
          clEnumValN(GemmPrecision::TF32, "tf32", "TF32 tensor cores"),
          clEnumValN(GemmPrecision::BF16, "bf16", "bf16 tensor cores")));
  static llvm::cl::opt<Fp32Gemm> fp32Gemm(
      "fp32-gemm", llvm::cl::desc("How fp32 GEMMs compute"),
      llvm::cl::init(Fp32Gemm::Tf32x3),
      llvm::cl::values(clEnumValN(Fp32Gemm::Tf32x3, "3xtf32",
                                  "3xTF32 where the plan says so (default)"),
                       clEnumValN(Fp32Gemm::Sgemm, "sgemm", "cuBLAS SGEMM")));
  static std::string version = compilerVersion.str();

  TranslateFromMLIRRegistration registration(
      "sinter-to-cuda",
      "Translate a fused sinter module to its CUDA source and C header",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("sinter-to-cuda: expected a builtin.module");
        CUDAEmitterOptions options;
        options.precision = precision;
        options.fp32Gemm = fp32Gemm;
        if (auto location = dyn_cast<FileLineColLoc>(op->getLoc()))
          options.sourceName = location.getFilename().str();
        options.compilerVersion = version;
        options.flags =
            "--sinter-to-cuda --precision=" +
            stringifyGemmPrecision(precision).str() +
            (fp32Gemm == Fp32Gemm::Sgemm ? " --fp32-gemm=sgemm" : "");
        FailureOr<CUDAOutput> output = emitCUDA(module, options);
        if (failed(output))
          return failure();
        printCUDAOutput(os, *output);
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<SinterDialect, func::FuncDialect>();
      });
}
