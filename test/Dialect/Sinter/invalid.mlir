// Every verifier rule of the sinter dialect, each with its message.
// RUN: sinter-opt %s --split-input-file --verify-diagnostics

func.func @matmul_contraction(%x: tensor<?x8192xf32>, %w: tensor<8192x4096xf32>) {
  // expected-error@+1 {{'sinter.matmul' op contraction dims differ: 8192 vs 4096}}
  %0 = sinter.matmul %x, %w transpose_b : tensor<?x8192xf32>, tensor<8192x4096xf32>
  return
}

// -----

func.func @matmul_rank(%x: tensor<8xf32>, %w: tensor<8x4xf32>) {
  // expected-error@+1 {{'sinter.matmul' op lhs must have rank 2 or 3, got rank 1}}
  %0 = sinter.matmul %x, %w : tensor<8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<3x4x8xf32>, %b: tensor<5x8x2xf32>) {
  // expected-error@+1 {{'sinter.matmul' op batch dims differ: [3] vs [5]}}
  %0 = sinter.matmul %a, %b : tensor<3x4x8xf32>, tensor<5x8x2xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xf32>, %b: tensor<8x2xf16>) {
  // expected-error@+1 {{'sinter.matmul' op element types differ: 'f32' vs 'f16'}}
  %0 = sinter.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf16>
  return
}

// -----

func.func @broadcast(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error@+1 {{'sinter.add' op operands are not broadcast-compatible: [4, 8] vs [3, 8] (result dim 0: 4 vs 3)}}
  %0 = sinter.add %a, %b : tensor<4x8xf32>, tensor<3x8xf32>
  return
}

// -----

func.func @broadcast_trailing(%a: tensor<?x8xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.mul' op operands are not broadcast-compatible: [?, 8] vs [4] (result dim 1: 8 vs 4)}}
  %0 = sinter.mul %a, %b : tensor<?x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error@+1 {{'sinter.div' op element types differ: 'f32' vs 'bf16'}}
  %0 = sinter.div %a, %b : tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @binary_integer(%a: tensor<4xi32>) {
  // expected-error@+1 {{'sinter.sub' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = sinter.sub %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @unary_integer(%a: tensor<4xi64>) {
  // expected-error@+1 {{'sinter.relu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi64>'}}
  %0 = sinter.relu %a : tensor<4xi64>
  return
}

// -----

func.func @constant_integer() {
  // expected-error@+1 {{'sinter.constant' op result #0 must be ranked tensor of floating-point values, but got 'tensor<2xi32>'}}
  %0 = sinter.constant dense<[1, 2]> : tensor<2xi32>
  return
}

// -----

func.func @reduction_out_of_range(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.sum' op dim 2 is out of range for an input of rank 2}}
  %0 = sinter.sum %x dims [2] : tensor<?x8xf32>
  return
}

// -----

func.func @reduction_negative(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.mean' op dim -1 is out of range for an input of rank 2}}
  %0 = sinter.mean %x dims [-1] : tensor<?x8xf32>
  return
}

// -----

func.func @reduction_repeated(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.max' op dim 1 is listed more than once}}
  %0 = sinter.max %x dims [1, 1] : tensor<?x8xf32>
  return
}

// -----

func.func @reduction_empty(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.prod' op reduces over no dimension}}
  %0 = sinter.prod %x dims [] : tensor<?x8xf32>
  return
}

// -----

func.func @argmax_dims(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.argmax' op reduces exactly one dim, got 2}}
  %0 = sinter.argmax %x dims [0, 1] : tensor<?x8xf32>
  return
}

// -----

func.func @var_out_of_range(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.var' op dim 5 is out of range for an input of rank 2}}
  %0 = sinter.var %x dims [5] : tensor<?x8xf32>
  return
}

// -----

func.func @softmax_dim(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.softmax' op dim 2 is out of range for an input of rank 2}}
  %0 = sinter.softmax %x dim 2 : tensor<?x8xf32>
  return
}

// -----

func.func @transpose_repeated(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.transpose' op perm [0, 0] is not a permutation of the 2 dims of the input}}
  %0 = sinter.transpose %x perm [0, 0] : tensor<4x8xf32>
  return
}

// -----

func.func @transpose_length(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.transpose' op perm [1, 0, 2] is not a permutation of the 2 dims of the input}}
  %0 = sinter.transpose %x perm [1, 0, 2] : tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.reshape' op element counts differ: [4, 8] has 32 elements, [3, 8] has 24}}
  %0 = sinter.reshape %x : tensor<4x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @reshape_two_dynamic(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.reshape' op result [?, ?] has more than one dynamic dim}}
  %0 = sinter.reshape %x : tensor<?x8xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_not_multiple(%x: tensor<4x6xf32>) {
  // expected-error@+1 {{'sinter.reshape' op element count 24 of [4, 6] is not a multiple of the 5 elements of [?, 5] without its ? dim}}
  %0 = sinter.reshape %x : tensor<4x6xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.reshape' op element types differ: 'f32' vs 'f16'}}
  %0 = sinter.reshape %x : tensor<4xf32> -> tensor<2x2xf16>
  return
}

// -----

func.func @group_norm_divisible(%x: tensor<?x30xf32>) {
  // expected-error@+1 {{'sinter.group_norm' op channels (30) are not divisible by num_groups (4)}}
  %0 = sinter.group_norm %x groups 4 : tensor<?x30xf32>
  return
}

// -----

func.func @group_norm_rank(%x: tensor<30xf32>) {
  // expected-error@+1 {{'sinter.group_norm' op input must have rank 2 or more, got [30]}}
  %0 = sinter.group_norm %x groups 3 : tensor<30xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<?x30xf32>) {
  // expected-error@+1 {{'sinter.group_norm' op attribute 'num_groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = sinter.group_norm %x groups 0 : tensor<?x30xf32>
  return
}

// -----

func.func @group_norm_weight(%x: tensor<?x32xf32>, %w: tensor<16xf32>) {
  // expected-error@+1 {{'sinter.group_norm' op weight has shape [16] but channel count is [32]}}
  %0 = sinter.group_norm %x groups 4 weight(%w : tensor<16xf32>) : tensor<?x32xf32>
  return
}

// -----

func.func @group_norm_bias(%x: tensor<?x32xf32>, %b: tensor<32x1xf32>) {
  // expected-error@+1 {{'sinter.group_norm' op bias has shape [32, 1] but channel count is [32]}}
  %0 = sinter.group_norm %x groups 4 bias(%b : tensor<32x1xf32>) : tensor<?x32xf32>
  return
}

// -----

func.func @layer_norm_trailing(%x: tensor<?x64xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op normalized_shape [32] does not match the trailing dims of the input [?, 64]}}
  %0 = sinter.layer_norm %x shape [32] : tensor<?x64xf32>
  return
}

// -----

func.func @layer_norm_too_long(%x: tensor<64xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op normalized_shape [1, 64] has more dims than the input [64]}}
  %0 = sinter.layer_norm %x shape [1, 64] : tensor<64xf32>
  return
}

