// Round trip of every sinter op: print, re-parse, print again. The generic
// form must survive a round trip too.
// RUN: sinter-opt --allow-unregistered-dialect %s \
// RUN:   | sinter-opt --allow-unregistered-dialect | FileCheck %s
// RUN: sinter-opt --allow-unregistered-dialect --mlir-print-op-generic %s \
// RUN:   | sinter-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<f32>, tensor<2xf32>) {
  // CHECK: sinter.constant dense<5.000000e-01> : tensor<f32>
  %0 = sinter.constant dense<0.5> : tensor<f32>
  // CHECK: sinter.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %1 = sinter.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1 : tensor<f32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @fills
func.func @fills(%x: tensor<?x4096xf32>, %y: tensor<8x?xf32>)
    -> (tensor<?x1xf32>, tensor<?x3x?xf32>, tensor<?x?xf32>) {
  // CHECK: sinter.fill 0.000000e+00 dims [0] of %{{.*}} : tensor<?x4096xf32> -> tensor<?x1xf32>
  %0 = sinter.fill 0.0 dims [0] of %x : tensor<?x4096xf32> -> tensor<?x1xf32>
  // CHECK: sinter.fill -1.500000e+00 dims [1, 1] of %{{.*}} : tensor<8x?xf32> -> tensor<?x3x?xf32>
  %1 = sinter.fill -1.5 dims [1, 1] of %y : tensor<8x?xf32> -> tensor<?x3x?xf32>
  // CHECK: sinter.fill 2.000000e+00 dims [0, 1] of %{{.*}}, %{{.*}} : tensor<?x4096xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
  %2 = sinter.fill 2.0 dims [0, 1] of %x, %y : tensor<?x4096xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x1xf32>, tensor<?x3x?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<?x4096xf32>, %w: tensor<3x4x5xf32>)
    -> (tensor<4096x?xf32>, tensor<5x3x4xf32>, tensor<?x64x64xf32>) {
  // CHECK: sinter.transpose %{{.*}} perm [1, 0] : tensor<?x4096xf32>
  %0 = sinter.transpose %x perm [1, 0] : tensor<?x4096xf32>
  // CHECK: sinter.transpose %{{.*}} perm [2, 0, 1] : tensor<3x4x5xf32>
  %1 = sinter.transpose %w perm [2, 0, 1] : tensor<3x4x5xf32>
  // CHECK: sinter.reshape %{{.*}} : tensor<?x4096xf32> -> tensor<?x64x64xf32>
  %2 = sinter.reshape %x : tensor<?x4096xf32> -> tensor<?x64x64xf32>
  return %0, %1, %2 : tensor<4096x?xf32>, tensor<5x3x4xf32>, tensor<?x64x64xf32>
}

