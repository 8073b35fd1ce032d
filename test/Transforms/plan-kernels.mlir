// sinter-plan-kernels: every kernel gets a #sinter.plan that the CUDA
// emitter follows; one case per strategy.
// RUN: sinter-opt %s --split-input-file --sinter-form-kernels --sinter-plan-kernels | FileCheck %s

// An elementwise kernel with 16-byte vectors: every output full-size.
// CHECK-LABEL: func.func @elementwise_vector
// CHECK: sinter.kernel pointwise
// CHECK-SAME: plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>
func.func @elementwise_vector(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.add %x, %b : tensor<?x64xf32>, tensor<64xf32>
  %1 = sinter.relu %0 : tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}

// -----

// An elementwise kernel of its own elements only (nothing broadcast): blocks
// of 128 threads, each loading two float4 groups before it computes them.
// CHECK-LABEL: func.func @elementwise_grouped
// CHECK: sinter.kernel pointwise
// CHECK-SAME: plan = #sinter.plan<strategy = elementwise, geometry = none, block = 128, rows_per_block = 0, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, chunk_loads = 2>
func.func @elementwise_grouped(%x: tensor<1024x64xf32>, %y: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %c = sinter.constant dense<2.0> : tensor<f32>
  %0 = sinter.silu %x : tensor<1024x64xf32>
  %1 = sinter.mul %0, %y : tensor<1024x64xf32>, tensor<1024x64xf32>
  %2 = sinter.mul %1, %c : tensor<1024x64xf32>, tensor<f32>
  return %2 : tensor<1024x64xf32>
}

// -----

// Mish chains three special functions an element: four groups a thread.
// CHECK-LABEL: func.func @elementwise_grouped_chained
// CHECK: plan = #sinter.plan<strategy = elementwise, {{.*}}, block = 128, {{.*}}, vector_width = 4, {{.*}}, chunk_loads = 4>
func.func @elementwise_grouped_chained(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %0 = sinter.mish %x : tensor<1024x64xf32>
  return %0 : tensor<1024x64xf32>
}

// -----

// Symbolic dims: x and y of [B, 64] are grouped; x of [B, 64] and z of
// [T, 64] may differ (z broadcasts where T = 1), so they are not.
// CHECK-LABEL: func.func @elementwise_grouped_dims
// CHECK: plan = #sinter.plan<strategy = elementwise, {{.*}}, block = 128, {{.*}}, chunk_loads = 2>
// CHECK: plan = #sinter.plan<strategy = elementwise, {{.*}}, block = 256, {{.*}}, epilogue = none>
func.func @elementwise_grouped_dims(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]}, %y: tensor<?x64xf32> {sinter.dim_names = ["B", ""]}, %z: tensor<?x64xf32> {sinter.dim_names = ["T", ""]}) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %0 = sinter.add %x, %y : tensor<?x64xf32>, tensor<?x64xf32>
  %1 = sinter.add %x, %z : tensor<?x64xf32>, tensor<?x64xf32>
  return %0, %1 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Rows of 17 to 32 float4 groups in registers: half the lanes where that
// leaves fewer group slots idle (rows of 96, 24 groups: 8 lanes of 3, not 16
// of 2), else the most lanes (rows of 100, 25 groups: 16 lanes, as 8 would
// leave as many idle); an argmax over rows of 256 (64 groups): 16 lanes of
// 4 groups.
// CHECK-LABEL: func.func @register_teams_idle_slots
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32,
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 16, rows_per_block = 16,
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 16, rows_per_block = 16,
func.func @register_teams_idle_slots(%x: tensor<?x96xf32>, %y: tensor<?x100xf32>, %z: tensor<?x256xf32>) -> (tensor<?x96xf32>, tensor<?x100xf32>, tensor<?xi64>) {
  %m = sinter.max %x dims [1] keepdim : tensor<?x96xf32>
  %d = sinter.sub %x, %m : tensor<?x96xf32>, tensor<?x1xf32>
  %n = sinter.max %y dims [1] keepdim : tensor<?x100xf32>
  %e = sinter.sub %y, %n : tensor<?x100xf32>, tensor<?x1xf32>
  %i = sinter.argmax %z dims [1] : tensor<?x256xf32>
  return %d, %e, %i : tensor<?x96xf32>, tensor<?x100xf32>, tensor<?xi64>
}

// -----

// Rows of 4097 read by one pass: not a multiple of 4, so scalar loads.
// CHECK-LABEL: func.func @scalar_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1,
func.func @scalar_rows(%x: tensor<?x4097xf32>) -> tensor<?xi64> {
  %i = sinter.argmin %x dims [1] : tensor<?x4097xf32>
  return %i : tensor<?xi64>
}

// -----

// Rows of 7 broadcast along: four consecutive elements may straddle rows,
// so each lane of a float4 group reads the broadcast value at its own
// coordinates.
// CHECK-LABEL: func.func @elementwise_odd_rows
// CHECK: plan = #sinter.plan<strategy = elementwise, {{.*}}, vector_width = 4,
func.func @elementwise_odd_rows(%x: tensor<?x7xf32>, %b: tensor<7xf32>) -> tensor<?x7xf32> {
  %0 = sinter.mul %x, %b : tensor<?x7xf32>, tensor<7xf32>
  return %0 : tensor<?x7xf32>
}

// -----

// Softmax over rows of 32: eight lanes per row (a float4 group each), 32
// rows per block of 256 threads, the row held in registers, so HBM is read
// once.
// CHECK-LABEL: func.func @subwarp_per_row
// CHECK: sinter.kernel row_reduction
// CHECK-SAME: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_per_row(%x: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x32xf32>
  %d = sinter.sub %x, %m : tensor<?x32xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x32xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x32xf32>
  %y = sinter.div %e, %s : tensor<?x32xf32>, tensor<?x1xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Rows of 36: nine float4 groups over two lanes (five and four), the
// fewest idle group slots (four lanes would leave three, eight seven).
// CHECK-LABEL: func.func @subwarp_partial
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 2, rows_per_block = 128, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_partial(%x: tensor<?x36xf32>) -> tensor<?x1xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x36xf32>
  return %m : tensor<?x1xf32>
}

// -----

// Argmax over rows of 20: five float4 groups, and an argmax's lanes take at
// least four each, so one lane a row; its row is cached in registers,
// loaded whole before the pass.
// CHECK-LABEL: func.func @subwarp_argmax
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 256, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_argmax(%x: tensor<?x20xf32>) -> tensor<?xi64> {
  %i = sinter.argmax %x dims [1] : tensor<?x20xf32>
  return %i : tensor<?xi64>
}

// -----

// Rows of 64 (16 float4 groups): eight lanes of two groups each.
// CHECK-LABEL: func.func @subwarp_two_a_lane
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_two_a_lane(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x64xf32>
  %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<?x1xf32>
  return %d : tensor<?x64xf32>
}

// -----

// Softmax over rows of 100: 25 float4 groups, two a lane, 16 lanes,
// rather than a warp with 7 lanes idle.
// CHECK-LABEL: func.func @subwarp_two_groups
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 16, rows_per_block = 16, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_two_groups(%x: tensor<?x100xf32>) -> tensor<?x100xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x100xf32>
  %d = sinter.sub %x, %m : tensor<?x100xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x100xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x100xf32>
  %y = sinter.div %e, %s : tensor<?x100xf32>, tensor<?x1xf32>
  return %y : tensor<?x100xf32>
}

// -----

// Argmax over rows of 100, whose team shuffles a value and an index a
// level: four groups a lane, 8 lanes.
// CHECK-LABEL: func.func @subwarp_four_groups
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @subwarp_four_groups(%x: tensor<?x100xf32>) -> tensor<?xi64> {
  %i = sinter.argmax %x dims [1] : tensor<?x100xf32>
  return %i : tensor<?xi64>
}

// -----

// A mean over rows of 7001, read once from HBM: vector width 4, float4
// groups from each row's first 16-byte boundary between scalar edges. Not
// for argmax, whose lanes push their elements in index order.
// CHECK-LABEL: func.func @edge_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>
// CHECK-LABEL: func.func @edge_rows_argmax
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>
func.func @edge_rows(%x: tensor<?x7001xf32>) -> tensor<?xf32> {
  %m = sinter.mean %x dims [1] : tensor<?x7001xf32>
  return %m : tensor<?xf32>
}
func.func @edge_rows_argmax(%x: tensor<?x7001xf32>) -> tensor<?xi64> {
  %i = sinter.argmax %x dims [1] : tensor<?x7001xf32>
  return %i : tensor<?xi64>
}

// -----

// Rows of 3 and of 7 (no float4 group): a thread a row, not a warp, each
// thread's tile of 4 rows (3 and 7 float4 groups) in its registers (the
// plan's tile_rows with rows_per_thread), 1024 rows a block.
// CHECK-LABEL: func.func @short_scalar_rows
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 1024, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 4>
// CHECK-LABEL: func.func @short_scalar_rows_7
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 1024, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 4>
func.func @short_scalar_rows(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  %m = sinter.mean %x dims [1] : tensor<?x3xf32>
  return %m : tensor<?xf32>
}
func.func @short_scalar_rows_7(%x: tensor<?x7xf32>) -> tensor<?xf32> {
  %m = sinter.max %x dims [1] : tensor<?x7xf32>
  return %m : tensor<?xf32>
}

// -----

