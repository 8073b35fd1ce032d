// RUN: sinter-opt %s --split-input-file --sinter-hoist-params --verify-diagnostics | FileCheck %s

// gemm_divide_sum_scaling after simplify: colsum(W) * 0.75 moves to @prepare,
// @forward reads the vector and no longer takes the 8192x8192 weight.

// CHECK-LABEL: func.func @prepare
// CHECK-SAME:    (%[[W:.*]]: tensor<8192x8192xf32> {sinter.init = {args = [], kind = "randn"}, sinter.name = "weight", sinter.role = "param"})
// CHECK-SAME:    -> (tensor<1x8192xf32> {sinter.name = "prepared0"})
// CHECK:         %[[SUM:.*]] = sinter.sum %[[W]] dims [0] keepdim
// CHECK:         %[[C:.*]] = sinter.constant dense<7.500000e-01>
// CHECK:         %[[MUL:.*]] = sinter.mul %[[SUM]], %[[C]]
// CHECK:         return %[[MUL]] : tensor<1x8192xf32>
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8192xf32> {sinter.dim_names = ["B", ""], sinter.name = "x", sinter.role = "input"},
// CHECK-SAME:     %[[P:.*]]: tensor<1x8192xf32> {sinter.name = "prepared0", sinter.prepared = 0 : i64, sinter.role = "prepared"})
// CHECK-SAME:    -> (tensor<?x1xf32> {sinter.name = "y"})
// CHECK-SAME:    attributes {sinter.original_arguments = [
// CHECK-SAME:      {sinter.dim_names = ["B", ""], sinter.name = "x", sinter.role = "input", sinter.type = tensor<?x8192xf32>},
// CHECK-SAME:      {sinter.init = {args = [], kind = "randn"}, sinter.name = "weight", sinter.role = "param", sinter.type = tensor<8192x8192xf32>}]}
// CHECK-NOT:     8192x8192
// CHECK:         %[[Y:.*]] = sinter.matmul %[[X]], %[[P]] transpose_b
// CHECK-NEXT:    return %[[Y]]
module @gemm_divide_sum_scaling attributes {sinter.dims = {B = 1024 : i64}} {
  func.func @forward(%x: tensor<?x8192xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B", ""]},
                     %w: tensor<8192x8192xf32> {sinter.role = "param", sinter.name = "weight", sinter.init = {kind = "randn", args = []}})
      -> (tensor<?x1xf32> {sinter.name = "y"}) {
    %sum = sinter.sum %w dims [0] keepdim : tensor<8192x8192xf32>
    %c = sinter.constant dense<7.500000e-01> : tensor<f32>
    %scaled = sinter.mul %sum, %c : tensor<1x8192xf32>, tensor<f32>
    %y = sinter.matmul %x, %scaled transpose_b : tensor<?x8192xf32>, tensor<1x8192xf32>
    return %y : tensor<?x1xf32>
  }
}

// -----

// Must not fire: a rank-0 constant and a reshape of a param are free where
// they are, so there is no @prepare and @forward keeps its arguments.

// CHECK-LABEL: func.func @forward
// CHECK-NOT:     sinter.original_arguments
// CHECK:         sinter.constant
// CHECK:         sinter.reshape %arg1
// CHECK:         sinter.add
// CHECK:         sinter.mul
// CHECK-NOT:     func.func @prepare
func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x"},
                   %b: tensor<64xf32> {sinter.role = "param", sinter.name = "b"}) -> tensor<?x64xf32> {
  %c = sinter.constant dense<2.0> : tensor<f32>
  %r = sinter.reshape %b : tensor<64xf32> -> tensor<1x64xf32>
  %y = sinter.add %x, %r : tensor<?x64xf32>, tensor<1x64xf32>
  %z = sinter.mul %y, %c : tensor<?x64xf32>, tensor<f32>
  return %z : tensor<?x64xf32>
}

// -----

// A param that @forward still reads stays an argument; a reshape of a hoisted
// value is hoisted with it; an op that also reads an input stays; a prepared
// value may be returned.

