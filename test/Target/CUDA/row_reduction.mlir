// Row kernels: team per row chosen by row length, rows held in registers
// (several short rows per warp) or cached in shared memory when read by
// more than one pass, reductions level by level,
// segments of a row (group_norm), argmax, symbolic row lengths, few long
// rows split over many blocks, single-pass statistics of long rows.

// A model without GEMMs never sets up cuBLAS.
// NOBLAS-NOT: sinter_rt_init_blas
// NOBLAS: sinter_rt_create(&created->ctx, stream, 0);
// NOBLAS-NOT: sinter_rt_init_blas
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s
// RUN: sinterc %s -emit=cuda --model=softmax | FileCheck %s --check-prefix=NOBLAS

// CHECK-LABEL: // ===== softmax.h =====
// Max-subtracted softmax over rows of 4097: a block of 256 threads per
// row; x is read by three passes, so its row is copied to shared memory
// once.
// CHECK: //   softmax_k0_row_reduction: max, sub, exp, sum, div
// CHECK-NEXT: //       one block of 256 threads per row, rows cached in shared memory
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads)
// CHECK-NEXT: softmax_k0_row_reduction(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ y, int64_t B) {
// CHECK: float *const shared = sharedMemory + threadIdx.x / kThreads * (4097);
// CHECK: float *const x_row = shared + 0;
// CHECK: for (int64_t r = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kThreads; r < B; r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
// CHECK: const int64_t [[BASE:i[0-9]+]] = r * 4097;
// CHECK: { // Copy the rows read more than once.
// CHECK-NEXT: for (int64_t j = tid; j < 4097; j += kThreads) {
// CHECK-NEXT: x_row[j] = x[[[BASE]] + j];
// CHECK: teamSync<kThreads>();
// CHECK: float [[ACC0:acc[0-9]+]] = dev::MaxOp::identity();
// CHECK: = x_row[j];
// CHECK: [[ACC0]] = dev::maximum([[ACC0]], v{{[0-9]+}});
// CHECK: const float [[MAX:red[0-9]+]] = teamReduce<kThreads, dev::MaxOp>([[ACC0]]);
// CHECK: float [[ACC1:acc[0-9]+]] = dev::SumOp::identity();
// CHECK: - [[MAX]];
// CHECK: expf(
// CHECK: const float [[SUM:red[0-9]+]] = teamReduce<kThreads, dev::SumOp>([[ACC1]]);
// CHECK: for (int64_t j = tid; j < 4097; j += kThreads) {
// CHECK: / [[SUM]];
// CHECK: y[{{i[0-9]+}}] = v{{[0-9]+}};
// CHECK: teamSync<kThreads>(); // The next row reuses shared memory.
// CHECK: const size_t sharedBytes = static_cast<size_t>(kRowsPerBlock) * (4097) * sizeof(float);
// CHECK: return launch_softmax_k0_row_reduction_rows<256>(ctx, stream, x, y, B);
module @softmax attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x4097xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x4097xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x4097xf32>) -> tensor<?x4097xf32> {
    ^bb0(%a: tensor<?x4097xf32>):
      %m = sinter.max %a dims [1] keepdim : tensor<?x4097xf32>
      %d = sinter.sub %a, %m : tensor<?x4097xf32>, tensor<?x1xf32>
      %e = sinter.exp %d : tensor<?x4097xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<?x4097xf32>
      %p = sinter.div %e, %s : tensor<?x4097xf32>, tensor<?x1xf32>
      sinter.yield %p : tensor<?x4097xf32>
    }
    return %0 : tensor<?x4097xf32>
  }
}
// -----

