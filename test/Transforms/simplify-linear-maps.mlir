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

// Must not fire: W^T @ V [64, 64] costs more per row than W^T [64, 8] and
// V [8, 64] together (64 * 64 > 64 * 8 + 8 * 64); p
// varies along the batch (the centering does not cancel it); the scale
// after the relu may be negative; the shift is subtracted from the param.
// CHECK-LABEL: func.func @linear_maps_not
//       CHECK:   sinter.matmul %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x64xf32>
//       CHECK:   %[[HQ:.*]] = sinter.add %{{.*}}, %{{.*}} : tensor<?x32xf32>, tensor<?x32xf32>
//       CHECK:   sinter.sub %[[HQ]], %{{.*}} : tensor<?x32xf32>, tensor<1x32xf32>
//       CHECK:   %[[R:.*]] = sinter.relu
//       CHECK:   sinter.mul %[[R]], %{{.*}} : tensor<?x32xf32>, tensor<32xf32>
func.func @linear_maps_not(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %w8: tensor<8x64xf32> {sinter.role = "param"}, %v: tensor<8x64xf32> {sinter.role = "param"}, %q: tensor<?x32xf32>, %s: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = sinter.matmul %x, %w8 transpose_b : tensor<?x64xf32>, tensor<8x64xf32>
  %o = sinter.matmul %h, %v : tensor<?x8xf32>, tensor<8x64xf32>
  %h2 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hq = sinter.add %h2, %q : tensor<?x32xf32>, tensor<?x32xf32>
  %m = sinter.mean %hq dims [0] keepdim : tensor<?x32xf32>
  %c = sinter.sub %hq, %m : tensor<?x32xf32>, tensor<1x32xf32>
  %h3 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %r = sinter.relu %h3 : tensor<?x32xf32>
  %rs = sinter.mul %r, %s : tensor<?x32xf32>, tensor<32xf32>
  return %o, %c, %rs : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// (x @ W^T + b) @ V folds also when V is wider than W^T, as long as the
// folded weight costs no more: [64, 48] per row against [64, 32] + [32, 48].
// CHECK-LABEL: func.func @matmul_of_linear_wider
//       CHECK:   %[[WV:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_a : tensor<32x64xf32>, tensor<32x48xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %{{.*}}, %[[WV]] : tensor<?x64xf32>, tensor<64x48xf32>
//   CHECK-NOT:   tensor<?x32xf32>
// STRICT-LABEL: func.func @matmul_of_linear_wider
//       STRICT:   sinter.matmul %{{.*}}, %{{.*}} : tensor<?x32xf32>, tensor<32x48xf32>
func.func @matmul_of_linear_wider(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %v: tensor<32x48xf32> {sinter.role = "param"}) -> tensor<?x48xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %o = sinter.matmul %hb, %v : tensor<?x32xf32>, tensor<32x48xf32>
  return %o : tensor<?x48xf32>
}

// -----

// The other grouping of [B, 32] as [B, 4, 8]: a sum over dim 1 adds
// columns 8 apart, and the weight's rows add the same way (dim 0 of
// [4, 8, 64]).
// CHECK-LABEL: func.func @strided_group_sum
//       CHECK:   %[[WG:.*]] = sinter.reshape %{{.*}} : tensor<32x64xf32> -> tensor<4x8x64xf32>
//       CHECK:   %[[WS:.*]] = sinter.sum %[[WG]] dims [0] : tensor<4x8x64xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %{{.*}}, %[[WS]] transpose_b : tensor<?x64xf32>, tensor<8x64xf32>
//       CHECK:   %[[BG:.*]] = sinter.reshape %{{.*}} : tensor<32xf32> -> tensor<4x8xf32>
//       CHECK:   %[[BS:.*]] = sinter.sum %[[BG]] dims [0] : tensor<4x8xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[Y]], %[[BS]]
//       CHECK:   sinter.reshape %[[R]] : tensor<?x8xf32> -> tensor<?x1x8xf32>
func.func @strided_group_sum(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1x8xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %r = sinter.reshape %hb : tensor<?x32xf32> -> tensor<?x4x8xf32>
  %m = sinter.sum %r dims [1] keepdim : tensor<?x4x8xf32>
  return %m : tensor<?x1x8xf32>
}

// -----

