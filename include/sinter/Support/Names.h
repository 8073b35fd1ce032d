//===- Names.h - The names that reach generated code ------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one policy for names that a model file brings into generated code (C
// header, CUDA source, PyTorch extension, Python loader) and into file
// names. Every writer goes through it:
//
//   - A model's own names (the model, its dims, inputs, params, outputs and
//     init hint kinds) must be ASCII identifiers, [A-Za-z_][A-Za-z0-9_]*:
//     getModelSignature rejects any other at its location, so that no name
//     can carry a newline, a quote, a comment terminator or a path
//     separator into any output.
//   - A model's name becomes a C identifier through NamePool: one that C,
//     C++, CUDA, the runtime or the generated code itself reserves (see
//     isReservedName) is renamed, never used as is.
//   - Any other text that reaches a comment (a source path, the flags) goes
//     through escapeComment; any text in a string literal through
//     quoteCString or quotePythonString.
//   - Files are written only under the output directory, named by
//     isSafeFileName names.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_SUPPORT_NAMES_H
#define SINTER_SUPPORT_NAMES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::sinter {

/// Whether `name` is an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
bool isIdentifier(StringRef name);

/// Whether generated code must not use the identifier `name` for a value or
/// a model: a keyword, type or macro of C, C++ or CUDA, a function of the C
/// math library or the CUDA runtime, a name with a prefix that C, C++, CUDA,
/// cuBLAS, PyTorch or the Sinter runtime own ("__", "_X", "cuda", "sinter",
/// ...), or a name the generated code gives its own locals and helpers.
bool isReservedName(StringRef name);

/// Gives the names of one model unique C identifiers that are not reserved.
class NamePool {
public:
  /// Returns a C identifier for `name` that this pool has not returned
  /// before: `name` itself when it is a free identifier; otherwise its
  /// characters outside [A-Za-z0-9_] become '_', runs of '_' shrink to one,
  /// a name that starts with '_' or a digit or with a reserved prefix gets
  /// the prefix "u_", and a reserved or taken name the first free suffix
  /// "_2", "_3", ....
  std::string getUnique(StringRef name);

private:
  llvm::StringSet<> used;
};

/// Returns `text` safe inside a comment of every generated language (C and
/// C++ `//` and `/* */`, Python `#`): bytes outside printable ASCII and
/// backslashes become "\xNN", "*/" becomes "*\/" and "??" becomes "?\x3f"
/// (no line break, no comment end, no line splice, no trigraph).
std::string escapeComment(StringRef text);

/// Returns `text` as a C and C++ string literal, quotes included: '"' and
/// '\' escaped, bytes outside printable ASCII as three-digit octal escapes,
/// "??" as "?\?".
std::string quoteCString(StringRef text);

/// Returns `text` as a Python string literal, quotes included: '"' and '\'
/// escaped, bytes outside printable ASCII as "\xNN".
std::string quotePythonString(StringRef text);

/// Whether `name` can name a file inside a directory: not empty, no leading
/// '.', only ASCII letters, digits, '_', '-' and '.' (no separator).
bool isSafeFileName(StringRef name);

} // namespace mlir::sinter

#endif // SINTER_SUPPORT_NAMES_H
