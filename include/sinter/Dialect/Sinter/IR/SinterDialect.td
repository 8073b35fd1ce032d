//===- SinterDialect.td - Sinter dialect definition --------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD
#define SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD

include "mlir/IR/OpBase.td"

def Sinter_Dialect : Dialect {
  let name = "sinter";
  let summary = "Tensor-level ops of ML models, ready for algebra and fusion.";
  let description = [{
    The `sinter` dialect models the forward pass of a small neural-network
    block with value semantics on builtin ranked tensors: linear algebra,
    NumPy-broadcasting elementwise math, reductions, normalizations and shape
    ops. Symbolic dimensions such as the batch are `?`. Every op follows
    PyTorch's definition of the same-named function exactly, and every op
    whose result type can be derived from its operands infers it, so a model
    reads like the math:

    ```mlir
    func.func @forward(%x: tensor<?x8192xf32>, %w: tensor<8192x8192xf32>)
        -> tensor<?x1xf32> {
      %h = sinter.matmul %x, %w transpose_b
             : tensor<?x8192xf32>, tensor<8192x8192xf32>
      %s = sinter.sum %h dims [1] keepdim : tensor<?x8192xf32>
      return %s : tensor<?x1xf32>
    }
    ```

    `sinter.kernel` groups the ops of one fusion group (one GPU launch).
  }];
  let cppNamespace = "::mlir::sinter";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

/// A ranked tensor of any floating-point element type (f32 today; f16 and
/// bf16 follow without changes to the op definitions).
def Sinter_FloatTensor : RankedTensorOf<[AnyFloat]>;

/// The result of argmax/argmin: indices as a ranked tensor of i64.
def Sinter_IndexTensor : RankedTensorOf<[I64]>;

/// Base class of every op of the dialect.
class Sinter_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sinter_Dialect, mnemonic, traits>;

#endif // SINTER_DIALECT_SINTER_IR_SINTERDIALECT_TD
