// RUN: sinter-opt %s --split-input-file --sinter-form-kernels --verify-diagnostics | FileCheck %s

// gemm_bias_relu: bias, relu and the scaling join the GEMM epilogue.

// CHECK-LABEL: func.func @gemm_bias_relu
// CHECK:         %[[K:.*]] = sinter.kernel gemm(%arg0, %arg1, %arg2) : (tensor<?x512xf32>, tensor<1024x512xf32>, tensor<1024xf32>) -> tensor<?x1024xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<?x512xf32>, %[[W:.*]]: tensor<1024x512xf32>, %[[B:.*]]: tensor<1024xf32>):
// CHECK-NEXT:      %[[MM:.*]] = sinter.matmul %[[X]], %[[W]] transpose_b
// CHECK-NEXT:      %[[ADD:.*]] = sinter.add %[[MM]], %[[B]]
// CHECK-NEXT:      %[[RELU:.*]] = sinter.relu %[[ADD]]
// CHECK-NEXT:      %[[C:.*]] = sinter.constant dense<5.000000e-01>
// CHECK-NEXT:      %[[MUL:.*]] = sinter.mul %[[RELU]], %[[C]]
// CHECK-NEXT:      sinter.yield %[[MUL]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[K]]
func.func @gemm_bias_relu(%x: tensor<?x512xf32>, %w: tensor<1024x512xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %c = sinter.constant dense<5.000000e-01> : tensor<f32>
  %mm = sinter.matmul %x, %w transpose_b : tensor<?x512xf32>, tensor<1024x512xf32>
  %lin = sinter.add %mm, %b : tensor<?x1024xf32>, tensor<1024xf32>
  %relu = sinter.relu %lin : tensor<?x1024xf32>
  %y = sinter.mul %relu, %c : tensor<?x1024xf32>, tensor<f32>
  return %y : tensor<?x1024xf32>
}

// -----

// matmul_swish_bias_groupnorm (group_norm decomposed): silu, the second bias
// and the whole group_norm, whose 64 groups lie inside rows after the
// reshape, join the GEMM epilogue.

// CHECK-LABEL: func.func @matmul_swish_bias_groupnorm
// CHECK:         sinter.kernel gemm(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK:           sinter.matmul
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.silu
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.reshape {{.*}} : tensor<?x4096xf32> -> tensor<?x64x64xf32>
// CHECK-NEXT:      sinter.mean {{.*}} dims [2] keepdim
// CHECK-NEXT:      sinter.sub
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.mean {{.*}} dims [2] keepdim
// CHECK-NEXT:      sinter.constant
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.rsqrt
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.reshape {{.*}} : tensor<?x64x64xf32> -> tensor<?x4096xf32>
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.yield
// CHECK-NEXT:    }
// CHECK-NOT:     sinter.kernel
// CHECK:         return
func.func @matmul_swish_bias_groupnorm(%x: tensor<?x1024xf32>, %w: tensor<4096x1024xf32>, %b: tensor<4096xf32>,
    %b2: tensor<4096xf32>, %gamma: tensor<4096xf32>, %beta: tensor<4096xf32>) -> tensor<?x4096xf32> {
  %mm = sinter.matmul %x, %w transpose_b : tensor<?x1024xf32>, tensor<4096x1024xf32>
  %lin = sinter.add %mm, %b : tensor<?x4096xf32>, tensor<4096xf32>
  %s = sinter.silu %lin : tensor<?x4096xf32>
  %c = sinter.add %s, %b2 : tensor<?x4096xf32>, tensor<4096xf32>
  %g = sinter.reshape %c : tensor<?x4096xf32> -> tensor<?x64x64xf32>
  %m = sinter.mean %g dims [2] keepdim : tensor<?x64x64xf32>
  %d = sinter.sub %g, %m : tensor<?x64x64xf32>, tensor<?x64x1xf32>
  %d2 = sinter.mul %d, %d : tensor<?x64x64xf32>, tensor<?x64x64xf32>
  %v = sinter.mean %d2 dims [2] keepdim : tensor<?x64x64xf32>
  %eps = sinter.constant dense<1.0e-05> : tensor<f32>
  %ve = sinter.add %v, %eps : tensor<?x64x1xf32>, tensor<f32>
  %rs = sinter.rsqrt %ve : tensor<?x64x1xf32>
  %n = sinter.mul %d, %rs : tensor<?x64x64xf32>, tensor<?x64x1xf32>
  %nr = sinter.reshape %n : tensor<?x64x64xf32> -> tensor<?x4096xf32>
  %a = sinter.mul %nr, %gamma : tensor<?x4096xf32>, tensor<4096xf32>
  %o = sinter.add %a, %beta : tensor<?x4096xf32>, tensor<4096xf32>
  return %o : tensor<?x4096xf32>
}

