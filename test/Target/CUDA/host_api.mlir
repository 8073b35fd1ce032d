// The host API of a model: the header (params struct, create, forward,
// workspace_bytes, set_workspace, destroy, last_error), the checks forward
// makes before launching anything, @prepare at create time, the workspace
// plan (in a workspace of the model's own or a lent one), and results that
// are copies.
// RUN: sinter-opt --sinter-plan-kernels --mlir-print-debuginfo %s | sinter-translate --sinter-to-cuda | FileCheck %s

// CHECK-LABEL: // ===== host.h =====
// CHECK: #include "sinter/rt.h"
// CHECK: extern "C" {
// CHECK: typedef struct host_params {
// CHECK-NEXT: const float *w; /**< float[4][16], init linear_default(16) */
// CHECK-NEXT: const float *w2; /**< float[32][16], init linear_default(16) */
// CHECK-NEXT: } host_params;
// CHECK: typedef struct host host;
// CHECK: sinter_status host_create(
// CHECK-NEXT: host **model, const host_params *params, cudaStream_t stream);
// Every output has B rows: B = 0 is an empty batch, which runs nothing.
// CHECK: /// B: a symbolic dim, at least 0 (the model's example value is 8);
// CHECK-NEXT: ///   with 0, every output is empty and nothing runs.
// CHECK-NEXT: /// T: a symbolic dim, at least 1 (the model's example value is 8).
// CHECK: /// x_2: output, float[B][16], 'x' in the model.
// CHECK: sinter_status host_forward(
// CHECK-NEXT: host *model, int64_t B, int64_t T, const float *x, const float *y, float *h,
// CHECK-NEXT: float *out1, float *x_2, float *b, float *out4, cudaStream_t stream);
// CHECK: sinter_status host_workspace_bytes(int64_t B, int64_t T, size_t *bytes);
// CHECK: /// Lends the model a workspace for the following forward calls,
// CHECK: sinter_status host_set_workspace(host *model, void *workspace, size_t bytes);
// CHECK: sinter_status host_destroy(host *model);
// CHECK: const char *host_last_error(const host *model);

// CHECK-LABEL: // ===== host.cu =====
// CHECK: // Fusion plan of @prepare (run once by host_create):
// CHECK-NEXT: //   host_p0_column_reduction: sum
// CHECK: // Fusion plan of @forward (run by host_forward):
// CHECK-NEXT: //   host_k0_matvec: matmul
// CHECK: //   host_k1_gemm: matmul
// CHECK: //   host_k2_column_reduction: mean, sub, mul, mean
// CHECK: //   host_k4_pointwise: add

// Scratch areas of kernels are sized by functions of the dims; a statistic
// the kernel returns as it is (the mean) needs no area of its own: its final
// kernel writes the output. The variance, which the mean's Welford states
// compute, needs its result and no partials of its own.
// CHECK: size_t host_k2_column_reduction_scratch_bytes(int64_t B) {
// CHECK-NEXT: return sinterAlign(static_cast<size_t>(32) * sizeof(float)) +
// CHECK-NEXT: sinterAlign(static_cast<size_t>(sinterColumnSplits(B, 32, (32 + 31) / 32)) * 32 * sizeof(dev::Welford));

// The model object owns the runtime context, the prepared values and the
// workspace.
// CHECK: struct host {
// CHECK-NEXT: sinter_rt_context *ctx;
// CHECK-NEXT: host_params params;
// CHECK-NEXT: float *prepared0; // float[1][16], from @prepare
// CHECK-NEXT: void *arena; // the prepared values (and @prepare's scratch), unless lent
// CHECK-NEXT: unsigned *tickets; // split reductions' counters, in the arena
// CHECK-NEXT: void *workspace;
// CHECK-NEXT: size_t workspaceBytes;
// CHECK-NEXT: void *lentWorkspace; // by host_set_workspace, or NULL
// CHECK-NEXT: size_t lentBytes;

// Intermediates get workspace slots; kernels share one scratch area.
// CHECK: size_t host_forward_bytes(int64_t B, int64_t T) {
// CHECK-NEXT: (void)T;
// CHECK-NEXT: return sinterAlign(static_cast<size_t>((B * 32)) * sizeof(float)) +
// CHECK: host_k2_column_reduction_scratch_bytes(B);

