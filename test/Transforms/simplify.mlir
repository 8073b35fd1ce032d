// RUN: sinter-opt %s --split-input-file --sinter-simplify | FileCheck %s
// RUN: sinter-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sinter-simplify{fp-mode=fast}))' | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-simplify='disable-patterns=reduction-of-matmul' | FileCheck %s --check-prefix=NO-MATVEC
// RUN: sinter-opt %s --split-input-file --sinter-simplify='enable-patterns=div-by-constant' | FileCheck %s --check-prefix=ONLY-DIV

// The rewrite catalog in the default fp mode (fast). simplify-strict.mlir
// runs the same kinds of input with fp-mode=strict.

//===----------------------------------------------------------------------===//
// The seed example gemm_divide_sum_scaling
//===----------------------------------------------------------------------===//

// sum((x @ W^T) / 2, dim=1, keepdim) * 1.5 = x @ (colsum(W) * 0.75)^T: the
// matmul that touches x reads a [1, 8192] param-only weight.
// CHECK-LABEL: func.func @gemm_divide_sum_scaling
//  CHECK-SAME: (%[[X:.*]]: tensor<?x8192xf32> {{.*}}, %[[W:.*]]: tensor<8192x8192xf32> {{.*}})
//   CHECK-DAG:   %[[C:.*]] = sinter.constant dense<7.500000e-01> : tensor<f32>
//   CHECK-DAG:   %[[COLSUM:.*]] = sinter.sum %[[W]] dims [0] keepdim : tensor<8192x8192xf32>
//       CHECK:   %[[SCALED:.*]] = sinter.mul %[[COLSUM]], %[[C]] : tensor<1x8192xf32>, tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.matmul %[[X]], %[[SCALED]] transpose_b : tensor<?x8192xf32>, tensor<1x8192xf32>
//       CHECK:   return %[[R]] : tensor<?x1xf32>
//   CHECK-NOT:   sinter.matmul
// Without reduction-of-matmul the scalars still merge and move out of the
// sum, and nothing folds into W: the 0.75 stays on the [B, 1] result.
// NO-MATVEC-LABEL: func.func @gemm_divide_sum_scaling
//       NO-MATVEC:   %[[H:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x8192xf32>, tensor<8192x8192xf32>
//       NO-MATVEC:   %[[S:.*]] = sinter.sum %[[H]] dims [1] keepdim
//       NO-MATVEC:   %[[R:.*]] = sinter.mul %[[S]], %{{.*}} : tensor<?x1xf32>, tensor<f32>
//       NO-MATVEC:   return %[[R]]
// With div-by-constant alone only the division changes.
// ONLY-DIV-LABEL: func.func @gemm_divide_sum_scaling
//       ONLY-DIV:   %[[H:.*]] = sinter.matmul
//       ONLY-DIV:   %[[D:.*]] = sinter.mul %[[H]], %{{.*}}
//       ONLY-DIV:   %[[S:.*]] = sinter.sum %[[D]] dims [1] keepdim
//       ONLY-DIV:   %[[R:.*]] = sinter.mul %[[S]], %{{.*}}
//       ONLY-DIV:   return %[[R]]
func.func @gemm_divide_sum_scaling(%x: tensor<?x8192xf32> {sinter.role = "input"}, %w: tensor<8192x8192xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x8192xf32>, tensor<8192x8192xf32>
  %two = sinter.constant dense<2.0> : tensor<f32>
  %d = sinter.div %h, %two : tensor<?x8192xf32>, tensor<f32>
  %s = sinter.sum %d dims [1] keepdim : tensor<?x8192xf32>
  %c = sinter.constant dense<1.5> : tensor<f32>
  %o = sinter.mul %s, %c : tensor<?x1xf32>, tensor<f32>
  return %o : tensor<?x1xf32>
}

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

// -----

// x / c = x * (1 / c): exact for c = 2.
// CHECK-LABEL: func.func @div_by_two
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[HALF:.*]] = sinter.constant dense<5.000000e-01> : tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.mul %[[X]], %[[HALF]] : tensor<?x64xf32>, tensor<f32>
//       CHECK:   return %[[R]]
func.func @div_by_two(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c = sinter.constant dense<2.0> : tensor<f32>
  %0 = sinter.div %x, %c : tensor<?x64xf32>, tensor<f32>
  return %0 : tensor<?x64xf32>
}

// -----

// An inexact reciprocal (1/3) would round twice where the division rounds
// once: the division stays in fast mode too.
// CHECK-LABEL: func.func @div_by_three
//       CHECK:   %[[THREE:.*]] = sinter.constant dense<3.000000e+00> : tensor<f32>
//       CHECK:   sinter.div %{{.*}}, %[[THREE]]
//   CHECK-NOT:   sinter.mul
func.func @div_by_three(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.div %x, %c : tensor<?x64xf32>, tensor<f32>
  return %0 : tensor<?x64xf32>
}

// -----

