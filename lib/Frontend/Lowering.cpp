//===- Lowering.cpp - .sinter syntax tree to the sinter dialect -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lowers one model in two passes. The first reads the declarations (dims,
// inputs, params) and builds @forward's signature; the second lowers the
// statements in order, so that a name is visible from its declaration on.
// Expressions are lowered in LowerExpressions.cpp, calls in Builtins.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "SyntaxParser.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool mlir::sinter::frontend::suggestClosest(InFlightDiagnostic &diag,
                                            StringRef name,
                                            ArrayRef<StringRef> candidates) {
  StringRef best;
  unsigned bestDistance = std::max<size_t>(2, name.size() / 3) + 1;
  for (StringRef candidate : candidates) {
    unsigned distance =
        name.edit_distance(candidate, /*AllowReplacements=*/true,
                           /*MaxEditDistance=*/bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best.empty())
    return false;
  diag << "; did you mean '" << best << "'?";
  return true;
}

std::string EvalValue::describe() const {
  switch (kind) {
  case Kind::Tensor:
    return "a tensor";
  case Kind::Number:
    return (isInteger ? "the integer " : "the number ") + getSpelling();
  case Kind::Bool:
    return boolean ? "True" : "False";
  case Kind::None:
    return "None";
  case Kind::String:
    return "the string \"" + text + "\"";
  case Kind::List:
    return "a list";
  case Kind::Dim:
    return "dim '" + text + "'";
  }
  llvm_unreachable("unknown value kind");
}

/// Whether `text` is a number literal ("2.0", "-1e-5"), not an expression.
static bool isLiteral(StringRef text) {
  double value;
  return !text.getAsDouble(value);
}

std::string EvalValue::getSpelling() const {
  std::string value =
      isInteger ? std::to_string(integer) : formatNumber(number);
  if (spelling.empty() || spelling == value)
    return value;
  if (isLiteral(spelling))
    return spelling;
  return spelling + " (= " + value + ")";
}

ModelLowering::ModelLowering(const ModelDecl &model,
                             const llvm::SourceMgr &sourceMgr,
                             MLIRContext *context)
    : model(model), sourceMgr(sourceMgr), builder(context) {}

Location ModelLowering::getLoc(SMLoc loc) const {
  return getSourceLocation(builder.getContext(), sourceMgr, loc);
}

InFlightDiagnostic ModelLowering::emitError(SMLoc loc) const {
  return mlir::emitError(getLoc(loc));
}

//===----------------------------------------------------------------------===//
// Op creation
//===----------------------------------------------------------------------===//

FailureOr<Value> ModelLowering::finishOp(Operation *op) {
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  // Names the result's dims by the op's shape rule (a rule that breaks its
  // contract is reported there, and leaves the dims unnamed).
  (void)shapes.visit(op);
  return op->getResult(0);
}

NamedAttribute ModelLowering::getSegmentSizes(ArrayRef<Value> operands,
                                              SmallVectorImpl<Value> &present) {
  SmallVector<int32_t> sizes;
  for (Value operand : operands) {
    sizes.push_back(operand ? 1 : 0);
    if (operand)
      present.push_back(operand);
  }
  return builder.getNamedAttr("operandSegmentSizes",
                              builder.getDenseI32ArrayAttr(sizes));
}

Type ModelLowering::getScalarTypeFor(Value tensor) const {
  auto type = tensor ? dyn_cast<RankedTensorType>(tensor.getType()) : nullptr;
  if (type && isa<FloatType>(type.getElementType()))
    return type.getElementType();
  return Float32Type::get(builder.getContext());
}

FailureOr<Value> ModelLowering::createScalar(SMLoc loc, double value,
                                             Type elementType) {
  auto floatType = cast<FloatType>(elementType);
  APFloat converted(value);
  bool losesInfo = false;
  APFloat::opStatus status = converted.convert(
      floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  if (status & APFloat::opOverflow)
    return emitError(loc) << "constant " << formatNumber(value) << " overflows "
                          << elementType;
  auto type = RankedTensorType::get({}, elementType);
  return create<ConstantOp>(
      loc, {},
      {builder.getNamedAttr("value", DenseElementsAttr::get(type, converted))});
}

FailureOr<Value> ModelLowering::toTensor(const EvalValue &value,
                                         Type elementType, llvm::Twine what) {
  if (value.kind == EvalValue::Kind::Tensor)
    return value.tensor;
  if (value.kind == EvalValue::Kind::Number)
    return createScalar(value.loc, value.number, elementType);
  return emitError(value.loc)
         << what << " must be a tensor or a number, got " << value.describe();
}

//===----------------------------------------------------------------------===//
// Symbolic dim names
//===----------------------------------------------------------------------===//

SmallVector<std::string> ModelLowering::getDimNames(Value value) const {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return {};
  return getDimNamesOfShape(type, shapes.getShape(value));
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

LogicalResult ModelLowering::declareName(StringRef name, SMLoc loc) {
  auto [it, inserted] = declarations.try_emplace(name, loc);
  if (inserted)
    return success();
  InFlightDiagnostic diag = emitError(loc)
                            << "redefinition of '" << name << "'";
  diag.attachNote(getLoc(it->second))
      << "'" << name << "' was first declared here";
  return failure();
}

FailureOr<ModelValue> ModelLowering::resolveType(const TypeSpec &spec,
                                                 int64_t &lastDimSize) {
  lastDimSize = 1;
  Type elementType = llvm::StringSwitch<Type>(spec.elementType)
                         .Case("f32", builder.getF32Type())
                         .Case("f16", builder.getF16Type())
                         .Case("bf16", builder.getBF16Type())
                         .Default(Type());
  if (!elementType) {
    InFlightDiagnostic diag = emitError(spec.loc)
                              << "unknown element type '" << spec.elementType
                              << "'; expected f32, f16 or bf16";
    return failure();
  }

  if (spec.dims.size() > kMaxRank)
    return emitError(spec.loc) << "tensor has " << spec.dims.size()
                               << " dims; the limit is " << kMaxRank;
  ModelValue value;
  SmallVector<int64_t> shape;
  int64_t elements = 1;
  for (const DimSpec &dim : spec.dims) {
    int64_t size = dim.size;
    if (!dim.name.empty()) {
      auto it = dims.find(dim.name);
      if (it == dims.end()) {
        SmallVector<StringRef> candidates;
        appendKeys(dims, candidates);
        InFlightDiagnostic diag = emitError(dim.loc)
                                  << "unknown dim '" << dim.name << "'";
        if (!suggestClosest(diag, dim.name, candidates))
          diag << "; declare it first with 'dim " << dim.name << " = <size>'";
        return failure();
      }
      size = it->second;
      shape.push_back(ShapedType::kDynamic);
    } else {
      shape.push_back(size);
    }
    value.dimNames.push_back(dim.name);
    lastDimSize = size;
    if (llvm::MulOverflow(elements, size, elements))
      return emitError(spec.loc)
             << "tensor has too many elements (more than 2^63 at the "
                "default dim sizes)";
  }
  value.type = RankedTensorType::get(shape, elementType);
  return value;
}

LogicalResult ModelLowering::declareSignature() {
  for (const Statement &statement : model.body) {
    switch (statement.kind) {
    case Statement::Kind::Dim:
      if (failed(declareName(statement.name, statement.nameLoc)))
        return failure();
      dims[statement.name] = statement.dimValue;
      break;
    case Statement::Kind::Input:
    case Statement::Kind::Param: {
      if (failed(declareName(statement.name, statement.nameLoc)))
        return failure();
      int64_t lastDimSize = 1;
      FailureOr<ModelValue> value = resolveType(statement.type, lastDimSize);
      if (failed(value))
        return failure();
      value->name = statement.name;
      if (statement.kind == Statement::Kind::Param) {
        value->role = ArgumentRole::Param;
        FailureOr<InitHint> hint =
            lowerInitHint(statement.value.get(), lastDimSize);
        if (failed(hint))
          return failure();
        value->init = std::move(*hint);
      }
      arguments.push_back(std::move(*value));
      break;
    }
    case Statement::Kind::Assign:
    case Statement::Kind::Return:
      break;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> ModelLowering::lower() {
  MLIRContext *context = builder.getContext();
  module = ModuleOp::create(getLoc(model.loc), StringRef(model.name));
  if (failed(declareSignature()))
    return nullptr;

  if (!dims.empty()) {
    SmallVector<NamedAttribute> entries;
    for (const auto &dim : dims)
      entries.push_back(builder.getNamedAttr(
          dim.getKey(), builder.getI64IntegerAttr(dim.getValue())));
    (*module)->setAttr(kDimsAttrName, builder.getDictionaryAttr(entries));
  }

  SmallVector<Type> argumentTypes;
  for (const ModelValue &argument : arguments)
    argumentTypes.push_back(argument.type);
  builder.setInsertionPointToEnd(module->getBody());
  forward = func::FuncOp::create(builder, getLoc(model.loc), kForwardFuncName,
                                 FunctionType::get(context, argumentTypes, {}));
  Block *entry = forward.addEntryBlock();
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    setArgumentInfo(forward, index, argument);
    BlockArgument blockArgument = entry->getArgument(index);
    blockArgument.setLoc(getLoc(declarations.lookup(argument.name)));
    setDimNames(blockArgument, argument.dimNames);
  }
  builder.setInsertionPointToStart(entry);

  if (failed(lowerBody()) || failed(mlir::verify(*module)))
    return nullptr;
  return std::move(module);
}

LogicalResult ModelLowering::lowerBody() {
  unsigned argumentIndex = 0;
  const Statement *returnStatement = nullptr;
  for (const Statement &statement : model.body) {
    if (returnStatement)
      return emitError(statement.loc)
             << "statement after 'return'; return must be the last statement "
                "of model '"
             << model.name << "'";
    switch (statement.kind) {
    case Statement::Kind::Dim:
      break;
    case Statement::Kind::Input:
    case Statement::Kind::Param: {
      if (scope.count(statement.name))
        return emitError(statement.nameLoc)
               << "'" << statement.name
               << "' is already assigned above; declare inputs and params "
                  "before using their names";
      scope[statement.name] = EvalValue::getTensor(
          forward.getArgument(argumentIndex++), statement.nameLoc);
      break;
    }
    case Statement::Kind::Assign:
      if (failed(lowerAssign(statement)))
        return failure();
      break;
    case Statement::Kind::Return:
      if (failed(lowerReturn(statement)))
        return failure();
      returnStatement = &statement;
      break;
    }
  }
  if (!returnStatement)
    return emitError(model.loc)
           << "model '" << model.name
           << "' has no 'return' statement; end it with 'return EXPR'";
  return success();
}

LogicalResult ModelLowering::lowerAssign(const Statement &statement) {
  SmallVector<std::pair<std::string, SMLoc>> targets(statement.targets.begin(),
                                                     statement.targets.end());
  if (targets.empty())
    targets.emplace_back(statement.name, statement.nameLoc);
  for (const auto &[name, loc] : targets)
    if (dims.count(name))
      return emitError(loc) << "cannot assign to dim '" << name << "'";
  if (statement.targets.empty()) {
    FailureOr<EvalValue> value = lowerExpr(*statement.value);
    if (failed(value))
      return failure();
    scope[statement.name] = std::move(*value);
    return success();
  }
  FailureOr<SmallVector<EvalValue>> values =
      lowerUnpacked(*statement.value, targets.size());
  if (failed(values))
    return failure();
  for (auto [target, value] : llvm::zip(targets, *values))
    scope[target.first] = std::move(value);
  return success();
}

LogicalResult ModelLowering::lowerReturn(const Statement &statement) {
  SmallVector<Value> results;
  SmallVector<ModelValue> infos;
  llvm::StringSet<> usedNames;
  for (auto [index, expr] : llvm::enumerate(statement.results)) {
    FailureOr<EvalValue> value = lowerExpr(*expr);
    if (failed(value))
      return failure();
    if (value->kind != EvalValue::Kind::Tensor)
      return emitError(expr->loc)
             << "a model returns tensors, got " << value->describe();
    ModelValue info;
    std::string name = expr->kind == Expr::Kind::Name
                           ? expr->text
                           : "out" + std::to_string(index);
    if (!usedNames.insert(name).second)
      name = "out" + std::to_string(index);
    usedNames.insert(name);
    info.name = name;
    info.dimNames = getDimNames(value->tensor);
    results.push_back(value->tensor);
    infos.push_back(std::move(info));
  }
  func::ReturnOp::create(builder, getLoc(statement.loc), results);
  forward.setFunctionType(FunctionType::get(builder.getContext(),
                                            forward.getArgumentTypes(),
                                            ValueRange(results).getTypes()));
  for (auto [index, info] : llvm::enumerate(infos))
    setResultInfo(forward, index, info);
  return success();
}

OwningOpRef<ModuleOp>
mlir::sinter::frontend::lowerModel(const ModelDecl &model,
                                   const llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context) {
  return ModelLowering(model, sourceMgr, context).lower();
}
