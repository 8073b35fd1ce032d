//===- Numbers.h - The spelling of numbers in messages and code -*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one formatter of floating-point numbers for text Sinter writes: the
// shortest decimal that reads back exactly. Diagnostics, init hints in
// generated comments and CUDA float literals (cuda::formatFloatLiteral) all
// spell numbers through it.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_SUPPORT_NUMBERS_H
#define SINTER_SUPPORT_NUMBERS_H

#include <string>

namespace mlir::sinter {

/// Returns the shortest "%g" spelling of `value` that reads back as exactly
/// `value`, with at most `maxDigits` significant digits (17 always read
/// back); when none does, `value` to `maxDigits` digits, as "%g" writes it
/// with 6. "nan" and "inf" for those.
std::string formatShortest(double value, int maxDigits = 17);

/// The same for a float: at most 9 digits, which always read back.
std::string formatShortest(float value);

/// Returns `value` as generated comments spell it: an integer below 1e15
/// without a fraction ("1024"), any other number as formatShortest does
/// ("0.5", "1e-05").
std::string formatDecimal(double value);

} // namespace mlir::sinter

#endif // SINTER_SUPPORT_NUMBERS_H