// A reduction's result keeps its division by an inexact reciprocal (one
// division per row; 1/255 rounded would cost var its accuracy), and still
// multiplies by an exact one.
// CHECK-LABEL: func.func @div_reduced_by_constant
//       CHECK:   %[[S:.*]] = sinter.sum
//       CHECK:   %[[Q:.*]] = sinter.div %[[S]], %{{.*}} : tensor<?x1xf32>, tensor<f32>
//       CHECK:   %[[H:.*]] = sinter.mul %[[S]], %{{.*}} : tensor<?x1xf32>, tensor<f32>
//       CHECK:   return %[[Q]], %[[H]]
func.func @div_reduced_by_constant(%x: tensor<?x256xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %c = sinter.constant dense<255.0> : tensor<f32>
  %two = sinter.constant dense<2.0> : tensor<f32>
  %s = sinter.sum %x dims [1] keepdim : tensor<?x256xf32>
  %0 = sinter.div %s, %c : tensor<?x1xf32>, tensor<f32>
  %1 = sinter.div %s, %two : tensor<?x1xf32>, tensor<f32>
  return %0, %1 : tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// A splat divisor of full shape becomes a splat factor of the same shape.
// CHECK-LABEL: func.func @div_by_splat
//       CHECK:   %[[Q:.*]] = sinter.constant dense<2.500000e-01> : tensor<4x8xf32>
//       CHECK:   sinter.mul %{{.*}}, %[[Q]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @div_by_splat(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = sinter.constant dense<4.0> : tensor<4x8xf32>
  %0 = sinter.div %x, %c : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Must not fire: 1/0 and 1/subnormal have no finite reciprocal; a divisor
// that is not a constant stays a division.
// CHECK-LABEL: func.func @div_no_reciprocal
//       CHECK:   sinter.div %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<f32>
//       CHECK:   sinter.div %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<f32>
//       CHECK:   sinter.div %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x64xf32>
func.func @div_no_reciprocal(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
  %zero = sinter.constant dense<0.0> : tensor<f32>
  %tiny = sinter.constant dense<1.0e-40> : tensor<f32>
  %0 = sinter.div %x, %zero : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.div %x, %tiny : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.div %x, %y : tensor<?x64xf32>, tensor<?x64xf32>
  return %0, %1, %2 : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// x - c = x + (-c)
// CHECK-LABEL: func.func @sub_constant
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[C:.*]] = sinter.constant dense<-1.250000e+00> : tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.add %[[X]], %[[C]]
//       CHECK:   return %[[R]]
func.func @sub_constant(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c = sinter.constant dense<1.25> : tensor<f32>
  %0 = sinter.sub %x, %c : tensor<?x64xf32>, tensor<f32>
  return %0 : tensor<?x64xf32>
}

// -----

// x + x = x * 2
// CHECK-LABEL: func.func @add_self
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[Y:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[TWO:.*]] = sinter.constant dense<2.000000e+00> : tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.mul %[[X]], %[[TWO]]
//       CHECK:   %[[S:.*]] = sinter.add %[[X]], %[[Y]]
//       CHECK:   return %[[R]], %[[S]]
func.func @add_self(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %0 = sinter.add %x, %x : tensor<?x64xf32>, tensor<?x64xf32>
  %1 = sinter.add %x, %y : tensor<?x64xf32>, tensor<?x64xf32>
  return %0, %1 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// (x * p) * q = x * (p * q): consecutive scalars fold into one constant,
// and x / 2 / 4 * 3 becomes x * 0.375.
// CHECK-LABEL: func.func @regroup_scalars
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//   CHECK-DAG:   %[[C6:.*]] = sinter.constant dense<6.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[C3:.*]] = sinter.constant dense<3.750000e-01> : tensor<f32>
//   CHECK-DAG:   %[[A:.*]] = sinter.mul %[[X]], %[[C6]]
//   CHECK-DAG:   %[[B:.*]] = sinter.mul %[[X]], %[[C3]]
//       CHECK:   return %[[A]], %[[B]]
func.func @regroup_scalars(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %c2 = sinter.constant dense<2.0> : tensor<f32>
  %c3 = sinter.constant dense<3.0> : tensor<f32>
  %c4 = sinter.constant dense<4.0> : tensor<f32>
  %0 = sinter.mul %x, %c2 : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.mul %c3, %0 : tensor<f32>, tensor<?x64xf32>
  %2 = sinter.div %x, %c2 : tensor<?x64xf32>, tensor<f32>
  %3 = sinter.div %2, %c4 : tensor<?x64xf32>, tensor<f32>
  %4 = sinter.mul %3, %c3 : tensor<?x64xf32>, tensor<f32>
  return %1, %4 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// (x + p) + q = x + (p + q) for constants and params: (x - 1) + 3 = x + 2,
// and two param biases merge into one.
// CHECK-LABEL: func.func @regroup_adds
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[P:.*]]: tensor<64xf32> {{.*}}, %[[Q:.*]]: tensor<64xf32> {{.*}})
//   CHECK-DAG:   %[[C2:.*]] = sinter.constant dense<2.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[A:.*]] = sinter.add %[[X]], %[[C2]]
//   CHECK-DAG:   %[[PQ:.*]] = sinter.add %[[P]], %[[Q]] : tensor<64xf32>, tensor<64xf32>
//   CHECK-DAG:   %[[B:.*]] = sinter.add %[[X]], %[[PQ]]
//       CHECK:   return %[[A]], %[[B]]
func.func @regroup_adds(%x: tensor<?x64xf32>, %p: tensor<64xf32> {sinter.role = "param"}, %q: tensor<64xf32> {sinter.role = "param"}) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %c1 = sinter.constant dense<1.0> : tensor<f32>
  %c3 = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.sub %x, %c1 : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.add %0, %c3 : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.add %x, %p : tensor<?x64xf32>, tensor<64xf32>
  %3 = sinter.add %2, %q : tensor<?x64xf32>, tensor<64xf32>
  return %1, %3 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Must not regroup: a factor that is an input (not cheap); an inner
// product with a second use (regrouping would compute both); a column and a
// row param whose product would be a full matrix.
// CHECK-LABEL: func.func @regroup_not
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[Y:.*]]: tensor<?x64xf32>, %[[Z:.*]]: tensor<4x64xf32>, %[[COL:.*]]: tensor<4x1xf32> {{.*}}, %[[ROW:.*]]: tensor<64xf32> {{.*}})
//       CHECK:   %[[C2:.*]] = sinter.constant dense<2.000000e+00>
//       CHECK:   %[[C3:.*]] = sinter.constant dense<3.000000e+00>
//       CHECK:   %[[XY:.*]] = sinter.mul %[[X]], %[[Y]]
//       CHECK:   %[[A:.*]] = sinter.mul %[[XY]], %[[C2]]
//       CHECK:   %[[X2:.*]] = sinter.mul %[[X]], %[[C2]]
//       CHECK:   %[[B:.*]] = sinter.mul %[[X2]], %[[C3]]
//       CHECK:   %[[ZC:.*]] = sinter.mul %[[Z]], %[[COL]]
//       CHECK:   %[[C:.*]] = sinter.mul %[[ZC]], %[[ROW]]
//       CHECK:   return %[[A]], %[[B]], %[[X2]], %[[C]]
func.func @regroup_not(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>, %z: tensor<4x64xf32>, %col: tensor<4x1xf32> {sinter.role = "param"}, %row: tensor<64xf32> {sinter.role = "param"}) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<4x64xf32>) {
  %c2 = sinter.constant dense<2.0> : tensor<f32>
  %c3 = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.mul %x, %y : tensor<?x64xf32>, tensor<?x64xf32>
  %1 = sinter.mul %0, %c2 : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.mul %x, %c2 : tensor<?x64xf32>, tensor<f32>
  %3 = sinter.mul %2, %c3 : tensor<?x64xf32>, tensor<f32>
  %4 = sinter.mul %z, %col : tensor<4x64xf32>, tensor<4x1xf32>
  %5 = sinter.mul %4, %row : tensor<4x64xf32>, tensor<64xf32>
  return %1, %3, %2, %5 : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<4x64xf32>
}

// -----

// neg(x) * c = x * (-c)
// CHECK-LABEL: func.func @mul_of_neg
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[C:.*]] = sinter.constant dense<-3.000000e+00> : tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.mul %[[X]], %[[C]]
//       CHECK:   return %[[R]]
//   CHECK-NOT:   sinter.neg
func.func @mul_of_neg(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.neg %x : tensor<?x64xf32>
  %1 = sinter.mul %0, %c : tensor<?x64xf32>, tensor<f32>
  return %1 : tensor<?x64xf32>
}

//===----------------------------------------------------------------------===//
// Zeros
//===----------------------------------------------------------------------===//

// -----

