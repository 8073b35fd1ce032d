// RUN: sinter-opt %s --split-input-file --sinter-pipeline=stop-after=simplify | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-pipeline="fp-mode=strict stop-after=simplify" | FileCheck %s --check-prefix=STRICT

// The pipeline runs sinter-decompose, then sinter-simplify with its fp-mode
// (and then hoist-params, stage-reductions, form-kernels and plan-kernels,
// which stop-after=simplify skips);
// sinter-opt verifies the IR after every pass.

// Inference batch_norm after a linear folds into the linear's weight and
// bias: one matmul on x, everything else param-only.
// CHECK-LABEL: func.func @linear_batch_norm
//  CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32> {{.*}}, %[[W:.*]]: tensor<32x64xf32> {{.*}}, %[[B:.*]]: tensor<32xf32> {{.*}}, %[[M:.*]]: tensor<32xf32> {{.*}}, %[[V:.*]]: tensor<32xf32> {{.*}})
//   CHECK-DAG:   %[[VE:.*]] = sinter.add %[[V]], %{{.*}} : tensor<32xf32>, tensor<f32>
//   CHECK-DAG:   %[[A:.*]] = sinter.rsqrt %[[VE]]
//   CHECK-DAG:   %[[AC:.*]] = sinter.reshape %[[A]] : tensor<32xf32> -> tensor<32x1xf32>
//   CHECK-DAG:   %[[WA:.*]] = sinter.mul %[[W]], %[[AC]] : tensor<32x64xf32>, tensor<32x1xf32>
//   CHECK-DAG:   %[[P:.*]] = sinter.matmul %[[X]], %[[WA]] transpose_b
//   CHECK-DAG:   %[[MA:.*]] = sinter.mul %[[M]], %[[A]]
//   CHECK-DAG:   %[[SHIFT:.*]] = sinter.neg %[[MA]]
//   CHECK-DAG:   %[[BA:.*]] = sinter.mul %[[B]], %[[A]]
//   CHECK-DAG:   %[[BIAS:.*]] = sinter.add %[[BA]], %[[SHIFT]]
//       CHECK:   %[[R:.*]] = sinter.add %[[P]], %[[BIAS]] : tensor<?x32xf32>, tensor<32xf32>
//       CHECK:   return %[[R]]
// In strict mode the batch_norm is only decomposed.
// STRICT-LABEL: func.func @linear_batch_norm
//       STRICT:   %[[P:.*]] = sinter.matmul %{{.*}}, %{{.*}} transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
//       STRICT:   %[[PB:.*]] = sinter.add %[[P]], %{{.*}}
//       STRICT:   %[[S:.*]] = sinter.mul %[[PB]], %{{.*}}
//       STRICT:   %[[R:.*]] = sinter.add %[[S]], %{{.*}}
//       STRICT:   return %[[R]]
func.func @linear_batch_norm(%x: tensor<?x64xf32> {sinter.role = "input"}, %w: tensor<32x64xf32> {sinter.role = "param"}, %b: tensor<32xf32> {sinter.role = "param"}, %m: tensor<32xf32> {sinter.role = "param"}, %v: tensor<32xf32> {sinter.role = "param"}) -> tensor<?x32xf32> {
  %h = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %hb = sinter.add %h, %b : tensor<?x32xf32>, tensor<32xf32>
  %y = sinter.batch_norm %hb mean(%m : tensor<32xf32>) var(%v : tensor<32xf32>) : tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// layer_norm over a size-1 feature dim: x - mean(x) is zero, so the result
// is the bias wherever x is finite (fast mode).
// CHECK-LABEL: func.func @layer_norm_unit
//  CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32> {{.*}}, %[[W:.*]]: tensor<1xf32> {{.*}}, %[[B:.*]]: tensor<1xf32> {{.*}})
//       CHECK:   %[[Z:.*]] = sinter.constant dense<0.000000e+00> : tensor<4x1xf32>
//       CHECK:   %[[R:.*]] = sinter.add %[[B]], %[[Z]] : tensor<1xf32>, tensor<4x1xf32>
//       CHECK:   return %[[R]]
// STRICT-LABEL: func.func @layer_norm_unit
//       STRICT:   sinter.sub
//       STRICT:   sinter.rsqrt
func.func @layer_norm_unit(%x: tensor<4x1xf32> {sinter.role = "input"}, %w: tensor<1xf32> {sinter.role = "param"}, %b: tensor<1xf32> {sinter.role = "param"}) -> tensor<4x1xf32> {
  %y = sinter.layer_norm %x weight(%w : tensor<1xf32>) bias(%b : tensor<1xf32>) shape [1] : tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}