// CHECK-LABEL: // ===== short_rows.h =====
// layer_norm over rows of 64: 8 lanes per row (two float4 groups each), 32
// rows per block, the row loaded into registers once (float4 when aligned,
// scalars otherwise) and read from there by two reductions of different
// levels (mean, then the variance of x - mean) and the output loop, which
// reads gamma and beta as float4 groups too, each lane's loaded once before
// its loop over rows (the plan's held_params); no scalar loop over the row.
// CHECK: //   short_rows_k0_row_reduction: mean, sub, mul, mean, add, rsqrt, mul, mul, add
// CHECK-NEXT: //       8 lanes per row, rows held in registers, the params of a row held across rows, float4 when aligned
// CHECK: const int tid = threadIdx.x % kThreads;
// CHECK-NEXT: float4 [[GAMMA:gamma_held[0-9]+]][2];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 2; ++k)
// CHECK-NEXT: [[GAMMA]][k] = dev::loadFour(gamma + 4 * (tid + k * kThreads), vec);
// CHECK-NEXT: float4 [[BETA:beta_held[0-9]+]][2];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 2; ++k)
// CHECK-NEXT: [[BETA]][k] = dev::loadFour(beta + 4 * (tid + k * kThreads), vec);
// CHECK-NEXT: for (int64_t r =
// CHECK: float [[ROW:x_rv[0-9]+]][8];
// CHECK-NEXT: const int64_t [[BASE:i[0-9]+]] = r * 64;
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 2; ++k) {
// CHECK-NEXT: const float4 [[F:x_fv[0-9]+]] = dev::loadFour(x + [[BASE]] + 4 * (tid + k * kThreads), vec);
// CHECK-NEXT: [[ROW]][4 * k] = [[F]].x;
// CHECK: float [[ACC:acc[0-9]+]][4] = {dev::SumOp::identity(), dev::SumOp::identity(), dev::SumOp::identity(), dev::SumOp::identity()};
// CHECK: [[ACC]][l] = [[ACC]][l] + [[ROW]][4 * k + l];
// CHECK: teamReduce<kThreads, dev::SumOp>(dev::treeCombine<dev::SumOp, 4>([[ACC]])) / static_cast<float>(64);
// CHECK: = [[ROW]][4 * k + l] - red
// CHECK: teamReduce<kThreads, dev::SumOp>(dev::treeCombine<dev::SumOp, 4>({{acc[0-9]+}})) / static_cast<float>(64);
// The normalization (x - mean) * rsqrt(var + eps) is rounded once: var +
// eps exact as a pair, its rsqrt to 44 bits as a pair, once per row; the
// factor x - mean stays one float in rows held in registers (a pair would
// spill them).
// CHECK: const dev::FloatPair [[VAR:p[0-9]+]] = dev::twoSum(red{{[0-9]+}}, 1e-05f);
// CHECK-NEXT: const dev::FloatPair [[SCALE:p[0-9]+]] = dev::rsqrtPair([[VAR]]);
// CHECK-NOT: dev::loadFour(gamma
// CHECK: = [[GAMMA]][k];
// CHECK-NOT: dev::loadFour(beta
// CHECK: = [[BETA]][k];
// CHECK: const float [[D:v[0-9]+]] = [[ROW]][4 * k + l] - red
// CHECK-NEXT: = dev::mulPair(dev::FloatPair{[[D]], 0.f}, [[SCALE]]);
// CHECK-NOT: rsqrtf
// CHECK: dev::storeFour(y + [[BASE]] + 4 * (tid + k * kThreads), make_float4(y_out[0], y_out[1], y_out[2], y_out[3]), vec);
// CHECK-NOT: j < 64
// CHECK: return launch_short_rows_k0_row_reduction_rows<8>(
// CHECK-NEXT: ctx, stream, x, gamma, beta, y, B, vec);
module @short_rows attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %g: tensor<64xf32> {sinter.role = "param", sinter.name = "gamma", sinter.dim_names = [""]},
                     %b: tensor<64xf32> {sinter.role = "param", sinter.name = "beta", sinter.dim_names = [""]})
      -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x, %g, %b) : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32> {
    ^bb0(%a: tensor<?x64xf32>, %w: tensor<64xf32>, %c: tensor<64xf32>):
      %m = sinter.mean %a dims [1] keepdim : tensor<?x64xf32>
      %d = sinter.sub %a, %m : tensor<?x64xf32>, tensor<?x1xf32>
      %sq = sinter.mul %d, %d : tensor<?x64xf32>, tensor<?x64xf32>
      %v = sinter.mean %sq dims [1] keepdim : tensor<?x64xf32>
      %eps = sinter.constant dense<9.99999974E-6> : tensor<f32>
      %ve = sinter.add %v, %eps : tensor<?x1xf32>, tensor<f32>
      %r = sinter.rsqrt %ve : tensor<?x1xf32>
      %n = sinter.mul %d, %r : tensor<?x64xf32>, tensor<?x1xf32>
      %s = sinter.mul %n, %w : tensor<?x64xf32>, tensor<64xf32>
      %o = sinter.add %s, %c : tensor<?x64xf32>, tensor<64xf32>
      sinter.yield %o : tensor<?x64xf32>
    }
    return %0 : tensor<?x64xf32>
  }
}
// -----

