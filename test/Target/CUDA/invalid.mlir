// What the CUDA emitter rejects: an error at the offending op, exit status
// 1, no output files. (Kernels whose kind does not fit their reductions'
// geometry are rejected by the kernel op's verifier: see
// test/Dialect/Sinter/invalid.mlir.)
// RUN: not sinterc %s -emit=cuda --model=computed_operand 2>&1 | FileCheck %s --check-prefix=OPERAND
// RUN: not sinterc %s -emit=cuda --model=half 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not sinterc %s -emit=cuda --model=reduce_in_pointwise 2>&1 | FileCheck %s --check-prefix=POINTWISE
// RUN: not sinterc %s -emit=cuda --model=unnamed 2>&1 | FileCheck %s --check-prefix=UNNAMED
// RUN: not sinterc %s -emit=cuda --model=cluster_odd 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not sinterc %s -emit=cuda --model=cluster_float4 2>&1 | FileCheck %s --check-prefix=CLUSTER4
// RUN: not sinterc %s -emit=cuda --model=cluster_float4_short 2>&1 | FileCheck %s --check-prefix=CLUSTER4-SHORT
// RUN: not sinterc %s -emit=cuda --model=streamed_two_levels 2>&1 | FileCheck %s --check-prefix=STREAMED
// RUN: not sinterc %s -emit=cuda --model=tiles_transposed 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: not sinterc %s -emit=cuda --model=grouped_broadcast 2>&1 | FileCheck %s --check-prefix=GROUPED
// RUN: rm -rf %t && not sinterc %s -emit=cuda --model=computed_operand -o %t
// RUN: not ls %t/computed_operand.cu

