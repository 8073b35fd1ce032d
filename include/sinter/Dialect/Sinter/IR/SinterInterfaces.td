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
    /// Whether a row kernel can compute it: its reduced dims are trailing,
    /// or they are the dims after leading dims that are all of size 1 (one
    /// row, e.g. dim 1 of [1, N], whose geometry is `all`).
    bool reducesTrailingRun() {
      ::mlir::sinter::ReductionGeometry geometry = getGeometry();
      if (geometry == ::mlir::sinter::ReductionGeometry::trailing)
        return true;
      if (geometry != ::mlir::sinter::ReductionGeometry::all)
        return false;
      int64_t rank =
          ::llvm::cast<::mlir::ShapedType>($_op.getInput().getType())
              .getRank();
      ::llvm::SmallVector<int64_t> dims($_op.getDims());
      ::llvm::sort(dims);
      int64_t first = rank - static_cast<int64_t>(dims.size());
      return first > 0 && ::llvm::equal(dims, ::llvm::seq<int64_t>(first, rank));
    }
    /// The reduced value.
    ::mlir::Value getReduced() { return $_op->getResult(0); }
    /// The elements each element of the result reduces (a row's, for a
    /// row kernel), where every reduced dim is static: the product of
    /// their sizes.
    ::std::optional<int64_t> getStaticGroupSize() {
      ::llvm::ArrayRef<int64_t> shape =
          ::llvm::cast<::mlir::ShapedType>($_op.getInput().getType())
              .getShape();
      int64_t size = 1;
      for (int64_t dim : $_op.getDims()) {
        if (::mlir::ShapedType::isDynamic(shape[dim]))
          return ::std::nullopt;
        size *= shape[dim];
      }
      return size;
    }
  }];
}

/// An op whose result shape follows from its operands' shapes by one rule.
def Sinter_SymbolicShapeOpInterface : OpInterface<"SymbolicShapeOpInterface"> {
  let cppNamespace = "::mlir::sinter";
  let description = [{
    The symbolic shape rule of an op, as Toy's ShapeInference interface gives
    each op its shape rule: each dim of the result as a `DimExpr` (a rational
    coefficient times a product of powers of the model's dim names, `B * 64`)
    of the operands' dims. What the rule relies on and the types cannot show
    (two symbolic dims that broadcast are equal, a reshape divides evenly) it
    adds to `constraints`, which generated code checks at run time. The rule
    need not know the result type: `SymbolicShapeAnalysis` replaces each
    static dim of the result by its size. The frontend names the dims of
    every value, the cost model sizes them and the CUDA emitter writes sizes
    and run-time checks from this one rule per op. The op classes give it
    (ElementwiseUnary and Composite: the shape of the first operand;
    BroadcastingBinary and BroadcastingTernary: the operands broadcast; a
    reduction: its input reduced); every other op defines it.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the shape of the op's result from the shape of each operand,
        in order, and adds what must hold at run time to `constraints`.
      }],
      "::mlir::sinter::SymbolicShape", "inferSymbolicShape",
      (ins "::llvm::ArrayRef<::mlir::sinter::SymbolicShape>":$operandShapes,
           "::mlir::sinter::ShapeConstraints &":$constraints)>,
  ];
}

/// Facts about the values an elementwise unary op produces.
def Sinter_ValueFactsOpInterface : OpInterface<"ValueFactsOpInterface"> {
  let cppNamespace = "::mlir::sinter";
  let description = [{
    What an elementwise unary op guarantees of its result whatever its input,
    which rewrites rely on: relu of a non-negative value is the value, a
    positive factor moves through relu (`relu(c * x) = c * relu(x)`), and an
    op that maps 0 to 0 maps a tensor of zeros to itself. `Sinter_UnaryOp`
    states the facts from its bits `resultIsPositive`,
    `resultIsNonNegative` and `mapsZeroToZero`; an op whose facts depend on
    its attributes (softplus's beta) defines the methods in its
    `extraClassDeclaration`.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns true if every result element is positive in real arithmetic
        (in f32, exp and sigmoid of very negative values round to +0).
      }], "bool", "isResultPositive", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        Returns true if every result element is +0 or more, or NaN.
      }], "bool", "isResultNonNegative", (ins), [{}],
      [{ return $_op.isResultPositive(); }]>,
    InterfaceMethod<[{
        Returns true if the op maps 0 to 0 (and NaN to NaN), so that it maps
        a tensor of zeros to itself.
      }], "bool", "mapsZeroToZero", (ins), [{}], [{ return false; }]>,
  ];
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

/// An elementwise op whose every element chains three or more special
/// functions (mish: exp, log1p, tanh): its kernel's threads keep more loads
/// in flight while they compute (sinter-plan-kernels).
def Sinter_SpecialFunctionChain : NativeOpTrait<"SpecialFunctionChain"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

/// An op that moves no data inside a kernel: each result element is one
/// operand element at an index the op computes from the result's (reshape,
/// transpose, slice, concat).
def Sinter_IndexMap : NativeOpTrait<"IndexMap"> {
  let cppNamespace = "::mlir::OpTrait::sinter";
}

#endif // SINTER_DIALECT_SINTER_IR_SINTERINTERFACES_TD
