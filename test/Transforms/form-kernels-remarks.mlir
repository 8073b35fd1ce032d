// RUN: sinter-opt %s --split-input-file --sinter-form-kernels=remarks --verify-diagnostics
// RUN: not sinter-opt %s --split-input-file --sinter-form-kernels --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=QUIET

// With `remarks`, every op a kernel could not take says why; without, the
// pass is silent.
// QUIET: error: expected remark "cannot fuse add with sum: broadcasts across rows" was not produced
// QUIET-NOT: remark:

// The sum's rows are x's 4 rows; the add broadcasts the sums over 8 rows of
// another tensor, so no block owning one row of x can compute it.
func.func @across_rows(%x: tensor<4x8xf32>, %z: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %s = sinter.sum %x dims [1] : tensor<4x8xf32>
  // expected-remark@+1 {{cannot fuse add with sum: broadcasts across rows}}
  %y = sinter.add %s, %z : tensor<4xf32>, tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A column statistic's consumer of neither the statistics' shape nor the
// kernel's full size: the apply step writes only those.
func.func @neither_statistic_nor_full(%x: tensor<?x96xf32>, %z: tensor<3x1x96xf32>) -> tensor<3x1x96xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<?x96xf32>
  // expected-remark@+1 {{cannot fuse add with mean: is neither a column statistic nor full size}}
  %y = sinter.add %m, %z : tensor<1x96xf32>, tensor<3x1x96xf32>
  return %y : tensor<3x1x96xf32>
}

// -----

// The library GEMM reads its operands from memory: an op computing one
// cannot join its kernel.
func.func @operand(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  // expected-remark@+1 {{cannot fuse relu with matmul: computes an operand of the matmul, which the library GEMM reads from memory}}
  %r = sinter.relu %x : tensor<?x64xf32>
  %y = sinter.matmul %r, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  return %y : tensor<?x32xf32>
}
