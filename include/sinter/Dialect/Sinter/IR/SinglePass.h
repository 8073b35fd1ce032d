//===- SinglePass.h - Statistics that one pass computes ---------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Two reductions where the second reads the first's result can still be
// computed in one pass over the elements when they form a known pair:
//   - softmax's max m = max(x) and sum s = sum(exp(x - m)): the online
//     softmax keeps (m, s) and rescales s whenever m grows; logsumexp's
//     sum(exp(x - clamp(m))), m clamped to the finite range, too;
//   - a mean m = mean(x) and the mean of squared deviations
//     v = mean((x - m)^2) or sum((x - m)^2): Welford's (mean, M2, count).
// The planner decides whether a kernel uses them (#sinter.plan's
// single_pass); the CUDA emitter finds the same pairs here.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINGLEPASS_H
#define SINTER_DIALECT_SINTER_IR_SINGLEPASS_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

namespace mlir::sinter {

/// The single-pass forms of a pair of statistics.
enum class SinglePassForm {
  /// max(x) and sum(exp(x - max(x))).
  OnlineSoftmax,
  /// mean(x) and mean((x - mean(x))^2), or sum((x - mean(x))^2).
  Welford,
};

/// Two reductions of the same elements that one pass computes.
struct SinglePassPair {
  /// The inner statistic (the max or the mean) and the outer one.
  Operation *first, *second;
  SinglePassForm form;
  /// Whether the outer statistic is logsumexp's sum(exp(x - clamp(max))),
  /// the max clamped to the finite range: where the max is infinite, the
  /// sum is 0 (-inf) or inf (+inf) rather than the online state's.
  bool clampedMax = false;
};

/// Returns the pair whose outer statistic is `second`, if `second` is
/// sum(exp(x - max(x))) (or sum(exp(x - clamp(max(x)))) with the clamp to
/// the finite range) or mean((x - mean(x))^2) with the inner statistic over
/// the same dims of the same x, kept as size-1 dims.
std::optional<SinglePassPair> matchSinglePassPair(Operation *second);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_SINGLEPASS_H
