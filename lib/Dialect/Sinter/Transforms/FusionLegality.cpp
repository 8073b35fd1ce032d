//===- FusionLegality.cpp - Whether an op may join a kernel ---------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Small predicates on ops and shapes that say whether an op fits the
// structure of a kernel and, when it does not, why.
//
//===----------------------------------------------------------------------===//

#include "FusionLegality.h"

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::sinter;

ArrayRef<int64_t> mlir::sinter::getFusionShape(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static bool isStatic(ArrayRef<int64_t> shape) {
  return llvm::none_of(shape, ShapedType::isDynamic);
}

bool mlir::sinter::isCheapOp(Operation *op) {
  return isElementwiseOp(op) || isa<ReshapeOp, TransposeOp>(op);
}

/// Whether `shape` begins with the row dims `rows` (`?` matches `?`).
static bool startsWithRows(ArrayRef<int64_t> shape, ArrayRef<int64_t> rows) {
  return shape.size() >= rows.size() && shape.take_front(rows.size()) == rows;
}

/// Whether elementwise `op` computes each row of its result from the same
/// row of every operand computed in the kernel: the result keeps the rows,
/// and internal operands have the result's rank (so that broadcasting aligns
/// row dims with row dims) and keep the rows too. Operands read from HBM may
/// broadcast in any way (bias [N], per-row [M, 1], full [M, N]).
static Legality broadcastsOverSameRows(Operation *op, ArrayRef<int64_t> rows,
                                       IsInternalFn isInternal) {
  ArrayRef<int64_t> result = getFusionShape(op->getResult(0));
  bool keepsRows =
      startsWithRows(result, rows) &&
      llvm::all_of(op->getOperands(), [&](Value operand) {
        ArrayRef<int64_t> shape = getFusionShape(operand);
        return !isInternal(operand) ||
               (shape.size() == result.size() && startsWithRows(shape, rows));
      });
  return keepsRows ? Legality() : Legality::reject("broadcasts across rows");
}

/// Whether reduction `op` reduces inside rows: only dims after the rows.
static Legality reducesWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  std::optional<ReductionInfo> reduction = getReductionInfo(op);
  bool within = reduction &&
                startsWithRows(getFusionShape(op->getOperand(0)), rows) &&
                llvm::all_of(reduction->dims, [&](int64_t dim) {
                  return dim >= static_cast<int64_t>(rows.size());
                });
  return within ? Legality() : Legality::reject("reduces across rows");
}

/// Whether `op` keeps every element in its row: a reshape that keeps the row
/// dims and regroups only (static) dims after them, e.g. [B, C] -> [B, G,
/// C/G], or a transpose that leaves the row dims in place.
static Legality staysWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  if (!isa<ReshapeOp, TransposeOp>(op))
    return Legality::reject(
        "is neither elementwise, a reduction nor a reshape or transpose");
  ArrayRef<int64_t> input = getFusionShape(op->getOperand(0));
  ArrayRef<int64_t> result = getFusionShape(op->getResult(0));
  Legality across = Legality::reject("moves elements across rows");
  if (!startsWithRows(input, rows) || !startsWithRows(result, rows))
    return across;
  if (isa<ReshapeOp>(op))
    return isStatic(input.drop_front(rows.size())) &&
                   isStatic(result.drop_front(rows.size()))
               ? Legality()
               : Legality::reject("regroups symbolic dims within rows");
  ArrayRef<int64_t> perm = cast<TransposeOp>(op).getPerm();
  return llvm::equal(perm.take_front(rows.size()),
                     llvm::seq<int64_t>(0, rows.size()))
             ? Legality()
             : across;
}

Legality mlir::sinter::fitsRows(Operation *op, ArrayRef<int64_t> rows,
                                IsInternalFn isInternal) {
  if (isElementwiseOp(op))
    return broadcastsOverSameRows(op, rows, isInternal);
  if (getReductionInfo(op))
    return reducesWithinRows(op, rows);
  return staysWithinRows(op, rows);
}

/// Whether `shape` is a statistic over the columns of `full`, whose leading
/// `numReduced` dims are reduced: the trailing dims of `full`, with the
/// leading ones kept as 1 or dropped.
static bool isColumnStatistic(ArrayRef<int64_t> shape, ArrayRef<int64_t> full,
                              unsigned numReduced) {
  ArrayRef<int64_t> columns = full.drop_front(numReduced);
  if (shape.size() < columns.size() || shape.size() > full.size() ||
      shape.take_back(columns.size()) != columns)
    return false;
  return llvm::all_of(shape.drop_back(columns.size()),
                      [](int64_t size) { return size == 1; });
}

