//===- Lowering.h - .sinter syntax tree to the sinter dialect ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The second half of the frontend: resolves names, dims and builtins of one
// model and builds its `module @<model>` with `func.func @forward`. Every op
// is created through ModelLowering::create, which infers the result type with
// the op's own inference and verifies the op at once, so that a type error is
// reported at the user's source location and never reaches an assertion.
//
// Lowering.cpp holds declarations, statements and op creation;
// LowerExpressions.cpp the expressions; Subscripts.cpp attributes and
// subscripts; Builtins.cpp calls and init hints, and Builtins.h the
// builtin functions, defined by concern in *Builtins.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_LOWERING_H
#define SINTER_LIB_FRONTEND_LOWERING_H

#include "AST.h"

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"
#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Support/Numbers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <type_traits>

namespace mlir::sinter::frontend {

/// Highest tensor rank a model may declare or reshape to (PyTorch's limit).
constexpr size_t kMaxRank = 64;

/// Lowers `model` to a verified model module; emits an error and returns
/// null on any name or type error.
OwningOpRef<ModuleOp> lowerModel(const ModelDecl &model,
                                 const llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context);

/// The value of an expression while lowering: a tensor, or a compile-time
/// number, boolean, string, list or dim reference (arguments of builtins).
struct EvalValue {
  enum class Kind { Tensor, Number, Bool, String, List, Dim, None };

  Kind kind = Kind::Number;
  llvm::SMLoc loc;
  Value tensor;
  double number = 0.0;
  int64_t integer = 0;
  bool isInteger = false;
  bool boolean = false;
  /// A string's text or a dim's name.
  std::string text;
  /// A number as the source writes it ("2.0", "2.0 / math.pi"), or "" for
  /// one the frontend computed.
  std::string spelling;
  std::vector<EvalValue> list;

  /// Describes the value for a message: "a tensor", "the number 2.0".
  std::string describe() const;

  /// A number as written in the source, with its value when that is not a
  /// literal: "2.0", "2.0 / math.pi (= 0.63662)".
  std::string getSpelling() const;

  /// A tensor value from `loc`.
  static EvalValue getTensor(Value tensor, llvm::SMLoc loc) {
    EvalValue value;
    value.kind = Kind::Tensor;
    value.loc = loc;
    value.tensor = tensor;
    return value;
  }
};

/// An evaluated call of a builtin: its arguments bound to parameter names.
struct BoundCall {
  llvm::StringRef name;
  llvm::SMLoc loc;
  llvm::StringMap<EvalValue> arguments;

  const EvalValue *lookup(llvm::StringRef param) const {
    auto it = arguments.find(param);
    return it == arguments.end() ? nullptr : &it->second;
  }
};

/// Lowers one model. Not reusable: construct, call lower() once.
class ModelLowering {
public:
  ModelLowering(const ModelDecl &model, const llvm::SourceMgr &sourceMgr,
                MLIRContext *context);

  OwningOpRef<ModuleOp> lower();

  //===--- Diagnostics ---------------------------------------------------===//

  Location getLoc(llvm::SMLoc loc) const;
  InFlightDiagnostic emitError(llvm::SMLoc loc) const;

  //===--- Checked op creation -------------------------------------------===//

  /// Creates an `OpTy` from `operands` and its inherent `attributes`. The
  /// result type is inferred by the op (or is `resultType` for ops without
  /// inference) and the op is verified; on any error the diagnostic is at
  /// `loc` and nothing is left in the IR.
  template <typename OpTy>
  FailureOr<Value> create(llvm::SMLoc loc, ValueRange operands,
                          ArrayRef<NamedAttribute> attributes = {},
                          Type resultType = {}) {
    Location location = getLoc(loc);
    OperationState state(location, OpTy::getOperationName());
    state.addOperands(operands);
    DictionaryAttr dictionary = builder.getDictionaryAttr(attributes);
    using Properties = typename OpTy::Properties;
    if constexpr (!std::is_same_v<Properties, EmptyProperties>) {
      if (failed(OpTy::setPropertiesFromAttr(
              state.getOrAddProperties<Properties>(), dictionary,
              [&] { return mlir::emitError(location); })))
        return failure();
    }
    if constexpr (OpTy::template hasTrait<InferTypeOpInterface::Trait>()) {
      SmallVector<Type, 1> types;
      if (failed(OpTy::inferReturnTypes(
              builder.getContext(), location, state.operands, dictionary,
              state.getRawProperties(), state.regions, types)))
        return failure();
      state.addTypes(types);
    } else {
      state.addTypes(resultType);
    }
    return finishOp(builder.create(state));
  }