// A scalar param subtracted before the pooling is a bias broadcast along
// the row (c + 0 = c): it pools like a bias vector.
// CHECK-LABEL: func.func @scalar_bias_pool
//  CHECK-SAME: %[[C:[^:]*]]: tensor<f32> {sinter.role = "param"}
//       CHECK:   %[[Z:.*]] = sinter.constant dense<0.000000e+00> : tensor<32xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<8x64xf32>
//       CHECK:   %[[CB:.*]] = sinter.add %[[C]], %[[Z]] : tensor<f32>, tensor<32xf32>
//       CHECK:   %[[CG:.*]] = sinter.reshape %[[CB]] : tensor<32xf32> -> tensor<8x4xf32>
//       CHECK:   %[[CM:.*]] = sinter.mean %[[CG]] dims [1]
//       CHECK:   sinter.sub %[[Y]], %[[CM]] : tensor<?x8xf32>, tensor<8xf32>
func.func @scalar_bias_pool(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %c: tensor<f32> {sinter.role = "param"}) -> tensor<?x8xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.sub %h, %c : tensor<?x32xf32>, tensor<f32>
  %r = sinter.reshape %hb : tensor<?x32xf32> -> tensor<?x8x4xf32>
  %m = sinter.mean %r dims [2] : tensor<?x8x4xf32>
  return %m : tensor<?x8xf32>
}

// -----

// p - x @ W^T = x @ (-W)^T + p (exact: negation commutes with every
// product and sum), a linear layer whose mean is a matrix-vector product.
// CHECK-LABEL: func.func @param_minus_linear
//       CHECK:   %[[M:.*]] = sinter.mean %{{.*}} dims [0] keepdim : tensor<32x64xf32>
//       CHECK:   %[[N:.*]] = sinter.neg %[[M]] : tensor<1x64xf32>
//       CHECK:   sinter.matmul %{{.*}}, %[[N]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
// STRICT-LABEL: func.func @param_minus_linear
//       STRICT:   %[[N:.*]] = sinter.neg %{{.*}} : tensor<32x64xf32>
//       STRICT:   %[[H:.*]] = sinter.matmul %{{.*}}, %[[N]] transpose_b
//       STRICT:   sinter.add %[[H]], %{{.*}} : tensor<?x32xf32>, tensor<32xf32>
func.func @param_minus_linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %p: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %d = sinter.sub %p, %h : tensor<32xf32>, tensor<?x32xf32>
  %m = sinter.mean %d dims [1] keepdim : tensor<?x32xf32>
  return %m : tensor<?x1xf32>
}

// -----

// Compositions: average pooling makes a linear layer with 8 outputs, whose
// product with V [8, 2] folds again: one [64, 2] weight per run.
// CHECK-LABEL: func.func @pool_then_matvec
//       CHECK:   %[[WM:.*]] = sinter.mean %{{.*}} dims [1] : tensor<8x4x64xf32>
//       CHECK:   %[[WV:.*]] = sinter.matmul %[[WM]], %{{.*}} transpose_a : tensor<8x64xf32>, tensor<8x2xf32>
//       CHECK:   sinter.matmul %{{.*}}, %[[WV]] : tensor<?x64xf32>, tensor<64x2xf32>
//   CHECK-NOT:   sinter.matmul %{{.*}} : tensor<?x
func.func @pool_then_matvec(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %v: tensor<8x2xf32> {sinter.role = "param"}) -> tensor<?x2xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %r = sinter.reshape %hb : tensor<?x32xf32> -> tensor<?x8x4xf32>
  %m = sinter.mean %r dims [2] : tensor<?x8x4xf32>
  %o = sinter.matmul %m, %v : tensor<?x8xf32>, tensor<8x2xf32>
  return %o : tensor<?x2xf32>
}

// -----

// A scalar factor and a per-column scale, then a sum over the features:
// both scales join the weight, which the sum reduces to one row.
// CHECK-LABEL: func.func @scale_then_sum
//       CHECK:   %[[WS:.*]] = sinter.mul %{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   %[[WR:.*]] = sinter.sum %[[WS]] dims [0] keepdim : tensor<32x64xf32>
//       CHECK:   sinter.matmul %{{.*}}, %[[WR]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
func.func @scale_then_sum(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %s: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %c = sinter.constant dense<0.5> : tensor<f32>
  %hc = sinter.mul %c, %hb : tensor<f32>, tensor<?x32xf32>
  %hs = sinter.mul %s, %hc : tensor<32xf32>, tensor<?x32xf32>
  %m = sinter.sum %hs dims [1] keepdim : tensor<?x32xf32>
  return %m : tensor<?x1xf32>
}

// -----

