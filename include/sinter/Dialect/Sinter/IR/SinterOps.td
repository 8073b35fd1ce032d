//===- SinterOps.td - Sinter dialect operations ------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every op follows PyTorch's definition of the function it is named after.
// Ops whose result type follows from their operands and attributes implement
// InferTypeOpInterface, so neither the textual form nor a builder ever spells
// that type. Dimensions carried in attributes are non-negative (the frontend
// normalizes negative Python-style indices).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
#define SINTER_DIALECT_SINTER_IR_SINTEROPS_TD

include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

/// A ranked tensor of any floating-point element type (f32 today; f16 and
/// bf16 follow without changes to the op definitions).
def Sinter_FloatTensor : RankedTensorOf<[AnyFloat]>;

/// The result of argmax/argmin: indices as a ranked tensor of i64.
def Sinter_IndexTensor : RankedTensorOf<[I64]>;

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
     // power of two) per row, the row held in registers.
     I32EnumAttrCase<"subwarp_per_row", 7>]> {
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

//===----------------------------------------------------------------------===//
// Constants and shape ops
//===----------------------------------------------------------------------===//

def Sinter_ConstantOp : Sinter_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "a tensor constant (splat or dense)";
  let description = [{
    Produces a tensor whose value is given by an elements attribute. Scalar
    factors of a model are rank-0 constants that broadcast against any tensor.

    Example:

    ```mlir
    %half = sinter.constant dense<5.000000e-01> : tensor<f32>
    %bias = sinter.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Sinter_FillOp : Sinter_Op<"fill", [Pure]> {
  let summary = "a tensor of one value, its symbolic dims taken from others";
  let description = [{
    Produces a tensor of the result type whose every element is `value`
    (converted to the element type). Each dynamic (`?`) dim of the result has
    the run-time size of a dim of a shape source: `dims` has one entry per `?`
    of the result, in order, naming a dim of the source at the same position
    of `shape_sources`, which holds either one value that lends every dim or
    one value per `?` (a constant of shape [B, T], B a dim of one input and T
    of another). The sources lend only their dims; their values are never
    read. A value known to be constant whose shape has a symbolic dim
    (`x - x`, `x * 0`) becomes a fill of model inputs, and so stops depending
    on what computed `x`; a fill of a fully static shape folds to
    `sinter.constant`.

    Example:

    ```mlir
    // zeros of shape [B, 1], B the run-time size of dim 0 of %x
    %z = sinter.fill 0.000000e+00 dims [0] of %x
           : tensor<?x4096xf32> -> tensor<?x1xf32>
    // ones of shape [B, T]: B from dim 0 of %x, T from dim 1 of %y
    %o = sinter.fill 1.000000e+00 dims [0, 1] of %x, %y
           : tensor<?x4096xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$shape_sources,
                   F64Attr:$value, DenseI64ArrayAttr:$dims);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $value `dims` $dims `of` $shape_sources attr-dict `:` type($shape_sources)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The value of every element, in the result's element type.
    ::llvm::APFloat getElementValue();
    /// The source whose dim `getDims()[index]` lends the `index`-th dynamic
    /// dim of the result.
    ::mlir::Value getSourceOfDynamicDim(unsigned index);
  }];
}

