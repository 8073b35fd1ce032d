//===- Parser.h - The .sinter model language --------------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Parses `.sinter` text into model modules of the sinter dialect (see
// sinter/Dialect/Sinter/IR/ModelSignature.h for the attributes that carry
// the user's names). Errors are reported through the context's diagnostic
// engine at the user's source location; nothing here aborts on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_FRONTEND_PARSER_H
#define SINTER_FRONTEND_PARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::sinter {

/// Parses the main buffer of `sourceMgr` as a `.sinter` file and lowers the
/// model named `modelName` (or the only model when `modelName` is empty) to a
/// `module @<name>` with `func.func @forward`. Returns null after emitting an
/// error on any lexical, syntax, name or type error.
OwningOpRef<ModuleOp> parseSinterModel(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context,
                                       StringRef modelName = {});

/// Returns the names of the models of the main buffer of `sourceMgr`, in
/// order, or failure after emitting an error if it does not parse.
FailureOr<SmallVector<std::string>> listSinterModels(llvm::SourceMgr &sourceMgr,
                                                     MLIRContext *context);

/// Returns the names of the models of `sourceMgr`'s main buffer, `.sinter`
/// text or (when `isMLIR` is set) textual MLIR, or failure after emitting an
/// error if it does not parse.
FailureOr<SmallVector<std::string>>
listModels(llvm::SourceMgr &sourceMgr, MLIRContext *context, bool isMLIR);

/// Loads a model from `sourceMgr`'s main buffer, which is `.sinter` text or,
/// when `isMLIR` is set, textual MLIR holding a model module (or a module
/// that holds several, selected by `modelName`). The result is verified.
OwningOpRef<ModuleOp> loadModel(llvm::SourceMgr &sourceMgr,
                                MLIRContext *context, bool isMLIR,
                                StringRef modelName = {});

/// Prints the builtin functions of the .sinter language as a Markdown table:
/// signature with defaults, the PyTorch function each mirrors, whether it
/// has a Tensor method form, and what it computes (sinterc --list-builtins;
/// docs/language.md holds the same table).
void printBuiltinReference(llvm::raw_ostream &os);

} // namespace mlir::sinter

#endif // SINTER_FRONTEND_PARSER_H
