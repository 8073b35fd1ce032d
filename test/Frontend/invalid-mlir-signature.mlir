// RUN: %python %S/Inputs/expect-exit.py 1 sinterc %s | FileCheck %s
// A model whose signature attributes are malformed.

module @m {
  // CHECK: [[@LINE+1]]:3: error: argument #0: unknown sinter.role 'weight'
  func.func @forward(%x: tensor<4xf32> {sinter.role = "weight"}) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