module {
  // A hand-written elementwise plan whose threads load two float4 groups
  // of their own elements, over a kernel that broadcasts a row param.
  module @grouped_broadcast attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %b: tensor<64xf32> {sinter.role = "param", sinter.name = "b", sinter.dim_names = [""]})
        -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      // GROUPED: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: the plan's chunk_loads 2 need float4 groups of the kernel's own elements, which a broadcast value or shape op rules out
      %0 = sinter.kernel pointwise(%x, %b) {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 128, rows_per_block = 0, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, chunk_loads = 2>} : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32> {
      ^bb0(%a: tensor<?x64xf32>, %c: tensor<64xf32>):
        %1 = sinter.add %a, %c : tensor<?x64xf32>, tensor<64xf32>
        sinter.yield %1 : tensor<?x64xf32>
      }
      return %0 : tensor<?x64xf32>
    }
  }

  module @computed_operand attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %w: tensor<64x64xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
        -> (tensor<?x64xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %0 = sinter.kernel gemm(%x, %w) : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
      ^bb0(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>):
        // OPERAND: invalid.mlir:[[@LINE+1]]:14: error: CUDA emitter: a matmul operand of a gemm kernel must be a kernel input (or its transpose or reshape)
        %e = sinter.exp %a : tensor<?x64xf32>
        %m = sinter.matmul %e, %b : tensor<?x64xf32>, tensor<64x64xf32>
        sinter.yield %m : tensor<?x64xf32>
      }
      return %0 : tensor<?x64xf32>
    }
  }

  module @half attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x64xf16> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
        -> (tensor<?x64xf16> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      // HALF: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: only f32 tensors (and i64 indices) are supported, not 'tensor<?x64xf16>'
      %0 = sinter.kernel pointwise(%x) : (tensor<?x64xf16>) -> tensor<?x64xf16> {
      ^bb0(%a: tensor<?x64xf16>):
        %e = sinter.exp %a : tensor<?x64xf16>
        sinter.yield %e : tensor<?x64xf16>
      }
      return %0 : tensor<?x64xf16>
    }
  }

  module @reduce_in_pointwise attributes {sinter.dims = {B = 8 : i64}} {
    func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
        -> (tensor<?x1xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
      %0 = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x1xf32> {
      ^bb0(%a: tensor<?x64xf32>):
        // POINTWISE: invalid.mlir:[[@LINE+1]]:14: error: CUDA emitter: 'sinter.sum' cannot be computed element by element in this kernel
        %s = sinter.sum %a dims [1] keepdim : tensor<?x64xf32>
        sinter.yield %s : tensor<?x1xf32>
      }
      return %0 : tensor<?x1xf32>
    }
  }

  // A hand-written tile_rows plan over a kernel that transposes within its
  // rows: a tile holds rows in row-major order, so the emitter refuses it.
  module @tiles_transposed {
    func.func @forward(%x: tensor<64x5x5xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", "", ""]})
        -> (tensor<64x5x5xf32> {sinter.name = "y", sinter.dim_names = ["", "", ""]}) {
      // TILES: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: tiled rows are of a static length, every cached input and output of whole rows or one element a row, every reduction over whole rows, no shape op but a reshape
      %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 2, rows_per_block = 128, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>} : (tensor<64x5x5xf32>) -> tensor<64x5x5xf32> {
      ^bb0(%a: tensor<64x5x5xf32>):
        %t = sinter.transpose %a perm [0, 2, 1] : tensor<64x5x5xf32>
        %m = sinter.max %t dims [1, 2] keepdim : tensor<64x5x5xf32>
        %d = sinter.sub %t, %m : tensor<64x5x5xf32>, tensor<64x1x1xf32>
        sinter.yield %d : tensor<64x5x5xf32>
      }
      return %0 : tensor<64x5x5xf32>
    }
  }

  // A hand-written plan whose cluster of 8 would leave its last block no
  // element of rows of 9 (slices of 2).
  module @cluster_odd {
    func.func @forward(%x: tensor<8x9xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
        -> (tensor<8x9xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
      // CLUSTER: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: a cluster shares cached rows of a static length, a slice of each block but for the last (which float4 groups divide equally where the vector width is 4), every reduction over whole rows
      %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 8>} : (tensor<8x9xf32>) -> tensor<8x9xf32> {
      ^bb0(%a: tensor<8x9xf32>):
        %m = sinter.max %a dims [1] keepdim : tensor<8x9xf32>
        %d = sinter.sub %a, %m : tensor<8x9xf32>, tensor<8x1xf32>
        sinter.yield %d : tensor<8x9xf32>
      }
      return %0 : tensor<8x9xf32>
    }
  }

  // A hand-written plan of float4 rows whose cluster of 4 cuts rows of 1000
  // into slices of 250, which float4 groups do not divide.
  module @cluster_float4 {
    func.func @forward(%x: tensor<8x1000xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
        -> (tensor<8x1000xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
      // CLUSTER4: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: a cluster shares cached rows of a static length, a slice of each block but for the last (which float4 groups divide equally where the vector width is 4)
      %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 4>} : (tensor<8x1000xf32>) -> tensor<8x1000xf32> {
      ^bb0(%a: tensor<8x1000xf32>):
        %m = sinter.max %a dims [1] keepdim : tensor<8x1000xf32>
        %d = sinter.sub %a, %m : tensor<8x1000xf32>, tensor<8x1xf32>
        sinter.yield %d : tensor<8x1000xf32>
      }
      return %0 : tensor<8x1000xf32>
    }
  }

  // A hand-written plan of float4 rows whose cluster of 8 would cut rows of
  // 124 into slices of 16 and a short last one of 12: float4 slices must be
  // equal.
  module @cluster_float4_short {
    func.func @forward(%x: tensor<8x124xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
        -> (tensor<8x124xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
      // CLUSTER4-SHORT: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: a cluster shares cached rows of a static length, a slice of each block but for the last (which float4 groups divide equally where the vector width is 4)
      %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 8>} : (tensor<8x124xf32>) -> tensor<8x124xf32> {
      ^bb0(%a: tensor<8x124xf32>):
        %m = sinter.max %a dims [1] keepdim : tensor<8x124xf32>
        %d = sinter.sub %a, %m : tensor<8x124xf32>, tensor<8x1xf32>
        sinter.yield %d : tensor<8x124xf32>
      }
      return %0 : tensor<8x124xf32>
    }
  }

  // A hand-written streamed plan whose second reduction reads the first but
  // is no single-pass pair's: the slices' sums would not fold.
  module @streamed_two_levels {
    func.func @forward(%x: tensor<8x524288xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
        -> (tensor<8x524288xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
      // STREAMED: invalid.mlir:[[@LINE+1]]:12: error: CUDA emitter: streamed rows are of a static length that the slices divide into float4 groups, every reduction over whole rows and reading no other's result but as a single-pass pair
      %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64, stream_lag = 256, stream_blocks = 4>} : (tensor<8x524288xf32>) -> tensor<8x524288xf32> {
      ^bb0(%a: tensor<8x524288xf32>):
        %m = sinter.mean %a dims [1] keepdim : tensor<8x524288xf32>
        %d = sinter.sub %a, %m : tensor<8x524288xf32>, tensor<8x1xf32>
        %p = sinter.mul %d, %a : tensor<8x524288xf32>, tensor<8x524288xf32>
        %v = sinter.sum %p dims [1] keepdim : tensor<8x524288xf32>
        %y = sinter.div %d, %v : tensor<8x524288xf32>, tensor<8x1xf32>
        sinter.yield %y : tensor<8x524288xf32>
      }
      return %0 : tensor<8x524288xf32>
    }
  }

  module @unnamed attributes {sinter.dims = {B = 8 : i64}} {
    // UNNAMED: invalid.mlir:[[@LINE+1]]:5: error: 'x': dynamic dim #0 has no name in sinter.dim_names
    func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x"})
        -> (tensor<?x64xf32> {sinter.name = "y"}) {
      %0 = sinter.kernel pointwise(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
      ^bb0(%a: tensor<?x64xf32>):
        %e = sinter.exp %a : tensor<?x64xf32>
        sinter.yield %e : tensor<?x64xf32>
      }
      return %0 : tensor<?x64xf32>
    }
  }
}
