// matmul with every combination of transpose flags, and rank-3 operands
// whose batch dim broadcasts against a rank-2 operand or a batch of 1.
// RUN: sinterc run %s --print-values | FileCheck %s

module @matmul {
  func.func @forward() -> (tensor<2x3xf32> {sinter.name = "plain"},
                           tensor<2x3xf32> {sinter.name = "transpose_a"},
                           tensor<2x3xf32> {sinter.name = "transpose_b"},
                           tensor<2x3xf32> {sinter.name = "transpose_both"},
                           tensor<2x1x3xf32> {sinter.name = "batched_lhs"},
                           tensor<2x2x1xf32> {sinter.name = "batched_rhs"},
                           tensor<3x2x1xf32> {sinter.name = "batch_of_one"}) {
    %a = sinter.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %b = sinter.constant dense<[[5.0, 6.0, 7.0], [8.0, 9.0, 10.0]]> : tensor<2x3xf32>
    %c = sinter.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
    %d = sinter.constant dense<[[[1.0, 1.0]], [[2.0, -1.0]]]> : tensor<2x1x2xf32>
    %e = sinter.constant dense<[[[1.0], [0.0]], [[0.0], [1.0]]]> : tensor<2x2x1xf32>
    %f = sinter.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
    %g = sinter.constant dense<[[[1.0], [1.0]], [[1.0], [-1.0]], [[0.0], [2.0]]]> : tensor<3x2x1xf32>
    %0 = sinter.matmul %a, %b : tensor<2x2xf32>, tensor<2x3xf32>
    %1 = sinter.matmul %a, %b transpose_a : tensor<2x2xf32>, tensor<2x3xf32>
    %2 = sinter.matmul %a, %c transpose_b : tensor<2x2xf32>, tensor<3x2xf32>
    %3 = sinter.matmul %a, %c transpose_a transpose_b : tensor<2x2xf32>, tensor<3x2xf32>
    %4 = sinter.matmul %d, %b : tensor<2x1x2xf32>, tensor<2x3xf32>
    %5 = sinter.matmul %a, %e : tensor<2x2xf32>, tensor<2x2x1xf32>
    %6 = sinter.matmul %f, %g : tensor<1x2x2xf32>, tensor<3x2x1xf32>
    return %0, %1, %2, %3, %4, %5, %6
        : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
          tensor<2x1x3xf32>, tensor<2x2x1xf32>, tensor<3x2x1xf32>
  }
}

// CHECK-LABEL: {{^}}plain f32[2, 3]
// CHECK-NEXT:  [0] 21 24 27
// CHECK-NEXT:  [1] 47 54 61
// CHECK-LABEL: {{^}}transpose_a f32[2, 3]
// CHECK-NEXT:  [0] 29 33 37
// CHECK-NEXT:  [1] 42 48 54
// CHECK-LABEL: {{^}}transpose_b f32[2, 3]
// CHECK-NEXT:  [0] 1 2 3
// CHECK-NEXT:  [1] 3 4 7
// CHECK-LABEL: {{^}}transpose_both f32[2, 3]
// CHECK-NEXT:  [0] 1 3 4
// CHECK-NEXT:  [1] 2 4 6
// CHECK-LABEL: {{^}}batched_lhs f32[2, 1, 3]
// CHECK-NEXT:  [0, 0] 13 15 17
// CHECK-NEXT:  [1, 0] 2 3 4
// CHECK-LABEL: {{^}}batched_rhs f32[2, 2, 1]
// CHECK-NEXT:  [0, 0] 1
// CHECK-NEXT:  [0, 1] 3
// CHECK-NEXT:  [1, 0] 2
// CHECK-NEXT:  [1, 1] 4
// CHECK-LABEL: {{^}}batch_of_one f32[3, 2, 1]
// CHECK-NEXT:  [0, 0] 3
// CHECK-NEXT:  [0, 1] 7
// CHECK-NEXT:  [1, 0] -1
// CHECK-NEXT:  [1, 1] -1
// CHECK-NEXT:  [2, 0] 4
// CHECK-NEXT:  [2, 1] 8
