// RUN: sinter-opt %s --split-input-file --sinter-decompose | FileCheck %s

// softmax(x) = exp(x - max x) / sum(exp(x - max x))
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [1] keepdim : tensor<?x64xf32>
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[MAX]] : tensor<?x64xf32>, tensor<?x1xf32>
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]] : tensor<?x64xf32>
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [1] keepdim : tensor<?x64xf32>
//       CHECK:   %[[R:.*]] = sinter.div %[[EXP]], %[[SUM]] : tensor<?x64xf32>, tensor<?x1xf32>
//       CHECK:   return %[[R]]
//   CHECK-NOT: sinter.softmax
func.func @softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.softmax %x dim 1 : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// Along dim 0 of a rank-3 tensor: the reductions follow the dim.
// CHECK-LABEL: func.func @softmax_dim0
//  CHECK-SAME: (%[[X:.*]]: tensor<4x?x8xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [0] keepdim : tensor<4x?x8xf32>
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[MAX]] : tensor<4x?x8xf32>, tensor<1x?x8xf32>
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [0] keepdim
//       CHECK:   sinter.div %[[EXP]], %[[SUM]] : tensor<4x?x8xf32>, tensor<1x?x8xf32>
func.func @softmax_dim0(%x: tensor<4x?x8xf32>) -> tensor<4x?x8xf32> {
  %0 = sinter.softmax %x dim 0 : tensor<4x?x8xf32>
  return %0 : tensor<4x?x8xf32>
}

// -----

// log_softmax(x) = (x - max x) - log(sum(exp(x - max x)))
// CHECK-LABEL: func.func @log_softmax
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [1] keepdim
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[MAX]]
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [1] keepdim
//       CHECK:   %[[LOG:.*]] = sinter.log %[[SUM]] : tensor<?x1xf32>
//       CHECK:   %[[R:.*]] = sinter.sub %[[SHIFT]], %[[LOG]] : tensor<?x64xf32>, tensor<?x1xf32>
//       CHECK:   return %[[R]]
func.func @log_softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.log_softmax %x dim 1 : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// logsumexp(x) = m + log(sum(exp(x - m))), m = max x clamped to finite
// CHECK-LABEL: func.func @logsumexp_keepdim
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [1] keepdim
//       CHECK:   %[[M:.*]] = sinter.clamp %[[MAX]] min = -3.4028234663852886E+38 max = 3.4028234663852886E+38 : tensor<?x1xf32>
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[M]]
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [1] keepdim
//       CHECK:   %[[LOG:.*]] = sinter.log %[[SUM]]
//       CHECK:   %[[R:.*]] = sinter.add %[[M]], %[[LOG]] : tensor<?x1xf32>, tensor<?x1xf32>
//       CHECK:   return %[[R]]
func.func @logsumexp_keepdim(%x: tensor<?x64xf32>) -> tensor<?x1xf32> {
  %0 = sinter.logsumexp %x dims [1] keepdim : tensor<?x64xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// Without keepdim the result is computed with the reduced dims kept, then
// reshaped (one max, which pairs with the sum: an online softmax pass).
// CHECK-LABEL: func.func @logsumexp_dims
//  CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [1, 2] keepdim
//       CHECK:   %[[M:.*]] = sinter.clamp %[[MAX]]
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[M]] : tensor<?x?x8xf32>, tensor<?x1x1xf32>
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [1, 2] keepdim : tensor<?x?x8xf32>
//       CHECK:   %[[LOG:.*]] = sinter.log %[[SUM]] : tensor<?x1x1xf32>
//       CHECK:   %[[K:.*]] = sinter.add %[[M]], %[[LOG]] : tensor<?x1x1xf32>, tensor<?x1x1xf32>
//       CHECK:   %[[R:.*]] = sinter.reshape %[[K]] : tensor<?x1x1xf32> -> tensor<?xf32>
//   CHECK-NOT:   sinter.max
//       CHECK:   return %[[R]]
func.func @logsumexp_dims(%x: tensor<?x?x8xf32>) -> tensor<?xf32> {
  %0 = sinter.logsumexp %x dims [1, 2] : tensor<?x?x8xf32>
  return %0 : tensor<?xf32>
}

