// GEMM kernels: the library call (row-major, fp32 compute unless asked),
// cuBLASLt epilogues when the fused ops match exactly, otherwise one
// generated epilogue kernel reading the product once.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s
// RUN: sinterc %s -emit=cuda --model=plain --precision=tf32 | FileCheck %s --check-prefix=TF32

// CHECK-LABEL: // ===== plain.h =====
// x @ w^T with nothing fused: cuBLAS writes the output.
// CHECK: // Precision: f32 (GEMMs in fp32: CUBLAS_COMPUTE_32F, TF32 off)
// CHECK: //   plain_k0_gemm: matmul
// CHECK-NEXT: //       cuBLAS GEMM
// CHECK: static sinter_status launch_plain_k0_gemm(
// CHECK-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
// CHECK-NEXT: const float *__restrict__ w, float *__restrict__ y, int64_t B) {
// CHECK: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
// CHECK-NEXT: x, 256, w, 256, 0.0f, y, 512));
// CHECK: SINTER_RT_TRY(launch_plain_k0_gemm(ctx, stream, x, model->params.w, y, B));
// TF32: // Flags:     -emit=cuda --precision=tf32
// TF32: // Precision: tf32 (GEMMs on TF32 tensor cores, fp32 accumulation)
// TF32: SINTER_RT_TRY(sinter_rt_gemm(
// TF32-NEXT: ctx, SINTER_PRECISION_TF32,
module @plain attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w) : (tensor<?x256xf32>, tensor<512x256xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %b: tensor<512x256xf32>):
      %m = sinter.matmul %a, %b transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      sinter.yield %m : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== bias_relu.h =====
// + bias then relu: cuBLASLt's RELU_BIAS epilogue, no generated kernel.
// CHECK: //   bias_relu_k0_gemm: matmul, add, relu
// CHECK-NEXT: //       cuBLASLt GEMM with the RELU_BIAS epilogue
// CHECK-NOT: __global__
// CHECK: SINTER_RT_TRY(sinter_rt_gemm_epilogue(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
// CHECK-NEXT: x, 256, w, 256, 0.0f, y, 512, SINTER_EPILOGUE_RELU_BIAS, b));
module @bias_relu attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %b: tensor<512xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w, %b) : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>, %d: tensor<512xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      %s = sinter.add %m, %d : tensor<?x512xf32>, tensor<512xf32>
      %r = sinter.relu %s : tensor<?x512xf32>
      sinter.yield %r : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== bias_gelu_tanh.h =====
// gelu(approximate=tanh) is cuBLASLt's GELU; the bias comes first in the add.
// CHECK: SINTER_EPILOGUE_GELU_TANH_BIAS, b)
module @bias_gelu_tanh attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %b: tensor<512xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w, %b) : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>, %d: tensor<512xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      %s = sinter.add %d, %m : tensor<512xf32>, tensor<?x512xf32>
      %r = sinter.gelu %s approximate = tanh : tensor<?x512xf32>
      sinter.yield %r : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== bias_only.h =====
// BIAS alone, with the bias as [1, N].
// CHECK: SINTER_EPILOGUE_BIAS, b)
module @bias_only attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<256x512xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %b: tensor<1x512xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = ["", ""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w, %b) : (tensor<?x256xf32>, tensor<256x512xf32>, tensor<1x512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<256x512xf32>, %d: tensor<1x512xf32>):
      %m = sinter.matmul %a, %c : tensor<?x256xf32>, tensor<256x512xf32>
      %s = sinter.add %m, %d : tensor<?x512xf32>, tensor<1x512xf32>
      sinter.yield %s : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== bias_gelu_erf.h =====
// The default (erf) gelu is not cuBLASLt's: the product goes to the
// workspace and one generated epilogue kernel reads it once.
// CHECK: //       cuBLAS GEMM, then bias_gelu_erf_k0_gemm_epilogue (grid-stride loop, float4 when aligned)
// CHECK: bias_gelu_erf_k0_gemm_epilogue(
// CHECK-NEXT: const float *__restrict__ product, const float *__restrict__ b,
// CHECK-NEXT: float *__restrict__ y, int64_t B, int vec) {
// CHECK: dev::loadFloat4(product + i);
// CHECK: dev::geluErf(
// CHECK: static sinter_status launch_bias_gelu_erf_k0_gemm(
// CHECK-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
// CHECK-NEXT: const float *__restrict__ w, const float *__restrict__ b,
// CHECK-NEXT: float *__restrict__ y, int64_t B, void *scratch) {
// CHECK-NEXT: float *const product = static_cast<float *>(scratch);
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
// CHECK-NEXT: x, 256, w, 256, 0.0f, product, 512));
// CHECK-NEXT: return launch_bias_gelu_erf_k0_gemm_epilogue(ctx, stream, product, b, y, B);
// The workspace holds the product: B * 512 floats.
// CHECK: return sinterAlign(static_cast<size_t>((B * 512)) * sizeof(float));
// CHECK: void *const scratch = cursor;
module @bias_gelu_erf attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %b: tensor<512xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w, %b) : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>, %d: tensor<512xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
      %s = sinter.add %m, %d : tensor<?x512xf32>, tensor<512xf32>
      %r = sinter.gelu %s : tensor<?x512xf32>
      sinter.yield %r : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== softmax_epilogue.h =====
