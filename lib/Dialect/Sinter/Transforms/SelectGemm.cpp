//===- SelectGemm.cpp - Mark the GEMMs that run as 3xTF32 -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinter-select-gemm: decides per gemm kernel of @forward whether it runs as
// 3xTF32 (isTf32x3Candidate), then marks it (sinter.gemm_algorithm).
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/Transforms/SelectGemm.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"

namespace mlir::sinter {
#define GEN_PASS_DEF_SINTERSELECTGEMM
#include "sinter/Dialect/Sinter/Transforms/Passes.h.inc"
} // namespace mlir::sinter

using namespace mlir;
using namespace mlir::sinter;

/// The kernel operand that region argument `value` of `kernel` receives, or
/// null when `value` is not a region argument.
static Value getKernelOperand(KernelOp kernel, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &kernel.getBody().front())
    return nullptr;
  return kernel.getInputs()[argument.getArgNumber()];
}

/// Whether `value`, an operand of a kernel in @forward, is a param or a
/// prepared value: the same in every forward call.
static bool isParamOrPrepared(Value value) {
  auto argument = dyn_cast_or_null<BlockArgument>(value);
  if (!argument)
    return false;
  auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  if (!func || func.getSymName() != kForwardFuncName)
    return false;
  auto role =
      func.getArgAttrOfType<StringAttr>(argument.getArgNumber(), kRoleAttrName);
  return role &&
         (role.getValue() == kParamRole || role.getValue() == kPreparedRole);
}

/// Whether `transpose` swaps the last two dims of a 2-D value.
static bool isTranspose2D(TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  return perm.size() == 2 && perm[0] == 1 && perm[1] == 0;
}

bool mlir::sinter::isTf32x3Candidate(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::gemm)
    return false;
  MatmulOp matmul;
  for (auto candidate : kernel.getBody().front().getOps<MatmulOp>()) {
    if (matmul)
      return false;
    matmul = candidate;
  }
  if (!matmul || matmul.getTransposeA() ||
      !cast<RankedTensorType>(matmul.getResult().getType())
           .getElementType()
           .isF32())
    return false;
  // x: a kernel input of rank 2 (or 3: [B, T, K] is one GEMM of B * T rows).
  Value x = matmul.getLhs();
  auto xType = cast<RankedTensorType>(x.getType());
  if (!getKernelOperand(kernel, x) || xType.getRank() < 2 ||
      xType.getRank() > 3)
    return false;
  // w^T: transpose_b of w, or an explicit 2-D transpose of it.
  Value w = matmul.getRhs();
  bool transposed = matmul.getTransposeB();
  if (auto transpose = w.getDefiningOp<TransposeOp>();
      transpose && isTranspose2D(transpose)) {
    w = transpose.getInput();
    transposed = !transposed;
  }
  auto wType = cast<RankedTensorType>(w.getType());
  return transposed && wType.getRank() == 2 && wType.hasStaticShape() &&
         isParamOrPrepared(getKernelOperand(kernel, w));
}

StringRef mlir::sinter::getGemmAlgorithm(KernelOp kernel) {
  auto algorithm = kernel->getAttrOfType<StringAttr>(kGemmAlgorithmAttrName);
  return algorithm ? algorithm.getValue() : StringRef();
}

namespace {
struct SelectGemmPass
    : public sinter::impl::SinterSelectGemmBase<SelectGemmPass> {
  void runOnOperation() override {
    func::FuncOp forward = getForwardFunc(getOperation());
    if (!forward)
      return markAllAnalysesPreserved();
    SmallVector<KernelOp> chosen;
    for (auto kernel : forward.getBody().front().getOps<KernelOp>())
      if (isTf32x3Candidate(kernel))
        chosen.push_back(kernel);
    Builder builder(&getContext());
    for (KernelOp kernel : chosen)
      kernel->setAttr(kGemmAlgorithmAttrName,
                      builder.getStringAttr(kTf32x3Algorithm));
  }
};
} // namespace
