//===- HoistParams.cpp - Move param-only computation into @prepare --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-hoist-params: ops of @forward that depend only on params, prepared
// values and constants are computed once, in @prepare, and @forward receives
// the values it still needs as prepared arguments. The argument convention is
// documented in ModelSignature.h.
//
// The pass decides first (which ops are known at load time, which of those
// are worth hoisting: shouldHoist) and then rewrites both functions.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERHOISTPARAMS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Decision
//===----------------------------------------------------------------------===//

/// Returns the sinter.role of argument `index` of `func`, or "".
static StringRef getRole(func::FuncOp func, unsigned index) {
  auto role = func.getArgAttrOfType<StringAttr>(index, kRoleAttrName);
  return role ? role.getValue() : StringRef();
}

/// Whether `op` can run in @prepare at all: a side-effect-free sinter op
/// without regions (so not a kernel).
static bool isHoistableKind(Operation *op) {
  return isa<SinterDialect>(op->getDialect()) && op->getNumRegions() == 0 &&
         !op->hasTrait<OpTrait::IsTerminator>() && isMemoryEffectFree(op);
}

/// The hoisting policy: whether computing `op`, known at load time, once in
/// @prepare saves work in @forward. `readsHoisted` tells whether one of its
/// operands is computed in @prepare.
///  - A constant never is: every kernel embeds it for free.
///  - A reshape is a view: hoisting one of a param would only copy the param,
///    while one of a hoisted value saves passing the unreshaped value.
///  - Indices (argmax/argmin of params) stay: prepared values are float
///    buffers.
///  - Values of a symbolic shape stay (a param may carry a dim of the
///    inputs): @prepare runs once, at create, when no dim is known.
///  - Everything else does arithmetic or moves data on every call.
static bool shouldHoist(Operation *op, bool readsHoisted) {
  if (isa<ConstantOp>(op))
    return false;
  if (llvm::any_of(op->getOperandTypes(), [](Type type) {
        return !cast<ShapedType>(type).hasStaticShape();
      }))
    return false;
  if (llvm::any_of(op->getResultTypes(), [](Type type) {
        return !isa<FloatType>(cast<ShapedType>(type).getElementType());
      }))
    return false;
  if (isa<ReshapeOp>(op))
    return readsHoisted;
  return true;
}

namespace {
/// What sinter-hoist-params does to one @forward.
struct HoistDecision {
  /// Ops whose results are known once the params are, in program order.
  SetVector<Operation *> loadTime;
  /// The subset that moves into @prepare.
  SetVector<Operation *> hoisted;
  /// Results of hoisted ops that @forward still reads, in program order.
  SmallVector<Value> boundary;
};
} // namespace

/// Decides which ops of `forward` move into @prepare.
static HoistDecision decideHoisting(func::FuncOp forward) {
  HoistDecision decision;
  DenseSet<Value> known;
  for (auto [index, argument] : llvm::enumerate(forward.getArguments())) {
    StringRef role = getRole(forward, index);
    if (role == kParamRole || role == kPreparedRole)
      known.insert(argument);
  }
  for (Operation &op : forward.getBody().front()) {
    if (!isHoistableKind(&op) ||
        !llvm::all_of(op.getOperands(),
                      [&](Value operand) { return known.contains(operand); }))
      continue;
    decision.loadTime.insert(&op);
    known.insert(op.result_begin(), op.result_end());
    bool readsHoisted = llvm::any_of(op.getOperands(), [&](Value operand) {
      return decision.hoisted.contains(operand.getDefiningOp());
    });
    if (shouldHoist(&op, readsHoisted))
      decision.hoisted.insert(&op);
  }
  for (Operation *op : decision.hoisted)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !decision.hoisted.contains(user);
          }))
        decision.boundary.push_back(result);
  return decision;
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

/// Returns the display name of prepared value `index`.
static std::string getPreparedName(unsigned index) {
  return "prepared" + std::to_string(index);
}

/// Returns @prepare, creating an empty one before `forward` if needed.
static func::FuncOp getOrCreatePrepare(ModuleOp module, func::FuncOp forward) {
  if (func::FuncOp prepare = getPrepareFunc(module))
    return prepare;
  OpBuilder builder(forward);
  auto prepare =
      func::FuncOp::create(builder, forward.getLoc(), kPrepareFuncName,
                           builder.getFunctionType({}, {}));
  builder.setInsertionPointToStart(prepare.addEntryBlock());
  func::ReturnOp::create(builder, forward.getLoc());
  return prepare;
}

namespace {
/// Copies load-time values of @forward into @prepare on demand.
class PrepareBuilder {
public:
  PrepareBuilder(func::FuncOp forward, func::FuncOp prepare)
      : forward(forward), prepare(prepare), builder(getReturn(prepare)) {}

  /// Returns the value of @prepare that computes load-time `value` of
  /// @forward, cloning its (free) defining op or adding a param argument if
  /// this is the first use.
  Value lookupOrCopy(Value value) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Value copy;
    if (auto argument = dyn_cast<BlockArgument>(value))
      copy = getArgumentValue(argument);
    else
      copy = clone(value.getDefiningOp())
                 ->getResult(cast<OpResult>(value).getResultNumber());
    mapping.map(value, copy);
    return copy;
  }

  /// Clones `op` of @forward at the end of @prepare.
  Operation *clone(Operation *op) {
    for (Value operand : op->getOperands())
      lookupOrCopy(operand);
    return builder.clone(*op, mapping);
  }

