//===- SinterEnums.td - Sinter dialect enums ---------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The enums of op attributes and of the kernel plan.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERENUMS_TD
#define SINTER_DIALECT_SINTER_IR_SINTERENUMS_TD

include "mlir/IR/EnumAttr.td"

def Sinter_KernelKindGemm : I32EnumAttrCase<"gemm", 0>;
def Sinter_KernelKindMatvec : I32EnumAttrCase<"matvec", 1>;
def Sinter_KernelKindPointwise : I32EnumAttrCase<"pointwise", 2>;
def Sinter_KernelKindRowReduction : I32EnumAttrCase<"row_reduction", 3>;
def Sinter_KernelKindColumnReduction : I32EnumAttrCase<"column_reduction", 4>;

def Sinter_KernelKind : I32EnumAttr<"KernelKind",
    "how the CUDA emitter generates one fusion group",
    [Sinter_KernelKindGemm, Sinter_KernelKindMatvec,
     Sinter_KernelKindPointwise, Sinter_KernelKindRowReduction,
     Sinter_KernelKindColumnReduction]> {
  let cppNamespace = "::mlir::sinter";
}

/// Where the reduced dims of a reduction lie in its input, size-1 dims
/// ignored. The planner chooses a kernel by it: trailing dims are rows
/// (threads cooperate along contiguous memory); every other geometry is
/// reduced by a column kernel whose threads split the reduced elements.
/// `none` is the geometry of a kernel without reduction.
def Sinter_ReductionGeometry : I32EnumAttr<"ReductionGeometry",
    "where the reduced dims of a reduction lie in its input",
    [I32EnumAttrCase<"trailing", 0>, I32EnumAttrCase<"leading", 1>,
     I32EnumAttrCase<"middle", 2>, I32EnumAttrCase<"strided", 3>,
     I32EnumAttrCase<"all", 4>, I32EnumAttrCase<"none", 5>]> {
  let cppNamespace = "::mlir::sinter";
}

/// How a kernel's threads cover its work (the plan's strategy).
def Sinter_KernelStrategy : I32EnumAttr<"KernelStrategy",
    "how the threads of a kernel cover its work",
    [// A grid-stride loop over the elements of the outputs.
     I32EnumAttrCase<"elementwise", 0>,
     // One warp per row, several rows per block (rows up to 1024).
     I32EnumAttrCase<"warp_per_row", 1>,
     // One block per row.
     I32EnumAttrCase<"block_per_row", 2>,
     // Warp or block per row, chosen at launch from a symbolic row length.
     I32EnumAttrCase<"row_by_length", 3>,
     // Per-slice partials over many blocks, then an ordered fold (no
     // atomics), then an elementwise apply step if some output needs one.
     I32EnumAttrCase<"split_reduction", 4>,
     // A library GEMM (with its epilogue, see the plan's `epilogue`).
     I32EnumAttrCase<"library_gemm", 5>,
     // A split reduction whose means and the variances around them (a mean
     // or sum of (x - mean)^2 over the same dims) are one pass of Welford
     // states (mean, M2, count) combined with Chan's formula.
     I32EnumAttrCase<"split_welford", 6>,
     // Several short rows per warp: a group of `block` lanes (1 to 16, a
     // power of two) per row, the row held in registers (or, for rows that
     // are not float4 groups, of 3, 7 or 77, read by the lanes).
     I32EnumAttrCase<"subwarp_per_row", 7>,
     // A split reduction whose maxima and the sums of exp(x - max) around
     // them (softmax's statistics, over the same dims) are one pass of
     // online softmax states (max, sum), the sum rescaled as the max grows.
     I32EnumAttrCase<"split_online_softmax", 8>]> {
  let cppNamespace = "::mlir::sinter";
}

/// What computes a GEMM kernel's epilogue.
def Sinter_EpilogueForm : I32EnumAttr<"EpilogueForm",
    "what computes the epilogue of a GEMM kernel",
    [// Nothing: no GEMM, or the GEMM writes the output.
     I32EnumAttrCase<"none", 0>,
     // cuBLASLt's BIAS, RELU_BIAS or GELU_BIAS epilogue.
     I32EnumAttrCase<"library", 1>,
     // One generated kernel reading the GEMM's product once.
     I32EnumAttrCase<"generated", 2>]> {
  let cppNamespace = "::mlir::sinter";
}

/// How a reduction combines the elements it reduces. The combiner table
/// (Combiners.h) says what each one needs: its device functor, whether the
/// result is an index, whether the emitter divides by the count.
def Sinter_ReductionCombiner : I32EnumAttr<"ReductionCombiner",
    "how a reduction combines the elements it reduces",
    [I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
     I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
     I32EnumAttrCase<"prod", 4>, I32EnumAttrCase<"logsumexp", 5>,
     I32EnumAttrCase<"argmax", 6>, I32EnumAttrCase<"argmin", 7>,
     I32EnumAttrCase<"var", 8>]> {
  let cppNamespace = "::mlir::sinter";
}

/// The predicate of sinter.compare, as PyTorch's comparison functions.
def Sinter_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "which comparison sinter.compare computes",
    [I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
     I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
     I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::sinter";
}

def Sinter_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the normal CDF",
    [I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::sinter";
}

#endif // SINTER_DIALECT_SINTER_IR_SINTERENUMS_TD