// -----

func.func @layer_norm_empty(%x: tensor<64xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op normalized_shape must not be empty}}
  %0 = sinter.layer_norm %x shape [] : tensor<64xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<?x64xf32>, %w: tensor<32xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op weight has shape [32] but normalized_shape is [64]}}
  %0 = sinter.layer_norm %x weight(%w : tensor<32xf32>) shape [64] : tensor<?x64xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<?x4x64xf32>, %b: tensor<64xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op bias has shape [64] but normalized_shape is [4, 64]}}
  %0 = sinter.layer_norm %x bias(%b : tensor<64xf32>) shape [4, 64] : tensor<?x4x64xf32>
  return
}

// -----

func.func @layer_norm_eps(%x: tensor<?x64xf32>) {
  // expected-error@+1 {{'sinter.layer_norm' op eps must be non-negative, got -1.000000e-05}}
  %0 = sinter.layer_norm %x shape [64] eps = -1.0e-5 : tensor<?x64xf32>
  return
}

// -----

func.func @rms_norm_trailing(%x: tensor<?x64xf32>) {
  // expected-error@+1 {{'sinter.rms_norm' op normalized_shape [63] does not match the trailing dims of the input [?, 64]}}
  %0 = sinter.rms_norm %x shape [63] : tensor<?x64xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<?x64xf32>, %w: tensor<64xf16>) {
  // expected-error@+1 {{'sinter.rms_norm' op weight has element type 'f16' but the input has 'f32'}}
  %0 = sinter.rms_norm %x weight(%w : tensor<64xf16>) shape [64] : tensor<?x64xf32>
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<?x64xf32>) {
  // expected-error@+1 {{'sinter.instance_norm' op input must have rank 3 or more, got [?, 64]}}
  %0 = sinter.instance_norm %x : tensor<?x64xf32>
  return
}

// -----

func.func @instance_norm_weight(%x: tensor<?x64x9xf32>, %w: tensor<9xf32>) {
  // expected-error@+1 {{'sinter.instance_norm' op weight has shape [9] but channel count is [64]}}
  %0 = sinter.instance_norm %x weight(%w : tensor<9xf32>) : tensor<?x64x9xf32>
  return
}

// -----

func.func @batch_norm_inference(%x: tensor<?x64xf32>, %m: tensor<64xf32>) {
  // expected-error@+1 {{'sinter.batch_norm' op needs running mean and var operands in inference mode}}
  %0 = sinter.batch_norm %x mean(%m : tensor<64xf32>) : tensor<?x64xf32>
  return
}

// -----

func.func @batch_norm_running_var(%x: tensor<?x64xf32>, %m: tensor<64xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{'sinter.batch_norm' op running_var has shape [32] but channel count is [64]}}
  %0 = sinter.batch_norm %x mean(%m : tensor<64xf32>) var(%v : tensor<32xf32>) : tensor<?x64xf32>
  return
}

// -----

func.func @batch_norm_weight(%x: tensor<?x64xf32>, %w: tensor<64xbf16>) {
  // expected-error@+1 {{'sinter.batch_norm' op weight has element type 'bf16' but the input has 'f32'}}
  %0 = sinter.batch_norm %x weight(%w : tensor<64xbf16>) training : tensor<?x64xf32>
  return
}

// -----

func.func @softplus_beta(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.softplus' op beta must be non-zero}}
  %0 = sinter.softplus %x beta = 0.0 : tensor<4xf32>
  return
}

// -----

func.func @hardtanh_bounds(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.hardtanh' op min 2.000000e+00 is greater than max 1.000000e+00}}
  %0 = sinter.hardtanh %x min = 2.0 : tensor<4xf32>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.clamp' op needs at least one of min and max}}
  %0 = sinter.clamp %x : tensor<4xf32>
  return
}

// -----

func.func @gelu_approximation(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = sinter.gelu %x approximate = erf : tensor<4xf32>
  return
}

// -----

func.func @kernel_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [gemm, matvec, pointwise, row_reduction, column_reduction]}}
  %0 = sinter.kernel fused (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    sinter.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_argument_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op region has 2 arguments but the kernel has 1 operands}}
  %0 = sinter.kernel pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    sinter.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_argument_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op region argument #0 has type 'tensor<8xf32>' but operand #0 has type 'tensor<4xf32>'}}
  %0 = sinter.kernel pointwise (%x) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    sinter.yield %a : tensor<8xf32>
  }
  return
}

// -----

func.func @kernel_yield_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op terminator yields 1 values but the kernel has 2 results}}
  %0:2 = sinter.kernel pointwise (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    sinter.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_yield_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op terminator operand #0 has type 'tensor<4xf32>' but result #0 has type 'tensor<?xf32>'}}
  %0 = sinter.kernel pointwise (%x) : (tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<4xf32>):
    sinter.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_terminator(%x: tensor<4xf32>) {
  %0 = sinter.kernel pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error@+1 {{block with no terminator}}
    %r = sinter.relu %a : tensor<4xf32>
  }
  return
}

