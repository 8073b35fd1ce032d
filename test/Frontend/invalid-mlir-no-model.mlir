// RUN: %python %S/Inputs/expect-exit.py 1 sinterc %s | FileCheck %s
// A .mlir file without a model module.

// CHECK: error: no model in the file: expected a module with func.func @forward, or modules that hold one each
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
