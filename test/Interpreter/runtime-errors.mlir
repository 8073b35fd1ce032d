// Errors that only the run-time shapes reveal are reported at the op, with
// exit status 1. Each model below is run on .npy inputs that trigger one.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/save_npy.py %t/2x3.npy=2x3 %t/4x3.npy=4x3 %t/2x4.npy=2x4 %t/5x3.npy=5x3 %t/2x6.npy=2x6 %t/5x4.npy=5x4 %t/2x5.npy=2x5 %t/1x3.npy=1x3 %t/2x0.npy=2x0
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=broadcast --inputs %t/2x3.npy %t/4x3.npy | FileCheck %s --check-prefix=BROADCAST
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=contraction --inputs %t/2x4.npy %t/5x3.npy | FileCheck %s --check-prefix=CONTRACTION
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=groups --inputs %t/2x6.npy | FileCheck %s --check-prefix=GROUPS
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=reshape --inputs %t/5x4.npy | FileCheck %s --check-prefix=RESHAPE
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=normalized --inputs %t/2x5.npy | FileCheck %s --check-prefix=NORMALIZED
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=batch --inputs %t/1x3.npy | FileCheck %s --check-prefix=BATCH
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=empty --inputs %t/2x0.npy | FileCheck %s --check-prefix=EMPTY
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=unsupported | FileCheck %s --check-prefix=BAD-TYPE
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=no_prepare --inputs %t/2x3.npy | FileCheck %s --check-prefix=NO-PREPARE
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=prepare_name --inputs %t/2x3.npy | FileCheck %s --check-prefix=PREPARE-NAME
// RUN: %python %S/../Frontend/Inputs/expect-exit.py 1 sinterc run %s --model=prepare_index --inputs %t/2x3.npy | FileCheck %s --check-prefix=PREPARE-INDEX

module {
  module @broadcast {
    func.func @forward(%a: tensor<?x3xf32> {sinter.role = "input", sinter.name = "a"},
                       %b: tensor<?x3xf32> {sinter.role = "input", sinter.name = "b"}) -> tensor<?x3xf32> {
      // BROADCAST: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.add' op operands are not broadcast-compatible at run time: [2, 3] vs [4, 3]
      %0 = sinter.add %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
  }

  module @contraction {
    func.func @forward(%a: tensor<2x?xf32> {sinter.role = "input", sinter.name = "a"},
                       %b: tensor<?x3xf32> {sinter.role = "input", sinter.name = "b"}) -> tensor<2x3xf32> {
      // CONTRACTION: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.matmul' op contraction dims differ at run time: 4 vs 5 (operands [2, 4] and [5, 3])
      %0 = sinter.matmul %a, %b : tensor<2x?xf32>, tensor<?x3xf32>
      return %0 : tensor<2x3xf32>
    }
  }

  module @groups {
    func.func @forward(%x: tensor<2x?xf32> {sinter.role = "input", sinter.name = "x"}) -> tensor<2x?xf32> {
      // GROUPS: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.group_norm' op channels (6) are not divisible by num_groups (4) at run time
      %0 = sinter.group_norm %x groups 4 : tensor<2x?xf32>
      return %0 : tensor<2x?xf32>
    }
  }

  module @reshape {
    func.func @forward(%x: tensor<?x4xf32> {sinter.role = "input", sinter.name = "x"}) -> tensor<?x3xf32> {
      // RESHAPE: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.reshape' op cannot reshape [5, 4] (20 elements) to 'tensor<?x3xf32>': the count is not a multiple of 3
      %0 = sinter.reshape %x : tensor<?x4xf32> -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
  }

  module @normalized {
    func.func @forward(%x: tensor<2x?xf32> {sinter.role = "input", sinter.name = "x"}) -> tensor<2x?xf32> {
      // NORMALIZED: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.layer_norm' op normalized_shape [4] does not match the trailing dims of the input [2, 5] at run time
      %0 = sinter.layer_norm %x shape [4] : tensor<2x?xf32>
      return %0 : tensor<2x?xf32>
    }
  }

  module @batch {
    func.func @forward(%x: tensor<?x3xf32> {sinter.role = "input", sinter.name = "x"}) -> tensor<?x3xf32> {
      // BATCH: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.batch_norm' op in training mode needs more than one value per channel, got an input of shape [1, 3]
      %0 = sinter.batch_norm %x training : tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
  }

  module @empty {
    func.func @forward(%x: tensor<2x?xf32> {sinter.role = "input", sinter.name = "x"}) -> tensor<2xf32> {
      // EMPTY: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.max' op reduces an empty dimension, which has no maximum
      %0 = sinter.max %x dims [1] : tensor<2x?xf32>
      return %0 : tensor<2xf32>
    }
  }

  module @unsupported {
    func.func @forward() -> tensor<2xf128> {
      // BAD-TYPE: runtime-errors.mlir:[[@LINE+1]]:12: error: 'sinter.constant' op has a result of type 'tensor<2xf128>', which the interpreter does not support
      %0 = sinter.constant dense<1.0> : tensor<2xf128>
      return %0 : tensor<2xf128>
    }
  }

  module @no_prepare {
    // NO-PREPARE: runtime-errors.mlir:[[@LINE+1]]:5: error: prepared argument #1 needs a sinter.prepared index of a @prepare result
    func.func @forward(%x: tensor<2x3xf32> {sinter.role = "input", sinter.name = "x"},
                       %p: tensor<3xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64})
        -> tensor<2x3xf32>
        attributes {sinter.original_arguments = [{sinter.role = "input", sinter.name = "x", sinter.type = tensor<2x3xf32>}]} {
      %0 = sinter.add %x, %p : tensor<2x3xf32>, tensor<3xf32>
      return %0 : tensor<2x3xf32>
    }
  }

  module @prepare_name {
    // PREPARE-NAME: runtime-errors.mlir:[[@LINE+1]]:5: error: argument #0 of @prepare names no original argument
    func.func @prepare(%w: tensor<3xf32> {sinter.role = "param", sinter.name = "w"}) -> tensor<3xf32> {
      return %w : tensor<3xf32>
    }
    func.func @forward(%x: tensor<2x3xf32> {sinter.role = "input", sinter.name = "x"},
                       %p: tensor<3xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64})
        -> tensor<2x3xf32>
        attributes {sinter.original_arguments = [{sinter.role = "input", sinter.name = "x", sinter.type = tensor<2x3xf32>}]} {
      %0 = sinter.add %x, %p : tensor<2x3xf32>, tensor<3xf32>
      return %0 : tensor<2x3xf32>
    }
  }

  module @prepare_index {
    func.func @prepare(%x: tensor<2x3xf32> {sinter.role = "param", sinter.name = "x"}) -> tensor<3xf32> {
      %0 = sinter.sum %x dims [0] : tensor<2x3xf32>
      return %0 : tensor<3xf32>
    }
    // PREPARE-INDEX: runtime-errors.mlir:[[@LINE+1]]:5: error: prepared argument #1 needs a sinter.prepared index of a @prepare result
    func.func @forward(%x: tensor<2x3xf32> {sinter.role = "input", sinter.name = "x"},
                       %p: tensor<3xf32> {sinter.role = "prepared", sinter.prepared = 2 : i64})
        -> tensor<2x3xf32>
        attributes {sinter.original_arguments = [{sinter.role = "input", sinter.name = "x", sinter.type = tensor<2x3xf32>}]} {
      %0 = sinter.add %x, %p : tensor<2x3xf32>, tensor<3xf32>
      return %0 : tensor<2x3xf32>
    }
  }
}