// CHECK-LABEL: // ===== groups.h =====
// A per-row reduction and a group_norm-like reduction over 4 segments of
// each row (reshape [B, 64] -> [B, 4, 16]): the row count is B, the
// segment results live in shared memory, one warp per segment.
// CHECK-LABEL: groups_k0_row_reduction(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ out0,
// CHECK-NEXT: float *__restrict__ out1, int64_t B) {
// CHECK: const int warp = tid / dev::kWarpSize;
// CHECK: const int lane = tid % dev::kWarpSize;
// CHECK: float *const shared = sharedMemory + threadIdx.x / kThreads * (4 + 64);
// CHECK: float *const [[SEG:segment[0-9]+]] = shared + 0;
// CHECK: float *const x_row = shared + 0 + 4;
// CHECK: teamReduce<kThreads, dev::MaxOp>(
// CHECK: for (int64_t g = warp; g < 4; g += kThreads / dev::kWarpSize) {
// CHECK: for (int64_t q = lane; q < 16; q += dev::kWarpSize) {
// CHECK: = dev::warpReduce<dev::SumOp>(
// CHECK: if (lane == 0) {
// CHECK-NEXT: [[SEG]][g] = {{acc[0-9]+}} / static_cast<float>(16);
// CHECK: teamSync<kThreads>();
// CHECK: const int64_t [[LOCAL:i[0-9]+]] = (((i0 + j) / 64) * 4 + ((i0 + j) / 16) % 4) - {{i[0-9]+}};
// CHECK-NEXT: = [[SEG]][[[LOCAL]]];
module @groups attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x64xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}, tensor<?x1xf32> {sinter.name = "out1", sinter.dim_names = ["B", ""]}) {
    %0:2 = sinter.kernel row_reduction(%x) : (tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x1xf32>) {
    ^bb0(%a: tensor<?x64xf32>):
      %top = sinter.max %a dims [1] keepdim : tensor<?x64xf32>
      %r = sinter.reshape %a : tensor<?x64xf32> -> tensor<?x4x16xf32>
      %m = sinter.mean %r dims [2] keepdim : tensor<?x4x16xf32>
      %d = sinter.sub %r, %m : tensor<?x4x16xf32>, tensor<?x4x1xf32>
      %back = sinter.reshape %d : tensor<?x4x16xf32> -> tensor<?x64xf32>
      sinter.yield %back, %top : tensor<?x64xf32>, tensor<?x1xf32>
    }
    return %0#0, %0#1 : tensor<?x64xf32>, tensor<?x1xf32>
  }
}
// -----

// CHECK-LABEL: // ===== group_norm_nchw.h =====
// group_norm of [B, 8, 4, 4] in 4 groups with a per-channel affine and a
// symbolic batch: rows of 32 (B * 4 of them) held in registers; the output
// loop reads x from the registers through both reshapes (no second load
// of x) and the weight and bias by channel, (group / 16) % 8, once per
// float4 group (its lanes share a channel: a row of W holds whole groups).
// CHECK: //   group_norm_nchw_k0_row_reduction: reshape, mean, sub, mul, mean, add, rsqrt, mul, reshape, reshape, mul, reshape, add
// CHECK-NEXT: //       8 lanes per row, rows held in registers, float4 when aligned
// CHECK-LABEL: group_norm_nchw_k0_row_reduction(
// CHECK: r < (B * 4);
// CHECK: float [[ROW:x_rv[0-9]+]][4];
// CHECK-NEXT: const int64_t [[BASE:i[0-9]+]] = r * 32;
// CHECK: const float4 {{x_fv[0-9]+}} = dev::loadFour(x + [[BASE]] + 4 * (tid + k * kThreads), vec);
// CHECK: float y_out[4];
// CHECK-NEXT: const int64_t [[GROUP:i[0-9]+]] = [[BASE]] + 4 * (tid + k * kThreads);
// CHECK-NEXT: const int64_t [[CH:i[0-9]+]] = ([[GROUP]] / 16) % 8;
// CHECK-NEXT: = weight[[[CH]]];
// CHECK-NEXT: = bias[[[CH]]];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: = [[ROW]][4 * k + l] - red
// CHECK-NOT: x[
// CHECK: dev::storeFour(y + [[BASE]] + 4 * (tid + k * kThreads), make_float4(y_out[0], y_out[1], y_out[2], y_out[3]), vec);
// CHECK-NOT: x[
// CHECK-LABEL: static sinter_status launch_group_norm_nchw_k0_row_reduction_rows(
module @group_norm_nchw attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x8x4x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "", "", ""]},
                     %w: tensor<8xf32> {sinter.role = "param", sinter.name = "weight", sinter.dim_names = [""]},
                     %b: tensor<8xf32> {sinter.role = "param", sinter.name = "bias", sinter.dim_names = [""]})
      -> (tensor<?x8x4x4xf32> {sinter.name = "y", sinter.dim_names = ["B", "", "", ""]}) {
    %0 = sinter.kernel row_reduction(%x, %w, %b) : (tensor<?x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32> {
    ^bb0(%a: tensor<?x8x4x4xf32>, %wa: tensor<8xf32>, %ba: tensor<8xf32>):
      %g = sinter.reshape %a : tensor<?x8x4x4xf32> -> tensor<?x4x32xf32>
      %m = sinter.mean %g dims [2] keepdim : tensor<?x4x32xf32>
      %d = sinter.sub %g, %m : tensor<?x4x32xf32>, tensor<?x4x1xf32>
      %sq = sinter.mul %d, %d : tensor<?x4x32xf32>, tensor<?x4x32xf32>
      %v = sinter.mean %sq dims [2] keepdim : tensor<?x4x32xf32>
      %eps = sinter.constant dense<9.99999974E-6> : tensor<f32>
      %ve = sinter.add %v, %eps : tensor<?x4x1xf32>, tensor<f32>
      %r = sinter.rsqrt %ve : tensor<?x4x1xf32>
      %n = sinter.mul %d, %r : tensor<?x4x32xf32>, tensor<?x4x1xf32>
      %back = sinter.reshape %n : tensor<?x4x32xf32> -> tensor<?x8x4x4xf32>
      %wc = sinter.reshape %wa : tensor<8xf32> -> tensor<8x1x1xf32>
      %s = sinter.mul %back, %wc : tensor<?x8x4x4xf32>, tensor<8x1x1xf32>
      %bc = sinter.reshape %ba : tensor<8xf32> -> tensor<8x1x1xf32>
      %o = sinter.add %s, %bc : tensor<?x8x4x4xf32>, tensor<8x1x1xf32>
      sinter.yield %o : tensor<?x8x4x4xf32>
    }
    return %0 : tensor<?x8x4x4xf32>
  }
}
// -----

