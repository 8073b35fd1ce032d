// Gemm -> bias -> relu in the sinter dialect, with a redundant `* 1` and a
// doubled relu that the dialect's folders remove under -canonicalize.
module @gemm_bias_relu attributes {sinter.dims = {B = 1024 : i64}} {
  func.func @forward(%x: tensor<?x8192xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<8192x8192xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]},
                     %bias: tensor<8192xf32> {sinter.role = "param", sinter.name = "bias", sinter.dim_names = [""]})
      -> (tensor<?x8192xf32> {sinter.name = "out0", sinter.dim_names = ["B", ""]}) {
    %h = sinter.matmul %x, %w transpose_b : tensor<?x8192xf32>, tensor<8192x8192xf32>
    %one = sinter.constant dense<1.0> : tensor<f32>
    %s = sinter.mul %h, %one : tensor<?x8192xf32>, tensor<f32>
    %b = sinter.add %s, %bias : tensor<?x8192xf32>, tensor<8192xf32>
    %r = sinter.relu %b : tensor<?x8192xf32>
    %rr = sinter.relu %r : tensor<?x8192xf32>
    return %rr : tensor<?x8192xf32>
  }
}
