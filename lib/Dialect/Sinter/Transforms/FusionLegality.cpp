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
#include "sinter/Dialect/Sinter/Transforms/RewriteUtils.h"

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
  return isElementwiseOp(op) || isShapeOp(op);
}

/// Whether `shape` begins with the row dims `rows` (`?` matches `?`).
static bool startsWithRows(ArrayRef<int64_t> shape, ArrayRef<int64_t> rows) {
  return shape.size() >= rows.size() && shape.take_front(rows.size()) == rows;
}

/// The number of elements of static `shape`, or std::nullopt.
static std::optional<int64_t> getStaticCount(ArrayRef<int64_t> shape) {
  if (!isStatic(shape))
    return std::nullopt;
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// The elements of `shape` per element of the row dims' symbolic prefix
/// (up to their last `?`; empty when the rows are static), when `shape`
/// holds whole rows of `rows` in row-major order without beginning with all
/// the row dims: `shape` begins with that prefix, its other dims are static
/// and hold a multiple of the static rest of the rows. Row r is then the run
/// of elements [r * L, (r + 1) * L), as after a reshape that regroups the
/// rows ([N, G, C/G * H * W] back to [N, C, H, W], whose channel dim
/// straddles the rows; N may be symbolic).
static std::optional<int64_t> getFlatRowElements(ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> rows) {
  const auto *lastSymbolic =
      llvm::find_if(llvm::reverse(rows), ShapedType::isDynamic).base();
  ArrayRef<int64_t> prefix = rows.take_front(lastSymbolic - rows.begin());
  if (!startsWithRows(shape, prefix))
    return std::nullopt;
  std::optional<int64_t> elements =
      getStaticCount(shape.drop_front(prefix.size()));
  std::optional<int64_t> rowCount =
      getStaticCount(rows.drop_front(prefix.size()));
  if (!elements || !rowCount || *rowCount <= 0 || *elements % *rowCount != 0)
    return std::nullopt;
  return elements;
}

/// Whether `shape` holds whole rows of `rows` (see getFlatRowElements).
static bool holdsFlatRows(ArrayRef<int64_t> shape, ArrayRef<int64_t> rows) {
  return getFlatRowElements(shape, rows).has_value();
}

/// Whether elementwise `op` computes each row of its result from the same
/// row of every operand computed in the kernel: the result keeps the rows,
/// and internal operands have the result's rank (so that broadcasting aligns
/// row dims with row dims) and keep the rows too; or the result holds flat
/// rows (holdsFlatRows) and internal operands have its shape exactly.
/// Operands read from HBM may broadcast in any way (bias [N], per-row
/// [M, 1], per-channel [C, 1, 1], full [M, N]).
static Legality broadcastsOverSameRows(Operation *op, ArrayRef<int64_t> rows,
                                       IsInternalFn isInternal) {
  ArrayRef<int64_t> result = getFusionShape(op->getResult(0));
  bool startsWith = startsWithRows(result, rows);
  if (!startsWith && !holdsFlatRows(result, rows))
    return Legality::reject("broadcasts across rows");
  bool keepsRows = llvm::all_of(op->getOperands(), [&](Value operand) {
    ArrayRef<int64_t> shape = getFusionShape(operand);
    if (!isInternal(operand))
      return true;
    return startsWith
               ? shape.size() == result.size() && startsWithRows(shape, rows)
               : shape == result;
  });
  return keepsRows ? Legality() : Legality::reject("broadcasts across rows");
}

/// Whether reduction `op` reduces inside rows: only dims after the rows.
/// An argmax or argmin reduces whole rows (every dim after them that is not
/// of size 1): row kernels have no segmented form of it.
static Legality reducesWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  ArrayRef<int64_t> input = getFusionShape(op->getOperand(0));
  if (!reduction || !startsWithRows(input, rows) ||
      !llvm::all_of(reduction.getDims(), [&](int64_t dim) {
        return dim >= static_cast<int64_t>(rows.size());
      }))
    return Legality::reject("reduces across rows");
  // Thread teams own contiguous runs of a row: the kernel verifier accepts
  // trailing reductions only (a middle dim of the row, e.g. dim 1 of
  // [R, 4, 5] with rows [R], needs a column kernel).
  if (!reduction.reducesTrailingRun())
    return Legality::reject("reduces dims in the middle of each row");
  if (!getCombinerInfo(reduction.getCombiner()).isIndex)
    return Legality();
  bool wholeRows = llvm::all_of(
      llvm::seq<int64_t>(rows.size(), input.size()), [&](int64_t dim) {
        return input[dim] == 1 || llvm::is_contained(reduction.getDims(), dim);
      });
  return wholeRows ? Legality()
                   : Legality::reject("reduces part of each row, which row "
                                      "kernels cannot do for an arg-reduction");
}

/// Whether `op` keeps every element in its row: a reshape that keeps the row
/// dims and regroups only (static) dims after them, e.g. [B, C] -> [B, G,
/// C/G], or one between shapes that hold flat rows (a reshape keeps
/// the row-major order: [N, G, C/G * H * W] -> [N, C, H, W]), or a transpose
/// that leaves the row dims in place.
static Legality staysWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  if (!isa<ReshapeOp, TransposeOp>(op))
    return Legality::reject(
        "is neither elementwise, a reduction nor a reshape or transpose");
  ArrayRef<int64_t> input = getFusionShape(op->getOperand(0));
  ArrayRef<int64_t> result = getFusionShape(op->getResult(0));
  Legality across = Legality::reject("moves elements across rows");
  // Both sides hold flat rows and as many elements per symbolic prefix, so
  // the prefix's `?` dims are the same.
  std::optional<int64_t> inputElements = getFlatRowElements(input, rows);
  if (isa<ReshapeOp>(op) && inputElements &&
      inputElements == getFlatRowElements(result, rows))
    return Legality();
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
  if (isa<ReductionOpInterface>(op))
    return reducesWithinRows(op, rows);
  return staysWithinRows(op, rows);
}

