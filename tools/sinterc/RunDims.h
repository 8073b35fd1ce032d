//===- RunDims.h - sinterc run: dims and shapes of a model ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The symbolic dims of a `sinterc run`: their values from the model's
// defaults, the --dim flags and the shapes of .npy inputs, the empty-batch
// rule, and the concrete shape of each input and param under them.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TOOLS_SINTERC_RUNDIMS_H
#define SINTER_TOOLS_SINTERC_RUNDIMS_H

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Interpreter/Interpreter.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::sinter::run {

/// The exit status of `sinterc run`.
enum ExitCode : int {
  ExitSuccess = 0,
  /// The model, a .npy file or a dim value is wrong, or the run failed.
  ExitInputError = 1,
  /// The command line is wrong.
  ExitUsageError = 2,
};

/// Prints an error of `sinterc run` and returns `code`.
int fail(int code, const Twine &message);

/// Values of the symbolic dims and where each came from.
struct DimBindings {
  llvm::StringMap<int64_t> values;
  /// Per dim: the --dim flag or the .npy file that set it, if any.
  llvm::StringMap<std::string> setBy;
};

/// Applies the --dim flags to the model's defaults. Unknown names and
/// malformed flags are usage errors; values that are not integers >= 0 are
/// input errors (checkEmptyDims refuses the 0s that are not empty batches).
int applyDimFlags(ArrayRef<std::string> flags, const ModelSignature &signature,
                  DimBindings &bindings);

/// Checks the dims that are 0 (set by --dim or by a .npy file): only a dim
/// that every output has may be 0. Returns whether one is, i.e. whether
/// every output is empty.
FailureOr<bool> checkEmptyDims(const ModelSignature &signature,
                               const DimBindings &bindings);

/// Checks the shape of data read from `source` for `value` against its
/// declared type and binds its symbolic dims.
llvm::Error bindShape(const ModelValue &value, const HostTensor &data,
                      StringRef source, DimBindings &bindings);

/// Returns the concrete shape of `value` under `bindings`.
llvm::Expected<SmallVector<int64_t>>
getConcreteShape(const ModelValue &value, const DimBindings &bindings);

} // namespace mlir::sinter::run

#endif // SINTER_TOOLS_SINTERC_RUNDIMS_H