// -----

// gemm_scale_batchnorm (training, decomposed): the GEMM with bias and scale
// in its epilogue, then one column kernel: the statistics, and in its apply
// step the normalization and the per-channel affine, which recompute
// x - mean from the GEMM output: two kernels.

// CHECK-LABEL: func.func @gemm_scale_batchnorm
// CHECK:         %[[Y:.*]] = sinter.kernel gemm(%arg0, %arg1, %arg2, %arg3) {{.*}} -> tensor<?x256xf32>
// CHECK:           sinter.matmul
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.yield
// CHECK:         %[[OUT:.*]] = sinter.kernel column_reduction(%[[Y]], %arg4, %arg5) : (tensor<?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
// CHECK:           sinter.mean %{{.*}} dims [0] keepdim
// CHECK-NEXT:      sinter.sub
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.mean {{.*}} dims [0] keepdim
// CHECK-NEXT:      sinter.constant
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.rsqrt
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
// CHECK:         return %[[OUT]]
func.func @gemm_scale_batchnorm(%x: tensor<?x512xf32>, %w: tensor<256x512xf32>, %b: tensor<256xf32>,
    %scale: tensor<256xf32>, %gamma: tensor<256xf32>, %beta: tensor<256xf32>) -> tensor<?x256xf32> {
  %mm = sinter.matmul %x, %w transpose_b : tensor<?x512xf32>, tensor<256x512xf32>
  %lin = sinter.add %mm, %b : tensor<?x256xf32>, tensor<256xf32>
  %y = sinter.mul %lin, %scale : tensor<?x256xf32>, tensor<256xf32>
  %m = sinter.mean %y dims [0] keepdim : tensor<?x256xf32>
  %d = sinter.sub %y, %m : tensor<?x256xf32>, tensor<1x256xf32>
  %d2 = sinter.mul %d, %d : tensor<?x256xf32>, tensor<?x256xf32>
  %v = sinter.mean %d2 dims [0] keepdim : tensor<?x256xf32>
  %eps = sinter.constant dense<1.0e-05> : tensor<f32>
  %ve = sinter.add %v, %eps : tensor<1x256xf32>, tensor<f32>
  %r = sinter.rsqrt %ve : tensor<1x256xf32>
  %n = sinter.mul %d, %r : tensor<?x256xf32>, tensor<1x256xf32>
  %a = sinter.mul %n, %gamma : tensor<?x256xf32>, tensor<256xf32>
  %o = sinter.add %a, %beta : tensor<?x256xf32>, tensor<256xf32>
  return %o : tensor<?x256xf32>
}

// -----

// gemm_divide_sum_scaling after simplify and hoisting: N = 1 makes it a
// matvec.

// CHECK-LABEL: func.func @matvec
// CHECK:         sinter.kernel matvec(%arg0, %arg1)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.matmul
// CHECK-NEXT:      sinter.yield
func.func @matvec(%x: tensor<?x8192xf32>, %p: tensor<1x8192xf32>) -> tensor<?x1xf32> {
  %y = sinter.matmul %x, %p transpose_b : tensor<?x8192xf32>, tensor<1x8192xf32>
  return %y : tensor<?x1xf32>
}

// -----

// softmax (decomposed): one row kernel; the reductions and what broadcasts
// them back over the same rows share it.

// CHECK-LABEL: func.func @softmax
// CHECK:         sinter.kernel row_reduction(%arg0)
// CHECK:           sinter.max
// CHECK-NEXT:      sinter.sub
// CHECK-NEXT:      sinter.exp
// CHECK-NEXT:      sinter.sum
// CHECK-NEXT:      sinter.div
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
func.func @softmax(%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %mx = sinter.max %x dims [1] keepdim : tensor<?x1000xf32>
  %s = sinter.sub %x, %mx : tensor<?x1000xf32>, tensor<?x1xf32>
  %e = sinter.exp %s : tensor<?x1000xf32>
  %sm = sinter.sum %e dims [1] keepdim : tensor<?x1000xf32>
  %p = sinter.div %e, %sm : tensor<?x1000xf32>, tensor<?x1xf32>
  return %p : tensor<?x1000xf32>
}

