//===- ModelSignature.h - The model interface of a sinter module -*- C++ -*-===//
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
// (see sinter/Interpreter/Interpreter.h). Prepared arguments are not part of
// the model's interface.
//
// The frontend writes them, and the interpreter, the passes and the CUDA
// emitter read them through this header.
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
/// @forward argument attribute: the index of the @prepare result it receives.
constexpr llvm::StringLiteral kPreparedAttrName = "sinter.prepared";
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

/// The interface of one model, read from its module.
struct ModelSignature {
  std::string modelName;
  /// Symbolic dims with their default values, sorted by name.
  SmallVector<std::pair<std::string, int64_t>> dims;
  /// The arguments of @forward that are not prepared, in order: the model's
  /// inputs and params.
  SmallVector<ModelValue> arguments;
  /// The results of @forward, in order.
  SmallVector<ModelValue> results;
};

/// Returns the @forward function of a model module, or null.
func::FuncOp getForwardFunc(ModuleOp module);

/// Returns the index of the @prepare result that argument `index` of `func`
/// receives, or std::nullopt if it is not a prepared argument.
std::optional<int64_t> getPreparedIndex(func::FuncOp func, unsigned index);

/// Reads the signature of a model module; emits an error at the offending
/// op and fails if the module lacks @forward or its attributes are malformed.
FailureOr<ModelSignature> getModelSignature(ModuleOp module);

/// Attaches `value`'s attributes to argument `index` of `func`.
void setArgumentInfo(func::FuncOp func, unsigned index,
                     const ModelValue &value);

/// Attaches `value`'s name and dim names to result `index` of `func`.
void setResultInfo(func::FuncOp func, unsigned index, const ModelValue &value);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_MODELSIGNATURE_H
