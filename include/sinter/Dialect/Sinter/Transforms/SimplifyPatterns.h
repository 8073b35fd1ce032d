//===- SimplifyPatterns.h - The rewrite catalog of sinter-simplify -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The patterns of sinter-simplify live in two files: Simplify.cpp holds the
// elementwise, reduction and shape rewrites and the pass, SimplifyLinear.cpp
// the rewrites around matmuls. Each pattern states the effect of its rewrite
// (RewritePolicy.h) and asks the policy whether it may run.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_SIMPLIFYPATTERNS_H
#define SINTER_DIALECT_SINTER_TRANSFORMS_SIMPLIFYPATTERNS_H

#include "sinter/Dialect/Sinter/Transforms/RewritePolicy.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::sinter {

/// Base of the sinter-simplify patterns: carries the fp mode so that a
/// pattern can ask the policy whether its rewrite may run.
template <typename OpTy> class SimplifyPattern : public OpRewritePattern<OpTy> {
public:
  SimplifyPattern(MLIRContext *context, FpMode mode)
      : OpRewritePattern<OpTy>(context), mode(mode) {}

protected:
  /// Returns true if the policy lets a rewrite with `effect` run.
  bool allows(RewriteEffect effect) const {
    return isRewriteAllowed(effect, mode);
  }

private:
  FpMode mode;
};

/// Fails the match of `op` because the fp mode forbids the rewrite.
inline LogicalResult notifyForbiddenByFpMode(PatternRewriter &rewriter,
                                             Operation *op) {
  return rewriter.notifyMatchFailure(op, "the fp mode forbids the rewrite");
}

/// Adds the elementwise, reduction and shape rewrites, which also bring the
/// IR into the form that the linear rewrites match: scalar factors outermost,
/// divisions by constants as multiplications.
void populateSimplifyElementwisePatterns(RewritePatternSet &patterns,
                                         FpMode mode);

/// Adds the rewrites that find zeros and other constants (`x - x`, `x * 0`)
/// and propagate them through elementwise ops and reductions; constants of
/// a symbolic shape become `sinter.fill`s of a model input.
void populateSimplifyConstantPatterns(RewritePatternSet &patterns, FpMode mode);

/// Adds the rewrites that bring a param-only map linear along a linear
/// layer's output features next to its matmul (shifts regroup into the bias,
/// group means, products with param matrices, positive column scales), and
/// drop per-feature constants that a centering over the batch cancels.
void populateSimplifyLinearMapPatterns(RewritePatternSet &patterns,
                                       FpMode mode);

/// Adds the rewrites that move scalars out of matmul operands and turn a
/// matmul reduced over its N or M dim into a matrix-vector product.
void populateSimplifyMatvecPatterns(RewritePatternSet &patterns, FpMode mode);

/// Adds the rewrites that fold scales and shifts after a matmul into its
/// param operand, so that @prepare computes them once. They run after the
/// other rewrites reach a fixed point, so that scalars have first moved as
/// far out as they can.
void populateSimplifyWeightFoldingPatterns(RewritePatternSet &patterns,
                                           FpMode mode);

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_SIMPLIFYPATTERNS_H
