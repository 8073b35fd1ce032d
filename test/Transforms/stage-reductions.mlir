// RUN: sinter-opt %s --split-input-file --sinter-stage-reductions | FileCheck %s
// RUN: sinter-opt %s --split-input-file --sinter-stage-reductions=fp-mode=strict | FileCheck %s --check-prefix=STRICT

// The mean over H, W of NHWC RGB images: R = 65536 and C = 3, so the first
// stage takes R2 = 1024 (3072 elements a position, below 4096) and S = 64.
// CHECK-LABEL: func.func @nhwc_rgb_mean
//  CHECK-SAME: (%[[X:.*]]: tensor<?x256x256x3xf32>)
//       CHECK:   %[[R:.*]] = sinter.reshape %[[X]] : tensor<?x256x256x3xf32> -> tensor<?x64x1024x3xf32>
//       CHECK:   %[[P:.*]] = sinter.mean %[[R]] dims [2] : tensor<?x64x1024x3xf32>
//       CHECK:   %[[M:.*]] = sinter.mean %[[P]] dims [1] : tensor<?x64x3xf32>
//       CHECK:   return %[[M]] : tensor<?x3xf32>
// Under fp-mode=strict the f32 partials of a mean would round: it stays.
// STRICT-LABEL: func.func @nhwc_rgb_mean
//   STRICT-NOT:   sinter.reshape
//       STRICT:   sinter.mean %{{.*}} dims [1, 2] : tensor<?x256x256x3xf32>
func.func @nhwc_rgb_mean(%x: tensor<?x256x256x3xf32>) -> tensor<?x3xf32> {
  %0 = sinter.mean %x dims [1, 2] : tensor<?x256x256x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Kept dims come back through a reshape; R = 224 * 224 = 1024 * 49 takes the
// largest power of two that divides it (a mean's first division is exact).
// CHECK-LABEL: func.func @keepdim_max
//       CHECK:   %[[R:.*]] = sinter.reshape %{{.*}} : tensor<8x224x224x5xf32> -> tensor<8x98x512x5xf32>
//       CHECK:   %[[P:.*]] = sinter.max %[[R]] dims [2] : tensor<8x98x512x5xf32>
//       CHECK:   %[[M:.*]] = sinter.max %[[P]] dims [1] : tensor<8x98x5xf32>
//       CHECK:   %[[K:.*]] = sinter.reshape %[[M]] : tensor<8x5xf32> -> tensor<8x1x1x5xf32>
//       CHECK:   return %[[K]]
// A max is exact in any order: strict mode splits it too.
// STRICT-LABEL: func.func @keepdim_max
//       STRICT:   sinter.max %{{.*}} dims [2] : tensor<8x98x512x5xf32>
//       STRICT:   sinter.max %{{.*}} dims [1] : tensor<8x98x5xf32>
func.func @keepdim_max(%x: tensor<8x224x224x5xf32>) -> tensor<8x1x1x5xf32> {
  %0 = sinter.max %x dims [1, 2] keepdim : tensor<8x224x224x5xf32>
  return %0 : tensor<8x1x1x5xf32>
}

// -----

// The leading dims, [R, C] reduced along R: A is empty.
// CHECK-LABEL: func.func @leading_sum
//       CHECK:   %[[R:.*]] = sinter.reshape %{{.*}} : tensor<1048576x6xf32> -> tensor<2048x512x6xf32>
//       CHECK:   %[[P:.*]] = sinter.sum %[[R]] dims [1] : tensor<2048x512x6xf32>
//       CHECK:   sinter.sum %[[P]] dims [0] : tensor<2048x6xf32>
func.func @leading_sum(%x: tensor<1048576x6xf32>) -> tensor<6xf32> {
  %0 = sinter.sum %x dims [0] : tensor<1048576x6xf32>
  return %0 : tensor<6xf32>
}

// -----

// min and prod reduce their partials too; C = 7 takes R2 = 512 (3584).
// CHECK-LABEL: func.func @min_prod
//       CHECK:   sinter.min %{{.*}} dims [2] : tensor<16x32x512x7xf32>
//       CHECK:   sinter.min %{{.*}} dims [1] : tensor<16x32x7xf32>
//       CHECK:   sinter.prod %{{.*}} dims [2] : tensor<16x32x512x7xf32>
//       CHECK:   sinter.prod %{{.*}} dims [1] : tensor<16x32x7xf32>
// STRICT-LABEL: func.func @min_prod
//       STRICT:   sinter.min %{{.*}} dims [2] : tensor<16x32x512x7xf32>
//       STRICT:   sinter.min %{{.*}} dims [1] : tensor<16x32x7xf32>
//       STRICT:   sinter.prod %{{.*}} dims [1] : tensor<16x16384x7xf32>
func.func @min_prod(%x: tensor<16x16384x7xf32>) -> (tensor<16x7xf32>, tensor<16x7xf32>) {
  %0 = sinter.min %x dims [1] : tensor<16x16384x7xf32>
  %1 = sinter.prod %x dims [1] : tensor<16x16384x7xf32>
  return %0, %1 : tensor<16x7xf32>, tensor<16x7xf32>
}

// -----

// Stay whole: a power-of-two C (a block reads its runs), positions short
// enough for warp runs (R * C < 4096), C above 16, argmax (its partials lose
// their indices), trailing dims, a symbolic R, R without a power of two
// large enough (R2 * C < 512), strided dims.
// CHECK-LABEL: func.func @one_stage
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.mean %{{.*}} dims [1] : tensor<64x65536x4xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<64x1365x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<64x65536x17xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.argmax %{{.*}} dims [1] : tensor<64x65536x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<64x3x65536xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<64x?x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1] : tensor<64x3969x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [0, 2] : tensor<4096x3x4096xf32>
//   CHECK-NOT:   sinter.reshape
func.func @one_stage(%a: tensor<64x65536x4xf32>, %b: tensor<64x1365x3xf32>,
                     %c: tensor<64x65536x17xf32>, %d: tensor<64x65536x3xf32>,
                     %e: tensor<64x3x65536xf32>, %f: tensor<64x?x3xf32>,
                     %g: tensor<64x3969x3xf32>, %h: tensor<4096x3x4096xf32>)
    -> (tensor<64x4xf32>, tensor<64x3xf32>, tensor<64x17xf32>, tensor<64x3xi64>,
        tensor<64x65536xf32>, tensor<64x3xf32>, tensor<64x3xf32>, tensor<3xf32>) {
  %0 = sinter.mean %a dims [1] : tensor<64x65536x4xf32>
  %1 = sinter.sum %b dims [1] : tensor<64x1365x3xf32>
  %2 = sinter.sum %c dims [1] : tensor<64x65536x17xf32>
  %3 = sinter.argmax %d dims [1] : tensor<64x65536x3xf32>
  %4 = sinter.sum %e dims [1] : tensor<64x3x65536xf32>
  %5 = sinter.sum %f dims [1] : tensor<64x?x3xf32>
  %6 = sinter.sum %g dims [1] : tensor<64x3969x3xf32>
  %7 = sinter.sum %h dims [0, 2] : tensor<4096x3x4096xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<64x4xf32>, tensor<64x3xf32>,
      tensor<64x17xf32>, tensor<64x3xi64>, tensor<64x65536xf32>,
      tensor<64x3xf32>, tensor<64x3xf32>, tensor<3xf32>
}

