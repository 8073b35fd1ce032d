// RUN: sinter-opt %s --split-input-file --sinter-decompose --verify-diagnostics

// A dynamic channel count cannot be regrouped by one reshape.
func.func @group_norm_dynamic_channels(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // expected-error @below {{'sinter.group_norm' op cannot be decomposed: its channel count must be static}}
  %0 = sinter.group_norm %x groups 4 : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// A static weight against a dynamic normalized dim would turn the result
// static.
func.func @layer_norm_weight_shape(%x: tensor<2x?xf32>, %w: tensor<8xf32>) -> tensor<2x?xf32> {
  // expected-error @below {{'sinter.layer_norm' op cannot be decomposed: an affine or statistics operand of static shape would change the input's dynamic shape}}
  %0 = sinter.layer_norm %x weight(%w : tensor<8xf32>) shape [8] : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Batch statistics of a single value per channel, which PyTorch rejects.
func.func @batch_norm_one_value(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @below {{'sinter.batch_norm' op cannot be decomposed: in training mode it needs more than one value per channel, but the batch and spatial dims hold one element}}
  %0 = sinter.batch_norm %x training : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// In inference mode the statistics are given: a batch of one is fine.
func.func @batch_norm_inference_one_value(%x: tensor<1x8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8xf32> {
  %0 = sinter.batch_norm %x mean(%m : tensor<8xf32>) var(%v : tensor<8xf32>) : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
