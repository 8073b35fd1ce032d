//===- ElementwiseFormula.h - CUDA expressions of elementwise ops -*- C++
//-*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The C expression that generated kernels compute for one element of an
// elementwise op (Sinter_ElementwiseUnary, Sinter_BroadcastingBinary): an
// operator, a libdevice call (expf) or a function of the runtime's
// sinter::dev namespace (rt_device.cuh). The scalar emitter applies it to
// its operands' expressions; the op-coverage test asks it for every
// elementwise op of the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CUDA_ELEMENTWISEFORMULA_H
#define SINTER_TARGET_CUDA_ELEMENTWISEFORMULA_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::sinter::cuda {

/// Returns the CUDA expression of the elementwise op `op` applied to the C
/// expressions `operands` (one per operand); `splatRhs` is the value of the
/// rhs when it is a splat constant (pow by a constant exponent, division by
/// zero). Emits an error at `op` and fails when the emitter has no formula
/// for it.
FailureOr<std::string>
getElementwiseFormula(Operation *op, ArrayRef<std::string> operands,
                      std::optional<double> splatRhs = std::nullopt);

} // namespace mlir::sinter::cuda

#endif // SINTER_TARGET_CUDA_ELEMENTWISEFORMULA_H