// CHECK-LABEL: // ===== argmax.h =====
// argmax: (value, index) pairs combined with the first index winning ties
// and NaN counting as the maximum (the runtime's dev::ArgMaxOp, which the
// generated file does not define again); the output holds int64_t. Each
// thread starts at the row's first index and pushes its elements in index
// order with dev::argPush (one comparison per element); the team combines
// the pairs with dev::ArgMaxOp.
// CHECK-NOT: struct ArgValue
// CHECK-NOT: struct ArgMaxOp
// Rows of 100 are 25 float4 groups: 8 lanes per row, each with up to 4
// groups (float4 loads when x is aligned, scalar loads otherwise), loaded
// whole into registers before the pass (all in flight), the lanes'
// indices 4 * (tid + k * kThreads) + l.
// CHECK: argmax_k0_row_reduction(
// CHECK-NEXT: const float *__restrict__ x, int64_t *__restrict__ idx, int64_t B,
// CHECK-NEXT: int vec) {
// CHECK: float [[V:x_rv[0-9]+]][16];
// CHECK-NEXT: const int64_t [[BASE:i[0-9]+]] = r * 100;
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int k = 0; k < 4; ++k) {
// CHECK-NEXT: if ((tid + k * kThreads) < 25) {
// CHECK-NEXT: const float4 [[F:x_fv[0-9]+]] = dev::loadFour(x + [[BASE]] + 4 * (tid + k * kThreads), vec);
// CHECK-NEXT: [[V]][4 * k] = [[F]].x;
// CHECK: dev::ArgValue [[ACC:acc[0-9]+]] = dev::argStart(dev::ArgMaxOp(), 0);
// CHECK: [[ACC]] = dev::argPush(dev::ArgMaxOp(), [[ACC]], [[V]][4 * k + l], 4 * (tid + k * kThreads) + l);
// CHECK-NOT: if (!vec) {
// CHECK: const dev::ArgValue [[RED:red[0-9]+]] = teamReduce<kThreads, dev::ArgMaxOp>([[ACC]]);
// CHECK: for (int k = 0; k < 1; ++k) if (const int j = tid + k * kThreads; j < 1) {
// CHECK: idx[{{i[0-9]+}}] = [[RED]].index;
// CHECK: sinter_status argmax_forward(
// CHECK-NEXT: argmax *model, int64_t B, const float *x, int64_t *idx,
// CHECK-NEXT: cudaStream_t stream) {
// CHECK: sinter_rt_check_pointer(ctx, "idx", idx, sizeof(int64_t))
module @argmax attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x100xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?xi64> {sinter.name = "idx", sinter.dim_names = ["B"]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x100xf32>) -> tensor<?xi64> {
    ^bb0(%a: tensor<?x100xf32>):
      %i = sinter.argmax %a dims [1] : tensor<?x100xf32>
      sinter.yield %i : tensor<?xi64>
    }
    return %0 : tensor<?xi64>
  }
}
// -----

