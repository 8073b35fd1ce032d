// softmax and log_softmax along either dim; the maximum is subtracted first,
// so large logits do not overflow, and logsumexp of -inf rows stays -inf.
// RUN: sinterc run %s --print-values | FileCheck %s

module @softmax {
  func.func @forward() -> (tensor<2x3xf32> {sinter.name = "softmax_rows"},
                           tensor<2x3xf32> {sinter.name = "softmax_cols"},
                           tensor<2x3xf32> {sinter.name = "log_softmax_rows"},
                           tensor<1x2xf32> {sinter.name = "softmax_large"},
                           tensor<1xf32> {sinter.name = "logsumexp_large"},
                           tensor<1xf32> {sinter.name = "logsumexp_neg_inf"}) {
    %x = sinter.constant dense<[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>
    %z = sinter.constant dense<[[1000.0, 999.0]]> : tensor<1x2xf32>
    %n = sinter.constant dense<0xFF800000> : tensor<1x2xf32>
    %0 = sinter.softmax %x dim 1 : tensor<2x3xf32>
    %1 = sinter.softmax %x dim 0 : tensor<2x3xf32>
    %2 = sinter.log_softmax %x dim 1 : tensor<2x3xf32>
    %3 = sinter.softmax %z dim 1 : tensor<1x2xf32>
    %4 = sinter.logsumexp %z dims [1] : tensor<1x2xf32>
    %5 = sinter.logsumexp %n dims [1] : tensor<1x2xf32>
    return %0, %1, %2, %3, %4, %5
        : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>,
          tensor<1xf32>, tensor<1xf32>
  }
}

// CHECK-LABEL: {{^}}softmax_rows f32[2, 3]
// CHECK-NEXT:  [0] 0.0900306 0.244728 0.665241
// CHECK-NEXT:  [1] 0.333333 0.333333 0.333333
// CHECK-LABEL: {{^}}softmax_cols f32[2, 3]
// CHECK-NEXT:  [0] 0.731059 0.880797 0.952574
// CHECK-NEXT:  [1] 0.268941 0.119203 0.0474259
// CHECK-LABEL: {{^}}log_softmax_rows f32[2, 3]
// CHECK-NEXT:  [0] -2.40761 -1.40761 -0.407606
// CHECK-NEXT:  [1] -1.09861 -1.09861 -1.09861
// CHECK-LABEL: {{^}}softmax_large f32[1, 2]
// CHECK-NEXT:  [0] 0.731059 0.268941
// CHECK-LABEL: {{^}}logsumexp_large f32[1]
// CHECK-NEXT:  [] 1000.31
// CHECK-LABEL: {{^}}logsumexp_neg_inf f32[1]
// CHECK-NEXT:  [] -inf
