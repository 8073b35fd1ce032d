//===- Builtins.cpp - Calls of builtin functions and init hints -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Binds the arguments of a call to a builtin's signature (Python's rules:
// positional in order, then by keyword; None and absent arguments take the
// signature's default) and dispatches to its lowering. Also: calls written
// as Tensor methods, the numbers of the `math` module, the (values, indices)
// pair of max/min along a dim, the init hints of params, and the reference
// table of the builtins.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Frontend/Parser.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Signatures and argument binding
//===----------------------------------------------------------------------===//

Signature Signature::get(const Builtin &builtin) {
  Signature signature{builtin.name, {}, 0, {}};
  for (StringRef param : builtin.params) {
    auto [name, defaultValue] = param.split('=');
    signature.params.push_back(name);
    signature.defaults.push_back(defaultValue);
    if (defaultValue.empty())
      ++signature.numRequired;
  }
  return signature;
}

/// The value of a default spelled in Python: None (absent), True, False, a
/// quoted string or a number.
static std::optional<EvalValue> parseDefault(StringRef text, SMLoc loc) {
  EvalValue value;
  value.loc = loc;
  if (text == "None")
    return std::nullopt;
  if (text == "True" || text == "False") {
    value.kind = EvalValue::Kind::Bool;
    value.boolean = text == "True";
    return value;
  }
  if (text.starts_with("'")) {
    value.kind = EvalValue::Kind::String;
    value.text = text.drop_front().drop_back().str();
    return value;
  }
  value.kind = EvalValue::Kind::Number;
  value.spelling = text.str();
  value.isInteger = !text.getAsInteger(10, value.integer);
  if (value.isInteger)
    value.number = static_cast<double>(value.integer);
  else if (text.getAsDouble(value.number))
    llvm_unreachable("builtin defaults are numbers, strings, bools or None");
  return value;
}

/// Whether a method call passes its sizes or dims as separate arguments:
/// `x.view(B, -1)`, `x.permute(0, 2, 1)` (PyTorch's *shape, *dims).
static bool takesVarargs(const Signature &signature, const Expr &call) {
  if (signature.params.size() < 2 ||
      !llvm::is_contained({"shape", "dims"}, signature.params[1]))
    return false;
  size_t positional = llvm::count_if(
      call.arguments, [](const Argument &arg) { return arg.name.empty(); });
  return positional > 2 ||
         (positional == 2 && call.arguments[1].value->kind != Expr::Kind::List);
}

/// Binds the arguments of `call` to the parameters of `signature` and
/// evaluates them.
static FailureOr<BoundCall> bindArguments(ModelLowering &lowering,
                                          const Expr &call,
                                          const Signature &signature) {
  BoundCall bound;
  bound.name = signature.name;
  bound.loc = call.loc;
  size_t positional = 0;
  bool sawKeyword = false;
  bool packRest = call.isMethod && takesVarargs(signature, call);
  for (const Argument &argument : call.arguments) {
    StringRef param;
    SMLoc loc = argument.value->loc;
    if (packRest && argument.name.empty() && positional == 2) {
      // x.view(B, -1): the sizes after the first are one more element of the
      // list bound to the second parameter.
      FailureOr<EvalValue> value = lowering.lowerExpr(*argument.value);
      if (failed(value))
        return failure();
      bound.arguments[signature.params[1]].list.push_back(std::move(*value));
      continue;
    }
    if (argument.name.empty()) {
      if (sawKeyword)
        return lowering.emitError(loc)
               << "positional argument follows keyword argument in "
               << signature.name << "()";
      if (positional >= signature.params.size())
        return lowering.emitError(loc)
               << signature.name << "() takes " << signature.params.size()
               << " argument" << (signature.params.size() == 1 ? "" : "s")
               << " but " << call.arguments.size() << " were given";
      param = signature.params[positional++];
    } else {
      sawKeyword = true;
      loc = argument.nameLoc;
      auto it = llvm::find(signature.params, argument.name);
      if (it == signature.params.end()) {
        InFlightDiagnostic diag = lowering.emitError(loc)
                                  << signature.name << "() has no argument '"
                                  << argument.name << "'";
        if (!suggestClosest(diag, argument.name, signature.params))
          diag << " (its arguments: " << llvm::join(signature.params, ", ")
               << ")";
        return failure();
      }
      param = *it;
    }
    if (bound.arguments.count(param))
      return lowering.emitError(loc)
             << signature.name << "() got two values for argument '" << param
             << "'";
    FailureOr<EvalValue> value = lowering.lowerExpr(*argument.value);
    if (failed(value))
      return failure();
    if (packRest && positional == 2 && argument.name.empty()) {
      EvalValue list;
      list.kind = EvalValue::Kind::List;
      list.loc = value->loc;
      list.list.push_back(std::move(*value));
      value = std::move(list);
    }
    // None stands for an absent argument, as in PyTorch.
    if (value->kind != EvalValue::Kind::None)
      bound.arguments[param] = std::move(*value);
  }
  for (StringRef param :
       ArrayRef(signature.params).take_front(signature.numRequired))
    if (!bound.arguments.count(param))
      return lowering.emitError(call.loc)
             << signature.name << "() is missing its argument '" << param
             << "'";
  for (auto [param, defaultValue] :
       llvm::zip(signature.params, signature.defaults))
    if (!bound.arguments.count(param) && !defaultValue.empty())
      if (std::optional<EvalValue> value = parseDefault(defaultValue, call.loc))
        bound.arguments[param] = std::move(*value);
  return bound;
}

