//===- SinterInterfaces.td - Sinter op interfaces, traits --*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The op classes of the dialect: interfaces and marker traits that passes,
// the interpreter and the code generators ask instead of listing ops.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERINTERFACES_TD
#define SINTER_DIALECT_SINTER_IR_SINTERINTERFACES_TD

include "mlir/IR/OpBase.td"
include "sinter/Dialect/Sinter/IR/SinterEnums.td"

/// An op that reduces its input over a list of dims (sum, mean, max, min,
/// prod, logsumexp, argmax, argmin, var).
def Sinter_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::mlir::sinter";
  let description = [{
    A reduction of `getInput()` over the dims `getDims()` with the combiner
    `getCombiner()`, keeping the reduced dims as size 1 when `getKeepdim()`.
    Kernel formation, the cost model, the interpreter and the CUDA emitter
    ask it instead of listing the reductions (as IREE's isRootOp asks
    interfaces).
  }];
  let methods = [
    InterfaceMethod<"The reduced tensor.", "::mlir::Value", "getInput">,
    InterfaceMethod<"The reduced dims, distinct and in range.",
                    "::llvm::ArrayRef<int64_t>", "getDims">,
    InterfaceMethod<"Whether the reduced dims stay as size 1.", "bool",
                    "getKeepdim">,
    InterfaceMethod<"How the reduced elements combine.",
                    "::mlir::sinter::ReductionCombiner", "getCombiner">,
  ];
  let extraSharedClassDeclaration = [{
    /// Where the reduced dims lie in the input.
    ::mlir::sinter::ReductionGeometry getGeometry() {
      return ::mlir::sinter::classifyReduction(
          ::llvm::cast<::mlir::ShapedType>($_op.getInput().getType())
              .getShape(),
          $_op.getDims());
    }
    /// The reduced value.
    ::mlir::Value getReduced() { return $_op->getResult(0); }
  }];
}

/// An elementwise op of one tensor operand whose result has its type (neg,
/// exp, relu, ...): the CUDA scalar emitter and the interpreter evaluate it
/// element by element.
def Sinter_ElementwiseUnary : NativeOpTrait<"ElementwiseUnary"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An elementwise op of two operands that broadcast against each other as in
/// NumPy (add, mul, pow, ...).
def Sinter_BroadcastingBinary : NativeOpTrait<"BroadcastingBinary"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An op whose floating-point result IEEE 754 defines exactly (correctly
/// rounded: add, sqrt, ...) or that only moves bits (neg, relu, ...):
/// folding it on the host gives the GPU's bits.
def Sinter_CorrectlyRounded : NativeOpTrait<"CorrectlyRounded"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An op that sinter-decompose rewrites into elementwise ops and reductions
/// (softmax, log_softmax and the normalizations); the CUDA emitter never
/// sees it.
def Sinter_Composite : NativeOpTrait<"Composite"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An elementwise op of three operands that broadcast against each other as
/// in NumPy (select: torch.where).
def Sinter_BroadcastingTernary : NativeOpTrait<"BroadcastingTernary"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An op that moves no data inside a kernel: each result element is one
/// operand element at an index the op computes from the result's (reshape,
/// transpose, slice, concat).
def Sinter_IndexMap : NativeOpTrait<"IndexMap"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

#endif // SINTER_DIALECT_SINTER_IR_SINTERINTERFACES_TD
