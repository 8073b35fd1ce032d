// sinter.kernel regions run their body on their operands; yield gives the
// results, including an operand passed straight through.
// RUN: %python -c "import numpy; numpy.save('%t-x.npy', numpy.array([[1, -2, 3], [-4, 5, -6]], dtype='<f4')); numpy.save('%t-b.npy', numpy.array([1, 1, -1], dtype='<f4'))"
// RUN: sinterc run %s --inputs %t-x.npy %t-b.npy --print-values | FileCheck %s

module @kernel attributes {sinter.dims = {B = 4 : i64}} {
  func.func @forward(%x: tensor<?x3xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %b: tensor<3xf32> {sinter.role = "input", sinter.name = "b"})
      -> (tensor<?x3xf32> {sinter.name = "relu"},
          tensor<?x1xf32> {sinter.name = "rowsum"},
          tensor<3xf32> {sinter.name = "passed"}) {
    %r, %s, %p = sinter.kernel row_reduction (%x, %b)
        : (tensor<?x3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<?x1xf32>, tensor<3xf32>) {
    ^bb0(%a: tensor<?x3xf32>, %c: tensor<3xf32>):
      %t = sinter.add %a, %c : tensor<?x3xf32>, tensor<3xf32>
      %u = sinter.relu %t : tensor<?x3xf32>
      %v = sinter.sum %u dims [1] keepdim : tensor<?x3xf32>
      sinter.yield %u, %v, %c : tensor<?x3xf32>, tensor<?x1xf32>, tensor<3xf32>
    }
    return %r, %s, %p : tensor<?x3xf32>, tensor<?x1xf32>, tensor<3xf32>
  }
}

// CHECK-LABEL: {{^}}relu f32[2, 3]
// CHECK-NEXT:  [0] 2 0 2
// CHECK-NEXT:  [1] 0 6 0
// CHECK-LABEL: {{^}}rowsum f32[2, 1]
// CHECK-NEXT:  [0] 4
// CHECK-NEXT:  [1] 6
// CHECK-LABEL: {{^}}passed f32[3]
// CHECK-NEXT:  [] 1 1 -1
