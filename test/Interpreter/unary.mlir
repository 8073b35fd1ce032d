// Every elementwise unary op, with its attributes, on fixed values. The
// expected values follow from the definitions of torch.nn.functional
// (evaluated in double and rounded to float32, printed with %.6g).
// RUN: sinterc run %s --print-values | FileCheck %s

module @unary {
  func.func @forward() -> (
      tensor<7xf32> {sinter.name = "neg"},
      tensor<7xf32> {sinter.name = "abs"},
      tensor<7xf32> {sinter.name = "exp"},
      tensor<3xf32> {sinter.name = "log"},
      tensor<3xf32> {sinter.name = "sqrt"},
      tensor<3xf32> {sinter.name = "rsqrt"},
      tensor<7xf32> {sinter.name = "tanh"},
      tensor<7xf32> {sinter.name = "sigmoid"},
      tensor<7xf32> {sinter.name = "relu"},
      tensor<7xf32> {sinter.name = "silu"},
      tensor<7xf32> {sinter.name = "mish"},
      tensor<7xf32> {sinter.name = "selu"},
      tensor<7xf32> {sinter.name = "hardsigmoid"},
      tensor<7xf32> {sinter.name = "hardswish"},
      tensor<7xf32> {sinter.name = "softsign"},
      tensor<7xf32> {sinter.name = "leaky_relu"},
      tensor<7xf32> {sinter.name = "leaky_relu_02"},
      tensor<7xf32> {sinter.name = "gelu"},
      tensor<7xf32> {sinter.name = "gelu_tanh"},
      tensor<7xf32> {sinter.name = "softplus"},
      tensor<7xf32> {sinter.name = "softplus_b2_t1"},
      tensor<7xf32> {sinter.name = "elu"},
      tensor<7xf32> {sinter.name = "elu_05"},
      tensor<7xf32> {sinter.name = "hardtanh"},
      tensor<7xf32> {sinter.name = "hardtanh_0_2"},
      tensor<7xf32> {sinter.name = "clamp"},
      tensor<7xf32> {sinter.name = "clamp_min"},
      tensor<7xf32> {sinter.name = "clamp_max"}) {
    %x = sinter.constant dense<[-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0]> : tensor<7xf32>
    %p = sinter.constant dense<[0.25, 1.0, 4.0]> : tensor<3xf32>
    %neg = sinter.neg %x : tensor<7xf32>
    %abs = sinter.abs %x : tensor<7xf32>
    %exp = sinter.exp %x : tensor<7xf32>
    %log = sinter.log %p : tensor<3xf32>
    %sqrt = sinter.sqrt %p : tensor<3xf32>
    %rsqrt = sinter.rsqrt %p : tensor<3xf32>
    %tanh = sinter.tanh %x : tensor<7xf32>
    %sigmoid = sinter.sigmoid %x : tensor<7xf32>
    %relu = sinter.relu %x : tensor<7xf32>
    %silu = sinter.silu %x : tensor<7xf32>
    %mish = sinter.mish %x : tensor<7xf32>
    %selu = sinter.selu %x : tensor<7xf32>
    %hardsigmoid = sinter.hardsigmoid %x : tensor<7xf32>
    %hardswish = sinter.hardswish %x : tensor<7xf32>
    %softsign = sinter.softsign %x : tensor<7xf32>
    %leaky_relu = sinter.leaky_relu %x : tensor<7xf32>
    %leaky_relu_02 = sinter.leaky_relu %x alpha = 2.000000e-01 : tensor<7xf32>
    %gelu = sinter.gelu %x : tensor<7xf32>
    %gelu_tanh = sinter.gelu %x approximate = tanh : tensor<7xf32>
    %softplus = sinter.softplus %x : tensor<7xf32>
    %softplus_b2_t1 = sinter.softplus %x beta = 2.000000e+00 threshold = 1.000000e+00 : tensor<7xf32>
    %elu = sinter.elu %x : tensor<7xf32>
    %elu_05 = sinter.elu %x alpha = 5.000000e-01 : tensor<7xf32>
    %hardtanh = sinter.hardtanh %x : tensor<7xf32>
    %hardtanh_0_2 = sinter.hardtanh %x min = 0.000000e+00 max = 2.000000e+00 : tensor<7xf32>
    %clamp = sinter.clamp %x min = -5.000000e-01 max = 7.500000e-01 : tensor<7xf32>
    %clamp_min = sinter.clamp %x min = -5.000000e-01 : tensor<7xf32>
    %clamp_max = sinter.clamp %x max = 2.500000e-01 : tensor<7xf32>
    return %neg, %abs, %exp, %log, %sqrt, %rsqrt, %tanh, %sigmoid, %relu, %silu, %mish, %selu, %hardsigmoid, %hardswish, %softsign, %leaky_relu, %leaky_relu_02, %gelu, %gelu_tanh, %softplus, %softplus_b2_t1, %elu, %elu_05, %hardtanh, %hardtanh_0_2, %clamp, %clamp_min, %clamp_max
        : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
  }
}

