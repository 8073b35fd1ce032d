//===- Numbers.cpp - The spelling of numbers in messages and code ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Support/Numbers.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mlir::sinter;

/// The shortest "%g" spelling of `value` with at most `maxDigits` digits
/// that `readsBack`.
template <typename T>
static std::string
formatShortestOf(T value, int maxDigits,
                 llvm::function_ref<bool(const char *)> readsBack) {
  char buffer[32];
  for (int digits = 1; digits <= maxDigits; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits,
                  static_cast<double>(value));
    if (readsBack(buffer))
      break;
  }
  return buffer;
}

std::string mlir::sinter::formatShortest(double value, int maxDigits) {
  return formatShortestOf(value, maxDigits, [&](const char *text) {
    return std::strtod(text, nullptr) == value;
  });
}

std::string mlir::sinter::formatShortest(float value) {
  return formatShortestOf(value, 9, [&](const char *text) {
    return std::strtof(text, nullptr) == value;
  });
}

std::string mlir::sinter::formatDecimal(double value) {
  if (value == std::trunc(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<int64_t>(value));
  return formatShortest(value);
}