  /// Like create, for ops whose optional operands are given as null values
  /// (norms): adds the operand segment sizes.
  template <typename OpTy>
  FailureOr<Value>
  createWithOptionalOperands(llvm::SMLoc loc, ArrayRef<Value> operands,
                             ArrayRef<NamedAttribute> attributes = {}) {
    SmallVector<Value> present;
    SmallVector<NamedAttribute> allAttributes(attributes);
    allAttributes.push_back(getSegmentSizes(operands, present));
    return create<OpTy>(loc, present, allAttributes);
  }

  /// A rank-0 constant of `elementType` holding `value`.
  FailureOr<Value> createScalar(llvm::SMLoc loc, double value,
                                Type elementType);

  /// `value` as a tensor: tensors as they are, numbers as rank-0 constants
  /// of `elementType`; anything else is an error naming `what`.
  FailureOr<Value> toTensor(const EvalValue &value, Type elementType,
                            llvm::Twine what);

  /// The element type a number takes next to `tensor`: its float element
  /// type, or f32.
  Type getScalarTypeFor(Value tensor) const;

  /// Records the dim names of a value whose names do not follow from its
  /// operands (reshape).
  void setDimNames(Value value, ArrayRef<std::string> names) {
    shapes.setShape(
        value, getNamedShape(cast<RankedTensorType>(value.getType()), names));
  }

  /// The symbolic dim names of `value`, "" for each static or unnamed dim.
  SmallVector<std::string> getDimNames(Value value) const;

  /// The dims declared so far, with their default values.
  const llvm::StringMap<int64_t> &getDims() const { return dims; }

  Builder &getBuilder() { return builder; }

  /// Lowers an expression to its value.
  FailureOr<EvalValue> lowerExpr(const Expr &expr);

  /// `lhs @ rhs`, either operand transposed (2-D only) by the matmul itself.
  FailureOr<Value> lowerMatmul(llvm::SMLoc loc, Value lhs, Value rhs,
                               bool transposeA, bool transposeB);

  //===--- Builtins (Builtins.cpp) ---------------------------------------===//

  /// Lowers a call of a builtin function (or method, or math function).
  FailureOr<EvalValue> lowerCall(const Expr &call);

  /// Lowers max(x, dim) or min(x, dim) to its values and/or its indices
  /// (argmax/argmin), in that order.
  FailureOr<SmallVector<Value, 2>>
  lowerValuesAndIndices(const Expr &call, bool values, bool indices);

  /// `lhs predicate rhs` as a 0/1 mask; either operand may be a number.
  FailureOr<Value> createComparison(llvm::SMLoc loc, ComparePredicate predicate,
                                    const EvalValue &lhs, const EvalValue &rhs);

  /// `input[..., start:end]` along `dim`.
  FailureOr<Value> createSlice(llvm::SMLoc loc, Value input, int64_t dim,
                               int64_t start, int64_t end);

  /// The static size of dim `dim` of `tensor`; reports at `loc`, starting
  /// with `what` ("chunk() of"), when it is symbolic.
  FailureOr<int64_t> getStaticDimSize(llvm::SMLoc loc, Value tensor,
                                      int64_t dim, llvm::StringRef what);

  /// Lowers the right side of `a, b, ... = expr` to `count` values.
  FailureOr<SmallVector<EvalValue>> lowerUnpacked(const Expr &expr,
                                                  size_t count);

  //===--- Attributes and subscripts (Subscripts.cpp) --------------------===//

  /// The shape of a tensor as a list of integers and dims (x.shape), or
  /// with `rankOnly` its rank (x.dim()).
  FailureOr<EvalValue> getShapeValue(const EvalValue &value, llvm::SMLoc loc,
                                     bool rankOnly);

