//===- PlanRowTeams.cpp - The teams of lanes that share a row -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-plan-kernels' team sizes for row kernels: the lanes that share a
// row held in registers (a few float4 groups a lane), read from HBM (a lane
// per 4 elements), or walked by a warp or a block, the registers a thread
// of a team holds, and the params it holds across its rows.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/IR/ThreadTiles.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;

/// The team size of rows of `length` elements.
int64_t sinter::getTeamSize(int64_t length) {
  return length <= kWarpRowLimit ? 32 : length <= kMediumRowLimit ? 256 : 1024;
}

/// On the H200 (2026-11-28), a sum over the 97 x 101 maps of [128, 64, 97,
/// 101] ran at 0.82 of copy with 1024 threads a row (2 to 3 float4 groups
/// each), 0.97 with 256, whose error against float64 (1.05e-7 in float,
/// above eager's 1.01e-7) fell to 7.6e-8 with the threads' sums added in
/// double (0.96x torch.compile, 0.81x before); over rows of 16384 (4 groups a
/// thread of 1024), sums, means and maxima ran 4-6% slower with 256 (an earlier
/// session).
int64_t sinter::getStreamedRowTeam(int64_t length, int64_t team) {
  return team == 1024 && length > kMediumRowLimit &&
                 length < kStreamedRowThreadsLimit
             ? 256
             : team;
}

/// The team of rows of `length` held in registers. Rows of at most 4 float4
/// groups, or of 8 without `argReductions`, take a lane a group (no lane
/// idles); up to 16 groups, the power of two of lanes with the fewest idle
/// group slots (of those with 2 to 8 groups a lane, at least 4 where
/// `argReductions`: argmax, argmin, whose teams shuffle two values a
/// level), the most lanes among equals; up to 64 groups, a power of two of
/// lanes with at most 2 groups each (4 each where `argReductions`), or, from
/// 17 to 32 groups, half as many lanes where that leaves fewer group slots
/// idle (rows of 96: 8 lanes of 3 groups, not 16 of 2); else as other rows.
/// On the H200 (run 9 of 2026-11-28), layer_norm over rows of 96 ran at 0.87
/// of copy with 16 lanes, 0.99 with 8; argmax over rows of 256 at 0.80 with
/// 32, 0.96 with 16 (on the H100, 0.98 and 0.97, below). On the H200 (runs
/// 3 and 5 of 2026-11-27), in fractions of copy:
///   - rows of 24 (6 groups): variance 0.58 with 8 lanes, 0.90 with 4, 0.97
///     with 2;
///   - rows of 32, 8 lanes against 4: softmax 0.96 and 0.93, rms_norm 0.99
///     and 0.97, group_norm over 2 channels of 4x4 0.97 and 0.83, layer_norm
///     0.84 and 0.97; argmax 0.50 with 8 lanes, 0.88 with 2;
///   - rows of 64: layer_norm 0.84 with 16 lanes, 0.97 with 8 (variance 0.76
///     and 0.96);
///   - rows of 8 and 16: softmax fastest with a lane a group.
/// Over rows of 100 (25 groups) on the H100 a warp left 7 lanes idle:
/// softmax ran at 0.88 of copy with 32 lanes, 0.998 with 16 (0.91 with 8),
/// layer_norm 0.92 and 0.99, argmax 0.54, 0.72 and 0.92 with 8; over rows
/// of 256, 32 lanes were best for each (16 lanes: argmax 0.97 against 0.98).
int64_t sinter::getRegisterTeamSize(int64_t length, bool argReductions) {
  int64_t groups = length / 4;
  if (groups <= 4 || (groups == 8 && !argReductions))
    return static_cast<int64_t>(llvm::PowerOf2Ceil(groups));
  if (groups <= kMaxSubwarpLanes) {
    int64_t best = 0, bestSlots = 0;
    for (int64_t lanes = 1; lanes <= kMaxSubwarpLanes; lanes *= 2) {
      int64_t perLane = llvm::divideCeil(groups, lanes);
      if (perLane < (argReductions ? 4 : 2) || perLane > 8)
        continue;
      if (!best || lanes * perLane <= bestSlots) {
        best = lanes;
        bestSlots = lanes * perLane;
      }
    }
    if (best)
      return best;
  }
  if (groups > 2 * 32)
    return getTeamSize(length);
  int64_t perLane = argReductions ? 4 : 2;
  auto lanes = static_cast<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(groups, perLane)));
  // Half as many lanes where that leaves fewer group slots idle.
  int64_t half = lanes / 2;
  if (!argReductions && groups > 16 && groups <= 32 &&
      half * llvm::divideCeil(groups, half) <
          lanes * llvm::divideCeil(groups, lanes))
    return half;
  return lanes;
}