// CHECK-LABEL: func.func @matmuls
func.func @matmuls(%x: tensor<?x8192xf32>, %w: tensor<4096x8192xf32>,
                   %a: tensor<8x16x32xf32>, %b: tensor<32x64xf32>,
                   %c: tensor<1x64x32xf32>) {
  // CHECK: sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x8192xf32>, tensor<4096x8192xf32>
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x8192xf32>, tensor<4096x8192xf32>
  // CHECK: sinter.matmul %{{.*}}, %{{.*}} transpose_a : tensor<4096x8192xf32>, tensor<4096x8192xf32>
  %1 = sinter.matmul %w, %w transpose_a : tensor<4096x8192xf32>, tensor<4096x8192xf32>
  // CHECK: sinter.matmul %{{.*}}, %{{.*}} : tensor<8x16x32xf32>, tensor<32x64xf32>
  %2 = sinter.matmul %a, %b : tensor<8x16x32xf32>, tensor<32x64xf32>
  // CHECK: sinter.matmul %{{.*}}, %{{.*}} transpose_a transpose_b : tensor<32x64xf32>, tensor<1x64x32xf32>
  %3 = sinter.matmul %b, %c transpose_a transpose_b : tensor<32x64xf32>, tensor<1x64x32xf32>
  "test.use"(%0, %1, %2, %3) : (tensor<?x4096xf32>, tensor<8192x8192xf32>, tensor<8x16x64xf32>, tensor<1x64x64xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<?x64xf32>, %b: tensor<64xf32>, %s: tensor<f32>,
                  %c: tensor<?x1xf32>) {
  // CHECK: sinter.add %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64xf32>
  %0 = sinter.add %x, %b : tensor<?x64xf32>, tensor<64xf32>
  // CHECK: sinter.sub %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x1xf32>
  %1 = sinter.sub %x, %c : tensor<?x64xf32>, tensor<?x1xf32>
  // CHECK: sinter.mul %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<f32>
  %2 = sinter.mul %x, %s : tensor<?x64xf32>, tensor<f32>
  // CHECK: sinter.div %{{.*}}, %{{.*}} : tensor<f32>, tensor<?x64xf32>
  %3 = sinter.div %s, %x : tensor<f32>, tensor<?x64xf32>
  // CHECK: sinter.maximum %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<?x1xf32>
  %4 = sinter.maximum %b, %c : tensor<64xf32>, tensor<?x1xf32>
  // CHECK: sinter.minimum %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x64xf32>
  %5 = sinter.minimum %x, %x : tensor<?x64xf32>, tensor<?x64xf32>
  // CHECK: sinter.pow %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<f32>
  %6 = sinter.pow %x, %s : tensor<?x64xf32>, tensor<f32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6) : (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<?x64xf32>) {
  // CHECK: sinter.neg %{{.*}} : tensor<?x64xf32>
  %0 = sinter.neg %x : tensor<?x64xf32>
  // CHECK: sinter.abs
  %1 = sinter.abs %x : tensor<?x64xf32>
  // CHECK: sinter.exp
  %2 = sinter.exp %x : tensor<?x64xf32>
  // CHECK: sinter.log
  %3 = sinter.log %x : tensor<?x64xf32>
  // CHECK: sinter.sqrt
  %4 = sinter.sqrt %x : tensor<?x64xf32>
  // CHECK: sinter.rsqrt
  %5 = sinter.rsqrt %x : tensor<?x64xf32>
  // CHECK: sinter.tanh
  %6 = sinter.tanh %x : tensor<?x64xf32>
  // CHECK: sinter.sigmoid
  %7 = sinter.sigmoid %x : tensor<?x64xf32>
  // CHECK: sinter.relu
  %8 = sinter.relu %x : tensor<?x64xf32>
  // CHECK: sinter.silu
  %9 = sinter.silu %x : tensor<?x64xf32>
  // CHECK: sinter.mish
  %10 = sinter.mish %x : tensor<?x64xf32>
  // CHECK: sinter.selu
  %11 = sinter.selu %x : tensor<?x64xf32>
  // CHECK: sinter.hardsigmoid
  %12 = sinter.hardsigmoid %x : tensor<?x64xf32>
  // CHECK: sinter.hardswish
  %13 = sinter.hardswish %x : tensor<?x64xf32>
  // CHECK: sinter.softsign
  %14 = sinter.softsign %x : tensor<?x64xf32>
  // CHECK: sinter.erf %{{.*}} : tensor<?x64xf32>
  %15 = sinter.erf %x : tensor<?x64xf32>
  // CHECK: sinter.expm1 %{{.*}} : tensor<?x64xf32>
  %16 = sinter.expm1 %x : tensor<?x64xf32>
  // CHECK: sinter.log1p %{{.*}} : tensor<?x64xf32>
  %17 = sinter.log1p %x : tensor<?x64xf32>
  // CHECK: sinter.sign %{{.*}} : tensor<?x64xf32>
  %18 = sinter.sign %x : tensor<?x64xf32>
  // CHECK: sinter.exp2 %{{.*}} : tensor<?x64xf32>
  %19 = sinter.exp2 %x : tensor<?x64xf32>
  // CHECK: sinter.log2 %{{.*}} : tensor<?x64xf32>
  %20 = sinter.log2 %x : tensor<?x64xf32>
  // CHECK: sinter.log10 %{{.*}} : tensor<?x64xf32>
  %21 = sinter.log10 %x : tensor<?x64xf32>
  // CHECK: sinter.sin %{{.*}} : tensor<?x64xf32>
  %22 = sinter.sin %x : tensor<?x64xf32>
  // CHECK: sinter.cos %{{.*}} : tensor<?x64xf32>
  %23 = sinter.cos %x : tensor<?x64xf32>
  // CHECK: sinter.floor %{{.*}} : tensor<?x64xf32>
  %24 = sinter.floor %x : tensor<?x64xf32>
  // CHECK: sinter.ceil %{{.*}} : tensor<?x64xf32>
  %25 = sinter.ceil %x : tensor<?x64xf32>
  // CHECK: sinter.round %{{.*}} : tensor<?x64xf32>
  %26 = sinter.round %x : tensor<?x64xf32>
  // CHECK: sinter.trunc %{{.*}} : tensor<?x64xf32>
  %27 = sinter.trunc %x : tensor<?x64xf32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27) : (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) -> ()
  return
}

