//===- KernelOps.td - Sinter fusion groups -----------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_KERNELOPS_TD
#define SINTER_DIALECT_SINTER_IR_KERNELOPS_TD

include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterAttrs.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"

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

#endif // SINTER_DIALECT_SINTER_IR_KERNELOPS_TD