// x - mean(x) over a size-1 dim is zero, and what follows folds: gelu(0) = 0,
// relu(0) = 0, 0 * 3 = 0; the matmul that produced x is dead.
// CHECK-LABEL: func.func @centered_unit_dim
//       CHECK:   %[[Z:.*]] = sinter.constant dense<0.000000e+00> : tensor<4x1xf32>
//       CHECK:   return %[[Z]], %[[Z]]
//   CHECK-NOT:   sinter.matmul
func.func @centered_unit_dim(%x: tensor<4x16xf32>, %w: tensor<1x16xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %h = sinter.matmul %x, %w transpose_b : tensor<4x16xf32>, tensor<1x16xf32>
  %m = sinter.mean %h dims [1] keepdim : tensor<4x1xf32>
  %z = sinter.sub %h, %m : tensor<4x1xf32>, tensor<4x1xf32>
  %g = sinter.gelu %z : tensor<4x1xf32>
  %c = sinter.constant dense<3.0> : tensor<f32>
  %s = sinter.mul %g, %c : tensor<4x1xf32>, tensor<f32>
  %r = sinter.relu %z : tensor<4x1xf32>
  return %s, %r : tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// With a dynamic batch the zero is a fill that takes the batch from x
// itself; gelu, silu, tanh of it are itself, and adding it leaves the other
// operand.
// CHECK-LABEL: func.func @centered_dynamic
//  CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<?x1xf32>)
//       CHECK:   %[[Z:.*]] = sinter.fill 0.000000e+00 dims [0] of %[[X]] : tensor<?x1xf32> -> tensor<?x1xf32>
//   CHECK-NOT:   sinter.sub
//       CHECK:   return %[[Z]], %[[Y]]
func.func @centered_dynamic(%x: tensor<?x1xf32>, %y: tensor<?x1xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x1xf32>
  %z = sinter.sub %x, %m : tensor<?x1xf32>, tensor<?x1xf32>
  %g = sinter.gelu %z approximate = tanh : tensor<?x1xf32>
  %s = sinter.silu %g : tensor<?x1xf32>
  %t = sinter.tanh %s : tensor<?x1xf32>
  %r = sinter.add %y, %t : tensor<?x1xf32>, tensor<?x1xf32>
  return %t, %r : tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// Must not fold to zero: mean over a dim of size 8 is not x; sigmoid(0) =
// 0.5 and softplus(0) = log 2 are not zero (they fold to those constants).
// CHECK-LABEL: func.func @centered_not
//       CHECK:   sinter.mean
//       CHECK:   sinter.sub
//       CHECK:   sinter.fill 5.000000e-01 dims [0] of %{{.*}} : tensor<?x1xf32> -> tensor<?x1xf32>
//       CHECK:   sinter.fill 0.69314718246459961 dims [0] of %{{.*}} : tensor<?x1xf32> -> tensor<?x1xf32>
func.func @centered_not(%x: tensor<?x8xf32>, %y: tensor<?x1xf32>) -> (tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x8xf32>
  %z = sinter.sub %x, %m : tensor<?x8xf32>, tensor<?x1xf32>
  %zy = sinter.sub %y, %y : tensor<?x1xf32>, tensor<?x1xf32>
  %s = sinter.sigmoid %zy : tensor<?x1xf32>
  %p = sinter.softplus %zy : tensor<?x1xf32>
  return %z, %s, %p : tensor<?x8xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// x * 0 = 0, also when the zero is a splat that broadcasts (static result).
// CHECK-LABEL: func.func @mul_by_zero
//       CHECK:   %[[Z:.*]] = sinter.constant dense<0.000000e+00> : tensor<4x8xf32>
//       CHECK:   return %[[Z]], %[[Z]]
func.func @mul_by_zero(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = sinter.constant dense<0.0> : tensor<f32>
  %zz = sinter.constant dense<0.0> : tensor<4x8xf32>
  %0 = sinter.mul %x, %z : tensor<4x8xf32>, tensor<f32>
  %1 = sinter.mul %zz, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Must not fire: -0 is not +0 (x * -0 is -0 for positive x). A scalar zero
// times a dynamic shape is a fill of that shape.
// CHECK-LABEL: func.func @mul_by_zero_not
//  CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %[[Y:.*]]: tensor<?x8xf32>)
//       CHECK:   sinter.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
//       CHECK:   sinter.fill 0.000000e+00 dims [0] of %[[Y]] : tensor<?x8xf32> -> tensor<?x8xf32>
func.func @mul_by_zero_not(%x: tensor<4x8xf32>, %y: tensor<?x8xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>) {
  %nz = sinter.constant dense<-0.0> : tensor<f32>
  %z = sinter.constant dense<0.0> : tensor<f32>
  %0 = sinter.mul %x, %nz : tensor<4x8xf32>, tensor<f32>
  %1 = sinter.mul %y, %z : tensor<?x8xf32>, tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<?x8xf32>
}

//===----------------------------------------------------------------------===//
// Clamps
//===----------------------------------------------------------------------===//

// -----

// relu(relu x) = relu x; relu(y) = y for y = exp, abs, sigmoid, softplus.
// CHECK-LABEL: func.func @relu_of_nonnegative
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
//       CHECK:   %[[R:.*]] = sinter.relu %[[X]]
//       CHECK:   %[[E:.*]] = sinter.exp %[[X]]
//       CHECK:   %[[A:.*]] = sinter.abs %[[X]]
//       CHECK:   %[[S:.*]] = sinter.sigmoid %[[X]]
//       CHECK:   %[[P:.*]] = sinter.softplus %[[X]]
//       CHECK:   return %[[R]], %[[E]], %[[A]], %[[S]], %[[P]]
func.func @relu_of_nonnegative(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = sinter.relu %x : tensor<8xf32>
  %1 = sinter.relu %0 : tensor<8xf32>
  %e = sinter.exp %x : tensor<8xf32>
  %2 = sinter.relu %e : tensor<8xf32>
  %a = sinter.abs %x : tensor<8xf32>
  %3 = sinter.relu %a : tensor<8xf32>
  %s = sinter.sigmoid %x : tensor<8xf32>
  %4 = sinter.relu %s : tensor<8xf32>
  %p = sinter.softplus %x : tensor<8xf32>
  %5 = sinter.relu %p : tensor<8xf32>
  return %1, %2, %3, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// relu(x) * c = relu(x * c) for a constant c > 0 (x / 2 is x * 0.5 first).
// CHECK-LABEL: func.func @scale_into_relu
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
//       CHECK:   %[[HALF:.*]] = sinter.constant dense<5.000000e-01>
//       CHECK:   %[[M:.*]] = sinter.mul %[[X]], %[[HALF]]
//       CHECK:   %[[R:.*]] = sinter.relu %[[M]]
//       CHECK:   return %[[R]]
func.func @scale_into_relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = sinter.relu %x : tensor<8xf32>
  %two = sinter.constant dense<2.0> : tensor<f32>
  %d = sinter.div %r, %two : tensor<8xf32>, tensor<f32>
  return %d : tensor<8xf32>
}

// -----

// Must not fire: a negative or non-constant scale, or a relu used twice.
// CHECK-LABEL: func.func @scale_into_relu_not
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[S:.*]]: tensor<f32>)
//   CHECK-DAG:   %[[R:.*]] = sinter.relu %[[X]]
//   CHECK-DAG:   %[[N:.*]] = sinter.constant dense<-3.000000e+00>
//   CHECK-DAG:   %[[A:.*]] = sinter.mul %[[R]], %[[N]]
//   CHECK-DAG:   %[[B:.*]] = sinter.mul %[[R]], %[[S]]
//       CHECK:   return %[[A]], %[[B]]
func.func @scale_into_relu_not(%x: tensor<8xf32>, %s: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r = sinter.relu %x : tensor<8xf32>
  %n = sinter.constant dense<-3.0> : tensor<f32>
  %a = sinter.mul %r, %n : tensor<8xf32>, tensor<f32>
  %b = sinter.mul %r, %s : tensor<8xf32>, tensor<f32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// Must not fire: tanh and a softplus with negative beta go below zero.
// CHECK-LABEL: func.func @relu_of_nonnegative_not
//       CHECK:   %[[T:.*]] = sinter.tanh
//       CHECK:   sinter.relu %[[T]]
//       CHECK:   %[[P:.*]] = sinter.softplus
//       CHECK:   sinter.relu %[[P]]
func.func @relu_of_nonnegative_not(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = sinter.tanh %x : tensor<8xf32>
  %0 = sinter.relu %t : tensor<8xf32>
  %p = sinter.softplus %x beta = -1.0 : tensor<8xf32>
  %1 = sinter.relu %p : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d)); relu and
// hardtanh are clamps: relu6(x) = clamp(relu x, max 6).
// CHECK-LABEL: func.func @merge_clamps
//  CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
//       CHECK:   %[[A:.*]] = sinter.clamp %[[X]] min = 0.000000e+00 max = 1.000000e+00
//       CHECK:   %[[B:.*]] = sinter.clamp %[[X]] min = 0.000000e+00 max = 6.000000e+00
//       CHECK:   %[[C:.*]] = sinter.clamp %[[X]] min = 5.000000e-01 max = 1.000000e+00
//       CHECK:   return %[[A]], %[[B]], %[[C]]
func.func @merge_clamps(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = sinter.clamp %x min = -1.0 max = 1.0 : tensor<8xf32>
  %1 = sinter.clamp %0 min = 0.0 max = 6.0 : tensor<8xf32>
  %2 = sinter.relu %x : tensor<8xf32>
  %3 = sinter.clamp %2 max = 6.0 : tensor<8xf32>
  %4 = sinter.hardtanh %x : tensor<8xf32>
  %5 = sinter.clamp %4 min = 0.5 : tensor<8xf32>
  return %1, %3, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Must not fire: disjoint intervals make a constant that one clamp cannot
// express.
// CHECK-LABEL: func.func @merge_clamps_disjoint
//       CHECK:   %[[A:.*]] = sinter.clamp %{{.*}} min = 0.000000e+00 max = 1.000000e+00
//       CHECK:   sinter.clamp %[[A]] min = 2.000000e+00 max = 3.000000e+00
func.func @merge_clamps_disjoint(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sinter.clamp %x min = 0.0 max = 1.0 : tensor<8xf32>
  %1 = sinter.clamp %0 min = 2.0 max = 3.0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

// sum(x * c) = sum(x) * c; mean likewise, c any scalar.
// CHECK-LABEL: func.func @scalar_out_of_reduction
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[C:.*]]: tensor<f32>)
//       CHECK:   %[[S:.*]] = sinter.sum %[[X]] dims [1] keepdim
//       CHECK:   %[[A:.*]] = sinter.mul %[[S]], %[[C]] : tensor<?x1xf32>, tensor<f32>
//       CHECK:   %[[M:.*]] = sinter.mean %[[X]] dims [0]
//       CHECK:   %[[B:.*]] = sinter.mul %[[M]], %[[C]] : tensor<64xf32>, tensor<f32>
//       CHECK:   return %[[A]], %[[B]]
func.func @scalar_out_of_reduction(%x: tensor<?x64xf32>, %c: tensor<f32>) -> (tensor<?x1xf32>, tensor<64xf32>) {
  %0 = sinter.mul %c, %x : tensor<f32>, tensor<?x64xf32>
  %1 = sinter.sum %0 dims [1] keepdim : tensor<?x64xf32>
  %2 = sinter.mean %0 dims [0] : tensor<?x64xf32>
  return %1, %2 : tensor<?x1xf32>, tensor<64xf32>
}

// -----

// Must not fire: a per-column factor is not a scalar.
// CHECK-LABEL: func.func @scalar_out_of_reduction_not
//       CHECK:   %[[P:.*]] = sinter.mul
//       CHECK:   sinter.sum %[[P]] dims [1] keepdim
func.func @scalar_out_of_reduction_not(%x: tensor<?x64xf32>, %v: tensor<64xf32>) -> tensor<?x1xf32> {
  %0 = sinter.mul %x, %v : tensor<?x64xf32>, tensor<64xf32>
  %1 = sinter.sum %0 dims [1] keepdim : tensor<?x64xf32>
  return %1 : tensor<?x1xf32>
}

// -----

// max(x * c) = max(x) * c for c > 0; min likewise.
// CHECK-LABEL: func.func @positive_scale_out_of_max
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[C:.*]] = sinter.constant dense<2.500000e+00>
//       CHECK:   %[[M:.*]] = sinter.max %[[X]] dims [1]
//       CHECK:   %[[A:.*]] = sinter.mul %[[M]], %[[C]]
//       CHECK:   %[[N:.*]] = sinter.min %[[X]] dims [1]
//       CHECK:   %[[B:.*]] = sinter.mul %[[N]], %[[C]]
//       CHECK:   return %[[A]], %[[B]]
func.func @positive_scale_out_of_max(%x: tensor<?x64xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c = sinter.constant dense<2.5> : tensor<f32>
  %0 = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.max %0 dims [1] : tensor<?x64xf32>
  %2 = sinter.min %0 dims [1] : tensor<?x64xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Must not fire: softmax(x * c) needs the product elementwise, and its sum of
// exp(x * c - max(x * c)) pairs with the max of its own input (one pass of
// online softmax states).
// CHECK-LABEL: func.func @scaled_softmax_keeps_max
//       CHECK:   %[[P:.*]] = sinter.mul
//       CHECK:   %[[M:.*]] = sinter.max %[[P]] dims [1] keepdim
//       CHECK:   sinter.sub %[[P]], %[[M]]
func.func @scaled_softmax_keeps_max(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c = sinter.constant dense<0.125> : tensor<f32>
  %0 = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.max %0 dims [1] keepdim : tensor<?x64xf32>
  %2 = sinter.sub %0, %1 : tensor<?x64xf32>, tensor<?x1xf32>
  %3 = sinter.exp %2 : tensor<?x64xf32>
  %4 = sinter.sum %3 dims [1] keepdim : tensor<?x64xf32>
  %5 = sinter.div %3, %4 : tensor<?x64xf32>, tensor<?x1xf32>
  return %5 : tensor<?x64xf32>
}

// -----

// Must not fire: a negative factor swaps max and min.
// CHECK-LABEL: func.func @negative_scale_out_of_max
//       CHECK:   %[[P:.*]] = sinter.mul
//       CHECK:   sinter.max %[[P]] dims [1]
func.func @negative_scale_out_of_max(%x: tensor<?x64xf32>) -> tensor<?xf32> {
  %c = sinter.constant dense<-2.5> : tensor<f32>
  %0 = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.max %0 dims [1] : tensor<?x64xf32>
  return %1 : tensor<?xf32>
}

// -----

// Reductions over size-1 dims vanish: with keepdim (folder) they are x;
// without, a reshape; a size-1 dim drops out of a longer dim list.
// CHECK-LABEL: func.func @unit_reductions
//  CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<4x1x8xf32>)
//       CHECK:   %[[A:.*]] = sinter.reshape %[[X]] : tensor<?x1xf32> -> tensor<?xf32>
//       CHECK:   %[[B:.*]] = sinter.sum %[[Y]] dims [2] keepdim : tensor<4x1x8xf32>
//       CHECK:   %[[P:.*]] = sinter.prod %[[Y]] dims [2] : tensor<4x1x8xf32>
//       CHECK:   %[[C:.*]] = sinter.reshape %[[P]] : tensor<4x1xf32> -> tensor<4xf32>
//       CHECK:   return %[[X]], %[[A]], %[[A]], %[[B]], %[[C]]
func.func @unit_reductions(%x: tensor<?x1xf32>, %y: tensor<4x1x8xf32>) -> (tensor<?x1xf32>, tensor<?xf32>, tensor<?xf32>, tensor<4x1x1xf32>, tensor<4xf32>) {
  %0 = sinter.max %x dims [1] keepdim : tensor<?x1xf32>
  %1 = sinter.mean %x dims [1] : tensor<?x1xf32>
  %2 = sinter.logsumexp %x dims [1] : tensor<?x1xf32>
  %3 = sinter.sum %y dims [1, 2] keepdim : tensor<4x1x8xf32>
  %4 = sinter.prod %y dims [1, 2] : tensor<4x1x8xf32>
  return %0, %1, %2, %3, %4 : tensor<?x1xf32>, tensor<?xf32>, tensor<?xf32>, tensor<4x1x1xf32>, tensor<4xf32>
}

// -----

// Must not fire: a reshape cannot produce two dynamic dims.
// CHECK-LABEL: func.func @unit_reduction_two_dynamic
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<?x1x?xf32>
func.func @unit_reduction_two_dynamic(%x: tensor<?x1x?xf32>) -> tensor<?x?xf32> {
  %0 = sinter.sum %x dims [1] : tensor<?x1x?xf32>
  return %0 : tensor<?x?xf32>
}

//===----------------------------------------------------------------------===//
// Transposes
//===----------------------------------------------------------------------===//

// -----

// transpose(transpose(x, p), q) = transpose(x, p o q); the identity folds.
// CHECK-LABEL: func.func @compose_transposes
//  CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
//       CHECK:   %[[T:.*]] = sinter.transpose %[[X]] perm [1, 0, 2] : tensor<2x3x4xf32>
//       CHECK:   return %[[X]], %[[T]]
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x2x4xf32>) {
  %0 = sinter.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>
  %1 = sinter.transpose %0 perm [1, 2, 0] : tensor<4x2x3xf32>
  %2 = sinter.transpose %0 perm [2, 1, 0] : tensor<4x2x3xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<3x2x4xf32>
}

// -----

// transpose(A) @ B = A @ B with transpose_a flipped; a batched rhs whose
// last two dims are swapped becomes transpose_b.
// CHECK-LABEL: func.func @transpose_into_matmul
//  CHECK-SAME: (%[[A:.*]]: tensor<64x8xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[X:.*]]: tensor<2x8x64xf32>, %[[V:.*]]: tensor<2x32x64xf32>, %[[Y:.*]]: tensor<4x8x64xf32>, %[[U:.*]]: tensor<4x4x64xf32>)
//       CHECK:   %[[R0:.*]] = sinter.matmul %[[A]], %[[W]] transpose_a transpose_b : tensor<64x8xf32>, tensor<32x64xf32>
//       CHECK:   %[[R1:.*]] = sinter.matmul %[[X]], %[[V]] transpose_b : tensor<2x8x64xf32>, tensor<2x32x64xf32>
//       CHECK:   %[[T:.*]] = sinter.transpose %[[U]] perm [1, 0, 2]
//       CHECK:   %[[R2:.*]] = sinter.matmul %[[Y]], %[[T]] transpose_b
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]]
func.func @transpose_into_matmul(%a: tensor<64x8xf32>, %w: tensor<32x64xf32>, %x: tensor<2x8x64xf32>, %v: tensor<2x32x64xf32>, %y: tensor<4x8x64xf32>, %u: tensor<4x4x64xf32>) -> (tensor<8x32xf32>, tensor<2x8x32xf32>, tensor<4x8x4xf32>) {
  %at = sinter.transpose %a perm [1, 0] : tensor<64x8xf32>
  %0 = sinter.matmul %at, %w transpose_b : tensor<8x64xf32>, tensor<32x64xf32>
  %vt = sinter.transpose %v perm [0, 2, 1] : tensor<2x32x64xf32>
  %1 = sinter.matmul %x, %vt : tensor<2x8x64xf32>, tensor<2x64x32xf32>
  // Must not fold: this transpose moves the batch dim.
  %ub = sinter.transpose %u perm [1, 0, 2] : tensor<4x4x64xf32>
  %2 = sinter.matmul %y, %ub transpose_b : tensor<4x8x64xf32>, tensor<4x4x64xf32>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<2x8x32xf32>, tensor<4x8x4xf32>
}

