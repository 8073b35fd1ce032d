//===- Shapes.cpp - Symbolic tensor shapes for the CUDA emitter -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "Shapes.h"

#include "OpClasses.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

std::string cuda::formatLocation(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = formatLocation(inner); !text.empty())
        return text;
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLocation(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()))
        .str();
  return "";
}

//===----------------------------------------------------------------------===//
// ShapeAnalysis
//===----------------------------------------------------------------------===//

FailureOr<Shape> cuda::getArgumentShape(Operation *op, RankedTensorType type,
                                        ArrayRef<std::string> dimNames,
                                        StringRef what) {
  Shape shape;
  for (auto [index, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      shape.push_back(DimExpr::constant(size));
      continue;
    }
    if (index >= dimNames.size() || dimNames[index].empty())
      return op->emitError() << what << ": dynamic dim #" << index
                             << " has no name in sinter.dim_names",
             failure();
    shape.push_back(DimExpr::symbol(dimNames[index]));
  }
  return shape;
}

const Shape &ShapeAnalysis::getShape(Value value) const {
  const Shape *shape = analysis.lookup(value);
  assert(shape && "value outside the analyzed function");
  return *shape;
}

/// Describes `op` for messages: "sinter.add at model.sinter:3".
static std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (std::string loc = formatLocation(op->getLoc()); !loc.empty())
    text += " at " + loc;
  return text;
}

bool ShapeAnalysis::isGenerated(Operation *op) {
  if (isa<KernelOp, func::ReturnOp>(op))
    return true;
  if (isCompositeOp(op) || !isa<SymbolicShapeOpInterface>(op))
    return false;
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  return !reduction || getReductionInfo(op).has_value();
}

void ShapeAnalysis::addCheck(Operation *op, const ShapeConstraint &constraint) {
  std::string what = constraint.what + " of " + describe(op);
  std::string lhs = constraint.lhs.str(), rhs = constraint.rhs.str();
  switch (constraint.kind) {
  case ShapeConstraint::Kind::Equal:
    checks.push_back({lhs, rhs, rhs, what + " (must equal " + rhs + ")"});
    return;
  case ShapeConstraint::Kind::Multiple:
    checks.push_back({"(" + lhs + " % " + rhs + ")", "0", "0",
                      what + " (must be a multiple of " + rhs + ")"});
    return;
  }
}

LogicalResult ShapeAnalysis::check(Operation *op,
                                   ArrayRef<ShapeConstraint> constraints) {
  if (!isGenerated(op))
    return op->emitError("CUDA emitter: cannot generate code for '")
           << op->getName()
           << "' (the emitter expects decomposed, fused IR: run "
              "sinter-decompose and sinter-form-kernels first)";
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    for (auto [index, size] : llvm::enumerate(getShape(result)))
      if (type.isDynamicDim(index) && !size.isExpressible())
        return op->emitError("CUDA emitter: the size of dim #")
               << index << " cannot be expressed over the model's dims";
  }
  for (const ShapeConstraint &constraint : constraints)
    addCheck(op, constraint);
  for (Value result : op->getResults())
    requireSizeFits(getShape(result), "the result of " + describe(op));
  return success();
}

void ShapeAnalysis::requireSizeFits(const Shape &shape, StringRef what) {
  // The most elements of a tensor and the largest value of a dim.
  constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 8;
  constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
  DimExpr count = getNumElements(shape);
  if (!count.isExpressible() || count.getConstant() ||
      !checkedSizes.insert(count.str()).second)
    return;
  // Each factor in turn, bounded by what the ones before it leave.
  int64_t coefficient = count.getCeilCoefficient(), bound = coefficient;
  std::string limit = "INT64_MAX / 8";
  if (coefficient != 1)
    limit += " / " + std::to_string(coefficient);
  for (const std::string &factor : count.getFactors()) {
    if (llvm::MulOverflow(bound, kMaxDim, bound) || bound > kMaxElements) {
      checks.push_back({factor, "1", limit,
                        factor + " (" + what.str() + ", " + formatShape(shape) +
                            ", must have at most 2^60 elements)"});
      bound = kMaxElements;
    }
    limit += " / " + factor;
  }
}

LogicalResult ShapeAnalysis::run(func::FuncOp func,
                                 ArrayRef<Shape> argumentShapes) {
  for (auto [index, argument, shape] :
       llvm::enumerate(func.getArguments(), argumentShapes)) {
    requireSizeFits(shape, "argument #" + std::to_string(index));
    analysis.setShape(argument, shape);
  }
  return analysis.visitBlock(
      func.getBody().front(),
      [&](Operation *op, ArrayRef<ShapeConstraint> constraints) {
        return check(op, constraints);
      });
}
