//===- ModelSignature.h - The interface of a model module -------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A model is a `module @<model name>` holding `func.func @forward` (and,
// after sinter-hoist-params, `func.func @prepare`). What the frontend knows
// about the model's names travels in attributes:
//
//   module @m attributes {sinter.dims = {B = 1024 : i64}}   symbolic dims
//   @forward argument:  {sinter.role = "input" | "param",
//                        sinter.name = "x",
//                        sinter.dim_names = ["B", ""],   one per dim
//                        sinter.init = {kind = "uniform", args = [-1.0, 1.0]}}
//   @forward result:    {sinter.name = "out0", sinter.dim_names = [...]}
//
// After sinter-hoist-params, @prepare's arguments carry the attributes of the
// @forward params they were copied from, and @forward gets one more argument
// per @prepare result it uses, marked {sinter.prepared = <result index>}
// (see "Hoisted modules" below). Prepared arguments are not part of the
// model's interface.
//
// The frontend writes them, and the interpreter, the passes and the CUDA
// emitter read them through this header.
//
// Hoisted modules (after sinter-hoist-params)
// -------------------------------------------
// Values that depend only on params are computed once, when the model is
// created, by `func.func @prepare`; @forward receives them as arguments:
//
//   func.func @prepare(%w: tensor<4096x8192xf32> {sinter.role = "param",
//                                                 sinter.name = "weight", ...})
//       -> (tensor<8192x1xf32> {sinter.name = "prepared0"})
//   func.func @forward(%x: tensor<?x8192xf32> {sinter.role = "input", ...},
//                      %p: tensor<8192x1xf32> {sinter.role = "prepared",
//                                              sinter.prepared = 0 : i64,
//                                              sinter.name = "prepared0"})
//       attributes {sinter.original_arguments = [
//         {sinter.role = "input", sinter.name = "x", sinter.type = ..., ...},
//         {sinter.role = "param", sinter.name = "weight", sinter.type = ...}]}
//
// - `sinter.original_arguments` (on @forward) lists the arguments of @forward
//   as the frontend declared them, in order: each entry is that argument's
//   attribute dictionary plus `sinter.type = <its tensor type>`, and always
//   has a `sinter.name`. These are the model's interface: they are what a
//   caller passes, and what getModelSignature returns as `arguments`. Names
//   are unique in a hoisted module.
// - Every argument of @prepare is an original argument (a param), with that
//   argument's attributes; it is matched to the original list by sinter.name.
//   The results of @prepare are the prepared values, result `i` named
//   "prepared<i>" (a display name; prepared values are matched by index).
// - Every argument of @forward is either an original argument (role "input"
//   or "param", matched by sinter.name), or a prepared value: role
//   "prepared", `sinter.prepared = i : i64` receives result `i` of @prepare,
//   and its type is that result's type. The pass writes the original
//   arguments first, in their original order, then the prepared values in
//   result order; readers rely on the attributes, not on positions.
// - Params that @forward no longer reads are not arguments of @forward; every
//   @prepare result is read by @forward.
//
// To run a hoisted model on the original arguments A[0..n) (see
// ModelSignature::prepareArguments and ::forwardArguments):
//   1. P = @prepare(A[prepareArguments[0]], A[prepareArguments[1]], ...)
//   2. @forward(V[0], V[1], ...) with V[i] = A[s.index] if
//      s = forwardArguments[i] is Original, P[s.index] if it is Prepared.
// A module without @prepare runs as @forward(A[0], A[1], ...); its
// forwardArguments say exactly that, so one code path serves both.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_MODELSIGNATURE_H
#define SINTER_DIALECT_SINTER_IR_MODELSIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>

