// The normalizations, with and without affine operands: statistics are the
// mean and the biased variance; rms_norm without eps uses the machine
// epsilon of its element type (so tiny f32 inputs are damped, f64 ones not).
// RUN: sinterc run %s --print-values | FileCheck %s

module @normalization {
  func.func @forward() -> (tensor<2x4xf32> {sinter.name = "layer_norm"},
                           tensor<2x4xf32> {sinter.name = "layer_norm_affine"},
                           tensor<1x2xf32> {sinter.name = "rms_norm"},
                           tensor<2xf32> {sinter.name = "rms_norm_tiny_f32"},
                           tensor<2xf64> {sinter.name = "rms_norm_tiny_f64"},
                           tensor<1x4x2xf32> {sinter.name = "group_norm"},
                           tensor<1x2x2xf32> {sinter.name = "instance_norm"},
                           tensor<3x2xf32> {sinter.name = "batch_norm_training"},
                           tensor<3x2xf32> {sinter.name = "batch_norm_inference"}) {
    %x = sinter.constant dense<[[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]> : tensor<2x4xf32>
    %w4 = sinter.constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf32>
    %b4 = sinter.constant dense<[0.0, 0.0, 1.0, 1.0]> : tensor<4xf32>
    %0 = sinter.layer_norm %x shape [4] : tensor<2x4xf32>
    %1 = sinter.layer_norm %x weight(%w4 : tensor<4xf32>) bias(%b4 : tensor<4xf32>) shape [4] : tensor<2x4xf32>

    %r = sinter.constant dense<[[3.0, 4.0]]> : tensor<1x2xf32>
    %t32 = sinter.constant dense<[1.0e-4, -1.0e-4]> : tensor<2xf32>
    %t64 = sinter.constant dense<[1.0e-4, -1.0e-4]> : tensor<2xf64>
    %2 = sinter.rms_norm %r shape [2] : tensor<1x2xf32>
    %3 = sinter.rms_norm %t32 shape [2] : tensor<2xf32>
    %4 = sinter.rms_norm %t64 shape [2] : tensor<2xf64>

    %g = sinter.constant dense<[[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [0.0, 4.0]]]> : tensor<1x4x2xf32>
    %gw = sinter.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
    %gb = sinter.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
    %5 = sinter.group_norm %g groups 2 weight(%gw : tensor<4xf32>) bias(%gb : tensor<4xf32>) : tensor<1x4x2xf32>

    %i = sinter.constant dense<[[[1.0, 3.0], [2.0, 2.0]]]> : tensor<1x2x2xf32>
    %6 = sinter.instance_norm %i : tensor<1x2x2xf32>

    %n = sinter.constant dense<[[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]> : tensor<3x2xf32>
    %7 = sinter.batch_norm %n training : tensor<3x2xf32>
    %m = sinter.constant dense<[1.0, 10.0]> : tensor<2xf32>
    %v = sinter.constant dense<[4.0, 100.0]> : tensor<2xf32>
    %nw = sinter.constant dense<[2.0, 1.0]> : tensor<2xf32>
    %nb = sinter.constant dense<[0.0, 1.0]> : tensor<2xf32>
    %8 = sinter.batch_norm %n mean(%m : tensor<2xf32>) var(%v : tensor<2xf32>) weight(%nw : tensor<2xf32>) bias(%nb : tensor<2xf32>) eps = 0.000000e+00 : tensor<3x2xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8
        : tensor<2x4xf32>, tensor<2x4xf32>, tensor<1x2xf32>, tensor<2xf32>,
          tensor<2xf64>, tensor<1x4x2xf32>, tensor<1x2x2xf32>, tensor<3x2xf32>,
          tensor<3x2xf32>
  }
}

// CHECK-LABEL: {{^}}layer_norm f32[2, 4]
// CHECK-NEXT:  [0] -1.34164 -0.447212 0.447212 1.34164
// CHECK-NEXT:  [1] 0 0 0 0
// CHECK-LABEL: {{^}}layer_norm_affine f32[2, 4]
// CHECK-NEXT:  [0] -1.34164 -0.894424 1.44721 3.68327
// CHECK-NEXT:  [1] 0 0 1 1
// CHECK-LABEL: {{^}}rms_norm f32[1, 2]
// CHECK-NEXT:  [0] 0.848528 1.13137
// CHECK-LABEL: {{^}}rms_norm_tiny_f32 f32[2]
// CHECK-NEXT:  [] 0.278197 -0.278197
// CHECK-LABEL: {{^}}rms_norm_tiny_f64 f64[2]
// CHECK-NEXT:  [] 1 -1
// CHECK-LABEL: {{^}}group_norm f32[1, 4, 2]
// CHECK-NEXT:  [0, 0] -1.34164 -0.447212
// CHECK-NEXT:  [0, 1] 0.447212 1.34164
// CHECK-NEXT:  [0, 2] -1.1547 -1.1547
// CHECK-NEXT:  [0, 3] -0.154699 4.4641
// CHECK-LABEL: {{^}}instance_norm f32[1, 2, 2]
// CHECK-NEXT:  [0, 0] -0.999995 0.999995
// CHECK-NEXT:  [0, 1] 0 0
// CHECK-LABEL: {{^}}batch_norm_training f32[3, 2]
// CHECK-NEXT:  [0] -1.22474 -1.22474
// CHECK-NEXT:  [1] 0 0
// CHECK-NEXT:  [2] 1.22474 1.22474
// CHECK-LABEL: {{^}}batch_norm_inference f32[3, 2]
// CHECK-NEXT:  [0] 0 1
// CHECK-NEXT:  [1] 1 2
// CHECK-NEXT:  [2] 2 3
