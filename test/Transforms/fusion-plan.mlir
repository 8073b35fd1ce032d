// RUN: sinter-opt %s --split-input-file --sinter-hoist-params --sinter-form-kernels --sinter-plan-kernels --sinter-print-fusion-plan -o /dev/null | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-print-fusion-plan -o /dev/null | FileCheck %s --check-prefix=UNFUSED
// RUN: sinter-opt %s --split-input-file --sinter-hoist-params --sinter-form-kernels --sinter-print-fusion-plan | FileCheck %s --check-prefix=IR

// gemm_scale_batchnorm: two kernels, each with its plan's strategy and
// launches; bytes count each input read as many times as the plan's passes
// (the column kernel reads k0#0 twice: once for the mean and the variance in
// one pass of Welford states, once in the apply step that normalizes) and
// each output written once, with B at its default (x: 1024 * 512 * 4 bytes).

// CHECK-LABEL: fusion plan of @forward in @gemm_scale_batchnorm: 2 kernels; bytes and FLOPs estimated with symbolic dims at their sinter.dims defaults (B = 1024)
// CHECK-NEXT:  kernel  kind              strategy                launches    bytes      FLOPs  inputs                    outputs  ops
// CHECK-NEXT:  k0      gemm              library_gemm+generated         2  3672064  268959744  x, weight, bias, scale    k0#0     matmul, add, mul
// CHECK-NEXT:  k1      column_reduction  split_welford                  3  3149824    1835520  k0#0, bn_weight, bn_bias  y        mean, sub, mul, mean, add, rsqrt, mul, mul, add
// CHECK-NEXT:  total                                                       6821888  270795264

// Without kernels, the plan says so.

// UNFUSED-LABEL: fusion plan of @forward in @gemm_scale_batchnorm: 0 kernels
// UNFUSED-NEXT:  12 ops of @forward outside kernels (run sinter-form-kernels first)

// The report leaves the IR as it is.

// IR-LABEL: module @gemm_scale_batchnorm
// IR-COUNT-2: sinter.kernel
module @gemm_scale_batchnorm attributes {sinter.dims = {B = 1024 : i64}} {
  func.func @forward(%x: tensor<?x512xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<256x512xf32> {sinter.role = "input", sinter.name = "weight"},
                     %b: tensor<256xf32> {sinter.role = "input", sinter.name = "bias"},
                     %s: tensor<256xf32> {sinter.role = "input", sinter.name = "scale"},
                     %g: tensor<256xf32> {sinter.role = "input", sinter.name = "bn_weight"},
                     %h: tensor<256xf32> {sinter.role = "input", sinter.name = "bn_bias"})
      -> (tensor<?x256xf32> {sinter.name = "y"}) {
    %mm = sinter.matmul %x, %w transpose_b : tensor<?x512xf32>, tensor<256x512xf32>
    %lin = sinter.add %mm, %b : tensor<?x256xf32>, tensor<256xf32>
    %y = sinter.mul %lin, %s : tensor<?x256xf32>, tensor<256xf32>
    %m = sinter.mean %y dims [0] keepdim : tensor<?x256xf32>
    %d = sinter.sub %y, %m : tensor<?x256xf32>, tensor<1x256xf32>
    %d2 = sinter.mul %d, %d : tensor<?x256xf32>, tensor<?x256xf32>
    %v = sinter.mean %d2 dims [0] keepdim : tensor<?x256xf32>
    %eps = sinter.constant dense<1.0e-05> : tensor<f32>
    %ve = sinter.add %v, %eps : tensor<1x256xf32>, tensor<f32>
    %r = sinter.rsqrt %ve : tensor<1x256xf32>
    %n = sinter.mul %d, %r : tensor<?x256xf32>, tensor<1x256xf32>
    %o1 = sinter.mul %n, %g : tensor<?x256xf32>, tensor<256xf32>
    %o2 = sinter.add %o1, %h : tensor<?x256xf32>, tensor<256xf32>
    return %o2 : tensor<?x256xf32>
  }
}

// -----

// A hoisted model: @forward reads the prepared vector (4 * 8192 bytes) instead
// of the 256 MiB weight, which only @prepare reads, once.

// CHECK-LABEL: fusion plan of @forward in @gemm_divide_sum_scaling: 1 kernel; bytes and FLOPs estimated with symbolic dims at their sinter.dims defaults (B = 1024)
// CHECK-NEXT:  kernel  kind    strategy       launches     bytes     FLOPs  inputs        outputs  ops
// CHECK-NEXT:  k0      matvec  block_per_row         1  33591296  16777216  x, prepared0  y        matmul
// CHECK-NEXT:  total                                    33591296  16777216
// CHECK-NEXT:  fusion plan of @prepare in @gemm_divide_sum_scaling: 1 kernel
// CHECK-NEXT:  kernel  kind              strategy         launches      bytes     FLOPs  inputs  outputs    ops
// CHECK-NEXT:  k0      column_reduction  split_reduction         1  268468224  67117056  weight  prepared0  sum, mul
// CHECK-NEXT:  total                                                268468224  67117056

// UNFUSED-LABEL: fusion plan of @forward in @gemm_divide_sum_scaling: 0 kernels
// UNFUSED-NEXT:  3 ops of @forward outside kernels

// IR-LABEL: module @gemm_divide_sum_scaling
// IR:         func.func @prepare
// IR:         func.func @forward
module @gemm_divide_sum_scaling attributes {sinter.dims = {B = 1024 : i64}} {
  func.func @forward(%x: tensor<?x8192xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<8192x8192xf32> {sinter.role = "param", sinter.name = "weight"})
      -> (tensor<?x1xf32> {sinter.name = "y"}) {
    %sum = sinter.sum %w dims [0] keepdim : tensor<8192x8192xf32>
    %c = sinter.constant dense<7.500000e-01> : tensor<f32>
    %scaled = sinter.mul %sum, %c : tensor<1x8192xf32>, tensor<f32>
    %y = sinter.matmul %x, %scaled transpose_b : tensor<?x8192xf32>, tensor<1x8192xf32>
    return %y : tensor<?x1xf32>
  }
}

// -----

// Unnamed values: arguments and results by position, a kernel result read by
// another kernel as k<i>#<j>; without sinter.dims a `?` counts as 1024.

// CHECK-LABEL: fusion plan of @f: 2 kernels; bytes and FLOPs estimated with symbolic dims at their sinter.dims defaults (none declared; ? = 1024)
// CHECK-NEXT:  kernel  kind           strategy         launches   bytes    FLOPs  inputs      outputs     ops
// CHECK-NEXT:  k0      row_reduction  subwarp_per_row      1  528384   131072  arg0        k0#0, out1  exp, sum
// CHECK-NEXT:  k1      gemm           library_gemm         1  401408  4194304  k0#0, arg1  out0        matmul
// CHECK-NEXT:  total                                          929792  4325376

// UNFUSED-LABEL: fusion plan of @f: 0 kernels
// UNFUSED-NEXT:  3 ops of @f outside kernels

// IR-LABEL: func.func @f(
func.func @f(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x1xf32>) {
  %e = sinter.exp %x : tensor<?x64xf32>
  %y = sinter.matmul %e, %w : tensor<?x64xf32>, tensor<64x32xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x64xf32>
  return %y, %s : tensor<?x32xf32>, tensor<?x1xf32>
}

// -----

// A function without ops prints nothing.

// CHECK-NOT:    fusion plan of @empty
// UNFUSED-NOT:  fusion plan of @empty
// IR-LABEL: func.func @empty
func.func @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
