// A matmul whose contraction dims disagree; used by sinter-opt.test.

func.func @forward(%x: tensor<?x8xf32>, %w: tensor<16x4xf32>) -> tensor<?x4xf32> {
  // The error points at the op below (line 5, column 8).
  %0 = sinter.matmul %x, %w : tensor<?x8xf32>, tensor<16x4xf32>
  return %0 : tensor<?x4xf32>
}
