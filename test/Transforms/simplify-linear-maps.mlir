// RUN: sinter-opt %s --split-input-file --sinter-decompose --sinter-simplify | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-decompose --sinter-simplify=fp-mode=strict | FileCheck %s --check-prefix=STRICT

// Linear maps after a linear layer that fold into its weights
// (SimplifyLinearMaps.cpp). They reassociate, so strict mode keeps the
// full GEMMs.

// mean(x @ W^T + b - p) = x @ mean_rows(W)^T + mean(b - p): the param
// subtracted after the linear regroups into its bias, and the mean over N
// makes a matrix-vector product.
// CHECK-LABEL: func.func @sub_param_before_mean
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[P:.*]]: tensor<32xf32> {{.*}})
//       CHECK:   %[[BP:.*]] = sinter.sub %[[B]], %[[P]] : tensor<32xf32>, tensor<32xf32>
//       CHECK:   %[[MB:.*]] = sinter.mean %[[BP]] dims [0] keepdim
//       CHECK:   %[[MW:.*]] = sinter.mean %[[W]] dims [0] keepdim : tensor<32x64xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %[[X]], %[[MW]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
//       CHECK:   sinter.add %[[Y]], %[[MB]]
// STRICT-LABEL: func.func @sub_param_before_mean
//       STRICT:   sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
func.func @sub_param_before_mean(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %p: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %d = sinter.sub %hb, %p : tensor<?x32xf32>, tensor<32xf32>
  %m = sinter.mean %d dims [1] keepdim : tensor<?x32xf32>
  return %m : tensor<?x1xf32>
}

// -----

// Average pooling after a linear: mean over groups of 4 adjacent columns
// = a linear with the weight's rows (and the bias) averaged in groups.
// CHECK-LABEL: func.func @avg_pool
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}})
//       CHECK:   %[[WG:.*]] = sinter.reshape %[[W]] : tensor<32x64xf32> -> tensor<8x4x64xf32>
//       CHECK:   %[[WM:.*]] = sinter.mean %[[WG]] dims [1] : tensor<8x4x64xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %[[X]], %[[WM]] transpose_b : tensor<?x64xf32>, tensor<8x64xf32>
//       CHECK:   %[[BG:.*]] = sinter.reshape %[[B]] : tensor<32xf32> -> tensor<8x4xf32>
//       CHECK:   %[[BM:.*]] = sinter.mean %[[BG]] dims [1] : tensor<8x4xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[Y]], %[[BM]] : tensor<?x8xf32>, tensor<8xf32>
//       CHECK:   return %[[R]]
// STRICT-LABEL: func.func @avg_pool
//       STRICT:   sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
func.func @avg_pool(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x8xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %r = sinter.reshape %hb : tensor<?x32xf32> -> tensor<?x8x4xf32>
  %m = sinter.mean %r dims [2] : tensor<?x8x4xf32>
  return %m : tensor<?x8xf32>
}

// -----

// (x @ W^T + b) @ V = x @ (W^T @ V) + b @ V: a [64, 4] weight per run
// instead of a [32, 64] and a [32, 4] one.
// CHECK-LABEL: func.func @matmul_of_linear
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[V:.*]]: tensor<32x4xf32> {{.*}})
//       CHECK:   %[[WV:.*]] = sinter.matmul %[[W]], %[[V]] transpose_a : tensor<32x64xf32>, tensor<32x4xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %[[X]], %[[WV]] : tensor<?x64xf32>, tensor<64x4xf32>
//       CHECK:   %[[BR:.*]] = sinter.reshape %[[B]] : tensor<32xf32> -> tensor<1x32xf32>
//       CHECK:   %[[BV:.*]] = sinter.matmul %[[BR]], %[[V]] : tensor<1x32xf32>, tensor<32x4xf32>
//       CHECK:   %[[BV1:.*]] = sinter.reshape %[[BV]] : tensor<1x4xf32> -> tensor<4xf32>
//       CHECK:   sinter.add %[[Y]], %[[BV1]]
func.func @matmul_of_linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %v: tensor<32x4xf32> {sinter.role = "param"}) -> tensor<?x4xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %o = sinter.matmul %hb, %v : tensor<?x32xf32>, tensor<32x4xf32>
  return %o : tensor<?x4xf32>
}

// -----

