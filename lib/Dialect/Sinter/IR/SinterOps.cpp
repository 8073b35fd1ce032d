//===- SinterOps.cpp - Sinter dialect operations --------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The shape helpers and the result type inference that op classes share
// (used by SinterOps.cpp.inc); each op family's own verifiers, folders and
// shape rules are in its .cpp (ShapeOps.cpp, ElementwiseOps.cpp, ...). Rules
// that decide a result type live in the inference functions, which run while
// the textual form is parsed and while ops are built, so a bad shape is
// reported at the op's location before any op exists. Rules that do not
// affect the result type live in the verifiers.
//
//===----------------------------------------------------------------------===//

#include "InferenceErrors.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sinter;

#include "sinter/Dialect/Sinter/IR/SinterEnums.cpp.inc"
#include "sinter/Dialect/Sinter/IR/SinterInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

std::string mlir::sinter::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  });
  os << ']';
  return text;
}

/// Broadcasts `lhs` against `rhs` dim by dim, aligned at their trailing
/// dims: `combine(a, b, lhsIndex, rhsIndex)` gives the result size of sizes
/// `a` and `b` (index -1 for a missing leading dim, whose size is 1), or
/// std::nullopt when they do not broadcast; `mismatchDim` then receives the
/// index of that result dim.
static std::optional<SmallVector<int64_t>>
broadcastWith(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
              int64_t *mismatchDim,
              llvm::function_ref<std::optional<int64_t>(int64_t, int64_t,
                                                        int64_t, int64_t)>
                  combine) {
  int64_t rank = std::max(lhs.size(), rhs.size());
  int64_t lhsPad = rank - lhs.size(), rhsPad = rank - rhs.size();
  SmallVector<int64_t> result(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lhsIndex = i - lhsPad, rhsIndex = i - rhsPad;
    std::optional<int64_t> size =
        combine(lhsIndex < 0 ? 1 : lhs[lhsIndex],
                rhsIndex < 0 ? 1 : rhs[rhsIndex], lhsIndex, rhsIndex);
    if (!size) {
      if (mismatchDim)
        *mismatchDim = i;
      return std::nullopt;
    }
    result[i] = *size;
  }
  return result;
}

std::optional<SmallVector<int64_t>>
mlir::sinter::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                              int64_t *mismatchDim) {
  return broadcastWith(
      lhs, rhs, mismatchDim,
      [](int64_t a, int64_t b, int64_t, int64_t) -> std::optional<int64_t> {
        if (a == b || b == 1)
          return a;
        // `?` is either 1 or the other (static, non-1) size at run time.
        if (a == 1 || ShapedType::isDynamic(a))
          return b;
        if (ShapedType::isDynamic(b))
          return a;
        return std::nullopt;
      });
}

std::optional<SmallVector<int64_t>> mlir::sinter::broadcastRunTimeShapes(
    ArrayRef<int64_t> lhsType, ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhsType,
    ArrayRef<int64_t> rhs, int64_t *mismatchDim) {
  assert(lhsType.size() == lhs.size() && rhsType.size() == rhs.size() &&
         "a run-time shape has the rank of its type");
  // A missing leading dim is a static 1.
  auto stretches = [](ArrayRef<int64_t> type, int64_t index) {
    return index < 0 || type[index] == 1;
  };
  return broadcastWith(lhs, rhs, mismatchDim,
                       [&](int64_t a, int64_t b, int64_t lhsIndex,
                           int64_t rhsIndex) -> std::optional<int64_t> {
                         if (a == b || stretches(rhsType, rhsIndex))
                           return a;
                         if (stretches(lhsType, lhsIndex))
                           return b;
                         return std::nullopt;
                       });
}

