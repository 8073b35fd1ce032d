//===- OpEvaluators.h - Per-op evaluation of the interpreter ----*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// One function per family of sinter ops, each computing an op's result in
// double from its operands' values (see Interpreter.h for how f32 mode
// rounds it). The interpreter dispatches once per op to these functions; the
// element loops live inside them. Each checks what only the run-time shapes
// can tell and reports a violation as an error at the op.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_INTERPRETER_OPEVALUATORS_H
#define SINTER_LIB_INTERPRETER_OPEVALUATORS_H

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Interpreter/Interpreter.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::sinter::interp {

/// Returns the value bound to an SSA value, or null for an absent optional
/// operand.
using ValueLookup = llvm::function_ref<const HostTensor *(Value)>;

/// Allocates a zero-filled tensor of `shape`, or reports at `op` that it is
/// too large for the interpreter.
FailureOr<HostTensor> allocateResult(Operation *op, ArrayRef<int64_t> shape,
                                     bool isInteger = false);

/// Elementwise unary ops (neg ... clamp).
FailureOr<HostTensor> evaluateUnary(Operation *op, const HostTensor &input);

/// Elementwise binary ops with NumPy broadcasting (add ... pow, compare).
FailureOr<HostTensor> evaluateBinary(Operation *op, const HostTensor &lhs,
                                     const HostTensor &rhs);

/// sinter.select: `trueValue` where `condition` is nonzero, with
/// broadcasting.
FailureOr<HostTensor> evaluateSelect(Operation *op, const HostTensor &condition,
                                     const HostTensor &trueValue,
                                     const HostTensor &falseValue);

/// Reductions over a dim list (sum ... var, argmax, argmin).
FailureOr<HostTensor> evaluateReduction(ReductionOpInterface reduction,
                                        const HostTensor &input);

/// softmax and log_softmax.
FailureOr<HostTensor> evaluateSoftmax(Operation *op, const HostTensor &input);

/// layer_norm and rms_norm.
FailureOr<HostTensor> evaluateLayerNorm(LayerNormOp op, ValueLookup lookup);
FailureOr<HostTensor> evaluateRmsNorm(RmsNormOp op, ValueLookup lookup);

/// Normalizations over channels: group_norm, instance_norm, batch_norm.
FailureOr<HostTensor> evaluateGroupNorm(GroupNormOp op, ValueLookup lookup);
FailureOr<HostTensor> evaluateInstanceNorm(InstanceNormOp op,
                                           ValueLookup lookup);
FailureOr<HostTensor> evaluateBatchNorm(BatchNormOp op, ValueLookup lookup);

/// matmul with transpose flags and batch broadcasting.
FailureOr<HostTensor> evaluateMatmul(MatmulOp op, const HostTensor &lhs,
                                     const HostTensor &rhs);

/// Shape ops and constants.
FailureOr<HostTensor> evaluateTranspose(TransposeOp op,
                                        const HostTensor &input);
FailureOr<HostTensor> evaluateReshape(ReshapeOp op, const HostTensor &input);
FailureOr<HostTensor> evaluateSlice(SliceOp op, const HostTensor &input);
FailureOr<HostTensor> evaluateConcat(ConcatOp op, ValueLookup lookup);
FailureOr<HostTensor> evaluateConstant(ConstantOp op);
FailureOr<HostTensor> evaluateFill(FillOp op, ValueLookup lookup);

} // namespace mlir::sinter::interp

#endif // SINTER_LIB_INTERPRETER_OPEVALUATORS_H
