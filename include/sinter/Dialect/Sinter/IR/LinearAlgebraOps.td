//===- LinearAlgebraOps.td - Sinter matmul -----------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_LINEARALGEBRAOPS_TD
#define SINTER_DIALECT_SINTER_IR_LINEARALGEBRAOPS_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"

def Sinter_MatmulOp : Sinter_Op<"matmul", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Sinter_SymbolicShapeOpInterface>]> {
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

#endif // SINTER_DIALECT_SINTER_IR_LINEARALGEBRAOPS_TD
