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

#include <algorithm>

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

/// Reports a subscript part that is not an integer, at `loc`.
static LogicalResult emitNotAnInteger(ModelLowering &lowering, SMLoc loc,
                                      const EvalValue &value) {
  InFlightDiagnostic diag = lowering.emitError(loc);
  if (value.kind == EvalValue::Kind::None)
    diag << "indexing with None (a new dim) is not supported; use "
            "unsqueeze(x, dim)";
  else if (value.kind == EvalValue::Kind::Tensor)
    diag << "indexing with a tensor is not supported; for a masked choice "
            "use where(mask, x, other)";
  else
    diag << "a subscript must be an integer or a slice with integer bounds, "
            "got "
         << value.describe();
  return diag;
}

/// Lowers an optional slice bound: absent or None gives `absent`, an integer
/// is normalized against `size` and clamped to [0, size] as in Python.
static FailureOr<int64_t> lowerBound(ModelLowering &lowering,
                                     const ExprPtr &expr, int64_t size,
                                     int64_t absent) {
  if (!expr)
    return absent;
  FailureOr<EvalValue> value = lowering.lowerExpr(*expr);
  if (failed(value))
    return failure();
  if (value->kind == EvalValue::Kind::None)
    return absent;
  if (value->kind != EvalValue::Kind::Number || !value->isInteger)
    return emitNotAnInteger(lowering, value->loc, *value);
  int64_t bound = value->integer < 0 ? value->integer + size : value->integer;
  return std::clamp<int64_t>(bound, 0, size);
}

FailureOr<EvalValue> ModelLowering::lowerTensorIndex(const Expr &expr,
                                                     Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  // `...` stands for as many whole dims as the other subscripts leave.
  auto isEllipsis = [](const Subscript &subscript) {
    return !subscript.isSlice && subscript.index->kind == Expr::Kind::Name &&
           subscript.index->text == "...";
  };
  int64_t numEllipses = llvm::count_if(expr.subscripts, isEllipsis);
  int64_t numIndexed =
      static_cast<int64_t>(expr.subscripts.size()) - numEllipses;
  if (numEllipses > 1)
    return emitError(expr.loc)
           << "more than one '...' in " << describeSubscripts(expr);
  if (numIndexed > type.getRank())
    return emitError(expr.loc)
           << "too many subscripts in " << describeSubscripts(expr)
           << " for a tensor of rank " << type.getRank();
  SmallVector<std::pair<int64_t, const Subscript *>> items;
  int64_t nextDim = 0;
  for (const Subscript &subscript : expr.subscripts) {
    if (isEllipsis(subscript)) {
      nextDim += type.getRank() - numIndexed;
      continue;
    }
    items.push_back({nextDim++, &subscript});
  }
  Value result = tensor;
  SmallVector<int64_t> droppedDims;
  for (auto [dim, subscriptPtr] : items) {
    const Subscript &subscript = *subscriptPtr;
    int64_t size = type.getDimSize(dim);
    int64_t start = 0, end = size;
    if (!subscript.isSlice) {
      FailureOr<EvalValue> index = lowerExpr(*subscript.index);
      if (failed(index))
        return failure();
      if (index->kind != EvalValue::Kind::Number || !index->isInteger)
        return emitNotAnInteger(*this, subscript.loc, *index);
      FailureOr<int64_t> staticSize =
          getStaticDimSize(subscript.loc, result, dim, "indexing");
      if (failed(staticSize))
        return failure();
      start = index->integer < 0 ? index->integer + size : index->integer;
      if (start < 0 || start >= size)
        return emitError(subscript.loc)
               << "index " << index->integer << " is out of range for dim "
               << dim << " of size " << size;
      end = start + 1;
      droppedDims.push_back(dim);
    } else {
      if (subscript.step) {
        FailureOr<EvalValue> step = lowerExpr(*subscript.step);
        if (failed(step))
          return failure();
        bool isOne = step->kind == EvalValue::Kind::None ||
                     (step->kind == EvalValue::Kind::Number &&
                      step->isInteger && step->integer == 1);
        if (!isOne)
          return emitError(subscript.step->loc)
                 << "slicing with a step (" << describeSubscripts(expr)
                 << ") is not supported; slices are contiguous (x[a:b]); "
                    "for windows of a dim use avg_pool1d() or max_pool1d()";
      }
      bool full = (!subscript.start && !subscript.stop);
      if (full)
        continue;
      if (ShapedType::isDynamic(size)) {
        // A symbolic dim is sliced only whole.
        if (failed(getStaticDimSize(subscript.loc, result, dim, "slicing")))
          return failure();
      }
      FailureOr<int64_t> lo = lowerBound(*this, subscript.start, size, 0);
      FailureOr<int64_t> hi =
          failed(lo) ? FailureOr<int64_t>()
                     : lowerBound(*this, subscript.stop, size, size);
      if (failed(hi))
        return failure();
      if (*lo >= *hi)
        return emitError(subscript.loc)
               << "the slice " << describeSubscripts(expr) << " of dim " << dim
               << " (size " << size << ") is empty; empty tensors are not "
               << "supported";
      start = *lo;
      end = *hi;
    }
    if (start == 0 && end == size)
      continue;
    FailureOr<Value> sliced =
        createSlice(subscript.loc, result, dim, start, end);
    if (failed(sliced))
      return failure();
    result = *sliced;
  }
  if (droppedDims.empty())
    return EvalValue::getTensor(result, expr.loc);
  // Integer indices drop their dims, as in PyTorch.
  auto slicedType = cast<RankedTensorType>(result.getType());
  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  for (auto [dim, size, name] :
       llvm::enumerate(slicedType.getShape(), getDimNames(result))) {
    if (llvm::is_contained(droppedDims, static_cast<int64_t>(dim)))
      continue;
    shape.push_back(size);
    names.push_back(name);
  }
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return emitError(expr.loc)
           << "an integer index in " << describeSubscripts(expr)
           << " drops a dim of a tensor with several symbolic dims, which "
              "needs a reshape the dialect cannot express; keep the dim with "
              "a slice (i:i+1)";
  FailureOr<Value> reshaped =
      create<ReshapeOp>(expr.loc, {result}, {}, slicedType.clone(shape));
  if (failed(reshaped))
    return failure();
  setDimNames(*reshaped, std::move(names));
  return EvalValue::getTensor(*reshaped, expr.loc);
}
