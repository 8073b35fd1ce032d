//===- Occupancy.cpp - Launch bounds of planned kernels -------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"
#include "sinter/Dialect/Sinter/IR/SinglePass.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;

/// The blocks of 256 threads a partial kernel keeps on a multiprocessor at
/// least (__launch_bounds__): at most 64 registers a thread. Welford states
/// and (value, index) pairs took 77 (3 blocks), sums 40 (6 blocks, and a
/// schedule that waits on its loads); at 4, the H100 ran var over the first
/// dim 6% faster and sums over a middle dim 2.5% faster.
static constexpr int64_t kSplitMinBlocks = 4;

/// Statistics along the innermost dim (batch_norm over [N, C]) are read by
/// the apply step as float4 groups beside x's: 46 registers; at most 40 keep
/// 6 blocks per multiprocessor, which made the apply step 5% faster on the
/// H100.
static constexpr int64_t kApplyMinBlocks = 6;

/// The rows a thread of such an apply step walks (getApplyRowsPerThread).
static constexpr int64_t kApplyRowsPerThread = 4;

/// Params broadcast along the rows of at least this many bytes make an apply
/// step walk kApplyRowsPerThread rows a thread too. On the H100, layer_norm
/// over [16, 4194304] (a weight and a bias of 16 MiB each) ran 0.436 ->
/// 0.313 ms and rms_norm 0.350 -> 0.291 ms; over [64, 1048576] (8 and 4 MiB,
/// which L2 keeps) the rows made them 7% and 3% slower.
static constexpr int64_t kApplyRowParamBytes = 16 << 20;

/// A block of 1024 threads whose inputs are all rows held in registers, at
/// most this many floats a thread, asks for kHeldRowMinBlocks blocks per SM
/// (32 registers a thread): with one, the SM's HBM reads stop while its only
/// row reduces and writes. On the H100, softmax over 4096 x 16384 (whose
/// divisions took 46 registers) runs 0.21 -> 0.19 ms, log_softmax, sum, max,
/// argmax and var as before; layer_norm and rms_norm, which also read a
/// weight, spilled and ran 1.5-1.8x slower, so they keep one block. A mean
/// with a variance around it (Welford states) asks for two blocks at most
/// kHeldWelfordRowFloats floats a thread: on the H100 (run 5 of
/// 2026-11-28), layer_norm without affine over rows of 16000 (16 floats)
/// ran at 0.94 of copy with two blocks, 0.99 with one; instance_norm over
/// rows of 9216 (12 floats) at 1.01 with two, 0.85 with one.
static constexpr int64_t kHeldRowFloats = 16;
static constexpr int64_t kHeldWelfordRowFloats = 12;
static constexpr int64_t kHeldRowMinBlocks = 2;

int64_t sinter::getSplitMinBlocks() { return kSplitMinBlocks; }

int64_t sinter::getApplyMinBlocks(ArrayRef<Value> statistics) {
  bool alongInnermost = llvm::any_of(statistics, [](Value statistic) {
    ArrayRef<int64_t> shape = cast<ShapedType>(statistic.getType()).getShape();
    return !shape.empty() && shape.back() != 1;
  });
  return alongInnermost ? kApplyMinBlocks : 0;
}

int64_t sinter::getApplyRowsPerThread(ArrayRef<Value> statistics,
                                      ArrayRef<Value> params) {
  // Statistics along the innermost dim (batch_norm over [N, C]) are read as
  // float4 groups beside x's, from L2 once per row of x (4 bytes of
  // statistics and params for each byte of x): each thread walks 4 rows at
  // its 4 columns and loads them once. On the H100 the apply step of
  // batch_norm over [4096, 16384] ran 0.1935 -> 0.1863 ms (2 rows: 0.1926,
  // 8: 0.1899), over [65536, 1024] 0.1913 -> 0.1852 ms. The same holds for
  // params broadcast along the rows once they no longer stay in L2.
  int64_t paramBytes = 0;
  for (Value param : params) {
    auto type = cast<ShapedType>(param.getType());
    if (type.hasStaticShape())
      paramBytes += type.getNumElements() * 4;
  }
  if (paramBytes >= kApplyRowParamBytes)
    return kApplyRowsPerThread;
  bool alongInnermost = llvm::any_of(statistics, [](Value statistic) {
    ArrayRef<int64_t> shape = cast<ShapedType>(statistic.getType()).getShape();
    return !shape.empty() && shape.back() != 1;
  });
  return alongInnermost ? kApplyRowsPerThread : 1;
}

int64_t sinter::getRowMinBlocks(KernelOp kernel, int64_t block, int64_t length,
                                ArrayRef<int64_t> cached, bool registers) {
  if (!registers || block != 1024)
    return 0;
  bool welford = llvm::any_of(kernel.getBody().front(), [](Operation &op) {
    std::optional<SinglePassPair> pair = matchSinglePassPair(&op);
    return pair && pair->form == SinglePassForm::Welford;
  });
  int64_t floats =
      4 * static_cast<int64_t>(llvm::divideCeil(length / 4, block));
  if (floats > (welford ? kHeldWelfordRowFloats : kHeldRowFloats))
    return 0;
  // Every operand that is not a constant is held.
  for (auto [argument, operand] :
       llvm::zip(kernel.getBody().getArguments(), kernel.getInputs()))
    if (!isa_and_nonnull<ConstantOp>(operand.getDefiningOp()) &&
        !llvm::is_contained(cached, argument.getArgNumber()))
      return 0;
  return kHeldRowMinBlocks;
}
