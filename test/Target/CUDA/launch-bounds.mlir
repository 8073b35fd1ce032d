// The blocks per multiprocessor in __launch_bounds__ come from the plan's
// min_blocks (apply_min_blocks for the apply step of a split reduction):
// plans written here ask for other values than sinter-plan-kernels would,
// or none, and the kernels follow them.
// RUN: sinter-opt --split-input-file --sinter-plan-kernels %s | sinter-translate --split-input-file --sinter-to-cuda | FileCheck %s

// A split reduction whose plan asks for 3 blocks of its partial kernels and
// 5 of its apply step (the planner: 4 and 6).
// CHECK-LABEL: // ===== split_three.h =====
// CHECK: /// Partial mean over dims [0] of [B, 96], per column and slice of rows.
// CHECK-NEXT: __global__ void __launch_bounds__(256, 3)
// CHECK-NEXT: split_three_k0_column_reduction_partial0(
// CHECK: split_three_k0_column_reduction_final0(
// CHECK: __global__ void __launch_bounds__(256, 5)
// CHECK-NEXT: split_three_k0_column_reduction_apply(
module @split_three attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x96xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x96xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel column_reduction(%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 1, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 3, apply_min_blocks = 5, chunk_loads = 8>} : (tensor<?x96xf32>) -> tensor<?x96xf32> {
    ^bb0(%a: tensor<?x96xf32>):
      %m = sinter.mean %a dims [0] keepdim : tensor<?x96xf32>
      %d = sinter.sub %a, %m : tensor<?x96xf32>, tensor<1x96xf32>
      sinter.yield %d : tensor<?x96xf32>
    }
    return %0 : tensor<?x96xf32>
  }
}

// -----

// The same kernel with a plan that asks for no minimum.
// CHECK-LABEL: // ===== split_none.h =====
// CHECK: /// Partial mean over dims [0] of [B, 96], per column and slice of rows.
// CHECK-NEXT: __global__ void __launch_bounds__(256)
// CHECK-NEXT: split_none_k0_column_reduction_partial0(
// CHECK: split_none_k0_column_reduction_final0(
// CHECK: __global__ void __launch_bounds__(256)
// CHECK-NEXT: split_none_k0_column_reduction_apply(
module @split_none attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?x96xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]})
      -> (tensor<?x96xf32> {sinter.name = "y", sinter.dim_names = ["B", ""]}) {
    %0 = sinter.kernel column_reduction(%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 1, cached = [], passes = 2, launches = 3, epilogue = none, chunk_loads = 8>} : (tensor<?x96xf32>) -> tensor<?x96xf32> {
    ^bb0(%a: tensor<?x96xf32>):
      %m = sinter.mean %a dims [0] keepdim : tensor<?x96xf32>
      %d = sinter.sub %a, %m : tensor<?x96xf32>, tensor<1x96xf32>
      sinter.yield %d : tensor<?x96xf32>
    }
    return %0 : tensor<?x96xf32>
  }
}

// -----

// Softmax of x + r over 4096 rows of 16384 held in registers by 1024
// threads, planned here: sinter-plan-kernels asks for 2 blocks.
// CHECK-LABEL: // ===== rows_planned.h =====
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads, 2)
// CHECK-NEXT: rows_planned_k0_row_reduction(
module @rows_planned {
  func.func @forward(%x: tensor<4096x16384xf32> {sinter.role = "input", sinter.name = "x"},
                     %r: tensor<4096x16384xf32> {sinter.role = "input", sinter.name = "r"})
      -> (tensor<4096x16384xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel row_reduction(%x, %r) : (tensor<4096x16384xf32>, tensor<4096x16384xf32>) -> tensor<4096x16384xf32> {
    ^bb0(%a0: tensor<4096x16384xf32>, %b0: tensor<4096x16384xf32>):
      %a = sinter.add %a0, %b0 : tensor<4096x16384xf32>, tensor<4096x16384xf32>
      %m = sinter.max %a dims [1] keepdim : tensor<4096x16384xf32>
      %d = sinter.sub %a, %m : tensor<4096x16384xf32>, tensor<4096x1xf32>
      %e = sinter.exp %d : tensor<4096x16384xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<4096x16384xf32>
      %y = sinter.div %e, %s : tensor<4096x16384xf32>, tensor<4096x1xf32>
      sinter.yield %y : tensor<4096x16384xf32>
    }
    return %0 : tensor<4096x16384xf32>
  }
}

// -----

// The same kernel with the planner's plan but min_blocks = 1 written here.
// CHECK-LABEL: // ===== rows_one.h =====
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads, 1)
// CHECK-NEXT: rows_one_k0_row_reduction(
module @rows_one {
  func.func @forward(%x: tensor<4096x16384xf32> {sinter.role = "input", sinter.name = "x"})
      -> (tensor<4096x16384xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, min_blocks = 1>} : (tensor<4096x16384xf32>) -> tensor<4096x16384xf32> {
    ^bb0(%a: tensor<4096x16384xf32>):
      %m = sinter.max %a dims [1] keepdim : tensor<4096x16384xf32>
      %d = sinter.sub %a, %m : tensor<4096x16384xf32>, tensor<4096x1xf32>
      %e = sinter.exp %d : tensor<4096x16384xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<4096x16384xf32>
      %y = sinter.div %e, %s : tensor<4096x16384xf32>, tensor<4096x1xf32>
      sinter.yield %y : tensor<4096x16384xf32>
    }
    return %0 : tensor<4096x16384xf32>
  }
}

// -----

// ... and without min_blocks: no minimum.
// CHECK-LABEL: // ===== rows_none.h =====
// CHECK: template <int kThreads>{{$}}
// CHECK-NEXT: __global__ void __launch_bounds__(kThreads < 256 ? 256 : kThreads){{$}}
// CHECK-NEXT: rows_none_k0_row_reduction(
module @rows_none {
  func.func @forward(%x: tensor<4096x16384xf32> {sinter.role = "input", sinter.name = "x"})
      -> (tensor<4096x16384xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>} : (tensor<4096x16384xf32>) -> tensor<4096x16384xf32> {
    ^bb0(%a: tensor<4096x16384xf32>):
      %m = sinter.max %a dims [1] keepdim : tensor<4096x16384xf32>
      %d = sinter.sub %a, %m : tensor<4096x16384xf32>, tensor<4096x1xf32>
      %e = sinter.exp %d : tensor<4096x16384xf32>
      %s = sinter.sum %e dims [1] keepdim : tensor<4096x16384xf32>
      %y = sinter.div %e, %s : tensor<4096x16384xf32>, tensor<4096x1xf32>
      sinter.yield %y : tensor<4096x16384xf32>
    }
    return %0 : tensor<4096x16384xf32>
  }
}

// -----

// An elementwise kernel whose plan asks for 8 blocks (the planner: none).
// CHECK-LABEL: // ===== pointwise_eight.h =====
// CHECK: __global__ void __launch_bounds__(256, 8)
// CHECK-NEXT: pointwise_eight_k0_pointwise(
module @pointwise_eight {
  func.func @forward(%x: tensor<64x64xf32> {sinter.role = "input", sinter.name = "x"})
      -> (tensor<64x64xf32> {sinter.name = "y"}) {
    %0 = sinter.kernel pointwise(%x) {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 8>} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    ^bb0(%a: tensor<64x64xf32>):
      %r = sinter.relu %a : tensor<64x64xf32>
      sinter.yield %r : tensor<64x64xf32>
    }
    return %0 : tensor<64x64xf32>
  }
}
