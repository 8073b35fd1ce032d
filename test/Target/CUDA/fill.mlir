// Constants computed by no kernel: a model whose results are constant (a
// fill of the batch's shape, a splat constant) writes them with a memset
// (+0) or the fill kernel and launches nothing else; a fill that a kernel
// reads is written into the workspace first.
// RUN: sinterc %s -emit=cuda --model=constant_results | FileCheck %s --check-prefix=CONST
// RUN: sinterc %s -emit=cuda --model=fill_read | FileCheck %s --check-prefix=READ
// RUN: sinterc %s -emit=cuda --model=fill_two | FileCheck %s --check-prefix=TWO
// RUN: sinterc %s -emit=fused --print-fusion-plan --model=constant_results -o /dev/null | FileCheck %s --check-prefix=PLAN
// RUN: sinterc %s -emit=cuda --model=dense_result | FileCheck %s --check-prefix=DENSE

module {
  // `x * 0` and `relu(x - x) * 2 + 1.5` in the default fast mode: the matmul
  // is dead, the results are fills of x's batch and a splat.
  // CONST:      // Fusion plan of @forward (run by constant_results_forward):
  // CONST-NEXT: //   splat: fill 2.0f of [4] (constant: no kernel computes it)
  // CONST-NEXT: //   zero: fill 0.0f of [B, 16] (constant: no kernel computes it)
  // CONST-NEXT: //   out1: fill 1.5f of [B, 16] (constant: no kernel computes it)
  // CONST-NOT:  __global__ void __launch_bounds__
  // CONST:      __global__ void sinterFillKernel(
  // CONST-NOT:  cublas
  // CONST:      constant_results *model, int64_t B, const float *x, float *zero,
  // CONST-NEXT: float *out1, float *splat, cudaStream_t stream) {
  // CONST:      SINTER_RT_TRY(sinterFill(ctx, stream, splat, 4, 2.0f));
  // CONST:      cudaMemsetAsync(zero, 0, static_cast<size_t>((B * 16)) * sizeof(float), stream)
  // CONST:      SINTER_RT_TRY(sinterFill(ctx, stream, out1, (B * 16), 1.5f));
  // CONST-NOT:  launch_
  // CONST:      return SINTER_OK;
  // PLAN:       rewrites fired in @forward: {{.*}}mul-by-zero x2{{.*}}sub-self x1
  // PLAN-NEXT:  fusion plan of @forward in @constant_results: 0 kernels
  // PLAN-NEXT:  zero = fill 0 of [?, 16] (constant: written by the host code, no kernel)
  // PLAN-NEXT:  out1 = fill 1.5 of [?, 16] (constant: written by the host code, no kernel)
  // PLAN-NEXT:  splat = fill 2 of [4] (constant: written by the host code, no kernel)
  module @constant_results attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x32xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %w: tensor<16x32xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
        -> (tensor<?x16xf32> {sinter.name = "zero", sinter.dim_names = ["B", ""]},
            tensor<?x16xf32> {sinter.name = "out1", sinter.dim_names = ["B", ""]},
            tensor<4xf32> {sinter.name = "splat", sinter.dim_names = [""]}) {
      %h = sinter.matmul %x, %w transpose_b : tensor<?x32xf32>, tensor<16x32xf32>
      %c0 = sinter.constant dense<0.0> : tensor<f32>
      %z = sinter.mul %h, %c0 : tensor<?x16xf32>, tensor<f32>
      %d = sinter.sub %h, %h : tensor<?x16xf32>, tensor<?x16xf32>
      %r = sinter.relu %d : tensor<?x16xf32>
      %c2 = sinter.constant dense<2.0> : tensor<f32>
      %s = sinter.mul %r, %c2 : tensor<?x16xf32>, tensor<f32>
      %c15 = sinter.constant dense<1.5> : tensor<f32>
      %o = sinter.add %s, %c15 : tensor<?x16xf32>, tensor<f32>
      %splat = sinter.constant dense<2.0> : tensor<4xf32>
      return %z, %o, %splat : tensor<?x16xf32>, tensor<?x16xf32>, tensor<4xf32>
    }
  }

  // A fill broadcast against a column: the kernel reads the fill from the
  // workspace, where the host code wrote it before the launch.
  // READ:       //   kfill0: fill 3.0f of [B, 8] (constant: no kernel computes it)
  // READ-NEXT:  //   fill_read_k0_pointwise: add
  // READ:       fill_read *model, int64_t B, const float *x, const float *c, float *y,
  // READ-NEXT:  cudaStream_t stream) {
  // READ:       float *const kfill0 = reinterpret_cast<float *>(slot0);
  // READ:       SINTER_RT_TRY(sinterFill(ctx, stream, kfill0, (B * 8), 3.0f));
  // READ-NEXT:  SINTER_RT_TRY(launch_fill_read_k0_pointwise(ctx, stream, kfill0, c, y, B));
  module @fill_read attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x8xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %c: tensor<?x1xf32> {sinter.role = "input", sinter.name = "c", sinter.dim_names = ["B", ""]})
        -> (tensor<?x8xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %f = sinter.fill 3.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x8xf32>
      %y = sinter.add %f, %c : tensor<?x8xf32>, tensor<?x1xf32>
      return %y : tensor<?x8xf32>
    }
  }

  // A constant of shape [B, T]: B from x, T from y. The fill takes each dim
  // from its own input; the matmul is dead.
  // TWO:      //   ones: fill 1.0f of [B, T] (constant: no kernel computes it)
  // TWO-NOT:  cublas
  // TWO:      fill_two *model, int64_t B, int64_t T, const float *x, const float *y,
  // TWO:      SINTER_RT_TRY(sinterFill(ctx, stream, ones, (B * T), 1.0f));
  // TWO-NOT:  launch_
  module @fill_two attributes {sinter.dims = {B = 8 : i64, T = 4 : i64}} {
    func.func @forward(%x: tensor<?x8xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %y: tensor<?x8xf32> {sinter.role = "input", sinter.name = "y", sinter.dim_names = ["T", ""]})
        -> (tensor<?x?xf32> {sinter.name = "ones", sinter.dim_names = ["B", "T"]}) {
      %h = sinter.matmul %x, %y transpose_b : tensor<?x8xf32>, tensor<?x8xf32>
      %c = sinter.constant dense<0.0> : tensor<f32>
      %z = sinter.mul %h, %c : tensor<?x?xf32>, tensor<f32>
      %e = sinter.exp %z : tensor<?x?xf32>
      return %e : tensor<?x?xf32>
    }
  }

  // A dense constant result (not a splat) is copied from its array in device
  // memory (issue 19: the emitter refused it).
  // DENSE:      __device__ const float dense_result_const0[3] = {
  // DENSE-NEXT:     1.0f, 2.0f, 3.0f,
  // DENSE:      cudaMemcpyFromSymbolAsync(c, dense_result_const0, static_cast<size_t>(3) * sizeof(float), 0, cudaMemcpyDeviceToDevice, stream)
  module @dense_result {
    func.func @forward(%x: tensor<3xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = [""]})
        -> (tensor<3xf32> {sinter.name = "y", sinter.dim_names = [""]},
            tensor<3xf32> {sinter.name = "c", sinter.dim_names = [""]}) {
      %c = sinter.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
      %y = sinter.add %x, %c : tensor<3xf32>, tensor<3xf32>
      return %y, %c : tensor<3xf32>, tensor<3xf32>
    }
  }
}
