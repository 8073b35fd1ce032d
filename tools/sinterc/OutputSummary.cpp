//===- OutputSummary.cpp - How sinterc run prints an output ---------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "OutputSummary.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Interpreter/InitHints.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::sinter;

/// The largest output printValues prints in full.
constexpr int64_t kMaxPrintedElements = 4096;

/// 64-bit FNV-1a of the values of `tensor` as little-endian float32 (int64
/// for integer tensors).
static uint64_t getChecksum(const HostTensor &tensor) {
  uint64_t hash = kFnv1a64Basis;
  for (double value : tensor.data) {
    uint64_t bits = 0;
    size_t size = 8;
    if (tensor.isInteger) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(value));
    } else {
      float single = static_cast<float>(value);
      uint32_t singleBits;
      std::memcpy(&singleBits, &single, sizeof(singleBits));
      bits = singleBits;
      size = 4;
    }
    char bytes[8];
    for (size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<char>(bits >> (8 * i));
    hash = getFnv1a64(StringRef(bytes, size), hash);
  }
  return hash;
}

/// Prints one value as %.6g (floats; every NaN as `nan`) or exactly
/// (indices).
static void printValue(llvm::raw_ostream &os, double value, bool isInteger) {
  if (isInteger)
    os << static_cast<int64_t>(value);
  else if (std::isnan(value))
    os << "nan";
  else
    os << llvm::format("%.6g", value);
}

/// Prints `<name> <type>[<shape>] min= max= mean= fnv1a=`; min, max and
/// mean are NaN if any value is.
void mlir::sinter::printSummary(llvm::raw_ostream &os, const ModelValue &value,
                                const HostTensor &tensor) {
  double min = HUGE_VAL, max = -HUGE_VAL, sum = 0.0;
  for (double x : tensor.data) {
    min = std::isnan(x) || std::isnan(min) ? NAN : std::min(min, x);
    max = std::isnan(x) || std::isnan(max) ? NAN : std::max(max, x);
    sum += x;
  }
  if (tensor.data.empty())
    min = max = NAN;
  double mean = sum / static_cast<double>(tensor.data.size());
  os << value.name << ' ' << value.type.getElementType()
     << formatShape(tensor.shape) << " min=";
  printValue(os, min, false);
  os << " max=";
  printValue(os, max, false);
  os << " mean=";
  printValue(os, mean, false);
  os << " fnv1a=" << llvm::format_hex_no_prefix(getChecksum(tensor), 16)
     << "\n";
}

/// Prints every value of `tensor`, one row of its last dim per line,
/// prefixed by the indices of the other dims: `  [0, 1] 1 2 3`.
void mlir::sinter::printValues(llvm::raw_ostream &os,
                               const HostTensor &tensor) {
  if (tensor.numElements() > kMaxPrintedElements) {
    os << "  (" << tensor.numElements() << " values, not printed)\n";
    return;
  }
  ArrayRef<int64_t> shape = tensor.shape;
  int64_t rowLength = shape.empty() ? 1 : shape.back();
  int64_t rows = rowLength ? tensor.numElements() / rowLength : 0;
  ArrayRef<int64_t> outer = shape.drop_back(shape.empty() ? 0 : 1);
  for (int64_t row = 0; row < rows; ++row) {
    SmallVector<int64_t> index(outer.size());
    for (int64_t d = outer.size() - 1, rest = row; d >= 0; --d) {
      index[d] = rest % outer[d];
      rest /= outer[d];
    }
    os << "  [";
    llvm::interleaveComma(index, os);
    os << ']';
    for (int64_t j = 0; j < rowLength; ++j) {
      os << ' ';
      printValue(os, tensor.data[row * rowLength + j], tensor.isInteger);
    }
    os << '\n';
  }
}
