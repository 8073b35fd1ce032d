//===- TestOpCoverage.cpp - Every sinter op has an evaluator and a formula ===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// -test-sinter-op-coverage walks every op the sinter dialect registers and
// fails, naming the op, when the interpreter cannot evaluate it or (for an
// elementwise op) the CUDA scalar emitter has no formula for it. So adding an
// op to the dialect's ODS without its evaluator or its CUDA formula fails this
// test, not a model at run or emit time.
//
// The pass checks each op on the first function of its input module that
// computes it. An elementwise op or a reduction without one is built from its
// class alone (its traits and ReductionOpInterface say how); every other op
// needs one, and the pass fails on an op with none.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Interpreter/Interpreter.h"
#include "sinter/Target/CUDA/ElementwiseFormula.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::sinter;

namespace {

/// The shape every operand of a generated instance has.
constexpr int64_t kRows = 2, kColumns = 3;

struct TestOpCoveragePass
    : public PassWrapper<TestOpCoveragePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestOpCoveragePass)

  StringRef getArgument() const final { return "test-sinter-op-coverage"; }
  StringRef getDescription() const final {
    return "Fails on a sinter op that the interpreter or the CUDA scalar "
           "emitter lacks";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<SinterDialect, func::FuncDialect>();
  }

  void runOnOperation() override;
};

/// Whether `name` is structure rather than computation: it is checked with
/// the op that holds it (sinter.kernel, sinter.yield).
bool isStructural(RegisteredOperationName name) {
  return name.hasTrait<OpTrait::IsTerminator>() ||
         name.hasTrait<OpTrait::IsIsolatedFromAbove>();
}

/// Builds `func.func @<op>` computing one instance of the elementwise op or
/// reduction `name` on f32 tensors of shape [kRows, kColumns], or returns
/// null when its class does not say how.
func::FuncOp buildInstance(OpBuilder &builder, RegisteredOperationName name) {
  unsigned numOperands;
  if (name.hasTrait<OpTrait::sinter::ElementwiseUnary>() ||
      name.hasInterface<ReductionOpInterface>())
    numOperands = 1;
  else if (name.hasTrait<OpTrait::sinter::BroadcastingBinary>())
    numOperands = 2;
  else if (name.hasTrait<OpTrait::sinter::BroadcastingTernary>())
    numOperands = 3;
  else
    return nullptr;
  Location loc = builder.getUnknownLoc();
  auto type = RankedTensorType::get({kRows, kColumns}, builder.getF32Type());
  SmallVector<Type> inputs(numOperands, type);
  auto func = func::FuncOp::create(builder, loc, name.getStringRef(),
                                   builder.getFunctionType(inputs, {}));
  Block *body = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  OperationState state(loc, name);
  state.addOperands(body->getArguments());
  if (name.hasInterface<ReductionOpInterface>())
    state.addAttribute("dims", builder.getDenseI64ArrayAttr({1}));
  // Created with the operand type as a placeholder result type, then given
  // the type it infers from its operands and (now stored) attributes.
  state.addTypes(type);
  Operation *op = builder.create(state);
  SmallVector<Type> results;
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer || failed(infer.inferReturnTypes(
                    builder.getContext(), loc, op->getOperands(),
                    op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                    op->getRegions(), results))) {
    func.erase();
    return nullptr;
  }
  op->getResult(0).setType(results.front());
  func::ReturnOp::create(builder, loc, op->getResults());
  func.setFunctionType(builder.getFunctionType(inputs, op->getResultTypes()));
  return func;
}

/// Runs `func` in the interpreter on arguments of a few distinct values;
/// fails with the interpreter's error when it cannot evaluate some op.
LogicalResult checkInterpreter(func::FuncOp func) {
  SmallVector<HostTensor> arguments;
  for (Type type : func.getArgumentTypes()) {
    // Every symbolic dim is 2 at run time.
    SmallVector<int64_t> shape(cast<RankedTensorType>(type).getShape());
    for (int64_t &size : shape)
      if (ShapedType::isDynamic(size))
        size = 2;
    HostTensor &tensor = arguments.emplace_back(shape);
    for (auto [index, value] : llvm::enumerate(tensor.data))
      value = 0.25 * static_cast<double>(index) - 0.5;
  }
  Interpreter interpreter(Precision::F64);
  return interpreter.run(func, arguments);
}

/// Asks the CUDA scalar emitter for the formula of every elementwise op in
/// `func`.
LogicalResult checkFormula(func::FuncOp func) {
  WalkResult result = func.walk([](Operation *op) {
    if (!isElementwiseOp(op))
      return WalkResult::advance();
    SmallVector<std::string> operands = {"x", "y", "z"};
    operands.resize(op->getNumOperands());
    return failed(cuda::getElementwiseFormula(op, operands))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void TestOpCoveragePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module.getBody());
  auto *dialect = context->getLoadedDialect<SinterDialect>();
  unsigned checked = 0;
  bool failedAny = false;
  for (RegisteredOperationName name : context->getRegisteredOperations()) {
    if (&name.getDialect() != dialect || isStructural(name))
      continue;
    // The first func of the module holding one, or a generated instance.
    func::FuncOp func;
    module.walk([&](Operation *op) {
      if (!func && op->getName() == name)
        func = op->getParentOfType<func::FuncOp>();
    });
    if (!func)
      func = buildInstance(builder, name);
    if (!func) {
      module.emitError("no instance of '")
          << name << "': add a function computing it to the test's input";
      failedAny = true;
      continue;
    }
    if (failed(checkInterpreter(func)) || failed(checkFormula(func)))
      failedAny = true;
    ++checked;
  }
  if (failedAny)
    return signalPassFailure();
  module.emitRemark("checked ") << checked << " ops";
}

} // namespace

namespace mlir::sinter::test {
void registerTestOpCoveragePass() { PassRegistration<TestOpCoveragePass>(); }
} // namespace mlir::sinter::test
