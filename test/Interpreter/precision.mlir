// f32 mode rounds every op's result to float32; f64 mode keeps double. Sums
// accumulate in double in both modes, so 1e8 + 1 - 1e8 is 1, not 0.
// RUN: sinterc run %s --print-values | FileCheck %s --check-prefix=F32
// RUN: sinterc run %s --precision=f64 --print-values | FileCheck %s --check-prefix=F64

module @precision {
  func.func @forward() -> (tensor<f32> {sinter.name = "third_times_three_minus_one"},
                           tensor<f32> {sinter.name = "sum"}) {
    %third = sinter.constant dense<0.333333343> : tensor<f32>
    %three = sinter.constant dense<3.0> : tensor<f32>
    %one = sinter.constant dense<1.0> : tensor<f32>
    %0 = sinter.mul %third, %three : tensor<f32>, tensor<f32>
    %1 = sinter.sub %0, %one : tensor<f32>, tensor<f32>
    %v = sinter.constant dense<[1.0e+08, 1.0, -1.0e+08]> : tensor<3xf32>
    %2 = sinter.sum %v dims [0] : tensor<3xf32>
    return %1, %2 : tensor<f32>, tensor<f32>
  }
}

// F32-LABEL: {{^}}third_times_three_minus_one f32[]
// F32-NEXT:  [] 0
// F32-LABEL: {{^}}sum f32[]
// F32-NEXT:  [] 1

// F64-LABEL: {{^}}third_times_three_minus_one f32[]
// F64-NEXT:  [] 2.98023e-08
// F64-LABEL: {{^}}sum f32[]
// F64-NEXT:  [] 1
