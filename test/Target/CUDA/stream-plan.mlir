// The emitter prints a streamed plan's decisions: a hand-written plan's
// lag (stream_lag, capped at the queue's items at launch) and the
// persistent grid's blocks a multiprocessor (stream_blocks), not constants
// of its own.
// RUN: sinter-translate --sinter-to-cuda %s | FileCheck %s

// CHECK-LABEL: launch_streamed_plan_k0_row_reduction_rows(
// CHECK: sinter::getResidentBlocks(streamed_plan_k0_row_reduction<kThreads>, kThreads, 0, 3, &resident),
// CHECK: const int64_t lag = std::min<int64_t>(100, 
module @streamed_plan {
  func.func @forward(%x: tensor<8x524288xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["", ""]})
      -> (tensor<8x524288xf32> {sinter.name = "y", sinter.dim_names = ["", ""]}) {
    %0 = sinter.kernel row_reduction(%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64, stream_lag = 100, stream_blocks = 3>} : (tensor<8x524288xf32>) -> tensor<8x524288xf32> {
    ^bb0(%a: tensor<8x524288xf32>):
      %s = sinter.sum %a dims [1] keepdim : tensor<8x524288xf32>
      %y = sinter.div %a, %s : tensor<8x524288xf32>, tensor<8x1xf32>
      sinter.yield %y : tensor<8x524288xf32>
    }
    return %0 : tensor<8x524288xf32>
  }
}