// -----

func.func @kernel_isolated(%x: tensor<4xf32>) {
  // expected-note@+1 {{required by region isolation constraints}}
  %0 = sinter.kernel pointwise () : () -> tensor<4xf32> {
    // expected-error@+1 {{using value defined outside the region}}
    %r = sinter.relu %x : tensor<4xf32>
    sinter.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @row_kernel_leading(%x: tensor<?x64xf32>) {
  %0 = sinter.kernel row_reduction (%x) : (tensor<?x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    // expected-error@+1 {{'sinter.sum' op reduces leading dims [0] of [?, 64], but a row_reduction kernel reduces trailing dims only (a column_reduction kernel reduces any)}}
    %s = sinter.sum %a dims [0] keepdim : tensor<?x64xf32>
    sinter.yield %s : tensor<1x64xf32>
  }
  return
}

// -----

func.func @row_kernel_strided(%x: tensor<?x3x4x5xf32>) {
  %0 = sinter.kernel row_reduction (%x) : (tensor<?x3x4x5xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<?x3x4x5xf32>):
    // expected-error@+1 {{'sinter.mean' op reduces strided dims [0, 2, 3] of [?, 3, 4, 5]}}
    %s = sinter.mean %a dims [0, 2, 3] : tensor<?x3x4x5xf32>
    sinter.yield %s : tensor<3xf32>
  }
  return
}

// -----

func.func @row_kernel_all(%x: tensor<8x1x64xf32>) {
  %0 = sinter.kernel row_reduction (%x) : (tensor<8x1x64xf32>) -> tensor<1xf32> {
  ^bb0(%a: tensor<8x1x64xf32>):
    // expected-error@+1 {{'sinter.sum' op reduces all dims [0, 2] of [8, 1, 64]}}
    %s = sinter.sum %a dims [0, 2] : tensor<8x1x64xf32>
    sinter.yield %s : tensor<1xf32>
  }
  return
}

// -----

func.func @row_kernel_middle(%x: tensor<8x16x64xf32>) {
  %0 = sinter.kernel row_reduction (%x) : (tensor<8x16x64xf32>) -> tensor<8x64xi64> {
  ^bb0(%a: tensor<8x16x64xf32>):
    // expected-error@+1 {{'sinter.argmax' op reduces middle dims [1] of [8, 16, 64]}}
    %s = sinter.argmax %a dims [1] : tensor<8x16x64xf32>
    sinter.yield %s : tensor<8x64xi64>
  }
  return
}

// -----

func.func @yield_outside_kernel(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.yield' op expects parent op 'sinter.kernel'}}
  sinter.yield %x : tensor<4xf32>
}

// -----

func.func @inferred_type_mismatch(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'sinter.sum' op failed to infer returned types}}
  // expected-error@+1 {{'sinter.sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  %0 = "sinter.sum"(%x) <{dims = array<i64: 1>}> : (tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @fill_dim_count(%x: tensor<?x8xf32>) -> tensor<?x?xf32> {
  // expected-error@+1 {{'sinter.fill' op names 1 source dims for the 2 dynamic dims of the result [?, ?]}}
  %0 = sinter.fill 0.0 dims [0] of %x : tensor<?x8xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @plan_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan strategy split_reduction cannot generate a pointwise kernel}}
  %0 = sinter.kernel pointwise (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = all, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 8>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    sinter.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fill_source_count(%x: tensor<?x8xf32>) -> tensor<?x?x?xf32> {
  // expected-error@+1 {{'sinter.fill' op has 2 shape sources; it takes one, or one per dynamic dim of the result (3)}}
  %0 = sinter.fill 0.0 dims [0, 0, 0] of %x, %x : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @fill_second_source_dim(%x: tensor<?x8xf32>, %y: tensor<4x?xf32>) -> tensor<?x?xf32> {
  // expected-error@+1 {{'sinter.fill' op dim 0 of the source has the static size 4; write a static size in the result type instead}}
  %0 = sinter.fill 0.0 dims [0, 0] of %x, %y : tensor<?x8xf32>, tensor<4x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @plan_welford_without_variance(%x: tensor<8x4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan strategy split_welford needs a mean and a variance around it in the kernel}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 8>} : (tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %m = sinter.mean %a dims [0] keepdim : tensor<8x4xf32>
    sinter.yield %m : tensor<1x4xf32>
  }
  return
}

// -----

func.func @plan_online_softmax_without_sum(%x: tensor<8x4xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan strategy split_online_softmax needs a max and the sum of exp(x - max) around it in the kernel}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_online_softmax, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 8>} : (tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %m = sinter.max %a dims [0] keepdim : tensor<8x4xf32>
    %d = sinter.sub %a, %m : tensor<8x4xf32>, tensor<1x4xf32>
    %s = sinter.sum %d dims [0] keepdim : tensor<8x4xf32>
    sinter.yield %s : tensor<1x4xf32>
  }
  return
}

// -----

func.func @fill_dim_range(%x: tensor<?x8xf32>) -> tensor<?x1xf32> {
  // expected-error@+1 {{'sinter.fill' op dim 2 is out of range for a source of rank 2}}
  %0 = sinter.fill 0.0 dims [2] of %x : tensor<?x8xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// expected-error@+1 {{strategy warp_per_row cannot reduce leading dims}}
func.func @plan_geometry() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = leading, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

func.func @fill_static_source_dim(%x: tensor<?x8xf32>) -> tensor<?x1xf32> {
  // expected-error@+1 {{'sinter.fill' op dim 1 of the source has the static size 8; write a static size in the result type instead}}
  %0 = sinter.fill 0.0 dims [1] of %x : tensor<?x8xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// expected-error@+1 {{vector width 2: expected 1 or 4}}
func.func @plan_vector_width() attributes {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 2, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

// expected-error@+1 {{subwarp_per_row with 32 lanes per row: expected a power of two from 1 to 16}}
func.func @plan_subwarp_lanes() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>} {
  return
}


// -----

// expected-error@+1 {{rows in registers need a row strategy of a static team and vector width 4}}
func.func @plan_registers_scalar() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>} {
  return
}

// -----

func.func @plan_cached_operand(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan caches operand #1 but the kernel has 1 operands}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [1], passes = 1, launches = 1, epilogue = none>} : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = sinter.sum %a dims [1] keepdim : tensor<4x8xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

// expected-error@+1 {{only row kernels compute statistics in a single pass}}
func.func @plan_single_pass() attributes {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, single_pass = true>} {
  return
}

// -----

// expected-error@+1 {{only a split reduction's last block folds its partials}}
func.func @plan_last_block_folds() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true>} {
  return
}

// -----

// expected-error@+1 {{only a split reduction's fold computes the apply step}}
func.func @plan_apply_in_fold_rows() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_in_fold = true>} {
  return
}

