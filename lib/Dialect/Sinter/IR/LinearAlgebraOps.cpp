//===- LinearAlgebraOps.cpp - sinter.matmul -------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The result type of a matrix product of plain, transposed or batched
// operands.
//
//===----------------------------------------------------------------------===//

#include "InferenceErrors.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult
MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  StringRef name = getOperationName();
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return emitInferenceError(location, name,
                              "operands must be ranked tensors");
  if (lhs.getElementType() != rhs.getElementType())
    return emitInferenceError(location, name,
                              "element types differ: ", lhs.getElementType(),
                              " vs ", rhs.getElementType());
  for (auto [operandName, type] : {std::pair{"lhs", lhs}, {"rhs", rhs}})
    if (type.getRank() != 2 && type.getRank() != 3)
      return emitInferenceError(location, name, operandName,
                                " must have rank 2 or 3, got rank ",
                                type.getRank());

  // Rows and columns of op(lhs) and op(rhs).
  auto matrixDims = [](RankedTensorType type, bool transposed) {
    int64_t rows = type.getDimSize(type.getRank() - 2);
    int64_t cols = type.getDimSize(type.getRank() - 1);
    return transposed ? std::pair{cols, rows} : std::pair{rows, cols};
  };
  auto [m, lhsK] = matrixDims(lhs, adaptor.getTransposeA());
  auto [rhsK, n] = matrixDims(rhs, adaptor.getTransposeB());
  if (!ShapedType::isDynamic(lhsK) && !ShapedType::isDynamic(rhsK) &&
      lhsK != rhsK)
    return emitInferenceError(location, name, "contraction dims differ: ", lhsK,
                              " vs ", rhsK);

  SmallVector<int64_t> shape;
  if (lhs.getRank() == 3 || rhs.getRank() == 3) {
    ArrayRef<int64_t> lhsBatch = lhs.getShape().drop_back(2);
    ArrayRef<int64_t> rhsBatch = rhs.getShape().drop_back(2);
    std::optional<SmallVector<int64_t>> batch =
        broadcastShapes(lhsBatch, rhsBatch);
    if (!batch)
      return emitInferenceError(location, name,
                                "batch dims differ: ", formatShape(lhsBatch),
                                " vs ", formatShape(rhsBatch));
    shape.append(*batch);
  }
  shape.append({m, n});
  inferredReturnTypes.push_back(lhs.clone(shape));
  return success();
}

/// [batch..., M, K] x [batch..., K, N] -> [batch..., M, N] after the
/// transposes; the batch dims broadcast and the K dims must be equal.
SymbolicShape
MatmulOp::inferSymbolicShape(ArrayRef<SymbolicShape> operandShapes,
                             ShapeConstraints &constraints) {
  SymbolicShape lhs = operandShapes[0], rhs = operandShapes[1];
  if (getTransposeA())
    std::swap(lhs[lhs.size() - 2], lhs[lhs.size() - 1]);
  if (getTransposeB())
    std::swap(rhs[rhs.size() - 2], rhs[rhs.size() - 1]);
  constraints.requireEqual(rhs[rhs.size() - 2], lhs.back(), "contraction dim");
  SymbolicShape shape = broadcastSymbolicShapes(
      ArrayRef(lhs).drop_back(2), ArrayRef(rhs).drop_back(2), constraints);
  shape.push_back(lhs[lhs.size() - 2]);
  shape.push_back(rhs.back());
  return shape;
}
