// The broadcasting binary ops on fixed values: same shapes, a row vector, a
// column against a row, a scalar, and a rank-3 operand against a rank-2 one.
// RUN: sinterc run %s --print-values | FileCheck %s

module @binary {
  func.func @forward() -> (tensor<2x3xf32> {sinter.name = "add"},
                           tensor<2x3xf32> {sinter.name = "sub"},
                           tensor<2x3xf32> {sinter.name = "mul"},
                           tensor<2x3xf32> {sinter.name = "div"},
                           tensor<2x3xf32> {sinter.name = "maximum"},
                           tensor<2x3xf32> {sinter.name = "minimum"},
                           tensor<2x3xf32> {sinter.name = "pow"},
                           tensor<2x2x3xf32> {sinter.name = "add3"}) {
    %a = sinter.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %b = sinter.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
    %c = sinter.constant dense<[[2.0], [-1.0]]> : tensor<2x1xf32>
    %s = sinter.constant dense<3.0> : tensor<f32>
    %d = sinter.constant dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
    %add = sinter.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
    %sub = sinter.sub %a, %c : tensor<2x3xf32>, tensor<2x1xf32>
    %mul = sinter.mul %c, %b : tensor<2x1xf32>, tensor<3xf32>
    %div = sinter.div %a, %s : tensor<2x3xf32>, tensor<f32>
    %max = sinter.maximum %b, %c : tensor<3xf32>, tensor<2x1xf32>
    %min = sinter.minimum %a, %c : tensor<2x3xf32>, tensor<2x1xf32>
    %pow = sinter.pow %a, %b : tensor<2x3xf32>, tensor<3xf32>
    %add3 = sinter.add %d, %c : tensor<2x1x3xf32>, tensor<2x1xf32>
    return %add, %sub, %mul, %div, %max, %min, %pow, %add3
        : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
          tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>
  }
}

// CHECK-LABEL: {{^}}add f32[2, 3]
// CHECK-NEXT:  [0] 1.5 1 5
// CHECK-NEXT:  [1] 4.5 4 8
// CHECK-LABEL: {{^}}sub f32[2, 3]
// CHECK-NEXT:  [0] -1 0 1
// CHECK-NEXT:  [1] 5 6 7
// CHECK-LABEL: {{^}}mul f32[2, 3]
// CHECK-NEXT:  [0] 1 -2 4
// CHECK-NEXT:  [1] -0.5 1 -2
// CHECK-LABEL: {{^}}div f32[2, 3]
// CHECK-NEXT:  [0] 0.333333 0.666667 1
// CHECK-NEXT:  [1] 1.33333 1.66667 2
// CHECK-LABEL: {{^}}maximum f32[2, 3]
// CHECK-NEXT:  [0] 2 2 2
// CHECK-NEXT:  [1] 0.5 -1 2
// CHECK-LABEL: {{^}}minimum f32[2, 3]
// CHECK-NEXT:  [0] 1 2 2
// CHECK-NEXT:  [1] -1 -1 -1
// CHECK-LABEL: {{^}}pow f32[2, 3]
// CHECK-NEXT:  [0] 1 0.5 9
// CHECK-NEXT:  [1] 2 0.2 36
// CHECK-LABEL: {{^}}add3 f32[2, 2, 3]
// CHECK-NEXT:  [0, 0] 3 4 5
// CHECK-NEXT:  [0, 1] 0 1 2
// CHECK-NEXT:  [1, 0] 6 7 8
// CHECK-NEXT:  [1, 1] 3 4 5
