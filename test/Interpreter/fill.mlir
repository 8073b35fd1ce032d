// sinter.fill: the value everywhere, its `?` dims taken from the sources'
// run-time dims (here N = 3 from the .npy file), the sources never read.
// RUN: %python -c "import numpy; numpy.save('%t.npy', numpy.full((3, 4), numpy.nan, dtype='<f4'))"
// RUN: sinterc run %s --model=fill --inputs %t.npy --print-values | FileCheck %s
// A fill of shape [B, T], B from one input and T from another.
// RUN: sinterc run %s --model=fill_two_sources --dim B=2,T=3 --print-values | FileCheck %s --check-prefix=TWO

module @fill attributes {sinter.dims = {N = 2 : i64}} {
  func.func @forward(%x: tensor<?x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["N", ""]})
      -> (tensor<?x2xf32> {sinter.name = "fill", sinter.dim_names = ["N", ""]}) {
    %0 = sinter.fill -1.5 dims [0] of %x : tensor<?x4xf32> -> tensor<?x2xf32>
    return %0 : tensor<?x2xf32>
  }
}

// CHECK-LABEL: {{^}}fill f32[3, 2]
// CHECK-NEXT:  [0] -1.5 -1.5
// CHECK-NEXT:  [1] -1.5 -1.5
// CHECK-NEXT:  [2] -1.5 -1.5

module @fill_two_sources attributes {sinter.dims = {B = 4 : i64, T = 5 : i64}} {
  func.func @forward(%x: tensor<?x4xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %y: tensor<?x4xf32> {sinter.role = "input", sinter.name = "y", sinter.dim_names = ["T", ""]})
      -> (tensor<?x?xf32> {sinter.name = "ones", sinter.dim_names = ["B", "T"]}) {
    %0 = sinter.fill 1.0 dims [0, 0] of %x, %y : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }
}

// TWO-LABEL: {{^}}ones f32[2, 3]
// TWO-NEXT:  [0] 1 1 1
// TWO-NEXT:  [1] 1 1 1