// -----

// rms_norm (decomposed): the square (an elementwise producer), the mean and
// the normalization share one row kernel; the weight is a row broadcast.

// CHECK-LABEL: func.func @rms_norm
// CHECK:         sinter.kernel row_reduction(%arg0, %arg1)
// CHECK:           sinter.mul
// CHECK-NEXT:      sinter.mean
// CHECK-NEXT:      sinter.constant
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.rsqrt
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
func.func @rms_norm(%x: tensor<?x768xf32>, %w: tensor<768xf32>) -> tensor<?x768xf32> {
  %sq = sinter.mul %x, %x : tensor<?x768xf32>, tensor<?x768xf32>
  %ms = sinter.mean %sq dims [1] keepdim : tensor<?x768xf32>
  %eps = sinter.constant dense<1.0e-06> : tensor<f32>
  %a = sinter.add %ms, %eps : tensor<?x1xf32>, tensor<f32>
  %rs = sinter.rsqrt %a : tensor<?x1xf32>
  %n = sinter.mul %x, %rs : tensor<?x768xf32>, tensor<?x1xf32>
  %o = sinter.mul %n, %w : tensor<?x768xf32>, tensor<768xf32>
  return %o : tensor<?x768xf32>
}

// -----

// An elementwise chain (with a transpose) is one pointwise kernel, which
// clones the constant it reads.

