//===- TestSymbolicShapes.cpp - Print each op's symbolic result shape -----===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// -test-sinter-symbolic-shapes runs SymbolicShapeAnalysis on every function
// of its input, the dims of each argument named by its sinter.dim_names
// ("" or none: an unknown size), and prints the shape of each op's results
// and the constraints its rule records, in program order:
//
//   func @f
//     sinter.add: [B, 64]
//       requires B == T (broadcast dim #0)
//
// so that a lit test fails when a shape rule changes.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"
#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sinter;

namespace {

struct TestSymbolicShapesPass
    : public PassWrapper<TestSymbolicShapesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSymbolicShapesPass)

  StringRef getArgument() const final { return "test-sinter-symbolic-shapes"; }
  StringRef getDescription() const final {
    return "Prints the symbolic shape of every op's results and the "
           "constraints of its shape rule";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<SinterDialect, func::FuncDialect>();
  }

  void runOnOperation() override;
};

/// The names in the sinter.dim_names of argument `index` of `func`.
SmallVector<std::string> getArgumentDimNames(func::FuncOp func,
                                             unsigned index) {
  SmallVector<std::string> names;
  if (auto attr = func.getArgAttrOfType<ArrayAttr>(index, kDimNamesAttrName))
    for (Attribute name : attr)
      names.push_back(cast<StringAttr>(name).str());
  return names;
}

/// Renders `constraint`: "B == T (broadcast dim #0)".
std::string describe(const ShapeConstraint &constraint) {
  std::string lhs = formatShape(constraint.lhs).substr(1);
  std::string rhs = formatShape(constraint.rhs).substr(1);
  lhs.pop_back();
  rhs.pop_back();
  std::string relation = constraint.kind == ShapeConstraint::Kind::Equal
                             ? lhs + " == " + rhs
                             : lhs + " % " + rhs + " == 0";
  return relation + " (" + constraint.what + ")";
}

void TestSymbolicShapesPass::runOnOperation() {
  raw_ostream &os = llvm::outs();
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    os << "func @" << func.getSymName() << "\n";
    SymbolicShapeAnalysis analysis;
    for (BlockArgument argument : func.getArguments())
      if (auto type = dyn_cast<RankedTensorType>(argument.getType()))
        analysis.setShape(
            argument, getNamedShape(type, getArgumentDimNames(
                                              func, argument.getArgNumber())));
    LogicalResult result = analysis.visitBlock(
        func.getBody().front(),
        [&](Operation *op, ArrayRef<ShapeConstraint> constraints) {
          if (op->getNumResults() == 0)
            return success();
          os << "  " << op->getName() << ":";
          for (Value value : op->getResults())
            os << " " << formatShape(analysis.getShape(value));
          os << "\n";
          for (const ShapeConstraint &constraint : constraints)
            os << "    requires " << describe(constraint) << "\n";
          return success();
        });
    if (failed(result))
      return signalPassFailure();
  }
}

} // namespace

namespace mlir::sinter::test {
void registerTestSymbolicShapesPass() {
  PassRegistration<TestSymbolicShapesPass>();
}
} // namespace mlir::sinter::test
