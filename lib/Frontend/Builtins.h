//===- Builtins.h - Builtin functions of .sinter ----------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The builtin functions of the language, named, ordered and defaulted as in
// torch.nn.functional (and torch for the reductions and shape functions).
// Each builtin is one table entry: its signature in Python spelling, the
// PyTorch function it mirrors, a one-line summary and its lowering. The
// entries live beside their lowerings, one file per concern
// (ElementwiseBuiltins.cpp, ReductionBuiltins.cpp, NormBuiltins.cpp,
// ShapeBuiltins.cpp); Builtins.cpp binds arguments (positional in order, then
// by keyword, absent ones from the signature's defaults) and dispatches.
// The same table prints the language reference (printBuiltinReference).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_BUILTINS_H
#define SINTER_LIB_FRONTEND_BUILTINS_H

#include "Lowering.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>

namespace mlir::sinter::frontend {

class Arguments;

/// Lowers a bound call to one tensor.
using LowerFn = FailureOr<Value> (*)(const Arguments &);
/// Lowers a bound call to a tuple of tensors (chunk, split).
using LowerTupleFn = FailureOr<SmallVector<Value>> (*)(const Arguments &);

/// A builtin function.
struct Builtin {
  StringRef name;
  /// The parameters in positional order: "name" when required, else
  /// "name=default" with the default spelled as in Python (None: absent).
  std::vector<StringRef> params;
  /// The PyTorch function it mirrors, e.g. "torch.nn.functional.relu".
  StringRef mirrors;
  /// What it computes, in one line.
  StringRef summary;
  /// Whether `x.name(...)` is accepted as `name(x, ...)` (a Tensor method).
  bool isMethod;
  /// How it lowers: exactly one is set.
  LowerFn lower;
  LowerTupleFn lowerTuple = nullptr;
};

/// The parameters of a builtin or init hint: names in positional order, of
/// which the first `numRequired` must be given; `defaults` holds the Python
/// spelling of each default ("" for a required parameter).
struct Signature {
  StringRef name;
  SmallVector<StringRef> params;
  unsigned numRequired;
  SmallVector<StringRef> defaults;

  /// The signature of `builtin`.
  static Signature get(const Builtin &builtin);
};

/// Registration, one function per file of builtins.
void addElementwiseBuiltins(std::vector<Builtin> &builtins);
void addReductionBuiltins(std::vector<Builtin> &builtins);
void addNormBuiltins(std::vector<Builtin> &builtins);
void addShapeBuiltins(std::vector<Builtin> &builtins);
void addMaskBuiltins(std::vector<Builtin> &builtins);
void addSliceBuiltins(std::vector<Builtin> &builtins);

/// Every builtin, sorted by name.
ArrayRef<Builtin> getBuiltins();

/// Whether `call` is max(x, dim) or min(x, dim), which PyTorch answers with
/// (values, indices): ModelLowering::lowerValuesAndIndices lowers both.
bool isValuesAndIndicesCall(const Expr &call);

/// Returns the rank of a tensor value.
inline int64_t getRank(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// Typed access to the bound arguments of one call. Every accessor reports a
/// wrong kind of argument at the argument's location.

/// Typed access to the bound arguments of one call. Every accessor reports a
/// wrong kind of argument at the argument's location.
class Arguments {
public:
  Arguments(ModelLowering &lowering, const BoundCall &call)
      : lowering(lowering), call(call), builder(lowering.getBuilder()) {}

  llvm::SMLoc getLoc() const { return call.loc; }
  const EvalValue *get(StringRef param) const { return call.lookup(param); }

  /// Reports that argument `param` is not `expected`.
  InFlightDiagnostic emitWrongKind(StringRef param, StringRef expected) const {
    const EvalValue *value = get(param);
    return lowering.emitError(value->loc)
           << "argument '" << param << "' of " << call.name << "() must be "
           << expected << ", got " << value->describe();
  }

  FailureOr<Value> tensor(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind == EvalValue::Kind::Number &&
        llvm::is_contained({"sqrt", "exp", "log"}, call.name))
      return emitWrongKind(
          param,
          ("a tensor (for a number use math." + call.name + "(...))").str());
    if (value->kind != EvalValue::Kind::Tensor)
      return emitWrongKind(param, "a tensor");
    return value->tensor;
  }

  /// A tensor, or null when the argument is absent.
  FailureOr<Value> optionalTensor(StringRef param) const {
    if (!get(param))
      return Value();
    return tensor(param);
  }

  /// A tensor; a number becomes a rank-0 tensor of `scalarType`.
  FailureOr<Value> tensorOrNumber(StringRef param, Type scalarType) const {
    const EvalValue *value = get(param);
    if (value->kind == EvalValue::Kind::Number)
      return lowering.createScalar(value->loc, value->number, scalarType);
    if (value->kind != EvalValue::Kind::Tensor)
      return emitWrongKind(param, "a tensor or a number");
    return value->tensor;
  }

  /// A number; a parameter with a default always has a value.
  FailureOr<double> number(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind != EvalValue::Kind::Number)
      return emitWrongKind(param, "a number");
    return value->number;
  }