// CHECK-LABEL: func.func @pointwise_chain
// CHECK:         %[[K:.*]] = sinter.kernel pointwise(%arg0) : (tensor<32x64xf32>) -> tensor<64x32xf32>
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<32x64xf32>):
// CHECK-NEXT:      %[[C:.*]] = sinter.constant dense<3.000000e+00>
// CHECK-NEXT:      %[[M:.*]] = sinter.mul %[[A]], %[[C]]
// CHECK-NEXT:      %[[T:.*]] = sinter.transpose %[[M]] perm [1, 0]
// CHECK-NEXT:      %[[R:.*]] = sinter.relu %[[T]]
// CHECK-NEXT:      sinter.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NOT:     sinter.constant
// CHECK:         return %[[K]]
func.func @pointwise_chain(%x: tensor<32x64xf32>) -> tensor<64x32xf32> {
  %c = sinter.constant dense<3.0> : tensor<f32>
  %a = sinter.mul %x, %c : tensor<32x64xf32>, tensor<f32>
  %t = sinter.transpose %a perm [1, 0] : tensor<32x64xf32>
  %r = sinter.relu %t : tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A reshape that flattens the GEMM input is a view of its operand: it joins
// the gemm kernel rather than becoming a copy kernel.

// CHECK-LABEL: func.func @flatten
// CHECK:         sinter.kernel gemm(%arg0, %arg1)
// CHECK:           sinter.reshape
// CHECK-NEXT:      sinter.matmul
// CHECK-NEXT:      sinter.tanh
// CHECK-NOT:     sinter.kernel
func.func @flatten(%x: tensor<?x4x16xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %f = sinter.reshape %x : tensor<?x4x16xf32> -> tensor<?x64xf32>
  %y = sinter.matmul %f, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %t = sinter.tanh %y : tensor<?x32xf32>
  return %t : tensor<?x32xf32>
}

// -----

// Must not fuse: a GEMM output read by another matmul is written out; the
// relu still joins the first epilogue and the second matmul reads its result.

// CHECK-LABEL: func.func @matmul_feeds_matmul
// CHECK:         %[[K0:.*]]:2 = sinter.kernel gemm(%arg0, %arg1) {{.*}} -> (tensor<?x64xf32>, tensor<?x64xf32>)
// CHECK:           sinter.matmul
// CHECK-NEXT:      sinter.relu
// CHECK-NEXT:      sinter.yield
// CHECK:         %[[K1:.*]] = sinter.kernel gemm(%[[K0]]#0, %arg2)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.matmul
// CHECK-NEXT:      sinter.yield
// CHECK:         return %[[K0]]#1, %[[K1]]
func.func @matmul_feeds_matmul(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x32xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
  %y = sinter.matmul %x, %w : tensor<?x64xf32>, tensor<64x64xf32>
  %r = sinter.relu %y : tensor<?x64xf32>
  %z = sinter.matmul %y, %v : tensor<?x64xf32>, tensor<64x32xf32>
  return %r, %z : tensor<?x64xf32>, tensor<?x32xf32>
}

// -----

// Must not fuse: a reduction over the GEMM's M dim (a column statistic)
// cannot join the epilogue, which owns rows; it reads the GEMM output.

// CHECK-LABEL: func.func @matmul_column_sum
// CHECK:         %[[K0:.*]]:2 = sinter.kernel gemm(%arg0, %arg1)
// CHECK:           sinter.matmul
// CHECK-NEXT:      sinter.relu
// CHECK:         %[[K1:.*]] = sinter.kernel column_reduction(%[[K0]]#0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.sum {{.*}} dims [0]
// CHECK:         return %[[K0]]#1, %[[K1]]
func.func @matmul_column_sum(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>) -> (tensor<?x64xf32>, tensor<1x64xf32>) {
  %y = sinter.matmul %x, %w : tensor<?x64xf32>, tensor<64x64xf32>
  %r = sinter.relu %y : tensor<?x64xf32>
  %s = sinter.sum %y dims [0] keepdim : tensor<?x64xf32>
  return %r, %s : tensor<?x64xf32>, tensor<1x64xf32>
}

// -----

// Must not fuse into a cycle: the add reads the relu of the first GEMM and
// the second GEMM, which reads that relu; in the first epilogue it would make
// both kernels wait for each other, so it joins the second.

// CHECK-LABEL: func.func @epilogue_cycle
// CHECK:         %[[K0:.*]] = sinter.kernel gemm(%arg0, %arg1)
// CHECK:           sinter.matmul
// CHECK-NEXT:      sinter.relu
// CHECK-NEXT:      sinter.yield
// CHECK:         %[[K1:.*]] = sinter.kernel gemm(%[[K0]], %arg2)
// CHECK:           %[[MM:.*]] = sinter.matmul
// CHECK-NEXT:      sinter.add %{{.*}}, %[[MM]]
// CHECK-NEXT:      sinter.yield
// CHECK:         return %[[K1]]
func.func @epilogue_cycle(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %y = sinter.matmul %x, %w : tensor<?x64xf32>, tensor<64x64xf32>
  %r = sinter.relu %y : tensor<?x64xf32>
  %z = sinter.matmul %r, %v : tensor<?x64xf32>, tensor<64x64xf32>
  %o = sinter.add %r, %z : tensor<?x64xf32>, tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}

// -----

// Must not fuse into a cycle: the row mean feeds a matmul whose result is
// added to x - mean; the row kernel keeps only the mean, and the epilogue of
// the matmul recomputes x - mean.

// CHECK-LABEL: func.func @reduction_feeds_matmul
// CHECK:         %[[K0:.*]] = sinter.kernel row_reduction(%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.mean
// CHECK-NEXT:      sinter.yield
// CHECK:         %[[K1:.*]] = sinter.kernel gemm(%arg0, %[[K0]], %arg1)
// CHECK:           sinter.sub
// CHECK-NEXT:      sinter.matmul
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.yield
// CHECK:         return %[[K1]]
func.func @reduction_feeds_matmul(%x: tensor<?x64xf32>, %w: tensor<1x64xf32>) -> tensor<?x64xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x64xf32>
  %c = sinter.sub %x, %m : tensor<?x64xf32>, tensor<?x1xf32>
  %z = sinter.matmul %m, %w : tensor<?x1xf32>, tensor<1x64xf32>
  %o = sinter.add %c, %z : tensor<?x64xf32>, tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}

// -----

// An op used by two kernels: exp feeds a matmul, which reads it from memory,
// and a row sum, whose kernel computes it and writes it once.