// Softmax over rows of 2: a float4 of 2 rows a thread, in its registers.
// CHECK-LABEL: func.func @tile_rows_pairs
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 512, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 2>
func.func @tile_rows_pairs(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x2xf32>
  %d = sinter.sub %x, %m : tensor<?x2xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x2xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x2xf32>
  %y = sinter.div %e, %s : tensor<?x2xf32>, tensor<?x1xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Softmax over rows of 77 (CLIP's text length: no float4 groups): 8 lanes
// a row (at most 16 elements a lane), the block's 32 rows staged as a tile,
// the outputs' too; over rows of 49, 4 lanes; over rows of 129, a warp
// whose passes re-read the row from L1 (rows longer than 128 are not
// tiled; see @warp_rereads_l1).
// CHECK-LABEL: func.func @tile_rows_lanes
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 4, rows_per_block = 64, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>
func.func @tile_rows_lanes(%x: tensor<?x77xf32>, %w: tensor<?x49xf32>, %z: tensor<?x129xf32>) -> (tensor<?x77xf32>, tensor<?x49xf32>, tensor<?x129xf32>) {
  %m = sinter.max %x dims [1] keepdim : tensor<?x77xf32>
  %d = sinter.sub %x, %m : tensor<?x77xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x77xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x77xf32>
  %y = sinter.div %e, %s : tensor<?x77xf32>, tensor<?x1xf32>
  %mz = sinter.max %z dims [1] keepdim : tensor<?x129xf32>
  %dz = sinter.sub %z, %mz : tensor<?x129xf32>, tensor<?x1xf32>
  %ez = sinter.exp %dz : tensor<?x129xf32>
  %sz = sinter.sum %ez dims [1] keepdim : tensor<?x129xf32>
  %yz = sinter.div %ez, %sz : tensor<?x129xf32>, tensor<?x1xf32>
  %mw = sinter.max %w dims [1] keepdim : tensor<?x49xf32>
  %yw = sinter.sub %w, %mw : tensor<?x49xf32>, tensor<?x1xf32>
  return %y, %yw, %yz : tensor<?x77xf32>, tensor<?x49xf32>, tensor<?x129xf32>
}

// -----

// Tiles of a thread a row of 11 and their limits: two tiled inputs, a
// tiled output and a statistic a row (four tiles of 128 rows: 22 KiB; 4
// rows a thread in registers would be 132 floats); a
// norm's weight is read where it is, not tiled; four inputs and an output
// of rows of 127 take 16 rows a tile, not 32, so that the tiles fit 48 KiB.
// CHECK-LABEL: func.func @tile_rows_thread
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 128, columns_per_block = 0, vector_width = 1, cached = [0, 1], passes = 1, launches = 1, epilogue = none, tile_rows = true>
func.func @tile_rows_thread(%x: tensor<?x11xf32>, %y: tensor<?x11xf32>) -> (tensor<?x11xf32>, tensor<?xf32>) {
  %s = sinter.add %x, %y : tensor<?x11xf32>, tensor<?x11xf32>
  %m = sinter.mean %s dims [1] keepdim : tensor<?x11xf32>
  %d = sinter.sub %x, %m : tensor<?x11xf32>, tensor<?x1xf32>
  %l = sinter.max %y dims [1] : tensor<?x11xf32>
  return %d, %l : tensor<?x11xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @tile_rows_weight
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 32, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>
func.func @tile_rows_weight(%x: tensor<?x77xf32>, %w: tensor<77xf32>) -> tensor<?x77xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x77xf32>
  %d = sinter.sub %x, %m : tensor<?x77xf32>, tensor<?x1xf32>
  %y = sinter.mul %d, %w : tensor<?x77xf32>, tensor<77xf32>
  return %y : tensor<?x77xf32>
}
// CHECK-LABEL: func.func @tile_rows_smaller_tiles
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 16, columns_per_block = 0, vector_width = 1, cached = [0, 1, 2, 3], passes = 1, launches = 1, epilogue = none, tile_rows = true>
func.func @tile_rows_smaller_tiles(%a: tensor<?x127xf32>, %b: tensor<?x127xf32>, %c: tensor<?x127xf32>, %d: tensor<?x127xf32>) -> tensor<?x127xf32> {
  %ab = sinter.add %a, %b : tensor<?x127xf32>, tensor<?x127xf32>
  %cd = sinter.add %c, %d : tensor<?x127xf32>, tensor<?x127xf32>
  %s = sinter.mul %ab, %cd : tensor<?x127xf32>, tensor<?x127xf32>
  %m = sinter.max %s dims [1] keepdim : tensor<?x127xf32>
  %y = sinter.sub %s, %m : tensor<?x127xf32>, tensor<?x1xf32>
  return %y : tensor<?x127xf32>
}

// -----

// Softmax over rows of 512: a warp per row, eight rows per block, four
// float4 groups of the row (read by three passes) in each lane's registers.
// CHECK-LABEL: func.func @warp_per_row
// CHECK: sinter.kernel row_reduction
// CHECK-SAME: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @warp_per_row(%x: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x512xf32>
  %d = sinter.sub %x, %m : tensor<?x512xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x512xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x512xf32>
  %y = sinter.div %e, %s : tensor<?x512xf32>, tensor<?x1xf32>
  return %y : tensor<?x512xf32>
}

// -----

// Rows of 9797 (97 x 101 maps) that one pass reads from HBM: 256 threads a
// row (8 to 10 float4 groups each), not 1024; rows of 16384 keep 1024
// (held in registers).
// CHECK-LABEL: func.func @streamed_row_team
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @streamed_row_team(%x: tensor<?x97x101xf32>, %z: tensor<?x16384xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = sinter.sum %x dims [1, 2] : tensor<?x97x101xf32>
  %m = sinter.mean %z dims [1] : tensor<?x16384xf32>
  return %s, %m : tensor<?xf32>, tensor<?xf32>
}

// -----

// Rows of 510 are not float4 groups: a warp per row, whose passes read the
// row from global memory again (L1 holds the block's 8 rows; HBM is read
// once), scalar loads, no single-pass statistics, no copy in shared
// memory. Rows of 514 (above 2 KiB) keep the copy.
// CHECK-LABEL: func.func @warp_rereads_l1
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none>
func.func @warp_rereads_l1(%x: tensor<?x510xf32>, %y: tensor<?x514xf32>) -> (tensor<?x510xf32>, tensor<?x514xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x510xf32>
  %d = sinter.sub %x, %m : tensor<?x510xf32>, tensor<?x1xf32>
  %my = sinter.mean %y dims [1] keepdim : tensor<?x514xf32>
  %dy = sinter.sub %y, %my : tensor<?x514xf32>, tensor<?x1xf32>
  return %d, %dy : tensor<?x510xf32>, tensor<?x514xf32>
}

// -----

// Rows of 4096: a block of 256 threads per row, four float4 groups per
// thread in registers.
// CHECK-LABEL: func.func @block_per_row
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @block_per_row(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x4096xf32>
  %d = sinter.sub %x, %m : tensor<?x4096xf32>, tensor<?x1xf32>
  return %d : tensor<?x4096xf32>
}

// -----

// Two inputs over rows of 8192 (a residual add into a norm) take 32 floats
// of registers each, 64 per thread: held in registers.
// CHECK-LABEL: func.func @block_two_held
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @block_two_held(%x: tensor<?x8192xf32>, %y: tensor<?x8192xf32>) -> tensor<?x8192xf32> {
  %p = sinter.add %x, %y : tensor<?x8192xf32>, tensor<?x8192xf32>
  %m = sinter.mean %p dims [1] keepdim : tensor<?x8192xf32>
  %d = sinter.sub %p, %m : tensor<?x8192xf32>, tensor<?x1xf32>
  return %d : tensor<?x8192xf32>
}

// -----

// Three inputs over rows of 8192 would take 96 floats of registers per
// thread: all cached in shared memory instead, as float4 groups.
// CHECK-LABEL: func.func @block_shared
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1, 2], passes = 1, launches = 1, epilogue = none>
func.func @block_shared(%x: tensor<?x8192xf32>, %y: tensor<?x8192xf32>, %z: tensor<?x8192xf32>) -> tensor<?x8192xf32> {
  %p = sinter.mul %x, %y : tensor<?x8192xf32>, tensor<?x8192xf32>
  %q = sinter.add %p, %z : tensor<?x8192xf32>, tensor<?x8192xf32>
  %m = sinter.mean %q dims [1] keepdim : tensor<?x8192xf32>
  %d = sinter.sub %q, %m : tensor<?x8192xf32>, tensor<?x1xf32>
  return %d : tensor<?x8192xf32>
}

// -----

// Rows of 524288 (2 MiB) are too long for the shared memory of a cluster
// of 8 blocks in slices of 64 KiB: streamed through L2 in 64 slices of 32
// KiB, by blocks of 512 threads with float4 loads, HBM read once; a
// slice's outputs trail its statistics by 256 slices (8 MiB).
// CHECK-LABEL: func.func @streamed_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64, stream_lag = 256, stream_blocks = 4>
func.func @streamed_rows(%x: tensor<1024x524288xf32>) -> tensor<1024x524288xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<1024x524288xf32>
  %d = sinter.sub %x, %m : tensor<1024x524288xf32>, tensor<1024x1xf32>
  return %d : tensor<1024x524288xf32>
}

// -----

// Rows of 150528 (588 KiB, layer_norm over the last two dims of [448, 196,
// 768]) need slices over 64 KiB: a cluster of 4 slices of 147 KiB would
// leave one block a multiprocessor, so the reduction is split (two passes,
// two launches); rows of 100003 take 4 slices of 98 KiB (two blocks a
// multiprocessor; not a multiple of 4 long: scalar); rows of 262144 (1 MiB) would take 8 slices of 128 KiB,
// which ran slower than streaming: streamed in 32 slices.
// CHECK-LABEL: func.func @cluster_before_stream
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 2, launches = 2, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 4>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 32, stream_lag = 256, stream_blocks = 4>
func.func @cluster_before_stream(%x: tensor<448x150528xf32>, %y: tensor<671x100003xf32>, %z: tensor<1024x262144xf32>) -> (tensor<448x150528xf32>, tensor<671x100003xf32>, tensor<1024x262144xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<448x150528xf32>
  %d = sinter.sub %x, %m : tensor<448x150528xf32>, tensor<448x1xf32>
  %my = sinter.mean %y dims [1] keepdim : tensor<671x100003xf32>
  %dy = sinter.sub %y, %my : tensor<671x100003xf32>, tensor<671x1xf32>
  %mz = sinter.mean %z dims [1] keepdim : tensor<1024x262144xf32>
  %dz = sinter.sub %z, %mz : tensor<1024x262144xf32>, tensor<1024x1xf32>
  return %d, %dy, %dz : tensor<448x150528xf32>, tensor<671x100003xf32>, tensor<1024x262144xf32>
}

// -----

// Softmax over 64 rows of 1048576 (4 MiB): few rows, but the whole grid
// walks their slices (128; the lag, 8 MiB, is 2 rows), so they are
// streamed rather than split. The max and the sum of exp(x - max) are
// computed in turn over each slice, without single-pass statistics: a
// slice's partial is their online softmax state.
// CHECK-LABEL: func.func @streamed_few_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, {{.*}}, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 128, stream_lag = 256, stream_blocks = 4>
func.func @streamed_few_rows(%x: tensor<64x1048576xf32>) -> tensor<64x1048576xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<64x1048576xf32>
  %d = sinter.sub %x, %m : tensor<64x1048576xf32>, tensor<64x1xf32>
  %e = sinter.exp %d : tensor<64x1048576xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<64x1048576xf32>
  %y = sinter.div %e, %s : tensor<64x1048576xf32>, tensor<64x1xf32>
  return %y : tensor<64x1048576xf32>
}

// -----

// Rows of 1048575 are not streamed: no slices of whole float4 groups divide
// them. A few rows: a split reduction.
// CHECK-LABEL: func.func @streamed_no_slices
// CHECK: plan = #sinter.plan<strategy = split_reduction,
func.func @streamed_no_slices(%x: tensor<4x1048575xf32>) -> tensor<4x1048575xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<4x1048575xf32>
  %d = sinter.sub %x, %m : tensor<4x1048575xf32>, tensor<4x1xf32>
  return %d : tensor<4x1048575xf32>
}

// -----

// A sum of (x - mean) * x reads the mean but is no single-pass pair's
// outer statistic: the slices' sums about their own means would not fold.
// Not streamed: a split reduction.
// CHECK-LABEL: func.func @streamed_no_fold
// CHECK: plan = #sinter.plan<strategy = split_reduction,
func.func @streamed_no_fold(%x: tensor<64x1048576xf32>) -> tensor<64x1048576xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<64x1048576xf32>
  %d = sinter.sub %x, %m : tensor<64x1048576xf32>, tensor<64x1xf32>
  %p = sinter.mul %d, %x : tensor<64x1048576xf32>, tensor<64x1048576xf32>
  %v = sinter.sum %p dims [1] keepdim : tensor<64x1048576xf32>
  %y = sinter.div %d, %v : tensor<64x1048576xf32>, tensor<64x1xf32>
  return %y : tensor<64x1048576xf32>
}

// -----

// Rows of 4194304 (16 MiB) do not fit in shared memory, not even in that of
// a cluster of 8 blocks, and are too long to stream through L2: 1024
// threads per row, every pass (the mean, then the centered output) reads
// HBM: two reads, with 16-byte vectors (rows of a multiple of 4 start
// aligned).
// CHECK-LABEL: func.func @long_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 2, launches = 1, epilogue = none>
func.func @long_rows(%x: tensor<1024x4194304xf32>) -> tensor<1024x4194304xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<1024x4194304xf32>
  %d = sinter.sub %x, %m : tensor<1024x4194304xf32>, tensor<1024x1xf32>
  return %d : tensor<1024x4194304xf32>
}

// -----

// Softmax over 1024 rows of 4194304: the rows do not fit in shared memory,
// so the max and the sum of exp(x - max) are computed in one pass (online
// softmax), and the output pass reads the row again: two reads, not three.
// CHECK-LABEL: func.func @online_softmax
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 2, launches = 1, epilogue = none, single_pass = true>
func.func @online_softmax(%x: tensor<1024x4194304xf32>) -> tensor<1024x4194304xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<1024x4194304xf32>
  %d = sinter.sub %x, %m : tensor<1024x4194304xf32>, tensor<1024x1xf32>
  %e = sinter.exp %d : tensor<1024x4194304xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<1024x4194304xf32>
  %y = sinter.div %e, %s : tensor<1024x4194304xf32>, tensor<1024x1xf32>
  return %y : tensor<1024x4194304xf32>
}

// -----

// Instance norm over 512 rows of 4194304: the mean and the mean of squared
// deviations in one pass (Welford), then the normalizing pass.
// CHECK-LABEL: func.func @welford
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 2, launches = 1, epilogue = none, single_pass = true>
func.func @welford(%x: tensor<512x4194304xf32>) -> tensor<512x4194304xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<512x4194304xf32>
  %d = sinter.sub %x, %m : tensor<512x4194304xf32>, tensor<512x1xf32>
  %sq = sinter.mul %d, %d : tensor<512x4194304xf32>, tensor<512x4194304xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<512x4194304xf32>
  %y = sinter.div %d, %v : tensor<512x4194304xf32>, tensor<512x1xf32>
  return %y : tensor<512x4194304xf32>
}

