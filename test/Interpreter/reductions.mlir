// Every reduction over one dim, several dims in any order and all dims, with
// and without keepdim; argmax/argmin return the first index of a tie.
// RUN: sinterc run %s --print-values | FileCheck %s

module @reductions {
  func.func @forward() -> (tensor<2xf32> {sinter.name = "sum_rows"},
                           tensor<1x3xf32> {sinter.name = "sum_cols_keepdim"},
                           tensor<f32> {sinter.name = "sum_all"},
                           tensor<2xf32> {sinter.name = "mean_rows"},
                           tensor<2xf32> {sinter.name = "max_rows"},
                           tensor<3xf32> {sinter.name = "min_cols"},
                           tensor<2xf32> {sinter.name = "prod_rows"},
                           tensor<2xf32> {sinter.name = "logsumexp_rows"},
                           tensor<f32> {sinter.name = "logsumexp_all"},
                           tensor<2xi64> {sinter.name = "argmax_rows"},
                           tensor<2x1xi64> {sinter.name = "argmin_rows_keepdim"},
                           tensor<1xi64> {sinter.name = "argmax_ties"},
                           tensor<1xi64> {sinter.name = "argmin_ties"},
                           tensor<2xf32> {sinter.name = "var_rows"},
                           tensor<2xf32> {sinter.name = "var_rows_biased"},
                           tensor<f32> {sinter.name = "var_all"},
                           tensor<1x2x1xf32> {sinter.name = "sum_outer_inner"},
                           tensor<2xf32> {sinter.name = "mean_inner_outer"}) {
    %a = sinter.constant dense<[[1.0, -2.0, 3.0], [4.0, 0.0, -1.0]]> : tensor<2x3xf32>
    %b = sinter.constant dense<[[5.0, 1.0, 5.0, 1.0]]> : tensor<1x4xf32>
    %c = sinter.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
    %0 = sinter.sum %a dims [1] : tensor<2x3xf32>
    %1 = sinter.sum %a dims [0] keepdim : tensor<2x3xf32>
    %2 = sinter.sum %a dims [0, 1] : tensor<2x3xf32>
    %3 = sinter.mean %a dims [1] : tensor<2x3xf32>
    %4 = sinter.max %a dims [1] : tensor<2x3xf32>
    %5 = sinter.min %a dims [0] : tensor<2x3xf32>
    %6 = sinter.prod %a dims [1] : tensor<2x3xf32>
    %7 = sinter.logsumexp %a dims [1] : tensor<2x3xf32>
    %8 = sinter.logsumexp %c dims [0, 1, 2] : tensor<2x2x2xf32>
    %9 = sinter.argmax %a dims [1] : tensor<2x3xf32>
    %10 = sinter.argmin %a dims [1] keepdim : tensor<2x3xf32>
    %11 = sinter.argmax %b dims [1] : tensor<1x4xf32>
    %12 = sinter.argmin %b dims [1] : tensor<1x4xf32>
    %13 = sinter.var %a dims [1] : tensor<2x3xf32>
    %14 = sinter.var %a dims [1] unbiased = false : tensor<2x3xf32>
    %15 = sinter.var %c dims [2, 0, 1] : tensor<2x2x2xf32>
    %16 = sinter.sum %c dims [0, 2] keepdim : tensor<2x2x2xf32>
    %17 = sinter.mean %c dims [2, 0] : tensor<2x2x2xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14,
           %15, %16, %17
        : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2xf32>,
          tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>,
          tensor<f32>, tensor<2xi64>, tensor<2x1xi64>, tensor<1xi64>,
          tensor<1xi64>, tensor<2xf32>, tensor<2xf32>, tensor<f32>,
          tensor<1x2x1xf32>, tensor<2xf32>
  }
}

// CHECK-LABEL: {{^}}sum_rows f32[2]
// CHECK-NEXT:  [] 2 3
// CHECK-LABEL: {{^}}sum_cols_keepdim f32[1, 3]
// CHECK-NEXT:  [0] 5 -2 2
// CHECK-LABEL: {{^}}sum_all f32[]
// CHECK-NEXT:  [] 5
// CHECK-LABEL: {{^}}mean_rows f32[2]
// CHECK-NEXT:  [] 0.666667 1
// CHECK-LABEL: {{^}}max_rows f32[2]
// CHECK-NEXT:  [] 3 4
// CHECK-LABEL: {{^}}min_cols f32[3]
// CHECK-NEXT:  [] 1 -2 -1
// CHECK-LABEL: {{^}}prod_rows f32[2]
// CHECK-NEXT:  [] -6 -0
// CHECK-LABEL: {{^}}logsumexp_rows f32[2]
// CHECK-NEXT:  [] 3.13285 4.02474
// CHECK-LABEL: {{^}}logsumexp_all f32[]
// CHECK-NEXT:  [] 8.45834
// CHECK-LABEL: {{^}}argmax_rows i64[2]
// CHECK-NEXT:  [] 2 0
// CHECK-LABEL: {{^}}argmin_rows_keepdim i64[2, 1]
// CHECK-NEXT:  [0] 1
// CHECK-NEXT:  [1] 2
// CHECK-LABEL: {{^}}argmax_ties i64[1]
// CHECK-NEXT:  [] 0
// CHECK-LABEL: {{^}}argmin_ties i64[1]
// CHECK-NEXT:  [] 1
// CHECK-LABEL: {{^}}var_rows f32[2]
// CHECK-NEXT:  [] 6.33333 7
// CHECK-LABEL: {{^}}var_rows_biased f32[2]
// CHECK-NEXT:  [] 4.22222 4.66667
// CHECK-LABEL: {{^}}var_all f32[]
// CHECK-NEXT:  [] 6
// CHECK-LABEL: {{^}}sum_outer_inner f32[1, 2, 1]
// CHECK-NEXT:  [0, 0] 14
// CHECK-NEXT:  [0, 1] 22
// CHECK-LABEL: {{^}}mean_inner_outer f32[2]
// CHECK-NEXT:  [] 3.5 5.5
