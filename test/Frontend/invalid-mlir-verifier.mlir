// RUN: %python %S/Inputs/expect-exit.py 1 sinterc %s | FileCheck %s
// A .mlir model whose op does not verify.

module @m {
  func.func @forward(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x4xf32> {
    // CHECK: [[@LINE+1]]:10: error: 'sinter.matmul' op contraction dims differ: 8 vs 4
    %0 = sinter.matmul %x, %w : tensor<4x8xf32>, tensor<4x8xf32>
    return %0 : tensor<4x4xf32>
  }
}
