//===- OutputSummary.h - How sinterc run prints an output -----*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The summary line and the values that `sinterc run` prints for each output.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TOOLS_SINTERC_OUTPUTSUMMARY_H
#define SINTER_TOOLS_SINTERC_OUTPUTSUMMARY_H

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Interpreter/Interpreter.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::sinter {

/// Prints `<name> <type>[<shape>] min= max= mean= fnv1a=`; min, max and
/// mean are NaN if any value is (or the output is empty); fnv1a is the
/// 64-bit FNV-1a hash of the values as little-endian float32 (int64 for
/// index outputs).
void printSummary(llvm::raw_ostream &os, const ModelValue &value,
                  const HostTensor &tensor);

/// Prints every value of `tensor`, one row of its last dim per line,
/// prefixed by the indices of the other dims: `  [0, 1] 1 2 3`; outputs of
/// more than 4096 values only by their count.
void printValues(llvm::raw_ostream &os, const HostTensor &tensor);

} // namespace mlir::sinter

#endif // SINTER_TOOLS_SINTERC_OUTPUTSUMMARY_H