// CHECK-LABEL: // ===== symbolic_rows.h =====
// Rows of symbolic length C: the host picks the team size and whether the
// row fits in shared memory at run time.
// CHECK: symbolic_rows_k0_row_reduction(
// CHECK-NEXT: const float *__restrict__ x, float *__restrict__ y, int64_t B, int64_t C,
// CHECK-NEXT: int cached) {
// CHECK: float *const shared = sharedMemory + threadIdx.x / kThreads * ((cached ? C : 0));
// CHECK: if (cached) { // Copy the rows read more than once.
// CHECK: = cached ? x_row[j] : x[{{i[0-9]+}}];
// CHECK: const int64_t length = C;
// CHECK-NEXT: const int threads = length <= 1024 ? 32 : length <= 8192 ? 256 : 1024;
// CHECK: const int cached = rowsPerBlock * (C) * static_cast<int64_t>(sizeof(float)) <= 163840;
// CHECK: if (threads == 32)
// CHECK-NEXT: return launch_symbolic_rows_k0_row_reduction_rows<32>(
// CHECK-NEXT: ctx, stream, x, y, B, C, cached);
// CHECK: return launch_symbolic_rows_k0_row_reduction_rows<1024>(
// CHECK-NEXT: ctx, stream, x, y, B, C, cached);
module @symbolic_rows attributes {sinter.dims = {B = 8 : i64, C = 100 : i64}} {
  func.func @forward(%x: tensor<?x?xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", "C"]})
      -> (tensor<?x?xf32> {sinter.name = "y", sinter.dim_names = ["B", "C"]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
    ^bb0(%a: tensor<?x?xf32>):
      %s = sinter.sum %a dims [1] keepdim : tensor<?x?xf32>
      %d = sinter.div %a, %s : tensor<?x?xf32>, tensor<?x1xf32>
      sinter.yield %d : tensor<?x?xf32>
    }
    return %0 : tensor<?x?xf32>
  }
}
// -----

// CHECK-LABEL: // ===== register_rows_1024.h =====
// Rows of x + r of 16384 held in registers by a block of 1024 threads (16
// floats a thread of each), x and r the only inputs: the kernel asks for
// two blocks per SM (32 registers a thread), so that one row's loads
// overlap the other's reductions and outputs.
// CHECK: one block of 1024 threads per row, rows held in registers
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads, 2)
// CHECK-NEXT: register_rows_1024_k0_row_reduction(
module @register_rows_1024 attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x16384xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %r: tensor<?x16384xf32> {sinter.role = "input", sinter.name = "r", sinter.dim_names = ["B", ""]})
      -> (tensor<?x16384xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x, %r) : (tensor<?x16384xf32>, tensor<?x16384xf32>) -> tensor<?x16384xf32> {
    ^bb0(%a0: tensor<?x16384xf32>, %b0: tensor<?x16384xf32>):
      %a = sinter.add %a0, %b0 : tensor<?x16384xf32>, tensor<?x16384xf32>
      %m = sinter.max %a dims [1] keepdim : tensor<?x16384xf32>
      %d = sinter.sub %a, %m : tensor<?x16384xf32>, tensor<?x1xf32>
      %e = sinter.exp %d : tensor<?x16384xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<?x16384xf32>
      %p = sinter.div %e, %s : tensor<?x16384xf32>, tensor<?x1xf32>
      sinter.yield %p : tensor<?x16384xf32>
    }
    return %0 : tensor<?x16384xf32>
  }
}
// -----