// Attributes equal to PyTorch's defaults are elided when printed.
// CHECK-LABEL: func.func @unary_with_attributes
func.func @unary_with_attributes(%x: tensor<4x64xf16>) {
  // CHECK: sinter.leaky_relu %{{.*}} : tensor<4x64xf16>
  %0 = sinter.leaky_relu %x alpha = 0.01 : tensor<4x64xf16>
  // CHECK: sinter.leaky_relu %{{.*}} alpha = 2.000000e-01 : tensor<4x64xf16>
  %1 = sinter.leaky_relu %x alpha = 0.2 : tensor<4x64xf16>
  // CHECK: sinter.gelu %{{.*}} : tensor<4x64xf16>
  %2 = sinter.gelu %x : tensor<4x64xf16>
  // CHECK: sinter.gelu %{{.*}} approximate = tanh : tensor<4x64xf16>
  %3 = sinter.gelu %x approximate = tanh : tensor<4x64xf16>
  // CHECK: sinter.softplus %{{.*}} beta = 2.000000e+00 threshold = 1.000000e+01 : tensor<4x64xf16>
  %4 = sinter.softplus %x beta = 2.0 threshold = 10.0 : tensor<4x64xf16>
  // CHECK: sinter.elu %{{.*}} alpha = 5.000000e-01 : tensor<4x64xf16>
  %5 = sinter.elu %x alpha = 0.5 : tensor<4x64xf16>
  // CHECK: sinter.hardtanh %{{.*}} min = -2.000000e+00 : tensor<4x64xf16>
  %6 = sinter.hardtanh %x min = -2.0 : tensor<4x64xf16>
  // CHECK: sinter.clamp %{{.*}} min = 0.000000e+00 max = 6.000000e+00 : tensor<4x64xf16>
  %7 = sinter.clamp %x min = 0.0 max = 6.0 : tensor<4x64xf16>
  // CHECK: sinter.clamp %{{.*}} max = 1.000000e+00 : tensor<4x64xf16>
  %8 = sinter.clamp %x max = 1.0 : tensor<4x64xf16>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8) : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) -> ()
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<?x64x8xf32>) {
  // CHECK: sinter.sum %{{.*}} dims [1] keepdim : tensor<?x64x8xf32>
  %0 = sinter.sum %x dims [1] keepdim : tensor<?x64x8xf32>
  // CHECK: sinter.mean %{{.*}} dims [2, 1] : tensor<?x64x8xf32>
  %1 = sinter.mean %x dims [2, 1] : tensor<?x64x8xf32>
  // CHECK: sinter.max %{{.*}} dims [0] : tensor<?x64x8xf32>
  %2 = sinter.max %x dims [0] : tensor<?x64x8xf32>
  // CHECK: sinter.min %{{.*}} dims [0, 1, 2] : tensor<?x64x8xf32>
  %3 = sinter.min %x dims [0, 1, 2] : tensor<?x64x8xf32>
  // CHECK: sinter.prod %{{.*}} dims [2] keepdim : tensor<?x64x8xf32>
  %4 = sinter.prod %x dims [2] keepdim : tensor<?x64x8xf32>
  // CHECK: sinter.logsumexp %{{.*}} dims [2] : tensor<?x64x8xf32>
  %5 = sinter.logsumexp %x dims [2] : tensor<?x64x8xf32>
  // CHECK: sinter.argmax %{{.*}} dims [1] : tensor<?x64x8xf32>
  %6 = sinter.argmax %x dims [1] : tensor<?x64x8xf32>
  // CHECK: sinter.argmin %{{.*}} dims [2] keepdim : tensor<?x64x8xf32>
  %7 = sinter.argmin %x dims [2] keepdim : tensor<?x64x8xf32>
  // CHECK: sinter.var %{{.*}} dims [1, 2] keepdim : tensor<?x64x8xf32>
  %8 = sinter.var %x dims [1, 2] keepdim : tensor<?x64x8xf32>
  // CHECK: sinter.var %{{.*}} dims [1] unbiased = false : tensor<?x64x8xf32>
  %9 = sinter.var %x dims [1] unbiased = false : tensor<?x64x8xf32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9) : (tensor<?x1x8xf32>, tensor<?xf32>, tensor<64x8xf32>, tensor<f32>, tensor<?x64x1xf32>, tensor<?x64xf32>, tensor<?x8xi64>, tensor<?x64x1xi64>, tensor<?x1x1xf32>, tensor<?x8xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<?x32000xf32>) -> (tensor<?x32000xf32>, tensor<?x32000xf32>) {
  // CHECK: sinter.softmax %{{.*}} dim 1 : tensor<?x32000xf32>
  %0 = sinter.softmax %x dim 1 : tensor<?x32000xf32>
  // CHECK: sinter.log_softmax %{{.*}} dim 0 : tensor<?x32000xf32>
  %1 = sinter.log_softmax %x dim 0 : tensor<?x32000xf32>
  return %0, %1 : tensor<?x32000xf32>, tensor<?x32000xf32>
}