// -----

// expected-error@+1 {{cluster of 3 blocks: expected a power of two from 2 to 8 (or 1: none)}}
func.func @plan_cluster_size() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 3>} {
  return
}

// -----

// expected-error@+1 {{a cluster of 4 blocks shares a row of block_per_row (one row a block) that it caches, without rows in registers, single-pass statistics or row_slices}}
func.func @plan_cluster_uncached() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 2, launches = 1, epilogue = none, cluster = 4>} {
  return
}

// -----

// expected-error@+1 {{a cluster of 2 blocks shares a row of block_per_row}}
func.func @plan_cluster_split() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, cluster = 2, chunk_loads = 8>} {
  return
}

// -----

// expected-error@+1 {{row_slices 1025: expected 2 to 1024 (or 1: none)}}
func.func @plan_row_slices_count() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 1025>} {
  return
}

// -----

// expected-error@+1 {{a cluster of 2 blocks shares a row of block_per_row (one row a block) that it caches, without rows in registers, single-pass statistics or row_slices}}
func.func @plan_row_slices_cluster() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, cluster = 2, row_slices = 16>} {
  return
}

// -----

// expected-error@+1 {{row_slices 24 streams rows of block_per_row (one row a block) read once from HBM (passes 1), without cached operands, rows in registers or single-pass statistics, in at most as many slices as the block has threads}}
func.func @plan_row_slices_single_pass() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, single_pass = true, row_slices = 24>} {
  return
}

// -----

// expected-error@+1 {{row_slices 64 streams rows of block_per_row}}
func.func @plan_row_slices_threads() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64>} {
  return
}

// -----

// expected-error@+1 {{stream_lag 32: expected at least row_slices (64) where rows are streamed, else 0}}
func.func @plan_stream_lag_short() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64, stream_lag = 32, stream_blocks = 4>} {
  return
}

// -----

// expected-error@+1 {{stream_lag 8: expected at least row_slices (1) where rows are streamed, else 0}}
func.func @plan_stream_lag_unstreamed() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 2, launches = 1, epilogue = none, stream_lag = 8>} {
  return
}

// -----

// expected-error@+1 {{stream_blocks 0: expected 1 to 32 where rows are streamed, else 0}}
func.func @plan_stream_blocks_missing() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 512, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, row_slices = 64, stream_lag = 256>} {
  return
}

// -----

// expected-error@+1 {{stream_blocks 4: expected 1 to 32 where rows are streamed, else 0}}
func.func @plan_stream_blocks_unstreamed() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 2, launches = 1, epilogue = none, stream_blocks = 4>} {
  return
}

// -----

// expected-error@+1 {{apply_in_strip: a split reduction of 256 threads over strips of 8 or more positions, one pass and one launch, vector width 1, without a fold or an apply step of its own}}
func.func @plan_apply_in_strip_two_launches() attributes {plan = #sinter.plan<strategy = split_online_softmax, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, apply_in_strip = true, chunk_loads = 8>} {
  return
}

// -----

// expected-error@+1 {{apply_in_strip: a split reduction of 256 threads over strips of 8 or more positions, one pass and one launch, vector width 1, without a fold or an apply step of its own}}
func.func @plan_apply_in_strip_rows() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_in_strip = true>} {
  return
}

// -----

// A block takes a strip: no persistent grid.
// expected-error@+1 {{stream_blocks 8: expected 1 to 32 where rows are streamed, else 0}}
func.func @plan_apply_in_strip_grid() attributes {plan = #sinter.plan<strategy = split_welford, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, stream_blocks = 8, apply_in_strip = true, chunk_loads = 8>} {
  return
}

// -----

func.func @plan_apply_in_strip_row_kernel(%x: tensor<16x4096xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan apply_in_strip needs a column_reduction kernel}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = trailing, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_in_strip = true, chunk_loads = 8>} : (tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  ^bb0(%a: tensor<16x4096xf32>):
    %m = sinter.max %a dims [1] keepdim : tensor<16x4096xf32>
    %d = sinter.sub %a, %m : tensor<16x4096xf32>, tensor<16x1xf32>
    sinter.yield %d : tensor<16x4096xf32>
  }
  return
}

// -----

func.func @plan_apply_in_strip_registers(%x: tensor<512x4096xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan apply_in_strip: a thread would hold 64 elements in registers, more than 32}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_in_strip = true, chunk_loads = 8>} : (tensor<512x4096xf32>) -> tensor<512x4096xf32> {
  ^bb0(%a: tensor<512x4096xf32>):
    %m = sinter.max %a dims [0] keepdim : tensor<512x4096xf32>
    %d = sinter.sub %a, %m : tensor<512x4096xf32>, tensor<1x4096xf32>
    sinter.yield %d : tensor<512x4096xf32>
  }
  return
}

// -----

// Only row kernels and strips cache operands.
// expected-error@+1 {{only row kernels and strips (apply_in_strip) cache operands}}
func.func @plan_cached_split() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0], passes = 1, launches = 2, epilogue = none, chunk_loads = 8>} {
  return
}

// -----

