// RUN: %python %S/Inputs/expect-exit.py 1 sinterc %s | FileCheck %s
// MLIR syntax errors are reported by MLIR's parser.

module @m {
  func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: [[@LINE+1]]:10: error: custom op 'sinter.frobnicate' is unknown
    %0 = sinter.frobnicate %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