def Sinter_TransposeOp
    : Sinter_Op<"transpose", [Pure, InferTypeOpAdaptor, Sinter_IndexMap]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `perm[i]` (PyTorch's `permute`;
    `x.T` of a matrix is `perm [1, 0]`).

    Example:

    ```mlir
    %t = sinter.transpose %w perm [1, 0] : tensor<4096x1024xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$input `perm` $perm attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Sinter_ReshapeOp : Sinter_Op<"reshape", [Pure, Sinter_IndexMap]> {
  let summary = "reinterprets a tensor with another shape of as many elements";
  let description = [{
    Row-major reshape (PyTorch's `reshape` of a contiguous tensor). The result
    type is written out because it cannot be derived; at most one result
    dimension may be `?`, and it is computed from the element count at run
    time, like `-1` in PyTorch.

    Example:

    ```mlir
    %r = sinter.reshape %x : tensor<?x4096xf32> -> tensor<?x64x64xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Sinter_SliceOp
    : Sinter_Op<"slice", [Pure, InferTypeOpAdaptor, Sinter_IndexMap]> {
  let summary = "a contiguous range of one dimension";
  let description = [{
    The elements of `input` whose index along `dim` lies in [`start`, `end`),
    every other dimension kept whole: Python's `x[..., start:end]` on that
    dim, and the parts that `torch.chunk` and `torch.split` return. The
    sliced dim is static and `0 <= start < end <= size` (the frontend
    normalizes negative bounds); the result has size `end - start` there.
    Inside a kernel a slice is an index map (result index + `start`): it
    moves no data of its own.

    Example:

    ```mlir
    // x[:, 32:64] of a [B, 128] tensor
    %h = sinter.slice %x dim 1 start 32 end 64 : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input, I64Attr:$dim, I64Attr:$start,
                   I64Attr:$end);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim `start` $start `end` $end attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def Sinter_ConcatOp
    : Sinter_Op<"concat", [Pure, InferTypeOpAdaptor, Sinter_IndexMap]> {
  let summary = "joins tensors along one dimension";
  let description = [{
    `torch.cat(inputs, dim)`: the inputs, in order, placed one after the
    other along `dim`. They have the same rank and element type and equal
    dims everywhere but `dim`, which is static in every input (the result's
    size there is their sum). Inside a kernel a concat is an index map: the
    element at index `i` along `dim` comes from the input whose range holds
    `i`, at `i` minus that input's offset.

    Example:

    ```mlir
    %c = sinter.concat %a, %b dim 1 : tensor<?x32xf32>, tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Sinter_FloatTensor>:$inputs, I64Attr:$dim);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` type($inputs)";
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The index along `dim` at which input `index` begins in the result.
    int64_t getOffset(unsigned index);
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Sinter_MatmulOp : Sinter_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product, optionally of transposed or batched operands";
  let description = [{
    `op(lhs) @ op(rhs)` where `op` transposes the last two dimensions when
    `transpose_a` / `transpose_b` is set. Operands have rank 2 or 3; a rank-3
    operand carries a batch dimension, broadcast against the other operand as
    in `torch.matmul`. `linear(x, w, b)` is `matmul(x, w) transpose_b` plus
    `b`.

    Example:

    ```mlir
    // x @ w.T : [B, 8192] x [4096, 8192]^T -> [B, 4096]
    %y = sinter.matmul %x, %w transpose_b
           : tensor<?x8192xf32>, tensor<4096x8192xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$lhs, Sinter_FloatTensor:$rhs,
                   UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    attr-dict `:` type($lhs) `,` type($rhs)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

/// Elementwise binary op with NumPy broadcasting of `lhs` against `rhs`.
class Sinter_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                       Sinter_BroadcastingBinary], traits)> {
  let summary = "elementwise `" # formula # "` with broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise. The operands broadcast against
    each other as in NumPy: shapes align at the trailing dimension, and a
    dimension of size 1 (or a missing leading one) stretches to the other's.
    A rank-0 operand is a scalar.

    Example:

    ```mlir
    %r = sinter.}] # mnemonic # [{ %x, %b : tensor<?x4096xf32>, tensor<4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$lhs, Sinter_FloatTensor:$rhs);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location> location, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return inferBroadcastResultType(location, getOperationName(),
                                      adaptor.getLhs().getType(),
                                      adaptor.getRhs().getType(),
                                      inferredReturnTypes);
    }
  }];
}

def Sinter_AddOp
    : Sinter_BinaryOp<"add", "lhs + rhs", [Commutative, Sinter_CorrectlyRounded]>;
def Sinter_SubOp
    : Sinter_BinaryOp<"sub", "lhs - rhs", [Sinter_CorrectlyRounded]>;
def Sinter_MulOp
    : Sinter_BinaryOp<"mul", "lhs * rhs", [Commutative, Sinter_CorrectlyRounded]>;
def Sinter_DivOp
    : Sinter_BinaryOp<"div", "lhs / rhs", [Sinter_CorrectlyRounded]>;
def Sinter_MaximumOp
    : Sinter_BinaryOp<"maximum", "max(lhs, rhs)",
                      [Commutative, Sinter_CorrectlyRounded]>;
def Sinter_MinimumOp
    : Sinter_BinaryOp<"minimum", "min(lhs, rhs)",
                      [Commutative, Sinter_CorrectlyRounded]>;
def Sinter_PowOp : Sinter_BinaryOp<"pow", "lhs ^ rhs">;

def Sinter_CompareOp
    : Sinter_Op<"compare",
                [Pure, InferTypeOpAdaptor, Sinter_BroadcastingBinary]> {
  let summary = "elementwise comparison with broadcasting, as a 0/1 mask";
  let description = [{
    Compares `lhs` with `rhs` elementwise by `predicate` (`lt`, `le`, `gt`,
    `ge`, `eq`, `ne`; PyTorch's `torch.lt` ... `torch.ne` and the operators
    `<` ... `!=`), broadcasting as the binary ops do. The dialect has no
    boolean tensors: the result is a mask of the operands' element type, 1.0
    where the comparison holds and 0.0 elsewhere, so that it also multiplies
    (`(x > 0) * x`) as PyTorch's bool-to-float promotion does. A comparison
    with NaN is false except `ne`, which is true (IEEE, as PyTorch).

    Example:

    ```mlir
    %m = sinter.compare gt, %x, %zero : tensor<?x64xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Sinter_ComparePredicate:$predicate,
                   Sinter_FloatTensor:$lhs, Sinter_FloatTensor:$rhs);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