// CHECK-LABEL: {{^}}neg f32[7]
// CHECK-NEXT:  [] 3 1 0.5 -0 -0.5 -1 -3
// CHECK-LABEL: {{^}}abs f32[7]
// CHECK-NEXT:  [] 3 1 0.5 0 0.5 1 3
// CHECK-LABEL: {{^}}exp f32[7]
// CHECK-NEXT:  [] 0.0497871 0.367879 0.606531 1 1.64872 2.71828 20.0855
// CHECK-LABEL: {{^}}log f32[3]
// CHECK-NEXT:  [] -1.38629 0 1.38629
// CHECK-LABEL: {{^}}sqrt f32[3]
// CHECK-NEXT:  [] 0.5 1 2
// CHECK-LABEL: {{^}}rsqrt f32[3]
// CHECK-NEXT:  [] 2 1 0.5
// CHECK-LABEL: {{^}}tanh f32[7]
// CHECK-NEXT:  [] -0.995055 -0.761594 -0.462117 0 0.462117 0.761594 0.995055
// CHECK-LABEL: {{^}}sigmoid f32[7]
// CHECK-NEXT:  [] 0.0474259 0.268941 0.377541 0.5 0.622459 0.731059 0.952574
// CHECK-LABEL: {{^}}relu f32[7]
// CHECK-NEXT:  [] 0 0 0 0 0.5 1 3
// CHECK-LABEL: {{^}}silu f32[7]
// CHECK-NEXT:  [] -0.142278 -0.268941 -0.18877 0 0.31123 0.731059 2.85772
// CHECK-LABEL: {{^}}mish f32[7]
// CHECK-NEXT:  [] -0.145647 -0.303401 -0.220744 0 0.375245 0.865098 2.98654
// CHECK-LABEL: {{^}}selu f32[7]
// CHECK-NEXT:  [] -1.67057 -1.11133 -0.691758 0 0.525351 1.0507 3.1521
// CHECK-LABEL: {{^}}hardsigmoid f32[7]
// CHECK-NEXT:  [] 0 0.333333 0.416667 0.5 0.583333 0.666667 1
// CHECK-LABEL: {{^}}hardswish f32[7]
// CHECK-NEXT:  [] -0 -0.333333 -0.208333 0 0.291667 0.666667 3
// CHECK-LABEL: {{^}}softsign f32[7]
// CHECK-NEXT:  [] -0.75 -0.5 -0.333333 0 0.333333 0.5 0.75
// CHECK-LABEL: {{^}}leaky_relu f32[7]
// CHECK-NEXT:  [] -0.03 -0.01 -0.005 0 0.5 1 3
// CHECK-LABEL: {{^}}leaky_relu_02 f32[7]
// CHECK-NEXT:  [] -0.6 -0.2 -0.1 0 0.5 1 3
// CHECK-LABEL: {{^}}gelu f32[7]
// CHECK-NEXT:  [] -0.00404969 -0.158655 -0.154269 0 0.345731 0.841345 2.99595
// CHECK-LABEL: {{^}}gelu_tanh f32[7]
// CHECK-NEXT:  [] -0.00363739 -0.158808 -0.154286 0 0.345714 0.841192 2.99636
// CHECK-LABEL: {{^}}softplus f32[7]
// CHECK-NEXT:  [] 0.0485874 0.313262 0.474077 0.693147 0.974077 1.31326 3.04859
// CHECK-LABEL: {{^}}softplus_b2_t1 f32[7]
// CHECK-NEXT:  [] 0.00123784 0.063464 0.156631 0.346574 0.656631 1 3
// CHECK-LABEL: {{^}}elu f32[7]
// CHECK-NEXT:  [] -0.950213 -0.632121 -0.393469 0 0.5 1 3
// CHECK-LABEL: {{^}}elu_05 f32[7]
// CHECK-NEXT:  [] -0.475106 -0.31606 -0.196735 0 0.5 1 3
// CHECK-LABEL: {{^}}hardtanh f32[7]
// CHECK-NEXT:  [] -1 -1 -0.5 0 0.5 1 1
// CHECK-LABEL: {{^}}hardtanh_0_2 f32[7]
// CHECK-NEXT:  [] 0 0 0 0 0.5 1 2
// CHECK-LABEL: {{^}}clamp f32[7]
// CHECK-NEXT:  [] -0.5 -0.5 -0.5 0 0.5 0.75 0.75
// CHECK-LABEL: {{^}}clamp_min f32[7]
// CHECK-NEXT:  [] -0.5 -0.5 -0.5 0 0.5 1 3
// CHECK-LABEL: {{^}}clamp_max f32[7]
// CHECK-NEXT:  [] -3 -1 -0.5 0 0.25 0.25 0.25