// y * c + y = y * (1 + c), and the factor folds into the weights.
// CHECK-LABEL: func.func @factor
//       CHECK:   %[[C:.*]] = sinter.constant dense<1.500000e+00> : tensor<f32>
//       CHECK:   %[[WC:.*]] = sinter.mul %{{.*}}, %[[C]] : tensor<32x64xf32>, tensor<f32>
//       CHECK:   sinter.matmul %{{.*}}, %[[WC]] transpose_b
//   CHECK-NOT:   sinter.add
func.func @factor(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %c = sinter.constant dense<0.5> : tensor<f32>
  %s = sinter.mul %h, %c : tensor<?x32xf32>, tensor<f32>
  %o = sinter.add %s, %h : tensor<?x32xf32>, tensor<?x32xf32>
  return %o : tensor<?x32xf32>
}

// -----

// Training batch norm cancels the per-feature bias of the linear before it:
// (h + b) - mean_batch(h + b) = h - mean_batch(h); the bias is never read.
// CHECK-LABEL: func.func @bn
//  CHECK-SAME: (%{{.*}}: tensor<?x64xf32>, %{{.*}}: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}})
//   CHECK-NOT:   %[[B]]
//       CHECK:   %[[H:.*]] = sinter.matmul
//       CHECK:   %[[M:.*]] = sinter.mean %[[H]] dims [0] keepdim
//       CHECK:   sinter.sub %[[H]], %[[M]]
//   CHECK-NOT:   %[[B]]
//       CHECK:   return
func.func @bn(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %n = sinter.batch_norm %hb training : tensor<?x32xf32>
  return %n : tensor<?x32xf32>
}

// -----

// relu(linear(x)) * exp(p) = relu(linear(x) * exp(p)): exp(p) > 0 moves
// through the relu and folds into the weights and the bias.
// CHECK-LABEL: func.func @relu_scale
//       CHECK:   %[[S:.*]] = sinter.exp
//       CHECK:   %[[SC:.*]] = sinter.reshape %[[S]] : tensor<32xf32> -> tensor<32x1xf32>
//       CHECK:   %[[WS:.*]] = sinter.mul %{{.*}}, %[[SC]] : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   sinter.matmul %{{.*}}, %[[WS]] transpose_b
//       CHECK:   sinter.relu
//       CHECK-NEXT: return
func.func @relu_scale(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %p: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %r = sinter.relu %hb : tensor<?x32xf32>
  %s = sinter.exp %p : tensor<32xf32>
  %o = sinter.mul %r, %s : tensor<?x32xf32>, tensor<32xf32>
  return %o : tensor<?x32xf32>
}

// -----

// linear(x * s) = x @ (W * s)^T: a scale of the input's columns scales the
// weight's columns.
// CHECK-LABEL: func.func @input_scale
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[S:.*]]: tensor<64xf32> {{.*}})
//       CHECK:   %[[SR:.*]] = sinter.reshape %[[S]] : tensor<64xf32> -> tensor<1x64xf32>
//       CHECK:   %[[WS:.*]] = sinter.mul %[[W]], %[[SR]] : tensor<32x64xf32>, tensor<1x64xf32>
//       CHECK:   sinter.matmul %[[X]], %[[WS]] transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
func.func @input_scale(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %s: tensor<64xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %xs = sinter.mul %x, %s : tensor<?x64xf32>, tensor<64xf32>
  %h = sinter.matmul %xs, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  return %h : tensor<?x32xf32>
}

// -----

// Must not fire: V has more columns than W^T (the product would grow); p
// varies along the batch (the centering does not cancel it); the scale
// after the relu may be negative; the shift is subtracted from the param.
// CHECK-LABEL: func.func @linear_maps_not
//       CHECK:   sinter.matmul %{{.*}}, %{{.*}} : tensor<?x32xf32>, tensor<32x64xf32>
//       CHECK:   %[[HQ:.*]] = sinter.add %{{.*}}, %{{.*}} : tensor<?x32xf32>, tensor<?x32xf32>
//       CHECK:   sinter.sub %[[HQ]], %{{.*}} : tensor<?x32xf32>, tensor<1x32xf32>
//       CHECK:   %[[R:.*]] = sinter.relu
//       CHECK:   sinter.mul %[[R]], %{{.*}} : tensor<?x32xf32>, tensor<32xf32>
func.func @linear_maps_not(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %v: tensor<32x64xf32> {sinter.role = "param"}, %q: tensor<?x32xf32>, %s: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %o = sinter.matmul %h, %v : tensor<?x32xf32>, tensor<32x64xf32>
  %h2 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hq = sinter.add %h2, %q : tensor<?x32xf32>, tensor<?x32xf32>
  %m = sinter.mean %hq dims [0] keepdim : tensor<?x32xf32>
  %c = sinter.sub %hq, %m : tensor<?x32xf32>, tensor<1x32xf32>
  %h3 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %r = sinter.relu %h3 : tensor<?x32xf32>
  %rs = sinter.mul %r, %s : tensor<?x32xf32>, tensor<32xf32>
  return %o, %c, %rs : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}