// -----

// A sum of (x - mean) * x, not of squared deviations (whose sum is
// Welford's M2, a single-pass pair): two passes and the output pass.
// CHECK-LABEL: func.func @no_single_pass
// CHECK: plan = #sinter.plan<strategy = block_per_row, {{.*}}, passes = 3, launches = 1, epilogue = none>}
func.func @no_single_pass(%x: tensor<512x4194304xf32>) -> tensor<512x4194304xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<512x4194304xf32>
  %d = sinter.sub %x, %m : tensor<512x4194304xf32>, tensor<512x1xf32>
  %sq = sinter.mul %d, %x : tensor<512x4194304xf32>, tensor<512x4194304xf32>
  %v = sinter.sum %sq dims [1] keepdim : tensor<512x4194304xf32>
  %y = sinter.div %d, %v : tensor<512x4194304xf32>, tensor<512x1xf32>
  return %y : tensor<512x4194304xf32>
}

// -----

// Softmax over 1024 rows of 65536 (256 KiB): too long for one block's
// shared memory, not for a cluster of 4 blocks of 512 threads, each of
// which caches a slice of 64 KiB: HBM is read once, as float4 groups.
// CHECK-LABEL: func.func @cluster_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 4>
func.func @cluster_rows(%x: tensor<1024x65536xf32>) -> tensor<1024x65536xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<1024x65536xf32>
  %d = sinter.sub %x, %m : tensor<1024x65536xf32>, tensor<1024x1xf32>
  %e = sinter.exp %d : tensor<1024x65536xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<1024x65536xf32>
  %y = sinter.div %e, %s : tensor<1024x65536xf32>, tensor<1024x1xf32>
  return %y : tensor<1024x65536xf32>
}

// -----

// log_softmax over rows of 128256 (Llama 3's vocabulary, 501 KiB): a
// cluster of 8 blocks, a slice of 64 KiB each, of 256 threads (not 512).
// CHECK-LABEL: func.func @cluster_of_eight
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 8>
func.func @cluster_of_eight(%x: tensor<?x128256xf32>) -> tensor<?x128256xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x128256xf32>
  %d = sinter.sub %x, %m : tensor<?x128256xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x128256xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x128256xf32>
  %l = sinter.log %s : tensor<?x1xf32>
  %y = sinter.sub %d, %l : tensor<?x128256xf32>, tensor<?x1xf32>
  return %y : tensor<?x128256xf32>
}

// -----

// Rows of 49154 (twice an odd number): 4 blocks do not divide them, 2 do,
// with slices of 96 KiB (under the 160 KiB a block may use), of an odd
// length (scalar loads); a symbolic row count and a per-row output (the
// mean) beside the whole rows.
// CHECK-LABEL: func.func @cluster_of_two
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 2>
func.func @cluster_of_two(%x: tensor<?x49154xf32>) -> (tensor<?x49154xf32>, tensor<?x1xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x49154xf32>
  %d = sinter.sub %x, %m : tensor<?x49154xf32>, tensor<?x1xf32>
  return %d, %m : tensor<?x49154xf32>, tensor<?x1xf32>
}

// -----

// Softmax over rows of 30522 (BERT's vocabulary, 119 KiB, not float4
// groups): one block's shared memory would hold them, but a cluster of 2
// blocks with slices under 64 KiB runs more blocks an SM.
// CHECK-LABEL: func.func @cluster_under_block_limit
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 2>
func.func @cluster_under_block_limit(%x: tensor<?x30522xf32>) -> tensor<?x30522xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x30522xf32>
  %d = sinter.sub %x, %m : tensor<?x30522xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x30522xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x30522xf32>
  %y = sinter.div %e, %s : tensor<?x30522xf32>, tensor<?x1xf32>
  return %y : tensor<?x30522xf32>
}

// -----

// log_softmax over rows of 50257 (GPT-2's vocabulary, 196 KiB): no cluster
// divides them, so a cluster of 4 takes slices of 12565, the last block's
// short (12562); the rows are not float4 groups.
// CHECK-LABEL: func.func @cluster_short_slice
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 4>
func.func @cluster_short_slice(%x: tensor<?x50257xf32>) -> tensor<?x50257xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<?x50257xf32>
  %d = sinter.sub %x, %m : tensor<?x50257xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x50257xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x50257xf32>
  %l = sinter.log %s : tensor<?x1xf32>
  %y = sinter.sub %d, %l : tensor<?x50257xf32>, tensor<?x1xf32>
  return %y : tensor<?x50257xf32>
}

// -----

// logsumexp over rows of 65536: the max and the sum of exp(x - max) in one
// pass read HBM once already; no cluster (its barriers would cost more).
// CHECK-LABEL: func.func @single_pass_reads_once
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, single_pass = true>
func.func @single_pass_reads_once(%x: tensor<1024x65536xf32>) -> tensor<1024x1xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<1024x65536xf32>
  %d = sinter.sub %x, %m : tensor<1024x65536xf32>, tensor<1024x1xf32>
  %e = sinter.exp %d : tensor<1024x65536xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<1024x65536xf32>
  %l = sinter.log %s : tensor<1024x1xf32>
  %y = sinter.add %l, %m : tensor<1024x1xf32>, tensor<1024x1xf32>
  return %y : tensor<1024x1xf32>
}

// -----

// An argmax beside the softmax: a cluster combines no (value, index)
// pairs, so the rows are read twice (online softmax, then the output).
// CHECK-LABEL: func.func @no_cluster_argmax
// CHECK: plan = #sinter.plan<strategy = block_per_row, {{.*}}, cached = [], passes = 2, launches = 1, epilogue = none, single_pass = true>
func.func @no_cluster_argmax(%x: tensor<1024x65536xf32>) -> (tensor<1024x65536xf32>, tensor<1024xi64>) {
  %m = sinter.max %x dims [1] keepdim : tensor<1024x65536xf32>
  %d = sinter.sub %x, %m : tensor<1024x65536xf32>, tensor<1024x1xf32>
  %e = sinter.exp %d : tensor<1024x65536xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<1024x65536xf32>
  %y = sinter.div %e, %s : tensor<1024x65536xf32>, tensor<1024x1xf32>
  %a = sinter.argmax %x dims [1] : tensor<1024x65536xf32>
  return %y, %a : tensor<1024x65536xf32>, tensor<1024xi64>
}

// -----

// 16 rows of 65536 would keep 16 of the GPU's SMs busy: each row is split
// over many blocks (a block's threads split one row's elements), as a
// whole-tensor sum is: partials that read runs of 4 (vector width 4), an
// ordered fold by the last block of each row (16 slices of a row: no
// second launch), and the apply step that reads the rows again.
// CHECK-LABEL: func.func @few_long_rows
// CHECK: sinter.kernel row_reduction
// CHECK-SAME: plan = #sinter.plan<strategy = split_reduction, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 2, launches = 2, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
func.func @few_long_rows(%x: tensor<16x65536xf32>) -> tensor<16x65536xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<16x65536xf32>
  %d = sinter.sub %x, %m : tensor<16x65536xf32>, tensor<16x1xf32>
  return %d : tensor<16x65536xf32>
}

// -----

// 16 rows of 8192: short enough for a block of 256 threads each; float4
// loads.
// CHECK-LABEL: func.func @few_medium_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4,
func.func @few_medium_rows(%x: tensor<16x8192xf32>) -> tensor<16x1xf32> {
  %s = sinter.sum %x dims [1] keepdim : tensor<16x8192xf32>
  return %s : tensor<16x1xf32>
}

// -----

// A symbolic row length: the launch picks warp or block, and whether the
// row fits in shared memory.
// CHECK-LABEL: func.func @row_by_length
// CHECK: plan = #sinter.plan<strategy = row_by_length, geometry = trailing, block = 0, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none>
func.func @row_by_length(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<8x?xf32>
  %d = sinter.sub %x, %m : tensor<8x?xf32>, tensor<8x1xf32>
  return %d : tensor<8x?xf32>
}

// -----

// Statistics over the batch: a split reduction, 128 adjacent columns per
// block, 4 adjacent columns a thread (vector width 4: 96 is a multiple of
// 4). The mean is an output of its fold; the apply step that writes
// x - mean reads the input again: 2 passes, 3 launches.
// CHECK-LABEL: func.func @split_leading
// CHECK: sinter.kernel column_reduction
// CHECK-SAME: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 4, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, apply_min_blocks = 6, apply_rows_per_thread = 4, chunk_loads = 4>
// CHECK-NOT: sinter.kernel
func.func @split_leading(%x: tensor<?x96xf32>) -> (tensor<?x96xf32>, tensor<1x96xf32>) {
  %m = sinter.mean %x dims [0] keepdim : tensor<?x96xf32>
  %d = sinter.sub %x, %m : tensor<?x96xf32>, tensor<1x96xf32>
  return %d, %m : tensor<?x96xf32>, tensor<1x96xf32>
}

// -----

// 16 columns: a block covers 16 (no idle threads; its lanes read adjacent
// rows of 64 bytes), 4 a thread.
// CHECK-LABEL: func.func @split_narrow
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 16, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @split_narrow(%x: tensor<?x16xf32>) -> tensor<1x16xf32> {
  %s = sinter.sum %x dims [0] keepdim : tensor<?x16xf32>
  return %s : tensor<1x16xf32>
}

// -----

// 6 columns, not a multiple of 4: 8 a block, scalar loads.
// CHECK-LABEL: func.func @split_narrow_scalar
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 8, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 8>
func.func @split_narrow_scalar(%x: tensor<?x6xf32>) -> tensor<1x6xf32> {
  %s = sinter.sum %x dims [0] keepdim : tensor<?x6xf32>
  return %s : tensor<1x6xf32>
}

// -----

// A mean over N, H, W of NCHW: the innermost dim is reduced, so a block's
// threads split one channel's elements; the statistic is the output. H * W
// (25) is no multiple of 4: scalar loads.
// CHECK-LABEL: func.func @split_strided
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 8>
func.func @split_strided(%x: tensor<?x3x5x5xf32>) -> tensor<1x3x1x1xf32> {
  %m = sinter.mean %x dims [0, 2, 3] keepdim : tensor<?x3x5x5xf32>
  return %m : tensor<1x3x1x1xf32>
}

// -----

// The same over a W of 8: the partials read runs of 4 adjacent elements
// (vector width 4).
// CHECK-LABEL: func.func @split_strided_runs
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @split_strided_runs(%x: tensor<?x3x4x8xf32>) -> tensor<1x3x1x1xf32> {
  %m = sinter.mean %x dims [0, 2, 3] keepdim : tensor<?x3x4x8xf32>
  return %m : tensor<1x3x1x1xf32>
}

// -----

// [A, R, C] reducing R: adjacent threads read adjacent runs of 4 along C.
// Its (value, index) pairs over 4 slices fold in a kernel of their own.
// CHECK-LABEL: func.func @split_middle
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @split_middle(%x: tensor<4x100x64xf32>) -> tensor<4x64xi64> {
  %i = sinter.argmax %x dims [1] : tensor<4x100x64xf32>
  return %i : tensor<4x64xi64>
}

// -----

// The same geometry summed: one-word partials, 4 a thread of the last block,
// which folds them (one launch).
// CHECK-LABEL: func.func @split_middle_sum
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
func.func @split_middle_sum(%x: tensor<4x100x64xf32>) -> tensor<4x64xf32> {
  %s = sinter.sum %x dims [1] : tensor<4x100x64xf32>
  return %s : tensor<4x64xf32>
}

// -----

// A whole-tensor sum: partials over many blocks, then one ordered fold (a
// kernel of its own: the dynamic shape leaves the fold's size unknown).
// CHECK-LABEL: func.func @split_all
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = all, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 8>
func.func @split_all(%x: tensor<?x4097xf32>) -> tensor<f32> {
  %s = sinter.sum %x dims [0, 1] : tensor<?x4097xf32>
  return %s : tensor<f32>
}

// -----

// The same sum of a static shape: 1024 slices, 4 partials a thread of the
// last block, which folds them (one launch).
// CHECK-LABEL: func.func @split_all_static
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = all, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
func.func @split_all_static(%x: tensor<8192x8192xf32>) -> tensor<f32> {
  %s = sinter.sum %x dims [0, 1] : tensor<8192x8192xf32>
  return %s : tensor<f32>
}

