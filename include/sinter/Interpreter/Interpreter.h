//===- Interpreter.h - Reference semantics of sinter ------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Executes modules of the sinter dialect on the CPU: the executable
// definition of every op's semantics (PyTorch's), against which the passes
// and the CUDA backend are tested. In f32 mode values are stored as fp32, as
// in PyTorch's fp32 tensors; in f64 mode everything is double, the reference
// that accuracy is measured against.
//
// Arithmetic
// ----------
// Values are held as double. Every op computes its result in double from its
// operands, then, in f32 mode, rounds every element of the result to the
// result's element type (f32, f16 or bf16; f64 stays double). So in f32 mode
// every value an op reads or writes is exactly an fp32 value, as in
// PyTorch's fp32 storage, and the only error against the f64 mode is the
// rounding of each op's result to fp32. Sums, means, variances, matmul dot
// products and the statistics of norms and softmax are accumulated in double
// and rounded once: a faithful fp32 reference (never less accurate than
// PyTorch's float accumulation, deterministic and independent of summation
// order), whose error against f64 is the error that fp32 storage itself
// causes. Composite ops (softmax, norms, gelu, mish, ...) round only their
// final result, as a fused fp32 kernel would. PyTorch's CPU kernels and the
// generated CUDA accumulate in float instead, so they differ from this
// reference by their own accumulation error (about 1e-6 relative on rows of
// thousands): compare them with a tolerance, and judge accuracy against f64.
//
// Arguments are rounded to the element type of the function argument on
// entry in f32 mode. Shapes come from the arguments: static dims of the
// function type must match; `?` dims take the argument's size. Every op
// checks at run time what its verifier could not check on `?` dims
// (broadcasting, contraction dims, group counts, reshape element counts)
// and reports a violation as an error diagnostic at the op.
//
// Models with @prepare (after sinter-hoist-params)
// -----------------------------------------------
// The model's interface is ModelSignature's `arguments`: the inputs and
// params as the frontend declared them (sinter.original_arguments in a
// hoisted module; see ModelSignature.h for the whole convention). runModel
// reads the signature, runs @prepare once on the original arguments it
// names, and feeds @forward each argument from where the signature says it
// comes from: an original argument or a @prepare result.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_INTERPRETER_INTERPRETER_H
#define SINTER_INTERPRETER_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::sinter {

/// The arithmetic the interpreter computes in.
enum class Precision { F32, F64 };

/// The largest tensor the interpreter allocates, in elements (2 GiB of
/// doubles, twice the largest tensor of the examples at their default dims);
/// larger shapes are reported as errors instead of exhausting memory.
constexpr int64_t kMaxTensorElements = int64_t(1) << 28;

/// Returns the number of elements of `shape`, or std::nullopt if a dim is
/// negative or the count exceeds kMaxTensorElements.
std::optional<int64_t> getCheckedNumElements(ArrayRef<int64_t> shape);

/// A dense row-major host tensor. Values are held as double; in f32 mode
/// every value is an exactly representable float.
struct HostTensor {
  HostTensor() = default;
  /// A zero-filled tensor of `shape` (which must satisfy
  /// getCheckedNumElements).
  explicit HostTensor(ArrayRef<int64_t> shape, bool isInteger = false);

  SmallVector<int64_t> shape;
  std::vector<double> data;
  /// True for i64 results (argmax/argmin).
  bool isInteger = false;

  int64_t numElements() const;
};

/// Returns true if every value of `tensor` is exactly a value of the element
/// type `elementType`, i.e. roundToElementType would not change it (NaN
/// counts as representable).
bool isRepresentableAs(const HostTensor &tensor, Type elementType);

/// Rounds every value of `tensor` to the float type `elementType` (f32, f16,
/// bf16, ...); f64 and integer types leave it unchanged.
void roundToElementType(HostTensor &tensor, Type elementType);

/// Runs model modules. One interpreter may run many modules.
class Interpreter {
public:
  explicit Interpreter(Precision precision) : precision(precision) {}

  Precision getPrecision() const { return precision; }

  /// Runs `func` (a func.func) on `arguments` (one per function argument,
  /// shapes already concrete) and returns its results. Shapes that do not
  /// match the function type, or run-time dims that do not broadcast, give
  /// an error diagnostic at the offending op and failure, never a crash.
  FailureOr<std::vector<HostTensor>> run(Operation *func,
                                         ArrayRef<HostTensor> arguments);

  /// Runs a model module: `@prepare` first when present (on the params it
  /// takes), then `@forward`. `arguments` are the model's arguments in
  /// order (ModelSignature::arguments: the inputs and params as the frontend
  /// declared them; see the file comment).
  FailureOr<std::vector<HostTensor>> runModel(ModuleOp module,
                                              ArrayRef<HostTensor> arguments);

private:
  Precision precision;
};

/// Evaluates the elementwise op `op` (unary, or binary with broadcasting) on
/// one scalar per operand with the interpreter's definition, in double, so
/// that constant folding computes f(c) exactly as the reference does; the
/// caller rounds the result to the element type. Returns nothing when `op`
/// is not elementwise or `operands` does not have one value per operand.
std::optional<double> evaluateElementwiseScalar(Operation *op,
                                                ArrayRef<double> operands);

} // namespace mlir::sinter

#endif // SINTER_INTERPRETER_INTERPRETER_H