//===----------------------------------------------------------------------===//
// Matmul followed by a reduction
//===----------------------------------------------------------------------===//

// -----

// sum_n (x @ W^T)[m, n] = x @ colsum(W)^T, keepdim and not.
// CHECK-LABEL: func.func @matvec_rows
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[V:.*]]: tensor<64x32xf32>)
//       CHECK:   %[[WS:.*]] = sinter.sum %[[W]] dims [0] keepdim : tensor<32x64xf32>
//       CHECK:   %[[A:.*]] = sinter.matmul %[[X]], %[[WS]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
//       CHECK:   %[[VS:.*]] = sinter.sum %[[V]] dims [1] keepdim : tensor<64x32xf32>
//       CHECK:   %[[P:.*]] = sinter.matmul %[[X]], %[[VS]] : tensor<?x64xf32>, tensor<64x1xf32>
//       CHECK:   %[[B:.*]] = sinter.reshape %[[P]] : tensor<?x1xf32> -> tensor<?xf32>
//       CHECK:   return %[[A]], %[[B]]
func.func @matvec_rows(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %v: tensor<64x32xf32>) -> (tensor<?x1xf32>, tensor<?xf32>) {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.sum %0 dims [1] keepdim : tensor<?x32xf32>
  %2 = sinter.matmul %x, %v : tensor<?x64xf32>, tensor<64x32xf32>
  %3 = sinter.sum %2 dims [1] : tensor<?x32xf32>
  return %1, %3 : tensor<?x1xf32>, tensor<?xf32>
}