// -----

// A sum over the first dim of [16384, 2048]: 8 blocks of 256 columns, 64
// slices each (about 512 blocks in all), 64 partials a thread of a last
// block; a fold kernel spreads them over the GPU instead (two launches).
// CHECK-LABEL: func.func @split_heavy_fold
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @split_heavy_fold(%x: tensor<16384x2048xf32>) -> tensor<2048xf32> {
  %s = sinter.sum %x dims [0] : tensor<16384x2048xf32>
  return %s : tensor<2048xf32>
}

// -----

// amax over dim 1 of [?, 4096, 4]: each reduced row's kept run is 4
// elements (16 bytes), so a block covers one run, 4 positions, and its
// threads read 256 adjacent rows of it, whole lines.
// CHECK-LABEL: func.func @split_kept_run
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 4, vector_width = 4,
func.func @split_kept_run(%x: tensor<?x4096x4xf32>) -> tensor<?x4xf32> {
  %m = sinter.max %x dims [1] : tensor<?x4096x4xf32>
  return %m : tensor<?x4xf32>
}

// -----

// Over dim 1 of [262144, 128, 2]: a block a run of 2 would read 256
// elements; each warp reduces 2 positions whole instead (8 loads a lane of
// each, 16 in flight), 8 warps a block: 32 columns, one launch that
// finishes them. Over [8192, 256, 32] a run fills a line: 256 positions.
// CHECK-LABEL: func.func @split_kept_run_short
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 8, warp_runs = 2>
// CHECK-LABEL: func.func @split_kept_run_line
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4,
// CHECK-NOT: warp_runs
func.func @split_kept_run_short(%x: tensor<262144x128x2xf32>) -> tensor<262144x2xf32> {
  %m = sinter.max %x dims [1] : tensor<262144x128x2xf32>
  return %m : tensor<262144x2xf32>
}
func.func @split_kept_run_line(%x: tensor<8192x256x32xf32>) -> tensor<8192x32xf32> {
  %s = sinter.sum %x dims [1] : tensor<8192x256x32xf32>
  return %s : tensor<8192x32xf32>
}

// -----

// Warp runs over a symbolic batch: 341 rows of 3 channels (30 lanes busy,
// 35 loads a lane, 8 at a time), 16 rows of 4 (argmax: 2 loads a lane, 8
// positions a warp), 16 rows of 2 (one load a lane; chunks of 2 at least),
// and a sum over 10 rows of 16 whose scaled result the same kernel writes
// (apply_in_fold).
// CHECK-LABEL: func.func @warp_runs_channels
// CHECK: columns_per_block = 48, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 8, warp_runs = 2>
// CHECK: columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 2, warp_runs = 8>
// CHECK: columns_per_block = 128, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 2, warp_runs = 8>
// CHECK: columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, apply_in_fold = true, chunk_loads = 8, warp_runs = 2>
func.func @warp_runs_channels(%y: tensor<?x341x3xf32>, %z: tensor<?x16x4xf32>, %w: tensor<?x16x2xf32>, %v: tensor<?x10x16xf32>) -> (tensor<?x3xf32>, tensor<?x4xi64>, tensor<?x2xf32>, tensor<?x16xf32>) {
  %s = sinter.sum %y dims [1] : tensor<?x341x3xf32>
  %a = sinter.argmax %z dims [1] : tensor<?x16x4xf32>
  %m = sinter.mean %w dims [1] : tensor<?x16x2xf32>
  %t = sinter.sum %v dims [1] : tensor<?x10x16xf32>
  %c = sinter.constant dense<2.0> : tensor<f32>
  %d = sinter.mul %t, %c : tensor<?x16xf32>, tensor<f32>
  return %s, %a, %m, %d : tensor<?x3xf32>, tensor<?x4xi64>, tensor<?x2xf32>, tensor<?x16xf32>
}

// -----

// Rows of 2040 by 2 centered over a symbolic batch (no strips): the warp
// runs store the means, and the apply step launches after them (two
// launches, two reads).
// CHECK-LABEL: func.func @warp_runs_apply
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 2, launches = 2, epilogue = none, last_block_folds = true, min_blocks = 4, apply_min_blocks = 6, apply_rows_per_thread = 4, chunk_loads = 8, warp_runs = 2>
func.func @warp_runs_apply(%x: tensor<?x2040x2xf32>) -> tensor<?x2040x2xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x2040x2xf32>
  %d = sinter.sub %x, %m : tensor<?x2040x2xf32>, tensor<?x1x2xf32>
  return %d : tensor<?x2040x2xf32>
}

// -----

// A mean and the variance around it over dim 1 of [262144, 128, 2]: one
// pass of Welford states in warp runs (split_welford), each lane's chunks'
// states joined in double.
// CHECK-LABEL: func.func @warp_runs_welford
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 8, warp_runs = 2>
func.func @warp_runs_welford(%x: tensor<262144x128x2xf32>) -> tensor<262144x1x2xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<262144x128x2xf32>
  %d = sinter.sub %x, %m : tensor<262144x128x2xf32>, tensor<262144x1x2xf32>
  %sq = sinter.mul %d, %d : tensor<262144x128x2xf32>, tensor<262144x128x2xf32>
  %w = sinter.mean %sq dims [1] keepdim : tensor<262144x128x2xf32>
  return %w : tensor<262144x1x2xf32>
}

// -----

// No warp runs: a Welford pair with a third reduction in its kernel, a
// reduction sinter-decompose rewrites (var), runs of 4096 elements (a block
// a run), runs of 32 channels (a line), rows of 8 elements (fewer than a
// warp's lanes), and a reduction over the leading dim.
// CHECK-LABEL: func.func @warp_runs_not
// CHECK-NOT: warp_runs
func.func @warp_runs_not(%x: tensor<262144x128x2xf32>, %y: tensor<4096x2048x2xf32>, %z: tensor<8192x64x32xf32>, %u: tensor<1048576x4x2xf32>, %l: tensor<128x2xf32>) -> (tensor<262144x1x2xf32>, tensor<262144x2xf32>, tensor<4096x2xf32>, tensor<8192x32xf32>, tensor<1048576x2xf32>, tensor<2xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<262144x128x2xf32>
  %d = sinter.sub %x, %m : tensor<262144x128x2xf32>, tensor<262144x1x2xf32>
  %sq = sinter.mul %d, %d : tensor<262144x128x2xf32>, tensor<262144x128x2xf32>
  %w = sinter.mean %sq dims [1] keepdim : tensor<262144x128x2xf32>
  %v = sinter.var %x dims [1] : tensor<262144x128x2xf32>
  %s = sinter.sum %y dims [1] : tensor<4096x2048x2xf32>
  %t = sinter.sum %z dims [1] : tensor<8192x64x32xf32>
  %r = sinter.sum %u dims [1] : tensor<1048576x4x2xf32>
  %f = sinter.sum %l dims [0] : tensor<128x2xf32>
  return %w, %v, %s, %t, %r, %f : tensor<262144x1x2xf32>, tensor<262144x2xf32>, tensor<4096x2xf32>, tensor<8192x32xf32>, tensor<1048576x2xf32>, tensor<2xf32>
}

// A sum over dim 1 of [64, 999, 1001]: runs of 1001 (scalar loads) that a
// block's positions straddle: 128 positions a block, not 256; over 50
// reduced rows of [128, 50, 10485], 256 (a narrower block would read too
// little).
// CHECK-LABEL: func.func @split_scalar_middle
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 1,
// CHECK-LABEL: func.func @split_scalar_middle_few_rows
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1,
func.func @split_scalar_middle(%x: tensor<64x999x1001xf32>) -> tensor<64x1001xf32> {
  %s = sinter.sum %x dims [1] : tensor<64x999x1001xf32>
  return %s : tensor<64x1001xf32>
}
func.func @split_scalar_middle_few_rows(%x: tensor<128x50x10485xf32>) -> tensor<128x10485xf32> {
  %s = sinter.sum %x dims [1] : tensor<128x50x10485xf32>
  return %s : tensor<128x10485xf32>
}

// -----

// A variance over the first dim of [223696, 300]: 256 columns a block
// would leave 212 of the second block's idle, 128 columns 84 of 384; 64
// columns a block leave 20 of 320.
// CHECK-LABEL: func.func @split_busy_columns
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4,
func.func @split_busy_columns(%x: tensor<223696x300xf32>) -> tensor<300xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<223696x300xf32>
  %d = sinter.sub %x, %m : tensor<223696x300xf32>, tensor<1x300xf32>
  %sq = sinter.mul %d, %d : tensor<223696x300xf32>, tensor<223696x300xf32>
  %v = sinter.mean %sq dims [0] : tensor<223696x300xf32>
  return %v : tensor<300xf32>
}

// -----

// An argmin over the first dim of [100000, 671]: 256 and 128 columns a
// block leave 97 of 768 idle (more than 1/8), 64 leave 33 of 704.
// CHECK-LABEL: func.func @split_busy_columns_odd
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 1,
func.func @split_busy_columns_odd(%x: tensor<100000x671xf32>) -> tensor<671xi64> {
  %i = sinter.argmin %x dims [0] : tensor<100000x671xf32>
  return %i : tensor<671xi64>
}

// -----

// Over the first dim of [16384, 1000]: 256 columns a block leave 24 of
// 1024 idle (at most 1/8): 256.
// CHECK-LABEL: func.func @split_busy_columns_wide
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4,
func.func @split_busy_columns_wide(%x: tensor<16384x1000xf32>) -> tensor<1000xf32> {
  %s = sinter.sum %x dims [0] : tensor<16384x1000xf32>
  return %s : tensor<1000xf32>
}

// -----

// Over the first dim of [16384, 4096]: 16 blocks of 256 columns, 32 slices
// each, 32 partials a thread: the last block of each column group folds.
// CHECK-LABEL: func.func @split_light_fold
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
func.func @split_light_fold(%x: tensor<16384x4096xf32>) -> tensor<4096xf32> {
  %s = sinter.sum %x dims [0] : tensor<16384x4096xf32>
  return %s : tensor<4096xf32>
}

// -----

