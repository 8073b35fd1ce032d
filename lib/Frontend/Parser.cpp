//===- Parser.cpp - The .sinter model language ----------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Entry points of the frontend: .sinter text through the syntax parser and
// the lowering, or textual MLIR through MLIR's parser, to a verified model
// module.
//
//===----------------------------------------------------------------------===//

#include "sinter/Frontend/Parser.h"
#include "Lowering.h"
#include "SyntaxParser.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/thread.h"

using namespace mlir;
using namespace mlir::sinter;

/// Emits the error for a model name that is not in the file.
static void emitUnknownModel(Location loc, StringRef modelName,
                             ArrayRef<std::string> available) {
  emitError(loc) << "no model named '" << modelName
                 << "' in the file; it defines: "
                 << llvm::join(available, ", ");
}

/// Emits the error for a file of several models read without a model name.
static void emitAmbiguousModel(Location loc, ArrayRef<std::string> available) {
  emitError(loc) << "the file defines " << available.size()
                 << " models; choose one with --model=<name>: "
                 << llvm::join(available, ", ");
}

/// Returns the location of the start of the main buffer.
static Location getFileStart(llvm::SourceMgr &sourceMgr, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  return FileLineColLoc::get(context, buffer->getBufferIdentifier(), 1, 1);
}

/// The stack that the frontend runs on. The syntax parser, the lowering and
/// the syntax tree's destructor recurse once per level of an expression,
/// which the parser bounds at kMaxExpressionDepth (1024) levels; a thread's
/// default 8 MiB holds that in an optimized build but not under ASan, whose
/// frames are several times larger. The stack is reserved, not committed.
static constexpr unsigned kFrontendStackBytes = 256u << 20;

/// Runs `work` on a thread with the frontend's stack and returns its result.
/// The caller waits, so the context and the source manager are never used by
/// two threads at once.
template <typename Work>
static auto onFrontendStack(Work work) -> decltype(work()) {
  std::optional<decltype(work())> result;
  llvm::thread frontend(std::optional<unsigned>(kFrontendStackBytes),
                        [&] { result.emplace(work()); });
  frontend.join();
  return std::move(*result);
}

/// parseSinterModel's work, on the caller's stack.
static OwningOpRef<ModuleOp> parseAndLowerModel(llvm::SourceMgr &sourceMgr,
                                                MLIRContext *context,
                                                StringRef modelName) {
  FailureOr<frontend::SourceFile> file =
      frontend::parseSourceFile(sourceMgr, context);
  if (failed(file))
    return nullptr;
  SmallVector<std::string> names;
  for (const frontend::ModelDecl &model : file->models)
    names.push_back(model.name);
  if (modelName.empty() && names.size() > 1) {
    emitAmbiguousModel(getFileStart(sourceMgr, context), names);
    return nullptr;
  }
  for (const frontend::ModelDecl &model : file->models)
    if (modelName.empty() || model.name == modelName)
      return frontend::lowerModel(model, sourceMgr, context);
  emitUnknownModel(getFileStart(sourceMgr, context), modelName, names);
  return nullptr;
}

OwningOpRef<ModuleOp> mlir::sinter::parseSinterModel(llvm::SourceMgr &sourceMgr,
                                                     MLIRContext *context,
                                                     StringRef modelName) {
  context->loadDialect<SinterDialect, func::FuncDialect>();
  return onFrontendStack(
      [&] { return parseAndLowerModel(sourceMgr, context, modelName); });
}

FailureOr<SmallVector<std::string>>
mlir::sinter::listSinterModels(llvm::SourceMgr &sourceMgr,
                               MLIRContext *context) {
  return onFrontendStack([&]() -> FailureOr<SmallVector<std::string>> {
    FailureOr<frontend::SourceFile> file =
        frontend::parseSourceFile(sourceMgr, context);
    if (failed(file))
      return failure();
    SmallVector<std::string> names;
    for (const frontend::ModelDecl &model : file->models)
      names.push_back(model.name);
    return names;
  });
}

/// Returns the model modules of a parsed .mlir file: the top-level module
/// itself when it has @forward, else its nested `module @name` ops.
static SmallVector<ModuleOp> getModelModules(ModuleOp top) {
  if (getForwardFunc(top))
    return {top};
  SmallVector<ModuleOp> models;
  for (auto nested : top.getOps<ModuleOp>())
    models.push_back(nested);
  return models;
}

/// Returns the name of a model module.
static std::string getModelName(ModuleOp module) {
  return module.getSymName().value_or("model").str();
}

/// Returns where a diagnostic about the whole file points: the top module,
/// or where the parser wrapped the file's ops in one (it gives that module
/// line 0), the first of them.
static Location getFileLoc(ModuleOp top) {
  auto loc = dyn_cast<FileLineColLoc>(top.getLoc());
  if (loc && loc.getLine() == 0 && !top.getBody()->empty())
    return top.getBody()->front().getLoc();
  return top.getLoc();
}

/// Parses a .mlir file and verifies it.
static OwningOpRef<ModuleOp> parseMLIR(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context) {
  context->loadDialect<SinterDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> top =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
  if (!top)
    return nullptr;
  if (getModelModules(*top).empty()) {
    emitError(getFileLoc(*top),
              "no model in the file: expected a module with "
              "func.func @forward, or modules that hold one each");
    return nullptr;
  }
  return top;
}

FailureOr<SmallVector<std::string>>
mlir::sinter::listModels(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                         bool isMLIR) {
  if (!isMLIR)
    return listSinterModels(sourceMgr, context);
  OwningOpRef<ModuleOp> top = parseMLIR(sourceMgr, context);
  if (!top)
    return failure();
  SmallVector<std::string> names;
  for (ModuleOp model : getModelModules(*top))
    names.push_back(getModelName(model));
  return names;
}

OwningOpRef<ModuleOp> mlir::sinter::loadModel(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context, bool isMLIR,
                                              StringRef modelName) {
  if (!isMLIR)
    return parseSinterModel(sourceMgr, context, modelName);
  OwningOpRef<ModuleOp> top = parseMLIR(sourceMgr, context);
  if (!top)
    return nullptr;
  SmallVector<ModuleOp> models = getModelModules(*top);
  SmallVector<std::string> names = llvm::map_to_vector(models, getModelName);
  if (modelName.empty() && models.size() > 1) {
    emitAmbiguousModel(top->getLoc(), names);
    return nullptr;
  }
  ModuleOp selected;
  for (ModuleOp model : models)
    if (modelName.empty() || getModelName(model) == modelName)
      selected = model;
  if (!selected) {
    emitUnknownModel(top->getLoc(), modelName, names);
    return nullptr;
  }
  OwningOpRef<ModuleOp> result;
  if (selected == *top) {
    result = std::move(top);
  } else {
    selected->remove();
    result = selected;
  }
  if (failed(getModelSignature(*result)) || failed(verify(*result)) ||
      failed(checkModelForOutput(*result)))
    return nullptr;
  return result;
}