// -----

// mean_n (x @ W^T) = x @ mean_n(W)^T; over M, sum_m (A @ B) = colsum(A) @ B
// (with transpose_a the rows of A are its dim 1).
// CHECK-LABEL: func.func @matvec_mean_and_columns
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[A:.*]]: tensor<64x8xf32>)
//       CHECK:   %[[WM:.*]] = sinter.mean %[[W]] dims [0] keepdim
//       CHECK:   %[[R0:.*]] = sinter.matmul %[[X]], %[[WM]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
//       CHECK:   %[[XS:.*]] = sinter.sum %[[X]] dims [0] keepdim : tensor<?x64xf32>
//       CHECK:   %[[R1:.*]] = sinter.matmul %[[XS]], %[[W]] transpose_b : tensor<1x64xf32>, tensor<32x64xf32>
//       CHECK:   %[[AS:.*]] = sinter.sum %[[A]] dims [1] keepdim : tensor<64x8xf32>
//       CHECK:   %[[R2:.*]] = sinter.matmul %[[AS]], %[[W]] transpose_a transpose_b : tensor<64x1xf32>, tensor<32x64xf32>
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]]
func.func @matvec_mean_and_columns(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %a: tensor<64x8xf32>) -> (tensor<?x1xf32>, tensor<1x32xf32>, tensor<1x32xf32>) {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.mean %0 dims [1] keepdim : tensor<?x32xf32>
  %2 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %3 = sinter.sum %2 dims [0] keepdim : tensor<?x32xf32>
  %4 = sinter.matmul %a, %w transpose_a transpose_b : tensor<64x8xf32>, tensor<32x64xf32>
  %5 = sinter.sum %4 dims [0] keepdim : tensor<8x32xf32>
  return %1, %3, %5 : tensor<?x1xf32>, tensor<1x32xf32>, tensor<1x32xf32>
}

