// Each op's symbolic shape rule (SymbolicShapeOpInterface), as the frontend,
// the cost model and the CUDA emitter see it: -test-sinter-symbolic-shapes
// prints every op's result shape over the arguments' sinter.dim_names and
// the constraints its rule records for run time.
// RUN: sinter-opt %s -split-input-file -test-sinter-symbolic-shapes \
// RUN:   -o /dev/null | FileCheck %s

// Unary ops keep the shape; binary ops broadcast; a dim of size 1 stretches.
// CHECK-LABEL: func @elementwise
// CHECK-NEXT:    sinter.add: [B, 64]
// CHECK-NEXT:    sinter.relu: [B, 64]
// CHECK-NEXT:    sinter.mul: [B, 64]
func.func @elementwise(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]},
                       %b: tensor<64xf32>, %s: tensor<?x1xf32> {sinter.dim_names = ["B", ""]})
    -> tensor<?x64xf32> {
  %y = sinter.add %x, %b : tensor<?x64xf32>, tensor<64xf32>
  %r = sinter.relu %y : tensor<?x64xf32>
  %m = sinter.mul %r, %s : tensor<?x64xf32>, tensor<?x1xf32>
  return %m : tensor<?x64xf32>
}

// -----

// Two different symbolic dims that broadcast must be equal at run time;
// a dim of unknown size gives way to a named one.
// CHECK-LABEL: func @symbolic_broadcast
// CHECK-NEXT:    sinter.sub: [B, 8]
// CHECK-NEXT:      requires T == B (broadcast dim #0)
// CHECK-NEXT:    sinter.add: [B, 8]
// CHECK-NEXT:      requires ? == B (broadcast dim #0)
// CHECK-NEXT:    sinter.maximum: [B, 8]
// CHECK-NEXT:      requires B == ? (broadcast dim #0)
func.func @symbolic_broadcast(
    %x: tensor<?x8xf32> {sinter.dim_names = ["B", ""]},
    %y: tensor<?x8xf32> {sinter.dim_names = ["T", ""]},
    %z: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %d = sinter.sub %x, %y : tensor<?x8xf32>, tensor<?x8xf32>
  %e = sinter.add %d, %z : tensor<?x8xf32>, tensor<?x8xf32>
  %f = sinter.maximum %z, %e : tensor<?x8xf32>, tensor<?x8xf32>
  return %f : tensor<?x8xf32>
}

// -----

// select broadcasts its three operands.
// CHECK-LABEL: func @select
// CHECK-NEXT:    sinter.compare: [B, 16]
// CHECK-NEXT:    sinter.select: [B, 16]
func.func @select(%x: tensor<?x16xf32> {sinter.dim_names = ["B", ""]},
                  %zero: tensor<f32>, %row: tensor<16xf32>) -> tensor<?x16xf32> {
  %m = sinter.compare gt, %x, %zero : tensor<?x16xf32>, tensor<f32>
  %y = sinter.select %m, %row, %x
         : tensor<?x16xf32>, tensor<16xf32>, tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// Reductions drop their dims, or keep them as 1.
// CHECK-LABEL: func @reductions
// CHECK-NEXT:    sinter.sum: [B, 1, 1]
// CHECK-NEXT:    sinter.max: [T]
// CHECK-NEXT:    sinter.argmax: [B, T]
func.func @reductions(%x: tensor<?x?x32xf32> {sinter.dim_names = ["B", "T", ""]})
    -> (tensor<?x1x1xf32>, tensor<?xf32>, tensor<?x?xi64>) {
  %s = sinter.sum %x dims [1, 2] keepdim : tensor<?x?x32xf32>
  %m = sinter.max %x dims [0, 2] : tensor<?x?x32xf32>
  %a = sinter.argmax %x dims [2] : tensor<?x?x32xf32>
  return %s, %m, %a : tensor<?x1x1xf32>, tensor<?xf32>, tensor<?x?xi64>
}

// -----

// A matmul's K dims must be equal; batch dims broadcast.
// CHECK-LABEL: func @matmul
// CHECK-NEXT:    sinter.matmul: [B, 128]
// CHECK-NEXT:    sinter.matmul: [B, 64, 32]
// CHECK-NEXT:    sinter.matmul: [B, 8]
// CHECK-NEXT:      requires K == T (contraction dim)
func.func @matmul(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]},
                  %w: tensor<128x64xf32>,
                  %a: tensor<?x32x64xf32> {sinter.dim_names = ["B", "", ""]},
                  %v: tensor<32x32xf32>,
                  %p: tensor<?x?xf32> {sinter.dim_names = ["B", "T"]},
                  %q: tensor<?x8xf32> {sinter.dim_names = ["K", ""]})
    -> (tensor<?x128xf32>, tensor<?x64x32xf32>, tensor<?x8xf32>) {
  %y = sinter.matmul %x, %w transpose_b : tensor<?x64xf32>, tensor<128x64xf32>
  %z = sinter.matmul %a, %v transpose_a : tensor<?x32x64xf32>, tensor<32x32xf32>
  %k = sinter.matmul %p, %q : tensor<?x?xf32>, tensor<?x8xf32>
  return %y, %z, %k : tensor<?x128xf32>, tensor<?x64x32xf32>, tensor<?x8xf32>
}

