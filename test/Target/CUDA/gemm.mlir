// GEMM kernels: the library call (row-major, fp32 compute unless asked),
// cuBLASLt epilogues when the fused ops match exactly, otherwise one
// generated epilogue kernel reading the product once.
// RUN: sinterc %s -emit=cuda --model=plain | FileCheck %s --check-prefix=PLAIN
// RUN: sinterc %s -emit=cuda --model=plain --precision=tf32 | FileCheck %s --check-prefix=TF32
// RUN: sinterc %s -emit=cuda --model=bias_relu | FileCheck %s --check-prefix=RELU
// RUN: sinterc %s -emit=cuda --model=bias_gelu_tanh | FileCheck %s --check-prefix=GELU
// RUN: sinterc %s -emit=cuda --model=bias_only | FileCheck %s --check-prefix=BIAS
// RUN: sinterc %s -emit=cuda --model=bias_gelu_erf | FileCheck %s --check-prefix=ERF
// RUN: sinterc %s -emit=cuda --model=softmax_epilogue | FileCheck %s --check-prefix=ROWS
// RUN: sinterc %s -emit=cuda --model=product_too | FileCheck %s --check-prefix=BOTH
// RUN: sinterc %s -emit=cuda --model=batched | FileCheck %s --check-prefix=BATCHED
// RUN: sinterc %s -emit=cuda --model=view | FileCheck %s --check-prefix=VIEW

module {
  // x @ w^T with nothing fused: cuBLAS writes the output.
  // PLAIN: // Precision: f32 (GEMMs in fp32: CUBLAS_COMPUTE_32F, TF32 off)
  // PLAIN: //   plain_k0_gemm: matmul
  // PLAIN-NEXT: //       cuBLAS GEMM
  // PLAIN: static sinter_status launch_plain_k0_gemm(
  // PLAIN-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
  // PLAIN-NEXT: const float *__restrict__ w, float *__restrict__ y, int64_t B) {
  // PLAIN: SINTER_RT_TRY(sinter_rt_gemm(
  // PLAIN-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
  // PLAIN-NEXT: x, 256, w, 256, 0.0f, y, 512));
  // PLAIN: SINTER_RT_TRY(launch_plain_k0_gemm(ctx, stream, x, model->params.w, y, B));
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

  // + bias then relu: cuBLASLt's RELU_BIAS epilogue, no generated kernel.
  // RELU: //   bias_relu_k0_gemm: matmul, add, relu
  // RELU-NEXT: //       cuBLASLt GEMM with the RELU_BIAS epilogue
  // RELU-NOT: __global__
  // RELU: SINTER_RT_TRY(sinter_rt_gemm_epilogue(
  // RELU-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
  // RELU-NEXT: x, 256, w, 256, 0.0f, y, 512, SINTER_EPILOGUE_RELU_BIAS, b));
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

  // gelu(approximate=tanh) is cuBLASLt's GELU; the bias comes first in the add.
  // GELU: SINTER_EPILOGUE_GELU_TANH_BIAS, b)
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

  // BIAS alone, with the bias as [1, N].
  // BIAS: SINTER_EPILOGUE_BIAS, b)
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

  // The default (erf) gelu is not cuBLASLt's: the product goes to the
  // workspace and one generated epilogue kernel reads it once.
  // ERF: //       cuBLAS GEMM, then bias_gelu_erf_k0_gemm_epilogue (grid-stride loop, float4 when aligned)
  // ERF: bias_gelu_erf_k0_gemm_epilogue(
  // ERF-NEXT: const float *__restrict__ product, const float *__restrict__ b,
  // ERF-NEXT: float *__restrict__ y, int64_t B, int vec) {
  // ERF: dev::loadFloat4(product + i);
  // ERF: dev::geluErf(
  // ERF: static sinter_status launch_bias_gelu_erf_k0_gemm(
  // ERF-NEXT: sinter_rt_context *ctx, cudaStream_t stream, const float *__restrict__ x,
  // ERF-NEXT: const float *__restrict__ w, const float *__restrict__ b,
  // ERF-NEXT: float *__restrict__ y, int64_t B, void *scratch) {
  // ERF-NEXT: float *const product = static_cast<float *>(scratch);
  // ERF-NEXT: SINTER_RT_TRY(sinter_rt_gemm(
  // ERF-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
  // ERF-NEXT: x, 256, w, 256, 0.0f, product, 512));
  // ERF-NEXT: return launch_bias_gelu_erf_k0_gemm_epilogue(ctx, stream, product, b, y, B);
  // The workspace holds the product: B * 512 floats.
  // ERF: return sinterAlign(static_cast<size_t>((B * 512)) * sizeof(float));
  // ERF: void *const scratch = cursor;
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

  // A softmax over N fused after the GEMM: the epilogue is a row kernel
  // that keeps each product row in shared memory.
  // ROWS: //       cuBLAS GEMM, then softmax_epilogue_k0_gemm_epilogue (one warp per row, rows cached in shared memory)
  // ROWS: softmax_epilogue_k0_gemm_epilogue(
  // ROWS-NEXT: const float *__restrict__ product, float *__restrict__ y, int64_t B) {
  // ROWS: product_row[j] = product[{{i[0-9]+}} + j];
  // ROWS: teamReduce<kThreads, dev::MaxOp>
  // ROWS: teamReduce<kThreads, dev::SumOp>
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

  // The product is an output too: cuBLAS writes it there (no workspace) and
  // the epilogue reads it back; a transposed input becomes SINTER_OP_T.
  // BOTH: SINTER_RT_TRY(sinter_rt_gemm(
  // BOTH-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 512, 256, 1.0f,
  // BOTH-NEXT: x, 256, w, 256, 0.0f, mm, 512));
  // BOTH-NEXT: return launch_product_too_k0_gemm_epilogue(ctx, stream, mm, act, B);
  // BOTH: return 0;
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

  // A batch of products with a shared right operand is one GEMM of H * 16
  // rows; two batched operands use the strided batched GEMM.
  // BATCHED: SINTER_RT_TRY(sinter_rt_gemm(
  // BATCHED-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_N, (H * 16), 32, 64,
  // BATCHED-NEXT: 1.0f, a, 64, w, 32, 0.0f, y, 32));
  // BATCHED: SINTER_RT_TRY(sinter_rt_gemm_batched(
  // BATCHED-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, 16, 16, 64, 1.0f, a,
  // BATCHED-NEXT: 64, 1024, a_2, 64, 1024, 0.0f, z, 16, 256, H));
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

  // A reshape of an input is a view: the GEMM reads the buffer in place as
  // [B, 512], and the epilogue (which evaluates no shape op) keeps float4.
  // VIEW: //   view_k0_gemm: reshape, matmul, relu
  // VIEW-NEXT: //       cuBLAS GEMM, then view_k0_gemm_epilogue (grid-stride loop, float4 when aligned)
  // VIEW: SINTER_RT_TRY(sinter_rt_gemm(
  // VIEW-NEXT: ctx, SINTER_PRECISION_FP32, SINTER_OP_N, SINTER_OP_T, B, 96, 512, 1.0f, x,
  // VIEW-NEXT: 512, w, 512, 0.0f, product, 96));
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
}