// -----

// A batched matmul reduced over its N dim: the batched rhs is reduced
// (with keepdim, several dynamic dims need no reshape); over M, the lhs.
// CHECK-LABEL: func.func @matvec_batched
//  CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>, %[[W:.*]]: tensor<?x64x32xf32>, %[[Y:.*]]: tensor<2x4x64xf32>, %[[V:.*]]: tensor<64x32xf32>)
//       CHECK:   %[[WS:.*]] = sinter.sum %[[W]] dims [2] keepdim : tensor<?x64x32xf32>
//       CHECK:   %[[R0:.*]] = sinter.matmul %[[X]], %[[WS]] : tensor<?x?x64xf32>, tensor<?x64x1xf32>
//       CHECK:   %[[YS:.*]] = sinter.mean %[[Y]] dims [1] keepdim : tensor<2x4x64xf32>
//       CHECK:   %[[P:.*]] = sinter.matmul %[[YS]], %[[V]] : tensor<2x1x64xf32>, tensor<64x32xf32>
//       CHECK:   %[[R1:.*]] = sinter.reshape %[[P]] : tensor<2x1x32xf32> -> tensor<2x32xf32>
//       CHECK:   return %[[R0]], %[[R1]]
func.func @matvec_batched(%x: tensor<?x?x64xf32>, %w: tensor<?x64x32xf32>, %y: tensor<2x4x64xf32>, %v: tensor<64x32xf32>) -> (tensor<?x?x1xf32>, tensor<2x32xf32>) {
  %0 = sinter.matmul %x, %w : tensor<?x?x64xf32>, tensor<?x64x32xf32>
  %1 = sinter.sum %0 dims [2] keepdim : tensor<?x?x32xf32>
  %2 = sinter.matmul %y, %v : tensor<2x4x64xf32>, tensor<64x32xf32>
  %3 = sinter.mean %2 dims [1] : tensor<2x4x32xf32>
  return %1, %3 : tensor<?x?x1xf32>, tensor<2x32xf32>
}

// -----

// Must not fire: the matmul has another use (the GEMM stays anyway), the
// reduction is over the batch dim, or over both M and N at once.
// CHECK-LABEL: func.func @matvec_not
//       CHECK:   %[[P:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
//       CHECK:   sinter.sum %[[P]] dims [1] keepdim
//       CHECK:   %[[Q:.*]] = sinter.matmul %{{.*}}, %{{.*}} : tensor<?x4x64xf32>, tensor<64x32xf32>
//       CHECK:   sinter.sum %[[Q]] dims [0]
//       CHECK:   %[[R:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
//       CHECK:   sinter.sum %[[R]] dims [0, 1]
func.func @matvec_not(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %y: tensor<?x4x64xf32>, %v: tensor<64x32xf32>, %u: tensor<32x64xf32>) -> (tensor<?x1xf32>, tensor<?x32xf32>, tensor<4x32xf32>, tensor<f32>) {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.sum %0 dims [1] keepdim : tensor<?x32xf32>
  %2 = sinter.matmul %y, %v : tensor<?x4x64xf32>, tensor<64x32xf32>
  %3 = sinter.sum %2 dims [0] : tensor<?x4x32xf32>
  %4 = sinter.matmul %x, %u transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %5 = sinter.sum %4 dims [0, 1] : tensor<?x32xf32>
  return %1, %0, %3, %5 : tensor<?x1xf32>, tensor<?x32xf32>, tensor<4x32xf32>, tensor<f32>
}

// -----