// An unbiased variance over the first dim, times a weight: every output of
// the apply step has the statistics' shape (but for the mean's kept unit
// dim), so the one fold computes it (apply_in_fold: two launches, not
// three, and no apply_min_blocks).
// CHECK-LABEL: func.func @split_apply_in_fold
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, apply_in_fold = true, chunk_loads = 4>
func.func @split_apply_in_fold(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<?x64xf32>
  %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<1x64xf32>
  %q = sinter.mul %d, %d : tensor<?x64xf32>, tensor<?x64xf32>
  %s = sinter.mean %q dims [0] : tensor<?x64xf32>
  %y = sinter.mul %s, %w : tensor<64xf32>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// An output of the statistics' symbolic shape that an input of its own
// sizes (z * z beside a column sum of [8, N]): its size need not be N, so
// the apply step keeps its kernel.
// CHECK-LABEL: func.func @split_apply_unrelated_output
// CHECK: plan = #sinter.plan<strategy = split_reduction
// CHECK-NOT: apply_in_fold
// CHECK-SAME: >
func.func @split_apply_unrelated_output(%x: tensor<8x?xf32>, %z: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0:2 = sinter.kernel column_reduction(%x, %z) : (tensor<8x?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<8x?xf32>, %b: tensor<?xf32>):
    %s = sinter.sum %a dims [0] : tensor<8x?xf32>
    %t = sinter.mul %b, %b : tensor<?xf32>, tensor<?xf32>
    sinter.yield %s, %t : tensor<?xf32>, tensor<?xf32>
  }
  return %0#0, %0#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// A static column sum plus a bias: the last block folds, and computes the
// output there too (one launch).
// CHECK-LABEL: func.func @split_apply_in_last_block
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, apply_in_fold = true, chunk_loads = 4>
func.func @split_apply_in_last_block(%x: tensor<4097x64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %s = sinter.sum %x dims [0] : tensor<4097x64xf32>
  %y = sinter.add %s, %b : tensor<64xf32>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Two folds (the max, then the sum of squares of x - max that reads it):
// the apply step keeps its kernel, which runs after both.
// CHECK-LABEL: func.func @split_apply_two_folds
// CHECK: plan = #sinter.plan<strategy = split_reduction
// CHECK-NOT: apply_in_fold
// CHECK-SAME: >
func.func @split_apply_two_folds(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %m = sinter.max %x dims [0] keepdim : tensor<?x64xf32>
  %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<1x64xf32>
  %e = sinter.mul %d, %d : tensor<?x64xf32>, tensor<?x64xf32>
  %s = sinter.sum %e dims [0] : tensor<?x64xf32>
  %l = sinter.log %s : tensor<64xf32>
  return %l : tensor<64xf32>
}

// -----

// The max and the sum of exp(x - max) over the columns are one pass of
// online softmax states, so one fold: it computes log(sum) + max there
// (logsumexp over the columns, one pass over x).
// CHECK-LABEL: func.func @split_online_softmax_in_fold
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, apply_in_fold = true, chunk_loads = 4>
func.func @split_online_softmax_in_fold(%x: tensor<?x64xf32>) -> tensor<1x64xf32> {
  %m = sinter.max %x dims [0] keepdim : tensor<?x64xf32>
  %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<1x64xf32>
  %e = sinter.exp %d : tensor<?x64xf32>
  %s = sinter.sum %e dims [0] keepdim : tensor<?x64xf32>
  %l = sinter.log %s : tensor<1x64xf32>
  %y = sinter.add %l, %m : tensor<1x64xf32>, tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// logsumexp's shift clamps the max to the finite range: its sum of
// exp(x - clamp(max)) still pairs with the max (one pass, one fold).
// CHECK-LABEL: func.func @split_online_softmax_clamped
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = leading
// CHECK-SAME: passes = 1, launches = 2
// CHECK-SAME: apply_in_fold = true, chunk_loads = 4>
func.func @split_online_softmax_clamped(%x: tensor<?x64xf32>) -> tensor<1x64xf32> {
  %m = sinter.max %x dims [0] keepdim : tensor<?x64xf32>
  %c = sinter.clamp %m min = -3.4028234663852886E+38 max = 3.4028234663852886E+38 : tensor<1x64xf32>
  %d = sinter.sub %x, %c : tensor<?x64xf32>, tensor<1x64xf32>
  %e = sinter.exp %d : tensor<?x64xf32>
  %s = sinter.sum %e dims [0] keepdim : tensor<?x64xf32>
  %l = sinter.log %s : tensor<1x64xf32>
  %y = sinter.add %l, %c : tensor<1x64xf32>, tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A clamp to other bounds is no logsumexp shift: two folds.
// CHECK-LABEL: func.func @split_softmax_other_clamp
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading
// CHECK-SAME: passes = 2, launches = 5
func.func @split_softmax_other_clamp(%x: tensor<?x64xf32>) -> tensor<1x64xf32> {
  %m = sinter.max %x dims [0] keepdim : tensor<?x64xf32>
  %c = sinter.clamp %m min = -1.0 max = 1.0 : tensor<1x64xf32>
  %d = sinter.sub %x, %c : tensor<?x64xf32>, tensor<1x64xf32>
  %e = sinter.exp %d : tensor<?x64xf32>
  %s = sinter.sum %e dims [0] keepdim : tensor<?x64xf32>
  %l = sinter.log %s : tensor<1x64xf32>
  %y = sinter.add %l, %c : tensor<1x64xf32>, tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// Softmax over few long rows: the statistics in one pass of online softmax
// states split over many blocks, then the apply step reads x once more
// (two passes, where a max, then a sum of exp, took three).
// CHECK-LABEL: func.func @split_online_softmax_rows
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @split_online_softmax_rows(%x: tensor<16x4194304xf32>) -> tensor<16x4194304xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<16x4194304xf32>
  %d = sinter.sub %x, %m : tensor<16x4194304xf32>, tensor<16x1xf32>
  %e = sinter.exp %d : tensor<16x4194304xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<16x4194304xf32>
  %y = sinter.div %e, %s : tensor<16x4194304xf32>, tensor<16x1xf32>
  return %y : tensor<16x4194304xf32>
}

// -----

// Few long rows centered and scaled by a weight over the last dim: the
// apply step walks 4 rows a thread at each group of four columns, so that
// the 16 MiB weight, which L2 does not keep, loads once for them
// (apply_rows_per_thread).
// CHECK-LABEL: func.func @split_apply_row_params
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = trailing, {{.*}}, apply_rows_per_thread = 4, chunk_loads = 4>
func.func @split_apply_row_params(%x: tensor<16x4194304xf32>, %w: tensor<4194304xf32>) -> tensor<16x4194304xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<16x4194304xf32>
  %d = sinter.sub %x, %m : tensor<16x4194304xf32>, tensor<16x1xf32>
  %y = sinter.mul %d, %w : tensor<16x4194304xf32>, tensor<4194304xf32>
  return %y : tensor<16x4194304xf32>
}

// -----

// The same over rows of 1048573 (a prime: no row group divides them): a
// 4 MiB weight stays in L2, and the apply step walks the groups in order.
// CHECK-LABEL: func.func @split_apply_small_params
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = trailing,
// CHECK-NOT: apply_rows_per_thread
// CHECK-SAME: >
func.func @split_apply_small_params(%x: tensor<64x1048573xf32>, %w: tensor<1048573xf32>) -> tensor<64x1048573xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<64x1048573xf32>
  %d = sinter.sub %x, %m : tensor<64x1048573xf32>, tensor<64x1xf32>
  %y = sinter.mul %d, %w : tensor<64x1048573xf32>, tensor<1048573xf32>
  return %y : tensor<64x1048573xf32>
}

// -----

// Bias + relu: cuBLASLt's epilogue, one launch.
// CHECK-LABEL: func.func @gemm_library_epilogue
// CHECK: plan = #sinter.plan<strategy = library_gemm, geometry = none, block = 0, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = library>
func.func @gemm_library_epilogue(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %1 = sinter.add %0, %b : tensor<?x32xf32>, tensor<32xf32>
  %2 = sinter.relu %1 : tensor<?x32xf32>
  return %2 : tensor<?x32xf32>
}

// -----

// A row reduction after the GEMM: a generated epilogue kernel, two
// launches.
// CHECK-LABEL: func.func @gemm_generated_epilogue
// CHECK: plan = #sinter.plan<strategy = library_gemm, geometry = trailing, block = 0, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = generated>
func.func @gemm_generated_epilogue(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %m = sinter.max %0 dims [1] keepdim : tensor<?x32xf32>
  %1 = sinter.sub %0, %m : tensor<?x32xf32>, tensor<?x1xf32>
  return %1 : tensor<?x32xf32>
}

// -----

// A matrix-vector product: a dot product per row, a warp per row.
// CHECK-LABEL: func.func @matvec
// CHECK: sinter.kernel matvec
// CHECK-SAME: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8,
func.func @matvec(%x: tensor<?x64xf32>, %w: tensor<64x1xf32>) -> tensor<?x1xf32> {
  %0 = sinter.matmul %x, %w : tensor<?x64xf32>, tensor<64x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// A plan written by hand stays.
// CHECK-LABEL: func.func @kept
// CHECK: plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 1,
func.func @kept(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.kernel pointwise(%x) {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>} : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    %r = sinter.relu %a : tensor<?x64xf32>
    sinter.yield %r : tensor<?x64xf32>
  }
  return %0 : tensor<?x64xf32>
}

// -----

// A mean and the variance around it in one kernel (training batch_norm):
// one pass of Welford states reads the input for both, and the apply step
// reads it again to write the normalized values: 2 passes, 3 launches
// (partials, fold, apply), no pointwise kernel.
// CHECK-LABEL: func.func @split_welford
// CHECK: sinter.kernel column_reduction
// CHECK-SAME: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 4, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, apply_min_blocks = 6, apply_rows_per_thread = 4, chunk_loads = 4>
// CHECK-NOT: sinter.kernel
func.func @split_welford(%x: tensor<?x96xf32>) -> tensor<?x96xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<?x96xf32>
  %d = sinter.sub %x, %m : tensor<?x96xf32>, tensor<1x96xf32>
  %sq = sinter.mul %d, %d : tensor<?x96xf32>, tensor<?x96xf32>
  %v = sinter.mean %sq dims [0] keepdim : tensor<?x96xf32>
  %e = sinter.constant dense<1.0e-5> : tensor<f32>
  %ve = sinter.add %v, %e : tensor<1x96xf32>, tensor<f32>
  %r = sinter.rsqrt %ve : tensor<1x96xf32>
  %y = sinter.mul %d, %r : tensor<?x96xf32>, tensor<1x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Occupancy (min_blocks, apply_min_blocks: the blocks per SM that the launch
// bounds ask for). The partial kernels of a split reduction ask for 4
// blocks of 256 threads (at most 64 registers a thread); without an apply
// step there is no apply_min_blocks.
// CHECK-LABEL: func.func @occupancy_split_partials
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @occupancy_split_partials(%x: tensor<?x1024xf32>) -> tensor<1x1024xf32> {
  %s = sinter.sum %x dims [0] keepdim : tensor<?x1024xf32>
  return %s : tensor<1x1024xf32>
}

// -----

// Statistics along the innermost dim (batch_norm over [N, C]): the apply
// step reads them as float4 groups beside x's and asks for 6 blocks; each
// of its threads walks 4 rows at one group of four columns.
// CHECK-LABEL: func.func @occupancy_apply_innermost
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, apply_min_blocks = 6, apply_rows_per_thread = 4, chunk_loads = 4>
func.func @occupancy_apply_innermost(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<?x64xf32>
  %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<1x64xf32>
  return %d : tensor<?x64xf32>
}

// -----

// Per-channel statistics of NCHW ([1, C, 1, 1]) vary along no innermost
// dim: the apply step asks for no minimum.
// CHECK-LABEL: func.func @occupancy_apply_per_channel
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, chunk_loads = 4>
func.func @occupancy_apply_per_channel(%x: tensor<?x32x16x16xf32>) -> tensor<?x32x16x16xf32> {
  %m = sinter.mean %x dims [0, 2, 3] keepdim : tensor<?x32x16x16xf32>
  %d = sinter.sub %x, %m : tensor<?x32x16x16xf32>, tensor<1x32x1x1xf32>
  return %d : tensor<?x32x16x16xf32>
}

// -----

// Softmax of x + r over rows of 16384 held in registers by 1024 threads, 16
// floats a thread of each, its inputs held: 2 blocks per SM (32 registers a
// thread).
// CHECK-LABEL: func.func @occupancy_held_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true, min_blocks = 2>
func.func @occupancy_held_rows(%x: tensor<4096x16384xf32>, %r: tensor<4096x16384xf32>) -> tensor<4096x16384xf32> {
  %a = sinter.add %x, %r : tensor<4096x16384xf32>, tensor<4096x16384xf32>
  %m = sinter.max %a dims [1] keepdim : tensor<4096x16384xf32>
  %d = sinter.sub %a, %m : tensor<4096x16384xf32>, tensor<4096x1xf32>
  %e = sinter.exp %d : tensor<4096x16384xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<4096x16384xf32>
  %y = sinter.div %e, %s : tensor<4096x16384xf32>, tensor<4096x1xf32>
  return %y : tensor<4096x16384xf32>
}

// -----

// The same rows with a weight that is not held (rms_norm of x + r): one
// block, no min_blocks (two spilled and ran 1.5-1.8x slower); nor is the
// weight held across rows (a block walks few).
// CHECK-LABEL: func.func @occupancy_held_rows_weight
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @occupancy_held_rows_weight(%x: tensor<4096x16384xf32>, %q: tensor<4096x16384xf32>, %w: tensor<16384xf32>) -> tensor<4096x16384xf32> {
  %a = sinter.add %x, %q : tensor<4096x16384xf32>, tensor<4096x16384xf32>
  %sq = sinter.mul %a, %a : tensor<4096x16384xf32>, tensor<4096x16384xf32>
  %m = sinter.mean %sq dims [1] keepdim : tensor<4096x16384xf32>
  %r = sinter.rsqrt %m : tensor<4096x1xf32>
  %n = sinter.mul %a, %r : tensor<4096x16384xf32>, tensor<4096x1xf32>
  %y = sinter.mul %n, %w : tensor<4096x16384xf32>, tensor<16384xf32>
  return %y : tensor<4096x16384xf32>
}

// -----

// Wide rows (8193 to 16384) of one operand that several passes read, held
// in registers by 256 threads (64 floats a thread), not 1024: softmax over
// rows of 16384, and an argmax, which holds the rows it reads once.
// CHECK-LABEL: func.func @wide_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @wide_rows(%x: tensor<4096x16384xf32>, %z: tensor<4096x12288xf32>) -> (tensor<4096x16384xf32>, tensor<4096xi64>) {
  %m = sinter.max %x dims [1] keepdim : tensor<4096x16384xf32>
  %d = sinter.sub %x, %m : tensor<4096x16384xf32>, tensor<4096x1xf32>
  %e = sinter.exp %d : tensor<4096x16384xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<4096x16384xf32>
  %y = sinter.div %e, %s : tensor<4096x16384xf32>, tensor<4096x1xf32>
  %i = sinter.argmax %z dims [1] : tensor<4096x12288xf32>
  return %y, %i : tensor<4096x16384xf32>, tensor<4096xi64>
}

// -----

// Not wide rows: a sum over rows of 16384 (one pass, nothing cached) keeps
// 1024 threads (256 ran 4-6% slower), and so do rows of 16388.
// CHECK-LABEL: func.func @wide_rows_not
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024,
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024,
func.func @wide_rows_not(%x: tensor<4096x16384xf32>, %z: tensor<4096x16388xf32>) -> (tensor<4096xf32>, tensor<4096x16388xf32>) {
  %s = sinter.sum %x dims [1] : tensor<4096x16384xf32>
  %m = sinter.max %z dims [1] keepdim : tensor<4096x16388xf32>
  %d = sinter.sub %z, %m : tensor<4096x16388xf32>, tensor<4096x1xf32>
  return %s, %d : tensor<4096xf32>, tensor<4096x16388xf32>
}

// -----

// A mean and the variance around it (Welford states) of x + r over rows of
// 16000 held in registers: 16 floats a thread of each, too many for two
// blocks with those states (layer_norm without affine): no min_blocks.
// CHECK-LABEL: func.func @occupancy_held_welford_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @occupancy_held_welford_rows(%x: tensor<4096x16000xf32>, %q: tensor<4096x16000xf32>) -> tensor<4096x16000xf32> {
  %a = sinter.add %x, %q : tensor<4096x16000xf32>, tensor<4096x16000xf32>
  %m = sinter.mean %a dims [1] keepdim : tensor<4096x16000xf32>
  %d = sinter.sub %a, %m : tensor<4096x16000xf32>, tensor<4096x1xf32>
  %sq = sinter.mul %d, %d : tensor<4096x16000xf32>, tensor<4096x16000xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<4096x16000xf32>
  %r = sinter.rsqrt %v : tensor<4096x1xf32>
  %y = sinter.mul %d, %r : tensor<4096x16000xf32>, tensor<4096x1xf32>
  return %y : tensor<4096x16000xf32>
}

// -----

// Over rows of 9216 of x + r: 12 floats a thread of each, two blocks an SM.
// (instance_norm over 96 x 96 maps, one operand, is a wide row: 256 threads.)
// CHECK-LABEL: func.func @occupancy_held_welford_short_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true, min_blocks = 2>
func.func @occupancy_held_welford_short_rows(%x: tensor<4096x9216xf32>, %q: tensor<4096x9216xf32>) -> tensor<4096x9216xf32> {
  %a = sinter.add %x, %q : tensor<4096x9216xf32>, tensor<4096x9216xf32>
  %m = sinter.mean %a dims [1] keepdim : tensor<4096x9216xf32>
  %d = sinter.sub %a, %m : tensor<4096x9216xf32>, tensor<4096x1xf32>
  %sq = sinter.mul %d, %d : tensor<4096x9216xf32>, tensor<4096x9216xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<4096x9216xf32>
  %r = sinter.rsqrt %v : tensor<4096x1xf32>
  %y = sinter.mul %d, %r : tensor<4096x9216xf32>, tensor<4096x1xf32>
  return %y : tensor<4096x9216xf32>
}

// -----

// Rows of 32768 held in registers: 32 floats a thread, too many for two
// blocks, so no min_blocks.
// CHECK-LABEL: func.func @occupancy_long_held_rows
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @occupancy_long_held_rows(%x: tensor<4096x32768xf32>) -> tensor<4096x32768xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<4096x32768xf32>
  %d = sinter.sub %x, %m : tensor<4096x32768xf32>, tensor<4096x1xf32>
  return %d : tensor<4096x32768xf32>
}