namespace mlir::sinter {

/// Module attribute: dictionary of symbolic dim name -> default value.
constexpr llvm::StringLiteral kDimsAttrName = "sinter.dims";
/// Argument attribute: "input" or "param".
constexpr llvm::StringLiteral kRoleAttrName = "sinter.role";
/// Argument and result attribute: the user's name of the value.
constexpr llvm::StringLiteral kNameAttrName = "sinter.name";
/// Argument and result attribute: per dim, the symbolic dim name or "".
constexpr llvm::StringLiteral kDimNamesAttrName = "sinter.dim_names";
/// Param argument attribute: {kind = "<hint>", args = [f64, ...]}.
constexpr llvm::StringLiteral kInitAttrName = "sinter.init";
/// Prepared @forward argument attribute: the index of the @prepare result it
/// receives (an i64).
constexpr llvm::StringLiteral kPreparedAttrName = "sinter.prepared";
/// @forward attribute of a hoisted module: the original arguments.
constexpr llvm::StringLiteral kOriginalArgumentsAttrName =
    "sinter.original_arguments";
/// Entry of sinter.original_arguments: the argument's type.
constexpr llvm::StringLiteral kTypeAttrName = "sinter.type";
/// Values of sinter.role.
constexpr llvm::StringLiteral kInputRole = "input";
constexpr llvm::StringLiteral kParamRole = "param";
constexpr llvm::StringLiteral kPreparedRole = "prepared";
/// Name of the function that computes the model's outputs.
constexpr llvm::StringLiteral kForwardFuncName = "forward";
/// Name of the function that computes param-only values once.
constexpr llvm::StringLiteral kPrepareFuncName = "prepare";

/// Whether a @forward argument is fed per call or once at creation.
enum class ArgumentRole { Input, Param };

/// How `sinterc run` and the benchmarks draw a param's initial values:
/// randn, rand, zeros, ones, uniform(lo, hi), normal(mean, std) or
/// linear_default(fan_in).
struct InitHint {
  std::string kind;
  SmallVector<double> args;
};

/// One argument or result of @forward as the user named it.
struct ModelValue {
  std::string name;
  ArgumentRole role = ArgumentRole::Input;
  RankedTensorType type;
  /// Per dim: the symbolic dim's name, or "" for a static dim.
  SmallVector<std::string> dimNames;
  /// Params only: the init hint (the frontend always sets one).
  std::optional<InitHint> init;
};

/// Where an argument of @forward gets its value when the model runs.
struct ArgumentSource {
  enum class Kind { Original, Prepared };
  Kind kind = Kind::Original;
  /// Original: index into ModelSignature::arguments. Prepared: index of the
  /// @prepare result.
  unsigned index = 0;
};

/// The interface of one model, read from its module.
struct ModelSignature {
  std::string modelName;
  /// Symbolic dims with their default values, sorted by name.
  SmallVector<std::pair<std::string, int64_t>> dims;
  /// The arguments of @forward as the frontend declared them, in order (read
  /// from sinter.original_arguments in a hoisted module).
  SmallVector<ModelValue> arguments;
  /// The results of @forward, in order.
  SmallVector<ModelValue> results;
  /// Whether the module has @prepare.
  bool hasPrepare = false;
  /// Per argument of @prepare: its index in `arguments`.
  SmallVector<unsigned> prepareArguments;
  /// Per argument of @forward as it is now: where its value comes from.
  SmallVector<ArgumentSource> forwardArguments;
};

/// Returns the @forward function of a model module, or null.
func::FuncOp getForwardFunc(ModuleOp module);

/// Returns the @prepare function of a hoisted model module, or null.
func::FuncOp getPrepareFunc(ModuleOp module);

/// Reads the signature of a model module; emits an error at the offending
/// op and fails if the module lacks @forward or its attributes are malformed.
FailureOr<ModelSignature> getModelSignature(ModuleOp module);

/// Checks what generated code and output files need of a model beyond the
/// IR's rules: every name it gives (the model, its dims, its inputs, params
/// and outputs, their init kinds) is an identifier (sinter/Support/Names.h:
/// no name carries anything but a name into generated code or a file name),
/// and every tensor's size in bytes fits in int64. Emits an error at the
/// offending value and fails otherwise. sinterc runs it on every input; the
/// passes do not need it.
LogicalResult checkModelForOutput(ModuleOp module);

/// Attaches `value`'s attributes to argument `index` of `func`.
void setArgumentInfo(func::FuncOp func, unsigned index,
                     const ModelValue &value);

/// Attaches `value`'s name and dim names to result `index` of `func`.
void setResultInfo(func::FuncOp func, unsigned index, const ModelValue &value);

/// Stores the current arguments of `forward` as its
/// sinter.original_arguments, unless it already has them; an argument
/// without a sinter.name is given its default name "arg<index>" first.
/// Fails with an error at `forward` if two arguments share a name.
LogicalResult recordOriginalArguments(func::FuncOp forward);

/// Marks argument `index` of `forward` as receiving result `preparedIndex` of
/// @prepare, named `name`.
void setPreparedArgumentInfo(func::FuncOp forward, unsigned index,
                             unsigned preparedIndex, StringRef name);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_MODELSIGNATURE_H