// sum(x @ W^T + b, dim=1) = x @ colsum(W)^T + sum(b); over M with static M,
// sum_m (A @ B + b) = colsum(A) @ B + M * b; mean divides by the count.
// CHECK-LABEL: func.func @matvec_bias
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<32xf32>, %[[Y:.*]]: tensor<4x64xf32>)
//   CHECK-DAG:   %[[FOUR:.*]] = sinter.constant dense<4.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[BS:.*]] = sinter.sum %[[B]] dims [0] keepdim : tensor<32xf32>
//   CHECK-DAG:   %[[WS:.*]] = sinter.sum %[[W]] dims [0] keepdim
//   CHECK-DAG:   %[[MV:.*]] = sinter.matmul %[[X]], %[[WS]] transpose_b
//   CHECK-DAG:   %[[R0:.*]] = sinter.add %[[MV]], %[[BS]] : tensor<?x1xf32>, tensor<1xf32>
//   CHECK-DAG:   %[[B4:.*]] = sinter.mul %[[B]], %[[FOUR]] : tensor<32xf32>, tensor<f32>
//   CHECK-DAG:   %[[YS:.*]] = sinter.sum %[[Y]] dims [0] keepdim
//   CHECK-DAG:   %[[VM:.*]] = sinter.matmul %[[YS]], %[[W]] transpose_b : tensor<1x64xf32>, tensor<32x64xf32>
//   CHECK-DAG:   %[[R1:.*]] = sinter.add %[[B4]], %[[VM]] : tensor<32xf32>, tensor<1x32xf32>
//   CHECK-DAG:   %[[BM:.*]] = sinter.mean %[[B]] dims [0] keepdim : tensor<32xf32>
//   CHECK-DAG:   %[[BMS:.*]] = sinter.reshape %[[BM]] : tensor<1xf32> -> tensor<f32>
//   CHECK-DAG:   %[[WM:.*]] = sinter.mean %[[W]] dims [0] keepdim
//   CHECK-DAG:   %[[MM:.*]] = sinter.matmul %[[X]], %[[WM]] transpose_b
//   CHECK-DAG:   %[[MMS:.*]] = sinter.reshape %[[MM]] : tensor<?x1xf32> -> tensor<?xf32>
//   CHECK-DAG:   %[[R2:.*]] = sinter.sub %[[MMS]], %[[BMS]] : tensor<?xf32>, tensor<f32>
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]]
func.func @matvec_bias(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>, %y: tensor<4x64xf32>) -> (tensor<?x1xf32>, tensor<1x32xf32>, tensor<?xf32>) {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.add %0, %b : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.sum %1 dims [1] keepdim : tensor<?x32xf32>
  %3 = sinter.matmul %y, %w transpose_b : tensor<4x64xf32>, tensor<32x64xf32>
  %4 = sinter.add %b, %3 : tensor<32xf32>, tensor<4x32xf32>
  %5 = sinter.sum %4 dims [0] keepdim : tensor<4x32xf32>
  %6 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %7 = sinter.sub %6, %b : tensor<?x32xf32>, tensor<32xf32>
  %8 = sinter.mean %7 dims [1] : tensor<?x32xf32>
  return %2, %5, %8 : tensor<?x1xf32>, tensor<1x32xf32>, tensor<?xf32>
}

// -----

// Must not fire: over a dynamic M a broadcast bias would be multiplied by a
// count known at run time only; a bias that is not along N only (varies
// along M) is summed as is, which needs its full shape.
// CHECK-LABEL: func.func @matvec_bias_not
//       CHECK:   %[[P:.*]] = sinter.matmul
//       CHECK:   %[[S:.*]] = sinter.add %[[P]]
//       CHECK:   sinter.sum %[[S]] dims [0] keepdim
func.func @matvec_bias_not(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<1x32xf32> {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.add %0, %b : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.sum %1 dims [0] keepdim : tensor<?x32xf32>
  return %2 : tensor<1x32xf32>
}

//===----------------------------------------------------------------------===//
// Scalars through matmuls; scales into weights
//===----------------------------------------------------------------------===//

// -----

// (c * x) @ W = (x @ W) * c and x @ (c * W) = (x @ W) * c when W is not a
// param: the factor moves to the product, where a GEMM epilogue applies it;
// both forms are then one value.
// CHECK-LABEL: func.func @scalar_out_of_matmul
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[C:.*]]: tensor<f32>)
//       CHECK:   %[[P:.*]] = sinter.matmul %[[X]], %[[W]] transpose_b
//       CHECK:   %[[R:.*]] = sinter.mul %[[P]], %[[C]] : tensor<?x32xf32>, tensor<f32>
//       CHECK:   return %[[R]], %[[R]]
func.func @scalar_out_of_matmul(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %c: tensor<f32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %0 = sinter.mul %x, %c : tensor<?x64xf32>, tensor<f32>
  %1 = sinter.matmul %0, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %2 = sinter.mul %c, %w : tensor<f32>, tensor<32x64xf32>
  %3 = sinter.matmul %x, %2 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  return %1, %3 : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// (x @ W^T) * s = x @ (W * s[:, None])^T for param W and s, per column or
// scalar; with W not transposed, W * s scales its columns.
// CHECK-LABEL: func.func @scale_into_weights
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[S:.*]]: tensor<32xf32> {{.*}}, %[[V:.*]]: tensor<64x32xf32> {{.*}})
//   CHECK-DAG:   %[[C:.*]] = sinter.constant dense<3.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[SC:.*]] = sinter.reshape %[[S]] : tensor<32xf32> -> tensor<32x1xf32>
//   CHECK-DAG:   %[[WS:.*]] = sinter.mul %[[W]], %[[SC]] : tensor<32x64xf32>, tensor<32x1xf32>
//   CHECK-DAG:   %[[R0:.*]] = sinter.matmul %[[X]], %[[WS]] transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
//   CHECK-DAG:   %[[VS:.*]] = sinter.mul %[[V]], %[[S]] : tensor<64x32xf32>, tensor<32xf32>
//   CHECK-DAG:   %[[R1:.*]] = sinter.matmul %[[X]], %[[VS]] : tensor<?x64xf32>, tensor<64x32xf32>
//   CHECK-DAG:   %[[WC:.*]] = sinter.mul %[[W]], %[[C]] : tensor<32x64xf32>, tensor<f32>
//   CHECK-DAG:   %[[R2:.*]] = sinter.matmul %[[X]], %[[WC]] transpose_b
//       CHECK:   return %[[R0]], %[[R1]], %[[R2]]
func.func @scale_into_weights(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %s: tensor<32xf32> {sinter.role = "param"}, %v: tensor<64x32xf32> {sinter.role = "param"}) -> (tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>) {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.mul %0, %s : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.matmul %x, %v : tensor<?x64xf32>, tensor<64x32xf32>
  %3 = sinter.mul %s, %2 : tensor<32xf32>, tensor<?x32xf32>
  %c = sinter.constant dense<3.0> : tensor<f32>
  %4 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %5 = sinter.mul %4, %c : tensor<?x32xf32>, tensor<f32>
  return %1, %3, %5 : tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Must not fire: the scale is an input; it varies along M; W is an input;
// the product has another use.
// CHECK-LABEL: func.func @scale_into_weights_not
//  CHECK-SAME: (%[[X0:[^:]*]]: tensor<4x64xf32>, %[[X1:[^:]*]]: tensor<4x64xf32>, %[[X2:[^:]*]]: tensor<4x64xf32>, %[[X3:[^:]*]]: tensor<4x64xf32>,
//       CHECK:   %[[P0:.*]] = sinter.matmul %[[X0]]
//       CHECK:   sinter.mul %[[P0]], %{{.*}} : tensor<4x32xf32>, tensor<32xf32>
//       CHECK:   %[[P1:.*]] = sinter.matmul %[[X1]]
//       CHECK:   sinter.mul %[[P1]], %{{.*}} : tensor<4x32xf32>, tensor<4x1xf32>
//       CHECK:   %[[P2:.*]] = sinter.matmul %[[X2]]
//       CHECK:   sinter.mul %[[P2]], %{{.*}} : tensor<4x32xf32>, tensor<32xf32>
//       CHECK:   %[[P3:.*]] = sinter.matmul %[[X3]]
//       CHECK:   sinter.mul %[[P3]], %{{.*}} : tensor<4x32xf32>, tensor<32xf32>
//       CHECK:   return {{.*}}, %[[P3]]
func.func @scale_into_weights_not(%x0: tensor<4x64xf32>, %x1: tensor<4x64xf32>, %x2: tensor<4x64xf32>, %x3: tensor<4x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %s: tensor<32xf32> {sinter.role = "param"}, %t: tensor<4x1xf32> {sinter.role = "param"}, %u: tensor<32xf32>, %v: tensor<32x64xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %0 = sinter.matmul %x0, %w transpose_b : tensor<4x64xf32>, tensor<32x64xf32>
  %1 = sinter.mul %0, %u : tensor<4x32xf32>, tensor<32xf32>
  %2 = sinter.matmul %x1, %w transpose_b : tensor<4x64xf32>, tensor<32x64xf32>
  %3 = sinter.mul %2, %t : tensor<4x32xf32>, tensor<4x1xf32>
  %4 = sinter.matmul %x2, %v transpose_b : tensor<4x64xf32>, tensor<32x64xf32>
  %5 = sinter.mul %4, %s : tensor<4x32xf32>, tensor<32xf32>
  %6 = sinter.matmul %x3, %w transpose_b : tensor<4x64xf32>, tensor<32x64xf32>
  %7 = sinter.mul %6, %s : tensor<4x32xf32>, tensor<32xf32>
  return %1, %3, %5, %7, %6 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// (x @ W^T + b) * s + t = x @ (W * s[:, None])^T + (b * s + t): a
// per-channel scale and shift after a linear fold into its weight and bias.
// CHECK-LABEL: func.func @scale_shift_after_linear
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[S:.*]]: tensor<32xf32> {{.*}}, %[[T:.*]]: tensor<32xf32> {{.*}})
//   CHECK-DAG:   %[[SC:.*]] = sinter.reshape %[[S]] : tensor<32xf32> -> tensor<32x1xf32>
//   CHECK-DAG:   %[[WS:.*]] = sinter.mul %[[W]], %[[SC]]
//   CHECK-DAG:   %[[P:.*]] = sinter.matmul %[[X]], %[[WS]] transpose_b
//   CHECK-DAG:   %[[BS:.*]] = sinter.mul %[[B]], %[[S]] : tensor<32xf32>, tensor<32xf32>
//   CHECK-DAG:   %[[BT:.*]] = sinter.add %[[BS]], %[[T]] : tensor<32xf32>, tensor<32xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[P]], %[[BT]] : tensor<?x32xf32>, tensor<32xf32>
//       CHECK:   return %[[R]]
func.func @scale_shift_after_linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %s: tensor<32xf32> {sinter.role = "param"}, %t: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.add %0, %b : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.mul %1, %s : tensor<?x32xf32>, tensor<32xf32>
  %3 = sinter.add %2, %t : tensor<?x32xf32>, tensor<32xf32>
  return %3 : tensor<?x32xf32>
}

