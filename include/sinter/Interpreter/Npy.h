//===- Npy.h - NumPy .npy files of host tensors -----------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Reads and writes the NumPy `.npy` format (versions 1.0 to 3.0) for the
// three element types that models exchange: little-endian float32 (`<f4`),
// float64 (`<f8`) and int64 (`<i8`), C order. Anything else (big-endian
// data, other dtypes, Fortran order, truncated or trailing data) is
// rejected with a message that says what the file holds.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_INTERPRETER_NPY_H
#define SINTER_INTERPRETER_NPY_H

#include "sinter/Interpreter/Interpreter.h"

#include "llvm/Support/Error.h"

namespace mlir::sinter {

/// The element types of the .npy files Sinter reads and writes.
enum class NpyElementType { F32, F64, I64 };

/// Returns the NumPy descr of `type` (`<f4`, `<f8` or `<i8`).
StringRef getNpyDescr(NpyElementType type);

/// Parses the bytes of a .npy file. Integer data gives a tensor with
/// `isInteger` set; its values must be exactly representable as doubles.
llvm::Expected<HostTensor> parseNpy(StringRef bytes);

/// Reads the .npy file at `path`; errors name the file.
llvm::Expected<HostTensor> readNpyFile(StringRef path);

/// Returns the bytes of a version 1.0 .npy file holding `tensor` as `type`
/// (float values are rounded to `type`; integer values are exact).
std::string serializeNpy(const HostTensor &tensor, NpyElementType type);

/// Writes `tensor` as `type` to the .npy file at `path`.
llvm::Error writeNpyFile(StringRef path, const HostTensor &tensor,
                         NpyElementType type);

} // namespace mlir::sinter

#endif // SINTER_INTERPRETER_NPY_H