// The workspace grows in stream order, never with a host wait; a lent one
// must be large enough.
// CHECK: sinter_status host_reserve(host *model, size_t bytes, cudaStream_t stream) {
// CHECK-NEXT: if (model->lentWorkspace)
// CHECK-NEXT: return sinter_rt_check_dim(
// CHECK-NEXT: model->ctx, "the bytes lent by host_set_workspace",
// CHECK-NEXT: static_cast<int64_t>(model->lentBytes), static_cast<int64_t>(bytes),
// CHECK-NEXT: INT64_MAX);
// CHECK: model->ctx, cudaFreeAsync(model->workspace, stream), "cudaFreeAsync"));
// CHECK: model->ctx, cudaMallocAsync(&model->workspace, bytes, stream),

// @prepare computes into one block of memory: the tickets of the split
// reduction whose last block folds (@prepare's column sums of w), the
// prepared values, then its scratch.
// CHECK: size_t host_arena_bytes() {
// CHECK-NEXT: return sinterAlign(512 * sizeof(unsigned)) +
// CHECK-NEXT: sinterAlign(static_cast<size_t>(16) * sizeof(float)) +
// CHECK-NEXT: host_p0_column_reduction_scratch_bytes();
// CHECK: sinter_status host_prepare(host *model, char *arena, cudaStream_t stream) {
// CHECK-NEXT: sinter_rt_context *const ctx = model->ctx;
// CHECK-NEXT: model->prepared0 = reinterpret_cast<float *>(arena);
// CHECK-NEXT: arena += sinterAlign(static_cast<size_t>(16) * sizeof(float));
// CHECK-NEXT: char *const prepareScratch = arena;
// CHECK-NEXT: char *cursor = prepareScratch;
// CHECK: SINTER_RT_TRY(launch_host_p0_column_reduction(
// CHECK-NEXT: ctx, stream, model->params.w, model->prepared0, scratch, model->tickets));

// CHECK: sinter_status host_prepared_bytes(size_t *bytes) {
// CHECK: *bytes = host_arena_bytes();
// create is create_in with memory of its own.
// CHECK: sinter_status host_create(
// CHECK: return host_create_in(model, params, nullptr, 0, stream);
// CHECK: sinter_status host_create_in(
// CHECK-NEXT: host **model, const host_params *params, void *memory, size_t bytes,
// CHECK: "params->w2", params->w2, sizeof(float)
// CHECK: sinter_status status = sinter_rt_create(&created->ctx, stream, 0);
// CHECK-NEXT: if (status == SINTER_OK)
// CHECK-NEXT: status = sinter_rt_init_blas(created->ctx);
// Lent memory must be aligned and large enough; without it, one cudaMalloc.
// CHECK: status = sinter_rt_check_pointer(created->ctx, "memory", memory, 256);
// CHECK: created->ctx, "the bytes lent to host_create_in",
// CHECK-NEXT: static_cast<int64_t>(bytes), static_cast<int64_t>(host_arena_bytes()),
// CHECK: created->ctx, cudaMalloc(&created->arena, host_arena_bytes()),
// The tickets start at 0, before @prepare's launches.
// CHECK: created->tickets = reinterpret_cast<unsigned *>(arena);
// CHECK-NEXT: arena += sinterAlign(512 * sizeof(unsigned));
// CHECK-NEXT: status = sinter_rt_check_cuda(
// CHECK-NEXT: created->ctx,
// CHECK-NEXT: cudaMemsetAsync(created->tickets, 0, sinterAlign(512 * sizeof(unsigned)), stream),
// CHECK: status = host_prepare(created, arena, stream);
// Creation waits for @prepare, so that its errors surface here.
// CHECK-NEXT: if (status == SINTER_OK)
// CHECK-NEXT: status = sinter_rt_check_cuda(created->ctx, cudaStreamSynchronize(stream),

