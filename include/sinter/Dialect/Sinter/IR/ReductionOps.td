//===- ReductionOps.td - Sinter reductions -----------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_REDUCTIONOPS_TD
#define SINTER_DIALECT_SINTER_IR_REDUCTIONOPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"

/// Reduction over a list of distinct dimensions, keeping them as size 1 when
/// `keepdim` is set.
class Sinter_ReductionOp<string mnemonic, string what, string combiner,
                         TypeConstraint resultType = Sinter_FloatTensor,
                         string inferFn = "inferReductionResultType",
                         list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                        Sinter_ReductionOpInterface,
                                        Sinter_SymbolicShapeOpInterface],
                                       traits)> {
  let summary = what # " over the given dimensions";
  let description = [{
    Reduces `input` over `dims` (distinct, in range, in any order) with }]
    # what # [{, as `torch.}] # mnemonic # [{`. Reduced dimensions are kept
    with size 1 when `keepdim` is present and dropped otherwise.

    Example:

    ```mlir
    %r = sinter.}] # mnemonic # [{ %x dims [1] keepdim : tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                   UnitAttr:$keepdim);
  let results = (outs resultType:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// How the reduced elements combine.
    static ::mlir::sinter::ReductionCombiner getCombiner() {
      return ::mlir::sinter::ReductionCombiner::}] # combiner # [{;
    }
    /// The shape rule: the input's shape reduced over `dims`.
    ::mlir::sinter::SymbolicShape inferSymbolicShape(
        ::llvm::ArrayRef<::mlir::sinter::SymbolicShape> operandShapes,
        ::mlir::sinter::ShapeConstraints &) {
      return ::mlir::sinter::reduceSymbolicShape(operandShapes.front(),
                                                 getDims(), getKeepdim());
    }
    /// True when every reduced dimension has static size 1.
    bool reducesOnlyUnitDims() {
      auto shape = getInput().getType().getShape();
      return ::llvm::all_of(getDims(),
                            [&](int64_t dim) { return shape[dim] == 1; });
    }
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location> location, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return }] # inferFn # [{(location, getOperationName(),
          adaptor.getInput().getType(), adaptor.getDims(),
          adaptor.getKeepdim(), inferredReturnTypes);
    }
  }];
}

// Sum, mean and logsumexp have no folder: over one element they are x + 0
// (their accumulator starts at +0), which is -0 + 0 = +0 where x is -0, so
// dropping them is not exact (sinter-simplify does it in fast mode).
def Sinter_SumOp : Sinter_ReductionOp<"sum", "the sum", "sum">;
def Sinter_MeanOp : Sinter_ReductionOp<"mean", "the arithmetic mean", "mean">;
def Sinter_MaxOp : Sinter_ReductionOp<"max", "the maximum", "max"> {
  let hasFolder = 1;
}
def Sinter_MinOp : Sinter_ReductionOp<"min", "the minimum", "min"> {
  let hasFolder = 1;
}
def Sinter_ProdOp : Sinter_ReductionOp<"prod", "the product", "prod"> {
  let hasFolder = 1;
}
def Sinter_LogsumexpOp
    : Sinter_ReductionOp<"logsumexp", "log(sum(exp(x))), max-subtracted",
                         "logsumexp">;
def Sinter_ArgmaxOp : Sinter_ReductionOp<"argmax",
    "the index of the first maximum (one dim)", "argmax", Sinter_IndexTensor,
    "inferArgReductionResultType">;
def Sinter_ArgminOp : Sinter_ReductionOp<"argmin",
    "the index of the first minimum (one dim)", "argmin", Sinter_IndexTensor,
    "inferArgReductionResultType">;

def Sinter_VarOp : Sinter_ReductionOp<"var",
    "the variance, divided by N - 1 when `unbiased` (the default) else N",
    "var"> {
  let arguments = (ins Sinter_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                   UnitAttr:$keepdim, DefaultValuedAttr<BoolAttr, "true">:$unbiased);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? (`unbiased` `=` $unbiased^)?
    attr-dict `:` type($input)
  }];
}

#endif // SINTER_DIALECT_SINTER_IR_REDUCTIONOPS_TD
