//===- sinter/rt_device_arg.cuh - argmax/argmin in a thread ----*- CUDA -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The per-thread half of argmax and argmin (sinter/rt_device.cuh includes
// it): a thread that visits its elements in increasing index order keeps a
// (value, index) pair that a new element replaces only when it is strictly
// better, or the first NaN. That is one comparison and two selects per
// element, where the general combiner (ArgExtremeOp, for pairs of any order)
// also tests both values for NaN and compares 64-bit indices: on the H100,
// argmax over rows of 256 and 16384 runs 15% faster, at max's speed. The
// team then combines the threads' pairs with ArgExtremeOp as before.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_RT_DEVICE_ARG_CUH
#define SINTER_RT_DEVICE_ARG_CUH

#include "sinter/rt_device.cuh"

namespace sinter::dev {

/// The state of a thread that has seen no element of the group whose first
/// index is \p first: the value every other beats, at \p first. Where every
/// element of the group is that value (argmax of a row of -inf), each thread
/// then holds \p first, the answer; otherwise the first element better than
/// it replaces it.
template <typename Better>
SINTER_RT_HOST_DEVICE ArgValue argStart(ArgExtremeOp<Better>, int64_t first) {
  return {Better::kIdentity, first};
}

/// \p state after element \p value at \p index, which is above every index
/// pushed before: the element wins if strictly better, or if it is the
/// first NaN (as ArgExtremeOp, whose ties go to the lower index).
template <typename Better>
SINTER_RT_HOST_DEVICE ArgValue argPush(ArgExtremeOp<Better>, ArgValue state,
                                       float value, int64_t index) {
  const bool wins = Better()(value, state.value) ||
                    (value != value && state.value == state.value);
  return {wins ? value : state.value, wins ? index : state.index};
}

} // namespace sinter::dev

#endif // SINTER_RT_DEVICE_ARG_CUH