// CHECK-LABEL: // ===== weighted_wide_rows.h =====
// Rows of x alone of 16384 with a weight read per element (rms_norm): wide
// rows, held in registers by 256 threads (64 floats a thread), one block
// per SM asked for; the mean of squares, 16 float4 groups a thread, adds in
// double and rounds once.
// CHECK: one block of 256 threads per row, rows held in registers
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads)
// CHECK-NEXT: weighted_wide_rows_k0_row_reduction(
// CHECK: float x_rv0[64];
// CHECK: double [[ACC:acc[0-9]*]] = 0.0;
// CHECK: for (int k = 0; k < 16; ++k) {
// CHECK: [[ACC]] = [[ACC]] + {{v[0-9]+}};
// CHECK: teamReduce<kThreads, dev::SumDoubleOp>([[ACC]]) / static_cast<double>(16384)
// CHECK: launch_weighted_wide_rows_k0_row_reduction_rows<256>(
module @weighted_wide_rows attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x16384xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<16384xf32> {sinter.role = "input", sinter.name = "w", sinter.dim_names = [""]})
      -> (tensor<?x16384xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x, %w) : (tensor<?x16384xf32>, tensor<16384xf32>) -> tensor<?x16384xf32> {
    ^bb0(%a: tensor<?x16384xf32>, %b: tensor<16384xf32>):
      %sq = sinter.mul %a, %a : tensor<?x16384xf32>, tensor<?x16384xf32>
      %m = sinter.mean %sq dims [1] keepdim : tensor<?x16384xf32>
      %r = sinter.rsqrt %m : tensor<?x1xf32>
      %n = sinter.mul %a, %r : tensor<?x16384xf32>, tensor<?x1xf32>
      %y = sinter.mul %n, %b : tensor<?x16384xf32>, tensor<16384xf32>
      sinter.yield %y : tensor<?x16384xf32>
    }
    return %0 : tensor<?x16384xf32>
  }
}
// -----

// CHECK-LABEL: // ===== long_rows.h =====
// Rows of 1200000 do not fit in shared memory, not even a cluster's, and
// are too long to stream through L2: 1024 threads per row, each pass reads the row again (from L2 mostly), with
// float4 loads and stores where x and y are 16-byte aligned.
// CHECK: //       one block of 1024 threads per row, rows re-read (too long for shared memory)
// CHECK-NOT: sharedMemory
// CHECK: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
// CHECK-NEXT: sinter_rt_is_aligned(y, SINTER_RT_VECTOR_ALIGNMENT);
// CHECK: return launch_long_rows_k0_row_reduction_rows<1024>(
// CHECK-NEXT: ctx, stream, x, y, B, vec);
module @long_rows attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x1200000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x1200000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x1200000xf32>) -> tensor<?x1200000xf32> {
    ^bb0(%a: tensor<?x1200000xf32>):
      %s = sinter.sum %a dims [1] keepdim : tensor<?x1200000xf32>
      %d = sinter.div %a, %s : tensor<?x1200000xf32>, tensor<?x1xf32>
      sinter.yield %d : tensor<?x1200000xf32>
    }
    return %0 : tensor<?x1200000xf32>
  }
}
// -----

// CHECK-LABEL: // ===== few_long_rows.h =====
// 16 rows of 100000 (fewer than two per SM): each row is split over many
// blocks, whose threads split its elements in runs of 4 (float4) and sum
// them in double over the block (one block a row stores its sum itself);
// the last block of each row to finish folds the row's partials in slice order (in double, rounded once): no
// final kernel. Then the apply step over every element.
// CHECK: //   few_long_rows_k0_row_reduction: sum, div
// CHECK-NEXT: //       1 reduction(s): per-slice partials, ordered fold, then pointwise apply
// CHECK: few_long_rows_k0_row_reduction_partial0(
// CHECK: float *__restrict__ stats, unsigned *__restrict__ tickets, int64_t splits,
// CHECK: const int64_t column = blockIdx.x;
// CHECK: const float4 x_run04 = vec ? dev::loadFloat4(x + [[I:i[0-9]+]])
// CHECK: const double total = dev::blockReduce<256, dev::SumDoubleOp>(static_cast<double>(acc));
// CHECK-NEXT: if (threadIdx.x == 0) {
// CHECK-NEXT: if (splits > 1) {
// CHECK-NEXT: partial[blockIdx.y * 16 + column] = total;
// CHECK-NEXT: } else {
// CHECK-NEXT: // One slice: the block's total is its column's result.
// CHECK-NEXT: const int64_t p = column;
// CHECK-NEXT: stats[p] = static_cast<float>(total);
// CHECK: if (splits == 1 || !dev::arrivesLast(tickets))
// CHECK-NEXT: return;
// CHECK: fold.push(dev::loadFromL2(partial + s * 16 + p));
// CHECK: double total = dev::foldLanes<256, 1, dev::SumDoubleOp>(fold.result(), splits);
// CHECK: stats[p] = static_cast<float>(total);
// CHECK-NOT: few_long_rows_k0_row_reduction_final0(
// CHECK: few_long_rows_k0_row_reduction_apply(
// CHECK: const int64_t splits0 = sinterColumnSplits(100000 / 4, 256, (16 + 0) / 1);
module @few_long_rows {
  func.func @forward(%x: tensor<16x100000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
      -> (tensor<16x100000xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<16x100000xf32>) -> tensor<16x100000xf32> {
    ^bb0(%a: tensor<16x100000xf32>):
      %s = sinter.sum %a dims [1] keepdim : tensor<16x100000xf32>
      %d = sinter.div %a, %s : tensor<16x100000xf32>, tensor<16x1xf32>
      sinter.yield %d : tensor<16x100000xf32>
    }
    return %0 : tensor<16x100000xf32>
  }
}
// -----