Legality mlir::sinter::fitsColumns(Operation *op, ArrayRef<int64_t> full,
                                   unsigned numReduced, IsInternalFn isInternal,
                                   bool allowFullSize) {
  if (std::optional<ReductionInfo> reduction = getReductionInfo(op))
    return getFusionShape(op->getOperand(0)) == full &&
                   llvm::equal(reduction->dims,
                               llvm::seq<int64_t>(0, numReduced))
               ? Legality()
               : Legality::reject("reduces other dims than the columns' "
                                  "statistics");
  if (!isElementwiseOp(op))
    return Legality::reject("is not elementwise");
  auto isStatistic = [&](Value value) {
    return isColumnStatistic(getFusionShape(value), full, numReduced);
  };
  auto isFullSize = [&](Value value) { return getFusionShape(value) == full; };
  Value result = op->getResult(0);
  bool resultIsStatistic = isStatistic(result);
  if (!resultIsStatistic && !(allowFullSize && isFullSize(result)))
    return Legality::reject(allowFullSize
                                ? "is neither a column statistic nor full size"
                                : "broadcasts statistics back to full size (a "
                                  "pointwise kernel does that)");
  bool operandsFit = llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isInternal(operand) || isStatistic(operand) ||
           (!resultIsStatistic && isFullSize(operand));
  });
  return operandsFit
             ? Legality()
             : Legality::reject("combines full-size values into a statistic");
}

Legality mlir::sinter::fitsSameShape(Operation *op, ArrayRef<int64_t> full,
                                     IsInternalFn isInternal) {
  if (!isElementwiseOp(op))
    return Legality::reject("is not elementwise");
  bool sameShape =
      getFusionShape(op->getResult(0)) == full &&
      llvm::all_of(op->getOperands(), [&](Value operand) {
        return !isInternal(operand) || getFusionShape(operand) == full;
      });
  return sameShape ? Legality()
                   : Legality::reject("changes the shape of the reduced input");
}

Legality mlir::sinter::readsElementwise(Operation *user, Value value) {
  if (isa<ReshapeOp, TransposeOp>(user))
    return Legality();
  if (!isElementwiseOp(user))
    return Legality::reject("is not elementwise", user);
  return getFusionShape(value) == getFusionShape(user->getResult(0))
             ? Legality()
             : Legality::reject("broadcasts its operand", user);
}

Legality mlir::sinter::isMatmulOperandView(Operation *op, Operation *matmul) {
  if (!isa<ReshapeOp>(op))
    return Legality::reject("computes an operand of the matmul, which the "
                            "library GEMM reads from memory");
  return llvm::all_of(op->getUsers(),
                      [&](Operation *user) { return user == matmul; })
             ? Legality()
             : Legality::reject("is a view of the matmul's operand that "
                                "other ops read too");
}

std::optional<SmallVector<int64_t>>
mlir::sinter::getReductionRows(Operation *op) {
  std::optional<ReductionInfo> reduction = getReductionInfo(op);
  ArrayRef<int64_t> input = getFusionShape(op->getOperand(0));
  SmallVector<int64_t> dims(reduction->dims);
  llvm::sort(dims);
  int64_t first =
      static_cast<int64_t>(input.size()) - static_cast<int64_t>(dims.size());
  if (dims.empty() || first <= 0 ||
      !llvm::equal(dims, llvm::seq<int64_t>(first, input.size())))
    return std::nullopt;
  return SmallVector<int64_t>(input.take_front(first));
}

std::optional<unsigned> mlir::sinter::getColumnReducedCount(Operation *op) {
  std::optional<ReductionInfo> reduction = getReductionInfo(op);
  int64_t rank = getFusionShape(op->getOperand(0)).size();
  SmallVector<int64_t> dims(reduction->dims);
  llvm::sort(dims);
  if (dims.empty() || static_cast<int64_t>(dims.size()) >= rank ||
      !llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
    return std::nullopt;
  return dims.size();
}

KernelKind mlir::sinter::getReductionKind(Operation *op) {
  return cast<ReductionOpInterface>(op).getGeometry() ==
                 ReductionGeometry::trailing
             ? KernelKind::row_reduction
             : KernelKind::column_reduction;
}

KernelKind mlir::sinter::getMatmulKind(MatmulOp matmul) {
  ArrayRef<int64_t> shape = getFusionShape(matmul.getResult());
  bool vector = shape[shape.size() - 1] == 1 || shape[shape.size() - 2] == 1;
  return vector ? KernelKind::matvec : KernelKind::gemm;
}