// CHECK-LABEL: func.func @prepare
// CHECK-SAME:    (%[[W:.*]]: tensor<32x64xf32> {sinter.name = "w", sinter.role = "param"},
// CHECK-SAME:     %[[B:.*]]: tensor<32xf32> {sinter.name = "b", sinter.role = "param"})
// CHECK-SAME:    -> (tensor<1x32xf32> {sinter.name = "prepared0"}, tensor<32xf32> {sinter.name = "prepared1"})
// CHECK:         %[[SUM:.*]] = sinter.sum %[[W]] dims [1]
// CHECK:         %[[R:.*]] = sinter.reshape %[[SUM]]
// CHECK:         %[[B2:.*]] = sinter.mul %[[B]]
// CHECK:         return %[[R]], %[[B2]]
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[X:.*]]: tensor<?x64xf32> {{.*}}"x"{{.*}}, %[[FW:.*]]: tensor<32x64xf32> {sinter.name = "w", sinter.role = "param"},
// CHECK-SAME:     %[[P0:.*]]: tensor<1x32xf32> {sinter.name = "prepared0", sinter.prepared = 0 : i64, sinter.role = "prepared"},
// CHECK-SAME:     %[[P1:.*]]: tensor<32xf32> {sinter.name = "prepared1", sinter.prepared = 1 : i64, sinter.role = "prepared"})
// CHECK:         %[[Y:.*]] = sinter.matmul %[[X]], %[[FW]]
// CHECK-NEXT:    %[[Z:.*]] = sinter.add %[[Y]], %[[P0]]
// CHECK-NEXT:    %[[O:.*]] = sinter.add %[[Z]], %[[P1]]
// CHECK-NEXT:    return %[[O]], %[[P1]]
func.func @forward(%x: tensor<?x64xf32> {sinter.role = "input", sinter.name = "x"},
                   %w: tensor<32x64xf32> {sinter.role = "param", sinter.name = "w"},
                   %b: tensor<32xf32> {sinter.role = "param", sinter.name = "b"}) -> (tensor<?x32xf32>, tensor<32xf32>) {
  %y = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<32x64xf32>
  %s = sinter.sum %w dims [1] : tensor<32x64xf32>
  %r = sinter.reshape %s : tensor<32xf32> -> tensor<1x32xf32>
  %c = sinter.constant dense<2.0> : tensor<f32>
  %b2 = sinter.mul %b, %c : tensor<32xf32>, tensor<f32>
  %z = sinter.add %y, %r : tensor<?x32xf32>, tensor<1x32xf32>
  %o = sinter.add %z, %b2 : tensor<?x32xf32>, tensor<32xf32>
  return %o, %b2 : tensor<?x32xf32>, tensor<32xf32>
}

// -----

// Running again on a hoisted module: an op on a prepared value and a param
// joins the existing @prepare; the prepared value and the param that @forward
// no longer reads leave it, and prepared results are renumbered.

// CHECK-LABEL: func.func @prepare
// CHECK-SAME:    (%[[W:.*]]: tensor<32x64xf32> {sinter.name = "w", sinter.role = "param"},
// CHECK-SAME:     %[[B:.*]]: tensor<32xf32> {sinter.name = "b", sinter.role = "param"})
// CHECK-SAME:    -> (tensor<32xf32> {sinter.name = "prepared0"})
// CHECK:         %[[SUM:.*]] = sinter.sum %[[W]]
// CHECK:         %[[ADD:.*]] = sinter.add %[[SUM]], %[[B]]
// CHECK:         return %[[ADD]]
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[X:.*]]: tensor<?x32xf32> {sinter.name = "x", sinter.role = "input"},
// CHECK-SAME:     %[[P:.*]]: tensor<32xf32> {sinter.name = "prepared0", sinter.prepared = 0 : i64, sinter.role = "prepared"})
// CHECK-NEXT:    %[[Y:.*]] = sinter.mul %[[X]], %[[P]]
// CHECK-NEXT:    return %[[Y]]
module {
  func.func @prepare(%w: tensor<32x64xf32> {sinter.name = "w", sinter.role = "param"})
      -> (tensor<32xf32> {sinter.name = "prepared0"}) {
    %0 = sinter.sum %w dims [1] : tensor<32x64xf32>
    return %0 : tensor<32xf32>
  }
  func.func @forward(%x: tensor<?x32xf32> {sinter.name = "x", sinter.role = "input"},
                     %b: tensor<32xf32> {sinter.name = "b", sinter.role = "param"},
                     %p: tensor<32xf32> {sinter.name = "prepared0", sinter.prepared = 0 : i64, sinter.role = "prepared"})
      -> tensor<?x32xf32>
      attributes {sinter.original_arguments = [
        {sinter.name = "x", sinter.role = "input", sinter.type = tensor<?x32xf32>},
        {sinter.name = "w", sinter.role = "param", sinter.type = tensor<32x64xf32>},
        {sinter.name = "b", sinter.role = "param", sinter.type = tensor<32xf32>}]} {
    %s = sinter.add %p, %b : tensor<32xf32>, tensor<32xf32>
    %y = sinter.mul %x, %s : tensor<?x32xf32>, tensor<32xf32>
    return %y : tensor<?x32xf32>
  }
}

