//===- Interpreter.h - Reference semantics of sinter ops --------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Executes modules of the sinter dialect on the CPU: the executable
// definition of every op's semantics (PyTorch's), against which the passes
// and the CUDA backend are tested. In f32 mode values are stored and computed
// as PyTorch's CPU fp32 reference does; in f64 mode everything is double, the
// reference that accuracy is measured against.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_INTERPRETER_INTERPRETER_H
#define SINTER_INTERPRETER_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::sinter {

/// The arithmetic the interpreter computes in.
enum class Precision { F32, F64 };

/// A dense row-major host tensor. Values are held as double; in f32 mode
/// every value is an exactly representable float.
struct HostTensor {
  SmallVector<int64_t> shape;
  std::vector<double> data;
  /// True for i64 results (argmax/argmin).
  bool isInteger = false;

  int64_t numElements() const;
};

/// Runs model modules. One interpreter may run many modules.
class Interpreter {
public:
  explicit Interpreter(Precision precision) : precision(precision) {}

  /// Runs `func` on `arguments` (one per function argument, shapes already
  /// concrete) and returns its results. Shapes that do not match the
  /// function type, or run-time dims that do not broadcast, give an error
  /// diagnostic at the offending op and failure, never a crash.
  FailureOr<std::vector<HostTensor>> run(Operation *func,
                                         ArrayRef<HostTensor> arguments);

  /// Runs a model module: `@prepare` first when present (on the params it
  /// takes), then `@forward`. `arguments` are the arguments of the original
  /// @forward in order (inputs and params as the frontend declared them).
  FailureOr<std::vector<HostTensor>> runModel(ModuleOp module,
                                              ArrayRef<HostTensor> arguments);

private:
  Precision precision;
};

} // namespace mlir::sinter

#endif // SINTER_INTERPRETER_INTERPRETER_H