  /// Makes `value` (already copied) a new result of @prepare; returns its
  /// index.
  unsigned addResult(Value value) {
    func::ReturnOp ret = getReturn(prepare);
    unsigned index = prepare.getNumResults();
    ret.getOperandsMutable().append(lookupOrCopy(value));
    Builder attrs(prepare.getContext());
    (void)prepare.insertResult(
        index, value.getType(),
        attrs.getDictionaryAttr({attrs.getNamedAttr(
            kNameAttrName, attrs.getStringAttr(getPreparedName(index)))}));
    return index;
  }

private:
  static func::ReturnOp getReturn(func::FuncOp func) {
    return cast<func::ReturnOp>(func.getBody().front().getTerminator());
  }

  /// A param of @forward maps to the @prepare argument of the same name
  /// (added if missing); a prepared argument maps to the @prepare value that
  /// it receives.
  Value getArgumentValue(BlockArgument argument) {
    unsigned index = argument.getArgNumber();
    if (getRole(forward, index) == kPreparedRole) {
      auto result =
          forward.getArgAttrOfType<IntegerAttr>(index, kPreparedAttrName);
      return getReturn(prepare).getOperand(result.getInt());
    }
    auto name = forward.getArgAttrOfType<StringAttr>(index, kNameAttrName);
    for (unsigned i = 0; i < prepare.getNumArguments(); ++i)
      if (prepare.getArgAttrOfType<StringAttr>(i, kNameAttrName) == name)
        return prepare.getArgument(i);
    unsigned position = prepare.getNumArguments();
    (void)prepare.insertArgument(position, argument.getType(),
                                 forward.getArgAttrDict(index),
                                 argument.getLoc());
    return prepare.getArgument(position);
  }

  func::FuncOp forward, prepare;
  OpBuilder builder;
  IRMapping mapping;
};
} // namespace

/// Erases the ops of `ops` that became unused, users first.
static void eraseUnused(ArrayRef<Operation *> ops) {
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      op->erase();
}

/// Removes the params and prepared arguments that `forward` no longer reads.
static void eraseUnreadArguments(func::FuncOp forward) {
  llvm::BitVector unread(forward.getNumArguments());
  for (auto [index, argument] : llvm::enumerate(forward.getArguments())) {
    StringRef role = getRole(forward, index);
    if ((role == kParamRole || role == kPreparedRole) && argument.use_empty())
      unread.set(index);
  }
  (void)forward.eraseArguments(unread);
}

/// Drops the results of `prepare` that no argument of `forward` receives,
/// renumbers the rest, and removes what then computes nothing.
static void prunePrepare(func::FuncOp forward, func::FuncOp prepare) {
  unsigned numResults = prepare.getNumResults();
  SmallVector<int64_t> newIndex(numResults, -1);
  for (unsigned index = 0; index < forward.getNumArguments(); ++index)
    if (getRole(forward, index) == kPreparedRole)
      newIndex[forward.getArgAttrOfType<IntegerAttr>(index, kPreparedAttrName)
                   .getInt()] = 0;
  llvm::BitVector dropped(numResults);
  unsigned next = 0;
  for (unsigned index = 0; index < numResults; ++index) {
    if (newIndex[index] < 0)
      dropped.set(index);
    else
      newIndex[index] = next++;
  }

  auto ret = cast<func::ReturnOp>(prepare.getBody().front().getTerminator());
  ret->eraseOperands(dropped);
  (void)prepare.eraseResults(dropped);
  Builder builder(prepare.getContext());
  for (unsigned index = 0; index < prepare.getNumResults(); ++index)
    prepare.setResultAttr(index, kNameAttrName,
                          builder.getStringAttr(getPreparedName(index)));
  for (unsigned index = 0; index < forward.getNumArguments(); ++index) {
    if (getRole(forward, index) != kPreparedRole)
      continue;
    int64_t old =
        forward.getArgAttrOfType<IntegerAttr>(index, kPreparedAttrName)
            .getInt();
    setPreparedArgumentInfo(forward, index, newIndex[old],
                            getPreparedName(newIndex[old]));
  }

  SmallVector<Operation *> ops;
  for (Operation &op : prepare.getBody().front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  llvm::BitVector unread(prepare.getNumArguments());
  for (BlockArgument argument : prepare.getArguments())
    if (argument.use_empty())
      unread.set(argument.getArgNumber());
  (void)prepare.eraseArguments(unread);
}

namespace {
struct HoistParamsPass
    : public sinter::impl::SinterHoistParamsBase<HoistParamsPass> {
  void runOnOperation() override;
};
} // namespace

void HoistParamsPass::runOnOperation() {
  ModuleOp module = getOperation();
  func::FuncOp forward = getForwardFunc(module);
  if (!forward || forward.isExternal())
    return;
  // The rewrite relies on well-formed prepared arguments and names.
  if (failed(getModelSignature(module)))
    return signalPassFailure();
  HoistDecision decision = decideHoisting(forward);
  if (decision.hoisted.empty())
    return;
  if (failed(recordOriginalArguments(forward)))
    return signalPassFailure();

  func::FuncOp prepare = getOrCreatePrepare(module, forward);
  PrepareBuilder copier(forward, prepare);
  for (Operation *op : decision.hoisted)
    copier.lookupOrCopy(op->getResult(0));
  for (Value value : decision.boundary) {
    unsigned result = copier.addResult(value);
    unsigned position = forward.getNumArguments();
    (void)forward.insertArgument(position, value.getType(), {}, value.getLoc());
    setPreparedArgumentInfo(forward, position, result, getPreparedName(result));
    value.replaceAllUsesWith(forward.getArgument(position));
  }

  eraseUnused(decision.loadTime.getArrayRef());
  eraseUnreadArguments(forward);
  prunePrepare(forward, prepare);
  if (prepare.getNumResults() == 0)
    prepare.erase();
}