// CHECK-LABEL: // ===== split_group_norm.h =====
// group_norm of [2, 8, 64, 64] in 2 groups (4 rows of 16384, split over
// blocks) with a per-channel weight: the apply step reads x and writes y as
// float4 through the reshapes (both keep runs of 4: the lanes are x[i + l]),
// its statistics and weight once per group of four.
// CHECK-LABEL: split_group_norm_k0_row_reduction_apply(
// CHECK: if (vec) {
// CHECK: const int64_t i = q * 4;
// CHECK: const float4 [[X:x_v[0-9]+]]4 = dev::loadFloat4(x + i);
// CHECK: const int64_t [[G:i[0-9]+]] = (i / 32768) * 2 + (i / 16384) % 2;
// CHECK-NEXT: = stats0[[[G]]];
// CHECK: const int64_t [[C:i[0-9]+]] = (i / 4096) % 8;
// CHECK-NEXT: = w[[[C]]];
// CHECK: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: = dev::mulPair(dev::twoSum([[X]][l], -(v{{[0-9]+}})), p{{[0-9]+}});
// CHECK: dev::storeFloat4(y + i, make_float4(y_out[0], y_out[1], y_out[2], y_out[3]));
// CHECK: const int vec = 64 % 4 == 0 &&
module @split_group_norm {
  func.func @forward(%x: tensor<2x8x64x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", "", "", ""]},
                     %w: tensor<8xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = [""]})
      -> (tensor<2x8x64x64xf32> {sinter.name = "y", sinter.dim_names = ["", "", "", ""]}) {
    %0 = sinter.kernel row_reduction(%x, %w) : (tensor<2x8x64x64xf32>, tensor<8xf32>) -> tensor<2x8x64x64xf32> {
    ^bb0(%a: tensor<2x8x64x64xf32>, %wa: tensor<8xf32>):
      %g = sinter.reshape %a : tensor<2x8x64x64xf32> -> tensor<2x2x16384xf32>
      %m = sinter.mean %g dims [2] keepdim : tensor<2x2x16384xf32>
      %d = sinter.sub %g, %m : tensor<2x2x16384xf32>, tensor<2x2x1xf32>
      %sq = sinter.mul %d, %d : tensor<2x2x16384xf32>, tensor<2x2x16384xf32>
      %v = sinter.mean %sq dims [2] keepdim : tensor<2x2x16384xf32>
      %r = sinter.rsqrt %v : tensor<2x2x1xf32>
      %n = sinter.mul %d, %r : tensor<2x2x16384xf32>, tensor<2x2x1xf32>
      %back = sinter.reshape %n : tensor<2x2x16384xf32> -> tensor<2x8x64x64xf32>
      %wc = sinter.reshape %wa : tensor<8xf32> -> tensor<8x1x1xf32>
      %o = sinter.mul %back, %wc : tensor<2x8x64x64xf32>, tensor<8x1x1xf32>
      sinter.yield %o : tensor<2x8x64x64xf32>
    }
    return %0 : tensor<2x8x64x64xf32>
  }
}
// -----

// CHECK-LABEL: // ===== split_odd_reshape.h =====
// An apply step through a reshape to rows of 5: the lanes leave runs of 4
// there, so each lane reads its own element of x (still stored as float4).
// CHECK-LABEL: split_odd_reshape_k0_row_reduction_apply(
// CHECK: if (vec) {
// CHECK: for (int l = 0; l < 4; ++l) {
// CHECK-NEXT: const int64_t [[L:i[0-9]+]] = {{.*}} + l;
// CHECK-NEXT: = x[[[L]]];
// CHECK: dev::storeFloat4(y + i,
module @split_odd_reshape {
  func.func @forward(%x: tensor<2x40000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
      -> (tensor<2x40000xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<2x40000xf32>) -> tensor<2x40000xf32> {
    ^bb0(%a: tensor<2x40000xf32>):
      %s = sinter.sum %a dims [1] keepdim : tensor<2x40000xf32>
      %r = sinter.reshape %a : tensor<2x40000xf32> -> tensor<2x8000x5xf32>
      %e = sinter.exp %r : tensor<2x8000x5xf32>
      %back = sinter.reshape %e : tensor<2x8000x5xf32> -> tensor<2x40000xf32>
      %d = sinter.div %back, %s : tensor<2x40000xf32>, tensor<2x1xf32>
      sinter.yield %d : tensor<2x40000xf32>
    }
    return %0 : tensor<2x40000xf32>
  }
}
// -----