  FailureOr<int64_t> integer(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind != EvalValue::Kind::Number || !value->isInteger)
      return emitWrongKind(param, "an integer");
    return value->integer;
  }

  FailureOr<bool> boolean(StringRef param) const {
    const EvalValue *value = get(param);
    if (value->kind != EvalValue::Kind::Bool)
      return emitWrongKind(param, "True or False");
    return value->boolean;
  }

  /// One of `choices`.
  FailureOr<StringRef> choice(StringRef param,
                              ArrayRef<StringRef> choices) const {
    const EvalValue *value = get(param);
    std::string expected = "one of \"" + llvm::join(choices, "\", \"") + "\"";
    if (value->kind != EvalValue::Kind::String)
      return emitWrongKind(param, expected);
    auto it = llvm::find(choices, value->text);
    if (it == choices.end())
      return emitWrongKind(param, expected);
    return *it;
  }

  /// `dim` normalized against `rank` (Python-style negative indices).
  FailureOr<int64_t> normalizeDim(const EvalValue &value, int64_t rank) const {
    int64_t dim = value.integer;
    if (dim < -rank || dim >= rank)
      return lowering.emitError(value.loc)
             << "dim " << dim << " is out of range for a tensor of rank "
             << rank << " (expected " << -rank << " to " << rank - 1 << ")";
    return dim < 0 ? dim + rank : dim;
  }

  /// A single dim of a rank-`rank` tensor, normalized.
  FailureOr<int64_t> dim(StringRef param, int64_t rank) const {
    if (failed(integer(param)))
      return failure();
    return normalizeDim(*get(param), rank);
  }

  /// An int or a list of distinct ints naming dims of a rank-`rank` tensor,
  /// normalized; every dim when the argument is absent.
  FailureOr<SmallVector<int64_t>> dims(StringRef param, int64_t rank) const {
    const EvalValue *value = get(param);
    SmallVector<int64_t> result;
    if (!value) {
      for (int64_t dim = 0; dim < rank; ++dim)
        result.push_back(dim);
      return result;
    }
    std::string expected = "an integer or a list of integers";
    // max(h, 2.0) and min(h, 2.0) mean the elementwise bound.
    if ((call.name == "max" || call.name == "min") &&
        value->kind == EvalValue::Kind::Number && !value->isInteger)
      expected += " (for the elementwise " + call.name.str() +
                  " with a number use " + call.name.str() + "imum(x, " +
                  value->getSpelling() + ") or clamp(x, " +
                  (call.name == "max" ? "min=" : "max=") +
                  value->getSpelling() + "))";
    ArrayRef<EvalValue> elements(*value);
    if (value->kind == EvalValue::Kind::List) {
      elements = value->list;
      if (elements.empty())
        return emitWrongKind(param, "a non-empty list of dims");
    }
    llvm::SmallBitVector seen(rank);
    for (const EvalValue &element : elements) {
      if (element.kind != EvalValue::Kind::Number || !element.isInteger)
        return emitWrongKind(param, expected);
      FailureOr<int64_t> dim = normalizeDim(element, rank);
      if (failed(dim))
        return failure();
      if (seen.test(*dim))
        return lowering.emitError(element.loc)
               << "dim " << element.integer << " is listed twice";
      seen.set(*dim);
      result.push_back(*dim);
    }
    return result;
  }

  /// An int or a list of ints, each at least 1 (normalized_shape).
  FailureOr<SmallVector<int64_t>> sizes(StringRef param) const {
    const EvalValue *value = get(param);
    ArrayRef<EvalValue> elements(*value);
    if (value->kind == EvalValue::Kind::List)
      elements = value->list;
    SmallVector<int64_t> result;
    for (const EvalValue &element : elements) {
      if (element.kind != EvalValue::Kind::Number || !element.isInteger)
        return emitWrongKind(param, "an integer or a list of integers");
      if (element.integer < 1)
        return lowering.emitError(element.loc)
               << "sizes in '" << param << "' must be at least 1, got "
               << element.integer;
      result.push_back(element.integer);
    }
    if (result.empty())
      return emitWrongKind(param, "a non-empty list of sizes");
    return result;
  }

  NamedAttribute f64(StringRef name, double value) const {
    return builder.getNamedAttr(name, builder.getF64FloatAttr(value));
  }
  NamedAttribute i64s(StringRef name, ArrayRef<int64_t> values) const {
    return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
  }
  /// Appends the unit attribute `name` when `value` is set.
  void addFlag(SmallVectorImpl<NamedAttribute> &attributes, StringRef name,
               bool value) const {
    if (value)
      attributes.push_back(builder.getNamedAttr(name, builder.getUnitAttr()));
  }

  ModelLowering &lowering;
  const BoundCall &call;
  Builder &builder;
};

/// `op(input)` without attributes.
template <typename OpTy> FailureOr<Value> lowerUnary(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  return args.lowering.create<OpTy>(args.getLoc(), {*input});
}

} // namespace mlir::sinter::frontend

#endif // SINTER_LIB_FRONTEND_BUILTINS_H
