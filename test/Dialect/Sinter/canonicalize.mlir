// Folders of the sinter dialect, through -canonicalize.
// RUN: sinter-opt %s --canonicalize --split-input-file | FileCheck %s

// x + (-0) is x for every x; x + (+0) is not (-0 + +0 = +0), so it stays.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[ZERO:.*]] = sinter.constant dense<0.000000e+00>
// CHECK-NEXT: %[[A:.*]] = sinter.add %[[X]], %[[ZERO]]
// CHECK-NEXT: %[[B:.*]] = sinter.add %[[X]], %[[ZERO]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[A]], %[[B]]
func.func @add_zero(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %nzero = sinter.constant dense<-0.0> : tensor<f32>
  %0 = sinter.add %x, %nzero : tensor<?x8xf32>, tensor<f32>
  %1 = sinter.add %nzero, %x : tensor<f32>, tensor<?x8xf32>
  %zero = sinter.constant dense<0.0> : tensor<f32>
  %2 = sinter.add %x, %zero : tensor<?x8xf32>, tensor<f32>
  %3 = sinter.add %zero, %x : tensor<f32>, tensor<?x8xf32>
  return %0, %1, %2, %3 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @sub_zero(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %zero = sinter.constant dense<0.0> : tensor<8xf32>
  %0 = sinter.sub %x, %zero : tensor<?x8xf32>, tensor<8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %one = sinter.constant dense<1.0> : tensor<f32>
  %0 = sinter.mul %x, %one : tensor<?x8xf32>, tensor<f32>
  %1 = sinter.mul %one, %x : tensor<f32>, tensor<?x8xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @div_one(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %one = sinter.constant dense<1.0> : tensor<f32>
  %0 = sinter.div %x, %one : tensor<?x8xf32>, tensor<f32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @pow_one(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %one = sinter.constant dense<1.0> : tensor<f32>
  %0 = sinter.pow %x, %one : tensor<?x8xf32>, tensor<f32>
  return %0 : tensor<?x8xf32>
}

// -----

// An identity that would broadcast its other operand to a larger shape
// does not fold: the op still produces the larger tensor.
// CHECK-LABEL: func.func @mul_one_broadcasts
// CHECK: %[[R:.*]] = sinter.mul
// CHECK-NEXT: return %[[R]]
func.func @mul_one_broadcasts(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %one = sinter.constant dense<1.0> : tensor<4x8xf32>
  %0 = sinter.mul %x, %one : tensor<8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Not an identity: x * 2 and x + 1 stay.
// CHECK-LABEL: func.func @not_identities
// CHECK: sinter.mul
// CHECK: sinter.add
// CHECK: sinter.div
func.func @not_identities(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %two = sinter.constant dense<2.0> : tensor<f32>
  %one = sinter.constant dense<1.0> : tensor<f32>
  %0 = sinter.mul %x, %two : tensor<8xf32>, tensor<f32>
  %1 = sinter.add %x, %one : tensor<8xf32>, tensor<f32>
  %2 = sinter.div %one, %x : tensor<f32>, tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Splat constants fold in the element type's arithmetic.
// CHECK-LABEL: func.func @constant_arithmetic
// CHECK-DAG: %[[A:.*]] = sinter.constant dense<7.500000e-01> : tensor<f32>
// CHECK-DAG: %[[B:.*]] = sinter.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: %[[C:.*]] = sinter.constant dense<-5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[D:.*]] = sinter.constant dense<1.500000e+00> : tensor<f32>
// CHECK-DAG: %[[E:.*]] = sinter.constant dense<2.000000e+00> : tensor<f32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @constant_arithmetic() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = sinter.constant dense<1.5> : tensor<f32>
  %b = sinter.constant dense<2.0> : tensor<f32>
  %half = sinter.constant dense<0.5> : tensor<f32>
  %0 = sinter.mul %a, %half : tensor<f32>, tensor<f32>
  %1 = sinter.div %a, %half : tensor<f32>, tensor<f32>
  %2 = sinter.sub %a, %b : tensor<f32>, tensor<f32>
  %3 = sinter.minimum %a, %b : tensor<f32>, tensor<f32>
  %4 = sinter.maximum %b, %a : tensor<f32>, tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sinter.neg %x : tensor<4xf32>
  %1 = sinter.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A single negation stays.
// CHECK-LABEL: func.func @neg_once
// CHECK: sinter.neg
func.func @neg_once(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sinter.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = sinter.relu %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sinter.relu %x : tensor<4xf32>
  %1 = sinter.relu %0 : tensor<4xf32>
  %2 = sinter.relu %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_of_neg_and_abs
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = sinter.abs %[[X]]
// CHECK-NEXT: return %[[A]]
func.func @abs_of_neg_and_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = sinter.neg %x : tensor<4xf32>
  %1 = sinter.abs %0 : tensor<4xf32>
  %2 = sinter.abs %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// max, min and prod of one element are that element, signed zeros included;
// sum, mean and logsumexp compute 0 + x, which turns -0 into +0, so only
// sinter-simplify drops them, in fast mode.
// CHECK-LABEL: func.func @unit_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>)
// CHECK-NEXT: %[[SUM:.*]] = sinter.sum %[[X]]
// CHECK-NEXT: %[[MEAN:.*]] = sinter.mean %[[X]]
// CHECK-NEXT: %[[LSE:.*]] = sinter.logsumexp %[[X]]
// CHECK-NEXT: return %[[SUM]], %[[MEAN]], %[[X]], %[[X]], %[[X]], %[[LSE]]
func.func @unit_reductions(%x: tensor<?x1xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %0 = sinter.sum %x dims [1] keepdim : tensor<?x1xf32>
  %1 = sinter.mean %x dims [1] keepdim : tensor<?x1xf32>
  %2 = sinter.max %x dims [1] keepdim : tensor<?x1xf32>
  %3 = sinter.min %x dims [1] keepdim : tensor<?x1xf32>
  %4 = sinter.prod %x dims [1] keepdim : tensor<?x1xf32>
  %5 = sinter.logsumexp %x dims [1] keepdim : tensor<?x1xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// Reductions over a dim that is not statically 1, or over the dynamic batch
// dim, stay.
// CHECK-LABEL: func.func @reductions_stay
// CHECK: sinter.sum %{{.*}} dims [0] keepdim
// CHECK: sinter.mean %{{.*}} dims [0, 1] keepdim
func.func @reductions_stay(%x: tensor<?x1xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>) {
  %0 = sinter.sum %x dims [0] keepdim : tensor<?x1xf32>
  %1 = sinter.mean %x dims [0, 1] keepdim : tensor<?x1xf32>
  return %0, %1 : tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @identity_transpose_and_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = sinter.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: return %[[X]], %[[R]]
func.func @identity_transpose_and_reshape(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<32xf32>) {
  %0 = sinter.transpose %x perm [0, 1] : tensor<4x8xf32>
  %1 = sinter.reshape %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = sinter.reshape %1 : tensor<4x8xf32> -> tensor<2x16xf32>
  %3 = sinter.reshape %2 : tensor<2x16xf32> -> tensor<32xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<32xf32>
}

// -----

// A fill of a static shape is a constant.
// CHECK-LABEL: func.func @fill_static
//       CHECK:   %[[C:.*]] = sinter.constant dense<2.500000e+00> : tensor<4x3xf32>
//       CHECK:   return %[[C]]
func.func @fill_static(%x: tensor<?x8xf32>) -> tensor<4x3xf32> {
  %0 = sinter.fill 2.5 dims [] of %x : tensor<?x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
