// RUN: sinter-opt %s --split-input-file --sinter-simplify=fp-mode=strict | FileCheck %s
// RUN: sinter-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sinter-simplify{fp-mode=strict}))' | FileCheck %s

// fp-mode=strict keeps only value-preserving rewrites: identities, exact
// constants and bit-identical folds. Reassociation, inexact reciprocals and
// rewrites that hold for finite values only stay off.

// The seed example: only x / 2 -> x * 0.5 is exact; the sum stays a sum of
// the full GEMM output and the scalars do not merge.
// CHECK-LABEL: func.func @gemm_divide_sum_scaling
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8192xf32> {{.*}}, %[[W:.*]]: tensor<8192x8192xf32> {{.*}})
//   CHECK-DAG:   %[[HALF:.*]] = sinter.constant dense<5.000000e-01> : tensor<f32>
//   CHECK-DAG:   %[[C:.*]] = sinter.constant dense<1.500000e+00> : tensor<f32>
//       CHECK:   %[[H:.*]] = sinter.matmul %[[X]], %[[W]] transpose_b : tensor<?x8192xf32>, tensor<8192x8192xf32>
//       CHECK:   %[[D:.*]] = sinter.mul %[[H]], %[[HALF]]
//       CHECK:   %[[S:.*]] = sinter.sum %[[D]] dims [1] keepdim
//       CHECK:   %[[R:.*]] = sinter.mul %[[S]], %[[C]]
//       CHECK:   return %[[R]]
func.func @gemm_divide_sum_scaling(%x: tensor<?x8192xf32> {sinter.role = "input"}, %w: tensor<8192x8192xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x8192xf32>, tensor<8192x8192xf32>
  %two = sinter.constant dense<2.0> : tensor<f32>
  %d = sinter.div %h, %two : tensor<?x8192xf32>, tensor<f32>
  %s = sinter.sum %d dims [1] keepdim : tensor<?x8192xf32>
  %c = sinter.constant dense<1.5> : tensor<f32>
  %o = sinter.mul %s, %c : tensor<?x1xf32>, tensor<f32>
  return %o : tensor<?x1xf32>
}

// -----

// Exact: x / 0.25 = x * 4, x - c = x + (-c), x + x = x * 2, neg(x) * c =
// x * (-c). Not exact: x / 3 stays a division.
// CHECK-LABEL: func.func @exact_scalars
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//   CHECK-DAG:   %[[FOUR:.*]] = sinter.constant dense<4.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[THREE:.*]] = sinter.constant dense<3.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[M1:.*]] = sinter.constant dense<-1.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[TWO:.*]] = sinter.constant dense<2.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[M3:.*]] = sinter.constant dense<-3.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[A:.*]] = sinter.mul %[[X]], %[[FOUR]]
//   CHECK-DAG:   %[[B:.*]] = sinter.div %[[X]], %[[THREE]]
//   CHECK-DAG:   %[[C:.*]] = sinter.add %[[X]], %[[M1]]
//   CHECK-DAG:   %[[D:.*]] = sinter.mul %[[X]], %[[TWO]]
//   CHECK-DAG:   %[[E:.*]] = sinter.mul %[[X]], %[[M3]]
//       CHECK:   return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @exact_scalars(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
  %q = sinter.constant dense<0.25> : tensor<f32>
  %c1 = sinter.constant dense<1.0> : tensor<f32>
  %c3 = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.div %x, %q : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.div %x, %c3 : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.sub %x, %c1 : tensor<?x64xf32>, tensor<f32>
  %3 = sinter.add %x, %x : tensor<?x64xf32>, tensor<?x64xf32>
  %n = sinter.neg %x : tensor<?x64xf32>
  %4 = sinter.mul %n, %c3 : tensor<?x64xf32>, tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Not exact: consecutive scalar factors and param biases do not merge.
// CHECK-LABEL: func.func @no_regroup
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[P:.*]]: tensor<64xf32> {{.*}}, %[[Q:.*]]: tensor<64xf32> {{.*}})
//       CHECK:   %[[A:.*]] = sinter.mul %[[X]], %{{.*}}
//       CHECK:   %[[B:.*]] = sinter.mul %[[A]], %{{.*}}
//       CHECK:   %[[C:.*]] = sinter.add %[[X]], %[[P]]
//       CHECK:   %[[D:.*]] = sinter.add %[[C]], %[[Q]]
//       CHECK:   return %[[B]], %[[D]]
func.func @no_regroup(%x: tensor<?x64xf32>, %p: tensor<64xf32> {sinter.role = "param"}, %q: tensor<64xf32> {sinter.role = "param"}) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %c2 = sinter.constant dense<2.0> : tensor<f32>
  %c3 = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.mul %x, %c2 : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.mul %0, %c3 : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.add %x, %p : tensor<?x64xf32>, tensor<64xf32>
  %3 = sinter.add %2, %q : tensor<?x64xf32>, tensor<64xf32>
  return %1, %3 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// x - x is NaN where x is infinite: it stays, and so do x * 0 and
