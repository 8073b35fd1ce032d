//===- Subscripts.cpp - Attributes and subscripts in .sinter --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `x.shape`, `x.ndim`, `x.shape[1]`, the `.values` / `.indices` (or `[0]` /
// `[1]`) of max(x, dim) and min(x, dim), elements of tuples, and the
// messages for the attributes and subscripts the language does not have.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

FailureOr<EvalValue> ModelLowering::getShapeValue(const EvalValue &value,
                                                  SMLoc loc, bool rankOnly) {
  if (value.kind != EvalValue::Kind::Tensor)
    return emitError(loc) << "only tensors have a shape, got "
                          << value.describe();
  auto type = cast<RankedTensorType>(value.tensor.getType());
  auto integer = [&](int64_t n) {
    EvalValue element;
    element.kind = EvalValue::Kind::Number;
    element.loc = loc;
    element.isInteger = true;
    element.integer = n;
    element.number = static_cast<double>(n);
    return element;
  };
  if (rankOnly)
    return integer(type.getRank());
  EvalValue shape;
  shape.kind = EvalValue::Kind::List;
  shape.loc = loc;
  for (auto [size, name] :
       llvm::zip(type.getShape(), getDimNames(value.tensor))) {
    if (!ShapedType::isDynamic(size)) {
      shape.list.push_back(integer(size));
      continue;
    }
    EvalValue dim;
    dim.kind = EvalValue::Kind::Dim;
    dim.loc = loc;
    dim.text = name;
    shape.list.push_back(std::move(dim));
  }
  return shape;
}

FailureOr<EvalValue> ModelLowering::selectElement(const EvalValue &list,
                                                  const EvalValue &index,
                                                  StringRef what) {
  if (index.kind != EvalValue::Kind::Number || !index.isInteger)
    return emitError(index.loc)
           << "an index of " << what << " must be an integer, got "
           << index.describe();
  int64_t size = list.list.size();
  int64_t position = index.integer < 0 ? index.integer + size : index.integer;
  if (position < 0 || position >= size)
    return emitError(index.loc)
           << "index " << index.integer << " is out of range for " << what
           << " of " << size << " element" << (size == 1 ? "" : "s");
  EvalValue element = list.list[position];
  if (element.kind == EvalValue::Kind::Dim && element.text.empty())
    return emitError(index.loc)
           << "dim " << position
           << " of the tensor is computed at run time and has no name; use "
              "-1 in reshape() to infer it";
  element.loc = index.loc;
  return element;
}

FailureOr<EvalValue> ModelLowering::lowerAttribute(const Expr &expr) {
  const Expr &base = *expr.operands[0];
  StringRef name = expr.text;
  if (name == "values" || name == "indices") {
    if (!isValuesAndIndicesCall(base))
      return emitError(expr.loc)
             << "'." << name
             << "' exists on the result of max(x, dim) and min(x, dim) "
                "only";
    FailureOr<SmallVector<Value, 2>> result =
        lowerValuesAndIndices(base, name == "values", name == "indices");
    if (failed(result))
      return failure();
    return EvalValue::getTensor(result->front(), expr.loc);
  }
  if (name == "shape" || name == "ndim") {
    FailureOr<EvalValue> value = lowerExpr(base);
    if (failed(value))
      return failure();
    return getShapeValue(*value, expr.loc, name == "ndim");
  }
  InFlightDiagnostic diag = emitError(expr.loc);
  if (llvm::any_of(getBuiltins(), [&](const Builtin &builtin) {
        return builtin.isMethod && builtin.name == name;
      }))
    return diag << "'." << name << "' is a method; call it: x." << name
                << "(...)";
  diag << "unknown attribute '." << name << "'";
  if (!suggestClosest(diag, name, {"T", "shape", "ndim", "values", "indices"}))
    diag << "; tensors have .T, .shape and .ndim, and methods such as "
            "x.sum(1) (sinterc --list-builtins marks them)";
  return failure();
}

/// Quotes a subscript expression for a message: "'x[:, :32]'".
static std::string describeSubscripts(const Expr &expr) {
  return "'" + expr.source.str() + "'";
}

FailureOr<EvalValue> ModelLowering::lowerIndex(const Expr &expr) {
  const Expr &base = *expr.operands[0];
  auto singleIndex = [&]() -> const Expr * {
    if (expr.subscripts.size() != 1 || expr.subscripts[0].isSlice)
      return nullptr;
    return expr.subscripts[0].index.get();
  };
  if (isValuesAndIndicesCall(base)) {
    const Expr *index = singleIndex();
    if (!index || index->kind != Expr::Kind::Number || !index->isInteger ||
        (index->integer != 0 && index->integer != 1))
      return emitError(expr.loc)
             << base.text << "(x, dim) returns (values, indices): index it "
             << "with [0] or [1] (or use .values, .indices)";
    FailureOr<SmallVector<Value, 2>> result =
        lowerValuesAndIndices(base, index->integer == 0, index->integer == 1);
    if (failed(result))
      return failure();
    return EvalValue::getTensor(result->front(), expr.loc);
  }
  FailureOr<EvalValue> value = lowerExpr(base);
  if (failed(value))
    return failure();
  if (value->kind == EvalValue::Kind::List) {
    const Expr *index = singleIndex();
    if (!index)
      return emitError(expr.loc)
             << "a tuple takes one integer index, as in x.shape[1]; got "
             << describeSubscripts(expr);
    FailureOr<EvalValue> position = lowerExpr(*index);
    if (failed(position))
      return failure();
    return selectElement(*value, *position, "the tuple");
  }
  if (value->kind != EvalValue::Kind::Tensor)
    return emitError(expr.loc) << "cannot index " << value->describe();
  return lowerTensorIndex(expr, value->tensor);
}

FailureOr<EvalValue> ModelLowering::lowerTensorIndex(const Expr &expr,
                                                     Value tensor) {
  (void)tensor;
  for (const Subscript &subscript : expr.subscripts)
    if (subscript.step)
      return emitError(subscript.step->loc)
             << "slicing with a step (" << describeSubscripts(expr)
             << ") is not supported; for windows of a dim use avg_pool1d() or "
                "max_pool1d()";
  return emitError(expr.loc)
         << "indexing and slicing tensors (" << describeSubscripts(expr)
         << ") is not supported yet (the dialect has no slice op); compute "
            "the part directly, e.g. linear() with the rows of the weight it "
            "needs; unsqueeze(x, dim) adds a dim, reshape() regroups";
}