// -----

// A mean and the variance around it are one Welford pass over the input:
// neither is split (a split mean would leave the variance a pass of its own).
// CHECK-LABEL: func.func @welford_pair
//   CHECK-NOT:   sinter.reshape
//       CHECK:   %[[M:.*]] = sinter.mean %[[X:.*]] dims [1] keepdim : tensor<64x65536x3xf32>
//       CHECK:   %[[D:.*]] = sinter.sub %[[X]], %[[M]]
//       CHECK:   sinter.mean %{{.*}} dims [1] keepdim : tensor<64x65536x3xf32>
func.func @welford_pair(%x: tensor<64x65536x3xf32>) -> tensor<64x1x3xf32> {
  %m = sinter.mean %x dims [1] keepdim : tensor<64x65536x3xf32>
  %d = sinter.sub %x, %m : tensor<64x65536x3xf32>, tensor<64x1x3xf32>
  %s = sinter.mul %d, %d : tensor<64x65536x3xf32>, tensor<64x65536x3xf32>
  %v = sinter.mean %s dims [1] keepdim : tensor<64x65536x3xf32>
  return %v : tensor<64x1x3xf32>
}

// -----

// A max and its sum of exponentials (softmax over a middle dim of 3
// channels) are one online-softmax pass: neither is split.
// CHECK-LABEL: func.func @softmax_pair
//   CHECK-NOT:   sinter.reshape
func.func @softmax_pair(%x: tensor<64x65536x3xf32>) -> tensor<64x65536x3xf32> {
  %m = sinter.max %x dims [1] keepdim : tensor<64x65536x3xf32>
  %d = sinter.sub %x, %m : tensor<64x65536x3xf32>, tensor<64x1x3xf32>
  %e = sinter.exp %d : tensor<64x65536x3xf32>
  %s = sinter.sum %e dims [1] keepdim : tensor<64x65536x3xf32>
  %p = sinter.div %e, %s : tensor<64x65536x3xf32>, tensor<64x1x3xf32>
  return %p : tensor<64x65536x3xf32>
}

