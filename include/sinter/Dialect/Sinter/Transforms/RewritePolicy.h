//===- RewritePolicy.h - Which rewrites each fp mode allows -----*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The numerics policy of DESIGN.md in one place: every algebraic rewrite says
// what it may change about the values a model computes (its effect), and
// `isRewriteAllowed` decides from that effect alone whether the rewrite runs
// under `--fp-mode=strict` or `--fp-mode=fast`. Patterns never test the mode
// themselves.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEPOLICY_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEPOLICY_H

namespace mlir::sinter {

/// How freely the optimizer may change floating-point results.
enum class FpMode {
  /// Value-preserving rewrites only: identities, exact constants (x / 2 ->
  /// x * 0.5) and folds that give bit-identical results.
  Strict,
  /// Also rewrites that reassociate or assume finite values (the default).
  Fast,
};

/// What a rewrite may change about the values a model computes.
enum class RewriteEffect {
  /// Bit-identical results for every input, inf and NaN included.
  Exact,
  /// The same real-number result, rounded differently: reassociation,
  /// distribution, an inexact reciprocal.
  Rounding,
  /// The same result for finite inputs only (0 * x = 0 is NaN for x = inf).
  FiniteOnly,
  /// The same result but for the sign of a zero (sum(x) over one element is
  /// 0 + x, which is +0 where x is -0; dropping the sum keeps -0).
  SignedZero,
};

/// Returns true if a rewrite with `effect` may run under `mode`. This is the
/// whole policy: strict allows exact rewrites only, fast allows all.
bool isRewriteAllowed(RewriteEffect effect, FpMode mode);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_REWRITEPOLICY_H
