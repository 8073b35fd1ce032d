//===- RewritePolicy.cpp - Which rewrites each fp mode allows -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/RewritePolicy.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir::sinter;

bool mlir::sinter::isRewriteAllowed(RewriteEffect effect, FpMode mode) {
  switch (effect) {
  case RewriteEffect::Exact:
    return true;
  case RewriteEffect::Rounding:
  case RewriteEffect::FiniteOnly:
  case RewriteEffect::SignedZero:
    return mode == FpMode::Fast;
  }
  llvm_unreachable("unknown rewrite effect");
}