/// Whether `shape` is a statistic of `full` over the sorted dims `reduced`:
/// the kept dims alone, or a shape that broadcasts (aligned at the right) to
/// `full` with size 1 exactly along reduced dims (keepdim, or a leading run
/// of them dropped).
static bool isColumnStatistic(ArrayRef<int64_t> shape, ArrayRef<int64_t> full,
                              ArrayRef<int64_t> reduced) {
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(full))
    if (!llvm::is_contained(reduced, static_cast<int64_t>(d)))
      kept.push_back(size);
  if (shape == ArrayRef<int64_t>(kept))
    return true;
  if (shape.size() > full.size())
    return false;
  // Only reduced dims may be dropped: a scalar is no statistic of a sum
  // over dim 0 of [1, 5, 2] (IR fuzzer seed 8753).
  size_t offset = full.size() - shape.size();
  for (size_t d = 0; d < offset; ++d)
    if (!llvm::is_contained(reduced, static_cast<int64_t>(d)))
      return false;
  for (auto [i, size] : llvm::enumerate(shape)) {
    int64_t d = static_cast<int64_t>(i + offset);
    if (size != (llvm::is_contained(reduced, d) ? 1 : full[d]))
      return false;
  }
  return true;
}

Legality mlir::sinter::fitsColumns(Operation *op, ArrayRef<int64_t> full,
                                   ArrayRef<int64_t> reduced,
                                   IsInternalFn isInternal) {
  if (auto reduction = dyn_cast<ReductionOpInterface>(op)) {
    SmallVector<int64_t> dims(reduction.getDims());
    llvm::sort(dims);
    return getFusionShape(op->getOperand(0)) == full &&
                   ArrayRef<int64_t>(dims) == reduced
               ? Legality()
               : Legality::reject("reduces other dims than the kernel's "
                                  "statistics");
  }
  auto isStatistic = [&](Value value) {
    return isColumnStatistic(getFusionShape(value), full, reduced);
  };
  // A reshape of a statistic that only drops its unit dims (logsumexp
  // without keepdim) keeps its elements in order: the fold writes them.
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    return isStatistic(reshape.getInput()) &&
                   getSizesWithoutUnitDims(
                       getFusionShape(reshape.getResult())) ==
                       getSizesWithoutUnitDims(
                           getFusionShape(reshape.getInput()))
               ? Legality()
               : Legality::reject("is a reshape other than of a statistic "
                                  "to its sizes without unit dims");
  }
  if (!isElementwiseOp(op))
    return Legality::reject("is not elementwise");
  auto isFullSize = [&](Value value) { return getFusionShape(value) == full; };
  Value result = op->getResult(0);
  bool resultIsStatistic = isStatistic(result);
  if (!resultIsStatistic && !isFullSize(result))
    return Legality::reject("is neither a column statistic nor full size");
  bool operandsFit = llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isInternal(operand) || isStatistic(operand) ||
           (!resultIsStatistic && isFullSize(operand));
  });
  return operandsFit
             ? Legality()
             : Legality::reject("combines full-size values into a statistic");
}

Legality mlir::sinter::readsElementwise(Operation *user, Value value) {
  if (isShapeOp(user))
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

bool mlir::sinter::isReadByLibraryGemm(Value value) {
  // A worklist, not recursion: a chain of reshapes may be long.
  SmallVector<Value> worklist = {value};
  while (!worklist.empty())
    for (Operation *user : worklist.pop_back_val().getUsers()) {
      if (isa<MatmulOp>(user))
        return true;
      if (auto reshape = dyn_cast<ReshapeOp>(user))
        worklist.push_back(reshape.getResult());
    }
  return false;
}

std::optional<SmallVector<int64_t>>
mlir::sinter::getReductionRows(Operation *op) {
  auto reduction = cast<ReductionOpInterface>(op);
  ArrayRef<int64_t> input = getFusionShape(op->getOperand(0));
  SmallVector<int64_t> dims(reduction.getDims());
  llvm::sort(dims);
  int64_t first =
      static_cast<int64_t>(input.size()) - static_cast<int64_t>(dims.size());
  if (dims.empty() || first <= 0 ||
      !llvm::equal(dims, llvm::seq<int64_t>(first, input.size())))
    return std::nullopt;
  return SmallVector<int64_t>(input.take_front(first));
}

SmallVector<int64_t> mlir::sinter::getColumnReducedDims(Operation *op) {
  SmallVector<int64_t> dims(cast<ReductionOpInterface>(op).getDims());
  llvm::sort(dims);
  return dims;
}

KernelKind mlir::sinter::getReductionKind(Operation *op) {
  return cast<ReductionOpInterface>(op).reducesTrailingRun()
             ? KernelKind::row_reduction
             : KernelKind::column_reduction;
}

KernelKind mlir::sinter::getMatmulKind(MatmulOp matmul) {
  ArrayRef<int64_t> shape = getFusionShape(matmul.getResult());
  bool vector = shape[shape.size() - 1] == 1 || shape[shape.size() - 2] == 1;
  return vector ? KernelKind::matvec : KernelKind::gemm;
}
