//===- LowerExpressions.cpp - .sinter expressions to sinter ops -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lowers expressions: literals, names, operators and transposes (calls are
// in Builtins.cpp, attributes and subscripts in Subscripts.cpp). Arithmetic
// on numbers is folded here with Python's semantics, checked for overflow;
// every other operation becomes a sinter op.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<EvalValue> ModelLowering::lowerExpr(const Expr &expr) {
  FailureOr<EvalValue> value = lowerExprOfKind(expr);
  // A number keeps its source text for messages.
  if (succeeded(value) && value->kind == EvalValue::Kind::Number &&
      !expr.source.empty())
    value->spelling = expr.source.str();
  return value;
}

FailureOr<EvalValue> ModelLowering::lowerExprOfKind(const Expr &expr) {
  EvalValue value;
  value.loc = expr.loc;
  switch (expr.kind) {
  case Expr::Kind::Number:
    value.kind = EvalValue::Kind::Number;
    value.number = expr.number;
    value.integer = expr.integer;
    value.isInteger = expr.isInteger;
    return value;
  case Expr::Kind::None:
    value.kind = EvalValue::Kind::None;
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
  case Expr::Kind::Compare:
    return lowerCompare(expr);
  case Expr::Kind::Negate:
    return lowerNegate(expr);
  case Expr::Kind::Transpose:
    return lowerTranspose(expr);
  case Expr::Kind::Attribute:
    return lowerAttribute(expr);
  case Expr::Kind::Index:
    return lowerIndex(expr);
  }
  llvm_unreachable("unknown expression kind");
}

FailureOr<EvalValue> ModelLowering::lowerName(const Expr &expr) {
  if (expr.qualifier == "math")
    return lowerMathName(expr);
  if (inInitHint)
    return emitError(expr.loc) << "arguments of an init hint must be numbers";
  if (!expr.qualifier.empty())
    return emitError(expr.loc)
           << "'" << expr.source << "' is not a value; " << expr.qualifier
           << "." << expr.text << " can only be called";
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