// -----

// Elementwise producers are computed again over the staged shape, so that
// the first stage's kernel still fuses them: x * x over one reshape of x,
// a per-channel scale (broadcast along the kept run) as it is.
// CHECK-LABEL: func.func @staged_producers
//  CHECK-SAME: (%[[X:.*]]: tensor<4x128x128x3xf32>, %[[W:.*]]: tensor<3xf32>)
// The originals, which only the sum read, are gone.
//   CHECK-NOT:   sinter.mul
//       CHECK:   %[[R:.*]] = sinter.reshape %[[X]] : tensor<4x128x128x3xf32> -> tensor<4x16x1024x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   %[[S:.*]] = sinter.mul %[[R]], %[[R]] : tensor<4x16x1024x3xf32>, tensor<4x16x1024x3xf32>
//       CHECK:   %[[T:.*]] = sinter.mul %[[S]], %[[W]] : tensor<4x16x1024x3xf32>, tensor<3xf32>
//       CHECK:   %[[P:.*]] = sinter.sum %[[T]] dims [2] : tensor<4x16x1024x3xf32>
//       CHECK:   sinter.sum %[[P]] dims [1] : tensor<4x16x3xf32>
func.func @staged_producers(%x: tensor<4x128x128x3xf32>, %w: tensor<3xf32>) -> tensor<4x3xf32> {
  %s = sinter.mul %x, %x : tensor<4x128x128x3xf32>, tensor<4x128x128x3xf32>
  %t = sinter.mul %s, %w : tensor<4x128x128x3xf32>, tensor<3xf32>
  %0 = sinter.sum %t dims [1, 2] : tensor<4x128x128x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A producer that broadcasts along the reduced dims (a [128, 1] mask over
// H) cannot be computed over [A, S, R2, C]: the sum stays whole.
// CHECK-LABEL: func.func @broadcast_producer
//   CHECK-NOT:   sinter.reshape
//       CHECK:   sinter.sum %{{.*}} dims [1, 2] : tensor<4x128x128x3xf32>
func.func @broadcast_producer(%x: tensor<4x128x128x3xf32>, %m: tensor<128x1x1xf32>) -> tensor<4x3xf32> {
  %t = sinter.mul %x, %m : tensor<4x128x128x3xf32>, tensor<128x1x1xf32>
  %0 = sinter.sum %t dims [1, 2] : tensor<4x128x128x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A value that several producers read is staged once: one reshape of x, one
// staged x * x for both operands of the add (a deep chain of such diamonds
// is walked once a value, not once a path).
// CHECK-LABEL: func.func @diamond
//       CHECK:   %[[R:.*]] = sinter.reshape %{{.*}} : tensor<2x65536x3xf32> -> tensor<2x64x1024x3xf32>
//   CHECK-NOT:   sinter.reshape
//       CHECK:   %[[S:.*]] = sinter.mul %[[R]], %[[R]] : tensor<2x64x1024x3xf32>
//       CHECK:   %[[T:.*]] = sinter.add %[[S]], %[[S]] : tensor<2x64x1024x3xf32>
//       CHECK:   sinter.max %[[T]] dims [2]
func.func @diamond(%x: tensor<2x65536x3xf32>) -> tensor<2x3xf32> {
  %s = sinter.mul %x, %x : tensor<2x65536x3xf32>, tensor<2x65536x3xf32>
  %t = sinter.add %s, %s : tensor<2x65536x3xf32>, tensor<2x65536x3xf32>
  %0 = sinter.max %t dims [1] : tensor<2x65536x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A producer that another user reads stays for it; the first stage computes
// its own copy over the staged shape.
// CHECK-LABEL: func.func @shared_producer
//       CHECK:   %[[S:.*]] = sinter.mul %[[X:.*]], %[[X]] : tensor<2x65536x3xf32>, tensor<2x65536x3xf32>
//       CHECK:   %[[R:.*]] = sinter.reshape %[[X]] : tensor<2x65536x3xf32> -> tensor<2x64x1024x3xf32>
//       CHECK:   %[[T:.*]] = sinter.mul %[[R]], %[[R]] : tensor<2x64x1024x3xf32>
//       CHECK:   sinter.sum %[[T]] dims [2]
//       CHECK:   return %{{.*}}, %[[S]]
func.func @shared_producer(%x: tensor<2x65536x3xf32>) -> (tensor<2x3xf32>, tensor<2x65536x3xf32>) {
  %s = sinter.mul %x, %x : tensor<2x65536x3xf32>, tensor<2x65536x3xf32>
  %0 = sinter.sum %s dims [1] : tensor<2x65536x3xf32>
  return %0, %s : tensor<2x3xf32>, tensor<2x65536x3xf32>
}