// -----

// A reshape's `?` is the element count over its static dims, which must
// divide it; a static reshape must keep the count.
// CHECK-LABEL: func @reshape
// CHECK-NEXT:    sinter.reshape: [B, 8, 8]
// CHECK-NEXT:    sinter.reshape: [B * 3 / 4, 4]
// CHECK-NEXT:      requires B * 3 % 4 == 0 (element count)
// CHECK-NEXT:    sinter.reshape: [4, 16]
// CHECK-NEXT:      requires B * 64 == 64 (element count)
func.func @reshape(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]},
                   %y: tensor<?x3xf32> {sinter.dim_names = ["B", ""]})
    -> (tensor<?x8x8xf32>, tensor<?x4xf32>, tensor<4x16xf32>) {
  %a = sinter.reshape %x : tensor<?x64xf32> -> tensor<?x8x8xf32>
  %b = sinter.reshape %y : tensor<?x3xf32> -> tensor<?x4xf32>
  %c = sinter.reshape %x : tensor<?x64xf32> -> tensor<4x16xf32>
  return %a, %b, %c : tensor<?x8x8xf32>, tensor<?x4xf32>, tensor<4x16xf32>
}

// -----

// transpose permutes; slice and concat set their static dim; the other dims
// of concatenated inputs must be equal.
// CHECK-LABEL: func @index_maps
// CHECK-NEXT:    sinter.transpose: [64, B]
// CHECK-NEXT:    sinter.slice: [B, 16]
// CHECK-NEXT:    sinter.concat: [B, 80]
// CHECK-NEXT:      requires T == B (dims of concatenated inputs)
func.func @index_maps(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]},
                      %y: tensor<?x64xf32> {sinter.dim_names = ["T", ""]})
    -> (tensor<64x?xf32>, tensor<?x80xf32>) {
  %t = sinter.transpose %x perm [1, 0] : tensor<?x64xf32>
  %s = sinter.slice %x dim 1 start 16 end 32 : tensor<?x64xf32>
  %c = sinter.concat %s, %y dim 1 : tensor<?x16xf32>, tensor<?x64xf32>
  return %t, %c : tensor<64x?xf32>, tensor<?x80xf32>
}

// -----

// A constant is static; a fill takes each `?` from a dim of its source.
// CHECK-LABEL: func @constant_and_fill
// CHECK-NEXT:    sinter.constant: [2]
// CHECK-NEXT:    sinter.fill: [B, 1]
// CHECK-NEXT:    sinter.fill: [B, T]
func.func @constant_and_fill(%x: tensor<?x4xf32> {sinter.dim_names = ["B", ""]},
                             %y: tensor<8x?xf32> {sinter.dim_names = ["", "T"]})
    -> (tensor<2xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %c = sinter.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = sinter.fill 0.000000e+00 dims [0] of %x : tensor<?x4xf32> -> tensor<?x1xf32>
  %o = sinter.fill 1.000000e+00 dims [0, 1] of %x, %y
         : tensor<?x4xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
  return %c, %z, %o : tensor<2xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// -----

// Softmax and the norms keep their input's shape.
// CHECK-LABEL: func @composites
// CHECK-NEXT:    sinter.softmax: [B, 32]
// CHECK-NEXT:    sinter.layer_norm: [B, 32]
func.func @composites(%x: tensor<?x32xf32> {sinter.dim_names = ["B", ""]},
                      %w: tensor<32xf32>) -> tensor<?x32xf32> {
  %p = sinter.softmax %x dim 1 : tensor<?x32xf32>
  %n = sinter.layer_norm %p weight(%w : tensor<32xf32>) shape [32]
         : tensor<?x32xf32>
  return %n : tensor<?x32xf32>
}

// -----

// A kernel's body is shaped from its operands, its results from the body.
// CHECK-LABEL: func @kernel
// CHECK-NEXT:    sinter.add: [B, 64]
// CHECK-NEXT:    sinter.relu: [B, 64]
// CHECK-NEXT:    sinter.kernel: [B, 64]
func.func @kernel(%x: tensor<?x64xf32> {sinter.dim_names = ["B", ""]},
                  %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = sinter.kernel pointwise (%x, %b) : (tensor<?x64xf32>, tensor<64xf32>)
         -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>, %c: tensor<64xf32>):
    %s = sinter.add %a, %c : tensor<?x64xf32>, tensor<64xf32>
    %r = sinter.relu %s : tensor<?x64xf32>
    sinter.yield %r : tensor<?x64xf32>
  }
  return %y : tensor<?x64xf32>
}
