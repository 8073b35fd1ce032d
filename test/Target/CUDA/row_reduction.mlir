// Row kernels: team per row chosen by row length, rows cached in shared
// memory when read by more than one pass, reductions level by level,
// segments of a row (group_norm), argmax, symbolic row lengths, few long
// rows split over many blocks, single-pass statistics of long rows.
// RUN: sinterc %s -emit=cuda --model=softmax | FileCheck %s --check-prefix=SOFTMAX
// RUN: sinterc %s -emit=cuda --model=softmax | FileCheck %s --check-prefix=NOBLAS
// RUN: sinterc %s -emit=cuda --model=short_rows | FileCheck %s --check-prefix=WARP
// RUN: sinterc %s -emit=cuda --model=groups | FileCheck %s --check-prefix=GROUPS
// RUN: sinterc %s -emit=cuda --model=argmax | FileCheck %s --check-prefix=ARGMAX
// RUN: sinterc %s -emit=cuda --model=symbolic_rows | FileCheck %s --check-prefix=SYMBOLIC
// RUN: sinterc %s -emit=cuda --model=long_rows | FileCheck %s --check-prefix=LONG
// RUN: sinterc %s -emit=cuda --model=few_long_rows | FileCheck %s --check-prefix=SPLIT
// RUN: sinterc %s -emit=cuda --model=online_softmax | FileCheck %s --check-prefix=ONLINE
// RUN: sinterc %s -emit=cuda --model=welford | FileCheck %s --check-prefix=WELFORD

// A model without GEMMs never sets up cuBLAS.
// NOBLAS-NOT: sinter_rt_init_blas
// NOBLAS: sinter_rt_create(&created->ctx, stream, 0);
// NOBLAS-NOT: sinter_rt_init_blas

