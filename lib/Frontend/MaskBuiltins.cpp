//===- MaskBuiltins.cpp - Comparisons and where() in .sinter --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `a > b` and torch.gt ... torch.ne lower to sinter.compare, whose result is
// a 0/1 mask of the operands' element type (there are no boolean tensors);
// where(condition, input, other) lowers to sinter.select.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

/// The element type numbers take among `values`: that of the first tensor.
static Type getScalarTypeAmong(ModelLowering &lowering,
                               ArrayRef<const EvalValue *> values) {
  for (const EvalValue *value : values)
    if (value->kind == EvalValue::Kind::Tensor)
      return lowering.getScalarTypeFor(value->tensor);
  return lowering.getScalarTypeFor(Value());
}

FailureOr<Value> ModelLowering::createComparison(SMLoc loc,
                                                 ComparePredicate predicate,
                                                 const EvalValue &lhs,
                                                 const EvalValue &rhs) {
  if (lhs.kind != EvalValue::Kind::Tensor &&
      rhs.kind != EvalValue::Kind::Tensor)
    return emitError(loc) << "a comparison needs a tensor operand, got "
                          << lhs.describe() << " and " << rhs.describe()
                          << " (there are no boolean constants)";
  Type scalarType = getScalarTypeAmong(*this, {&lhs, &rhs});
  FailureOr<Value> a = toTensor(lhs, scalarType, "operand of a comparison");
  FailureOr<Value> b =
      failed(a) ? FailureOr<Value>()
                : toTensor(rhs, scalarType, "operand of a comparison");
  if (failed(b))
    return failure();
  return create<CompareOp>(
      loc, {*a, *b},
      {builder.getNamedAttr(
          "predicate",
          ComparePredicateAttr::get(builder.getContext(), predicate))});
}

FailureOr<EvalValue> ModelLowering::lowerCompare(const Expr &expr) {
  ComparePredicate predicate = llvm::StringSwitch<ComparePredicate>(expr.text)
                                   .Case("<", ComparePredicate::lt)
                                   .Case("<=", ComparePredicate::le)
                                   .Case(">", ComparePredicate::gt)
                                   .Case(">=", ComparePredicate::ge)
                                   .Case("==", ComparePredicate::eq)
                                   .Default(ComparePredicate::ne);
  FailureOr<EvalValue> lhs = lowerExpr(*expr.operands[0]);
  if (failed(lhs))
    return failure();
  FailureOr<EvalValue> rhs = lowerExpr(*expr.operands[1]);
  if (failed(rhs))
    return failure();
  FailureOr<Value> mask = createComparison(expr.loc, predicate, *lhs, *rhs);
  if (failed(mask))
    return failure();
  return EvalValue::getTensor(*mask, expr.loc);
}

/// gt(input, other) ... ne(input, other).
template <ComparePredicate predicate>
static FailureOr<Value> lowerComparison(const Arguments &args) {
  return args.lowering.createComparison(args.getLoc(), predicate,
                                        *args.get("input"), *args.get("other"));
}

/// where(condition, input, other): `input` and `other` may be numbers.
static FailureOr<Value> lowerWhere(const Arguments &args) {
  FailureOr<Value> condition = args.tensor("condition");
  if (failed(condition))
    return failure();
  const EvalValue *input = args.get("input"), *other = args.get("other");
  Type scalarType =
      getScalarTypeAmong(args.lowering, {input, other, args.get("condition")});
  FailureOr<Value> a = args.tensorOrNumber("input", scalarType);
  FailureOr<Value> b =
      failed(a) ? FailureOr<Value>() : args.tensorOrNumber("other", scalarType);
  if (failed(b))
    return failure();
  return args.lowering.create<SelectOp>(args.getLoc(), {*condition, *a, *b});
}

void frontend::addMaskBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, LowerFn lower) {
    builtins.push_back(
        {name, std::move(params), mirrors, summary, /*isMethod=*/true, lower});
  };
  add("lt", {"input", "other"}, "torch.lt",
      "input < other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::lt>);
  add("le", {"input", "other"}, "torch.le",
      "input <= other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::le>);
  add("gt", {"input", "other"}, "torch.gt",
      "input > other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::gt>);
  add("ge", {"input", "other"}, "torch.ge",
      "input >= other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::ge>);
  add("eq", {"input", "other"}, "torch.eq",
      "input == other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::eq>);
  add("ne", {"input", "other"}, "torch.ne",
      "input != other as a 0/1 mask, with broadcasting",
      lowerComparison<ComparePredicate::ne>);
  add("where", {"condition", "input", "other"}, "torch.where",
      "input where condition is nonzero, else other, with broadcasting",
      lowerWhere);
}