// CHECK-LABEL: func.func @used_by_two_kernels
// CHECK:         %[[K0:.*]]:2 = sinter.kernel row_reduction(%arg0)
// CHECK:           %[[E:.*]] = sinter.exp
// CHECK-NEXT:      %[[S:.*]] = sinter.sum %[[E]]
// CHECK-NEXT:      sinter.yield %[[E]], %[[S]]
// CHECK:         %[[K1:.*]] = sinter.kernel gemm(%[[K0]]#0, %arg1)
// CHECK-NOT:       sinter.exp
// CHECK:         return %[[K1]], %[[K0]]#1
func.func @used_by_two_kernels(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x1xf32>) {
  %e = sinter.exp %x : tensor<?x64xf32>
  %y = sinter.matmul %e, %w : tensor<?x64xf32>, tensor<64x32xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x64xf32>
  return %y, %s : tensor<?x32xf32>, tensor<?x1xf32>
}

// -----

// A column sum of exp(x) broadcast back to full size: the statistics
// kernel's apply step computes exp again rather than reading a written copy.

// CHECK-LABEL: func.func @column_apply
// CHECK:         %[[K0:.*]] = sinter.kernel column_reduction(%arg0)
// CHECK:           sinter.exp
// CHECK-NEXT:      sinter.sum
// CHECK-NEXT:      sinter.mul
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
// CHECK:         return %[[K0]]
func.func @column_apply(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = sinter.exp %x : tensor<?x64xf32>
  %s = sinter.sum %a dims [0] keepdim : tensor<?x64xf32>
  %b = sinter.mul %a, %s : tensor<?x64xf32>, tensor<1x64xf32>
  return %b : tensor<?x64xf32>
}

// -----

// Must not fuse: exp of a [64] vector would be recomputed for every row of
// the add that broadcasts it; it stays a kernel of its own.

// CHECK-LABEL: func.func @broadcast_producer
// CHECK:         %[[K0:.*]] = sinter.kernel pointwise(%arg1)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.exp
// CHECK-NEXT:      sinter.yield
// CHECK:         sinter.kernel pointwise(%arg0, %[[K0]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.add
// CHECK-NEXT:      sinter.relu
// CHECK-NEXT:      sinter.yield
func.func @broadcast_producer(%x: tensor<?x64xf32>, %v: tensor<64xf32>) -> tensor<?x64xf32> {
  %a = sinter.exp %v : tensor<64xf32>
  %b = sinter.add %x, %a : tensor<?x64xf32>, tensor<64xf32>
  %c = sinter.relu %b : tensor<?x64xf32>
  return %c : tensor<?x64xf32>
}

// -----

// Must not fuse: a mean without keepdim broadcasts along the last dim (NumPy
// aligns trailing dims), not back over its rows, so the sub is a kernel of
// its own.

// CHECK-LABEL: func.func @no_keepdim
// CHECK:         %[[K0:.*]] = sinter.kernel row_reduction(%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.mean
// CHECK-NEXT:      sinter.yield
// CHECK:         sinter.kernel pointwise(%arg0, %[[K0]])
func.func @no_keepdim(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = sinter.mean %x dims [1] : tensor<64x64xf32>
  %d = sinter.sub %x, %m : tensor<64x64xf32>, tensor<64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// Kernels that exist already are kept; ops around them form new kernels in
// dependency order.

// CHECK-LABEL: func.func @existing_kernels
// CHECK:         %[[K0:.*]] = sinter.kernel pointwise(%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.exp
// CHECK:         %[[K1:.*]] = sinter.kernel pointwise(%[[K0]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.relu
// CHECK:         %[[K2:.*]] = sinter.kernel pointwise(%[[K1]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      sinter.neg
// CHECK:         return %[[K2]]
func.func @existing_kernels(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %e = sinter.exp %x : tensor<?x64xf32>
  %k = sinter.kernel pointwise (%e) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    %r = sinter.relu %a : tensor<?x64xf32>
    sinter.yield %r : tensor<?x64xf32>
  }
  %n = sinter.neg %k : tensor<?x64xf32>
  return %n : tensor<?x64xf32>
}

// -----

// @prepare gets kernels too: the generated code runs it on the GPU.