def Sinter_SelectOp
    : Sinter_Op<"select",
                [Pure, InferTypeOpAdaptor, Sinter_BroadcastingTernary]> {
  let summary = "elementwise choice by a mask, with broadcasting";
  let description = [{
    `torch.where(condition, input, other)`: `true_value` where `condition`
    is nonzero, `false_value` elsewhere. `condition` is a mask (the result of
    `sinter.compare`, or any tensor of the same element type: nonzero and NaN
    count as true, as `bool(x)` in PyTorch). The three operands broadcast
    against each other as the binary ops do.

    Example:

    ```mlir
    %y = sinter.select %m, %x, %s
           : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$condition,
                   Sinter_FloatTensor:$true_value,
                   Sinter_FloatTensor:$false_value);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

/// Elementwise unary op; the result has the type of the input.
class Sinter_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                       InferTypeOpInterface,
                                       Sinter_ElementwiseUnary], traits)> {
  let summary = "elementwise " # mnemonic;
  let description = [{
    Computes `}] # formula # [{` for every element, as PyTorch's function of
    the same name.

    Example:

    ```mlir
    %r = sinter.}] # mnemonic # [{ %x : tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Sinter_NegOp : Sinter_UnaryOp<"neg", "-x", [Sinter_CorrectlyRounded]> {
  let hasFolder = 1;
}
def Sinter_AbsOp : Sinter_UnaryOp<"abs", "|x|", [Sinter_CorrectlyRounded]> {
  let hasFolder = 1;
}
def Sinter_ExpOp : Sinter_UnaryOp<"exp", "e^x">;
def Sinter_LogOp : Sinter_UnaryOp<"log", "ln(x)">;
def Sinter_SqrtOp
    : Sinter_UnaryOp<"sqrt", "sqrt(x)", [Sinter_CorrectlyRounded]>;
def Sinter_RsqrtOp : Sinter_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def Sinter_TanhOp : Sinter_UnaryOp<"tanh", "tanh(x)">;
def Sinter_SigmoidOp : Sinter_UnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def Sinter_ReluOp
    : Sinter_UnaryOp<"relu", "max(x, 0)", [Sinter_CorrectlyRounded]> {
  let hasFolder = 1;
}
def Sinter_SiluOp : Sinter_UnaryOp<"silu", "x * sigmoid(x)">;
def Sinter_MishOp : Sinter_UnaryOp<"mish", "x * tanh(softplus(x))">;
def Sinter_SeluOp : Sinter_UnaryOp<"selu",
    "scale * (max(0, x) + min(0, alpha * (e^x - 1))), alpha = "
    "1.6732632423543772, scale = 1.0507009873554805">;
def Sinter_HardsigmoidOp
    : Sinter_UnaryOp<"hardsigmoid", "clamp(x / 6 + 1 / 2, 0, 1)">;
def Sinter_HardswishOp
    : Sinter_UnaryOp<"hardswish", "x * clamp(x + 3, 0, 6) / 6">;
def Sinter_SoftsignOp : Sinter_UnaryOp<"softsign", "x / (1 + |x|)">;
def Sinter_ErfOp : Sinter_UnaryOp<"erf", "2 / sqrt(pi) * integral_0^x e^(-t^2) dt">;
def Sinter_Expm1Op : Sinter_UnaryOp<"expm1", "e^x - 1, accurate near 0">;
def Sinter_Log1pOp : Sinter_UnaryOp<"log1p", "ln(1 + x), accurate near 0">;
def Sinter_SignOp : Sinter_UnaryOp<"sign",
    "(0 < x) - (x < 0): 1, -1, or 0 for either zero and for NaN (ATen's "
    "definition)">;

def Sinter_LeakyReluOp : Sinter_UnaryOp<"leaky_relu",
    "x >= 0 ? x : alpha * x (alpha defaults to 0.01)"> {
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "0.01">:$alpha);
  let assemblyFormat =
      "$input (`alpha` `=` $alpha^)? attr-dict `:` type($input)";
}

def Sinter_GeluOp : Sinter_UnaryOp<"gelu",
    "x * Phi(x), Phi the normal CDF through erf, or its tanh approximation "
    "when approximate = tanh"> {
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<Sinter_GeluApproximation,
                       "::mlir::sinter::GeluApproximation::none">:$approximate);
  let assemblyFormat =
      "$input (`approximate` `=` $approximate^)? attr-dict `:` type($input)";
}

def Sinter_SoftplusOp : Sinter_UnaryOp<"softplus",
    "beta * x > threshold ? x : ln(1 + e^(beta * x)) / beta (beta defaults "
    "to 1, threshold to 20)"> {
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "1.0">:$beta,
                   DefaultValuedAttr<F64Attr, "20.0">:$threshold);
  let assemblyFormat = [{
    $input (`beta` `=` $beta^)? (`threshold` `=` $threshold^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Sinter_EluOp : Sinter_UnaryOp<"elu",
    "x > 0 ? x : alpha * (e^x - 1) (alpha defaults to 1)"> {
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let assemblyFormat =
      "$input (`alpha` `=` $alpha^)? attr-dict `:` type($input)";
}

def Sinter_HardtanhOp : Sinter_UnaryOp<"hardtanh",
    "clamp(x, min, max) (min defaults to -1, max to 1)",
    [Sinter_CorrectlyRounded]> {
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "-1.0">:$min,
                   DefaultValuedAttr<F64Attr, "1.0">:$max);
  let assemblyFormat = [{
    $input (`min` `=` $min^)? (`max` `=` $max^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Sinter_ClampOp : Sinter_UnaryOp<"clamp",
    "min(max(x, min), max), either bound optional",
    [Sinter_CorrectlyRounded]> {
  let arguments = (ins Sinter_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
                   OptionalAttr<F64Attr>:$max);
  let assemblyFormat = [{
    $input (`min` `=` $min^)? (`max` `=` $max^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reduction over a list of distinct dimensions, keeping them as size 1 when
/// `keepdim` is set.
class Sinter_ReductionOp<string mnemonic, string what, string combiner,
                         TypeConstraint resultType = Sinter_FloatTensor,
                         string inferFn = "inferReductionResultType",
                         list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                        Sinter_ReductionOpInterface],
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

//===----------------------------------------------------------------------===//
// Softmax and normalizations
//===----------------------------------------------------------------------===//

class Sinter_SoftmaxLikeOp<string mnemonic, string formula>
    : Sinter_Op<mnemonic, [Pure, InferTypeOpAdaptor, Sinter_Composite]> {
  let summary = mnemonic # " along one dimension";
  let description = [{
    Computes `}] # formula # [{` along `dim`, evaluated with the row maximum
    subtracted first so that it never overflows.

    Example:

    ```mlir
    %p = sinter.}] # mnemonic # [{ %logits dim 1 : tensor<?x32000xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Sinter_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location> location, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return inferSoftmaxResultType(location, getOperationName(),
                                    adaptor.getInput().getType(),
                                    adaptor.getDim(), inferredReturnTypes);
    }
  }];
}

def Sinter_SoftmaxOp
    : Sinter_SoftmaxLikeOp<"softmax", "e^x_i / sum_j e^x_j">;
def Sinter_LogSoftmaxOp
    : Sinter_SoftmaxLikeOp<"log_softmax", "x_i - log(sum_j e^x_j)">;

/// Normalization with an optional per-feature affine weight and bias.
class Sinter_NormOp<string mnemonic, list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                       Sinter_Composite], traits)> {
  let results = (outs Sinter_FloatTensor:$result);
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location>, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      inferredReturnTypes.push_back(adaptor.getInput().getType());
      return ::mlir::success();
    }
  }];
}

def Sinter_LayerNormOp : Sinter_NormOp<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias`, mean and biased variance
    taken over the trailing dimensions named by `normalized_shape`, as
    `torch.nn.functional.layer_norm`. `weight` and `bias` are optional and
    have shape `normalized_shape`; `eps` defaults to 1e-5.

    Example:

    ```mlir
    %y = sinter.layer_norm %x weight(%g : tensor<4096xf32>)
           bias(%b : tensor<4096xf32>) shape [4096] : tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                   Optional<Sinter_FloatTensor>:$weight,
                   Optional<Sinter_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$normalized_shape,
                   DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `shape` $normalized_shape (`eps` `=` $eps^)? attr-dict `:` type($input)
  }];
}

def Sinter_RmsNormOp : Sinter_NormOp<"rms_norm"> {
  let summary = "root-mean-square normalization over the trailing dimensions";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * weight` over the trailing dimensions named by
    `normalized_shape`, as `torch.nn.functional.rms_norm`. Without `eps` the
    machine epsilon of the element type is used, as in PyTorch.

    Example:

    ```mlir
    %y = sinter.rms_norm %x weight(%g : tensor<4096xf32>) shape [4096]
           eps = 1.000000e-06 : tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                   Optional<Sinter_FloatTensor>:$weight,
                   DenseI64ArrayAttr:$normalized_shape,
                   OptionalAttr<F64Attr>:$eps);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    `shape` $normalized_shape (`eps` `=` $eps^)? attr-dict `:` type($input)
  }];
}

def Sinter_GroupNormOp : Sinter_NormOp<"group_norm", [AttrSizedOperandSegments]> {
  let summary = "group normalization over channel groups";
  let description = [{
    Splits the channel dimension (dimension 1) into `num_groups` groups and
    normalizes each group of each sample over its channels and all trailing
    dimensions with the biased variance, then applies the optional
    per-channel `weight` and `bias`, as `torch.nn.functional.group_norm`.

    Example:

    ```mlir
    %y = sinter.group_norm %x groups 64 weight(%g : tensor<4096xf32>)
           bias(%b : tensor<4096xf32>) : tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                   Optional<Sinter_FloatTensor>:$weight,
                   Optional<Sinter_FloatTensor>:$bias,
                   ConfinedAttr<I64Attr, [IntPositive]>:$num_groups,
                   DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let assemblyFormat = [{
    $input `groups` $num_groups (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? (`eps` `=` $eps^)?
    attr-dict `:` type($input)
  }];
}

