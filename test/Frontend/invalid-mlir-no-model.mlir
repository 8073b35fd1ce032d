// RUN: %python %S/Inputs/expect-exit.py 1 sinterc %s | FileCheck %s
// A .mlir file without a model module: the error points at the file's first
// op (not at line 0 of the module the parser wraps it in).

// CHECK: invalid-mlir-no-model.mlir:[[@LINE+2]]:1: error: no model in the file: expected a module with func.func @forward, or modules that hold one each
// CHECK-NOT: see current operation
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
