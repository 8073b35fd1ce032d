//===- ElementwiseOps.td - Sinter elementwise ops ----------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Binary and ternary ops broadcast as in NumPy; unary ops keep their
// operand's type.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_ELEMENTWISEOPS_TD
#define SINTER_DIALECT_SINTER_IR_ELEMENTWISEOPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

/// Elementwise binary op with NumPy broadcasting of `lhs` against `rhs`.
class Sinter_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                       Sinter_BroadcastingBinary,
                                       Sinter_SymbolicShapeOpInterface],
                                      traits)> {
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
                [Pure, InferTypeOpAdaptor, Sinter_BroadcastingBinary,
                 Sinter_SymbolicShapeOpInterface]> {
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
                [Pure, InferTypeOpAdaptor, Sinter_BroadcastingTernary,
                 Sinter_SymbolicShapeOpInterface]> {
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
/// The bits state the op's ValueFactsOpInterface facts.
class Sinter_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Sinter_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                       InferTypeOpInterface,
                                       Sinter_ElementwiseUnary,
                                       Sinter_SymbolicShapeOpInterface,
                                       Sinter_ValueFactsOpInterface],
                                      traits)> {
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

  // Every result element is positive in real arithmetic.
  bit resultIsPositive = 0;
  // Every result element is +0 or more, or NaN.
  bit resultIsNonNegative = 0;
  // f(0) = 0 and f(NaN) = NaN.
  bit mapsZeroToZero = 0;
  let extraClassDeclaration =
      !if(resultIsPositive, "bool isResultPositive() { return true; }\n", "")
      # !if(resultIsNonNegative,
            "bool isResultNonNegative() { return true; }\n", "")
      # !if(mapsZeroToZero, "bool mapsZeroToZero() { return true; }\n", "");
}

def Sinter_NegOp : Sinter_UnaryOp<"neg", "-x", [Sinter_CorrectlyRounded]> {
  let hasFolder = 1;
}
def Sinter_AbsOp : Sinter_UnaryOp<"abs", "|x|", [Sinter_CorrectlyRounded]> {
  let resultIsNonNegative = 1;
  let mapsZeroToZero = 1;
  let hasFolder = 1;
}
def Sinter_ExpOp : Sinter_UnaryOp<"exp", "e^x"> {
  let resultIsPositive = 1;
}
def Sinter_LogOp : Sinter_UnaryOp<"log", "ln(x)">;
def Sinter_SqrtOp
    : Sinter_UnaryOp<"sqrt", "sqrt(x)", [Sinter_CorrectlyRounded]> {
  let mapsZeroToZero = 1;
}
def Sinter_RsqrtOp : Sinter_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def Sinter_TanhOp : Sinter_UnaryOp<"tanh", "tanh(x)"> {
  let mapsZeroToZero = 1;
}
def Sinter_SigmoidOp : Sinter_UnaryOp<"sigmoid", "1 / (1 + e^-x)"> {
  let resultIsPositive = 1;
}
def Sinter_ReluOp
    : Sinter_UnaryOp<"relu", "max(x, 0)", [Sinter_CorrectlyRounded]> {
  let mapsZeroToZero = 1;
  let hasFolder = 1;
}
def Sinter_SiluOp : Sinter_UnaryOp<"silu", "x * sigmoid(x)"> {
  let mapsZeroToZero = 1;
}
def Sinter_MishOp : Sinter_UnaryOp<"mish", "x * tanh(softplus(x))",
                                    [Sinter_SpecialFunctionChain]> {
  let mapsZeroToZero = 1;
}
def Sinter_SeluOp : Sinter_UnaryOp<"selu",
    "scale * (max(0, x) + min(0, alpha * (e^x - 1))), alpha = "
    "1.6732632423543772, scale = 1.0507009873554805">;
def Sinter_HardsigmoidOp
    : Sinter_UnaryOp<"hardsigmoid", "clamp(x / 6 + 1 / 2, 0, 1)"> {
  let resultIsNonNegative = 1;
}
def Sinter_HardswishOp
    : Sinter_UnaryOp<"hardswish", "x * clamp(x + 3, 0, 6) / 6"> {
  let mapsZeroToZero = 1;
}
def Sinter_SoftsignOp : Sinter_UnaryOp<"softsign", "x / (1 + |x|)"> {
  let mapsZeroToZero = 1;
}
def Sinter_ErfOp : Sinter_UnaryOp<"erf", "2 / sqrt(pi) * integral_0^x e^(-t^2) dt">;
def Sinter_Expm1Op : Sinter_UnaryOp<"expm1", "e^x - 1, accurate near 0">;
def Sinter_Log1pOp : Sinter_UnaryOp<"log1p", "ln(1 + x), accurate near 0">;
def Sinter_Exp2Op : Sinter_UnaryOp<"exp2", "2^x"> {
  let resultIsPositive = 1;
}
def Sinter_Log2Op : Sinter_UnaryOp<"log2", "log2(x)">;
def Sinter_Log10Op : Sinter_UnaryOp<"log10", "log10(x)">;
def Sinter_SinOp : Sinter_UnaryOp<"sin", "sin(x)"> {
  let mapsZeroToZero = 1;
}
def Sinter_CosOp : Sinter_UnaryOp<"cos", "cos(x)">;
def Sinter_FloorOp
    : Sinter_UnaryOp<"floor", "the largest integer not above x",
                     [Sinter_CorrectlyRounded]>;
def Sinter_CeilOp
    : Sinter_UnaryOp<"ceil", "the smallest integer not below x",
                     [Sinter_CorrectlyRounded]>;
def Sinter_RoundOp
    : Sinter_UnaryOp<"round",
                     "the nearest integer, halfway cases to the even one",
                     [Sinter_CorrectlyRounded]>;
def Sinter_TruncOp
    : Sinter_UnaryOp<"trunc", "x rounded toward zero to an integer",
                     [Sinter_CorrectlyRounded]>;
def Sinter_SignOp : Sinter_UnaryOp<"sign",
    "(0 < x) - (x < 0): 1, -1, or 0 for either zero and for NaN (ATen's "
    "definition)">;

def Sinter_LeakyReluOp : Sinter_UnaryOp<"leaky_relu",
    "x >= 0 ? x : alpha * x (alpha defaults to 0.01)"> {
  let mapsZeroToZero = 1;
  let arguments = (ins Sinter_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "0.01">:$alpha);
  let assemblyFormat =
      "$input (`alpha` `=` $alpha^)? attr-dict `:` type($input)";
}

def Sinter_GeluOp : Sinter_UnaryOp<"gelu",
    "x * Phi(x), Phi the normal CDF through erf, or its tanh approximation "
    "when approximate = tanh"> {
  let mapsZeroToZero = 1;
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
  let extraClassDeclaration = [{
    /// ln(1 + e^(beta * x)) / beta > 0 for beta > 0.
    bool isResultPositive() { return !getBeta().isNegative(); }
  }];
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

#endif // SINTER_DIALECT_SINTER_IR_ELEMENTWISEOPS_TD