def Sinter_InstanceNormOp : Sinter_NormOp<"instance_norm", [AttrSizedOperandSegments]> {
  let summary = "instance normalization over the spatial dimensions";
  let description = [{
    Normalizes every (sample, channel) slice over the dimensions after the
    channel dimension with its own mean and biased variance, then applies the
    optional per-channel `weight` and `bias`, as
    `torch.nn.functional.instance_norm` without running statistics. The input
    has rank 3 or more.

    Example:

    ```mlir
    %y = sinter.instance_norm %x : tensor<?x64x1024xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                   Optional<Sinter_FloatTensor>:$weight,
                   Optional<Sinter_FloatTensor>:$bias,
                   DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? (`eps` `=` $eps^)?
    attr-dict `:` type($input)
  }];
}

def Sinter_BatchNormOp : Sinter_NormOp<"batch_norm", [AttrSizedOperandSegments]> {
  let summary = "batch normalization, in training or inference mode";
  let description = [{
    Normalizes every channel (dimension 1) over the batch and all trailing
    dimensions, then applies the optional per-channel `weight` and `bias`, as
    `torch.nn.functional.batch_norm`. With `training` the statistics are the
    batch's own mean and biased variance; without it they are the required
    `running_mean` and `running_var` operands. (Running-statistic updates are
    a side effect outside this value-semantic op.)

    Example:

    ```mlir
    %y = sinter.batch_norm %x training : tensor<?x8192xf32>
    %z = sinter.batch_norm %x mean(%m : tensor<8192xf32>)
           var(%v : tensor<8192xf32>) : tensor<?x8192xf32>
    ```
  }];
  let arguments = (ins Sinter_FloatTensor:$input,
                   Optional<Sinter_FloatTensor>:$running_mean,
                   Optional<Sinter_FloatTensor>:$running_var,
                   Optional<Sinter_FloatTensor>:$weight,
                   Optional<Sinter_FloatTensor>:$bias, UnitAttr:$training,
                   DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let assemblyFormat = [{
    $input (`mean` `(` $running_mean^ `:` type($running_mean) `)`)?
    (`var` `(` $running_var^ `:` type($running_var) `)`)?
    (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? (`training` $training^)?
    (`eps` `=` $eps^)? attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

def Sinter_KernelPlanAttr : AttrDef<Sinter_Dialect, "KernelPlan"> {
  let mnemonic = "plan";
  let summary = "how the CUDA emitter generates one sinter.kernel";
  let description = [{
    The decisions of `sinter-plan-kernels` for one kernel, which the CUDA
    emitter reads instead of deciding again (as Triton's Coalesce pass
    writes its layout into the IR): the geometry of its reductions, the
    strategy, the block shape (`block` threads, 0 when the launch picks it
    from a symbolic row length; `rows_per_block` rows of a row kernel;
    `columns_per_block` kept positions of a split reduction, 1 when the
    block's threads split one position's elements), the vector width of its
    loads, the operands it caches in shared memory (operand indices), how
    many times it reads each input element from HBM (`passes`), its launches,
    for a GEMM kernel the epilogue form, and `single_pass` (row strategies
    only, printed when set): whether pairs of statistics that one pass can
    compute (softmax's max and sum of exp(x - max) as an online softmax, a
    mean and the mean of squared deviations from it as Welford's) are
    computed in one pass over the row; and `registers` (row strategies of a
    static team only, printed when set): each thread holds its part of the
    row in registers, float4 groups at a static count per thread, so that
    the cached operands live there rather than in shared memory. For
    `subwarp_per_row`, `block` is the lanes that share a row (1 to 16).

    Example:

    ```mlir
    #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32,
                 rows_per_block = 8, columns_per_block = 0, vector_width = 1,
                 cached = array<i64: 0>, passes = 1, launches = 1,
                 epilogue = none>
    ```
  }];
  let parameters = (ins
    EnumParameter<Sinter_KernelStrategy>:$strategy,
    EnumParameter<Sinter_ReductionGeometry>:$geometry,
    "int64_t":$block,
    "int64_t":$rows_per_block,
    "int64_t":$columns_per_block,
    "int64_t":$vector_width,
    "::mlir::DenseI64ArrayAttr":$cached,
    "int64_t":$passes,
    "int64_t":$launches,
    EnumParameter<Sinter_EpilogueForm>:$epilogue,
    DefaultValuedParameter<"bool", "false">:$single_pass,
    DefaultValuedParameter<"bool", "false">:$registers);
  let assemblyFormat = "`<` struct(params) `>`";
  let builders = [
    // A plan without single-pass statistics.
    AttrBuilder<(ins "KernelStrategy":$strategy,
                     "ReductionGeometry":$geometry, "int64_t":$block,
                     "int64_t":$rows_per_block, "int64_t":$columns_per_block,
                     "int64_t":$vector_width,
                     "::mlir::DenseI64ArrayAttr":$cached, "int64_t":$passes,
                     "int64_t":$launches, "EpilogueForm":$epilogue), [{
      return $_get($_ctxt, strategy, geometry, block, rows_per_block,
                   columns_per_block, vector_width, cached, passes, launches,
                   epilogue, /*single_pass=*/false, /*registers=*/false);
    }]>];
  let genVerifyDecl = 1;
}

def Sinter_KernelOp : Sinter_Op<"kernel", [IsolatedFromAbove,
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "the ops of one fusion group: one GPU launch";
  let description = [{
    A region holding the ops that one generated kernel computes (or one
    library GEMM plus its fused epilogue launch). Everything the region reads
    comes in through explicit operands, which the entry block receives as
    arguments in order; everything it produces leaves through `sinter.yield`,
    whose operands become the results. `kind` tells the CUDA emitter how to
    generate it, and `plan` (a `#sinter.plan`, attached by
    `sinter-plan-kernels`) how exactly.

    Example:

    ```mlir
    %y = sinter.kernel pointwise (%x, %b) : (tensor<?x64xf32>, tensor<64xf32>)
           -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>, %c: tensor<64xf32>):
      %s = sinter.add %a, %c : tensor<?x64xf32>, tensor<64xf32>
      %r = sinter.relu %s : tensor<?x64xf32>
      sinter.yield %r : tensor<?x64xf32>
    }
    ```
  }];
  let arguments = (ins Sinter_KernelKind:$kind,
                   OptionalAttr<Sinter_KernelPlanAttr>:$plan,
                   Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasRegionVerifier = 1;
}

def Sinter_YieldOp : Sinter_Op<"yield", [Pure, HasParent<"KernelOp">,
    ReturnLike, Terminator]> {
  let summary = "returns the results of a sinter.kernel region";
  let description = [{
    Terminates the body of a `sinter.kernel`; its operands become the
    kernel's results, in order.

    Example:

    ```mlir
    sinter.yield %r, %s : tensor<?x64xf32>, tensor<?x1xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