// -----

// A result of two dynamic dims cannot come from a reshape: the sum drops
// the reduced dim, and the maximum that is added back is taken again in
// the reduced shape.
// CHECK-LABEL: func.func @logsumexp_two_dynamic
//  CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>)
//       CHECK:   %[[MAX:.*]] = sinter.max %[[X]] dims [2] keepdim
//       CHECK:   %[[M:.*]] = sinter.clamp %[[MAX]]
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[X]], %[[M]] : tensor<?x?x8xf32>, tensor<?x?x1xf32>
//       CHECK:   %[[EXP:.*]] = sinter.exp %[[SHIFT]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[EXP]] dims [2] : tensor<?x?x8xf32>
//       CHECK:   %[[MAX2:.*]] = sinter.max %[[X]] dims [2] : tensor<?x?x8xf32>
//       CHECK:   %[[M2:.*]] = sinter.clamp %[[MAX2]] min = -3.4028234663852886E+38 max = 3.4028234663852886E+38 : tensor<?x?xf32>
//       CHECK:   %[[LOG:.*]] = sinter.log %[[SUM]] : tensor<?x?xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[M2]], %[[LOG]] : tensor<?x?xf32>, tensor<?x?xf32>
//       CHECK:   return %[[R]]
func.func @logsumexp_two_dynamic(%x: tensor<?x?x8xf32>) -> tensor<?x?xf32> {
  %0 = sinter.logsumexp %x dims [2] : tensor<?x?x8xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Over size-1 dims logsumexp(x) is x exactly (inf and NaN included), not
// max + log(exp(0)): no op computes it.
// CHECK-LABEL: func.func @logsumexp_unit_dims
//  CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<?x1x8xf32>)
//   CHECK-NOT:   sinter.exp
//       CHECK:   %[[R:.*]] = sinter.reshape %[[X]] : tensor<?x1xf32> -> tensor<?xf32>
//   CHECK-NOT:   sinter.exp
//       CHECK:   return %[[R]], %[[Y]]
func.func @logsumexp_unit_dims(%x: tensor<?x1xf32>, %y: tensor<?x1x8xf32>) -> (tensor<?xf32>, tensor<?x1x8xf32>) {
  %0 = sinter.logsumexp %x dims [1] : tensor<?x1xf32>
  %1 = sinter.logsumexp %y dims [1] keepdim : tensor<?x1x8xf32>
  return %0, %1 : tensor<?xf32>, tensor<?x1x8xf32>
}

// -----

// var(x) = sum((x - mean x)^2) / (N - 1): N = 64 here.
// CHECK-LABEL: func.func @var_unbiased
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [1] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]]
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[SQ]] dims [1] : tensor<?x64xf32>
//       CHECK:   %[[N:.*]] = sinter.constant dense<6.300000e+01> : tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.div %[[SUM]], %[[N]] : tensor<?xf32>, tensor<f32>
//       CHECK:   return %[[R]]
func.func @var_unbiased(%x: tensor<?x64xf32>) -> tensor<?xf32> {
  %0 = sinter.var %x dims [1] : tensor<?x64xf32>
  return %0 : tensor<?xf32>
}

// -----

