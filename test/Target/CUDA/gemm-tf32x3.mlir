// GEMM kernels marked 3xtf32 (sinter-select-gemm) call sinter_rt_gemm_tf32x3
// with X's parts in the forward workspace, and the model splits the weight
// once at creation; --fp32-gemm=sgemm and --precision=tf32 keep cuBLAS.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s
// RUN: sinterc %s -emit=cuda --model=bias_relu | FileCheck %s --check-prefix=RELU
// RUN: sinterc %s -emit=cuda --model=bias_relu --fp32-gemm=sgemm | FileCheck %s --check-prefix=SGEMM
// RUN: sinterc %s -emit=cuda --model=bias_relu --precision=tf32 | FileCheck %s --check-prefix=TF32

// relu(x @ w^T + b): the 3xTF32 GEMM with the RELU_BIAS epilogue; the
// header, the plan, the scratch and the creation say so.
// RELU: // Flags:     -emit=cuda --precision=f32
// RELU-NEXT: // Precision: f32 (GEMMs at fp32 accuracy: 3xTF32 on sm_90 where the plan says so, else
// RELU-NEXT: //            CUBLAS_COMPUTE_32F with TF32 off)
// RELU: //   bias_relu_k0_gemm: matmul, add, relu
// RELU-NEXT: //       3xTF32 GEMM (cuBLAS SGEMM off sm_90 or where faster) with the RELU_BIAS epilogue
// RELU-LABEL: static sinter_status launch_bias_relu_k0_gemm(
// RELU:      void *const xParts =
// RELU-NEXT: static_cast<char *>(scratch);
// RELU-NEXT: SINTER_RT_TRY(sinter_rt_gemm_tf32x3(
// RELU-NEXT: ctx, B, 512, 256, 1.0f, x, 256, w, 256, 0.0f, y, 512,
// RELU-NEXT: SINTER_EPILOGUE_RELU_BIAS, b, xParts));
// RELU:      size_t bias_relu_k0_gemm_scratch_bytes(int64_t B) {
// RELU-NEXT: return sinterAlign(sinter_rt_tf32x3_scratch_bytes(B, 256));
// RELU-LABEL: sinter_status bias_relu_prepare_weights(bias_relu *model) {
// RELU-NEXT: SINTER_RT_TRY(sinter_rt_tf32x3_prepare_weight(
// RELU-NEXT: model->ctx, model->params.w, 512, 256, 256));
// RELU-NEXT: return SINTER_OK;
// RELU-LABEL: sinter_status bias_relu_create_in(
// RELU:      status = sinter_rt_init_blas(created->ctx);
// RELU:      status = bias_relu_prepare_weights(created);
// RELU-NEXT: if (status == SINTER_OK)
// RELU-NEXT: status = sinter_rt_check_cuda(created->ctx, cudaStreamSynchronize(stream),

// SGEMM: // Flags:     -emit=cuda --precision=f32 --fp32-gemm=sgemm
// SGEMM-NEXT: // Precision: f32 (GEMMs in fp32: CUBLAS_COMPUTE_32F, TF32 off)
// SGEMM-NOT: sinter_rt_{{gemm_tf32x3|tf32x3}}
// SGEMM: SINTER_RT_TRY(sinter_rt_gemm_epilogue(
// SGEMM-NEXT: ctx, SINTER_PRECISION_FP32,
// SGEMM-NOT: sinter_rt_{{gemm_tf32x3|tf32x3}}

// TF32: // Precision: tf32 (GEMMs on TF32 tensor cores, fp32 accumulation)
// TF32-NOT: sinter_rt_{{gemm_tf32x3|tf32x3}}
// TF32: SINTER_RT_TRY(sinter_rt_gemm_epilogue(
// TF32-NEXT: ctx, SINTER_PRECISION_TF32,
// TF32-NOT: sinter_rt_{{gemm_tf32x3|tf32x3}}
module @bias_relu attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %b: tensor<512xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w, %b) {sinter.gemm_algorithm = "3xtf32"} : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32> {
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

// CHECK-LABEL: // ===== softmax_epilogue.h =====
// A generated epilogue reads the product from the workspace; X's parts
// follow it there.
// CHECK: //       3xTF32 GEMM (cuBLAS SGEMM off sm_90 or where faster), then softmax_epilogue_k0_gemm_epilogue
// CHECK-LABEL: static sinter_status launch_softmax_epilogue_k0_gemm(
// CHECK:      float *const product = static_cast<float *>(scratch);
// CHECK-NEXT: void *const xParts =
// CHECK-NEXT: static_cast<char *>(scratch) + sinterAlign(static_cast<size_t>((B * 512)) * sizeof(float));
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_gemm_tf32x3(
// CHECK-NEXT: ctx, B, 512, 256, 1.0f, x, 256, w, 256, 0.0f, product, 512,
// CHECK-NEXT: SINTER_EPILOGUE_NONE, nullptr, xParts));
// CHECK-NEXT: return launch_softmax_epilogue_k0_gemm_epilogue(ctx, stream, product, y, B);
// CHECK:      return sinterAlign(static_cast<size_t>((B * 512)) * sizeof(float)) +
// CHECK-NEXT: sinterAlign(sinter_rt_tf32x3_scratch_bytes(B, 256));
module @softmax_epilogue attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x256xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<512x256xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<?x512xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel gemm(%x, %w) {sinter.gemm_algorithm = "3xtf32"} : (tensor<?x256xf32>, tensor<512x256xf32>) -> tensor<?x512xf32> {
    ^bb0(%a: tensor<?x256xf32>, %c: tensor<512x256xf32>):
      %m = sinter.matmul %a, %c transpose_b : tensor<?x256xf32>, tensor<512x256xf32>
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
