// NaN propagates as in PyTorch: through relu, clamp, maximum, max and
// softmax; argmax returns the index of the first NaN.
// RUN: sinterc run %s --print-values | FileCheck %s

module @nan {
  func.func @forward() -> (tensor<3xf32> {sinter.name = "relu"},
                           tensor<3xf32> {sinter.name = "clamp"},
                           tensor<3xf32> {sinter.name = "maximum"},
                           tensor<f32> {sinter.name = "max"},
                           tensor<i64> {sinter.name = "argmax"},
                           tensor<3xf32> {sinter.name = "softmax"}) {
    %x = sinter.constant dense<[-1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
    %one = sinter.constant dense<1.0> : tensor<f32>
    %0 = sinter.relu %x : tensor<3xf32>
    %1 = sinter.clamp %x min = 0.000000e+00 max = 1.000000e+00 : tensor<3xf32>
    %2 = sinter.maximum %x, %one : tensor<3xf32>, tensor<f32>
    %3 = sinter.max %x dims [0] : tensor<3xf32>
    %4 = sinter.argmax %x dims [0] : tensor<3xf32>
    %5 = sinter.softmax %x dim 0 : tensor<3xf32>
    return %0, %1, %2, %3, %4, %5
        : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>,
          tensor<i64>, tensor<3xf32>
  }
}

// CHECK-LABEL: {{^}}relu f32[3] min=nan max=nan mean=nan
// CHECK-NEXT:  [] 0 nan 3
// CHECK-LABEL: {{^}}clamp f32[3]
// CHECK-NEXT:  [] 0 nan 1
// CHECK-LABEL: {{^}}maximum f32[3]
// CHECK-NEXT:  [] 1 nan 3
// CHECK-LABEL: {{^}}max f32[]
// CHECK-NEXT:  [] nan
// CHECK-LABEL: {{^}}argmax i64[]
// CHECK-NEXT:  [] 1
// CHECK-LABEL: {{^}}softmax f32[3]
// CHECK-NEXT:  [] nan nan nan
