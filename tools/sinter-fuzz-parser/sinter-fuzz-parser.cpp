//===- sinter-fuzz-parser.cpp - libFuzzer target of the .sinter frontend --===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the .sinter frontend (lexer, parser, lowering)
// under AddressSanitizer. Besides crashes, it checks two properties of every
// input that lowers: the module verifies, and its printed form parses back
// with MLIR's parser. Built by scripts/fuzz-parser.sh with clang.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Frontend/Parser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>

using namespace mlir;

/// Models of one input lowered at most; the rest only parse.
static constexpr size_t kMaxModelsPerInput = 4;
/// Inputs run in one context before it is replaced, bounding the memory
/// that uniqued names and types accumulate.
static constexpr unsigned kInputsPerContext = 1000;

/// Returns a context with the sinter and func dialects loaded, fresh every
/// kInputsPerContext calls.
static MLIRContext &getContext() {
  static std::unique_ptr<MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses == kInputsPerContext) {
    DialectRegistry registry;
    registry.insert<sinter::SinterDialect, func::FuncDialect>();
    context = std::make_unique<MLIRContext>(registry,
                                            MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    uses = 0;
  }
  return *context;
}

/// Checks that `module` verifies and survives a print/parse round trip.
static void checkModule(MLIRContext &context, ModuleOp module) {
  if (failed(verify(module)))
    llvm::report_fatal_error("the frontend produced a module that does not "
                             "verify");
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (!parseSourceString<ModuleOp>(text, &context))
    llvm::report_fatal_error("the printed module does not parse back");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  // Errors are the expected outcome for most inputs: swallow them, but only
  // after they were fully formatted, which exercises the messages too.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diagnostic) {
    std::string message = diagnostic.str();
    (void)message;
    return success();
  });

  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.sinter"), llvm::SMLoc());
  FailureOr<SmallVector<std::string>> models =
      sinter::listSinterModels(sourceMgr, &context);
  if (failed(models))
    return 0;
  for (const std::string &name :
       ArrayRef(*models).take_front(kMaxModelsPerInput))
    if (OwningOpRef<ModuleOp> module =
            sinter::parseSinterModel(sourceMgr, &context, name))
      checkModule(context, *module);
  return 0;
}