// var(x, unbiased = false) = mean((x - mean x)^2)
// CHECK-LABEL: func.func @var_biased
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [1] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]]
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[R:.*]] = sinter.mean %[[SQ]] dims [1] keepdim : tensor<?x64xf32>
//       CHECK:   return %[[R]]
func.func @var_biased(%x: tensor<?x64xf32>) -> tensor<?x1xf32> {
  %0 = sinter.var %x dims [1] keepdim unbiased = false : tensor<?x64xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// Over the dynamic batch dim N is counted at run time as sum(x^0).
// CHECK-LABEL: func.func @var_dynamic_count
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [0] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]]
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[SUM:.*]] = sinter.sum %[[SQ]] dims [0] : tensor<?x64xf32>
//       CHECK:   %[[ZERO:.*]] = sinter.constant dense<0.000000e+00> : tensor<f32>
//       CHECK:   %[[ONES:.*]] = sinter.pow %[[X]], %[[ZERO]]
//       CHECK:   %[[COUNT:.*]] = sinter.sum %[[ONES]] dims [0] : tensor<?x64xf32>
//       CHECK:   %[[ONE:.*]] = sinter.constant dense<1.000000e+00> : tensor<f32>
//       CHECK:   %[[DEN:.*]] = sinter.sub %[[COUNT]], %[[ONE]] : tensor<64xf32>, tensor<f32>
//       CHECK:   %[[R:.*]] = sinter.div %[[SUM]], %[[DEN]] : tensor<64xf32>, tensor<64xf32>
//       CHECK:   return %[[R]]
func.func @var_dynamic_count(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %0 = sinter.var %x dims [0] : tensor<?x64xf32>
  return %0 : tensor<64xf32>
}

// -----

// layer_norm(x) = (x - E[x]) * rsqrt(Var[x] + eps) * w + b, trailing dims
// CHECK-LABEL: func.func @layer_norm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [1, 2] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]] : tensor<?x4x8xf32>, tensor<?x1x1xf32>
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[VAR:.*]] = sinter.mean %[[SQ]] dims [1, 2] keepdim
//       CHECK:   %[[EPS:.*]] = sinter.constant dense<1.000000e-03> : tensor<f32>
//       CHECK:   %[[VE:.*]] = sinter.add %[[VAR]], %[[EPS]]
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt %[[VE]]
//       CHECK:   %[[N:.*]] = sinter.mul %[[D]], %[[RSTD]]
//       CHECK:   %[[S:.*]] = sinter.mul %[[N]], %[[W]] : tensor<?x4x8xf32>, tensor<4x8xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[B]] : tensor<?x4x8xf32>, tensor<4x8xf32>
//       CHECK:   return %[[R]]
func.func @layer_norm(%x: tensor<?x4x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<?x4x8xf32> {
  %0 = sinter.layer_norm %x weight(%w : tensor<4x8xf32>) bias(%b : tensor<4x8xf32>) shape [4, 8] eps = 1.0e-3 : tensor<?x4x8xf32>
  return %0 : tensor<?x4x8xf32>
}

// -----

// Without weight and bias, over the last dim only, default eps 1e-5.
// CHECK-LABEL: func.func @layer_norm_plain
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [2] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]]
//       CHECK:   sinter.mean %{{.*}} dims [2] keepdim
//       CHECK:   sinter.constant dense<9.99999974E-6> : tensor<f32>
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt
//       CHECK:   %[[R:.*]] = sinter.mul %[[D]], %[[RSTD]]
//       CHECK:   return %[[R]]
func.func @layer_norm_plain(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %0 = sinter.layer_norm %x shape [8] : tensor<?x4x8xf32>
  return %0 : tensor<?x4x8xf32>
}

// -----