// -----

// Inference batch_norm after a linear, as sinter-decompose leaves it
// (x * a + shift, a and shift param-only), folds into the weight and bias.
// CHECK-LABEL: func.func @batch_norm_after_linear
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[A:.*]]: tensor<32xf32> {{.*}}, %[[T:.*]]: tensor<32xf32> {{.*}})
//       CHECK:   %[[AC:.*]] = sinter.reshape %[[A]] : tensor<32xf32> -> tensor<32x1xf32>
//       CHECK:   %[[WA:.*]] = sinter.mul %[[W]], %[[AC]]
//       CHECK:   %[[P:.*]] = sinter.matmul %[[X]], %[[WA]] transpose_b
//       CHECK:   %[[BA:.*]] = sinter.mul %[[B]], %[[A]]
//       CHECK:   %[[BT:.*]] = sinter.add %[[BA]], %[[T]]
//       CHECK:   %[[R:.*]] = sinter.add %[[P]], %[[BT]]
//       CHECK:   return %[[R]]
func.func @batch_norm_after_linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %a: tensor<32xf32> {sinter.role = "param"}, %t: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.add %0, %b : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.mul %1, %a : tensor<?x32xf32>, tensor<32xf32>
  %3 = sinter.add %2, %t : tensor<?x32xf32>, tensor<32xf32>
  return %3 : tensor<?x32xf32>
}

//===----------------------------------------------------------------------===//
// CSE
//===----------------------------------------------------------------------===//

// -----

// Two equal means become one after CSE, and then x - mean - (x - mean) is
// zero (static shape).
// CHECK-LABEL: func.func @cse_then_zero
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[Z:.*]] = sinter.constant dense<0.000000e+00> : tensor<4x8xf32>
//       CHECK:   %[[M:.*]] = sinter.mean %[[X]] dims [1] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[M]]
//       CHECK:   return %[[D]], %[[Z]]
func.func @cse_then_zero(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %m0 = sinter.mean %x dims [1] keepdim : tensor<4x8xf32>
  %m1 = sinter.mean %x dims [1] keepdim : tensor<4x8xf32>
  %d0 = sinter.sub %x, %m0 : tensor<4x8xf32>, tensor<4x1xf32>
  %d1 = sinter.sub %x, %m1 : tensor<4x8xf32>, tensor<4x1xf32>
  %z = sinter.sub %d0, %d1 : tensor<4x8xf32>, tensor<4x8xf32>
  return %d0, %z : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x - mean(x, [0], keepdim) beside mean(x, [0]): the centering shares the
// mean without keepdim, which broadcasts along the rows the same way.
// CHECK-LABEL: func.func @share_kept_mean
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[M:.*]] = sinter.mean %[[X]] dims [0] : tensor<?x64xf32>
//   CHECK-NOT:   sinter.mean
//       CHECK:   %[[C:.*]] = sinter.sub %[[X]], %[[M]] : tensor<?x64xf32>, tensor<64xf32>
//       CHECK:   return %[[C]], %[[M]]
func.func @share_kept_mean(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<64xf32>) {
  %k = sinter.mean %x dims [0] keepdim : tensor<?x64xf32>
  %c = sinter.sub %x, %k : tensor<?x64xf32>, tensor<1x64xf32>
  %m = sinter.mean %x dims [0] : tensor<?x64xf32>
  return %c, %m : tensor<?x64xf32>, tensor<64xf32>
}

// -----

// Not shared: a keepdim max over a trailing dim (its size-1 dim is not
// leading), and a keepdim sum whose user is unary (exp would change rank).
// CHECK-LABEL: func.func @share_kept_not
//   CHECK-COUNT-2:   sinter.max
//   CHECK-COUNT-2:   sinter.sum
func.func @share_kept_not(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>, tensor<1x64xf32>, tensor<64xf32>) {
  %k = sinter.max %x dims [1] keepdim : tensor<8x64xf32>
  %c = sinter.sub %x, %k : tensor<8x64xf32>, tensor<8x1xf32>
  %m = sinter.max %x dims [1] : tensor<8x64xf32>
  %s = sinter.sum %x dims [0] keepdim : tensor<8x64xf32>
  %e = sinter.exp %s : tensor<1x64xf32>
  %t = sinter.sum %x dims [0] : tensor<8x64xf32>
  return %c, %m, %e, %t : tensor<8x64xf32>, tensor<8xf32>, tensor<1x64xf32>, tensor<64xf32>
}