// A strip stages operands of the reduced input's shape only.
func.func @plan_apply_in_strip_cached_shape(%x: tensor<512x4096xf32>, %w: tensor<1x4096xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan apply_in_strip caches operand #1, which does not have the reduced input's shape}}
  %0 = sinter.kernel column_reduction (%x, %w) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0, 1], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>} : (tensor<512x4096xf32>, tensor<1x4096xf32>) -> tensor<512x4096xf32> {
  ^bb0(%a: tensor<512x4096xf32>, %b: tensor<1x4096xf32>):
    %m = sinter.max %a dims [0] keepdim : tensor<512x4096xf32>
    %d = sinter.sub %a, %m : tensor<512x4096xf32>, tensor<1x4096xf32>
    %y = sinter.mul %d, %b : tensor<512x4096xf32>, tensor<1x4096xf32>
    sinter.yield %y : tensor<512x4096xf32>
  }
  return
}

// -----

// 513 rows of a strip of 32 columns: 65664 bytes staged, over 64 KiB.
func.func @plan_apply_in_strip_shared_bytes(%x: tensor<513x4096xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan apply_in_strip: a strip would stage 65664 bytes in shared memory, more than 65536}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, min_blocks = 3, apply_in_strip = true, chunk_loads = 8>} : (tensor<513x4096xf32>) -> tensor<513x4096xf32> {
  ^bb0(%a: tensor<513x4096xf32>):
    %m = sinter.max %a dims [0] keepdim : tensor<513x4096xf32>
    %d = sinter.sub %a, %m : tensor<513x4096xf32>, tensor<1x4096xf32>
    sinter.yield %d : tensor<513x4096xf32>
  }
  return
}

// -----

func.func @plan_apply_in_strip_output(%x: tensor<64x4096xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan apply_in_strip: an output that is not a statistic has another shape than the reduced input}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_in_strip = true, chunk_loads = 8>} : (tensor<64x4096xf32>) -> tensor<1x4096xf32> {
  ^bb0(%a: tensor<64x4096xf32>):
    %m = sinter.max %a dims [0] keepdim : tensor<64x4096xf32>
    %d = sinter.mul %m, %m : tensor<1x4096xf32>, tensor<1x4096xf32>
    sinter.yield %d : tensor<1x4096xf32>
  }
  return
}

// -----

// expected-error@+1 {{apply_in_fold: the apply step launches no kernel of its own (apply_min_blocks 0 and apply_rows_per_thread 1 expected)}}
func.func @plan_apply_in_fold_launch() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, min_blocks = 4, apply_min_blocks = 6, apply_in_fold = true, chunk_loads = 4>} {
  return
}

// -----

// expected-error@+1 {{min_blocks -1 and apply_min_blocks 0 must be non-negative}}
func.func @plan_min_blocks_negative() attributes {plan = #sinter.plan<strategy = elementwise, geometry = none, block = 256, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = -1>} {
  return
}

// -----

// expected-error@+1 {{min_blocks 4 and apply_min_blocks -6 must be non-negative}}
func.func @plan_apply_min_blocks_negative() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 1, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, apply_min_blocks = -6, chunk_loads = 8>} {
  return
}

// -----

// expected-error@+1 {{min_blocks 2: a library GEMM has no launch bounds}}
func.func @plan_min_blocks_gemm() attributes {plan = #sinter.plan<strategy = library_gemm, geometry = none, block = 0, rows_per_block = 0, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = library, min_blocks = 2>} {
  return
}

// -----

// expected-error@+1 {{apply_min_blocks 6: only a split reduction has an apply step}}
func.func @plan_apply_min_blocks_rows() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_min_blocks = 6>} {
  return
}

// -----

// Three blocks of 1024 threads do not fit a multiprocessor's 2048.
// expected-error@+1 {{min_blocks 3 of 1024 threads: more than the 2048 threads of a multiprocessor}}
func.func @plan_min_blocks_threads() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 1024, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, min_blocks = 3>} {
  return
}

// -----

// A block of a warp-per-row kernel is its rows' warps: 8 x 32 threads.
// expected-error@+1 {{min_blocks 9 of 256 threads: more than the 2048 threads of a multiprocessor}}
func.func @plan_min_blocks_row_teams() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, min_blocks = 9>} {
  return
}

// -----

// expected-error@+1 {{apply_min_blocks 9 of 256 threads: more than the 2048 threads of a multiprocessor}}
func.func @plan_apply_min_blocks_threads() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 1, cached = [], passes = 2, launches = 3, epilogue = none, min_blocks = 4, apply_min_blocks = 9, chunk_loads = 8>} {
  return
}

// -----

func.func @compare_broadcast(%a: tensor<4x8xf32>, %b: tensor<5xf32>) {
  // expected-error@+1 {{'sinter.compare' op operands are not broadcast-compatible: [4, 8] vs [5] (result dim 1: 8 vs 5)}}
  %0 = sinter.compare gt, %a, %b : tensor<4x8xf32>, tensor<5xf32>
  return
}

// -----