  /// Element `index` (an integer, negative from the end) of `list`; `what`
  /// names the list in messages.
  FailureOr<EvalValue> selectElement(const EvalValue &list,
                                     const EvalValue &index,
                                     llvm::StringRef what);

  /// Checks `init`, a call of an init hint, and returns the hint; null
  /// gives PyTorch's nn.Linear default, linear_default(defaultFanIn).
  FailureOr<InitHint> lowerInitHint(const Expr *init, int64_t defaultFanIn);

private:
  //===--- Statements ----------------------------------------------------===//

  LogicalResult declareSignature();
  LogicalResult declareName(llvm::StringRef name, llvm::SMLoc loc);
  /// Resolves a declared type; `lastDimSize` receives the default size of
  /// its last dim (1 for a scalar).
  FailureOr<ModelValue> resolveType(const TypeSpec &spec, int64_t &lastDimSize);
  LogicalResult lowerBody();
  LogicalResult lowerReturn(const Statement &statement);

  //===--- Expressions ---------------------------------------------------===//

  FailureOr<EvalValue> lowerExprOfKind(const Expr &expr);
  FailureOr<EvalValue> lowerName(const Expr &expr);
  FailureOr<EvalValue> lowerBinary(const Expr &expr);
  FailureOr<EvalValue> lowerNegate(const Expr &expr);
  FailureOr<EvalValue> lowerCompare(const Expr &expr);

  FailureOr<EvalValue> lowerTranspose(const Expr &expr);
  FailureOr<EvalValue> lowerAttribute(const Expr &expr);
  FailureOr<EvalValue> lowerIndex(const Expr &expr);
  FailureOr<EvalValue> lowerTensorIndex(const Expr &expr, Value tensor);
  FailureOr<EvalValue> lowerMathName(const Expr &expr);
  FailureOr<EvalValue> lowerMathCall(const Expr &call);
  FailureOr<EvalValue> lowerTensorMethod(const Expr &call,
                                         const EvalValue &self);
  LogicalResult lowerAssign(const Statement &statement);
  FailureOr<EvalValue> foldBinary(char op, llvm::SMLoc loc,
                                  const EvalValue &lhs, const EvalValue &rhs);

  FailureOr<Value> finishOp(Operation *op);
  NamedAttribute getSegmentSizes(ArrayRef<Value> operands,
                                 SmallVectorImpl<Value> &present);

  const ModelDecl &model;
  const llvm::SourceMgr &sourceMgr;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  func::FuncOp forward;

  /// Declared dims and their default values.
  llvm::StringMap<int64_t> dims;
  /// Inputs and params in declaration order, and the statement of each.
  SmallVector<ModelValue> arguments;
  /// Where each dim, input and param is declared.
  llvm::StringMap<llvm::SMLoc> declarations;
  /// Values visible at the current statement.
  llvm::StringMap<EvalValue> scope;
  /// Set while the arguments of an init hint are evaluated: they must be
  /// constant numbers.
  bool inInitHint = false;
  /// The symbolic shapes of the values created so far, over the dim names
  /// (each op's shape rule names the dims of its result).
  SymbolicShapeAnalysis shapes;
};

/// Formats a number for a message, to 6 significant digits: 1, 0.5, 1e-05.
inline std::string formatNumber(double value) {
  return formatShortest(value, /*maxDigits=*/6);
}

/// Appends "; did you mean '<candidate>'?" to `diag` when a candidate is
/// close enough to `name` (by edit distance) to be a likely typo; ties go to
/// the earlier candidate. Returns whether it appended.
bool suggestClosest(InFlightDiagnostic &diag, llvm::StringRef name,
                    ArrayRef<llvm::StringRef> candidates);

/// Appends the keys of `map` to `names`, sorted (a StringMap's own order
/// is not deterministic).
template <typename T>
void appendKeys(const llvm::StringMap<T> &map,
                SmallVectorImpl<llvm::StringRef> &names) {
  size_t start = names.size();
  for (const auto &entry : map)
    names.push_back(entry.getKey());
  llvm::sort(names.begin() + start, names.end());
}

} // namespace mlir::sinter::frontend

#endif // SINTER_LIB_FRONTEND_LOWERING_H
