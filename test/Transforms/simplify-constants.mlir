// RUN: sinter-opt %s --split-input-file --sinter-simplify | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-simplify=fp-mode=strict | FileCheck %s --check-prefix=STRICT

// Constants of any shape (SimplifyConstants.cpp): `x - x` and `x * 0` of a
// symbolic shape become a sinter.fill of a model input's dims, so that what
// computed x is dead; elementwise ops and reductions of constants fold.
// Strict mode keeps `x - x` (NaN for infinite x) and folds only the ops
// whose f32 result IEEE 754 defines exactly.

// The zero takes its batch from the matmul's lhs, the input: the matmul is
// dead. exp(0) = 1, 1 * 3 = 3, mean(3) = 3 over any dims.
// CHECK-LABEL: func.func @zero_of_gemm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %{{.*}}: tensor<32x64xf32>)
//   CHECK-NOT:   sinter.matmul
//       CHECK:   %[[Z:.*]] = sinter.fill 0.000000e+00 dims [0] of %[[X]] : tensor<?x64xf32> -> tensor<?x32xf32>
//       CHECK:   %[[T:.*]] = sinter.fill 3.000000e+00 dims [0] of %[[X]] : tensor<?x64xf32> -> tensor<?x1xf32>
//       CHECK:   return %[[Z]], %[[T]]
// STRICT-LABEL: func.func @zero_of_gemm
//       STRICT:   %[[H:.*]] = sinter.matmul
//       STRICT:   sinter.sub %[[H]], %[[H]]
func.func @zero_of_gemm(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> (tensor<?x32xf32>, tensor<?x1xf32>) {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %z = sinter.sub %h, %h : tensor<?x32xf32>, tensor<?x32xf32>
  %e = sinter.exp %z : tensor<?x32xf32>
  %c = sinter.constant dense<3.0> : tensor<f32>
  %t = sinter.mul %e, %c : tensor<?x32xf32>, tensor<f32>
  %m = sinter.mean %t dims [1] keepdim : tensor<?x32xf32>
  return %z, %m : tensor<?x32xf32>, tensor<?x1xf32>
}

// -----

// Sums of a constant over static dims are n * c; over the batch only zero
// stays constant. max and min of a constant are the constant. A fill that
// only broadcasts against an operand of the result's shape is a scalar.
// CHECK-LABEL: func.func @constant_reductions
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<?x8xf32>)
//       CHECK:   %[[C:.*]] = sinter.constant dense<2.000000e+00> : tensor<f32>
//       CHECK:   %[[S:.*]] = sinter.fill 1.600000e+01 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?x1xf32>
//       CHECK:   %[[B:.*]] = sinter.sum %{{.*}} dims [0] keepdim : tensor<?x8xf32>
//       CHECK:   %[[M:.*]] = sinter.fill 2.000000e+00 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?xf32>
//       CHECK:   %[[A:.*]] = sinter.add %[[Y]], %[[C]] : tensor<?x8xf32>, tensor<f32>
//       CHECK:   return %[[S]], %[[B]], %[[M]], %[[A]]
func.func @constant_reductions(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<1x8xf32>, tensor<?xf32>, tensor<?x8xf32>) {
  %f = sinter.fill 2.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %s = sinter.sum %f dims [1] keepdim : tensor<?x8xf32>
  %b = sinter.sum %f dims [0] keepdim : tensor<?x8xf32>
  %m = sinter.max %f dims [1] : tensor<?x8xf32>
  %a = sinter.add %y, %f : tensor<?x8xf32>, tensor<?x8xf32>
  return %s, %b, %m, %a : tensor<?x1xf32>, tensor<1x8xf32>, tensor<?xf32>, tensor<?x8xf32>
}

// -----

// Strict mode folds neg, abs, relu and the arithmetic of constants (exact
// in IEEE 754), not exp or tanh (the GPU's may differ in the last bit).
// CHECK-LABEL: func.func @fold_unary
//       CHECK:   %[[N:.*]] = sinter.constant dense<2.500000e+00> : tensor<4xf32>
//       CHECK:   %[[E:.*]] = sinter.constant dense<8.208500e-02> : tensor<4xf32>
//       CHECK:   return %[[N]], %[[E]]
// STRICT-LABEL: func.func @fold_unary
//       STRICT:   %[[N:.*]] = sinter.constant dense<2.500000e+00> : tensor<4xf32>
//       STRICT:   %[[E:.*]] = sinter.exp %{{.*}} : tensor<4xf32>
//       STRICT:   return %[[N]], %[[E]]
func.func @fold_unary() -> (tensor<4xf32>, tensor<4xf32>) {
  %c = sinter.constant dense<-2.5> : tensor<4xf32>
  %n = sinter.neg %c : tensor<4xf32>
  %e = sinter.exp %c : tensor<4xf32>
  return %n, %e : tensor<4xf32>, tensor<4xf32>
}
