//===- SyntaxParser.h - .sinter text to syntax tree -------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The first half of the frontend: checks the syntax of a .sinter buffer and
// builds its syntax tree. Names, types and builtins are checked by the
// lowering (Lowering.h). Errors go to the context's diagnostic engine.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_SYNTAXPARSER_H
#define SINTER_LIB_FRONTEND_SYNTAXPARSER_H

#include "AST.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::sinter::frontend {

/// Largest .sinter buffer accepted; models are a few kilobytes.
constexpr size_t kMaxSourceSize = 64 * 1024 * 1024;

/// Returns the file:line:col location of `loc` in `sourceMgr`.
Location getSourceLocation(MLIRContext *context,
                           const llvm::SourceMgr &sourceMgr, llvm::SMLoc loc);

/// Parses the main buffer of `sourceMgr` into its models; emits an error and
/// fails on the first syntax error.
FailureOr<SourceFile> parseSourceFile(const llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context);

} // namespace mlir::sinter::frontend

#endif // SINTER_LIB_FRONTEND_SYNTAXPARSER_H
