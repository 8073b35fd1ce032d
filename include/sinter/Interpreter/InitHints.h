//===- InitHints.h - Drawing tensors from init hints ------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `sinterc run` and the benchmarks draw params (from their init hints) and
// inputs (from randn) with a fixed, portable generator, so that the same
// seed gives the same values on every platform and Python can reproduce
// them:
//
//   engine   std::mt19937_64 seeded with `seed XOR fnv1a64(name)`, where
//            fnv1a64 is 64-bit FNV-1a of the value's name (offset basis
//            0xcbf29ce484222325, prime 0x100000001b3); each tensor has its
//            own stream, independent of the other tensors;
//   u        (engine() >> 11) * 2^-53, uniform in [0, 1);
//   randn    Box-Muller on pairs: u1 = 1 - u, u2 = u (two draws), r =
//            sqrt(-2 ln u1); elements 2i and 2i+1 are r cos(2 pi u2) and
//            r sin(2 pi u2) (an odd last element takes the cosine);
//   rand = u; uniform(lo, hi) = lo + (hi - lo) u;
//   normal(mean, std) = mean + std * randn; zeros; ones;
//   linear_default(fan_in) = uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)).
//
// Elements are drawn in row-major order and rounded to the element type.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_INTERPRETER_INITHINTS_H
#define SINTER_INTERPRETER_INITHINTS_H

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Interpreter/Interpreter.h"

#include "llvm/Support/Error.h"

namespace mlir::sinter {

/// The offset basis of 64-bit FNV-1a: the hash of no bytes.
constexpr uint64_t kFnv1a64Basis = 0xcbf29ce484222325ULL;

/// 64-bit FNV-1a of `bytes`, continuing from `hash` (the hash of the bytes
/// before them).
uint64_t getFnv1a64(StringRef bytes, uint64_t hash = kFnv1a64Basis);

/// The hint of an input without one: randn().
InitHint getDefaultInputHint();

/// Checks that `hint` names a known kind with the right number of
/// arguments (and a positive fan_in).
llvm::Error verifyInitHint(const InitHint &hint);

/// Draws a tensor of `shape` for the value `name` from `hint` with `seed`,
/// rounded to `elementType`.
llvm::Expected<HostTensor> drawTensor(const InitHint &hint,
                                      ArrayRef<int64_t> shape, Type elementType,
                                      uint64_t seed, StringRef name);

} // namespace mlir::sinter

#endif // SINTER_INTERPRETER_INITHINTS_H
