//===- FoldEpilogue.cpp - The apply step inside a split reduction's fold --===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Under the plan's apply_in_fold, every output of a column kernel's apply
// step has the statistics' shape (`var`'s division by n - 1, `mean(x) * w`):
// the thread of the fold that stores column p's statistics computes those
// outputs at p as well, reading back what it stored, and the apply step
// launches no kernel.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

LogicalResult cuda::writeFoldEpilogue(EmitterContext &context,
                                      const EvalKernel &apply,
                                      ColumnReduction &owner,
                                      const ColumnReduction *second) {
  // The statistics are the fold's own parameters, `stats` and the second
  // statistic's (`variance`, `sum_exp`).
  const std::string secondName = owner.getSecondParameter().str();
  EvalKernel epilogue = apply;
  for (Buffer &input : epilogue.inputs) {
    if (input.name == owner.stats)
      input.name = "stats";
    else if (second && input.name == second->stats)
      input.name = secondName;
  }
  CodeWriter writer;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  // A statistic read at p comes from the fold's local; read anywhere else,
  // from its stored buffer.
  bool readsLocal[2] = {false, false}, readsStored[2] = {false, false};
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        const Buffer &buffer = *leafBuffers.lookup(value);
        for (auto [index, name] :
             llvm::enumerate(ArrayRef<std::string>{"stats", secondName})) {
          if (buffer.name != name)
            continue;
          if (linearize(coords, buffer.shape).text == "p") {
            readsLocal[index] = true;
            return Expr(kStatisticNames[index], 0);
          }
          readsStored[index] = true;
        }
        return loadElement(emitter, buffer, coords);
      });
  addKernelLeaves(emitter, epilogue, leafBuffers);
  // Element p of an output whose sizes but for unit dims are the
  // statistics': the same linear index.
  auto withoutUnitDims = [](ArrayRef<DimExpr> shape) {
    SmallVector<DimExpr> sizes;
    llvm::copy_if(shape, std::back_inserter(sizes),
                  [](const DimExpr &size) { return !size.isConstant(1); });
    return sizes;
  };
  SmallVector<DimExpr> statistics =
      withoutUnitDims(context.shapes.getShape(owner.info.result));
  for (const Buffer &output : epilogue.outputs) {
    if (withoutUnitDims(output.shape) != statistics)
      return emitError(output.value.getLoc(),
                       "CUDA emitter: apply_in_fold, but an output of the "
                       "apply step does not have the statistics' shape");
    Coords coords = delinearize(Expr("p", writer.getDepth()), output.shape);
    FailureOr<Expr> element = emitter.emit(output.value, coords);
    if (failed(element))
      return failure();
    writer.line(output.name + "[p] = " + element->text + ";");
  }
  owner.epilogue = writer.finish(0);
  // A statistic that the epilogue reads elsewhere than at p is stored (the
  // caller stores those the kernel returns too).
  owner.stored = readsStored[0];
  owner.secondStored = readsStored[1];
  owner.readsLocal = readsLocal[0];
  owner.secondReadsLocal = readsLocal[1];
  // The buffers it reads beside the statistics, and those it writes.
  owner.epilogueInputs.clear();
  for (const Buffer &input : epilogue.inputs)
    if (input.name != "stats" && (!second || input.name != secondName) &&
        !findUsedDims(owner.epilogue, {input.name}).empty())
      owner.epilogueInputs.push_back(input);
  owner.epilogueOutputs = epilogue.outputs;
  return success();
}
