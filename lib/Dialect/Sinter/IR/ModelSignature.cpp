//===- ModelSignature.cpp - The model interface of a sinter module --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Support/Names.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;

func::FuncOp mlir::sinter::getForwardFunc(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>(kForwardFuncName);
}

func::FuncOp mlir::sinter::getPrepareFunc(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>(kPrepareFuncName);
}

/// Checks that `name`, the `what` of the model, is an identifier: the rule
/// of sinter/Support/Names.h that keeps a name from carrying anything but a
/// name into generated code and file names.
static LogicalResult checkName(Location loc, const Twine &what,
                               StringRef name) {
  if (isIdentifier(name))
    return success();
  return emitError(loc) << what << " " << quoteCString(name)
                        << " is not an identifier ([A-Za-z_][A-Za-z0-9_]*): "
                           "a model's names become names in generated code "
                           "and in file names";
}

/// Checks that a tensor of `type` has a size in bytes that int64 holds, its
/// dynamic dims counted as 1 (generated code checks them when it runs).
static LogicalResult checkSize(Location loc, const Twine &what,
                               RankedTensorType type) {
  int64_t bytes = std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
      return emitError(loc)
             << what << " of type " << type << " has more than 2^63 bytes";
  return success();
}

/// Checks the names `value` brings (its own, its dims', its init hint's
/// kind) and its size; `what` names it in the errors reported at `loc`.
static LogicalResult checkValue(Location loc, StringRef what,
                                const ModelValue &value) {
  if (failed(checkName(loc, what + ": " + kNameAttrName, value.name)) ||
      failed(checkSize(loc, what, value.type)))
    return failure();
  for (const std::string &dim : value.dimNames)
    if (!dim.empty() &&
        failed(checkName(loc, what + ": " + kDimNamesAttrName + " entry", dim)))
      return failure();
  if (value.init && failed(checkName(loc, what + ": " + kInitAttrName + " kind",
                                     value.init->kind)))
    return failure();
  return success();
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
      return op->emitError()
             << what << ": " << kDimNamesAttrName << " entries must be strings";
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

/// Reads the init hint of `what` from `attrs`, if it has one.
static LogicalResult readInit(Operation *op, DictionaryAttr attrs,
                              StringRef what, std::optional<InitHint> &hint) {
  auto init = attrs ? attrs.getAs<DictionaryAttr>(kInitAttrName) : nullptr;
  if (!init)
    return success();
  auto kind = init.getAs<StringAttr>("kind");
  auto args = init.getAs<ArrayAttr>("args");
  if (!kind)
    return op->emitError() << what << ": " << kInitAttrName
                           << " needs a string 'kind'";
  hint = InitHint{kind.str(), {}};
  for (Attribute arg : args ? args.getValue() : ArrayRef<Attribute>()) {
    auto number = dyn_cast<FloatAttr>(arg);
    if (!number)
      return op->emitError()
             << what << ": " << kInitAttrName << " args must be floats";
    hint->args.push_back(number.getValueAsDouble());
  }
  return success();
}

/// Returns the sinter.role of `attrs`, "input" when there is none.
static StringRef readRole(DictionaryAttr attrs) {
  auto role = attrs ? attrs.getAs<StringAttr>(kRoleAttrName) : nullptr;
  return role ? role.getValue() : StringRef(kInputRole);
}

/// Reads an input or param of the model described by `attrs`; `what` names it
/// in the errors reported at `op`.
static FailureOr<ModelValue> readArgument(Operation *op, DictionaryAttr attrs,
                                          Type type, unsigned index,
                                          StringRef what) {
  auto tensorType = dyn_cast_if_present<RankedTensorType>(type);
  if (!tensorType)
    return op->emitError() << what << " must be a ranked tensor";
  ModelValue value;
  value.type = tensorType;
  value.name = readName(attrs, "arg" + std::to_string(index));
  StringRef role = readRole(attrs);
  if (role == kParamRole)
    value.role = ArgumentRole::Param;
  else if (role == kPreparedRole)
    return op->emitError() << what << ": " << kRoleAttrName << " '" << role
                           << "' is only valid in a hoisted @forward (one "
                              "with "
                           << kOriginalArgumentsAttrName << ")";
  else if (role != kInputRole)
    return op->emitError() << what << ": unknown " << kRoleAttrName << " '"
                           << role << "'";
  if (failed(readDimNames(op, attrs, tensorType, what, value.dimNames)) ||
      failed(readInit(op, attrs, what, value.init)))
    return failure();
  return value;
}

/// Reads the original arguments of a hoisted `forward` from `originals`.
static LogicalResult readOriginalArguments(func::FuncOp forward,
                                           ArrayAttr originals,
                                           ModelSignature &signature) {
  for (auto [index, entry] : llvm::enumerate(originals)) {
    std::string what = "original argument #" + std::to_string(index);
    auto attrs = dyn_cast<DictionaryAttr>(entry);
    auto type = attrs ? attrs.getAs<TypeAttr>(kTypeAttrName) : nullptr;
    if (!type)
      return forward.emitError()
             << what << ": " << kOriginalArgumentsAttrName
             << " entries must be dictionaries with a " << kTypeAttrName;
    FailureOr<ModelValue> value =
        readArgument(forward, attrs, type.getValue(), index, what);
    if (failed(value))
      return failure();
    signature.arguments.push_back(std::move(*value));
  }
  return success();
}

/// Finds the original argument that argument `index` of `func` stands for, by
/// name, and checks that the types agree.
static FailureOr<unsigned>
matchOriginalArgument(func::FuncOp func, unsigned index,
                      const llvm::StringMap<unsigned> &byName,
                      const ModelSignature &signature) {
  DictionaryAttr attrs = func.getArgAttrDict(index);
  auto name = attrs ? attrs.getAs<StringAttr>(kNameAttrName) : nullptr;
  auto found = name ? byName.find(name.getValue()) : byName.end();
  if (found == byName.end())
    return func.emitError()
           << "argument #" << index << " of @" << func.getSymName()
           << " names no original argument";
  if (signature.arguments[found->second].type != func.getArgumentTypes()[index])
    return func.emitError()
           << "argument #" << index << " of @" << func.getSymName()
           << " has type " << func.getArgumentTypes()[index]
           << " but original argument '" << name.getValue() << "' has type "
           << signature.arguments[found->second].type;
  return found->second;
}

/// Reads where each argument of a hoisted @forward (and of @prepare, if
/// any) gets its value.
static LogicalResult readArgumentSources(func::FuncOp forward,
                                         func::FuncOp prepare,
                                         ModelSignature &signature) {
  llvm::StringMap<unsigned> byName;
  for (auto [index, value] : llvm::enumerate(signature.arguments))
    if (!byName.try_emplace(value.name, index).second)
      return forward.emitError() << kOriginalArgumentsAttrName << ": name '"
                                 << value.name << "' appears twice";

  if (prepare) {
    signature.hasPrepare = true;
    for (unsigned index = 0; index < prepare.getNumArguments(); ++index) {
      FailureOr<unsigned> original =
          matchOriginalArgument(prepare, index, byName, signature);
      if (failed(original))
        return failure();
      signature.prepareArguments.push_back(*original);
    }
  }

  for (unsigned index = 0; index < forward.getNumArguments(); ++index) {
    DictionaryAttr attrs = forward.getArgAttrDict(index);
    if (readRole(attrs) != kPreparedRole) {
      FailureOr<unsigned> original =
          matchOriginalArgument(forward, index, byName, signature);
      if (failed(original))
        return failure();
      signature.forwardArguments.push_back(
          {ArgumentSource::Kind::Original, *original});
      continue;
    }
    auto prepared = attrs.getAs<IntegerAttr>(kPreparedAttrName);
    if (!prepare || !prepared || prepared.getInt() < 0 ||
        prepared.getInt() >= prepare.getNumResults())
      return forward.emitError()
             << "prepared argument #" << index << " needs a "
             << kPreparedAttrName << " index of a @prepare result";
    unsigned result = prepared.getInt();
    if (prepare.getResultTypes()[result] != forward.getArgumentTypes()[index])
      return forward.emitError()
             << "prepared argument #" << index << " has type "
             << forward.getArgumentTypes()[index] << " but @prepare result #"
             << result << " has type " << prepare.getResultTypes()[result];
    signature.forwardArguments.push_back(
        {ArgumentSource::Kind::Prepared, result});
  }
  return success();
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

  func::FuncOp prepare = getPrepareFunc(module);
  auto originals =
      forward->getAttrOfType<ArrayAttr>(kOriginalArgumentsAttrName);
  if (originals) {
    if (failed(readOriginalArguments(forward, originals, signature)) ||
        failed(readArgumentSources(forward, prepare, signature)))
      return failure();
  } else {
    if (prepare)
      return forward.emitError()
             << "the module has @prepare but @forward has no "
             << kOriginalArgumentsAttrName;
    for (auto [index, type] : llvm::enumerate(forward.getArgumentTypes())) {
      FailureOr<ModelValue> value =
          readArgument(forward, forward.getArgAttrDict(index), type, index,
                       "argument #" + std::to_string(index));
      if (failed(value))
        return failure();
      signature.arguments.push_back(std::move(*value));
      signature.forwardArguments.push_back(
          {ArgumentSource::Kind::Original, static_cast<unsigned>(index)});
    }
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

LogicalResult mlir::sinter::checkModelForOutput(ModuleOp module) {
  FailureOr<ModelSignature> signature = getModelSignature(module);
  if (failed(signature))
    return failure();
  if (failed(
          checkName(module.getLoc(), "the model's name", signature->modelName)))
    return failure();
  for (auto &[name, value] : signature->dims)
    if (failed(
            checkName(module.getLoc(), Twine(kDimsAttrName) + " entry", name)))
      return failure();
  // An argument is reported where it is declared, unless the module is
  // hoisted (its original arguments are an attribute of @forward).
  func::FuncOp forward = getForwardFunc(module);
  bool hoisted = forward->hasAttr(kOriginalArgumentsAttrName);
  for (auto [index, value] : llvm::enumerate(signature->arguments)) {
    Location loc =
        hoisted ? forward.getLoc() : forward.getArgument(index).getLoc();
    if (failed(checkValue(loc,
                          (hoisted ? "original argument #" : "argument #") +
                              std::to_string(index),
                          value)))
      return failure();
  }
  for (auto [index, value] : llvm::enumerate(signature->results))
    if (failed(checkValue(forward.getLoc(), "result #" + std::to_string(index),
                          value)))
      return failure();
  // Every value inside, too: sizes are int64 products everywhere.
  WalkResult sized = module.walk([](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor &&
          failed(checkSize(op->getLoc(),
                           "'" + op->getName().getStringRef() + "' result",
                           tensor)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(sized.wasInterrupted());
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
                                            ? kParamRole
                                            : kInputRole));
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

LogicalResult mlir::sinter::recordOriginalArguments(func::FuncOp forward) {
  if (forward->hasAttr(kOriginalArgumentsAttrName))
    return success();
  Builder builder(forward.getContext());
  llvm::StringSet<> names;
  SmallVector<Attribute> originals;
  for (auto [index, type] : llvm::enumerate(forward.getArgumentTypes())) {
    std::string name =
        readName(forward.getArgAttrDict(index), "arg" + std::to_string(index));
    if (!names.insert(name).second)
      return forward.emitError()
             << "argument name '" << name
             << "' appears twice; a hoisted model needs unique names";
    NamedAttrList attrs(forward.getArgAttrDict(index));
    attrs.set(kNameAttrName, builder.getStringAttr(name));
    forward.setArgAttr(index, kNameAttrName, builder.getStringAttr(name));
    attrs.set(kTypeAttrName, TypeAttr::get(type));
    originals.push_back(attrs.getDictionary(forward.getContext()));
  }
  forward->setAttr(kOriginalArgumentsAttrName, builder.getArrayAttr(originals));
  return success();
}

void mlir::sinter::setPreparedArgumentInfo(func::FuncOp forward, unsigned index,
                                           unsigned preparedIndex,
                                           StringRef name) {
  Builder builder(forward.getContext());
  forward.setArgAttrs(
      index,
      builder.getDictionaryAttr(
          {builder.getNamedAttr(kRoleAttrName,
                                builder.getStringAttr(kPreparedRole)),
           builder.getNamedAttr(kPreparedAttrName,
                                builder.getI64IntegerAttr(preparedIndex)),
           builder.getNamedAttr(kNameAttrName, builder.getStringAttr(name))}));
}
