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
// Arithmetic on numbers is folded here (Python semantics, checked for
// overflow); every other operation becomes a sinter op.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "SyntaxParser.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
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

std::string mlir::sinter::frontend::formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

std::string EvalValue::describe() const {
  switch (kind) {
  case Kind::Tensor:
    return "a tensor";
  case Kind::Number:
    if (isInteger)
      return "the integer " + std::to_string(integer);
    return "the number " + formatNumber(number);
  case Kind::Bool:
    return boolean ? "true" : "false";
  case Kind::String:
    return "the string \"" + text + "\"";
  case Kind::List:
    return "a list";
  case Kind::Dim:
    return "dim '" + text + "'";
  }
  llvm_unreachable("unknown value kind");
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
  propagateDimNames(op);
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
  auto it = dimNames.find(value);
  if (it != dimNames.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return SmallVector<std::string>(type ? type.getRank() : 0, "");
}

/// Names of the NumPy broadcast of two named shapes: a dynamic result dim
/// takes the name of the operand dim it comes from.
static SmallVector<std::string> broadcastNames(ArrayRef<std::string> lhs,
                                               ArrayRef<std::string> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<std::string> names(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t lhsPad = rank - lhs.size(), rhsPad = rank - rhs.size();
    StringRef a = i < lhsPad ? "" : StringRef(lhs[i - lhsPad]);
    StringRef b = i < rhsPad ? "" : StringRef(rhs[i - rhsPad]);
    names[i] = (a.empty() ? b : a).str();
  }
  return names;
}

void ModelLowering::propagateDimNames(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() == 0)
    return;
  auto operandNames = [&](unsigned index) {
    return getDimNames(op->getOperand(index));
  };
  SmallVector<std::string> names =
      llvm::TypeSwitch<Operation *, SmallVector<std::string>>(op)
          .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp>(
              [&](Operation *) {
                return broadcastNames(operandNames(0), operandNames(1));
              })
          .Case([&](MatmulOp matmul) {
            SmallVector<std::string> lhs = operandNames(0),
                                     rhs = operandNames(1);
            SmallVector<std::string> result = broadcastNames(
                ArrayRef(lhs).drop_back(2), ArrayRef(rhs).drop_back(2));
            result.push_back(
                lhs[lhs.size() - (matmul.getTransposeA() ? 1 : 2)]);
            result.push_back(
                rhs[rhs.size() - (matmul.getTransposeB() ? 2 : 1)]);
            return result;
          })
          .Case<SumOp, MeanOp, MaxOp, MinOp, ProdOp, LogsumexpOp, ArgmaxOp,
                ArgminOp, VarOp>([&](auto reduction) {
            SmallVector<std::string> input = operandNames(0), result;
            for (auto [index, name] : llvm::enumerate(input)) {
              bool reduced = llvm::is_contained(reduction.getDims(),
                                                static_cast<int64_t>(index));
              if (!reduced)
                result.push_back(name);
              else if (reduction.getKeepdim())
                result.push_back("");
            }
            return result;
          })
          .Case([&](TransposeOp transpose) {
            SmallVector<std::string> input = operandNames(0), result;
            for (int64_t index : transpose.getPerm())
              result.push_back(input[index]);
            return result;
          })
          .Case([&](ReshapeOp) { return getDimNames(op->getResult(0)); })
          .Default([&](Operation *) { return operandNames(0); });

  // Only dynamic dims carry a name.
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (auto [index, name] : llvm::enumerate(names))
    if (!type.isDynamicDim(index))
      name.clear();
  if (llvm::any_of(names,
                   [](const std::string &name) { return !name.empty(); }))
    dimNames[op->getResult(0)] = std::move(names);
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
    if (llvm::any_of(argument.dimNames,
                     [](const std::string &name) { return !name.empty(); }))
      dimNames[blockArgument] = argument.dimNames;
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
    case Statement::Kind::Assign: {
      if (dims.count(statement.name))
        return emitError(statement.nameLoc)
               << "cannot assign to dim '" << statement.name << "'";
      FailureOr<EvalValue> value = lowerExpr(*statement.value);
      if (failed(value))
        return failure();
      scope[statement.name] = std::move(*value);
      break;
    }
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

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<EvalValue> ModelLowering::lowerExpr(const Expr &expr) {
  EvalValue value;
  value.loc = expr.loc;
  switch (expr.kind) {
  case Expr::Kind::Number:
    value.kind = EvalValue::Kind::Number;
    value.number = expr.number;
    value.integer = expr.integer;
    value.isInteger = expr.isInteger;
    return value;
  case Expr::Kind::Bool:
    value.kind = EvalValue::Kind::Bool;
    value.boolean = expr.boolean;
    return value;
  case Expr::Kind::String:
    value.kind = EvalValue::Kind::String;
    value.text = expr.text;
    return value;
  case Expr::Kind::List:
    value.kind = EvalValue::Kind::List;
    for (const ExprPtr &element : expr.operands) {
      FailureOr<EvalValue> lowered = lowerExpr(*element);
      if (failed(lowered))
        return failure();
      value.list.push_back(std::move(*lowered));
    }
    return value;
  case Expr::Kind::Name:
    return lowerName(expr);
  case Expr::Kind::Call:
    return lowerCall(expr);
  case Expr::Kind::Binary:
    return lowerBinary(expr);
  case Expr::Kind::Negate:
    return lowerNegate(expr);
  case Expr::Kind::Transpose:
    return lowerTranspose(expr);
  }
  llvm_unreachable("unknown expression kind");
}

FailureOr<EvalValue> ModelLowering::lowerName(const Expr &expr) {
  if (inInitHint)
    return emitError(expr.loc) << "arguments of an init hint must be numbers";
  auto it = scope.find(expr.text);
  if (it != scope.end()) {
    EvalValue value = it->second;
    value.loc = expr.loc;
    return value;
  }
  if (dims.count(expr.text)) {
    EvalValue value;
    value.kind = EvalValue::Kind::Dim;
    value.loc = expr.loc;
    value.text = expr.text;
    return value;
  }
  if (SMLoc declared = declarations.lookup(expr.text); declared.isValid()) {
    InFlightDiagnostic diag = emitError(expr.loc)
                              << "'" << expr.text
                              << "' is used before its declaration";
    diag.attachNote(getLoc(declared))
        << "'" << expr.text << "' is declared here";
    return failure();
  }
  SmallVector<StringRef> candidates;
  appendKeys(scope, candidates);
  appendKeys(dims, candidates);
  InFlightDiagnostic diag = emitError(expr.loc)
                            << "use of undeclared name '" << expr.text << "'";
  suggestClosest(diag, expr.text, candidates);
  return failure();
}

/// Applies `op` to two integers with Python's semantics; false on overflow.
static bool foldIntegers(char op, int64_t lhs, int64_t rhs, int64_t &result) {
  switch (op) {
  case '+':
    return !llvm::AddOverflow(lhs, rhs, result);
  case '-':
    return !llvm::SubOverflow(lhs, rhs, result);
  case '*':
    return !llvm::MulOverflow(lhs, rhs, result);
  default:
    llvm_unreachable("integer folding handles + - * only");
  }
}

FailureOr<EvalValue> ModelLowering::foldBinary(char op, SMLoc loc,
                                               const EvalValue &lhs,
                                               const EvalValue &rhs) {
  EvalValue result;
  result.kind = EvalValue::Kind::Number;
  result.loc = lhs.loc;
  if (op == '@')
    return emitError(loc) << "'@' multiplies matrices; both operands must be "
                             "tensors, got "
                          << lhs.describe() << " and " << rhs.describe();
  if (op == '/' && rhs.number == 0.0)
    return emitError(loc) << "division by zero";
  if (lhs.isInteger && rhs.isInteger && op != '/') {
    if (!foldIntegers(op, lhs.integer, rhs.integer, result.integer))
      return emitError(loc) << "integer overflow in " << lhs.integer << " "
                            << op << " " << rhs.integer;
    result.isInteger = true;
    result.number = static_cast<double>(result.integer);
    return result;
  }
  switch (op) {
  case '+':
    result.number = lhs.number + rhs.number;
    break;
  case '-':
    result.number = lhs.number - rhs.number;
    break;
  case '*':
    result.number = lhs.number * rhs.number;
    break;
  default:
    result.number = lhs.number / rhs.number;
    break;
  }
  if (!std::isfinite(result.number))
    return emitError(loc) << "the constant " << formatNumber(lhs.number) << " "
                          << op << " " << formatNumber(rhs.number)
                          << " overflows a double";
  return result;
}

/// Returns true if `value` can be an operand of an arithmetic operator.
static bool isArithmetic(const EvalValue &value) {
  return value.kind == EvalValue::Kind::Tensor ||
         value.kind == EvalValue::Kind::Number;
}

FailureOr<EvalValue> ModelLowering::lowerBinary(const Expr &expr) {
  // `a @ b.T` and `a.T @ b` set the matmul's transpose flags instead of
  // materializing the transpose.
  auto stripTranspose = [&](const Expr &operand) -> const Expr & {
    if (expr.op == '@' && operand.kind == Expr::Kind::Transpose)
      return *operand.operands[0];
    return operand;
  };
  const Expr &lhsExpr = stripTranspose(*expr.operands[0]);
  const Expr &rhsExpr = stripTranspose(*expr.operands[1]);
  FailureOr<EvalValue> lhs = lowerExpr(lhsExpr);
  if (failed(lhs))
    return failure();
  FailureOr<EvalValue> rhs = lowerExpr(rhsExpr);
  if (failed(rhs))
    return failure();
  for (const EvalValue *operand : {&*lhs, &*rhs})
    if (!isArithmetic(*operand))
      return emitError(operand->loc)
             << "operand of '" << expr.op << "' must be a tensor or a number, "
             << "got " << operand->describe();
  if (lhs->kind == EvalValue::Kind::Number &&
      rhs->kind == EvalValue::Kind::Number)
    return foldBinary(expr.op, expr.loc, *lhs, *rhs);

  Type scalarType = getScalarTypeFor(
      lhs->kind == EvalValue::Kind::Tensor ? lhs->tensor : rhs->tensor);
  if (expr.op == '@')
    for (const EvalValue *operand : {&*lhs, &*rhs})
      if (operand->kind != EvalValue::Kind::Tensor)
        return emitError(operand->loc)
               << "operand of '@' must be a tensor, got "
               << operand->describe();
  FailureOr<Value> a = toTensor(*lhs, scalarType, "operand");
  FailureOr<Value> b = toTensor(*rhs, scalarType, "operand");
  if (failed(a) || failed(b))
    return failure();

  FailureOr<Value> result;
  switch (expr.op) {
  case '+':
    result = create<AddOp>(expr.loc, {*a, *b});
    break;
  case '-':
    result = create<SubOp>(expr.loc, {*a, *b});
    break;
  case '*':
    result = create<MulOp>(expr.loc, {*a, *b});
    break;
  case '/':
    result = create<DivOp>(expr.loc, {*a, *b});
    break;
  default:
    result = lowerMatmul(expr.loc, *a, *b, &lhsExpr != expr.operands[0].get(),
                         &rhsExpr != expr.operands[1].get());
    break;
  }
  if (failed(result))
    return failure();
  return EvalValue::getTensor(*result, expr.loc);
}

FailureOr<Value> ModelLowering::lowerMatmul(SMLoc loc, Value lhs, Value rhs,
                                            bool transposeA, bool transposeB) {
  for (auto [value, transposed] :
       {std::pair{lhs, transposeA}, {rhs, transposeB}})
    if (transposed && cast<RankedTensorType>(value.getType()).getRank() != 2)
      return emitError(loc) << "'.T' needs a 2-D tensor, got rank "
                            << cast<RankedTensorType>(value.getType()).getRank()
                            << "; use transpose(x, dim0, dim1)";
  SmallVector<NamedAttribute> attributes;
  if (transposeA)
    attributes.push_back(
        builder.getNamedAttr("transpose_a", builder.getUnitAttr()));
  if (transposeB)
    attributes.push_back(
        builder.getNamedAttr("transpose_b", builder.getUnitAttr()));
  return create<MatmulOp>(loc, {lhs, rhs}, attributes);
}

FailureOr<EvalValue> ModelLowering::lowerNegate(const Expr &expr) {
  FailureOr<EvalValue> operand = lowerExpr(*expr.operands[0]);
  if (failed(operand))
    return failure();
  EvalValue value = *operand;
  value.loc = expr.loc;
  if (operand->kind == EvalValue::Kind::Number) {
    value.number = -operand->number;
    value.integer = -operand->integer;
    return value;
  }
  if (operand->kind != EvalValue::Kind::Tensor)
    return emitError(operand->loc)
           << "operand of unary '-' must be a tensor or a number, got "
           << operand->describe();
  FailureOr<Value> negated = create<NegOp>(expr.loc, {operand->tensor});
  if (failed(negated))
    return failure();
  value.tensor = *negated;
  return value;
}

FailureOr<EvalValue> ModelLowering::lowerTranspose(const Expr &expr) {
  FailureOr<EvalValue> operand = lowerExpr(*expr.operands[0]);
  if (failed(operand))
    return failure();
  if (operand->kind != EvalValue::Kind::Tensor)
    return emitError(expr.loc)
           << "'.T' needs a 2-D tensor, got " << operand->describe();
  auto type = cast<RankedTensorType>(operand->tensor.getType());
  if (type.getRank() != 2)
    return emitError(expr.loc)
           << "'.T' needs a 2-D tensor, got rank " << type.getRank()
           << "; use transpose(x, dim0, dim1)";
  FailureOr<Value> transposed = create<TransposeOp>(
      expr.loc, {operand->tensor},
      {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr({1, 0}))});
  if (failed(transposed))
    return failure();
  EvalValue value = *operand;
  value.loc = expr.loc;
  value.tensor = *transposed;
  return value;
}

OwningOpRef<ModuleOp>
mlir::sinter::frontend::lowerModel(const ModelDecl &model,
                                   const llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context) {
  return ModelLowering(model, sourceMgr, context).lower();
}
