// RUN: sinter-opt %s --split-input-file --sinter-decompose --sinter-simplify | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-decompose --sinter-simplify=fp-mode=strict | FileCheck %s --check-prefix=STRICT

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

// -----

// Every reduction of a constant over static dims is a constant: prod 2^8,
// logsumexp 2 + log 8, var and std 0, a norm's centered value 0 (its sum
// too), softmax 1/8; over the symbolic batch, the biased var (0) and max
// (2). Strict mode folds the exact ones (prod, var, std, max) and keeps
// exp, log and rsqrt.
// CHECK-LABEL: func.func @reductions_of_constants
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
//   CHECK-DAG:   %[[MB:.*]] = sinter.constant dense<2.000000e+00> : tensor<1x8xf32>
//   CHECK-DAG:   %[[VB:.*]] = sinter.constant dense<0.000000e+00> : tensor<1x8xf32>
//   CHECK-DAG:   %[[P:.*]] = sinter.fill 2.560000e+02 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?x1xf32>
//   CHECK-DAG:   %[[L:.*]] = sinter.fill 4.0794415473937988 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?x1xf32>
//   CHECK-DAG:   %[[Z:.*]] = sinter.fill 0.000000e+00 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?x1xf32>
//   CHECK-DAG:   %[[SM:.*]] = sinter.fill 1.250000e-01 dims [0] of %[[X]] : tensor<?x8xf32> -> tensor<?x8xf32>
//   CHECK-NOT:   sinter.{{sum|max|prod|exp|log|mean|var}}
//       CHECK:   return %[[P]], %[[L]], %[[Z]], %[[Z]], %[[Z]], %[[VB]], %[[MB]], %[[SM]]
// STRICT-LABEL: func.func @reductions_of_constants
//       STRICT:   %[[P:.*]] = sinter.fill 2.560000e+02
//       STRICT:   sinter.exp
//       STRICT:   %[[Z:.*]] = sinter.fill 0.000000e+00 dims [0] of %{{.*}} : tensor<?x8xf32> -> tensor<?x1xf32>
//       STRICT:   return %[[P]], %{{.*}}, %[[Z]], %[[Z]],
func.func @reductions_of_constants(%x: tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<?x8xf32>) {
  %f = sinter.fill 2.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %p = sinter.prod %f dims [1] keepdim : tensor<?x8xf32>
  %l = sinter.logsumexp %f dims [1] keepdim : tensor<?x8xf32>
  %v = sinter.var %f dims [1] keepdim : tensor<?x8xf32>
  %vs = sinter.var %f dims [1] keepdim : tensor<?x8xf32>
  %s = sinter.sqrt %vs : tensor<?x1xf32>
  %n = sinter.layer_norm %f shape [8] : tensor<?x8xf32>
  %ns = sinter.sum %n dims [1] keepdim : tensor<?x8xf32>
  %vb = sinter.var %f dims [0] keepdim unbiased = false : tensor<?x8xf32>
  %mb = sinter.max %f dims [0] keepdim : tensor<?x8xf32>
  %sm = sinter.softmax %f dim 1 : tensor<?x8xf32>
  return %p, %l, %v, %s, %ns, %vb, %mb, %sm : tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<?x8xf32>
}

// -----

// prod over the symbolic batch: 1^B = 1 for every B, 2^B is not a
// constant. 0.3^8 rounds (fast only). logsumexp over a size-1 dim is x
// exactly; over 8 elements of x it stays.
// CHECK-LABEL: func.func @prod_of_constants
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
//   CHECK-DAG:   %[[ONE:.*]] = sinter.constant dense<1.000000e+00> : tensor<1x8xf32>
//   CHECK-DAG:   %[[TWO:.*]] = sinter.prod %{{.*}} dims [0] keepdim
//   CHECK-DAG:   %[[T8:.*]] = sinter.fill 6.5610023739282042E-5 dims [0] of %[[X]]
//       CHECK:   %[[LSE:.*]] = sinter.add
//       CHECK:   return %[[ONE]], %[[TWO]], %[[T8]], %[[LSE]], %[[X]]
// STRICT-LABEL: func.func @prod_of_constants
//       STRICT:   %[[ONE:.*]] = sinter.constant dense<1.000000e+00> : tensor<1x8xf32>
//       STRICT:   sinter.prod %{{.*}} dims [1] keepdim
//       STRICT:   return %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %arg0
func.func @prod_of_constants(%x: tensor<?x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x8xf32>) {
  %one = sinter.fill 1.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %pb = sinter.prod %one dims [0] keepdim : tensor<?x8xf32>
  %two = sinter.fill 2.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %tb = sinter.prod %two dims [0] keepdim : tensor<?x8xf32>
  %third = sinter.fill 0.3 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %pt = sinter.prod %third dims [1] keepdim : tensor<?x8xf32>
  %lu = sinter.logsumexp %x dims [1] keepdim : tensor<?x8xf32>
  %r = sinter.reshape %x : tensor<?x8xf32> -> tensor<?x8x1xf32>
  %l1 = sinter.logsumexp %r dims [2] : tensor<?x8x1xf32>
  return %pb, %tb, %pt, %lu, %l1 : tensor<1x8xf32>, tensor<1x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x8xf32>
}

// -----

// A constant of shape [B, T], B from x and T from y: a fill of both, and
// the matmul that computed its shape is dead.
// CHECK-LABEL: func.func @two_sources
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<?x8xf32>)
//       CHECK:   %[[F:.*]] = sinter.fill 1.000000e+00 dims [0, 0] of %[[X]], %[[Y]] : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x?xf32>
//  CHECK-NEXT:   return %[[F]]
func.func @two_sources(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x?xf32> {
  %h = sinter.matmul %x, %y transpose_b : tensor<?x8xf32>, tensor<?x8xf32>
  %c = sinter.constant dense<0.0> : tensor<f32>
  %z = sinter.mul %h, %c : tensor<?x?xf32>, tensor<f32>
  %e = sinter.exp %z : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}
