//===- PlanKernels.cpp - Attaches the plan of every sinter.kernel ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Decides how each kernel runs and writes the decision into the IR as a
// #sinter.plan attribute, which the CUDA emitter reads instead of deciding
// again (Triton's Coalesce pass writes its layouts the same way):
//   - a pointwise kernel is a grid-stride loop, with 16-byte vector loads
//     when every output has the full shape (where four consecutive
//     elements may straddle a broadcast row, each lane reads the broadcast
//     values at its own coordinates), each thread of 128 loading 2 or 4
//     float4 groups before it computes them where nothing broadcasts
//     (PlanElementwise.cpp);
//   - a row kernel gives each row to a group of lanes (1 to 16 lanes of a
//     few float4 groups each, several rows per warp), a warp (rows up to
//     1024, several rows per block) or a block (256 threads up to 8192, and
//     up to 16384 for one operand held in registers for several passes or
//     an argmax; 1024 beyond), or lets the launch choose when the row
//     length is symbolic; it
//     holds in registers the inputs that more than one pass over the row
//     reads where each thread's part of the row is a few float4 groups,
//     caches them in shared memory where they fit there, or in that of a
//     thread block cluster of 2 to 8 blocks (a slice of the row a block),
//     or streams rows too long for that through L2 in slices (a persistent
//     grid: a slice's statistics, then, a bounded lag later, its outputs
//     read from L2), and otherwise reads them once per pass, computing pairs of
//     statistics that one pass can (online softmax, Welford) in one, with
//     16-byte vectors when rows are a multiple of 4 long; short rows that
//     are not (5 to 128 elements, or 2 and 3 that several passes read or a
//     thread's tile holds) are staged as the block's tiles in shared
//     memory, copied to and from HBM as 16-byte vectors, or held as each
//     thread's tile of the rows that make whole float4 groups in its
//     registers (2 rows of 2, 4 of 3: PlanSharedRows.cpp);
//   - few long rows (fewer than two per SM, longer than 8192) that are not
//     streamed, rows that only a cluster's slices over 112 KiB hold, and
//     any other
//     geometry are split reductions: partials over many blocks,
//     an ordered fold, an apply step when some output is not a statistic;
//     a mean and a variance around it (training batch_norm, var) are one
//     pass of Welford states (split_welford), else a max and the sum of
//     exp(x - max) (softmax) one of online softmax states
//     (split_online_softmax);
//     a block covers one position (its threads split the reduced elements)
//     when the innermost dim is reduced, up to 256 adjacent positions
//     otherwise, and each thread several positions of columns of at most 8
//     rows read by scalar loads;
//   - a GEMM runs in the library, its epilogue in cuBLASLt when it is
//     exactly bias (+ relu or tanh-gelu), in one generated kernel otherwise.
// Launch bounds ask for the blocks per SM that ran fastest (Occupancy.cpp).
// A kernel that has a plan already (written by hand in a test) keeps it.
//
//===----------------------------------------------------------------------===//

#include "PlanUtils.h"

#include "sinter/Dialect/Sinter/Analysis/SymbolicShapeAnalysis.h"
#include "sinter/Dialect/Sinter/Transforms/CostModel.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERPLANKERNELS
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

/// The geometry of the reductions of `body`: that of the first reduction op
/// (the formation policy puts only reductions of one geometry in a kernel),
/// trailing for dot products, none without reductions.
static ReductionGeometry getKernelGeometry(Block &body) {
  for (Operation &op : body)
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      return reduction.getGeometry();
  return ReductionGeometry::none;
}