// CHECK-LABEL: func.func @prepare
// CHECK:         sinter.kernel column_reduction(%arg0)
// CHECK:           sinter.sum
// CHECK-NEXT:      sinter.constant
// CHECK-NEXT:      sinter.mul
// CHECK-LABEL: func.func @forward
// CHECK:         sinter.kernel matvec
module {
  func.func @prepare(%w: tensor<64x64xf32> {sinter.name = "w", sinter.role = "param"}) -> tensor<1x64xf32> {
    %s = sinter.sum %w dims [0] keepdim : tensor<64x64xf32>
    %c = sinter.constant dense<7.500000e-01> : tensor<f32>
    %m = sinter.mul %s, %c : tensor<1x64xf32>, tensor<f32>
    return %m : tensor<1x64xf32>
  }
  func.func @forward(%x: tensor<?x64xf32>, %p: tensor<1x64xf32>) -> tensor<?x1xf32> {
    %y = sinter.matmul %x, %p transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
    return %y : tensor<?x1xf32>
  }
}

// -----

func.func @forward(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{'sinter.softmax' must be decomposed before kernel formation (run sinter-decompose first)}}
  %s = sinter.softmax %x dim 1 : tensor<?x64xf32>
  return %s : tensor<?x64xf32>
}

// -----

// An elementwise op that computes a matmul operand (through a view) is a
// kernel of its own: the library GEMM reads its operands from memory, so
// the gemm kernel may hold only the view (issue 19: the planner put the
// clamp in the gemm kernel, and the emitter refused it).
// CHECK-LABEL: func.func @matmul_computed_operand
//       CHECK:   %[[C:.*]] = sinter.kernel pointwise(%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32> {
//       CHECK:     sinter.clamp
//       CHECK:   sinter.kernel gemm(%[[C]], %{{.*}}) : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<3x2xf32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     sinter.reshape
//  CHECK-NEXT:     sinter.matmul
//  CHECK-NEXT:     sinter.yield
func.func @matmul_computed_operand(%x: tensor<3xf32>, %w: tensor<2x1xf32>) -> tensor<3x2xf32> {
  %c = sinter.clamp %x min = -1.0 max = 1.0 : tensor<3xf32>
  %r = sinter.reshape %c : tensor<3xf32> -> tensor<3x1xf32>
  %m = sinter.matmul %r, %w transpose_b : tensor<3x1xf32>, tensor<2x1xf32>
  return %m : tensor<3x2xf32>
}

// -----

// A constant that a matmul multiplies (here through a reshape; fast mode
// folds log_softmax over one element to it) gets a pointwise kernel of its
// own that writes it to memory, where the library GEMM reads it; the add
// keeps embedding it (IR fuzzer seeds 1576, 2376, 5722: the constant was
// embedded in the gemm kernel, and the emitter refused it).
// CHECK-LABEL: func.func @matmul_constant_operand
//       CHECK:   %[[C:.*]] = sinter.kernel pointwise() : () -> tensor<2xf32> {
//  CHECK-NEXT:     %[[V:.*]] = sinter.constant dense<-1.500000e+00> : tensor<2xf32>
//  CHECK-NEXT:     sinter.yield %[[V]]
//       CHECK:   sinter.kernel gemm(%[[C]], %{{.*}}) : (tensor<2xf32>, tensor<5x1xf32>) -> tensor<2x5xf32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     sinter.reshape
//  CHECK-NEXT:     sinter.matmul
//  CHECK-NEXT:     sinter.constant dense<-1.500000e+00> : tensor<2xf32>
//  CHECK-NEXT:     sinter.reshape
//  CHECK-NEXT:     sinter.add
//  CHECK-NEXT:     sinter.yield
//   CHECK-NOT:   sinter.kernel
func.func @matmul_constant_operand(%w: tensor<5x1xf32>) -> tensor<2x5xf32> {
  %c = sinter.constant dense<-1.5> : tensor<2xf32>
  %r = sinter.reshape %c : tensor<2xf32> -> tensor<2x1xf32>
  %m = sinter.matmul %r, %w transpose_b : tensor<2x1xf32>, tensor<5x1xf32>
  %r2 = sinter.reshape %c : tensor<2xf32> -> tensor<2x1xf32>
  %a = sinter.add %m, %r2 : tensor<2x5xf32>, tensor<2x1xf32>
  return %a : tensor<2x5xf32>
}

// -----