// rms_norm(x) = x * rsqrt(E[x^2] + eps) * w over the trailing dims
// CHECK-LABEL: func.func @rms_norm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64xf32>)
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[X]], %[[X]]
//       CHECK:   %[[MS:.*]] = sinter.mean %[[SQ]] dims [1] keepdim
//       CHECK:   %[[EPS:.*]] = sinter.constant dense<9.99999997E-7> : tensor<f32>
//       CHECK:   %[[MSE:.*]] = sinter.add %[[MS]], %[[EPS]]
//       CHECK:   %[[RMS:.*]] = sinter.rsqrt %[[MSE]]
//       CHECK:   %[[N:.*]] = sinter.mul %[[X]], %[[RMS]]
//       CHECK:   %[[R:.*]] = sinter.mul %[[N]], %[[W]] : tensor<?x64xf32>, tensor<64xf32>
//       CHECK:   return %[[R]]
func.func @rms_norm(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.rms_norm %x weight(%w : tensor<64xf32>) shape [64] eps = 1.0e-6 : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// Without eps, rms_norm uses the machine epsilon of f32, 2^-23.
// CHECK-LABEL: func.func @rms_norm_default_eps
//       CHECK:   sinter.constant dense<1.1920929E-7> : tensor<f32>
//   CHECK-NOT:   sinter.rms_norm
func.func @rms_norm_default_eps(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.rms_norm %x shape [64] : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// group_norm(x) = normalize(x as [N, G, C/G * ...] over dim 2) * w[c] + b[c]
// CHECK-LABEL: func.func @group_norm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>)
//       CHECK:   %[[G:.*]] = sinter.reshape %[[X]] : tensor<?x64xf32> -> tensor<?x8x8xf32>
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[G]] dims [2] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[G]], %[[MEAN]] : tensor<?x8x8xf32>, tensor<?x8x1xf32>
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[VAR:.*]] = sinter.mean %[[SQ]] dims [2] keepdim
//       CHECK:   %[[VE:.*]] = sinter.add %[[VAR]], %{{.*}}
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt %[[VE]]
//       CHECK:   %[[N:.*]] = sinter.mul %[[D]], %[[RSTD]]
//       CHECK:   %[[BACK:.*]] = sinter.reshape %[[N]] : tensor<?x8x8xf32> -> tensor<?x64xf32>
//       CHECK:   %[[S:.*]] = sinter.mul %[[BACK]], %[[W]] : tensor<?x64xf32>, tensor<64xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[B]] : tensor<?x64xf32>, tensor<64xf32>
//       CHECK:   return %[[R]]
func.func @group_norm(%x: tensor<?x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.group_norm %x groups 8 weight(%w : tensor<64xf32>) bias(%b : tensor<64xf32>) : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// Two dynamic dims ([N, C, ?, ?], issue 19): no reshape can regroup them,
// so the group statistics are means of per-channel means ([N, C, 1, 1] as
// [N, G, C/G]), widened back to channels by an exact multiply with ones.
// CHECK-LABEL: func.func @group_norm_two_dynamic
//  CHECK-SAME: (%[[X:.*]]: tensor<2x4x?x?xf32>)
//       CHECK:   %[[CM:.*]] = sinter.mean %[[X]] dims [2, 3] keepdim : tensor<2x4x?x?xf32>
//       CHECK:   %[[G:.*]] = sinter.reshape %[[CM]] : tensor<2x4x1x1xf32> -> tensor<2x2x2xf32>
//       CHECK:   %[[GM:.*]] = sinter.mean %[[G]] dims [2] keepdim : tensor<2x2x2xf32>
//       CHECK:   %[[ONES:.*]] = sinter.constant dense<1.000000e+00> : tensor<1x1x2xf32>
//       CHECK:   %[[W:.*]] = sinter.mul %[[GM]], %[[ONES]] : tensor<2x2x1xf32>, tensor<1x1x2xf32>
//       CHECK:   %[[MEAN:.*]] = sinter.reshape %[[W]] : tensor<2x2x2xf32> -> tensor<2x4x1x1xf32>
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]] : tensor<2x4x?x?xf32>, tensor<2x4x1x1xf32>
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   sinter.mean %[[SQ]] dims [2, 3] keepdim
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt
//       CHECK:   %[[N:.*]] = sinter.mul %[[D]], %[[RSTD]] : tensor<2x4x?x?xf32>, tensor<2x4x1x1xf32>
//       CHECK:   return %[[N]]
func.func @group_norm_two_dynamic(%x: tensor<2x4x?x?xf32>) -> tensor<2x4x?x?xf32> {
  %0 = sinter.group_norm %x groups 2 : tensor<2x4x?x?xf32>
  return %0 : tensor<2x4x?x?xf32>
}

// -----

