// A model whose param-only part was hoisted into @prepare: @prepare takes the
// params it names (sinter.name), and @forward receives its results through
// arguments marked sinter.prepared = <result index>, and lists the model's
// own arguments in sinter.original_arguments. Both forms of the model
// give the same outputs from the same inputs and params.
// RUN: rm -rf %t && mkdir -p %t/params
// RUN: %python -c "import numpy; numpy.save('%t/x.npy', numpy.array([[1, 2, 3], [4, 5, 6]], dtype='<f4')); numpy.save('%t/params/w.npy', numpy.array([[1, 0, -1], [2, 1, 0]], dtype='<f4'))"
// RUN: sinterc run %s --model=direct --inputs %t/x.npy --params-dir %t/params --print-values | FileCheck %s
// RUN: sinterc run %s --model=hoisted --inputs %t/x.npy --params-dir %t/params --print-values | FileCheck %s

module {
  // sum(x @ w^T, dim=1)
  module @direct attributes {sinter.dims = {B = 4 : i64}} {
    func.func @forward(%x: tensor<?x3xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %w: tensor<2x3xf32> {sinter.role = "param", sinter.name = "w"})
        -> (tensor<?x1xf32> {sinter.name = "s"}) {
      %h = sinter.matmul %x, %w transpose_b : tensor<?x3xf32>, tensor<2x3xf32>
      %s = sinter.sum %h dims [1] keepdim : tensor<?x2xf32>
      return %s : tensor<?x1xf32>
    }
  }

  // x . colsum(w), colsum(w) computed once by @prepare
  module @hoisted attributes {sinter.dims = {B = 4 : i64}} {
    func.func @prepare(%w: tensor<2x3xf32> {sinter.role = "param", sinter.name = "w"}) -> tensor<3xf32> {
      %c = sinter.sum %w dims [0] : tensor<2x3xf32>
      return %c : tensor<3xf32>
    }
    func.func @forward(%x: tensor<?x3xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                       %colsum: tensor<3xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64, sinter.name = "prepared0"})
        -> (tensor<?x1xf32> {sinter.name = "s"})
        attributes {sinter.original_arguments = [
          {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""], sinter.type = tensor<?x3xf32>},
          {sinter.role = "param", sinter.name = "w", sinter.type = tensor<2x3xf32>}]} {
      %m = sinter.mul %x, %colsum : tensor<?x3xf32>, tensor<3xf32>
      %s = sinter.sum %m dims [1] keepdim : tensor<?x3xf32>
      return %s : tensor<?x1xf32>
    }
  }
}

// CHECK-LABEL: {{^}}s f32[2, 1]
// CHECK-NEXT:  [0] 2
// CHECK-NEXT:  [1] 11
