//===- InferenceErrors.h - Errors of result type inference ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Result type inference runs while ops are parsed and built, before an op
// exists to emit an error at; the op families' .cpp files report through
// this one helper.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_IR_INFERENCEERRORS_H
#define SINTER_LIB_DIALECT_SINTER_IR_INFERENCEERRORS_H

#include "mlir/IR/Diagnostics.h"

#include <optional>

namespace mlir::sinter {

/// Emits `'<op>' op <message>` at `loc` when there is a location, and fails.
template <typename... Args>
LogicalResult emitInferenceError(std::optional<Location> loc, StringRef opName,
                                 Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

} // namespace mlir::sinter

#endif // SINTER_LIB_DIALECT_SINTER_IR_INFERENCEERRORS_H
