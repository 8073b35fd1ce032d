//===- ReductionRuns.cpp - Runs of 4 a split reduction reads --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/ReductionRuns.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sinter;

/// The first of the trailing dims of `shape` that `dims` reduces without a
/// kept dim between them (the innermost dim where it is kept).
static int64_t getTrailingRunStart(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> dims) {
  int64_t first = static_cast<int64_t>(shape.size()) - 1;
  if (!llvm::is_contained(dims, first))
    return first;
  while (first > 0 && llvm::is_contained(dims, first - 1))
    --first;
  return first;
}

/// Whether an argument of `shape` reads the same element at every position
/// of dims [first, rank) of a value of rank `rank` it broadcasts to.
static bool isConstantAlong(ArrayRef<int64_t> shape, int64_t first,
                            int64_t rank) {
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  for (int64_t d = std::max(first, offset); d < rank; ++d)
    if (shape[d - offset] != 1)
      return false;
  return true;
}

bool sinter::canReadRunsOfFour(ReductionOpInterface reduction,
                               int64_t columnsPerBlock) {
  if (columnsPerBlock != 1 && columnsPerBlock < 4)
    return false;
  auto inputType = dyn_cast<ShapedType>(reduction.getInput().getType());
  if (!inputType)
    return false;
  ArrayRef<int64_t> shape = inputType.getShape();
  if (shape.empty())
    return false;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const bool innermostReduced =
      llvm::is_contained(reduction.getDims(), rank - 1);
  if (innermostReduced != (columnsPerBlock == 1))
    return false;
  // The run's elements: the trailing reduced dims, or the kept innermost.
  const int64_t first = getTrailingRunStart(shape, reduction.getDims());
  int64_t length = 1;
  for (int64_t size : shape.drop_front(first)) {
    if (ShapedType::isDynamic(size))
      return false;
    length *= size;
  }
  if (length % 4 != 0)
    return false;
  const bool crossesInnermost = shape.back() % 4 != 0;
  SmallVector<Value> stack = {reduction.getInput()};
  llvm::DenseSet<Operation *> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    Operation *producer = value.getDefiningOp();
    // An argument or a constant: read at its own coordinates.
    if (!producer || producer->getNumOperands() == 0) {
      // (A scalar is the same at every position.)
      auto type = dyn_cast<ShapedType>(value.getType());
      if (crossesInnermost && type && type.getShape() != shape &&
          !isConstantAlong(type.getShape(), first, rank))
        return false;
      continue;
    }
    if (isa<ReductionOpInterface>(producer) || !seen.insert(producer).second)
      continue;
    if (isShapeOp(producer) && (crossesInnermost || !isa<ReshapeOp>(producer) ||
                                !isa<BlockArgument>(producer->getOperand(0)) ||
                                !producer->getOperand(0).hasOneUse()))
      return false;
    llvm::append_range(stack, producer->getOperands());
  }
  return true;
}