// y + c * y = y * (1 + c), y * p - y = y * (p - 1), y - y * c = y * (1 - c):
// each factor folds into the weight of y's linear.
// CHECK-LABEL: func.func @factor_positions
//  CHECK-SAME: (%[[X:[^:]*]]: tensor<?x64xf32>, %[[W:[^:]*]]: tensor<32x64xf32> {{.*}}, %[[W2:[^:]*]]: tensor<32x64xf32> {{.*}}, %[[W3:[^:]*]]: tensor<32x64xf32> {{.*}}, %[[P:[^:]*]]: tensor<32xf32> {{.*}})
//   CHECK-DAG:   %[[M2:.*]] = sinter.constant dense<-2.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[M1:.*]] = sinter.constant dense<-1.000000e+00> : tensor<f32>
//   CHECK-DAG:   %[[FOUR:.*]] = sinter.constant dense<4.000000e+00> : tensor<f32>
//       CHECK:   sinter.mul %[[W]], %[[FOUR]]
//       CHECK:   %[[PM:.*]] = sinter.add %[[P]], %[[M1]]
//       CHECK:   %[[PR:.*]] = sinter.reshape %[[PM]] : tensor<32xf32> -> tensor<32x1xf32>
//       CHECK:   sinter.mul %[[W2]], %[[PR]]
//       CHECK:   sinter.mul %[[W3]], %[[M2]]
//   CHECK-NOT:   sinter.sub
// STRICT-LABEL: func.func @factor_positions
//       STRICT:   sinter.sub
func.func @factor_positions(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %w2: tensor<32x64xf32> {sinter.role = "param"}, %w3: tensor<32x64xf32> {sinter.role = "param"}, %p: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>) {
  %c = sinter.constant dense<3.0> : tensor<f32>
  %y = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %yc = sinter.mul %c, %y : tensor<f32>, tensor<?x32xf32>
  %a = sinter.add %y, %yc : tensor<?x32xf32>, tensor<?x32xf32>
  %y2 = sinter.matmul %x, %w2 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %y2p = sinter.mul %y2, %p : tensor<?x32xf32>, tensor<32xf32>
  %d = sinter.sub %y2p, %y2 : tensor<?x32xf32>, tensor<?x32xf32>
  %y3 = sinter.matmul %x, %w3 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %y3c = sinter.mul %y3, %c : tensor<?x32xf32>, tensor<f32>
  %e = sinter.sub %y3, %y3c : tensor<?x32xf32>, tensor<?x32xf32>
  return %a, %d, %e : tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// batch_norm_train(b + h) and batch_norm_train(h - b) both drop the bias:
// after CSE they are the same value, and b is never read.
// CHECK-LABEL: func.func @bn_positions
//       CHECK:   %[[H:.*]] = sinter.matmul
//       CHECK:   %[[M:.*]] = sinter.mean %[[H]] dims [0] keepdim
//       CHECK:   %[[C:.*]] = sinter.sub %[[H]], %[[M]]
//   CHECK-NOT:   sinter.add %{{.*}}, %[[H]]
//       CHECK:   %[[N:.*]] = sinter.mul %[[C]], %{{.*}} : tensor<?x32xf32>, tensor<1x32xf32>
//       CHECK:   return %[[N]], %[[N]]
func.func @bn_positions(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %b, %h : tensor<32xf32>, tensor<?x32xf32>
  %n = sinter.batch_norm %hb training : tensor<?x32xf32>
  %h2 = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hs = sinter.sub %h2, %b : tensor<?x32xf32>, tensor<32xf32>
  %n2 = sinter.batch_norm %hs training : tensor<?x32xf32>
  return %n, %n2 : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Column scales in every position: s * (h + b), h / s (1 / s prepared), a
// sigmoid (known positive) after leaky_relu, a positive constant after
// relu; each reaches the weight. Strict mode moves only the constant into
// the relu (exact), not into the weight.
// CHECK-LABEL: func.func @scale_positions
//       CHECK:   sinter.mul %{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   %[[INV:.*]] = sinter.div %{{.*}}, %{{.*}} : tensor<f32>, tensor<32xf32>
//       CHECK:   %[[INVR:.*]] = sinter.reshape %[[INV]] : tensor<32xf32> -> tensor<32x1xf32>
//       CHECK:   sinter.mul %{{.*}}, %[[INVR]] : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   %[[SIG:.*]] = sinter.sigmoid
//       CHECK:   %[[SIGR:.*]] = sinter.reshape %[[SIG]]
//       CHECK:   sinter.mul %{{.*}}, %[[SIGR]] : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   %[[L:.*]] = sinter.leaky_relu %{{.*}} alpha = 1.000000e-01
//       CHECK:   sinter.mul %{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<32x1xf32>
//       CHECK:   %[[R:.*]] = sinter.relu
//       CHECK:   return %{{.*}}, %{{.*}}, %[[L]], %[[R]]
// STRICT-LABEL: func.func @scale_positions
//       STRICT:   %[[L:.*]] = sinter.leaky_relu
//       STRICT:   sinter.mul %{{.*}}, %[[L]] : tensor<32xf32>, tensor<?x32xf32>
//       STRICT:   %[[H:.*]] = sinter.mul %{{.*}}, %{{.*}} : tensor<?x32xf32>, tensor<32xf32>
//       STRICT:   sinter.relu %[[H]]
func.func @scale_positions(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %w2: tensor<32x64xf32> {sinter.role = "param"}, %w3: tensor<32x64xf32> {sinter.role = "param"}, %w4: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %s: tensor<32xf32> {sinter.role = "param"}) -> (tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %a = sinter.mul %s, %hb : tensor<32xf32>, tensor<?x32xf32>
  %h2 = sinter.matmul %x, %w2 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %d = sinter.div %h2, %s : tensor<?x32xf32>, tensor<32xf32>
  %h3 = sinter.matmul %x, %w3 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %l = sinter.leaky_relu %h3 alpha = 0.1 : tensor<?x32xf32>
  %e = sinter.sigmoid %s : tensor<32xf32>
  %le = sinter.mul %e, %l : tensor<32xf32>, tensor<?x32xf32>
  %h4 = sinter.matmul %x, %w4 transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %r = sinter.relu %h4 : tensor<?x32xf32>
  %c = sinter.constant dense<2.0> : tensor<32xf32>
  %rc = sinter.mul %r, %c : tensor<?x32xf32>, tensor<32xf32>
  return %a, %d, %le, %rc : tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Any static split of the features, reduced over any of its parts: [B, 32]
// as [B, 2, 4, 4], mean over the 2 and the last 4 (a stride and a group)
// keeps 4 outputs; the weight's rows split and average the same way.
// CHECK-LABEL: func.func @split_mean
//       CHECK:   %[[WS:.*]] = sinter.reshape %{{.*}} : tensor<32x64xf32> -> tensor<2x4x4x64xf32>
//       CHECK:   %[[WM:.*]] = sinter.mean %[[WS]] dims [0, 2] : tensor<2x4x4x64xf32>
//       CHECK:   %[[Y:.*]] = sinter.matmul %{{.*}}, %[[WM]] transpose_b : tensor<?x64xf32>, tensor<4x64xf32>
//       CHECK:   %[[BS:.*]] = sinter.reshape %{{.*}} : tensor<32xf32> -> tensor<2x4x4xf32>
//       CHECK:   %[[BM:.*]] = sinter.mean %[[BS]] dims [0, 2] : tensor<2x4x4xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[Y]], %[[BM]] : tensor<?x4xf32>, tensor<4xf32>
//       CHECK:   sinter.reshape %[[R]] : tensor<?x4xf32> -> tensor<?x1x4x1xf32>
func.func @split_mean(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1x4x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %r = sinter.reshape %hb : tensor<?x32xf32> -> tensor<?x2x4x4xf32>
  %m = sinter.mean %r dims [1, 3] keepdim : tensor<?x2x4x4xf32>
  return %m : tensor<?x1x4x1xf32>
}

// -----

// p - (x @ W^T + b) = x @ (-W)^T + (p - b): a linear layer again, whose sum
// over the features is a matrix-vector product. It regroups p and b, so
// strict mode keeps it.
// CHECK-LABEL: func.func @param_minus_biased_linear
//  CHECK-SAME: %[[B:[^:]*]]: tensor<32xf32> {sinter.role = "param"}, %[[P:[^:]*]]: tensor<32xf32> {sinter.role = "param"})
//       CHECK:   %[[N:.*]] = sinter.neg %{{.*}} : tensor<32x64xf32>
//       CHECK:   %[[PB:.*]] = sinter.sub %[[P]], %[[B]] : tensor<32xf32>, tensor<32xf32>
//       CHECK:   %[[S:.*]] = sinter.sum %[[PB]] dims [0] keepdim
//       CHECK:   %[[NS:.*]] = sinter.sum %[[N]] dims [0] keepdim
//       CHECK:   %[[Y:.*]] = sinter.matmul %{{.*}}, %[[NS]] transpose_b : tensor<?x64xf32>, tensor<1x64xf32>
//       CHECK:   sinter.add %[[Y]], %[[S]]
// STRICT-LABEL: func.func @param_minus_biased_linear
//   STRICT-NOT:   sinter.neg
func.func @param_minus_biased_linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %p: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x1xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %d = sinter.sub %p, %hb : tensor<32xf32>, tensor<?x32xf32>
  %m = sinter.sum %d dims [1] keepdim : tensor<?x32xf32>
  return %m : tensor<?x1xf32>
}

// -----

// A reshape of a scalar has no columns to split: nothing folds (IR fuzzer
// seed 1239 crashed here).
// CHECK-LABEL: func.func @scalar_reshape_sum
// STRICT-LABEL: func.func @scalar_reshape_sum
//       STRICT:   sinter.reshape
//       STRICT:   sinter.sum
func.func @scalar_reshape_sum(%x: tensor<?xf32>) -> tensor<f32> {
  %m = sinter.max %x dims [0] : tensor<?xf32>
  %r = sinter.reshape %m : tensor<f32> -> tensor<1xf32>
  %s = sinter.sum %r dims [0] : tensor<1xf32>
  return %s : tensor<f32>
}