// -----

// Softmax over the 150 classes of NCHW: a strip of 32 columns holds 19
// elements a thread (8 lanes of rows), so one kernel reads it once into
// registers, computes the max and sum of exp, then writes the output over
// the strip (apply_in_strip: one pass, one launch, a block a strip).
// CHECK-LABEL: func.func @apply_in_strip_classes
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_classes(%x: tensor<4x150x40x40xf32>) -> tensor<4x150x40x40xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<4x150x40x40xf32>
  %d = sinter.sub %x, %m : tensor<4x150x40x40xf32>, tensor<4x1x40x40xf32>
  %e = sinter.exp %d : tensor<4x150x40x40xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<4x150x40x40xf32>
  %y = sinter.div %e, %s : tensor<4x150x40x40xf32>, tensor<4x1x40x40xf32>
  return %y : tensor<4x150x40x40xf32>
}

// -----

// Strips widen until a thread makes 16 loads while the strips fill the
// GPU: over 48 classes, 6 loads a thread in strips of 32 columns, 24 in
// strips of 128 (2 lanes of rows each); over 81 classes, 11 in strips of
// 32, 21 in strips of 64 (41 in strips of 128: more than 32 registers).
// CHECK-LABEL: func.func @apply_in_strip_wide_48
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 128, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_wide_48(%x: tensor<16x48x64x64xf32>) -> tensor<16x48x64x64xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<16x48x64x64xf32>
  %d = sinter.sub %x, %m : tensor<16x48x64x64xf32>, tensor<16x1x64x64xf32>
  %e = sinter.exp %d : tensor<16x48x64x64xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<16x48x64x64xf32>
  %y = sinter.div %e, %s : tensor<16x48x64x64xf32>, tensor<16x1x64x64xf32>
  return %y : tensor<16x48x64x64xf32>
}

// CHECK-LABEL: func.func @apply_in_strip_wide_81
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_wide_81(%x: tensor<16x81x64x64xf32>) -> tensor<16x81x64x64xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<16x81x64x64xf32>
  %d = sinter.sub %x, %m : tensor<16x81x64x64xf32>, tensor<16x1x64x64xf32>
  %e = sinter.exp %d : tensor<16x81x64x64xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<16x81x64x64xf32>
  %y = sinter.div %e, %s : tensor<16x81x64x64xf32>, tensor<16x1x64x64xf32>
  return %y : tensor<16x81x64x64xf32>
}

// -----

// Over 81 classes of [2, 81, 48, 64] (6144 columns), strips of 64 would be
// 96, too few for the GPU's 132 multiprocessors: strips of 32 (192, 11
// loads a thread).
// CHECK-LABEL: func.func @apply_in_strip_wide_few
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_wide_few(%x: tensor<2x81x48x64xf32>) -> tensor<2x81x48x64xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<2x81x48x64xf32>
  %d = sinter.sub %x, %m : tensor<2x81x48x64xf32>, tensor<2x1x48x64xf32>
  %e = sinter.exp %d : tensor<2x81x48x64xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<2x81x48x64xf32>
  %y = sinter.div %e, %s : tensor<2x81x48x64xf32>, tensor<2x1x48x64xf32>
  return %y : tensor<2x81x48x64xf32>
}

// -----

// A mean and the variance around it over the leading dim of 256 rows: 32
// loads a thread, the most a strip holds in registers; over 257 rows, the
// strip is staged in shared memory (its operand cached, three blocks a
// multiprocessor).
// CHECK-LABEL: func.func @apply_in_strip_welford
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = []
// CHECK-SAME: launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0]
// CHECK-SAME: launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_welford(%x: tensor<256x8192xf32>, %z: tensor<257x8192xf32>) -> (tensor<256x8192xf32>, tensor<257x8192xf32>) {
  %m = sinter.mean %x dims [0] keepdim : tensor<256x8192xf32>
  %d = sinter.sub %x, %m : tensor<256x8192xf32>, tensor<1x8192xf32>
  %q = sinter.mul %d, %d : tensor<256x8192xf32>, tensor<256x8192xf32>
  %v = sinter.mean %q dims [0] keepdim : tensor<256x8192xf32>
  %y = sinter.div %d, %v : tensor<256x8192xf32>, tensor<1x8192xf32>
  %mz = sinter.mean %z dims [0] keepdim : tensor<257x8192xf32>
  %dz = sinter.sub %z, %mz : tensor<257x8192xf32>, tensor<1x8192xf32>
  %qz = sinter.mul %dz, %dz : tensor<257x8192xf32>, tensor<257x8192xf32>
  %vz = sinter.mean %qz dims [0] keepdim : tensor<257x8192xf32>
  %yz = sinter.div %dz, %vz : tensor<257x8192xf32>, tensor<1x8192xf32>
  return %y, %yz : tensor<256x8192xf32>, tensor<257x8192xf32>
}

// -----

// Softmax over 21 classes of 6400 columns (25 strips of a thread a column,
// too few for the GPU), over too few positions for strips of 32 (4095),
// or with a symbolic batch: split.
// CHECK-LABEL: func.func @apply_in_strip_rejected
// CHECK-NOT: apply_in_strip
// CHECK: return
func.func @apply_in_strip_rejected(%a: tensor<4x21x40x40xf32>, %b: tensor<100x4095xf32>, %c: tensor<?x150x40xf32>) -> (tensor<4x21x40x40xf32>, tensor<100x4095xf32>, tensor<?x150x40xf32>) {
  %ma = sinter.max %a dims [1] keepdim : tensor<4x21x40x40xf32>
  %da = sinter.sub %a, %ma : tensor<4x21x40x40xf32>, tensor<4x1x40x40xf32>
  %ea = sinter.exp %da : tensor<4x21x40x40xf32>
  %sa = sinter.sum %ea dims [1] keepdim : tensor<4x21x40x40xf32>
  %ya = sinter.div %ea, %sa : tensor<4x21x40x40xf32>, tensor<4x1x40x40xf32>
  %mb = sinter.max %b dims [0] keepdim : tensor<100x4095xf32>
  %db = sinter.sub %b, %mb : tensor<100x4095xf32>, tensor<1x4095xf32>
  %eb = sinter.exp %db : tensor<100x4095xf32>
  %sb = sinter.sum %eb dims [0] keepdim : tensor<100x4095xf32>
  %yb = sinter.div %eb, %sb : tensor<100x4095xf32>, tensor<1x4095xf32>
  %mc = sinter.max %c dims [1] keepdim : tensor<?x150x40xf32>
  %dc = sinter.sub %c, %mc : tensor<?x150x40xf32>, tensor<?x1x40xf32>
  %ec = sinter.exp %dc : tensor<?x150x40xf32>
  %sc = sinter.sum %ec dims [1] keepdim : tensor<?x150x40xf32>
  %yc = sinter.div %ec, %sc : tensor<?x150x40xf32>, tensor<?x1x40xf32>
  return %ya, %yb, %yc : tensor<4x21x40x40xf32>, tensor<100x4095xf32>, tensor<?x150x40xf32>
}

// -----