// A softmax over N fused after the GEMM: the epilogue is a row kernel
// that keeps each product row in shared memory.
// CHECK: //       cuBLAS GEMM, then softmax_epilogue_k0_gemm_epilogue (one warp per row, rows cached in shared memory)
// CHECK: softmax_epilogue_k0_gemm_epilogue(
// CHECK-NEXT: const float *__restrict__ product, float *__restrict__ y, int64_t B) {
// CHECK: product_row[j] = product[{{i[0-9]+}} + j];
// CHECK: teamReduce<kThreads, dev::MaxOp>
// CHECK: teamReduce<kThreads, dev::SumOp>
module @softmax_epilogue attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<256x512xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w) : (tensor<?x256xf32>, tensor<256x512xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<256x512xf32>):
      %m = sinter.matmul %a, %c : tensor<?x256xf32>, tensor<256x512xf32>
      %mx = sinter.max %m dims [1] keepdim : tensor<?x512xf32>
      %d = sinter.sub %m, %mx : tensor<?x512xf32>, tensor<?x1xf32>
      %e = sinter.exp %d : tensor<?x512xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<?x512xf32>
      %p = sinter.div %e, %s : tensor<?x512xf32>, tensor<?x1xf32>
      sinter.yield %p : tensor<?x512xf32>
    }
    return %0 : tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== product_too.h =====
// The product is an output too: cuBLAS writes it there (no workspace) and
// the epilogue reads it back; a transposed input becomes SINTER_OP_T.
// CHECK: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
// CHECK-NEXT: x, 256, w, 256, 0.0f, mm, 512));
// CHECK-NEXT: return launch_product_too_k0_gemm_epilogue(ctx, stream, mm, act, B);
// CHECK: return 0;
module @product_too attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x512xf32> {sinter.name = "mm", sinter.dim_names = ["B", ""]}, tensor<?x512xf32> {sinter.name = "act", sinter.dim_names = ["B", ""]}) {
    %0:2 = sinter.kernel gemm(%x, %w) : (tensor<?x256xf32>, tensor<512x256xf32>) -> (tensor<?x512xf32>, tensor<?x512xf32>) {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>):
      %t = sinter.transpose %c perm [1, 0] : tensor<512x256xf32>
      %m = sinter.matmul %a, %t : tensor<?x256xf32>, tensor<256x512xf32>
      %r = sinter.silu %m : tensor<?x512xf32>
      sinter.yield %m, %r : tensor<?x512xf32>, tensor<?x512xf32>
    }
    return %0#0, %0#1 : tensor<?x512xf32>, tensor<?x512xf32>
  }
}
// -----

// CHECK-LABEL: // ===== batched.h =====
// A batch of products with a shared right operand is one GEMM of H * 16
// rows; two batched operands use the strided batched GEMM.
// CHECK: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_N, (H * 16), 32, 64,
// CHECK-NEXT: 1.0f, a, 64, w, 32, 0.0f, y, 32));
// CHECK: SINTER_RT_TRY(sinter_rt_gemm_batched(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, 16, 16, 64, 1.0f, a,
// CHECK-NEXT: 64, 1024, a_2, 64, 1024, 0.0f, z, 16, 256, H));
module @batched attributes {sinter.dims = {H = 4 : i64}} {
  func.func @forward(%a: tensor<?x16x64xf32> {sinter.role = "input", sinter.name = "a", sinter.dim_names = ["H", "", ""]},
                     %w: tensor<64x32xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x16x32xf32> {sinter.name = "y", sinter.dim_names = ["H", "", ""]}, tensor<?x16x16xf32> {sinter.name = "z", sinter.dim_names = ["H", "", ""]}) {
    %0 = sinter.kernel gemm(%a, %w) : (tensor<?x16x64xf32>, tensor<64x32xf32>) -> tensor<?x16x32xf32> {
    ^bb0(%p: tensor<?x16x64xf32>, %q: tensor<64x32xf32>):
      %m = sinter.matmul %p, %q : tensor<?x16x64xf32>, tensor<64x32xf32>
      sinter.yield %m : tensor<?x16x32xf32>
    }
    %1 = sinter.kernel gemm(%a, %a) : (tensor<?x16x64xf32>, tensor<?x16x64xf32>) -> tensor<?x16x16xf32> {
    ^bb0(%p: tensor<?x16x64xf32>, %q: tensor<?x16x64xf32>):
      %m = sinter.matmul %p, %q transpose_b : tensor<?x16x64xf32>, tensor<?x16x64xf32>
      sinter.yield %m : tensor<?x16x16xf32>
    }
    return %0, %1 : tensor<?x16x32xf32>, tensor<?x16x16xf32>
  }
}
// -----

// CHECK-LABEL: // ===== view.h =====
// A reshape of an input is a view: the GEMM reads the buffer in place as
// [B, 512], and the epilogue (which evaluates no shape op) keeps float4.
// CHECK: //   view_k0_gemm: reshape, matmul, relu
// CHECK-NEXT: //       cuBLAS GEMM, then view_k0_gemm_epilogue (grid-stride loop, float4 when aligned)
// CHECK: SINTER_RT_TRY(sinter_rt_gemm(
// CHECK-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 96, 512, 1.0f, x,
// CHECK-NEXT: 512, w, 512, 0.0f, product, 96));
module @view attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x8x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", ""]},
                     %w: tensor<96x512xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x96xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w) : (tensor<?x8x64xf32>, tensor<96x512xf32>) -> tensor<?x96xf32> {
    ^bb0(%a: tensor<?x8x64xf32>, %b: tensor<96x512xf32>):
      %r = sinter.reshape %a : tensor<?x8x64xf32> -> tensor<?x512xf32>
      %m = sinter.matmul %r, %b transpose_b : tensor<?x512xf32>, tensor<96x512xf32>
      %y = sinter.relu %m : tensor<?x96xf32>
      sinter.yield %y : tensor<?x96xf32>
    }
    return %0 : tensor<?x96xf32>
  }
}