// Dims, the empty batch (before the pointers: empty tensors may have none),
// the shape relations the types cannot express, then every pointer.
// CHECK: sinter_status host_forward(
// CHECK: SINTER_RT_TRY(sinter_rt_set_stream(ctx, stream));
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_dim(ctx, "B", B, 0, SINTER_RT_MAX_DIM));
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_dim(ctx, "T", T, 1, SINTER_RT_MAX_DIM));
// CHECK-NEXT: // Every output is empty: nothing to run.
// CHECK-NEXT: if (B == 0)
// CHECK-NEXT: return SINTER_OK;
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_dim(
// CHECK-NEXT: ctx, "broadcast dim #0 of sinter.add at host_api.mlir:{{[0-9]+}} (must equal B)",
// CHECK-NEXT: T, B, B));
// CHECK: SINTER_RT_TRY(sinter_rt_check_pointer(ctx, "x", x, sizeof(float)));
// CHECK: SINTER_RT_TRY(sinter_rt_check_pointer(ctx, "out4", out4, sizeof(float)));
// CHECK: SINTER_RT_TRY(host_reserve(model, host_forward_bytes(B, T), stream));
// CHECK: char *cursor = static_cast<char *>(
// CHECK-NEXT: model->lentWorkspace ? model->lentWorkspace : model->workspace);
// CHECK: char *const slot0 = cursor;
// CHECK: void *const scratch = cursor;
// CHECK: float *const k1_r0 = reinterpret_cast<float *>(slot0);
// Kernels in program order, prepared values from the model.
// CHECK: SINTER_RT_TRY(launch_host_k0_matvec(ctx, stream, x, model->prepared0, h, B));
// CHECK: SINTER_RT_TRY(launch_host_k1_gemm(
// CHECK-NEXT: ctx, stream, x, model->params.w2, k1_r0, B));
// CHECK: SINTER_RT_TRY(launch_host_k2_column_reduction(
// CHECK-NEXT: ctx, stream, k1_r0, k2_r0, k2_r1, B, scratch));
// A returned input and a value returned twice are copies.
// CHECK: cudaMemcpyAsync(x_2, x, static_cast<size_t>((B * 16)) * sizeof(float), cudaMemcpyDeviceToDevice, stream),
// CHECK: cudaMemcpyAsync(out4, b, static_cast<size_t>((B * 32)) * sizeof(float), cudaMemcpyDeviceToDevice, stream),

// CHECK: sinter_status host_workspace_bytes(int64_t B, int64_t T, size_t *bytes) {
// CHECK: sinter_rt_check_dim(nullptr, "B", B, 0, SINTER_RT_MAX_DIM)
// CHECK: if (B == 0) {
// CHECK-NEXT: *bytes = 0;
// CHECK-NEXT: return SINTER_OK;
// CHECK-NEXT: }
// CHECK: *bytes = host_forward_bytes(B, T);

// A lent workspace is checked for alignment and never freed.
// CHECK: sinter_status host_set_workspace(host *model, void *workspace, size_t bytes) {
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, "model", model, 1));
// CHECK-NEXT: if (workspace)
// CHECK-NEXT: SINTER_RT_TRY(sinter_rt_check_pointer(
// CHECK-NEXT: model->ctx, "workspace", workspace, 256));
// CHECK-NEXT: model->lentWorkspace = workspace;
// CHECK-NEXT: model->lentBytes = workspace ? bytes : 0;

// CHECK: sinter_status host_destroy(host *model) {
// Queued work that uses the buffers finishes before they are freed.
// CHECK: sinter_status status = sinter_rt_check_cuda(
// CHECK-NEXT: model->ctx, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
// CHECK-NOT: lentWorkspace
// CHECK: release(model->workspace);
// CHECK-NOT: lentWorkspace
// CHECK: release(model->arena);
// CHECK: sinter_rt_destroy(model->ctx);