func.func @select_condition_broadcast(%m: tensor<3xf32>, %a: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.select' op operands are not broadcast-compatible: [3] vs [4, 8] (result dim 1: 3 vs 8)}}
  %0 = sinter.select %m, %a, %a : tensor<3xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @slice_dynamic_dim(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.slice' op dim 0 is dynamic; only static dims are sliced}}
  %0 = sinter.slice %x dim 0 start 0 end 2 : tensor<?x8xf32>
  return
}

// -----

func.func @slice_range(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.slice' op range [4, 9) is not a non-empty range of dim 1 of size 8}}
  %0 = sinter.slice %x dim 1 start 4 end 9 : tensor<?x8xf32>
  return
}

// -----

func.func @slice_dim_range(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.slice' op dim 2 is out of range for a tensor of rank 2}}
  %0 = sinter.slice %x dim 2 start 0 end 1 : tensor<?x8xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<4x8xf32>, %b: tensor<5x8xf32>) {
  // expected-error@+1 {{'sinter.concat' op input 1 [5, 8] differs from input 0 [4, 8] in dim 0; only dim 1 may differ}}
  %0 = sinter.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @concat_dynamic_dim(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.concat' op input 1 [4, 8] differs from input 0 [?, 8] in dim 0; only dim 1 may differ}}
  %0 = sinter.concat %a, %b dim 1 : tensor<?x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @concat_along_dynamic(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) {
  // expected-error@+1 {{'sinter.concat' op dim 0 of input 0 is dynamic; only static dims are concatenated}}
  %0 = sinter.concat %a, %b dim 0 : tensor<?x8xf32>, tensor<?x8xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error@+1 {{'sinter.concat' op input 1 has type 'tensor<8xf32>', expected a tensor of rank 2 of 'f32'}}
  %0 = sinter.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

// expected-error@+1 {{apply_rows_per_thread 4: expected 1 to 64, and 1 but for a split reduction's apply step}}
func.func @plan_apply_rows_per_thread() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, apply_rows_per_thread = 4>} {
  return
}

// -----

// expected-error@+1 {{apply_rows_per_thread 0: expected 1 to 64, and 1 but for a split reduction's apply step}}
func.func @plan_apply_rows_per_thread_zero() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 1, cached = [], passes = 2, launches = 3, epilogue = none, apply_rows_per_thread = 0, chunk_loads = 8>} {
  return
}

// -----

// expected-error@+1 {{tile_rows: rows of subwarp_per_row or warp_per_row, a multiple of 4 a block of at most 1024 threads, cached operands, not in registers, vector width 1 and passes 1}}
func.func @plan_tile_rows_block_per_row() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>} {
  return
}

// -----

// expected-error@+1 {{tile_rows: rows of subwarp_per_row or warp_per_row, a multiple of 4 a block of at most 1024 threads, cached operands, not in registers, vector width 1 and passes 1}}
func.func @plan_tile_rows_unaligned_tiles() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 16, rows_per_block = 6, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>} {
  return
}

// -----

// expected-error@+1 {{tile_rows: rows of subwarp_per_row or warp_per_row, a multiple of 4 a block of at most 1024 threads, cached operands, not in registers, vector width 1 and passes 1}}
func.func @plan_tile_rows_too_many_threads() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 64, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>} {
  return
}

// -----

// expected-error@+1 {{tile_rows: rows of subwarp_per_row or warp_per_row, a multiple of 4 a block of at most 1024 threads, cached operands, not in registers, vector width 1 and passes 1}}
func.func @plan_tile_rows_uncached() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 128, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, tile_rows = true>} {
  return
}

// -----

// expected-error@+1 {{tile_rows: rows of subwarp_per_row or warp_per_row, a multiple of 4 a block of at most 1024 threads, cached operands, not in registers, vector width 1 and passes 1}}
func.func @plan_tile_rows_float4() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 4, rows_per_block = 64, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true>} {
  return
}

// -----

// expected-error@+1 {{columns_per_thread 4: expected a power of two from 2 to 8 (or 1) for split_reduction or split_welford over 256 columns a block, vector width 1, whose last block folds (one slice), not in strips}}
func.func @plan_columns_per_thread_runs() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, columns_per_thread = 4, chunk_loads = 4>} {
  return
}

// -----

// expected-error@+1 {{columns_per_thread 3: expected a power of two from 2 to 8 (or 1) for split_reduction or split_welford over 256 columns a block, vector width 1, whose last block folds (one slice), not in strips}}
func.func @plan_columns_per_thread_odd() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, columns_per_thread = 3, chunk_loads = 8>} {
  return
}

// -----
// expected-error@+1 {{warp_runs 2: expected 1 to 8 (or 0) for split_reduction or split_welford over a middle dim, 256 threads a block, columns_per_block 8 * warp_runs * C (C from 2 to 16), vector width 1, one column a thread, not in strips, finished where read (last_block_folds), one launch and pass, or two with an apply step}}
func.func @plan_warp_runs_leading() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 2>} {
  return
}

// -----

// expected-error@+1 {{warp_runs 2: expected 1 to 8 (or 0) for split_reduction or split_welford over a middle dim, 256 threads a block, columns_per_block 8 * warp_runs * C (C from 2 to 16), vector width 1, one column a thread, not in strips, finished where read (last_block_folds), one launch and pass, or two with an apply step}}
func.func @plan_warp_runs_channels() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 40, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 2>} {
  return
}

// -----

// expected-error@+1 {{warp_runs 9: expected 1 to 8 (or 0) for split_reduction or split_welford over a middle dim, 256 threads a block, columns_per_block 8 * warp_runs * C (C from 2 to 16), vector width 1, one column a thread, not in strips, finished where read (last_block_folds), one launch and pass, or two with an apply step}}
func.func @plan_warp_runs_many() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 144, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 9>} {
  return
}

// -----

// expected-error@+1 {{warp_runs 1: expected 1 to 8 (or 0) for split_reduction or split_welford over a middle dim, 256 threads a block, columns_per_block 8 * warp_runs * C (C from 2 to 16), vector width 1, one column a thread, not in strips, finished where read (last_block_folds), one launch and pass, or two with an apply step}}
func.func @plan_warp_runs_wide_channels() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 1>} {
  return
}

// -----


// expected-error@+1 {{columns_per_thread 2: expected a power of two from 2 to 8 (or 1) for split_reduction or split_welford over 256 columns a block, vector width 1, whose last block folds (one slice), not in strips}}
func.func @plan_columns_per_thread_two_launches() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 2, epilogue = none, columns_per_thread = 2, chunk_loads = 8>} {
  return
}

// -----

func.func @plan_warp_runs_two_reductions(%x: tensor<64x128x2xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan warp_runs needs a column_reduction kernel of one reduction, or of a mean and the variance around it}}
  %0:2 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 2>} : (tensor<64x128x2xf32>) -> (tensor<64x2xf32>, tensor<64x2xf32>) {
  ^bb0(%a: tensor<64x128x2xf32>):
    %s = sinter.sum %a dims [1] : tensor<64x128x2xf32>
    %m = sinter.max %a dims [1] : tensor<64x128x2xf32>
    sinter.yield %s, %m : tensor<64x2xf32>, tensor<64x2xf32>
  }
  return
}

