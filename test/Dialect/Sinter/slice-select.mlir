// sinter.compare, sinter.select, sinter.slice and sinter.concat: the textual
// form round-trips with inferred result types, and the folders remove what
// undoes itself (one-line algebra comments beside each fold in
// ElementwiseOps.cpp / ShapeOps.cpp).
// RUN: sinter-opt %s --split-input-file | sinter-opt | FileCheck %s --check-prefix=ROUND
// RUN: sinter-opt %s --canonicalize --split-input-file | FileCheck %s

// ROUND-LABEL: func.func @round_trip
// ROUND: sinter.compare ge, %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<f32>
// ROUND: sinter.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>
// ROUND: sinter.slice %{{.*}} dim 1 start 2 end 6 : tensor<?x8xf32>
// ROUND: sinter.concat %{{.*}}, %{{.*}} dim 1 : tensor<?x4xf32>, tensor<?x8xf32>
func.func @round_trip(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x12xf32> {
  %zero = sinter.constant dense<0.0> : tensor<f32>
  %m = sinter.compare ge, %x, %zero : tensor<?x8xf32>, tensor<f32>
  %s = sinter.select %m, %x, %b : tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>
  %p = sinter.slice %s dim 1 start 2 end 6 : tensor<?x8xf32>
  %c = sinter.concat %p, %x dim 1 : tensor<?x4xf32>, tensor<?x8xf32>
  return %c : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full_range
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @slice_full_range(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = sinter.slice %x dim 1 start 0 end 8 : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @slice_of_slice
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>)
// CHECK-NEXT: %[[S:.*]] = sinter.slice %[[X]] dim 1 start 5 end 7
// CHECK-NEXT: return %[[S]]
func.func @slice_of_slice(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %0 = sinter.slice %x dim 1 start 4 end 12 : tensor<?x16xf32>
  %1 = sinter.slice %0 dim 1 start 1 end 3 : tensor<?x8xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Slices of other dims compose as they are.
// CHECK-LABEL: func.func @slice_of_slice_other_dim
// CHECK: sinter.slice %{{.*}} dim 0 start 1 end 3
// CHECK: sinter.slice %{{.*}} dim 1 start 1 end 3
func.func @slice_of_slice_other_dim(%x: tensor<4x16xf32>) -> tensor<2x2xf32> {
  %0 = sinter.slice %x dim 0 start 1 end 3 : tensor<4x16xf32>
  %1 = sinter.slice %0 dim 1 start 1 end 3 : tensor<2x16xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat_then_slice_back
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[S:.*]] = sinter.slice %[[B]] dim 1 start 1 end 3
// CHECK-NEXT: return %[[B]], %[[S]]
func.func @concat_then_slice_back(%a: tensor<?x4xf32>, %b: tensor<?x8xf32>)
    -> (tensor<?x8xf32>, tensor<?x2xf32>) {
  %c = sinter.concat %a, %b dim 1 : tensor<?x4xf32>, tensor<?x8xf32>
  %0 = sinter.slice %c dim 1 start 4 end 12 : tensor<?x12xf32>
  %1 = sinter.slice %c dim 1 start 5 end 7 : tensor<?x12xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x2xf32>
}

// -----

// A slice across the boundary of two inputs stays.
// CHECK-LABEL: func.func @slice_across_inputs
// CHECK: sinter.concat
// CHECK: sinter.slice %{{.*}} dim 1 start 3 end 6
func.func @slice_across_inputs(%a: tensor<?x4xf32>, %b: tensor<?x8xf32>) -> tensor<?x3xf32> {
  %c = sinter.concat %a, %b dim 1 : tensor<?x4xf32>, tensor<?x8xf32>
  %0 = sinter.slice %c dim 1 start 3 end 6 : tensor<?x12xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_one
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[A]]
func.func @concat_one(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = sinter.concat %a dim 1 : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @select_folds
// CHECK-SAME: (%[[M:.*]]: tensor<?x8xf32>, %[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: return %[[A]], %[[B]], %[[A]]
func.func @select_folds(%m: tensor<?x8xf32>, %a: tensor<?x8xf32>, %b: tensor<?x8xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %one = sinter.constant dense<1.0> : tensor<f32>
  %zero = sinter.constant dense<0.0> : tensor<f32>
  // where(true, a, b) = a
  %0 = sinter.select %one, %a, %b : tensor<f32>, tensor<?x8xf32>, tensor<?x8xf32>
  // where(false, a, b) = b
  %1 = sinter.select %zero, %a, %b : tensor<f32>, tensor<?x8xf32>, tensor<?x8xf32>
  // where(m, a, a) = a
  %2 = sinter.select %m, %a, %a : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  return %0, %1, %2 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// A choice that would broadcast its operand stays.
// CHECK-LABEL: func.func @select_broadcast_stays
// CHECK: sinter.select
func.func @select_broadcast_stays(%a: tensor<8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %one = sinter.constant dense<1.0> : tensor<f32>
  %0 = sinter.select %one, %a, %b : tensor<f32>, tensor<8xf32>, tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @compare_constants
// CHECK-DAG: sinter.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: sinter.constant dense<0.000000e+00> : tensor<4xf32>
func.func @compare_constants() -> (tensor<4xf32>, tensor<4xf32>) {
  %a = sinter.constant dense<2.0> : tensor<4xf32>
  %b = sinter.constant dense<3.0> : tensor<f32>
  %0 = sinter.compare lt, %a, %b : tensor<4xf32>, tensor<f32>
  %1 = sinter.compare eq, %a, %b : tensor<4xf32>, tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