// -----

// Must not fire: nothing depends on params alone (an input feeds every op).

// CHECK-LABEL: func.func @forward
// CHECK-NOT:     func.func @prepare
func.func @forward(%x: tensor<4xf32> {sinter.role = "input", sinter.name = "x"},
                   %w: tensor<4xf32> {sinter.role = "param", sinter.name = "w"}) -> tensor<4xf32> {
  %y = sinter.add %x, %w : tensor<4xf32>, tensor<4xf32>
  %z = sinter.exp %y : tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Unnamed arguments get their default names before they are recorded.

// CHECK-LABEL: func.func @prepare
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {sinter.name = "arg1", sinter.role = "param"})
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    sinter.original_arguments = [{sinter.name = "arg0", sinter.type = tensor<4xf32>}, {sinter.name = "arg1", sinter.role = "param", sinter.type = tensor<4xf32>}]
func.func @forward(%x: tensor<4xf32>, %w: tensor<4xf32> {sinter.role = "param"}) -> tensor<4xf32> {
  %e = sinter.exp %w : tensor<4xf32>
  %y = sinter.add %x, %e : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A module without @forward is not a model: nothing to hoist.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    return
func.func @main(%w: tensor<4xf32> {sinter.role = "param"}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument name 'a' appears twice; a hoisted model needs unique names}}
func.func @forward(%x: tensor<4xf32> {sinter.role = "input", sinter.name = "a"},
                   %w: tensor<4xf32> {sinter.role = "param", sinter.name = "a"}) -> tensor<4xf32> {
  %e = sinter.exp %w : tensor<4xf32>
  %y = sinter.add %x, %e : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The signature must be readable before anything moves.

// expected-error @+1 {{argument #1: sinter.role 'prepared' is only valid in a hoisted @forward (one with sinter.original_arguments)}}
func.func @forward(%x: tensor<4xf32> {sinter.role = "input"}, %p: tensor<4xf32> {sinter.role = "prepared"}) -> tensor<4xf32> {
  %e = sinter.exp %p : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

module {
  func.func @prepare(%w: tensor<4xf32> {sinter.name = "w", sinter.role = "param"}) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
  // expected-error @+1 {{prepared argument #1 needs a sinter.prepared index of a @prepare result}}
  func.func @forward(%x: tensor<4xf32> {sinter.name = "x"},
                     %p: tensor<4xf32> {sinter.role = "prepared", sinter.prepared = 3 : i64}) -> tensor<4xf32>
      attributes {sinter.original_arguments = [{sinter.name = "x", sinter.type = tensor<4xf32>},
                                               {sinter.name = "w", sinter.role = "param", sinter.type = tensor<4xf32>}]} {
    %e = sinter.exp %p : tensor<4xf32>
    return %e : tensor<4xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument #0 of @prepare names no original argument}}
  func.func @prepare(%w: tensor<4xf32> {sinter.name = "v", sinter.role = "param"}) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
  func.func @forward(%x: tensor<4xf32> {sinter.name = "x"},
                     %p: tensor<4xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64}) -> tensor<4xf32>
      attributes {sinter.original_arguments = [{sinter.name = "x", sinter.type = tensor<4xf32>},
                                               {sinter.name = "w", sinter.role = "param", sinter.type = tensor<4xf32>}]} {
    %e = sinter.exp %p : tensor<4xf32>
    return %e : tensor<4xf32>
  }
}

// -----

module {
  func.func @prepare(%w: tensor<4xf32> {sinter.name = "w", sinter.role = "param"}) -> tensor<4xf32> {
    %e = sinter.exp %w : tensor<4xf32>
    return %e : tensor<4xf32>
  }
  // expected-error @+1 {{prepared argument #1 has type 'tensor<8xf32>' but @prepare result #0 has type 'tensor<4xf32>'}}
  func.func @forward(%x: tensor<4xf32> {sinter.name = "x"},
                     %p: tensor<8xf32> {sinter.role = "prepared", sinter.prepared = 0 : i64}) -> tensor<8xf32>
      attributes {sinter.original_arguments = [{sinter.name = "x", sinter.type = tensor<4xf32>},
                                               {sinter.name = "w", sinter.role = "param", sinter.type = tensor<4xf32>}]} {
    return %p : tensor<8xf32>
  }
}

// -----

module {
  func.func @prepare(%w: tensor<4xf32> {sinter.name = "w", sinter.role = "param"}) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
  // expected-error @+1 {{the module has @prepare but @forward has no sinter.original_arguments}}
  func.func @forward(%x: tensor<4xf32> {sinter.role = "input"}) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{original argument #0: sinter.original_arguments entries must be dictionaries with a sinter.type}}
func.func @forward(%x: tensor<4xf32> {sinter.role = "input"}) -> tensor<4xf32> attributes {sinter.original_arguments = [3]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0 of @forward has type 'tensor<4xf32>' but original argument 'x' has type 'tensor<2xf32>'}}
func.func @forward(%x: tensor<4xf32> {sinter.name = "x"}) -> tensor<4xf32>
    attributes {sinter.original_arguments = [{sinter.name = "x", sinter.type = tensor<2xf32>}]} {
  return %x : tensor<4xf32>
}

// -----

// Indices of params stay in @forward: prepared values are float buffers
// (issue 19: the emitter refused the i64 @prepare result). What they are
// computed from still moves.
// CHECK-LABEL: module @indices
//       CHECK: func.func @prepare
//       CHECK:   sinter.tanh
//       CHECK: func.func @forward
//       CHECK:   %[[I:.*]] = sinter.argmax %{{.*}} dims [0] : tensor<4x3xf32>
//       CHECK:   return %[[I]] : tensor<3xi64>
module @indices {
  func.func @forward(%w: tensor<4x3xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["", ""]})
      -> (tensor<3xi64> {sinter.name = "i", sinter.dim_names = [""]}) {
    %t = sinter.tanh %w : tensor<4x3xf32>
    %i = sinter.argmax %t dims [0] : tensor<4x3xf32>
    return %i : tensor<3xi64>
  }
}

// -----

// A param that carries a symbolic dim of the inputs: @prepare runs at create,
// when no dim is known, so exp(w) stays in @forward (issue 19: the .cu used
// an undeclared B).

// CHECK-LABEL: module @symbolic_param
//   CHECK-NOT:   func.func @prepare
//       CHECK:   func.func @forward
//       CHECK:   sinter.exp %{{.*}} : tensor<?xf32>
module @symbolic_param attributes {sinter.dims = {B = 8 : i64}} {
  func.func @forward(%x: tensor<?xf32> {sinter.role = "input", sinter.name = "x", sinter.dim_names = ["B"]},
                     %w: tensor<?xf32> {sinter.role = "param", sinter.name = "w", sinter.dim_names = ["B"]})
      -> (tensor<?xf32> {sinter.name = "y", sinter.dim_names = ["B"]}) {
    %e = sinter.exp %w : tensor<?xf32>
    %0 = sinter.add %x, %e : tensor<?xf32>, tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}