// -----

// A max and its sum of exponentials are a pair, but not of Welford states.
func.func @plan_warp_runs_softmax_pair(%x: tensor<64x128x2xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan warp_runs needs a column_reduction kernel of one reduction, or of a mean and the variance around it}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 2>} : (tensor<64x128x2xf32>) -> tensor<64x1x2xf32> {
  ^bb0(%a: tensor<64x128x2xf32>):
    %m = sinter.max %a dims [1] keepdim : tensor<64x128x2xf32>
    %d = sinter.sub %a, %m : tensor<64x128x2xf32>, tensor<64x1x2xf32>
    %e = sinter.exp %d : tensor<64x128x2xf32>
    %s = sinter.sum %e dims [1] keepdim : tensor<64x128x2xf32>
    sinter.yield %s : tensor<64x1x2xf32>
  }
  return
}

// -----

func.func @plan_warp_runs_var(%x: tensor<64x128x2xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan warp_runs needs a sum, mean, max, min, prod, argmax or argmin over a static count of reduced elements}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = middle, block = 256, rows_per_block = 0, columns_per_block = 32, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, chunk_loads = 8, warp_runs = 2>} : (tensor<64x128x2xf32>) -> tensor<64x2xf32> {
  ^bb0(%a: tensor<64x128x2xf32>):
    %v = sinter.var %a dims [1] : tensor<64x128x2xf32>
    sinter.yield %v : tensor<64x2xf32>
  }
  return
}

// -----

func.func @plan_columns_per_thread_long_columns(%x: tensor<9x4097xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan columns_per_thread needs columns of a static count of at most 8 reduced elements}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, columns_per_thread = 2, chunk_loads = 8>} : (tensor<9x4097xf32>) -> tensor<4097xf32> {
  ^bb0(%a: tensor<9x4097xf32>):
    %s = sinter.sum %a dims [0] : tensor<9x4097xf32>
    sinter.yield %s : tensor<4097xf32>
  }
  return
}

// -----

// expected-error@+1 {{chunk_loads 3: expected a power of two from 2 to 16 for a split strategy (at least 8 with several columns a thread) or an elementwise kernel of vector width 4, else 0}}
func.func @plan_chunk_loads_odd() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 3>} {
  return
}

// -----

// expected-error@+1 {{chunk_loads 0: expected a power of two from 2 to 16 for a split strategy (at least 8 with several columns a thread) or an elementwise kernel of vector width 4, else 0}}
func.func @plan_chunk_loads_missing() attributes {plan = #sinter.plan<strategy = split_welford, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none>} {
  return
}

// -----

// expected-error@+1 {{chunk_loads 32: expected a power of two from 2 to 16 for a split strategy (at least 8 with several columns a thread) or an elementwise kernel of vector width 4, else 0}}
func.func @plan_chunk_loads_too_many() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 64, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 32>} {
  return
}

// -----

// expected-error@+1 {{chunk_loads 4: expected a power of two from 2 to 16 for a split strategy (at least 8 with several columns a thread) or an elementwise kernel of vector width 4, else 0}}
func.func @plan_chunk_loads_columns_a_thread() attributes {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 256, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none, last_block_folds = true, columns_per_thread = 2, chunk_loads = 4>} {
  return
}

// -----

// expected-error@+1 {{chunk_loads 8: expected a power of two from 2 to 16 for a split strategy (at least 8 with several columns a thread) or an elementwise kernel of vector width 4, else 0}}
func.func @plan_chunk_loads_rows() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, chunk_loads = 8>} {
  return
}

// -----

func.func @plan_runs_not_four(%x: tensor<5x7xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan vector_width 4 needs runs of 4 adjacent elements: the trailing reduced dims (or the kept innermost dim) static and a multiple of 4 long, computed elementwise from the kernel's arguments}}
  %0 = sinter.kernel column_reduction (%x) {plan = #sinter.plan<strategy = split_reduction, geometry = leading, block = 256, rows_per_block = 0, columns_per_block = 8, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 4>} : (tensor<5x7xf32>) -> tensor<7xf32> {
  ^bb0(%a: tensor<5x7xf32>):
    %s = sinter.sum %a dims [0] : tensor<5x7xf32>
    sinter.yield %s : tensor<7xf32>
  }
  return
}

// -----

func.func @plan_runs_positional(%x: tensor<2x3x6x10xf32>, %w: tensor<10xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan vector_width 4 needs runs of 4 adjacent elements}}
  %0 = sinter.kernel column_reduction (%x, %w) {plan = #sinter.plan<strategy = split_reduction, geometry = strided, block = 256, rows_per_block = 0, columns_per_block = 1, vector_width = 4, cached = [], passes = 1, launches = 2, epilogue = none, chunk_loads = 4>} : (tensor<2x3x6x10xf32>, tensor<10xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<2x3x6x10xf32>, %b: tensor<10xf32>):
    %p = sinter.mul %a, %b : tensor<2x3x6x10xf32>, tensor<10xf32>
    %s = sinter.sum %p dims [0, 2, 3] : tensor<2x3x6x10xf32>
    sinter.yield %s : tensor<3xf32>
  }
  return
}

// -----

// expected-error@+1 {{rows_per_thread 2: expected 2 or 4 (or 1) with tile_rows, a lane a row and rows_per_block 256 times it}}
func.func @plan_rows_per_thread_untiled() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 512, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, rows_per_thread = 2>} {
  return
}

// -----

// expected-error@+1 {{rows_per_thread 3: expected 2 or 4 (or 1) with tile_rows, a lane a row and rows_per_block 256 times it}}
func.func @plan_rows_per_thread_three() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 768, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 3>} {
  return
}

// -----

