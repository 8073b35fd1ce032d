// Every sinter op has an interpreter evaluator and, when elementwise, a CUDA
// formula: -test-sinter-op-coverage builds the elementwise ops and the
// reductions from their traits and interfaces, and checks the other ops on
// the functions below (one per op).
// RUN: sinter-opt %s -test-sinter-op-coverage -verify-diagnostics
// The test fails on an op it has no instance of:
// RUN: echo 'module {}' | not sinter-opt -test-sinter-op-coverage 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: error: no instance of 'sinter.matmul'

// expected-remark@below {{checked}}
module {
  func.func @constant() -> tensor<2xf32> {
    %c = sinter.constant dense<[1.0, 2.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func @fill(%x: tensor<?x3xf32>) -> tensor<?x1xf32> {
    %z = sinter.fill 0.000000e+00 dims [0] of %x
           : tensor<?x3xf32> -> tensor<?x1xf32>
    return %z : tensor<?x1xf32>
  }
  // clamp without bounds does not verify.
  func.func @clamp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = sinter.clamp %x min = 0.000000e+00 : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %t = sinter.transpose %x perm [1, 0] : tensor<2x3xf32>
    return %t : tensor<3x2xf32>
  }
  func.func @reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
    %r = sinter.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
    return %r : tensor<6xf32>
  }
  func.func @slice(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
    %s = sinter.slice %x dim 1 start 1 end 3 : tensor<2x3xf32>
    return %s : tensor<2x2xf32>
  }
  func.func @concat(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>)
      -> tensor<2x4xf32> {
    %c = sinter.concat %x, %y dim 1 : tensor<2x3xf32>, tensor<2x1xf32>
    return %c : tensor<2x4xf32>
  }
  // compare needs its predicate.
  func.func @compare(%x: tensor<2x3xf32>, %y: tensor<3xf32>)
      -> tensor<2x3xf32> {
    %m = sinter.compare gt, %x, %y : tensor<2x3xf32>, tensor<3xf32>
    return %m : tensor<2x3xf32>
  }
  func.func @matmul(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>)
      -> tensor<2x4xf32> {
    %y = sinter.matmul %x, %w transpose_b : tensor<2x3xf32>, tensor<4x3xf32>
    return %y : tensor<2x4xf32>
  }
  func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %p = sinter.softmax %x dim 1 : tensor<2x3xf32>
    return %p : tensor<2x3xf32>
  }
  func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %p = sinter.log_softmax %x dim 1 : tensor<2x3xf32>
    return %p : tensor<2x3xf32>
  }
  func.func @layer_norm(%x: tensor<2x3xf32>, %g: tensor<3xf32>,
                        %b: tensor<3xf32>) -> tensor<2x3xf32> {
    %y = sinter.layer_norm %x weight(%g : tensor<3xf32>)
           bias(%b : tensor<3xf32>) shape [3] : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @rms_norm(%x: tensor<2x3xf32>, %g: tensor<3xf32>)
      -> tensor<2x3xf32> {
    %y = sinter.rms_norm %x weight(%g : tensor<3xf32>) shape [3]
           : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @group_norm(%x: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
    %y = sinter.group_norm %x groups 2 : tensor<2x4x3xf32>
    return %y : tensor<2x4x3xf32>
  }
  func.func @instance_norm(%x: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
    %y = sinter.instance_norm %x : tensor<2x4x3xf32>
    return %y : tensor<2x4x3xf32>
  }
  func.func @batch_norm(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = sinter.batch_norm %x training : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}