// CHECK-LABEL: // ===== online_softmax.h =====
// Softmax over rows of 1200000 (too long for a cluster's shared memory or
// to stream through L2): the max and
// the sum of exp(x - max) in one pass (online softmax), then the output
// pass; x is read twice. The float4 loop pushes each group of four at
// once. The team reduces the max, then the threads' sums rescaled to it
// (in double, rounded once).
// CHECK: one block of 1024 threads per row, rows re-read (too long for shared memory)
// CHECK: dev::OnlineSoftmax [[ACC:acc[0-9]+]] = dev::OnlineSoftmaxOp::identity();
// CHECK: float [[FOUR:four[0-9]+]][4];
// CHECK: [[FOUR]][l] = x_v{{[0-9]+}}[l];
// CHECK: [[ACC]] = dev::onlineSoftmaxPushFour([[ACC]], [[FOUR]]);
// CHECK: if (!vec) {
// CHECK: [[ACC]] = dev::onlineSoftmaxPush([[ACC]], v{{[0-9]+}});
// CHECK: const float [[MAX:red[0-9]+]] = teamReduce<kThreads, dev::MaxOp>([[ACC]].max);
// CHECK-NEXT: const float [[SUM:red[0-9]+]] = static_cast<float>(teamReduce<kThreads, dev::SumDoubleOp>(dev::onlineSoftmaxRescale(static_cast<double>([[ACC]].sum), [[ACC]].max, [[MAX]])));
// CHECK-NOT: teamReduce
// CHECK: - [[MAX]];
// CHECK: / [[SUM]];
module @online_softmax attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x1200000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x1200000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x1200000xf32>) -> tensor<?x1200000xf32> {
    ^bb0(%a: tensor<?x1200000xf32>):
      %m = sinter.max %a dims [1] keepdim : tensor<?x1200000xf32>
      %d = sinter.sub %a, %m : tensor<?x1200000xf32>, tensor<?x1xf32>
      %e = sinter.exp %d : tensor<?x1200000xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<?x1200000xf32>
      %p = sinter.div %e, %s : tensor<?x1200000xf32>, tensor<?x1xf32>
      sinter.yield %p : tensor<?x1200000xf32>
    }
    return %0 : tensor<?x1200000xf32>
  }
}
// -----

// CHECK-LABEL: // ===== welford.h =====
// The mean and the variance of rows of 1200000 in one pass (Welford): the
// variance is M2 over the row length.
// CHECK: dev::Welford [[ACC:acc[0-9]+]] = dev::WelfordOp::identity();
// CHECK: [[ACC]] = dev::welfordPush([[ACC]], v{{[0-9]+}});
// CHECK: const dev::Welford [[STATE:state[0-9]+]] = teamReduce<kThreads, dev::WelfordOp>([[ACC]]);
// CHECK-NEXT: const float [[MEAN:red[0-9]+]] = [[STATE]].mean;
// CHECK-NEXT: const float [[VAR:red[0-9]+]] = [[STATE]].m2 / static_cast<float>(1200000);
// CHECK-NEXT: = dev::twoSum([[VAR]], 1e-05f);
// CHECK-NOT: teamReduce
// CHECK: -([[MEAN]])
module @welford attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x1200000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x1200000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel row_reduction(%x) : (tensor<?x1200000xf32>) -> tensor<?x1200000xf32> {
    ^bb0(%a: tensor<?x1200000xf32>):
      %m = sinter.mean %a dims [1] keepdim : tensor<?x1200000xf32>
      %d = sinter.sub %a, %m : tensor<?x1200000xf32>, tensor<?x1xf32>
      %sq = sinter.mul %d, %d : tensor<?x1200000xf32>, tensor<?x1200000xf32>
      %v = sinter.mean %sq dims [1] keepdim : tensor<?x1200000xf32>
      %eps = sinter.constant dense<9.99999974E-6> : tensor<f32>
      %ve = sinter.add %v, %eps : tensor<?x1xf32>, tensor<f32>
      %r = sinter.rsqrt %ve : tensor<?x1xf32>
      %n = sinter.mul %d, %r : tensor<?x1200000xf32>, tensor<?x1xf32>
      sinter.yield %n : tensor<?x1200000xf32>
    }
    return %0 : tensor<?x1200000xf32>
  }
}
