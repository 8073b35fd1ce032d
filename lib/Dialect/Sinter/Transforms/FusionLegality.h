//===- FusionLegality.h - Whether an op may join a kernel -------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The legality half of the fusion policy (FusionPolicy.cpp decides, by bytes
// saved, among what these predicates allow). Each predicate asks whether an
// op fits the structure of a kernel (rows owned by thread blocks, column
// statistics) and answers with a Legality: legal, or the reason it
// is not, in words that complete "cannot fuse add with sum: ..." (Inductor's
// can_fuse and WhyNoFuse, IREE's FusionUtils.h).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONLEGALITY_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONLEGALITY_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace mlir::sinter {

/// The answer of a legality predicate: legal, or why not.
class Legality {
public:
  /// Legal.
  Legality() = default;

  /// Not legal, because `op` (if given) does what `reason` says
  /// ("broadcasts across rows").
  static Legality reject(const Twine &reason, Operation *op = nullptr) {
    Legality legality;
    legality.rejected = true;
    legality.reason = reason.str();
    legality.op = op;
    return legality;
  }

  bool isLegal() const { return !rejected; }
  explicit operator bool() const { return isLegal(); }

  /// Why not; empty when legal.
  StringRef getReason() const { return reason; }
  /// The op the reason is about, when the caller named one.
  Operation *getOp() const { return op; }
  /// This rejection, about `culprit` unless it already names an op.
  Legality about(Operation *culprit) const {
    Legality legality = *this;
    if (rejected && !legality.op)
      legality.op = culprit;
    return legality;
  }

private:
  bool rejected = false;
  std::string reason;
  Operation *op = nullptr;
};

/// Whether a value is computed in the candidate kernel (rather than read
/// from HBM).
using IsInternalFn = llvm::function_ref<bool(Value)>;

/// The static shape of a ranked tensor value (`?` for dynamic dims).
ArrayRef<int64_t> getFusionShape(Value value);

/// Whether `op` is cheap enough to share a kernel with anything and to be
/// recomputed by another kernel: elementwise and shape ops. Matmuls and
/// reductions are heavy: computed once, by one kernel.
bool isCheapOp(Operation *op);

/// Whether `op` can be computed by a kernel whose thread blocks own whole
/// rows (`rows` are the leading dims that index them): GEMM epilogues and
/// row reductions.
Legality fitsRows(Operation *op, ArrayRef<int64_t> rows,
                  IsInternalFn isInternal);

/// Whether `op` can be computed by a column-statistics kernel over `full`
/// (the sorted dims `reduced` reduced): another reduction over the same
/// dims, an elementwise op on statistics, or an elementwise op that computes
/// a full-size value from full-size values and statistics: the centered
/// values of a variance, or the normalization and per-channel affine that
/// the kernel's apply step writes (training batch_norm in one kernel).
Legality fitsColumns(Operation *op, ArrayRef<int64_t> full,
                     ArrayRef<int64_t> reduced, IsInternalFn isInternal);

/// Whether `user` reads `value` element for element, so that one thread of
/// a pointwise kernel computes both: a shape op (an index map: reshape,
/// transpose, slice, concat), or an elementwise op that does not broadcast
/// `value`.
Legality readsElementwise(Operation *user, Value value);

/// Whether `op` may feed `matmul` inside a gemm kernel: only a reshape that
/// nothing else reads, a view of the operand that the library GEMM reads
/// from memory.
Legality isMatmulOperandView(Operation *op, Operation *matmul);

/// Whether the library GEMM of a matmul reads `value` from memory: an
/// operand of a matmul, directly or through reshapes (views that a gemm
/// kernel reads in place). Such a value cannot be embedded in the kernel
/// like other constants.
bool isReadByLibraryGemm(Value value);

/// The row dims of reduction `op` if it reduces a trailing run of dims and
/// keeps at least one leading dim.
std::optional<SmallVector<int64_t>> getReductionRows(Operation *op);

/// The dims reduction `op` reduces, sorted: the statistics a column kernel
/// computes (any geometry but rows).
SmallVector<int64_t> getColumnReducedDims(Operation *op);

/// The kind of the kernel reduction `op` roots: a row kernel when it reduces
/// trailing dims (threads cooperate along contiguous rows), a column kernel
/// (threads split the reduced elements over many blocks) for every other
/// geometry, a whole-tensor reduction included.
KernelKind getReductionKind(Operation *op);

/// The kind of the kernel a matmul roots: matvec when M or N is 1.
KernelKind getMatmulKind(MatmulOp matmul);

} // namespace mlir::sinter

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONLEGALITY_H
