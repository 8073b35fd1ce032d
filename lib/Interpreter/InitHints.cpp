//===- InitHints.cpp - Drawing tensors from init hints --------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Interpreter/InitHints.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::sinter;

uint64_t mlir::sinter::getFnv1a64(StringRef bytes, uint64_t hash) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

InitHint mlir::sinter::getDefaultInputHint() { return InitHint{"randn", {}}; }

/// Returns the number of arguments that the hint `kind` takes, or
/// std::nullopt for an unknown kind.
static std::optional<size_t> getArgumentCount(StringRef kind) {
  return llvm::StringSwitch<std::optional<size_t>>(kind)
      .Cases({"randn", "rand", "zeros", "ones"}, 0)
      .Cases({"uniform", "normal"}, 2)
      .Case("linear_default", 1)
      .Default(std::nullopt);
}

llvm::Error mlir::sinter::verifyInitHint(const InitHint &hint) {
  std::optional<size_t> count = getArgumentCount(hint.kind);
  if (!count)
    return llvm::createStringError(
        "unknown init hint '" + hint.kind +
        "' (known: randn, rand, zeros, ones, uniform, normal, "
        "linear_default)");
  if (hint.args.size() != *count)
    return llvm::createStringError("init hint '" + hint.kind + "' takes " +
                                   std::to_string(*count) + " arguments, got " +
                                   std::to_string(hint.args.size()));
  if (hint.kind == "linear_default" && !(hint.args[0] > 0))
    return llvm::createStringError(
        "init hint 'linear_default' needs a positive fan_in");
  return llvm::Error::success();
}

namespace {
/// The portable generator documented in InitHints.h.
class Generator {
public:
  Generator(uint64_t seed, StringRef name) : engine(seed ^ getFnv1a64(name)) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1p-53; }

  /// Fills `values` with standard normal values, pairwise by Box-Muller.
  void fillNormal(MutableArrayRef<double> values) {
    for (size_t i = 0; i < values.size(); i += 2) {
      double u1 = 1.0 - uniform();
      double u2 = uniform();
      double radius = std::sqrt(-2.0 * std::log(u1));
      double angle = 2.0 * M_PI * u2;
      values[i] = radius * std::cos(angle);
      if (i + 1 < values.size())
        values[i + 1] = radius * std::sin(angle);
    }
  }

  /// Fills `values` uniformly in [lo, hi).
  void fillUniform(MutableArrayRef<double> values, double lo, double hi) {
    for (double &value : values)
      value = lo + (hi - lo) * uniform();
  }

private:
  std::mt19937_64 engine;
};
} // namespace

llvm::Expected<HostTensor>
mlir::sinter::drawTensor(const InitHint &hint, ArrayRef<int64_t> shape,
                         Type elementType, uint64_t seed, StringRef name) {
  if (llvm::Error error = verifyInitHint(hint))
    return std::move(error);
  if (!getCheckedNumElements(shape))
    return llvm::createStringError("shape " + formatShape(shape) +
                                   " is too large for the interpreter");
  HostTensor tensor(shape);
  MutableArrayRef<double> values(tensor.data);
  Generator generator(seed, name);
  StringRef kind = hint.kind;
  if (kind == "randn") {
    generator.fillNormal(values);
  } else if (kind == "normal") {
    generator.fillNormal(values);
    for (double &value : values)
      value = hint.args[0] + hint.args[1] * value;
  } else if (kind == "rand") {
    generator.fillUniform(values, 0.0, 1.0);
  } else if (kind == "uniform") {
    generator.fillUniform(values, hint.args[0], hint.args[1]);
  } else if (kind == "linear_default") {
    double bound = 1.0 / std::sqrt(hint.args[0]);
    generator.fillUniform(values, -bound, bound);
  } else {
    std::fill(values.begin(), values.end(), kind == "ones" ? 1.0 : 0.0);
  }
  roundToElementType(tensor, elementType);
  return tensor;
}