// Softmax over a middle dim of 512: 64 loads a thread, too many for
// registers, so the strip of 32 columns is staged in shared memory (64 KiB,
// the most a strip stages); over 513 rows a strip of 16 columns (32832
// bytes), over 2000 rows one of 8 (64000 bytes), over 2049 rows (65568
// bytes in 8 columns) a split online softmax. Two inputs of the reduced
// shape are both staged (2 x 32 KiB).
// CHECK-LABEL: func.func @apply_in_strip_staged
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 16, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 8, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle
// CHECK-NOT: apply_in_strip
// CHECK-SAME: launches = 3
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0, 1], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_staged(%x: tensor<32x512x256xf32>, %z: tensor<32x513x256xf32>, %t: tensor<32x2000x256xf32>, %u: tensor<32x2049x256xf32>, %a: tensor<32x256x256xf32>, %b: tensor<32x256x256xf32>) -> (tensor<32x512x256xf32>, tensor<32x513x256xf32>, tensor<32x2000x256xf32>, tensor<32x2049x256xf32>, tensor<32x256x256xf32>) {
  %m = sinter.max %x dims [1] keepdim : tensor<32x512x256xf32>
  %d = sinter.sub %x, %m : tensor<32x512x256xf32>, tensor<32x1x256xf32>
  %e = sinter.exp %d : tensor<32x512x256xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<32x512x256xf32>
  %y = sinter.div %e, %s : tensor<32x512x256xf32>, tensor<32x1x256xf32>
  %mz = sinter.max %z dims [1] keepdim : tensor<32x513x256xf32>
  %dz = sinter.sub %z, %mz : tensor<32x513x256xf32>, tensor<32x1x256xf32>
  %ez = sinter.exp %dz : tensor<32x513x256xf32>
  %sz = sinter.sum %ez dims [1] keepdim : tensor<32x513x256xf32>
  %yz = sinter.div %ez, %sz : tensor<32x513x256xf32>, tensor<32x1x256xf32>
  %mt = sinter.max %t dims [1] keepdim : tensor<32x2000x256xf32>
  %dt = sinter.sub %t, %mt : tensor<32x2000x256xf32>, tensor<32x1x256xf32>
  %et = sinter.exp %dt : tensor<32x2000x256xf32>
  %st = sinter.sum %et dims [1] keepdim : tensor<32x2000x256xf32>
  %yt = sinter.div %et, %st : tensor<32x2000x256xf32>, tensor<32x1x256xf32>
  %mu = sinter.max %u dims [1] keepdim : tensor<32x2049x256xf32>
  %du = sinter.sub %u, %mu : tensor<32x2049x256xf32>, tensor<32x1x256xf32>
  %eu = sinter.exp %du : tensor<32x2049x256xf32>
  %su = sinter.sum %eu dims [1] keepdim : tensor<32x2049x256xf32>
  %yu = sinter.div %eu, %su : tensor<32x2049x256xf32>, tensor<32x1x256xf32>
  %ab = sinter.add %a, %b : tensor<32x256x256xf32>, tensor<32x256x256xf32>
  %mab = sinter.max %ab dims [1] keepdim : tensor<32x256x256xf32>
  %dab = sinter.sub %ab, %mab : tensor<32x256x256xf32>, tensor<32x1x256xf32>
  %eab = sinter.exp %dab : tensor<32x256x256xf32>
  %sab = sinter.sum %eab dims [1] keepdim : tensor<32x256x256xf32>
  %yab = sinter.div %eab, %sab : tensor<32x256x256xf32>, tensor<32x1x256xf32>
  return %y, %yz, %yt, %yu, %yab : tensor<32x512x256xf32>, tensor<32x513x256xf32>, tensor<32x2000x256xf32>, tensor<32x2049x256xf32>, tensor<32x256x256xf32>
}

// -----

// A mean and the variance around it over 448 rows of 150528 (588 KiB, too
// long for a cluster's slices: split, a row's slices a column): one slice
// a row fills one wave (448 blocks of 528) where two would overshoot it
// into a second (896); with one slice, the last block folds.
// CHECK-LABEL: func.func @split_one_wave
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 2, launches = 2, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 4>
func.func @split_one_wave(%x: tensor<448x150528xf32>) -> tensor<448x150528xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<448x150528xf32>
  %d = sinter.sub %x, %m : tensor<448x150528xf32>, tensor<448x1xf32>
  %q = sinter.mul %d, %d : tensor<448x150528xf32>, tensor<448x150528xf32>
  %v = sinter.mean %q dims [1] keepdim : tensor<448x150528xf32>
  %y = sinter.div %d, %v : tensor<448x150528xf32>, tensor<448x1xf32>
  return %y : tensor<448x150528xf32>
}

// -----

// Wide chunks: a partial kernel of one slice over more than a wave of
// blocks whose threads read 8 runs at least issues chunks of 8 runs, 3
// blocks a multiprocessor (argmax over 150 classes: 1600 blocks, 38 runs a
// thread). Two slices (argmax over the middle dim of [64, 1024, 1024]: 512
// blocks, one wave), 2 runs a thread (a sum over the first dim of [8,
// 8388608]) and Welford states (var over the classes) keep 4 runs, 4
// blocks.
// CHECK-LABEL: func.func @split_wide_chunks
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 3, chunk_loads = 8>
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = middle, {{.*}}, vector_width = 4, {{.*}}, min_blocks = 4, chunk_loads = 4>
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, {{.*}}, vector_width = 4, {{.*}}, min_blocks = 4, chunk_loads = 4>
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = middle, {{.*}}, vector_width = 4, {{.*}}, min_blocks = 4, chunk_loads = 4>
func.func @split_wide_chunks(%x: tensor<16x150x25600xf32>, %y: tensor<64x1024x1024xf32>, %z: tensor<8x8388608xf32>, %w: tensor<16x150x25600xf32>) -> (tensor<16x25600xi64>, tensor<64x1024xi64>, tensor<8388608xf32>, tensor<16x1x25600xf32>) {
  %a = sinter.argmax %x dims [1] : tensor<16x150x25600xf32>
  %b = sinter.argmax %y dims [1] : tensor<64x1024x1024xf32>
  %c = sinter.sum %z dims [0] : tensor<8x8388608xf32>
  %m = sinter.mean %w dims [1] keepdim : tensor<16x150x25600xf32>
  %d = sinter.sub %w, %m : tensor<16x150x25600xf32>, tensor<16x1x25600xf32>
  %q = sinter.mul %d, %d : tensor<16x150x25600xf32>, tensor<16x150x25600xf32>
  %v = sinter.mean %q dims [1] keepdim : tensor<16x150x25600xf32>
  return %a, %b, %c, %v : tensor<16x25600xi64>, tensor<64x1024xi64>, tensor<8388608xf32>, tensor<16x1x25600xf32>
}

// -----

// Runs of 4 along N, H and W of [N, C, H, W] where H * W is a multiple of
// 4 and W is not (150 x 150): they cross rows of W, read at the linear
// index, so the statistics of training batch_norm read float4. A per-channel
// operand is constant along H and W; one over W alone keeps scalar loads,
// as H * W odd (7 x 7) does.
// CHECK-LABEL: func.func @split_runs_across_rows
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4,
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4,
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1,
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1,
func.func @split_runs_across_rows(%x: tensor<96x24x150x150xf32>, %c: tensor<1x24x1x1xf32>, %y: tensor<96x24x150x150xf32>, %w: tensor<150xf32>, %p: tensor<96x24x150x150xf32>, %z: tensor<64x32x7x7xf32>) -> (tensor<1x24x1x1xf32>, tensor<24xf32>, tensor<24xf32>, tensor<32xf32>) {
  %m = sinter.mean %x dims [0, 2, 3] keepdim : tensor<96x24x150x150xf32>
  %d = sinter.sub %x, %m : tensor<96x24x150x150xf32>, tensor<1x24x1x1xf32>
  %q = sinter.mul %d, %d : tensor<96x24x150x150xf32>, tensor<96x24x150x150xf32>
  %v = sinter.mean %q dims [0, 2, 3] keepdim : tensor<96x24x150x150xf32>
  %yc = sinter.mul %y, %c : tensor<96x24x150x150xf32>, tensor<1x24x1x1xf32>
  %s = sinter.sum %yc dims [0, 2, 3] : tensor<96x24x150x150xf32>
  %pw = sinter.mul %p, %w : tensor<96x24x150x150xf32>, tensor<150xf32>
  %t = sinter.sum %pw dims [0, 2, 3] : tensor<96x24x150x150xf32>
  %u = sinter.sum %z dims [0, 2, 3] : tensor<64x32x7x7xf32>
  return %v, %s, %t, %u : tensor<1x24x1x1xf32>, tensor<24xf32>, tensor<24xf32>, tensor<32xf32>
}

// -----

// Softmax over 21 classes of 40000 columns: a thread holds a whole column
// (21 loads), 256 columns a strip, no fold across lanes.
// CHECK-LABEL: func.func @apply_in_strip_thread_columns
// CHECK: plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 4, apply_in_strip = true, chunk_loads = 8>
func.func @apply_in_strip_thread_columns(%x: tensor<4x21x100x100xf32>) -> tensor<4x21x100x100xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<4x21x100x100xf32>
  %d = sinter.sub %x, %m : tensor<4x21x100x100xf32>, tensor<4x1x100x100xf32>
  %e = sinter.exp %d : tensor<4x21x100x100xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<4x21x100x100xf32>
  %l = sinter.log %s : tensor<4x1x100x100xf32>
  %y = sinter.sub %d, %l : tensor<4x21x100x100xf32>, tensor<4x1x100x100xf32>
  return %y : tensor<4x21x100x100xf32>
}

// -----

// A reduction over a dim of one element reads each element once, as its
// own row: not tiled (the fuzzer's seed 690).
// CHECK-LABEL: func.func @tile_rows_one_element
// CHECK-NOT: tile_rows
// CHECK: return
func.func @tile_rows_one_element(%x: tensor<4x1x?xf32>) -> tensor<4x?xi64> {
  %i = sinter.argmin %x dims [1] : tensor<4x1x?xf32>
  return %i : tensor<4x?xi64>
}

// -----

// A mean over the first dim of [3, N], N odd (scalar loads, a lane a
// column): each thread finishes 4 columns, 256 apart, its 12 loads in
// flight at once (columns_per_thread), one launch and no partials.
// CHECK-LABEL: func.func @columns_a_thread
// CHECK: plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, columns_per_thread = 4, chunk_loads = 8>
func.func @columns_a_thread(%x: tensor<3x22369621xf32>) -> tensor<22369621xf32> {
  %m = sinter.mean %x dims [0] : tensor<3x22369621xf32>
  return %m : tensor<22369621xf32>
}

// -----

// An unbiased variance over the first dim of [5, 300001] (Welford states,
// the division in the fold's epilogue): 4 columns a thread would leave
// fewer than 512 blocks, so 2 a thread (10 loads).
// CHECK-LABEL: func.func @columns_a_thread_welford
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, apply_in_fold = true, columns_per_thread = 2, chunk_loads = 8>
func.func @columns_a_thread_welford(%x: tensor<5x300001xf32>) -> tensor<300001xf32> {
  %m = sinter.mean %x dims [0] keepdim : tensor<5x300001xf32>
  %d = sinter.sub %x, %m : tensor<5x300001xf32>, tensor<1x300001xf32>
  %q = sinter.mul %d, %d : tensor<5x300001xf32>, tensor<5x300001xf32>
  %s = sinter.sum %q dims [0] : tensor<5x300001xf32>
  %n = sinter.constant dense<4.0> : tensor<f32>
  %v = sinter.div %s, %n : tensor<300001xf32>, tensor<f32>
  return %v : tensor<300001xf32>
}

// -----

// Columns of 9 rows or more (several slices may split them), columns of
// float4 runs, and too few columns for 512 blocks of 2 a thread keep a
// column a thread.
// CHECK-LABEL: func.func @columns_a_thread_rejected
// CHECK: columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 8>
// CHECK: columns_per_block = 256, vector_width = 4,
// CHECK-NOT: columns_per_thread
// CHECK: columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, min_blocks = 4, chunk_loads = 8>
func.func @columns_a_thread_rejected(%x: tensor<9x22369621xf32>, %y: tensor<3x22369620xf32>, %z: tensor<3x200001xf32>) -> (tensor<22369621xf32>, tensor<22369620xf32>, tensor<200001xf32>) {
  %a = sinter.sum %x dims [0] : tensor<9x22369621xf32>
  %b = sinter.sum %y dims [0] : tensor<3x22369620xf32>
  %c = sinter.sum %z dims [0] : tensor<3x200001xf32>
  return %a, %b, %c : tensor<22369621xf32>, tensor<22369620xf32>, tensor<200001xf32>
}

// -----

