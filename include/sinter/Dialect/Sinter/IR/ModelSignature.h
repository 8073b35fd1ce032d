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
  /// The arguments of @forward, in order.
  SmallVector<ModelValue> arguments;
  /// The results of @forward, in order.
  SmallVector<ModelValue> results;
};

/// Returns the @forward function of a model module, or null.
func::FuncOp getForwardFunc(ModuleOp module);

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