// y + (x - x); gelu and relu of it are itself (NaN maps to NaN).
// CHECK-LABEL: func.func @zeros
//  CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<4x1xf32>)
//       CHECK:   %[[Z:.*]] = sinter.sub %[[X]], %[[X]]
//       CHECK:   %[[M:.*]] = sinter.mul %[[Y]], %{{.*}}
//       CHECK:   %[[A:.*]] = sinter.add %[[Y]], %[[Z]]
//       CHECK:   return %[[Z]], %[[M]], %[[A]]
func.func @zeros(%x: tensor<4x1xf32>, %y: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %z = sinter.sub %x, %x : tensor<4x1xf32>, tensor<4x1xf32>
  %g = sinter.gelu %z : tensor<4x1xf32>
  %r = sinter.relu %g : tensor<4x1xf32>
  %c0 = sinter.constant dense<0.0> : tensor<f32>
  %0 = sinter.mul %y, %c0 : tensor<4x1xf32>, tensor<f32>
  %1 = sinter.add %y, %z : tensor<4x1xf32>, tensor<4x1xf32>
  return %r, %0, %1 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Every op whose ODS says f(0) = 0 (ValueFactsOpInterface: silu, tanh,
// leaky_relu, mish, hardswish, softsign, abs, sqrt; gelu and relu above)
// maps x - x to itself; exp does not, but its result is positive, so relu
// of it is dropped, as is relu of hardsigmoid (non-negative).
// CHECK-LABEL: func.func @value_facts
//  CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
//  CHECK-SAME: "relu-of-non-negative" = 2 : i64, "zero-preserving-unary" = 8 : i64
//       CHECK:   %[[Z:.*]] = sinter.sub %[[X]], %[[X]]
//       CHECK:   %[[E:.*]] = sinter.exp %[[Z]]
//       CHECK:   %[[H:.*]] = sinter.hardsigmoid %[[X]]
//   CHECK-NOT:   sinter.relu
//       CHECK:   return %[[Z]], %[[E]], %[[H]]
func.func @value_facts(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = sinter.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %0 = sinter.silu %z : tensor<4xf32>
  %1 = sinter.tanh %0 : tensor<4xf32>
  %2 = sinter.leaky_relu %1 : tensor<4xf32>
  %3 = sinter.mish %2 : tensor<4xf32>
  %4 = sinter.hardswish %3 : tensor<4xf32>
  %5 = sinter.softsign %4 : tensor<4xf32>
  %6 = sinter.abs %5 : tensor<4xf32>
  %7 = sinter.sqrt %6 : tensor<4xf32>
  %e = sinter.exp %7 : tensor<4xf32>
  %re = sinter.relu %e : tensor<4xf32>
  %h = sinter.hardsigmoid %x : tensor<4xf32>
  %rh = sinter.relu %h : tensor<4xf32>
  return %7, %re, %rh : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Exact: clamps merge, relu of a non-negative value vanishes.
// CHECK-LABEL: func.func @clamps
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
//       CHECK:   %[[A:.*]] = sinter.clamp %[[X]] min = 0.000000e+00 max = 6.000000e+00
//       CHECK:   %[[E:.*]] = sinter.exp %[[X]]
//       CHECK:   return %[[A]], %[[E]]
func.func @clamps(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = sinter.relu %x : tensor<8xf32>
  %1 = sinter.clamp %0 max = 6.0 : tensor<8xf32>
  %e = sinter.exp %x : tensor<8xf32>
  %2 = sinter.relu %e : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Exact: a positive constant leaves max, size-1 dims leave a max and leave
// a sum that reduces other dims too. Not exact: a scalar does not leave a
// sum; a sum or mean over size-1 dims only is 0 + y, which turns -0 into
// +0 (issue 19: dropping it made strict mode return -0), with keepdim too.
// CHECK-LABEL: func.func @reductions
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[Y:.*]]: tensor<?x1xf32>, %[[Z:.*]]: tensor<4x1x8xf32>)
//       CHECK:   %[[P:.*]] = sinter.mul %[[X]], %[[C:.*]] : tensor<?x64xf32>, tensor<f32>
//       CHECK:   %[[S:.*]] = sinter.sum %[[P]] dims [1]
//       CHECK:   %[[M:.*]] = sinter.max %[[X]] dims [1]
//       CHECK:   %[[MC:.*]] = sinter.mul %[[M]], %[[C]]
//       CHECK:   %[[U:.*]] = sinter.sum %[[Y]] dims [1] : tensor<?x1xf32>
//       CHECK:   %[[K:.*]] = sinter.mean %[[Y]] dims [1] keepdim : tensor<?x1xf32>
//       CHECK:   %[[R:.*]] = sinter.reshape %[[Y]] : tensor<?x1xf32> -> tensor<?xf32>
//       CHECK:   %[[ZS:.*]] = sinter.sum %[[Z]] dims [2] : tensor<4x1x8xf32>
//       CHECK:   %[[ZR:.*]] = sinter.reshape %[[ZS]] : tensor<4x1xf32> -> tensor<4xf32>
//       CHECK:   return %[[S]], %[[MC]], %[[U]], %[[K]], %[[R]], %[[ZR]]
func.func @reductions(%x: tensor<?x64xf32>, %y: tensor<?x1xf32>, %z: tensor<4x1x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<4xf32>) {
  %c = sinter.constant dense<2.5> : tensor<f32>
  %0 = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.sum %0 dims [1] : tensor<?x64xf32>
  %2 = sinter.max %0 dims [1] : tensor<?x64xf32>
  %3 = sinter.sum %y dims [1] : tensor<?x1xf32>
  %4 = sinter.mean %y dims [1] keepdim : tensor<?x1xf32>
  %5 = sinter.max %y dims [1] : tensor<?x1xf32>
  %6 = sinter.sum %z dims [1, 2] : tensor<4x1x8xf32>
  return %1, %2, %3, %4, %5, %6 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<4xf32>
}

// -----

// Exact: a transpose folds into the matmul flag. Not exact: the reduction
// of a matmul, a bias through it, a scalar out of its operand and a scale
// into its weight all reassociate.
// CHECK-LABEL: func.func @matmuls
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[C:.*]]: tensor<f32>, %[[S:.*]]: tensor<32xf32> {{.*}})
//       CHECK:   %[[P0:.*]] = sinter.matmul %[[X]], %[[W]] transpose_b
//       CHECK:   %[[R0:.*]] = sinter.sum %[[P0]] dims [1] keepdim
//       CHECK:   %[[XC:.*]] = sinter.mul %[[X]], %[[C]]
//       CHECK:   %[[P1:.*]] = sinter.matmul %[[XC]], %[[W]] transpose_b
//       CHECK:   %[[PB:.*]] = sinter.add %[[P1]], %[[B]]
//       CHECK:   %[[R1:.*]] = sinter.sum %[[PB]] dims [1] keepdim
//       CHECK:   %[[R2:.*]] = sinter.mul %[[P1]], %[[S]]
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]]
func.func @matmuls(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %c: tensor<f32>, %s: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x32xf32>) {
  %wt = sinter.transpose %w perm [1, 0] : tensor<32x64xf32>
  %0 = sinter.matmul %x, %wt : tensor<?x64xf32>, tensor<64x32xf32>
  %1 = sinter.sum %0 dims [1] keepdim : tensor<?x32xf32>
  %xc = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.matmul %xc, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %3 = sinter.add %2, %b : tensor<?x32xf32>, tensor<32xf32>
  %4 = sinter.sum %3 dims [1] keepdim : tensor<?x32xf32>
  %5 = sinter.mul %2, %s : tensor<?x32xf32>, tensor<32xf32>
  return %1, %4, %5 : tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x32xf32>
}

// -----

// x + -0 = x for every x; x + +0 is +0 where x is -0, so it stays (issue
// 19: the folder dropped it, and strict mode returned -0).
// CHECK-LABEL: func.func @add_zero
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
//       CHECK:   %[[A:.*]] = sinter.add %[[X]], %{{.*}} : tensor<8xf32>, tensor<f32>
//       CHECK:   return %[[A]], %[[X]]
func.func @add_zero(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %pz = sinter.constant dense<0.0> : tensor<f32>
  %nz = sinter.constant dense<-0.0> : tensor<f32>
  %0 = sinter.add %x, %pz : tensor<8xf32>, tensor<f32>
  %1 = sinter.add %nz, %x : tensor<f32>, tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
