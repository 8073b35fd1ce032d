//===- NormalizationOps.td - Sinter softmax and norms ------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Composite ops, which sinter-decompose rewrites into reductions and
// elementwise ops; they exist so that models and lit tests read well.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_NORMALIZATIONOPS_TD
#define SINTER_DIALECT_SINTER_IR_NORMALIZATIONOPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"

class Sinter_SoftmaxLikeOp<string mnemonic, string formula>
    : Sinter_Op<mnemonic, [Pure, InferTypeOpAdaptor, Sinter_Composite,
                           Sinter_SymbolicShapeOpInterface]> {
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
                                       Sinter_Composite,
                                       Sinter_SymbolicShapeOpInterface],
                                      traits)> {
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

#endif // SINTER_DIALECT_SINTER_IR_NORMALIZATIONOPS_TD