func.func @plan_rows_per_thread_length(%x: tensor<64x6xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan rows_per_thread 4 needs rows of a static length that many of make whole float4 groups, of at most 32 elements}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 1, rows_per_block = 1024, columns_per_block = 0, vector_width = 1, cached = [0], passes = 1, launches = 1, epilogue = none, tile_rows = true, rows_per_thread = 4>} : (tensor<64x6xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x6xf32>):
    %s = sinter.sum %a dims [1] : tensor<64x6xf32>
    sinter.yield %s : tensor<64xf32>
  }
  return
}

// -----

// A block-wide team smaller than 256 threads would fold the rows of two
// teams together (argmax over rows of 1000 gave wrong indices).
// expected-error@+1 {{a team of 128 threads of block_per_row with rows_per_block 1: expected one warp for warp_per_row, 256 threads or more for block_per_row, and 256 / block rows a block (1 from 256 threads)}}
func.func @plan_block_per_row_small_team() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 128, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

// expected-error@+1 {{a team of 64 threads of warp_per_row with rows_per_block 4: expected one warp for warp_per_row, 256 threads or more for block_per_row, and 256 / block rows a block (1 from 256 threads)}}
func.func @plan_warp_per_row_two_warps() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 64, rows_per_block = 4, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

// expected-error@+1 {{a team of 8 threads of subwarp_per_row with rows_per_block 16: expected one warp for warp_per_row, 256 threads or more for block_per_row, and 256 / block rows a block (1 from 256 threads)}}
func.func @plan_subwarp_rows_per_block() attributes {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 8, rows_per_block = 16, columns_per_block = 0, vector_width = 1, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

// expected-error@+1 {{a team of 128 threads of block_per_row with rows_per_block 2: expected one warp for warp_per_row, 256 threads or more for block_per_row, and 256 / block rows a block (1 from 256 threads)}}
func.func @plan_block_per_row_two_teams() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 128, rows_per_block = 2, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none>} {
  return
}

// -----

// Params held across rows belong to a team of a warp or fewer (many rows a
// thread), whose rows are in registers.
// expected-error@+1 {{held_params need rows in registers of subwarp_per_row or warp_per_row}}
func.func @plan_held_params_block() attributes {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [1]>} {
  return
}

// -----

// expected-error@+1 {{held_params need rows in registers of subwarp_per_row or warp_per_row}}
func.func @plan_held_params_registers() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, held_params = [1]>} {
  return
}

// -----

// A held param is not also cached (a row of its own).
// expected-error@+1 {{held_params: expected increasing operand indices, none of them cached}}
func.func @plan_held_params_cached() attributes {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [0]>} {
  return
}

// -----

// A held param has one row's elements: here a column of 4.
func.func @plan_held_params_shape(%x: tensor<4x8xf32>, %c: tensor<4x1xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan holds operand #1 across rows, which needs the elements of one static row}}
  %0 = sinter.kernel row_reduction (%x, %c) {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 2, rows_per_block = 128, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [1]>} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>):
    %m = sinter.mul %a, %b : tensor<4x8xf32>, tensor<4x1xf32>
    %s = sinter.sum %m dims [1] keepdim : tensor<4x8xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

func.func @plan_held_params_operand(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan holds operand #1 but the kernel has 1 operands}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = subwarp_per_row, geometry = trailing, block = 2, rows_per_block = 128, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [1]>} : (tensor<4x8xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = sinter.sum %a dims [1] keepdim : tensor<4x8xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

// Rows in registers: each lane of a warp would hold 2048 of a row of 65536.
func.func @plan_registers_too_long(%x: tensor<4x65536xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan registers: a thread would hold 2048 elements in registers, more than 128}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>} : (tensor<4x65536xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x65536xf32>):
    %s = sinter.sum %a dims [1] keepdim : tensor<4x65536xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

// Rows in registers are float4 groups: not rows of 1027.
func.func @plan_registers_unaligned(%x: tensor<4x1027xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan registers needs rows of one static length, a multiple of 4}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = block_per_row, geometry = trailing, block = 256, rows_per_block = 1, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>} : (tensor<4x1027xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x1027xf32>):
    %s = sinter.sum %a dims [1] keepdim : tensor<4x1027xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

// Rows in registers have a static length.
func.func @plan_registers_dynamic(%x: tensor<4x?xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan registers needs rows of one static length, a multiple of 4}}
  %0 = sinter.kernel row_reduction (%x) {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [], passes = 1, launches = 1, epilogue = none, registers = true>} : (tensor<4x?xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x?xf32>):
    %s = sinter.sum %a dims [1] keepdim : tensor<4x?xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}

// -----

// Each lane of a warp holds 32 of each row of 1024 of x, its cached copy
// of r and the held weight: 96 floats; a fourth operand would make 128, a
// fifth 160.
func.func @plan_registers_held(%x: tensor<4x1024xf32>, %r: tensor<4x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>, %c: tensor<1024xf32>) {
  // expected-error@+1 {{'sinter.kernel' op plan registers: a thread would hold 160 elements in registers, more than 128}}
  %0 = sinter.kernel row_reduction (%x, %r, %w, %b, %c) {plan = #sinter.plan<strategy = warp_per_row, geometry = trailing, block = 32, rows_per_block = 8, columns_per_block = 0, vector_width = 4, cached = [0, 1], passes = 1, launches = 1, epilogue = none, registers = true, held_params = [2, 3, 4]>} : (tensor<4x1024xf32>, tensor<4x1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x1024xf32>, %q: tensor<4x1024xf32>, %u: tensor<1024xf32>, %v: tensor<1024xf32>, %t: tensor<1024xf32>):
    %s0 = sinter.add %a, %q : tensor<4x1024xf32>, tensor<4x1024xf32>
    %s1 = sinter.mul %s0, %u : tensor<4x1024xf32>, tensor<1024xf32>
    %s2 = sinter.add %s1, %v : tensor<4x1024xf32>, tensor<1024xf32>
    %s3 = sinter.mul %s2, %t : tensor<4x1024xf32>, tensor<1024xf32>
    %s = sinter.sum %s3 dims [1] keepdim : tensor<4x1024xf32>
    sinter.yield %s : tensor<4x1xf32>
  }
  return
}
