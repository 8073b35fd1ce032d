//===- Combiners.cpp - The reduction combiner table -----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// One row per ReductionCombiner (SinterEnums.td): every pass and code generator
// that treats reductions alike reads it instead of listing the reductions.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

const CombinerInfo &mlir::sinter::getCombinerInfo(ReductionCombiner combiner) {
  // Indexed by the enum's value; the static_assert keeps the two in step.
  static const CombinerInfo table[] = {
      /*sum=*/{"dev::SumOp", /*isIndex=*/false, /*dividesByCount=*/false,
               /*reducesPartials=*/true, /*exactInAnyOrder=*/false},
      /*mean=*/{"dev::SumOp", false, true, true, false},
      /*max=*/{"dev::MaxOp", false, false, true, true},
      /*min=*/{"dev::MinOp", false, false, true, true},
      /*prod=*/{"dev::ProdOp", false, false, true, false},
      /*logsumexp=*/{"", false, false, false, false},
      /*argmax=*/{"dev::ArgMaxOp", true, false, false, true},
      /*argmin=*/{"dev::ArgMinOp", true, false, false, true},
      /*var=*/{"", false, false, false, false},
  };
  static_assert(std::size(table) ==
                    static_cast<size_t>(getMaxEnumValForReductionCombiner()) +
                        1,
                "one row per ReductionCombiner");
  return table[static_cast<size_t>(combiner)];
}
