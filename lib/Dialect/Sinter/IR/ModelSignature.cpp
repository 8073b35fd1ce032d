//===- ModelSignature.cpp - The model interface of a sinter module --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::sinter;

func::FuncOp mlir::sinter::getForwardFunc(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>(kForwardFuncName);
}

std::optional<int64_t> mlir::sinter::getPreparedIndex(func::FuncOp func,
                                                      unsigned index) {
  if (auto prepared =
          func.getArgAttrOfType<IntegerAttr>(index, kPreparedAttrName))
    return prepared.getInt();
  return std::nullopt;
}

/// Reads the dim names of a value of type `type` from `attrs`; a missing
/// attribute means every dim is unnamed.
static LogicalResult readDimNames(Operation *op, DictionaryAttr attrs,
                                  RankedTensorType type, StringRef what,
                                  SmallVectorImpl<std::string> &dimNames) {
  dimNames.assign(type.getRank(), "");
  auto names = attrs ? attrs.getAs<ArrayAttr>(kDimNamesAttrName) : ArrayAttr();
  if (!names)
    return success();
  if (names.size() != static_cast<size_t>(type.getRank()))
    return op->emitError() << what << ": " << kDimNamesAttrName << " has "
                           << names.size() << " entries for a rank-"
                           << type.getRank() << " value";
  for (auto [index, name] : llvm::enumerate(names)) {
    auto text = dyn_cast<StringAttr>(name);
    if (!text)
      return op->emitError() << what << ": " << kDimNamesAttrName
                             << " entries must be strings";
    dimNames[index] = text.str();
  }
  return success();
}

/// Reads the name of `what` from `attrs`, defaulting to `fallback`.
static std::string readName(DictionaryAttr attrs, StringRef fallback) {
  if (auto name = attrs ? attrs.getAs<StringAttr>(kNameAttrName) : nullptr)
    return name.str();
  return fallback.str();
}

FailureOr<ModelSignature> mlir::sinter::getModelSignature(ModuleOp module) {
  func::FuncOp forward = getForwardFunc(module);
  if (!forward)
    return module.emitError("model module has no func.func @forward");

  ModelSignature signature;
  signature.modelName = module.getSymName().value_or("model").str();
  if (auto dims = module->getAttrOfType<DictionaryAttr>(kDimsAttrName)) {
    for (NamedAttribute dim : dims) {
      auto value = dyn_cast<IntegerAttr>(dim.getValue());
      if (!value)
        return module.emitError() << kDimsAttrName << " entry '"
                                  << dim.getName() << "' must be an integer";
      signature.dims.emplace_back(dim.getName().str(), value.getInt());
    }
  }

  for (auto [index, type] : llvm::enumerate(forward.getArgumentTypes())) {
    if (getPreparedIndex(forward, index))
      continue;
    auto tensorType = dyn_cast<RankedTensorType>(type);
    std::string what = "argument #" + std::to_string(index);
    if (!tensorType)
      return forward.emitError() << what << " must be a ranked tensor";
    DictionaryAttr attrs = forward.getArgAttrDict(index);
    ModelValue value;
    value.type = tensorType;
    value.name = readName(attrs, "arg" + std::to_string(index));
    auto role = attrs ? attrs.getAs<StringAttr>(kRoleAttrName) : nullptr;
    if (role && role.getValue() == "param")
      value.role = ArgumentRole::Param;
    else if (role && role.getValue() != "input")
      return forward.emitError() << what << ": unknown " << kRoleAttrName
                                 << " '" << role.getValue() << "'";
    if (failed(readDimNames(forward, attrs, tensorType, what, value.dimNames)))
      return failure();
    if (auto init = attrs ? attrs.getAs<DictionaryAttr>(kInitAttrName)
                          : nullptr) {
      auto kind = init.getAs<StringAttr>("kind");
      auto args = init.getAs<ArrayAttr>("args");
      if (!kind)
        return forward.emitError() << what << ": " << kInitAttrName
                                   << " needs a string 'kind'";
      InitHint hint{kind.str(), {}};
      for (Attribute arg : args ? args.getValue() : ArrayRef<Attribute>()) {
        auto number = dyn_cast<FloatAttr>(arg);
        if (!number)
          return forward.emitError() << what << ": " << kInitAttrName
                                     << " args must be floats";
        hint.args.push_back(number.getValueAsDouble());
      }
      value.init = std::move(hint);
    }
    signature.arguments.push_back(std::move(value));
  }

  for (auto [index, type] : llvm::enumerate(forward.getResultTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    std::string what = "result #" + std::to_string(index);
    if (!tensorType)
      return forward.emitError() << what << " must be a ranked tensor";
    DictionaryAttr attrs = forward.getResultAttrDict(index);
    ModelValue value;
    value.type = tensorType;
    value.name = readName(attrs, "out" + std::to_string(index));
    if (failed(readDimNames(forward, attrs, tensorType, what, value.dimNames)))
      return failure();
    signature.results.push_back(std::move(value));
  }
  return signature;
}

/// Builds the string array of `dimNames`.
static ArrayAttr getDimNamesAttr(Builder &builder,
                                 ArrayRef<std::string> dimNames) {
  SmallVector<Attribute> names;
  for (const std::string &name : dimNames)
    names.push_back(builder.getStringAttr(name));
  return builder.getArrayAttr(names);
}

void mlir::sinter::setArgumentInfo(func::FuncOp func, unsigned index,
                                   const ModelValue &value) {
  Builder builder(func.getContext());
  func.setArgAttr(index, kRoleAttrName,
                  builder.getStringAttr(value.role == ArgumentRole::Param
                                            ? "param"
                                            : "input"));
  func.setArgAttr(index, kNameAttrName, builder.getStringAttr(value.name));
  func.setArgAttr(index, kDimNamesAttrName,
                  getDimNamesAttr(builder, value.dimNames));
  if (value.init) {
    SmallVector<Attribute> args;
    for (double arg : value.init->args)
      args.push_back(builder.getF64FloatAttr(arg));
    func.setArgAttr(
        index, kInitAttrName,
        builder.getDictionaryAttr(
            {builder.getNamedAttr("kind",
                                  builder.getStringAttr(value.init->kind)),
             builder.getNamedAttr("args", builder.getArrayAttr(args))}));
  }
}

void mlir::sinter::setResultInfo(func::FuncOp func, unsigned index,
                                 const ModelValue &value) {
  Builder builder(func.getContext());
  func.setResultAttr(index, kNameAttrName, builder.getStringAttr(value.name));
  func.setResultAttr(index, kDimNamesAttrName,
                     getDimNamesAttr(builder, value.dimNames));
}