module @host attributes {sinter.dims = {B = 8 : i64, T = 8 : i64}} {
  func.func @prepare(%arg0: tensor<4x16xf32> {sinter.dim_names = ["", ""], sinter.init = {args = [1.600000e+01], kind = "linear_default"}, sinter.name = "w", sinter.role = "param"}) -> (tensor<1x16xf32> {sinter.name = "prepared0"}) {
    %0 = sinter.kernel column_reduction(%arg0) : (tensor<4x16xf32>) -> tensor<1x16xf32> {
    ^bb0(%arg1: tensor<4x16xf32>):
      %1 = sinter.sum %arg1 dims [0] keepdim : tensor<4x16xf32>
      sinter.yield %1 : tensor<1x16xf32>
    }
    return %0 : tensor<1x16xf32>
  }
  func.func @forward(%arg0: tensor<?x16xf32> {sinter.dim_names = ["B", ""], sinter.name = "x", sinter.role = "input"}, %arg1: tensor<?x16xf32> {sinter.dim_names = ["T", ""], sinter.name = "y", sinter.role = "input"}, %arg2: tensor<32x16xf32> {sinter.dim_names = ["", ""], sinter.init = {args = [1.600000e+01], kind = "linear_default"}, sinter.name = "w2", sinter.role = "param"}, %arg3: tensor<1x16xf32> {sinter.name = "prepared0", sinter.prepared = 0 : i64, sinter.role = "prepared"}) -> (tensor<?x1xf32> {sinter.dim_names = ["B", ""], sinter.name = "h"}, tensor<?x16xf32> {sinter.dim_names = ["B", ""], sinter.name = "out1"}, tensor<?x16xf32> {sinter.dim_names = ["B", ""], sinter.name = "x"}, tensor<?x32xf32> {sinter.dim_names = ["B", ""], sinter.name = "b"}, tensor<?x32xf32> {sinter.dim_names = ["B", ""], sinter.name = "out4"}) attributes {sinter.original_arguments = [{sinter.dim_names = ["B", ""], sinter.name = "x", sinter.role = "input", sinter.type = tensor<?x16xf32>}, {sinter.dim_names = ["T", ""], sinter.name = "y", sinter.role = "input", sinter.type = tensor<?x16xf32>}, {sinter.dim_names = ["", ""], sinter.init = {args = [1.600000e+01], kind = "linear_default"}, sinter.name = "w", sinter.role = "param", sinter.type = tensor<4x16xf32>}, {sinter.dim_names = ["", ""], sinter.init = {args = [1.600000e+01], kind = "linear_default"}, sinter.name = "w2", sinter.role = "param", sinter.type = tensor<32x16xf32>}]} {
    %0 = sinter.kernel matvec(%arg0, %arg3) : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x1xf32> {
    ^bb0(%arg4: tensor<?x16xf32>, %arg5: tensor<1x16xf32>):
      %5 = sinter.matmul %arg4, %arg5 transpose_b : tensor<?x16xf32>, tensor<1x16xf32>
      sinter.yield %5 : tensor<?x1xf32>
    }
    %1 = sinter.kernel gemm(%arg0, %arg2) : (tensor<?x16xf32>, tensor<32x16xf32>) -> tensor<?x32xf32> {
    ^bb0(%arg4: tensor<?x16xf32>, %arg5: tensor<32x16xf32>):
      %5 = sinter.matmul %arg4, %arg5 transpose_b : tensor<?x16xf32>, tensor<32x16xf32>
      sinter.yield %5 : tensor<?x32xf32>
    }
    %2:2 = sinter.kernel column_reduction(%1) : (tensor<?x32xf32>) -> (tensor<1x32xf32>, tensor<1x32xf32>) {
    ^bb0(%arg4: tensor<?x32xf32>):
      %5 = sinter.mean %arg4 dims [0] keepdim : tensor<?x32xf32>
      %6 = sinter.sub %arg4, %5 : tensor<?x32xf32>, tensor<1x32xf32>
      %7 = sinter.mul %6, %6 : tensor<?x32xf32>, tensor<?x32xf32>
      %8 = sinter.mean %7 dims [0] keepdim : tensor<?x32xf32>
      %9 = sinter.constant dense<9.99999974E-6> : tensor<f32>
      %10 = sinter.add %8, %9 : tensor<1x32xf32>, tensor<f32>
      %11 = sinter.rsqrt %10 : tensor<1x32xf32>
      sinter.yield %5, %11 : tensor<1x32xf32>, tensor<1x32xf32>
    }
    %3 = sinter.kernel pointwise(%1, %2#0, %2#1) : (tensor<?x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>) -> tensor<?x32xf32> {
    ^bb0(%arg4: tensor<?x32xf32>, %arg5: tensor<1x32xf32>, %arg6: tensor<1x32xf32>):
      %5 = sinter.sub %arg4, %arg5 : tensor<?x32xf32>, tensor<1x32xf32>
      %6 = sinter.mul %5, %arg6 : tensor<?x32xf32>, tensor<1x32xf32>
      sinter.yield %6 : tensor<?x32xf32>
    }
    %4 = sinter.kernel pointwise(%arg0, %arg1) : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32> {
    ^bb0(%arg4: tensor<?x16xf32>, %arg5: tensor<?x16xf32>):
      %5 = sinter.add %arg4, %arg5 : tensor<?x16xf32>, tensor<?x16xf32>
      sinter.yield %5 : tensor<?x16xf32>
    }
    return %0, %4, %arg0, %3, %3 : tensor<?x1xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>
  }
}