// Must not fuse: an argmax over part of the rows of a row kernel (here rows
// of [4] over [8, 16], the argmax over the 16 of each of them) would be
// segmented, which row kernels have no form of (issue 19: planned, then
// refused by the emitter); it gets rows of its own.
// CHECK-LABEL: func.func @argmax_not_segmented
//       CHECK:   %[[K0:.*]] = sinter.kernel row_reduction(%{{.*}}) : (tensor<4x8x16xf32>) -> tensor<4x1x1xf32>
//       CHECK:     sinter.mean
//       CHECK:   sinter.kernel row_reduction(%{{.*}}, %[[K0]]) : {{.*}} -> tensor<4x8xi64>
//       CHECK:     sinter.sub
//  CHECK-NEXT:     sinter.argmax
func.func @argmax_not_segmented(%x: tensor<4x8x16xf32>) -> tensor<4x8xi64> {
  %m = sinter.mean %x dims [1, 2] keepdim : tensor<4x8x16xf32>
  %c = sinter.sub %x, %m : tensor<4x8x16xf32>, tensor<4x1x1xf32>
  %a = sinter.argmax %c dims [2] : tensor<4x8x16xf32>
  return %a : tensor<4x8xi64>
}

// -----

// Must not fuse: a max over dim 1 of [6, 4, 5] is in the middle of each row
// of [6] that the sum over [1, 2] reads; row kernels reduce trailing dims only
// (IR fuzzer seed 6517: planned, then refused by the kernel verifier). The
// max gets a column kernel of its own.
// CHECK-LABEL: func.func @middle_of_row
//       CHECK:   %[[K0:.*]] = sinter.kernel row_reduction(%{{.*}}) : (tensor<6x4x5xf32>) -> tensor<6x1x1xf32>
//       CHECK:     sinter.sum
//       CHECK:   sinter.kernel column_reduction(%{{.*}}, %[[K0]])
//       CHECK:     sinter.add
//  CHECK-NEXT:     sinter.max
func.func @middle_of_row(%x: tensor<6x4x5xf32>) -> tensor<6x1x5xf32> {
  %s = sinter.sum %x dims [1, 2] keepdim : tensor<6x4x5xf32>
  %a = sinter.add %x, %s : tensor<6x4x5xf32>, tensor<6x1x1xf32>
  %m = sinter.max %a dims [1] keepdim : tensor<6x4x5xf32>
  return %m : tensor<6x1x5xf32>
}

// -----

// Must not fuse: an argmin over the size-1 dim 0 of [1, 5, 2] has ten
// one-element statistics, and a scalar (the abs, returned) is not one of
// them: it broadcasts to every one (IR fuzzer seed 8753: a scalar counted
// as a statistic joined the kernel, and the emitter refused an output that
// does not share its rows). The abs gets a kernel of its own.
// CHECK-LABEL: func.func @scalar_not_a_statistic
//       CHECK:   %[[A:.*]] = sinter.kernel pointwise(%{{.*}}) : (tensor<f32>) -> tensor<f32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     sinter.abs
//       CHECK:   %[[I:.*]] = sinter.kernel row_reduction(%{{.*}}, %[[A]]) : (tensor<1x5x2xf32>, tensor<f32>) -> tensor<1x5x2xi64> {
//       CHECK:     sinter.div
//  CHECK-NEXT:     sinter.argmin
//       CHECK:   return %[[A]], %[[I]]
func.func @scalar_not_a_statistic(%x: tensor<1x5x2xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<1x5x2xi64>) {
  %a = sinter.abs %s : tensor<f32>
  %d = sinter.div %x, %a : tensor<1x5x2xf32>, tensor<f32>
  %i = sinter.argmin %d dims [0] keepdim : tensor<1x5x2xf32>
  return %a, %i : tensor<f32>, tensor<1x5x2xi64>
}

// -----

// group_norm with a per-channel affine: the statistics over [N, G, C/G * H *
// W] and, after the reshape back to [N, C, H, W] (whose channel dim straddles
// the rows, which stay runs of elements), the affine, in one row kernel.