SmallVector<int64_t> mlir::sinter::reducedShape(ArrayRef<int64_t> shape,
                                                ArrayRef<int64_t> dims,
                                                bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [index, size] : llvm::enumerate(shape)) {
    bool reduced = llvm::is_contained(dims, static_cast<int64_t>(index));
    if (!reduced)
      result.push_back(size);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

std::optional<APFloat> mlir::sinter::getSplatFloat(Attribute attr) {
  auto elements = dyn_cast_if_present<DenseFPElementsAttr>(attr);
  if (!elements || !elements.isSplat())
    return std::nullopt;
  return elements.getSplatValue<APFloat>();
}

//===----------------------------------------------------------------------===//
// Result type inference shared by op classes (used by SinterOps.cpp.inc)
//===----------------------------------------------------------------------===//

LogicalResult mlir::sinter::inferBroadcastResultType(
    std::optional<Location> loc, StringRef opName, Type lhsType, Type rhsType,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = dyn_cast<RankedTensorType>(lhsType);
  auto rhs = dyn_cast<RankedTensorType>(rhsType);
  if (!lhs || !rhs)
    return emitInferenceError(loc, opName, "operands must be ranked tensors");
  if (lhs.getElementType() != rhs.getElementType())
    return emitInferenceError(loc, opName,
                              "element types differ: ", lhs.getElementType(),
                              " vs ", rhs.getElementType());
  int64_t mismatch = 0;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.getShape(), rhs.getShape(), &mismatch);
  if (!shape) {
    int64_t rank = std::max(lhs.getRank(), rhs.getRank());
    int64_t lhsDim = lhs.getDimSize(mismatch - (rank - lhs.getRank()));
    int64_t rhsDim = rhs.getDimSize(mismatch - (rank - rhs.getRank()));
    return emitInferenceError(
        loc, opName,
        "operands are not broadcast-compatible: ", formatShape(lhs.getShape()),
        " vs ", formatShape(rhs.getShape()), " (result dim ", mismatch, ": ",
        lhsDim, " vs ", rhsDim, ")");
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

/// Checks that `dims` names distinct dimensions of a rank-`rank` tensor.
static LogicalResult verifyDimList(std::optional<Location> loc,
                                   StringRef opName, ArrayRef<int64_t> dims,
                                   int64_t rank) {
  if (dims.empty())
    return emitInferenceError(loc, opName, "reduces over no dimension");
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return emitInferenceError(loc, opName, "dim ", dim,
                                " is out of range for an input of rank ", rank);
    if (seen.test(dim))
      return emitInferenceError(loc, opName, "dim ", dim,
                                " is listed more than once");
    seen.set(dim);
  }
  return success();
}

/// Reductions keep the element type and drop (or keep as 1) `dims`.
static LogicalResult
inferReductionResultType(std::optional<Location> loc, StringRef opName,
                         Type inputType, ArrayRef<int64_t> dims, bool keepdim,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input)
    return emitInferenceError(loc, opName, "input must be a ranked tensor");
  if (failed(verifyDimList(loc, opName, dims, input.getRank())))
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get(
      reducedShape(input.getShape(), dims, keepdim), input.getElementType()));
  return success();
}

/// argmax/argmin reduce exactly one dimension and produce i64 indices.
static LogicalResult
inferArgReductionResultType(std::optional<Location> loc, StringRef opName,
                            Type inputType, ArrayRef<int64_t> dims,
                            bool keepdim,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  if (dims.size() > 1)
    return emitInferenceError(loc, opName, "reduces exactly one dim, got ",
                              dims.size());
  if (failed(inferReductionResultType(loc, opName, inputType, dims, keepdim,
                                      inferredReturnTypes)))
    return failure();
  auto floatResult = cast<RankedTensorType>(inferredReturnTypes.back());
  inferredReturnTypes.back() =
      floatResult.clone(IntegerType::get(inputType.getContext(), 64));
  return success();
}

/// softmax/log_softmax keep the input type; `dim` must be in range.
static LogicalResult
inferSoftmaxResultType(std::optional<Location> loc, StringRef opName,
                       Type inputType, int64_t dim,
                       SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input)
    return emitInferenceError(loc, opName, "input must be a ranked tensor");
  if (dim < 0 || dim >= input.getRank())
    return emitInferenceError(loc, opName, "dim ", dim,
                              " is out of range for an input of rank ",
                              input.getRank());
  inferredReturnTypes.push_back(input);
  return success();
}

#define GET_OP_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterOps.cpp.inc"