//===----------------------------------------------------------------------===//
// The table of builtins
//===----------------------------------------------------------------------===//

ArrayRef<Builtin> frontend::getBuiltins() {
  static const std::vector<Builtin> builtins = [] {
    std::vector<Builtin> all;
    addElementwiseBuiltins(all);
    addReductionBuiltins(all);
    addNormBuiltins(all);
    addShapeBuiltins(all);
    addMaskBuiltins(all);
    addSliceBuiltins(all);
    llvm::sort(all, [](const Builtin &a, const Builtin &b) {
      return a.name < b.name;
    });
    return all;
  }();
  return builtins;
}

static const Builtin *lookupBuiltin(StringRef name) {
  ArrayRef<Builtin> builtins = getBuiltins();
  const Builtin *it = llvm::lower_bound(
      builtins, name,
      [](const Builtin &entry, StringRef key) { return entry.name < key; });
  return it != builtins.end() && it->name == name ? it : nullptr;
}

/// The Python spelling of a builtin's signature: "sum(input, dim=None,
/// keepdim=False)".
static std::string formatSignature(const Builtin &builtin) {
  return (builtin.name + "(" + llvm::join(builtin.params, ", ") + ")").str();
}

void mlir::sinter::printBuiltinReference(llvm::raw_ostream &os) {
  os << "| Builtin | Mirrors | Method | Computes |\n"
     << "|---|---|---|---|\n";
  for (const Builtin &builtin : getBuiltins())
    os << "| `" << formatSignature(builtin) << "` | `" << builtin.mirrors
       << "` | " << (builtin.isMethod ? "yes" : "no") << " | "
       << builtin.summary << " |\n";
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// Names of `entries` for suggestions and messages.
template <typename Range, typename GetName>
static SmallVector<StringRef> getNames(Range entries, GetName getName) {
  SmallVector<StringRef> names;
  for (const auto &entry : entries)
    names.push_back(getName(entry));
  return names;
}

/// The init hints of params: randn() rand() zeros() ones() uniform(lo, hi)
/// normal(mean, std) linear_default(fan_in).
static ArrayRef<Signature> getInitHints() {
  static const std::vector<Signature> hints = {
      {"randn", {}, 0, {}},
      {"rand", {}, 0, {}},
      {"zeros", {}, 0, {}},
      {"ones", {}, 0, {}},
      {"uniform", {"lo", "hi"}, 0, {"", ""}},
      {"normal", {"mean", "std"}, 0, {"", ""}},
      {"linear_default", {"fan_in"}, 0, {""}},
  };
  return hints;
}

static SmallVector<StringRef> getInitHintNames() {
  return getNames(getInitHints(),
                  [](const Signature &hint) { return hint.name; });
}

/// What to write instead of a PyTorch function the language does not have
/// yet, or "" for a name that is no such function.
static StringRef getMissingFunctionHint(StringRef name) {
  return llvm::StringSwitch<StringRef>(name)
      .Case("stack", "; write cat([unsqueeze(a, dim), unsqueeze(b, dim)], "
                     "dim)")
      .Case("masked_fill", "; write where(mask, value, input)")
      .Cases({"conv1d", "conv2d", "conv3d"}, ": Sinter fuses linear layers, "
                                             "elementwise ops, reductions and "
                                             "norms")
      .Default("");
}

/// Names of the builtins (with `methodsOnly`, of those with a method form).
static SmallVector<StringRef> getBuiltinNames(bool methodsOnly) {
  SmallVector<StringRef> names;
  for (const Builtin &builtin : getBuiltins())
    if (!methodsOnly || builtin.isMethod)
      names.push_back(builtin.name);
  return names;
}

/// Whether `call` is max(x, dim) or min(x, dim), which PyTorch answers with
/// (values, indices).
bool frontend::isValuesAndIndicesCall(const Expr &call) {
  if (call.kind != Expr::Kind::Call || call.qualifier == "math" ||
      (call.text != "max" && call.text != "min"))
    return false;
  return call.arguments.size() >= 2 &&
         (call.arguments[1].name.empty() || call.arguments[1].name == "dim") &&
         call.arguments[1].value->kind != Expr::Kind::None &&
         llvm::all_of(call.arguments,
                      [](const Argument &arg) { return arg.name != "other"; });
}

FailureOr<SmallVector<Value, 2>>
ModelLowering::lowerValuesAndIndices(const Expr &call, bool values,
                                     bool indices) {
  const Builtin *valuesBuiltin = lookupBuiltin(call.text);
  const Builtin *indicesBuiltin =
      lookupBuiltin(call.text == "max" ? "argmax" : "argmin");
  FailureOr<BoundCall> bound =
      bindArguments(*this, call, Signature::get(*valuesBuiltin));
  if (failed(bound))
    return failure();
  Arguments args(*this, *bound);
  SmallVector<Value, 2> results;
  for (auto [wanted, builtin] :
       {std::pair{values, valuesBuiltin}, {indices, indicesBuiltin}}) {
    if (!wanted)
      continue;
    FailureOr<Value> result = builtin->lower(args);
    if (failed(result))
      return failure();
    results.push_back(*result);
  }
  return results;
}

/// The constants of the math module.
static std::optional<double> getMathConstant(StringRef name) {
  return llvm::StringSwitch<std::optional<double>>(name)
      .Case("pi", M_PI)
      .Case("e", M_E)
      .Case("tau", 2.0 * M_PI)
      .Case("inf", INFINITY)
      .Default(std::nullopt);
}

FailureOr<EvalValue> ModelLowering::lowerMathName(const Expr &expr) {
  std::optional<double> value = getMathConstant(expr.text);
  if (!value) {
    InFlightDiagnostic diag = emitError(expr.loc)
                              << "unknown name 'math." << expr.text << "'";
    if (!suggestClosest(diag, expr.text, {"pi", "e", "tau", "inf"}))
      diag << "; the math module provides pi, e, tau, inf, sqrt, exp and log";
    return failure();
  }
  EvalValue number;
  number.kind = EvalValue::Kind::Number;
  number.loc = expr.loc;
  number.number = *value;
  return number;
}

/// math.sqrt, math.exp and math.log of a number, folded; checks the domain.
FailureOr<EvalValue> ModelLowering::lowerMathCall(const Expr &call) {
  static constexpr StringLiteral functions[] = {"sqrt", "exp", "log"};
  if (!llvm::is_contained(functions, call.text)) {
    InFlightDiagnostic diag = emitError(call.loc)
                              << "unknown function 'math." << call.text << "'";
    if (!suggestClosest(diag, call.text, {"sqrt", "exp", "log"}))
      diag << "; the math module provides sqrt, exp and log of numbers (and "
              "pi, e, tau, inf)";
    return failure();
  }
  if (call.arguments.size() != 1 || !call.arguments[0].name.empty())
    return emitError(call.loc)
           << "math." << call.text << "() takes one positional argument";
  FailureOr<EvalValue> operand = lowerExpr(*call.arguments[0].value);
  if (failed(operand))
    return failure();
  if (operand->kind != EvalValue::Kind::Number)
    return emitError(operand->loc)
           << "math." << call.text << "() takes a number, got "
           << operand->describe() << "; for a tensor use " << call.text
           << "(x)";
  double x = operand->number;
  if ((call.text == "sqrt" && x < 0) || (call.text == "log" && x <= 0))
    return emitError(call.loc)
           << "math." << call.text << "(" << operand->getSpelling()
           << "): math domain error";
  EvalValue result;
  result.kind = EvalValue::Kind::Number;
  result.loc = call.loc;
  result.number = call.text == "sqrt"  ? std::sqrt(x)
                  : call.text == "exp" ? std::exp(x)
                                       : std::log(x);
  if (!std::isfinite(result.number))
    return emitError(call.loc)
           << "math." << call.text << "(" << operand->getSpelling()
           << ") overflows a double";
  return result;
}

/// Methods without a function form: x.size(dim), x.dim(), x.contiguous().
FailureOr<EvalValue> ModelLowering::lowerTensorMethod(const Expr &call,
                                                      const EvalValue &self) {
  size_t numArgs = call.arguments.size() - 1;
  if (call.text == "contiguous" && numArgs == 0)
    return self;
  if (call.text == "dim" && numArgs == 0)
    return getShapeValue(self, call.loc, /*rankOnly=*/true);
  if (call.text == "size" && numArgs <= 1) {
    FailureOr<EvalValue> shape = getShapeValue(self, call.loc, false);
    if (failed(shape) || numArgs == 0)
      return shape;
    FailureOr<EvalValue> dim = lowerExpr(*call.arguments[1].value);
    if (failed(dim))
      return failure();
    return selectElement(*shape, *dim, "x.size()");
  }
  return emitError(call.loc)
         << "x." << call.text << "() takes "
         << (call.text == "size" ? "at most one argument" : "no arguments");
}

FailureOr<EvalValue> ModelLowering::lowerCall(const Expr &call) {
  if (inInitHint)
    return emitError(call.loc) << "arguments of an init hint must be numbers";
  if (call.qualifier == "math")
    return lowerMathCall(call);
  const Builtin *builtin = lookupBuiltin(call.text);
  if (call.isMethod &&
      llvm::is_contained({"size", "dim", "contiguous"}, call.text)) {
    FailureOr<EvalValue> self = lowerExpr(*call.arguments[0].value);
    if (failed(self))
      return failure();
    return lowerTensorMethod(call, *self);
  }
  if (!builtin || (call.isMethod && !builtin->isMethod)) {
    InFlightDiagnostic diag = emitError(call.loc);
    if (StringRef hint = getMissingFunctionHint(call.text); !hint.empty())
      return diag << call.text << "() is not supported" << hint;
    if (builtin)
      return diag << "'" << call.text << "' is not a Tensor method; write "
                  << call.text << "(x, ...)";
    if (call.isMethod) {
      diag << "unknown method '." << call.text << "()'";
      if (!suggestClosest(diag, call.text, getBuiltinNames(true)))
        diag << "; methods are the builtins marked so in "
                "sinterc --list-builtins, and size(), dim(), contiguous()";
      return failure();
    }
    if (llvm::is_contained(getInitHintNames(), call.text))
      return diag << "'" << call.text
                  << "' is an init hint; it can only initialize a param, as "
                     "in 'param w: f32[64, 64] = "
                  << call.text << "()'";
    if (scope.count(call.text))
      return diag << "'" << call.text << "' is a value, not a function";
    diag << "unknown function '" << call.text << "'";
    if (!suggestClosest(diag, call.text, getBuiltinNames(false)))
      diag << " (sinterc --list-builtins lists the builtins)";
    return failure();
  }
  FailureOr<BoundCall> bound =
      bindArguments(*this, call, Signature::get(*builtin));
  if (failed(bound))
    return failure();
  Arguments args(*this, *bound);
  if (builtin->lowerTuple) {
    FailureOr<SmallVector<Value>> results = builtin->lowerTuple(args);
    if (failed(results))
      return failure();
    EvalValue tuple;
    tuple.kind = EvalValue::Kind::List;
    tuple.loc = call.loc;
    for (Value result : *results)
      tuple.list.push_back(EvalValue::getTensor(result, call.loc));
    return tuple;
  }
  FailureOr<Value> result = builtin->lower(args);
  if (failed(result))
    return failure();
  return EvalValue::getTensor(*result, call.loc);
}

FailureOr<SmallVector<EvalValue>> ModelLowering::lowerUnpacked(const Expr &expr,
                                                               size_t count) {
  SmallVector<EvalValue> values;
  if (isValuesAndIndicesCall(expr)) {
    FailureOr<SmallVector<Value, 2>> pair =
        lowerValuesAndIndices(expr, true, true);
    if (failed(pair))
      return failure();
    for (Value result : *pair)
      values.push_back(EvalValue::getTensor(result, expr.loc));
  } else {
    FailureOr<EvalValue> value = lowerExpr(expr);
    if (failed(value))
      return failure();
    if (value->kind != EvalValue::Kind::List)
      return emitError(expr.loc)
             << "cannot unpack " << value->describe() << " into " << count
             << " names; unpacking takes a tuple: chunk(), split(), max(x, "
                "dim), min(x, dim) or x.shape";
    values.assign(value->list.begin(), value->list.end());
  }
  if (values.size() != count)
    return emitError(expr.loc) << "cannot unpack " << values.size()
                               << " values into " << count << " names";
  return values;
}

/// Checks the arguments of an init hint (one value per parameter).
static LogicalResult checkInitHint(ModelLowering &lowering, SMLoc loc,
                                   const InitHint &hint) {
  if (hint.kind == "uniform" && !(hint.args[0] <= hint.args[1]))
    return lowering.emitError(loc)
           << "uniform(lo, hi) needs lo <= hi, got "
           << formatNumber(hint.args[0]) << " > " << formatNumber(hint.args[1]);
  if (hint.kind == "normal" && !(hint.args[1] >= 0.0))
    return lowering.emitError(loc) << "normal(mean, std) needs std >= 0, got "
                                   << formatNumber(hint.args[1]);
  if (hint.kind == "linear_default" &&
      (hint.args[0] < 1.0 || hint.args[0] != std::floor(hint.args[0])))
    return lowering.emitError(loc)
           << "linear_default(fan_in) needs an integer fan_in >= 1, got "
           << formatNumber(hint.args[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// Init hints
//===----------------------------------------------------------------------===//

FailureOr<InitHint> ModelLowering::lowerInitHint(const Expr *init,
                                                 int64_t defaultFanIn) {
  if (!init)
    return InitHint{"linear_default", {static_cast<double>(defaultFanIn)}};
  SmallVector<StringRef> hintNames = getInitHintNames();
  std::string expected =
      "an init hint (" + llvm::join(hintNames, "(), ") + "())";
  if (init->kind != Expr::Kind::Call)
    return emitError(init->loc) << "a param is initialized by " << expected;
  ArrayRef<Signature> hints = getInitHints();
  const Signature *signature = llvm::find_if(
      hints, [&](const Signature &hint) { return hint.name == init->text; });
  if (signature == hints.end()) {
    InFlightDiagnostic diag = emitError(init->loc)
                              << "unknown init hint '" << init->text << "'";
    if (!suggestClosest(diag, init->text, hintNames))
      diag << "; expected " << expected;
    return failure();
  }

  inInitHint = true;
  FailureOr<BoundCall> bound = bindArguments(*this, *init, *signature);
  inInitHint = false;
  if (failed(bound))
    return failure();
  InitHint hint{signature->name.str(), {}};
  for (StringRef param : signature->params) {
    const EvalValue *value = bound->lookup(param);
    if (value && value->kind != EvalValue::Kind::Number)
      return emitError(value->loc)
             << "argument '" << param << "' of " << signature->name
             << "() must be a number, got " << value->describe();
    double fallback = param == "fan_in" ? static_cast<double>(defaultFanIn)
                      : param == "hi" || param == "std" ? 1.0
                                                        : 0.0;
    hint.args.push_back(value ? value->number : fallback);
  }
  if (failed(checkInitHint(*this, init->loc, hint)))
    return failure();
  return hint;
}