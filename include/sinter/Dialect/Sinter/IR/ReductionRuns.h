//===- ReductionRuns.h - Runs of 4 a split reduction reads ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Where the partial kernel of a split reduction may read runs of 4
// adjacent elements (float4; a plan's vector width 4): one rule for
// sinter-plan-kernels, which chooses runs, and for the kernel verifier,
// which rejects a hand-written plan that asks for runs the CUDA emitter
// cannot read.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_REDUCTIONRUNS_H
#define SINTER_DIALECT_SINTER_IR_REDUCTIONRUNS_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

/// Whether the partial kernel of a split reduction whose blocks cover
/// `columnsPerBlock` positions can read `reduction`'s input in runs of 4
/// adjacent elements. Where a block covers one position, the runs go along
/// the reduced elements: the trailing reduced dims (H and W of [N, C, H, W]
/// reduced over N, H, W) are one contiguous run whose static length is a
/// multiple of 4, and where the innermost dim alone is not, a run may cross
/// it, so every argument the input is computed from is of the input's shape
/// (read at the linear index) or constant along those dims. Where a block
/// covers 4 positions or more, the runs go along the kept innermost dim,
/// static and a multiple of 4 long. Either way the input is computed
/// elementwise from the kernel's arguments (a reshape only as the one use
/// of an argument, which the emitter reads as a view, and not where runs
/// cross the innermost dim).
bool canReadRunsOfFour(ReductionOpInterface reduction, int64_t columnsPerBlock);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_REDUCTIONRUNS_H