// CHECK-LABEL: func.func @norms
func.func @norms(%x: tensor<?x4096xf32>, %g: tensor<4096xf32>,
                 %b: tensor<4096xf32>, %y: tensor<?x64x32xf32>,
                 %c: tensor<64xf32>) {
  // CHECK: sinter.layer_norm %{{.*}} weight(%{{.*}} : tensor<4096xf32>) bias(%{{.*}} : tensor<4096xf32>) shape [4096] : tensor<?x4096xf32>
  %0 = sinter.layer_norm %x weight(%g : tensor<4096xf32>) bias(%b : tensor<4096xf32>) shape [4096] : tensor<?x4096xf32>
  // CHECK: sinter.layer_norm %{{.*}} bias(%{{.*}} : tensor<4096xf32>) shape [4096] eps = 1.000000e-03 : tensor<?x4096xf32>
  %1 = sinter.layer_norm %x bias(%b : tensor<4096xf32>) shape [4096] eps = 1.0e-3 : tensor<?x4096xf32>
  // CHECK: sinter.rms_norm %{{.*}} weight(%{{.*}} : tensor<4096xf32>) shape [4096] : tensor<?x4096xf32>
  %2 = sinter.rms_norm %x weight(%g : tensor<4096xf32>) shape [4096] : tensor<?x4096xf32>
  // CHECK: sinter.rms_norm %{{.*}} shape [4096] eps = 9.9999999999999995E-7 : tensor<?x4096xf32>
  %3 = sinter.rms_norm %x shape [4096] eps = 1.0e-6 : tensor<?x4096xf32>
  // CHECK: sinter.group_norm %{{.*}} groups 64 weight(%{{.*}} : tensor<4096xf32>) bias(%{{.*}} : tensor<4096xf32>) : tensor<?x4096xf32>
  %4 = sinter.group_norm %x groups 64 weight(%g : tensor<4096xf32>) bias(%b : tensor<4096xf32>) : tensor<?x4096xf32>
  // CHECK: sinter.group_norm %{{.*}} groups 8 eps = 1.000000e-03 : tensor<?x64x32xf32>
  %5 = sinter.group_norm %y groups 8 eps = 1.0e-3 : tensor<?x64x32xf32>
  // CHECK: sinter.instance_norm %{{.*}} weight(%{{.*}} : tensor<64xf32>) : tensor<?x64x32xf32>
  %6 = sinter.instance_norm %y weight(%c : tensor<64xf32>) : tensor<?x64x32xf32>
  // CHECK: sinter.batch_norm %{{.*}} training : tensor<?x4096xf32>
  %7 = sinter.batch_norm %x training : tensor<?x4096xf32>
  // CHECK: sinter.batch_norm %{{.*}} mean(%{{.*}} : tensor<4096xf32>) var(%{{.*}} : tensor<4096xf32>) weight(%{{.*}} : tensor<4096xf32>) bias(%{{.*}} : tensor<4096xf32>) eps = 1.000000e-03 : tensor<?x4096xf32>
  %8 = sinter.batch_norm %x mean(%g : tensor<4096xf32>) var(%b : tensor<4096xf32>) weight(%g : tensor<4096xf32>) bias(%b : tensor<4096xf32>) eps = 1.0e-3 : tensor<?x4096xf32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8) : (tensor<?x4096xf32>, tensor<?x4096xf32>, tensor<?x4096xf32>, tensor<?x4096xf32>, tensor<?x4096xf32>, tensor<?x64x32xf32>, tensor<?x64x32xf32>, tensor<?x4096xf32>, tensor<?x4096xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @kernel
func.func @kernel(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x1xf32>) {
  // CHECK: %{{.*}}:2 = sinter.kernel row_reduction(%{{.*}}, %{{.*}}) : (tensor<?x64xf32>, tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x1xf32>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<?x64xf32>, %{{.*}}: tensor<64xf32>):
  // CHECK:   sinter.yield %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<?x1xf32>
  // CHECK-NEXT: }
  %0:2 = sinter.kernel row_reduction (%x, %b) : (tensor<?x64xf32>, tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x1xf32>) {
  ^bb0(%a: tensor<?x64xf32>, %c: tensor<64xf32>):
    %s = sinter.add %a, %c : tensor<?x64xf32>, tensor<64xf32>
    %m = sinter.sum %s dims [1] keepdim : tensor<?x64xf32>
    sinter.yield %s, %m : tensor<?x64xf32>, tensor<?x1xf32>
  }
  return %0#0, %0#1 : tensor<?x64xf32>, tensor<?x1xf32>
}

// Every kernel kind parses and prints.
// CHECK-LABEL: func.func @kernel_kinds
func.func @kernel_kinds(%x: tensor<8xf32>) {
  // CHECK: sinter.kernel gemm
  // CHECK: sinter.kernel matvec
  // CHECK: sinter.kernel pointwise
  // CHECK: sinter.kernel column_reduction
  %0 = sinter.kernel gemm (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    sinter.yield %a : tensor<8xf32>
  }
  %1 = sinter.kernel matvec (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    sinter.yield %a : tensor<8xf32>
  }
  %2 = sinter.kernel pointwise (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    sinter.yield %a : tensor<8xf32>
  }
  %3 = sinter.kernel column_reduction (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    sinter.yield %a : tensor<8xf32>
  }
  return
}
