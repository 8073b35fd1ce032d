//===- ReductionOps.cpp - Sinter reductions -------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Folders of the reductions that are the identity over one element.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Reduction folders
//===----------------------------------------------------------------------===//

/// reduce(x) over size-1 dims with keepdim = x, for reductions that are the
/// identity on a single element, bit for bit (not sum, mean and logsumexp:
/// their +0 start turns a -0 into +0).
template <typename ReductionOp>
static OpFoldResult foldUnitReduction(ReductionOp op) {
  if (op.getKeepdim() && op.reducesOnlyUnitDims() &&
      op.getInput().getType() == op.getType())
    return op.getInput();
  return {};
}

/// max over size-1 dims (keepdim) = x
OpFoldResult MaxOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }
/// min over size-1 dims (keepdim) = x
OpFoldResult MinOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }
/// prod over size-1 dims (keepdim) = x
OpFoldResult ProdOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }
