//===- OpClasses.cpp - How the CUDA emitter groups sinter ops -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "OpClasses.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

bool cuda::isElementwiseUnary(Operation *op) {
  return isa<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SigmoidOp,
             ReluOp, SiluOp, MishOp, SeluOp, HardsigmoidOp, HardswishOp,
             SoftsignOp, ErfOp, Expm1Op, Log1pOp, SignOp, LeakyReluOp, GeluOp,
             SoftplusOp, EluOp, HardtanhOp, ClampOp>(op);
}

bool cuda::isElementwiseBinary(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp,
             CompareOp>(op);
}

bool cuda::isElementwise(Operation *op) {
  return isElementwiseUnary(op) || isElementwiseBinary(op) || isa<SelectOp>(op);
}

StringRef cuda::stringifyReductionKind(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return "sum";
  case ReductionKind::Mean:
    return "mean";
  case ReductionKind::Max:
    return "max";
  case ReductionKind::Min:
    return "min";
  case ReductionKind::Prod:
    return "prod";
  case ReductionKind::Argmax:
    return "argmax";
  case ReductionKind::Argmin:
    return "argmin";
  }
  llvm_unreachable("unknown reduction kind");
}

/// Builds the ReductionInfo of a reduction op of kind `kind`.
template <typename OpTy>
static ReductionInfo makeInfo(OpTy op, ReductionKind kind) {
  return {kind,           op.getOperation(), op.getInput(),
          op.getResult(), op.getDims(),      op.getKeepdim()};
}

std::optional<ReductionInfo> cuda::getReductionInfo(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ReductionInfo>>(op)
      .Case([](SumOp op) { return makeInfo(op, ReductionKind::Sum); })
      .Case([](MeanOp op) { return makeInfo(op, ReductionKind::Mean); })
      .Case([](MaxOp op) { return makeInfo(op, ReductionKind::Max); })
      .Case([](MinOp op) { return makeInfo(op, ReductionKind::Min); })
      .Case([](ProdOp op) { return makeInfo(op, ReductionKind::Prod); })
      .Case([](ArgmaxOp op) { return makeInfo(op, ReductionKind::Argmax); })
      .Case([](ArgminOp op) { return makeInfo(op, ReductionKind::Argmin); })
      .Default([](Operation *) { return std::nullopt; });
}
