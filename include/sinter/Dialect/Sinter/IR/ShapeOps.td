//===- ShapeOps.td - Sinter shape ops ----------------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Constants, fills and the index maps: transpose, reshape, slice, concat.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SHAPEOPS_TD
#define SINTER_DIALECT_SINTER_IR_SHAPEOPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"

def Sinter_ConstantOp : Sinter_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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

def Sinter_FillOp : Sinter_Op<"fill", [Pure, DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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
    : Sinter_Op<"transpose", [Pure, InferTypeOpAdaptor, Sinter_IndexMap,
                              DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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

def Sinter_ReshapeOp : Sinter_Op<"reshape", [Pure, Sinter_IndexMap,
    DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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
    : Sinter_Op<"slice", [Pure, InferTypeOpAdaptor, Sinter_IndexMap,
                          DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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
    : Sinter_Op<"concat", [Pure, InferTypeOpAdaptor, Sinter_IndexMap,
                           DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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

#endif // SINTER_DIALECT_SINTER_IR_SHAPEOPS_TD
