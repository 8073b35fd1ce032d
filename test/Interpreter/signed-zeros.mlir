// maximum and minimum order -0 below +0 whatever the order of their
// operands (IEEE 754-2019, as the folder and the generated code's
// dev::maximum): the ops are commutative, and rewrites swap their operands
// (IR fuzzer seed 9025: strict mode's pipeline swapped minimum(+0, -0) and
// the interpreter's result changed sign). The max and min reductions follow
// the same rule, whatever the order of the elements.
// RUN: sinterc run %s --print-values | FileCheck %s

module @signed_zeros {
  func.func @forward() -> (tensor<2xf32> {sinter.name = "maximum"},
                           tensor<2xf32> {sinter.name = "minimum"},
                           tensor<2xf32> {sinter.name = "max"},
                           tensor<2xf32> {sinter.name = "min"}) {
    %a = sinter.constant dense<[0.0, -0.0]> : tensor<2xf32>
    %b = sinter.constant dense<[-0.0, 0.0]> : tensor<2xf32>
    %m = sinter.constant dense<[[0.0, -0.0], [-0.0, 0.0]]> : tensor<2x2xf32>
    %max = sinter.maximum %a, %b : tensor<2xf32>, tensor<2xf32>
    %min = sinter.minimum %a, %b : tensor<2xf32>, tensor<2xf32>
    %rmax = sinter.max %m dims [1] : tensor<2x2xf32>
    %rmin = sinter.min %m dims [1] : tensor<2x2xf32>
    return %max, %min, %rmax, %rmin
        : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}

// CHECK-LABEL: {{^}}maximum f32[2]
// CHECK-NEXT:  [] 0 0
// CHECK-LABEL: {{^}}minimum f32[2]
// CHECK-NEXT:  [] -0 -0
// CHECK-LABEL: {{^}}max f32[2]
// CHECK-NEXT:  [] 0 0
// CHECK-LABEL: {{^}}min f32[2]
// CHECK-NEXT:  [] -0 -0