// Rows of 10 whose statistic a row is all a thread's tiles write (2 rows,
// 20 floats of the input, a float2 of maxima): thread tiles; with four
// inputs (80 floats a thread), or an output of whole rows (5 float4 stores
// a thread at a stride of 80 bytes), the block's tiles in shared memory.
// CHECK-LABEL: func.func @thread_tiles_budget
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 512, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 2>
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 128, columns_per_block = 0, vector_width = 1, cached = [0, 1, 2, 3], passes = 1, launches = 1, epilogue = none, tile_rows = true>
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 128, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>
func.func @thread_tiles_budget(%x: tensor<?x10xf32>, %y: tensor<8x10xf32>, %z: tensor<8x10xf32>, %u: tensor<8x10xf32>, %v: tensor<8x10xf32>, %w: tensor<16x10xf32>) -> (tensor<?xf32>, tensor<8xf32>, tensor<16x10xf32>) {
  %m = sinter.max %x dims [1] : tensor<?x10xf32>
  %a = sinter.add %y, %z : tensor<8x10xf32>, tensor<8x10xf32>
  %b = sinter.add %a, %u : tensor<8x10xf32>, tensor<8x10xf32>
  %c = sinter.add %b, %v : tensor<8x10xf32>, tensor<8x10xf32>
  %s = sinter.sum %c dims [1] : tensor<8x10xf32>
  %mw = sinter.max %w dims [1] keepdim : tensor<16x10xf32>
  %dw = sinter.sub %w, %mw : tensor<16x10xf32>, tensor<16x1xf32>
  return %m, %s, %dw : tensor<?xf32>, tensor<8xf32>, tensor<16x10xf32>
}

// -----

// A layer norm over rows of 1024 (a warp a row, in registers): the weight
// and bias, one row's elements broadcast along the rows, are held in each
// lane's registers across its rows (x, w and b: 96 floats a lane).
// CHECK-LABEL: func.func @held_params
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [1, 2]>
func.func @held_params(%x: tensor<?x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x1024xf32>
  %d = sinter.sub %x, %m : tensor<?x1024xf32>, tensor<?x1xf32>
  %sq = sinter.mul %d, %d : tensor<?x1024xf32>, tensor<?x1024xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<?x1024xf32>
  %r = sinter.rsqrt %v : tensor<?x1xf32>
  %n = sinter.mul %d, %r : tensor<?x1024xf32>, tensor<?x1xf32>
  %s = sinter.mul %n, %w : tensor<?x1024xf32>, tensor<1024xf32>
  %y = sinter.add %s, %b : tensor<?x1024xf32>, tensor<1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// Two rows of 1024 held (x + r, 64 floats a lane) and three params would
// hold 160 floats a lane, more than 128: the params are read for each row.
// CHECK-LABEL: func.func @held_params_too_many
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @held_params_too_many(%x: tensor<?x1024xf32>, %res: tensor<?x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>, %c: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %h = sinter.add %x, %res : tensor<?x1024xf32>, tensor<?x1024xf32>
  %m = sinter.mean %h dims [1] keepdim : tensor<?x1024xf32>
  %d = sinter.sub %h, %m : tensor<?x1024xf32>, tensor<?x1xf32>
  %sq = sinter.mul %d, %d : tensor<?x1024xf32>, tensor<?x1024xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<?x1024xf32>
  %r = sinter.rsqrt %v : tensor<?x1xf32>
  %n = sinter.mul %d, %r : tensor<?x1024xf32>, tensor<?x1xf32>
  %s = sinter.mul %n, %w : tensor<?x1024xf32>, tensor<1024xf32>
  %t = sinter.add %s, %b : tensor<?x1024xf32>, tensor<1024xf32>
  %y = sinter.add %t, %c : tensor<?x1024xf32>, tensor<1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// layer_norm over rows of 4096 and of 16384 (a wide row; 256 threads each): a
// block walks few rows, so the weight and bias are read for each.
// CHECK-LABEL: func.func @held_params_block
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @held_params_block(%x: tensor<?x4096xf32>, %w: tensor<4096xf32>, %b: tensor<4096xf32>, %z: tensor<?x16384xf32>, %v: tensor<16384xf32>, %c: tensor<16384xf32>) -> (tensor<?x4096xf32>, tensor<?x16384xf32>) {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x4096xf32>
  %d = sinter.sub %x, %m : tensor<?x4096xf32>, tensor<?x1xf32>
  %sq = sinter.mul %d, %d : tensor<?x4096xf32>, tensor<?x4096xf32>
  %var = sinter.mean %sq dims [1] keepdim : tensor<?x4096xf32>
  %r = sinter.rsqrt %var : tensor<?x1xf32>
  %n = sinter.mul %d, %r : tensor<?x4096xf32>, tensor<?x1xf32>
  %s = sinter.mul %n, %w : tensor<?x4096xf32>, tensor<4096xf32>
  %y = sinter.add %s, %b : tensor<?x4096xf32>, tensor<4096xf32>
  %m2 = sinter.mean %z dims [1] keepdim : tensor<?x16384xf32>
  %d2 = sinter.sub %z, %m2 : tensor<?x16384xf32>, tensor<?x1xf32>
  %sq2 = sinter.mul %d2, %d2 : tensor<?x16384xf32>, tensor<?x16384xf32>
  %var2 = sinter.mean %sq2 dims [1] keepdim : tensor<?x16384xf32>
  %r2 = sinter.rsqrt %var2 : tensor<?x1xf32>
  %n2 = sinter.mul %d2, %r2 : tensor<?x16384xf32>, tensor<?x1xf32>
  %s2 = sinter.mul %n2, %v : tensor<?x16384xf32>, tensor<16384xf32>
  %y2 = sinter.add %s2, %c : tensor<?x16384xf32>, tensor<16384xf32>
  return %y, %y2 : tensor<?x4096xf32>, tensor<?x16384xf32>
}

// -----

// group_norm over groups of 4 channels of 2 x 2 (rows of 16): the weight
// and bias have 16 elements, one per channel, as a row has by chance, but
// are read per channel (reshaped to [16, 1, 1]), not at each position of a
// row: none is held.
// CHECK-LABEL: func.func @held_params_per_channel
// CHECK: plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 4, rows_per_block = 64, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @held_params_per_channel(%x: tensor<64x16x2x2xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<64x16x2x2xf32> {
  %g = sinter.reshape %x : tensor<64x16x2x2xf32> -> tensor<64x4x16xf32>
  %m = sinter.mean %g dims [2] keepdim : tensor<64x4x16xf32>
  %d = sinter.sub %g, %m : tensor<64x4x16xf32>, tensor<64x4x1xf32>
  %sq = sinter.mul %d, %d : tensor<64x4x16xf32>, tensor<64x4x16xf32>
  %v = sinter.mean %sq dims [2] keepdim : tensor<64x4x16xf32>
  %r = sinter.rsqrt %v : tensor<64x4x1xf32>
  %n = sinter.mul %d, %r : tensor<64x4x16xf32>, tensor<64x4x1xf32>
  %y = sinter.reshape %n : tensor<64x4x16xf32> -> tensor<64x16x2x2xf32>
  %w3 = sinter.reshape %w : tensor<16xf32> -> tensor<16x1x1xf32>
  %s = sinter.mul %y, %w3 : tensor<64x16x2x2xf32>, tensor<16x1x1xf32>
  %b3 = sinter.reshape %b : tensor<16xf32> -> tensor<16x1x1xf32>
  %o = sinter.add %s, %b3 : tensor<64x16x2x2xf32>, tensor<16x1x1xf32>
  return %o : tensor<64x16x2x2xf32>
}

// -----

// Rows of 1025 to 1536 float4 groups held in registers take a warp (9 to 12
// groups a lane) rather than 256 threads: a layer norm over rows of 1280
// (x, 40 floats a lane, and its weight and bias held: 120).
// CHECK-LABEL: func.func @warp_rows_1280
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [1, 2]>
func.func @warp_rows_1280(%x: tensor<?x1280xf32>, %w: tensor<1280xf32>, %b: tensor<1280xf32>) -> tensor<?x1280xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<?x1280xf32>
  %d = sinter.sub %x, %m : tensor<?x1280xf32>, tensor<?x1xf32>
  %sq = sinter.mul %d, %d : tensor<?x1280xf32>, tensor<?x1280xf32>
  %v = sinter.mean %sq dims [1] keepdim : tensor<?x1280xf32>
  %r = sinter.rsqrt %v : tensor<?x1xf32>
  %n = sinter.mul %d, %r : tensor<?x1280xf32>, tensor<?x1xf32>
  %s = sinter.mul %n, %w : tensor<?x1280xf32>, tensor<1280xf32>
  %y = sinter.add %s, %b : tensor<?x1280xf32>, tensor<1280xf32>
  return %y : tensor<?x1280xf32>
}

// -----

// Two rows of 1280 held (x + r) would take 80 floats a lane of a warp, more
// than 64: 256 threads hold them (8 floats a thread).
// CHECK-LABEL: func.func @warp_rows_two_operands
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @warp_rows_two_operands(%x: tensor<?x1280xf32>, %res: tensor<?x1280xf32>) -> tensor<?x1280xf32> {
  %h = sinter.add %x, %res : tensor<?x1280xf32>, tensor<?x1280xf32>
  %mxy = sinter.max %h dims [1] keepdim : tensor<?x1280xf32>
  %dy = sinter.sub %h, %mxy : tensor<?x1280xf32>, tensor<?x1xf32>
  %ey = sinter.exp %dy : tensor<?x1280xf32>
  %sy = sinter.sum %ey dims [1] keepdim : tensor<?x1280xf32>
  %y = sinter.div %ey, %sy : tensor<?x1280xf32>, tensor<?x1xf32>
  return %y : tensor<?x1280xf32>
}

// -----

// An argmax (whose team shuffles two values a level) takes a warp up to
// rows of 2048 (16 groups a lane); over rows of 2560, 256 threads.
// CHECK-LABEL: func.func @warp_rows_argmax
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @warp_rows_argmax(%x: tensor<?x2048xf32>, %y: tensor<?x2560xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %a = sinter.argmax %x dims [1] : tensor<?x2048xf32>
  %b = sinter.argmax %y dims [1] : tensor<?x2560xf32>
  return %a, %b : tensor<?xi64>, tensor<?xi64>
}

// -----

// Other rows of 1537 to 2048 keep 256 threads: a softmax over rows of 1600.
// CHECK-LABEL: func.func @block_rows_1600
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true>
func.func @block_rows_1600(%x: tensor<?x1600xf32>) -> tensor<?x1600xf32> {
  %mx = sinter.max %x dims [1] keepdim : tensor<?x1600xf32>
  %d = sinter.sub %x, %mx : tensor<?x1600xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x1600xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x1600xf32>
  %y = sinter.div %e, %s : tensor<?x1600xf32>, tensor<?x1xf32>
  return %y : tensor<?x1600xf32>
}

// -----

// Rows of 1049 read once from HBM as float4 groups between scalar edges
// take a warp.
// CHECK-LABEL: func.func @warp_rows_edges
// CHECK: plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>
func.func @warp_rows_edges(%x: tensor<?x1049xf32>) -> tensor<?xf32> {
  %m = sinter.max %x dims [1] : tensor<?x1049xf32>
  return %m : tensor<?xf32>
}

// -----

// A softmax over rows of 1049, cached in shared memory as scalars, keeps
// 256 threads.
// CHECK-LABEL: func.func @block_rows_cached_scalars
// CHECK: plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none>
func.func @block_rows_cached_scalars(%x: tensor<?x1049xf32>) -> tensor<?x1049xf32> {
  %mx = sinter.max %x dims [1] keepdim : tensor<?x1049xf32>
  %d = sinter.sub %x, %mx : tensor<?x1049xf32>, tensor<?x1xf32>
  %e = sinter.exp %d : tensor<?x1049xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<?x1049xf32>
  %y = sinter.div %e, %s : tensor<?x1049xf32>, tensor<?x1xf32>
  return %y : tensor<?x1049xf32>
}

// -----

// Columns standardized with a mean over the leading dim without keepdim
// (what share-kept-reduction leaves): its size-1 dims broadcast as kept
// ones, so the mean and the variance around it are one Welford pass, the
// input read twice, not three times.
// CHECK-LABEL: func.func @split_welford_mean_without_keepdim
// CHECK: plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 2, launches = 3,
func.func @split_welford_mean_without_keepdim(%x: tensor<65536x64xf32>) -> tensor<65536x64xf32> {
  %m = sinter.mean %x dims [0] : tensor<65536x64xf32>
  %d = sinter.sub %x, %m : tensor<65536x64xf32>, tensor<64xf32>
  %sq = sinter.mul %d, %d : tensor<65536x64xf32>, tensor<65536x64xf32>
  %v = sinter.mean %sq dims [0] : tensor<65536x64xf32>
  %r = sinter.rsqrt %v : tensor<64xf32>
  %y = sinter.mul %d, %r : tensor<65536x64xf32>, tensor<64xf32>
  return %y : tensor<65536x64xf32>
}
