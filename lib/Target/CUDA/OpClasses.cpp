//===- OpClasses.cpp - How the CUDA emitter groups sinter ops -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "OpClasses.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

std::optional<ReductionInfo> cuda::getReductionInfo(Operation *op) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  if (!reduction || getCombinerInfo(reduction.getCombiner()).isDecomposed())
    return std::nullopt;
  return ReductionInfo{reduction.getCombiner(), op,
                       reduction.getInput(),    reduction.getReduced(),
                       reduction.getDims(),     reduction.getKeepdim()};
}