module {
  // Max-subtracted softmax over rows of 4097: a block of 256 threads per
  // row; x is read by three passes, so its row is copied to shared memory
  // once.
  // SOFTMAX: //   softmax_k0_row_reduction: max, sub, exp, sum, div
  // SOFTMAX-NEXT: //       one block of 256 threads per row, rows cached in shared memory
  // SOFTMAX: template <int kThreads>{{$}}
  // SOFTMAX-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads)
  // SOFTMAX-NEXT: softmax_k0_row_reduction(
  // SOFTMAX-NEXT: const float *__restrict__ x, float *__restrict__ y, int64_t B) {
  // SOFTMAX: float *const shared = sharedMemory + threadIdx.x / kThreads * (4097);
  // SOFTMAX: float *const x_row = shared + 0;
  // SOFTMAX: for (int64_t r = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kThreads; r < B; r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
  // SOFTMAX: const int64_t [[BASE:i[0-9]+]] = r * 4097;
  // SOFTMAX: { // Copy the rows read more than once.
  // SOFTMAX-NEXT: for (int64_t j = tid; j < 4097; j += kThreads) {
  // SOFTMAX-NEXT: x_row[j] = x[[[BASE]] + j];
  // SOFTMAX: teamSync<kThreads>();
  // SOFTMAX: float [[ACC0:acc[0-9]+]] = dev::MaxOp::identity();
  // SOFTMAX: = x_row[j];
  // SOFTMAX: [[ACC0]] = dev::maximum([[ACC0]], v{{[0-9]+}});
  // SOFTMAX: const float [[MAX:red[0-9]+]] = teamReduce<kThreads, dev::MaxOp>([[ACC0]]);
  // SOFTMAX: float [[ACC1:acc[0-9]+]] = dev::SumOp::identity();
  // SOFTMAX: - [[MAX]];
  // SOFTMAX: expf(
  // SOFTMAX: const float [[SUM:red[0-9]+]] = teamReduce<kThreads, dev::SumOp>([[ACC1]]);
  // SOFTMAX: for (int64_t j = tid; j < 4097; j += kThreads) {
  // SOFTMAX: / [[SUM]];
  // SOFTMAX: y[{{i[0-9]+}}] = v{{[0-9]+}};
  // SOFTMAX: teamSync<kThreads>(); // The next row reuses shared memory.
  // SOFTMAX: const size_t sharedBytes = static_cast<size_t>(kRowsPerBlock) * (4097) * sizeof(float);
  // SOFTMAX: return launch_softmax_k0_row_reduction_rows<256>(ctx, stream, x, y, B);
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

  // layer_norm over rows of 64: one warp per row, eight rows per block; two
  // reductions of different levels (mean, then the variance of x - mean).
  // WARP: //   short_rows_k0_row_reduction: mean, sub, mul, mean, add, rsqrt, mul, mul, add
  // WARP-NEXT: //       one warp per row, rows cached in shared memory
  // WARP: teamReduce<kThreads, dev::SumOp>([[ACC:acc[0-9]+]]) / static_cast<float>(64);
  // WARP: teamReduce<kThreads, dev::SumOp>({{acc[0-9]+}}) / static_cast<float>(64);
  // WARP: const float [[SCALE:v[0-9]+]] = rsqrtf(
  // WARP: for (int64_t j = tid; j < 64; j += kThreads) {
  // WARP: * [[SCALE]];
  // WARP: = gamma[j];
  // WARP: = beta[j];
  // WARP: return launch_short_rows_k0_row_reduction_rows<32>(
  // WARP-NEXT: ctx, stream, x, gamma, beta, y, B);
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

  // A per-row reduction and a group_norm-like reduction over 4 segments of
  // each row (reshape [B, 64] -> [B, 4, 16]): the row count is B, the
  // segment results live in shared memory, one warp per segment.
  // GROUPS-LABEL: groups_k0_row_reduction(
  // GROUPS-NEXT: const float *__restrict__ x, float *__restrict__ out0,
  // GROUPS-NEXT: float *__restrict__ out1, int64_t B) {
  // GROUPS: const int warp = tid / dev::kWarpSize;
  // GROUPS: const int lane = tid % dev::kWarpSize;
  // GROUPS: float *const shared = sharedMemory + threadIdx.x / kThreads * (4 + 64);
  // GROUPS: float *const [[SEG:segment[0-9]+]] = shared + 0;
  // GROUPS: float *const x_row = shared + 0 + 4;
  // GROUPS: teamReduce<kThreads, dev::MaxOp>(
  // GROUPS: for (int64_t g = warp; g < 4; g += kThreads / dev::kWarpSize) {
  // GROUPS: for (int64_t q = lane; q < 16; q += dev::kWarpSize) {
  // GROUPS: = dev::warpReduce<dev::SumOp>(
  // GROUPS: if (lane == 0) {
  // GROUPS-NEXT: [[SEG]][g] = {{acc[0-9]+}} / static_cast<float>(16);
  // GROUPS: teamSync<kThreads>();
  // GROUPS: const int64_t [[LOCAL:i[0-9]+]] = (((i0 + j) / 64) * 4 + ((i0 + j) / 16) % 4) - {{i[0-9]+}};
  // GROUPS-NEXT: = [[SEG]][[[LOCAL]]];
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

  // argmax: (value, index) pairs combined with the first index winning ties
  // and NaN counting as the maximum (the runtime's dev::ArgMaxOp, which the
  // generated file does not define again); the output holds int64_t.
  // ARGMAX-NOT: struct ArgValue
  // ARGMAX-NOT: struct ArgMaxOp
  // Rows of 100 are a multiple of 4: float4 loads when x is aligned, the
  // lanes' indices 4 * q + l.
  // ARGMAX: argmax_k0_row_reduction(
  // ARGMAX-NEXT: const float *__restrict__ x, int64_t *__restrict__ idx, int64_t B,
  // ARGMAX-NEXT: int vec) {
  // ARGMAX: dev::ArgValue [[ACC:acc[0-9]+]] = dev::ArgMaxOp::identity();
  // ARGMAX: const int64_t [[BASE:i[0-9]+]] = r * 100;
  // ARGMAX: if (vec) { // float4 loads
  // ARGMAX-NEXT: #pragma unroll 4
  // ARGMAX-NEXT: for (int64_t q = tid; q < 25; q += kThreads) {
  // ARGMAX-NEXT: const float4 [[V:x_v[0-9]+]]4 = dev::loadFloat4(x + [[BASE]] + 4 * q);
  // ARGMAX: [[ACC]] = dev::ArgMaxOp()([[ACC]], dev::ArgValue{[[V]][l], 4 * q + l});
  // ARGMAX: if (!vec) {
  // ARGMAX: [[ACC]] = dev::ArgMaxOp()([[ACC]], dev::ArgValue{v{{[0-9]+}}, j});
  // ARGMAX: const dev::ArgValue [[RED:red[0-9]+]] = teamReduce<kThreads, dev::ArgMaxOp>([[ACC]]);
  // ARGMAX: for (int64_t j = tid; j < 1; j += kThreads) {
  // ARGMAX: idx[{{i[0-9]+}}] = [[RED]].index;
  // ARGMAX: sinter_status argmax_forward(
  // ARGMAX-NEXT: argmax *model, int64_t B, const float *x, int64_t *idx,
  // ARGMAX-NEXT: cudaStream_t stream) {
  // ARGMAX: sinter_rt_check_pointer(ctx, "idx", idx, sizeof(int64_t))
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

  // Rows of symbolic length C: the host picks the team size and whether the
  // row fits in shared memory at run time.
  // SYMBOLIC: symbolic_rows_k0_row_reduction(
  // SYMBOLIC-NEXT: const float *__restrict__ x, float *__restrict__ y, int64_t B, int64_t C,
  // SYMBOLIC-NEXT: int cached) {
  // SYMBOLIC: float *const shared = sharedMemory + threadIdx.x / kThreads * ((cached ? C : 0));
  // SYMBOLIC: if (cached) { // Copy the rows read more than once.
  // SYMBOLIC: = cached ? x_row[j] : x[{{i[0-9]+}}];
  // SYMBOLIC: const int64_t length = C;
  // SYMBOLIC-NEXT: const int threads = length <= 1024 ? 32 : length <= 8192 ? 256 : 1024;
  // SYMBOLIC: const int cached = rowsPerBlock * (C) * static_cast<int64_t>(sizeof(float)) <= 163840;
  // SYMBOLIC: if (threads == 32)
  // SYMBOLIC-NEXT: return launch_symbolic_rows_k0_row_reduction_rows<32>(
  // SYMBOLIC-NEXT: ctx, stream, x, y, B, C, cached);
  // SYMBOLIC: return launch_symbolic_rows_k0_row_reduction_rows<1024>(
  // SYMBOLIC-NEXT: ctx, stream, x, y, B, C, cached);
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

  // Rows of 100000 do not fit in shared memory: 1024 threads per row, each
  // pass reads the row again (from L2 mostly), with float4 loads and stores
  // where x and y are 16-byte aligned.
  // LONG: //       one block of 1024 threads per row, rows re-read (too long for shared memory)
  // LONG-NOT: sharedMemory
  // LONG: const int vec = sinter_rt_is_aligned(x, SINTER_RT_VECTOR_ALIGNMENT) &&
  // LONG-NEXT: sinter_rt_is_aligned(y, SINTER_RT_VECTOR_ALIGNMENT);
  // LONG: return launch_long_rows_k0_row_reduction_rows<1024>(
  // LONG-NEXT: ctx, stream, x, y, B, vec);
  module @long_rows attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x100000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
        -> (tensor<?x100000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %0 = sinter.kernel row_reduction(%x) : (tensor<?x100000xf32>) -> tensor<?x100000xf32> {
      ^bb0(%a: tensor<?x100000xf32>):
        %s = sinter.sum %a dims [1] keepdim : tensor<?x100000xf32>
        %d = sinter.div %a, %s : tensor<?x100000xf32>, tensor<?x1xf32>
        sinter.yield %d : tensor<?x100000xf32>
      }
      return %0 : tensor<?x100000xf32>
    }
  }

  // 16 rows of 100000 (fewer than two per SM): each row is split over many
  // blocks, whose threads split its elements; an ordered fold per row, then
  // the apply step over every element.
  // SPLIT: //   few_long_rows_k0_row_reduction: sum, div
  // SPLIT-NEXT: //       1 reduction(s): per-slice partials, ordered fold, then pointwise apply
  // SPLIT: few_long_rows_k0_row_reduction_partial0(
  // SPLIT: const int64_t column = blockIdx.x;
  // SPLIT: acc = dev::blockReduce<256, dev::SumOp>(acc);
  // SPLIT: few_long_rows_k0_row_reduction_final0(
  // SPLIT: few_long_rows_k0_row_reduction_apply(
  // SPLIT: const int64_t splits0 = sinterColumnSplits(100000, 256, (16 + 0) / 1);
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

  // Softmax over rows of 100000 (too long for shared memory): the max and
  // the sum of exp(x - max) in one pass (online softmax), then the output
  // pass; x is read twice.
  // ONLINE: one block of 1024 threads per row, rows re-read (too long for shared memory)
  // ONLINE: dev::OnlineSoftmax [[ACC:acc[0-9]+]] = dev::OnlineSoftmaxOp::identity();
  // ONLINE: [[ACC]] = dev::onlineSoftmaxPush([[ACC]], v{{[0-9]+}});
  // ONLINE: const dev::OnlineSoftmax [[STATE:state[0-9]+]] = teamReduce<kThreads, dev::OnlineSoftmaxOp>([[ACC]]);
  // ONLINE-NEXT: const float [[MAX:red[0-9]+]] = [[STATE]].max;
  // ONLINE-NEXT: const float [[SUM:red[0-9]+]] = [[STATE]].sum;
  // ONLINE-NOT: dev::SumOp
  // ONLINE: - [[MAX]];
  // ONLINE: / [[SUM]];
  module @online_softmax attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x100000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
        -> (tensor<?x100000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %0 = sinter.kernel row_reduction(%x) : (tensor<?x100000xf32>) -> tensor<?x100000xf32> {
      ^bb0(%a: tensor<?x100000xf32>):
        %m = sinter.max %a dims [1] keepdim : tensor<?x100000xf32>
        %d = sinter.sub %a, %m : tensor<?x100000xf32>, tensor<?x1xf32>
        %e = sinter.exp %d : tensor<?x100000xf32>
        %s = sinter.sum %e dims [1] keepdim : tensor<?x100000xf32>
        %p = sinter.div %e, %s : tensor<?x100000xf32>, tensor<?x1xf32>
        sinter.yield %p : tensor<?x100000xf32>
      }
      return %0 : tensor<?x100000xf32>
    }
  }

  // The mean and the variance of rows of 100000 in one pass (Welford): the
  // variance is M2 over the row length.
  // WELFORD: dev::Welford [[ACC:acc[0-9]+]] = dev::WelfordOp::identity();
  // WELFORD: [[ACC]] = dev::welfordPush([[ACC]], v{{[0-9]+}});
  // WELFORD: const dev::Welford [[STATE:state[0-9]+]] = teamReduce<kThreads, dev::WelfordOp>([[ACC]]);
  // WELFORD-NEXT: const float [[MEAN:red[0-9]+]] = [[STATE]].mean;
  // WELFORD-NEXT: const float [[VAR:red[0-9]+]] = [[STATE]].m2 / static_cast<float>(100000);
  // WELFORD-NEXT: = [[VAR]] + 1e-05f;
  // WELFORD-NOT: teamReduce
  // WELFORD: - [[MEAN]];
  module @welford attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x100000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
        -> (tensor<?x100000xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %0 = sinter.kernel row_reduction(%x) : (tensor<?x100000xf32>) -> tensor<?x100000xf32> {
      ^bb0(%a: tensor<?x100000xf32>):
        %m = sinter.mean %a dims [1] keepdim : tensor<?x100000xf32>
        %d = sinter.sub %a, %m : tensor<?x100000xf32>, tensor<?x1xf32>
        %sq = sinter.mul %d, %d : tensor<?x100000xf32>, tensor<?x100000xf32>
        %v = sinter.mean %sq dims [1] keepdim : tensor<?x100000xf32>
        %eps = sinter.constant dense<9.99999974E-6> : tensor<f32>
        %ve = sinter.add %v, %eps : tensor<?x1xf32>, tensor<f32>
        %r = sinter.rsqrt %ve : tensor<?x1xf32>
        %n = sinter.mul %d, %r : tensor<?x100000xf32>, tensor<?x1xf32>
        sinter.yield %n : tensor<?x100000xf32>
      }
      return %0 : tensor<?x100000xf32>
    }
  }
}
