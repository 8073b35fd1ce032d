//===- ThreadTiles.h - Rows tiled in a thread's registers -------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A row kernel's tiles held in each thread's registers (the plan's
// rows_per_thread), and the bound on rows in registers (the plan's
// registers): one rule for sinter-plan-kernels, the plan's verifier and the
// CUDA emitter.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_THREADTILES_H
#define SINTER_DIALECT_SINTER_IR_THREADTILES_H

#include <cstdint>
#include <numeric>

namespace mlir::sinter {

/// The threads of a block whose tiles of rows live in their registers.
inline constexpr int64_t kThreadTileThreads = 256;

/// The elements of one operand (an input or an output of whole rows) in a
/// thread's tile, and of all of them, at most.
inline constexpr int64_t kMaxThreadTileFloats = 32;
inline constexpr int64_t kMaxThreadTileFloatsInAll = 64;

/// The floats a thread of a team that holds its rows in registers as
/// float4 groups (the plan's registers) holds at most, over every operand
/// it holds and the params it holds across its rows (held_params).
inline constexpr int64_t kMaxRegisterRowFloats = 128;

/// The consecutive rows of `length` elements that make whole float4 groups
/// (a thread's tile): 1 for a multiple of 4, 2 for rows of 2, 6, 10, 14, 4
/// for odd lengths.
inline constexpr int64_t getThreadTileRows(int64_t length) {
  return length <= 0 ? 1 : 4 / std::gcd<int64_t>(length, 4);
}

} // namespace mlir::sinter

#endif // SINTER_DIALECT_SINTER_IR_THREADTILES_H
