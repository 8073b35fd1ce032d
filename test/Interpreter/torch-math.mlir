// erf, expm1, log1p and sign on fixed values (evaluated in double, rounded
// to float32, printed with %.6g). sign is ATen's (0 < x) - (x < 0): 0 for
// NaN and for either zero.
// RUN: sinterc run %s --print-values | FileCheck %s

module @torch_math {
  func.func @forward() -> (
      tensor<5xf32> {sinter.name = "erf"},
      tensor<5xf32> {sinter.name = "expm1"},
      tensor<5xf32> {sinter.name = "log1p"},
      tensor<5xf32> {sinter.name = "sign"}) {
    %x = sinter.constant dense<[-2.0, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>
    %p = sinter.constant dense<[0.0, 1.0e-7, 0.5, 1.0, 3.0]> : tensor<5xf32>
    %n = sinter.constant dense<[0x7FC00000, 0x80000000, -1.5, 0.0, 4.0]> : tensor<5xf32>
    %erf = sinter.erf %x : tensor<5xf32>
    %expm1 = sinter.expm1 %x : tensor<5xf32>
    %log1p = sinter.log1p %p : tensor<5xf32>
    %sign = sinter.sign %n : tensor<5xf32>
    return %erf, %expm1, %log1p, %sign : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  }
}

// CHECK-LABEL: {{^}}erf f32[5]
// CHECK-NEXT:  [] -0.995322 -0.5205 0 0.5205 0.995322
// CHECK-LABEL: {{^}}expm1 f32[5]
// CHECK-NEXT:  [] -0.864665 -0.393469 0 0.648721 6.38906
// CHECK-LABEL: {{^}}log1p f32[5]
// CHECK-NEXT:  [] 0 1e-07 0.405465 0.693147 1.38629
// CHECK-LABEL: {{^}}sign f32[5]
// CHECK-NEXT:  [] 0 0 -1 0 1