/// Whether the epilogue of `matmul` is exactly what a cuBLASLt epilogue
/// computes: product + bias (a kernel operand of shape [N] or [1, N]),
/// optionally followed by relu or tanh-gelu, each used once, the last one
/// the kernel's only result.
static bool isLibraryEpilogue(Block &body, MatmulOp matmul) {
  ValueRange outputs = body.getTerminator()->getOperands();
  Value product = matmul.getResult();
  // cuBLASLt's epilogues are used for unbatched GEMMs only.
  if (outputs.size() != 1 || !product.hasOneUse() ||
      getShape(matmul.getLhs()).size() != 2 ||
      getShape(matmul.getRhs()).size() != 2)
    return false;
  auto add = dyn_cast<AddOp>(*product.getUsers().begin());
  if (!add)
    return false;
  Value bias = add.getLhs() == product ? add.getRhs() : add.getLhs();
  ArrayRef<int64_t> biasShape = getShape(bias);
  if (!isa<BlockArgument>(bias) || biasShape.empty() || biasShape.size() > 2 ||
      biasShape.back() != getShape(product).back() ||
      (biasShape.size() == 2 && biasShape.front() != 1))
    return false;
  Value last = add.getResult();
  if (outputs.front() == last)
    return true;
  if (!last.hasOneUse())
    return false;
  Operation *activation = *last.getUsers().begin();
  auto gelu = dyn_cast<GeluOp>(activation);
  bool fits = isa<ReluOp>(activation) ||
              (gelu && gelu.getApproximate() == GeluApproximation::tanh);
  return fits && outputs.front() == activation->getResult(0);
}

/// The plan of a GEMM kernel: the library GEMM, and its epilogue.
static KernelPlanAttr planGemm(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  Block &body = kernel.getBody().front();
  MatmulOp matmul;
  bool hasEpilogue = false;
  for (Operation &op : body.without_terminator()) {
    if (auto found = dyn_cast<MatmulOp>(op))
      matmul = found;
    else if (matmul)
      hasEpilogue = true;
  }
  EpilogueForm epilogue = !hasEpilogue ? EpilogueForm::none
                          : isLibraryEpilogue(body, matmul)
                              ? EpilogueForm::library
                              : EpilogueForm::generated;
  // A generated epilogue is a second launch, which reads the product.
  int64_t launches = epilogue == EpilogueForm::generated ? 2 : 1;
  return KernelPlanAttr::get(
      context, KernelStrategy::library_gemm, getKernelGeometry(body),
      /*block=*/0, /*rowsPerBlock=*/0, /*columnsPerBlock=*/0,
      /*vectorWidth=*/1, DenseI64ArrayAttr::get(context, {}),
      /*passes=*/1, launches, epilogue);
}

/// The plan of `kernel`, whose values have `shapes` (null where unknown).
static KernelPlanAttr planKernel(KernelOp kernel,
                                 const SymbolicShapeAnalysis *shapes) {
  switch (kernel.getKind()) {
  case KernelKind::gemm:
    return planGemm(kernel);
  case KernelKind::matvec:
    // One output column: a dot product per row; otherwise the library.
    for (auto matmul : kernel.getBody().front().getOps<MatmulOp>())
      if (getShape(matmul.getResult()).back() != 1)
        return planGemm(kernel);
    return planRows(kernel);
  case KernelKind::row_reduction:
    return planRowReduction(kernel);
  case KernelKind::column_reduction:
    return planSplitReduction(kernel);
  case KernelKind::pointwise:
    return planElementwise(kernel, shapes);
  }
  llvm_unreachable("unknown kernel kind");
}

namespace {
struct SinterPlanKernels
    : public sinter::impl::SinterPlanKernelsBase<SinterPlanKernels> {
  void runOnOperation() override {
    // The symbolic shapes of each function's values, as the emitter sees
    // them (each unnamed `?` a size of its own).
    getOperation()->walk([](func::FuncOp func) {
      if (func.isExternal())
        return;
      SymbolicShapeAnalysis shapes;
      for (BlockArgument argument : func.getArguments())
        if (auto type = dyn_cast<RankedTensorType>(argument.getType()))
          shapes.setShape(argument,
                          getNamedShape(type, CostModel::getArgumentDimNames(
                                                  func, argument)));
      bool known = succeeded(shapes.visitBlock(func.getBody().front()));
      func.walk([&](KernelOp kernel) {
        if (!kernel.getPlanAttr())
          kernel.setPlanAttr(planKernel(kernel, known ? &shapes : nullptr));
      });
    });
    getOperation()->walk([](KernelOp kernel) {
      if (!kernel.getPlanAttr())
        kernel.setPlanAttr(planKernel(kernel, nullptr));
    });
  }
};
} // namespace