// CHECK-LABEL: func.func @group_norm_affine
// CHECK:         %[[K0:.*]] = sinter.kernel row_reduction(%arg0, %arg1, %arg2)
// CHECK:           sinter.mean
// CHECK:           sinter.reshape {{.*}} : tensor<2x4x32xf32> -> tensor<2x8x4x4xf32>
// CHECK:           sinter.mul
// CHECK:           sinter.add
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
// CHECK:         return %[[K0]]
func.func @group_norm_affine(%x: tensor<2x8x4x4xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %g = sinter.reshape %x : tensor<2x8x4x4xf32> -> tensor<2x4x32xf32>
  %m = sinter.mean %g dims [2] keepdim : tensor<2x4x32xf32>
  %d = sinter.sub %g, %m : tensor<2x4x32xf32>, tensor<2x4x1xf32>
  %n = sinter.reshape %d : tensor<2x4x32xf32> -> tensor<2x8x4x4xf32>
  %wc = sinter.reshape %w : tensor<8xf32> -> tensor<8x1x1xf32>
  %s = sinter.mul %n, %wc : tensor<2x8x4x4xf32>, tensor<8x1x1xf32>
  %bc = sinter.reshape %b : tensor<8xf32> -> tensor<8x1x1xf32>
  %y = sinter.add %s, %bc : tensor<2x8x4x4xf32>, tensor<8x1x1xf32>
  return %y : tensor<2x8x4x4xf32>
}

// -----

// A symbolic batch: the rows [N, G] end in static dims, and both sides of
// the reshape back hold 128 elements per batch entry (4 whole rows), so the
// affine joins the row kernel as with a static batch.

// CHECK-LABEL: func.func @group_norm_affine_symbolic
// CHECK:         %[[K:.*]] = sinter.kernel row_reduction(%arg0, %arg1)
// CHECK:           sinter.mean
// CHECK:           sinter.reshape {{.*}} : tensor<?x4x32xf32> -> tensor<?x8x4x4xf32>
// CHECK:           sinter.mul
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
// CHECK:         return %[[K]]
func.func @group_norm_affine_symbolic(%x: tensor<?x8x4x4xf32>, %w: tensor<8xf32>) -> tensor<?x8x4x4xf32> {
  %g = sinter.reshape %x : tensor<?x8x4x4xf32> -> tensor<?x4x32xf32>
  %m = sinter.mean %g dims [2] keepdim : tensor<?x4x32xf32>
  %d = sinter.sub %g, %m : tensor<?x4x32xf32>, tensor<?x4x1xf32>
  %n = sinter.reshape %d : tensor<?x4x32xf32> -> tensor<?x8x4x4xf32>
  %wc = sinter.reshape %w : tensor<8xf32> -> tensor<8x1x1xf32>
  %s = sinter.mul %n, %wc : tensor<?x8x4x4xf32>, tensor<8x1x1xf32>
  return %s : tensor<?x8x4x4xf32>
}

// -----

// A reshape that regroups the symbolic dim itself ([?, 4, 32] -> [?, 64]:
// its `?` is twice the batch) does not keep whole rows per batch entry: the
// affine stays a pointwise kernel.

// CHECK-LABEL: func.func @group_norm_symbolic_regrouped
// CHECK:         sinter.kernel row_reduction
// CHECK:         sinter.kernel pointwise
func.func @group_norm_symbolic_regrouped(%x: tensor<?x4x32xf32>, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %m = sinter.mean %x dims [2] keepdim : tensor<?x4x32xf32>
  %d = sinter.sub %x, %m : tensor<?x4x32xf32>, tensor<?x4x1xf32>
  %n = sinter.reshape %d : tensor<?x4x32xf32> -> tensor<?x64xf32>
  %s = sinter.mul %n, %w : tensor<?x64xf32>, tensor<64xf32>
  return %s : tensor<?x64xf32>
}

// -----

// One row: softmax over dim 1 of [1, N] reduces every dim that is not of
// size 1 (geometry `all`), yet its dims are the trailing run after a kept
// size-1 dim, so it is a row kernel (split over many blocks when long), not
// two column kernels with the exponentials written between them.

// CHECK-LABEL: func.func @softmax_one_row
// CHECK:         %[[K:.*]] = sinter.kernel row_reduction(%arg0)
// CHECK:           sinter.max
// CHECK:           sinter.sum
// CHECK:           sinter.div
// CHECK-NEXT:      sinter.yield
// CHECK-NOT:     sinter.kernel
// CHECK:         return %[[K]]
func.func @softmax_one_row(%x: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<1x1024xf32>
  %d = sinter.sub %x, %m : tensor<1x1024xf32>, tensor<1x1xf32>
  %e = sinter.exp %d : tensor<1x1024xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<1x1024xf32>
  %y = sinter.div %e, %s : tensor<1x1024xf32>, tensor<1x1xf32>
  return %y : tensor<1x1024xf32>
}
