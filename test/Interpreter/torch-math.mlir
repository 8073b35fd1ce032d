// erf, expm1, log1p, sign, exp2, log2, log10, sin, cos, floor, ceil, round
// and trunc on fixed values (evaluated in double, rounded to float32,
// printed with %.6g). sign is ATen's (0 < x) - (x < 0): 0 for NaN and for
// either zero; round takes halfway cases to the even integer (-2.5 -> -2,
// 0.5 -> 0, 1.5 -> 2), as torch.round.
// RUN: sinterc run %s --print-values | FileCheck %s

module @torch_math {
  func.func @forward() -> (
      tensor<5xf32> {sinter.name = "erf"},
      tensor<5xf32> {sinter.name = "expm1"},
      tensor<5xf32> {sinter.name = "log1p"},
      tensor<5xf32> {sinter.name = "sign"},
      tensor<5xf32> {sinter.name = "exp2"},
      tensor<5xf32> {sinter.name = "log2"},
      tensor<5xf32> {sinter.name = "log10"},
      tensor<5xf32> {sinter.name = "sin"},
      tensor<5xf32> {sinter.name = "cos"},
      tensor<5xf32> {sinter.name = "floor"},
      tensor<5xf32> {sinter.name = "ceil"},
      tensor<5xf32> {sinter.name = "round"},
      tensor<5xf32> {sinter.name = "trunc"}) {
    %x = sinter.constant dense<[-2.0, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>
    %p = sinter.constant dense<[0.0, 1.0e-7, 0.5, 1.0, 3.0]> : tensor<5xf32>
    %n = sinter.constant dense<[0x7FC00000, 0x80000000, -1.5, 0.0, 4.0]> : tensor<5xf32>
    %erf = sinter.erf %x : tensor<5xf32>
    %expm1 = sinter.expm1 %x : tensor<5xf32>
    %log1p = sinter.log1p %p : tensor<5xf32>
    %sign = sinter.sign %n : tensor<5xf32>
    %h = sinter.constant dense<[-2.5, -0.5, 0.5, 1.5, 2.7]> : tensor<5xf32>
    %q = sinter.constant dense<[0.125, 1.0, 2.0, 10.0, 1000.0]> : tensor<5xf32>
    %exp2 = sinter.exp2 %x : tensor<5xf32>
    %log2 = sinter.log2 %q : tensor<5xf32>
    %log10 = sinter.log10 %q : tensor<5xf32>
    %sin = sinter.sin %x : tensor<5xf32>
    %cos = sinter.cos %x : tensor<5xf32>
    %floor = sinter.floor %h : tensor<5xf32>
    %ceil = sinter.ceil %h : tensor<5xf32>
    %round = sinter.round %h : tensor<5xf32>
    %trunc = sinter.trunc %h : tensor<5xf32>
    return %erf, %expm1, %log1p, %sign, %exp2, %log2, %log10, %sin, %cos, %floor, %ceil, %round, %trunc : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
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
// CHECK-LABEL: {{^}}exp2 f32[5]
// CHECK-NEXT:  [] 0.25 0.707107 1 1.41421 4
// CHECK-LABEL: {{^}}log2 f32[5]
// CHECK-NEXT:  [] -3 0 1 3.32193 9.96578
// CHECK-LABEL: {{^}}log10 f32[5]
// CHECK-NEXT:  [] -0.90309 0 0.30103 1 3
// CHECK-LABEL: {{^}}sin f32[5]
// CHECK-NEXT:  [] -0.909297 -0.479426 0 0.479426 0.909297
// CHECK-LABEL: {{^}}cos f32[5]
// CHECK-NEXT:  [] -0.416147 0.877583 1 0.877583 -0.416147
// CHECK-LABEL: {{^}}floor f32[5]
// CHECK-NEXT:  [] -3 -1 0 1 2
// CHECK-LABEL: {{^}}ceil f32[5]
// CHECK-NEXT:  [] -2 -0 1 2 3
// CHECK-LABEL: {{^}}round f32[5]
// CHECK-NEXT:  [] -2 -0 0 2 3
// CHECK-LABEL: {{^}}trunc f32[5]
// CHECK-NEXT:  [] -2 -0 0 1 2
