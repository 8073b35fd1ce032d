// transpose, reshape (a `?` result dim is computed from the element count)
// and constants, on an input whose leading dim comes from the .npy file.
// RUN: %python -c "import numpy; numpy.save('%t.npy', numpy.arange(12, dtype='<f4').reshape(3, 4))"
// RUN: sinterc run %s --inputs %t.npy --print-values | FileCheck %s

module @shape attributes {sinter.dims = {N = 2 : i64}} {
  func.func @forward(%x: tensor<?x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["N", ""]})
      -> (tensor<4x?xf32> {sinter.name = "transpose"},
          tensor<?x6xf32> {sinter.name = "reshape_dynamic"},
          tensor<3x2x2xf32> {sinter.name = "transpose_3d"},
          tensor<2x2xf32> {sinter.name = "splat"},
          tensor<3xf32> {sinter.name = "dense"}) {
    %0 = sinter.transpose %x perm [1, 0] : tensor<?x4xf32>
    %1 = sinter.reshape %x : tensor<?x4xf32> -> tensor<?x6xf32>
    %2 = sinter.reshape %x : tensor<?x4xf32> -> tensor<2x2x3xf32>
    %3 = sinter.transpose %2 perm [2, 0, 1] : tensor<2x2x3xf32>
    %4 = sinter.constant dense<1.5> : tensor<2x2xf32>
    %5 = sinter.constant dense<[1.0, -2.5, 1.0e+10]> : tensor<3xf32>
    return %0, %1, %3, %4, %5
        : tensor<4x?xf32>, tensor<?x6xf32>, tensor<3x2x2xf32>, tensor<2x2xf32>,
          tensor<3xf32>
  }
}

// CHECK-LABEL: {{^}}transpose f32[4, 3]
// CHECK-NEXT:  [0] 0 4 8
// CHECK-NEXT:  [1] 1 5 9
// CHECK-NEXT:  [2] 2 6 10
// CHECK-NEXT:  [3] 3 7 11
// CHECK-LABEL: {{^}}reshape_dynamic f32[2, 6]
// CHECK-NEXT:  [0] 0 1 2 3 4 5
// CHECK-NEXT:  [1] 6 7 8 9 10 11
// CHECK-LABEL: {{^}}transpose_3d f32[3, 2, 2]
// CHECK-NEXT:  [0, 0] 0 3
// CHECK-NEXT:  [0, 1] 6 9
// CHECK-NEXT:  [1, 0] 1 4
// CHECK-NEXT:  [1, 1] 7 10
// CHECK-NEXT:  [2, 0] 2 5
// CHECK-NEXT:  [2, 1] 8 11
// CHECK-LABEL: {{^}}splat f32[2, 2]
// CHECK-NEXT:  [0] 1.5 1.5
// CHECK-NEXT:  [1] 1.5 1.5
// CHECK-LABEL: {{^}}dense f32[3]
// CHECK-NEXT:  [] 1 -2.5 1e+10