/// The team of rows of `length` that are not held in registers: a lane per
/// 4 elements (a power of two) up to kMaxSubwarpLanes lanes, kMaxSubwarpLanes
/// lanes up to 8 elements a lane, else as getTeamSize. On the H100, a warp a
/// row of 3 ran a mean at 0.035 of copy (0.03x torch.compile); softmax over
/// rows of 77 ran at 0.73x torch.compile with a warp a row, 0.92x with 8
/// lanes, 0.97x with 16.
int64_t sinter::getScalarTeamSize(int64_t length) {
  int64_t groups = llvm::divideCeil(length, 4);
  if (groups <= kMaxSubwarpLanes)
    return static_cast<int64_t>(llvm::PowerOf2Ceil(groups));
  if (groups <= 2 * kMaxSubwarpLanes)
    return kMaxSubwarpLanes;
  return getTeamSize(length);
}

/// A block of 256 threads gives each thread one or two float4 groups of a
/// row of 1025 to 2048 elements and a block-wide reduction a statistic; a
/// warp, 9 to 16 groups a lane and shuffles. On the H100 (runs 1-3 of
/// 2026-11-28), in fractions of copy, 256 threads against a warp: amax over
/// rows of 1049 (scalar edges) 0.77 and 0.97, sum over 1300 0.90 and 0.98,
/// layer_norm over 1280 0.93 and 0.98, softmax over 1152 0.89 and 1.00, a
/// masked softmax over 1500 0.91 and 0.98 (in registers); layer_norm over
/// 1600 0.982 and 0.980, amax over 2048 1.01 and 0.99. An argmax, whose
/// team shuffles two values a level, wants more groups a thread: over rows
/// of 1280 0.53 and 0.98, of 2048 0.76 and 0.99 (of 4096, 256 threads:
/// 0.99).
int64_t sinter::getVectorRowTeam(int64_t length, int64_t team,
                                 bool argReductions) {
  int64_t limit = argReductions ? kWarpArgRowLimit : kWarpVectorRowLimit;
  return team > 32 && length <= limit ? 32 : team;
}

/// The floats one thread of a team of `team` holds for `operands` rows of
/// `length` in registers.
int64_t sinter::getRegisterFloats(int64_t length, int64_t team,
                                  int64_t operands) {
  return operands * 4 * llvm::divideCeil(length / 4, team);
}

/// The floats a thread of a team of a warp or fewer may hold in registers
/// over every operand, with the params it holds across its rows. On the
/// H100 (sweep-22 against sweep-21), holding the weight and bias ran
/// layer_norm over rows of 32 at 0.96 -> 1.01 of copy, of 768 0.98 -> 1.01,
/// of 1024 0.99 -> 1.01 (96 floats), x + r into a layer_norm over rows of
/// 1024 (128 floats) 1.016 -> 1.031, rms_norm within 0.6%. Teams of 256
/// threads or more walk few rows a thread and gained nothing: layer_norm
/// over rows of 1280 and 1600, rms_norm over 12288 and a masked softmax
/// over 1500 lost 2-4%, layer_norm over 4096 gained 1%.
static constexpr int64_t kMaxHeldFloats = kMaxRegisterRowFloats;

/// Whether `argument` is a param of one row's elements read at each
/// element's position in its row: every user is elementwise, with trailing
/// dims of the argument's shape (less its leading 1s), `length` elements
/// (a norm's weight over the normalized dims; not group norm's per-channel
/// weight, whose count may equal a group's by chance).
static bool isReadAtRowPositions(BlockArgument argument, int64_t length) {
  auto type = dyn_cast<ShapedType>(argument.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getNumElements() != length || argument.use_empty())
    return false;
  ArrayRef<int64_t> shape =
      type.getShape().drop_while([](int64_t size) { return size == 1; });
  return llvm::all_of(argument.getUsers(), [&](Operation *user) {
    ArrayRef<int64_t> result = getShape(user->getResult(0));
    return isElementwiseOp(user) && result.size() >= shape.size() &&
           result.take_back(shape.size()) == shape;
  });
}

SmallVector<int64_t> sinter::getHeldParams(KernelOp kernel, int64_t length,
                                           int64_t team,
                                           ArrayRef<int64_t> cached,
                                           ArrayRef<int64_t> resultShape) {
  SmallVector<int64_t> held;
  // One row's elements, of a kernel of several rows (or of a dynamic count,
  // whose inputs of whole rows have dynamic shapes).
  std::optional<int64_t> rows = getStaticCount(resultShape);
  if (team > 32 || rows == 1)
    return held;
  for (BlockArgument argument : kernel.getBody().getArguments())
    if (isReadAtRowPositions(argument, length) &&
        !llvm::is_contained(cached, argument.getArgNumber()))
      held.push_back(argument.getArgNumber());
  if (getRegisterFloats(length, team, cached.size() + held.size()) >
      kMaxHeldFloats)
    held.clear();
  return held;
}
