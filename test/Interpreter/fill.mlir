// sinter.fill: the value everywhere, its `?` dims taken from the source's
// run-time dims (here N = 3 from the .npy file), the source never read.
// RUN: %python -c "import numpy; numpy.save('%t.npy', numpy.full((3, 4), numpy.nan, dtype='<f4'))"
// RUN: sinterc run %s --inputs %t.npy --print-values | FileCheck %s

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