// With spatial dims the group holds C/G channels times the spatial size, and
// the per-channel affine broadcasts as [C, 1].
// CHECK-LABEL: func.func @group_norm_spatial
//  CHECK-SAME: (%[[X:.*]]: tensor<2x6x5xf32>, %[[W:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
//       CHECK:   %[[G:.*]] = sinter.reshape %[[X]] : tensor<2x6x5xf32> -> tensor<2x3x10xf32>
//       CHECK:   sinter.mean %[[G]] dims [2] keepdim
//       CHECK:   %[[BACK:.*]] = sinter.reshape %{{.*}} : tensor<2x3x10xf32> -> tensor<2x6x5xf32>
//       CHECK:   %[[WC:.*]] = sinter.reshape %[[W]] : tensor<6xf32> -> tensor<6x1xf32>
//       CHECK:   %[[S:.*]] = sinter.mul %[[BACK]], %[[WC]] : tensor<2x6x5xf32>, tensor<6x1xf32>
//       CHECK:   %[[BC:.*]] = sinter.reshape %[[B]] : tensor<6xf32> -> tensor<6x1xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[BC]] : tensor<2x6x5xf32>, tensor<6x1xf32>
//       CHECK:   return %[[R]]
func.func @group_norm_spatial(%x: tensor<2x6x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5xf32> {
  %0 = sinter.group_norm %x groups 3 weight(%w : tensor<6xf32>) bias(%b : tensor<6xf32>) : tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// A dynamic spatial dim with a static batch: the group size is dynamic.
// CHECK-LABEL: func.func @group_norm_dynamic_spatial
//       CHECK:   sinter.reshape %{{.*}} : tensor<2x6x?xf32> -> tensor<2x3x?xf32>
//       CHECK:   sinter.reshape %{{.*}} : tensor<2x3x?xf32> -> tensor<2x6x?xf32>
func.func @group_norm_dynamic_spatial(%x: tensor<2x6x?xf32>) -> tensor<2x6x?xf32> {
  %0 = sinter.group_norm %x groups 3 : tensor<2x6x?xf32>
  return %0 : tensor<2x6x?xf32>
}

// -----

// instance_norm(x) = normalize(x over dims 2..) * w[c] + b[c]
// CHECK-LABEL: func.func @instance_norm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4x5x6xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [2, 3] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]] : tensor<?x4x5x6xf32>, tensor<?x4x1x1xf32>
//       CHECK:   sinter.mean %{{.*}} dims [2, 3] keepdim
//       CHECK:   %[[N:.*]] = sinter.mul %[[D]], %{{.*}}
//       CHECK:   %[[WC:.*]] = sinter.reshape %[[W]] : tensor<4xf32> -> tensor<4x1x1xf32>
//       CHECK:   %[[S:.*]] = sinter.mul %[[N]], %[[WC]]
//       CHECK:   %[[BC:.*]] = sinter.reshape %[[B]] : tensor<4xf32> -> tensor<4x1x1xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[BC]]
//       CHECK:   return %[[R]]
func.func @instance_norm(%x: tensor<?x4x5x6xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x5x6xf32> {
  %0 = sinter.instance_norm %x weight(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<?x4x5x6xf32>
  return %0 : tensor<?x4x5x6xf32>
}

// -----

// batch_norm_train(x) = normalize(x over dims 0, 2..) * w[c] + b[c]
// CHECK-LABEL: func.func @batch_norm_training
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4x5xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [0, 2] keepdim
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[MEAN]] : tensor<?x4x5xf32>, tensor<1x4x1xf32>
//       CHECK:   %[[SQ:.*]] = sinter.mul %[[D]], %[[D]]
//       CHECK:   %[[VAR:.*]] = sinter.mean %[[SQ]] dims [0, 2] keepdim
//       CHECK:   %[[EPS:.*]] = sinter.constant dense<9.99999974E-6>
//       CHECK:   %[[VE:.*]] = sinter.add %[[VAR]], %[[EPS]]
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt %[[VE]]
//       CHECK:   %[[N:.*]] = sinter.mul %[[D]], %[[RSTD]]
//       CHECK:   %[[WC:.*]] = sinter.reshape %[[W]] : tensor<4xf32> -> tensor<4x1xf32>
//       CHECK:   %[[S:.*]] = sinter.mul %[[N]], %[[WC]]
//       CHECK:   %[[BC:.*]] = sinter.reshape %[[B]] : tensor<4xf32> -> tensor<4x1xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[BC]]
//       CHECK:   return %[[R]]
func.func @batch_norm_training(%x: tensor<?x4x5xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x5xf32> {
  %0 = sinter.batch_norm %x weight(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) training : tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}

// -----

// Rank 2 (the gemm_scale_batchnorm case): statistics over dim 0 only.
// CHECK-LABEL: func.func @batch_norm_training_rank2
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
//       CHECK:   %[[MEAN:.*]] = sinter.mean %[[X]] dims [0] keepdim
//       CHECK:   sinter.sub %[[X]], %[[MEAN]] : tensor<?x64xf32>, tensor<1x64xf32>
//       CHECK:   sinter.mean %{{.*}} dims [0] keepdim
//   CHECK-NOT:   sinter.reshape
func.func @batch_norm_training_rank2(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = sinter.batch_norm %x training : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// batch_norm_eval(x) = x * a + (b - mean * a), a = w * rsqrt(var + eps)
// CHECK-LABEL: func.func @batch_norm_inference
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4x5xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
//       CHECK:   %[[EPS:.*]] = sinter.constant dense<9.99999974E-6>
//       CHECK:   %[[VE:.*]] = sinter.add %[[V]], %[[EPS]] : tensor<4xf32>, tensor<f32>
//       CHECK:   %[[RSTD:.*]] = sinter.rsqrt %[[VE]] : tensor<4xf32>
//       CHECK:   %[[A:.*]] = sinter.mul %[[W]], %[[RSTD]] : tensor<4xf32>, tensor<4xf32>
//       CHECK:   %[[MA:.*]] = sinter.mul %[[M]], %[[A]] : tensor<4xf32>, tensor<4xf32>
//       CHECK:   %[[SHIFT:.*]] = sinter.sub %[[B]], %[[MA]] : tensor<4xf32>, tensor<4xf32>
//       CHECK:   %[[AC:.*]] = sinter.reshape %[[A]] : tensor<4xf32> -> tensor<4x1xf32>
//       CHECK:   %[[S:.*]] = sinter.mul %[[X]], %[[AC]] : tensor<?x4x5xf32>, tensor<4x1xf32>
//       CHECK:   %[[SC:.*]] = sinter.reshape %[[SHIFT]] : tensor<4xf32> -> tensor<4x1xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[SC]] : tensor<?x4x5xf32>, tensor<4x1xf32>
//       CHECK:   return %[[R]]
func.func @batch_norm_inference(%x: tensor<?x4x5xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x5xf32> {
  %0 = sinter.batch_norm %x mean(%m : tensor<4xf32>) var(%v : tensor<4xf32>) weight(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}

// -----

// Without weight and bias: a = rsqrt(var + eps), shift = -(mean * a).
// CHECK-LABEL: func.func @batch_norm_inference_plain
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
//       CHECK:   %[[VE:.*]] = sinter.add %[[V]], %{{.*}}
//       CHECK:   %[[A:.*]] = sinter.rsqrt %[[VE]]
//       CHECK:   %[[MA:.*]] = sinter.mul %[[M]], %[[A]]
//       CHECK:   %[[SHIFT:.*]] = sinter.neg %[[MA]]
//       CHECK:   %[[S:.*]] = sinter.mul %[[X]], %[[A]] : tensor<?x4xf32>, tensor<4xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[S]], %[[SHIFT]] : tensor<?x4xf32>, tensor<4xf32>
//       CHECK:   return %[[R]]
func.func @batch_norm_inference_plain(%x: tensor<?x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = sinter.batch_norm %x mean(%m : tensor<4xf32>) var(%v : tensor<4xf32>) : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Ops that are not decomposed stay as they are.
// CHECK-LABEL: func.func @untouched
//       CHECK:   sinter.sum
//       CHECK:   sinter.relu
//       CHECK:   sinter.matmul
func.func @untouched(%x: tensor<?x64xf32>, %w: tensor<8x64xf32>) -> tensor<?x8xf32> {
  %0 = sinter.sum %x dims [1] keepdim : tensor<?x64xf32>
  %1 = sinter.relu %x : tensor<?x64xf32>
  %2 = sinter.matmul %1, %w transpose_b : tensor<?x64xf32>, tensor<8x64xf32>
  return %2 : tensor<?x8xf32>
}
