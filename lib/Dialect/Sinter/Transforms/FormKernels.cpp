//===- FormKernels.cpp - Wrap fusion groups into sinter.kernel ------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-form-kernels: decide, then form (like IREE's FormDispatchRegions).
// FusionPolicy.cpp decides the groups of each function; this file wraps every
// group into a `sinter.kernel` with explicit operands and results, without
// deciding anything.
//
//===----------------------------------------------------------------------===//

#include "FusionLegality.h"
#include "FusionPolicy.h"

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERFORMKERNELS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

/// The values that the ops of `group` read from outside it, in order of first
/// use. Constants are not among them: kernels clone them.
static llvm::SetVector<Value> getKernelInputs(const FusionGroup &group) {
  DenseSet<Operation *> computed(group.ops.begin(), group.ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : group.ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer ||
          (!computed.contains(producer) && !isa<ConstantOp>(producer)))
        inputs.insert(operand);
    }
  return inputs;
}

/// Creates the sinter.kernel of `group` at the insertion point of `builder`.
/// `replacements` maps values that earlier kernels computed to their results.
static KernelOp createKernel(OpBuilder &builder, const FusionGroup &group,
                             const IRMapping &replacements) {
  llvm::SetVector<Value> inputs = getKernelInputs(group);
  SmallVector<Value> operands;
  SmallVector<Type> inputTypes, resultTypes;
  SmallVector<Location> inputLocs, opLocs;
  for (Value input : inputs) {
    operands.push_back(replacements.lookupOrDefault(input));
    inputTypes.push_back(input.getType());
    inputLocs.push_back(input.getLoc());
  }
  for (Value output : group.outputs)
    resultTypes.push_back(output.getType());
  for (Operation *op : group.ops)
    opLocs.push_back(op->getLoc());

  auto kernel = KernelOp::create(builder, builder.getFusedLoc(opLocs),
                                 resultTypes, group.kind,
                                 /*plan=*/KernelPlanAttr(), operands);
  Block *body = new Block();
  kernel.getBody().push_back(body);
  body->addArguments(inputTypes, inputLocs);

  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), body->getArguments());
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<ConstantOp>();
          constant && !mapping.contains(operand))
        inner.clone(*constant, mapping);
    inner.clone(*op, mapping);
  }
  SmallVector<Value> yielded;
  for (Value output : group.outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(inner, kernel.getLoc(), yielded);
  return kernel;
}

/// Forms the kernels of `groups` (ordered producers first) before the
/// terminator of `block`, and erases the ops they replace.
static void formKernels(Block &block, ArrayRef<FusionGroup> groups) {
  Operation *terminator = block.getTerminator();
  OpBuilder builder(terminator);
  IRMapping replacements;
  DenseSet<Operation *> replaced;
  for (const FusionGroup &group : groups) {
    if (group.existing) {
      Operation *kernel = group.ops.front();
      kernel->moveBefore(terminator);
      for (OpOperand &operand : kernel->getOpOperands())
        operand.set(replacements.lookupOrDefault(operand.get()));
      continue;
    }
    KernelOp kernel = createKernel(builder, group, replacements);
    replacements.map(group.outputs, kernel.getResults());
    replaced.insert(group.ops.begin(), group.ops.end());
  }
  for (OpOperand &operand : terminator->getOpOperands())
    operand.set(replacements.lookupOrDefault(operand.get()));

  SmallVector<Operation *> dead;
  for (Operation &op : block.without_terminator())
    if (replaced.contains(&op) ||
        (isa<ConstantOp>(op) && llvm::all_of(op.getUsers(), [&](Operation *u) {
           return replaced.contains(u);
         })))
      dead.push_back(&op);
  for (Operation *op : llvm::reverse(dead))
    op->erase();
}

/// Erases the ops of `block` whose results nothing uses: a kernel for them
/// would compute nothing observable.
static void eraseDeadOps(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// Gives each constant of `block` that a library GEMM reads
/// (isReadByLibraryGemm) a pointwise kernel of its own that writes it to
/// memory, where the GEMM and the reshapes before it read it. Other readers
/// keep embedding the constant. (A matmul multiplies a constant where, for
/// one, fast mode folds `x - x` to 0.)
static void materializeGemmConstants(Block &block) {
  SmallVector<ConstantOp> constants;
  for (auto constant : block.getOps<ConstantOp>())
    if (isReadByLibraryGemm(constant.getResult()))
      constants.push_back(constant);
  for (ConstantOp constant : constants) {
    OpBuilder builder(constant);
    builder.setInsertionPointAfter(constant);
    Type type = constant.getType();
    auto kernel = KernelOp::create(builder, constant.getLoc(), type,
                                   KernelKind::pointwise,
                                   /*plan=*/KernelPlanAttr(), ValueRange());
    Block *body = new Block();
    kernel.getBody().push_back(body);
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    Operation *copy = inner.clone(*constant);
    YieldOp::create(inner, constant.getLoc(), copy->getResults());
    constant.getResult().replaceUsesWithIf(
        kernel.getResult(0), [](OpOperand &use) {
          Operation *user = use.getOwner();
          return isa<MatmulOp>(user) ||
                 (isa<ReshapeOp>(user) &&
                  isReadByLibraryGemm(user->getResult(0)));
        });
    if (constant->use_empty())
      constant->erase();
  }
}

namespace {
struct FormKernelsPass
    : public sinter::impl::SinterFormKernelsBase<FormKernelsPass> {
  using SinterFormKernelsBase::SinterFormKernelsBase;
  void runOnOperation() override;
};
} // namespace

void FormKernelsPass::runOnOperation() {
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    eraseDeadOps(func.getBody().front());
    materializeGemmConstants(func.getBody().front());
    CostModel costs(func);
    FailureOr<SmallVector<FusionGroup>> groups =
        decideFusion(func.getBody().front(), costs, FusionOptions{remarks});
    if (failed(groups))
      return signalPassFailure();
    formKernels(func.getBody().front(), *groups);
  }
}
