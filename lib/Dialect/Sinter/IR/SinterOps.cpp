//===- SinterOps.cpp - Sinter dialect operations --------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Result type inference, verifiers and folders of the sinter ops. Rules that
// decide a result type live in the inference functions, which run while the
// textual form is parsed and while ops are built, so a bad shape is reported
// at the op's location before any op exists. Rules that do not affect the
// result type live in the verifiers.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Dialect/Sinter/IR/SinglePass.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"
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

/// Returns true if `attr` is a floating-point splat equal to `value`.
static bool isSplatOf(Attribute attr, double value) {
  std::optional<APFloat> splat = getSplatFloat(attr);
  if (!splat)
    return false;
  bool losesInfo = false;
  APFloat expected(value);
  expected.convert(splat->getSemantics(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  return splat->bitwiseIsEqual(expected);
}

//===----------------------------------------------------------------------===//
// Result type inference shared by op classes (used by SinterOps.cpp.inc)
//===----------------------------------------------------------------------===//

/// Emits `'<op>' op <message>` at `loc` when there is a location.
template <typename... Args>
static LogicalResult emitInferenceError(std::optional<Location> loc,
                                        StringRef opName, Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

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

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult
ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  ElementsAttr value = adaptor.getValue();
  if (!value)
    return emitInferenceError(location, getOperationName(),
                              "requires a 'value' elements attribute");
  inferredReturnTypes.push_back(value.getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

APFloat FillOp::getElementValue() {
  APFloat value = getValueAttr().getValue();
  auto elementType = cast<FloatType>(getType().getElementType());
  bool losesInfo = false;
  value.convert(elementType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value;
}

Value FillOp::getSourceOfDynamicDim(unsigned index) {
  OperandRange sources = getShapeSources();
  return sources.size() == 1 ? sources.front() : sources[index];
}

LogicalResult FillOp::verify() {
  RankedTensorType type = getType();
  ArrayRef<int64_t> dims = getDims();
  int64_t dynamic = llvm::count_if(type.getShape(), ShapedType::isDynamic);
  if (static_cast<int64_t>(dims.size()) != dynamic)
    return emitOpError("names ")
           << dims.size() << " source dims for the " << dynamic
           << " dynamic dims of the result " << formatShape(type.getShape());
  size_t sources = getShapeSources().size();
  if (sources == 0 ||
      (sources != 1 && static_cast<int64_t>(sources) != dynamic))
    return emitOpError("has ")
           << sources << " shape sources; it takes one, or one per dynamic "
           << "dim of the result (" << dynamic << ")";
  for (auto [index, dim] : llvm::enumerate(dims)) {
    auto source =
        cast<RankedTensorType>(getSourceOfDynamicDim(index).getType());
    if (dim < 0 || dim >= source.getRank())
      return emitOpError("dim ") << dim << " is out of range for a source of "
                                 << "rank " << source.getRank();
    if (!source.isDynamicDim(dim))
      return emitOpError("dim ")
             << dim << " of the source has the static size "
             << source.getDimSize(dim)
             << "; write a static size in the result type instead";
  }
  return success();
}

/// fill of a static shape = constant
OpFoldResult FillOp::fold(FoldAdaptor) {
  if (!getType().hasStaticShape())
    return {};
  return DenseElementsAttr::get(getType(), getElementValue());
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult
TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitInferenceError(location, getOperationName(),
                              "input must be a ranked tensor");
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = input.getRank();
  llvm::SmallBitVector seen(rank);
  bool isPermutation = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t index : perm) {
    if (!isPermutation || index < 0 || index >= rank || seen.test(index)) {
      isPermutation = false;
      break;
    }
    seen.set(index);
  }
  if (!isPermutation)
    return emitInferenceError(
        location, getOperationName(), "perm ", formatShape(perm),
        " is not a permutation of the ", rank, " dims of the input");
  SmallVector<int64_t> shape;
  for (int64_t index : perm)
    shape.push_back(input.getDimSize(index));
  inferredReturnTypes.push_back(input.clone(shape));
  return success();
}

/// transpose(x, identity) = x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [position, index] : llvm::enumerate(getPerm()))
    if (static_cast<int64_t>(position) != index)
      return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t>
mlir::sinter::getStaticProductAndDynamicCount(ArrayRef<int64_t> shape) {
  int64_t product = 1, dynamic = 0;
  for (int64_t size : shape) {
    if (ShapedType::isDynamic(size))
      ++dynamic;
    else
      product *= size;
  }
  return {product, dynamic};
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getResult().getType();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError("element types differ: ")
           << inputType.getElementType() << " vs "
           << resultType.getElementType();
  auto [inputCount, inputDynamic] =
      getStaticProductAndDynamicCount(inputType.getShape());
  auto [resultCount, resultDynamic] =
      getStaticProductAndDynamicCount(resultType.getShape());
  if (resultDynamic > 1)
    return emitOpError("result ") << formatShape(resultType.getShape())
                                  << " has more than one dynamic dim";
  if (inputDynamic == 0 && resultDynamic == 0 && inputCount != resultCount)
    return emitOpError("element counts differ: ")
           << formatShape(inputType.getShape()) << " has " << inputCount
           << " elements, " << formatShape(resultType.getShape()) << " has "
           << resultCount;
  if (inputDynamic == 0 && resultDynamic == 1 &&
      (resultCount == 0 || inputCount % resultCount != 0))
    return emitOpError("element count ")
           << inputCount << " of " << formatShape(inputType.getShape())
           << " is not a multiple of the " << resultCount << " elements of "
           << formatShape(resultType.getShape()) << " without its ? dim";
  return success();
}

/// reshape(x : T -> T) = x; reshape(reshape(x)) = reshape(x)
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

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

//===----------------------------------------------------------------------===//
// Binary elementwise folders
//===----------------------------------------------------------------------===//

/// Folds `op(lhs, rhs)` of two splat constants with `compute`, in the
/// element type's own arithmetic, when the result type is static.
template <typename Compute>
static OpFoldResult foldSplats(Attribute lhs, Attribute rhs, Type resultType,
                               Compute compute) {
  std::optional<APFloat> a = getSplatFloat(lhs), b = getSplatFloat(rhs);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!a || !b || !type || !type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(type, compute(*a, *b));
}

/// Returns `value` when it already has the result's type, else nothing: an
/// identity operand that would be broadcast by the op cannot replace it.
static OpFoldResult ifSameType(Value value, Type resultType) {
  return value.getType() == resultType ? OpFoldResult(value) : OpFoldResult();
}

/// x + -0 = x ; -0 + x = x ; c1 + c2 = c (not x + +0, which is +0 where x
/// is -0: sinter-simplify drops a +0 in fast mode only)
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), -0.0))
    return ifSameType(getLhs(), getType());
  if (isSplatOf(adaptor.getLhs(), -0.0))
    return ifSameType(getRhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a + b; });
}

/// x - 0 = x ; c1 - c2 = c
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    return ifSameType(getLhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a - b; });
}

/// x * 1 = x ; 1 * x = x ; c1 * c2 = c
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  if (isSplatOf(adaptor.getLhs(), 1.0))
    return ifSameType(getRhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a * b; });
}

/// x / 1 = x ; c1 / c2 = c
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  return foldSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                    [](APFloat a, const APFloat &b) { return a / b; });
}

/// max(x, x) = x ; max(c1, c2) = c (NaN propagates, as torch.maximum)
OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::maximum(a, b); });
}

/// min(x, x) = x ; min(c1, c2) = c (NaN propagates, as torch.minimum)
OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::minimum(a, b); });
}

/// x ^ 1 = x
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return ifSameType(getLhs(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// Unary folders
//===----------------------------------------------------------------------===//

/// neg(neg(x)) = x
OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

/// abs(abs(x)) = abs(x) ; abs(neg(x)) = abs(x)
OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<AbsOp>())
    return inner.getResult();
  if (auto inner = getInput().getDefiningOp<NegOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

/// relu(relu(x)) = relu(x)
OpFoldResult ReluOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<ReluOp>())
    return inner.getResult();
  return {};
}

LogicalResult SoftplusOp::verify() {
  if (getBeta().isZero())
    return emitOpError("beta must be non-zero");
  return success();
}

LogicalResult HardtanhOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("min ")
           << getMin().convertToDouble() << " is greater than max "
           << getMax().convertToDouble();
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of min and max");
  return success();
}

//===----------------------------------------------------------------------===//
// Reduction folders
//===----------------------------------------------------------------------===//

/// reduce(x) over size-1 dims with keepdim = x, for reductions that are the
/// identity on a single element, bit for bit (not sum, mean and logsumexp:
/// their +0 start turns a -0 into +0).
template <typename ReductionOp>
static OpFoldResult foldUnitReduction(ReductionOp op) {
  if (op.getKeepdim() && op.reducesOnlyUnitDims() &&
      op.getInput().getType() == op.getType())
    return op.getInput();
  return {};
}

/// max over size-1 dims (keepdim) = x
OpFoldResult MaxOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }
/// min over size-1 dims (keepdim) = x
OpFoldResult MinOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }
/// prod over size-1 dims (keepdim) = x
OpFoldResult ProdOp::fold(FoldAdaptor) { return foldUnitReduction(*this); }

//===----------------------------------------------------------------------===//
// Normalization verifiers
//===----------------------------------------------------------------------===//

/// Checks that an optional affine or statistics operand `value` (named
/// `what`) has exactly `expected` as its shape, `?` matching anything.
static LogicalResult verifyParameterShape(Operation *op, Value value,
                                          StringRef what,
                                          ArrayRef<int64_t> expected,
                                          StringRef expectedFrom) {
  if (!value)
    return success();
  auto type = cast<RankedTensorType>(value.getType());
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (type.getElementType() != inputType.getElementType())
    return op->emitOpError()
           << what << " has element type " << type.getElementType()
           << " but the input has " << inputType.getElementType();
  bool matches = type.getRank() == static_cast<int64_t>(expected.size());
  for (auto [actual, wanted] : llvm::zip(type.getShape(), expected))
    if (!ShapedType::isDynamic(actual) && !ShapedType::isDynamic(wanted) &&
        actual != wanted)
      matches = false;
  if (!matches)
    return op->emitOpError()
           << what << " has shape " << formatShape(type.getShape()) << " but "
           << expectedFrom << " is " << formatShape(expected);
  return success();
}

/// Checks `normalized_shape` against the trailing dims of the input.
static LogicalResult verifyNormalizedShape(Operation *op,
                                           ArrayRef<int64_t> normalized) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (normalized.empty())
    return op->emitOpError("normalized_shape must not be empty");
  if (static_cast<int64_t>(normalized.size()) > inputType.getRank())
    return op->emitOpError("normalized_shape ")
           << formatShape(normalized) << " has more dims than the input "
           << formatShape(inputType.getShape());
  ArrayRef<int64_t> trailing =
      inputType.getShape().take_back(normalized.size());
  for (auto [actual, wanted] : llvm::zip(trailing, normalized))
    if (wanted < 1 || (!ShapedType::isDynamic(actual) && actual != wanted))
      return op->emitOpError("normalized_shape ")
             << formatShape(normalized)
             << " does not match the trailing dims of the input "
             << formatShape(inputType.getShape());
  return success();
}

/// Checks that the input has at least `minRank` dims and returns the size of
/// its channel dim (dim 1) through `channels`.
static LogicalResult verifyChannelInput(Operation *op, int64_t minRank,
                                        int64_t &channels) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (inputType.getRank() < minRank)
    return op->emitOpError("input must have rank ")
           << minRank << " or more, got " << formatShape(inputType.getShape());
  channels = inputType.getDimSize(1);
  return success();
}

static LogicalResult verifyEps(Operation *op, double eps) {
  if (!(eps >= 0.0))
    return op->emitOpError("eps must be non-negative, got ") << eps;
  return success();
}

LogicalResult LayerNormOp::verify() {
  ArrayRef<int64_t> shape = getNormalizedShape();
  if (failed(verifyNormalizedShape(*this, shape)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             shape, "normalized_shape")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias", shape,
                                             "normalized_shape")));
}

LogicalResult RmsNormOp::verify() {
  ArrayRef<int64_t> shape = getNormalizedShape();
  if (failed(verifyNormalizedShape(*this, shape)))
    return failure();
  if (getEps() && failed(verifyEps(*this, getEps()->convertToDouble())))
    return failure();
  return verifyParameterShape(*this, getWeight(), "weight", shape,
                              "normalized_shape");
}

LogicalResult GroupNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 2, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  int64_t groups = getNumGroups();
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return emitOpError("channels (")
           << channels << ") are not divisible by num_groups (" << groups
           << ")";
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             {channels}, "channel count")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias",
                                             {channels}, "channel count")));
}

LogicalResult InstanceNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 3, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  return failure(failed(verifyParameterShape(*this, getWeight(), "weight",
                                             {channels}, "channel count")) ||
                 failed(verifyParameterShape(*this, getBias(), "bias",
                                             {channels}, "channel count")));
}

LogicalResult BatchNormOp::verify() {
  int64_t channels = 0;
  if (failed(verifyChannelInput(*this, 2, channels)) ||
      failed(verifyEps(*this, getEps().convertToDouble())))
    return failure();
  if (!getTraining() && (!getRunningMean() || !getRunningVar()))
    return emitOpError("needs running mean and var operands in inference mode");
  for (auto [value, what] : {std::pair{getRunningMean(), "running_mean"},
                             {getRunningVar(), "running_var"},
                             {getWeight(), "weight"},
                             {getBias(), "bias"}})
    if (failed(verifyParameterShape(*this, value, what, {channels},
                                    "channel count")))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ReductionGeometry mlir::sinter::classifyReduction(ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> dims) {
  // The non-unit dims, each marked reduced or kept, in order.
  SmallVector<bool> reduced;
  for (auto [index, size] : llvm::enumerate(shape))
    if (size != 1)
      reduced.push_back(llvm::is_contained(dims, static_cast<int64_t>(index)));
  if (llvm::all_of(reduced, [](bool r) { return r; }))
    return reduced.empty() ? ReductionGeometry::trailing
                           : ReductionGeometry::all;
  // The runs of equal marks: kept-reduced (trailing), reduced-kept (leading),
  // kept-reduced-kept (middle); more runs are strided.
  SmallVector<bool> runs;
  for (bool r : reduced)
    if (runs.empty() || runs.back() != r)
      runs.push_back(r);
  if (runs.size() == 1)
    return ReductionGeometry::trailing; // Only unit dims are reduced.
  if (runs.size() == 2)
    return runs.front() ? ReductionGeometry::leading
                        : ReductionGeometry::trailing;
  if (runs.size() == 3 && !runs.front())
    return ReductionGeometry::middle;
  return ReductionGeometry::strided;
}

//===----------------------------------------------------------------------===//
// KernelPlanAttr
//===----------------------------------------------------------------------===//

/// Whether `strategy` can generate a kernel whose reductions lie as
/// `geometry`: row strategies need trailing dims, a split reduction any
/// (few long rows are split too), the elementwise strategy none; a library
/// GEMM's epilogue may be any.
static bool isStrategyForGeometry(KernelStrategy strategy,
                                  ReductionGeometry geometry) {
  switch (strategy) {
  case KernelStrategy::elementwise:
    return geometry == ReductionGeometry::none;
  case KernelStrategy::subwarp_per_row:
  case KernelStrategy::warp_per_row:
  case KernelStrategy::block_per_row:
  case KernelStrategy::row_by_length:
    return geometry == ReductionGeometry::trailing;
  case KernelStrategy::split_reduction:
  case KernelStrategy::split_welford:
    return geometry != ReductionGeometry::none;
  case KernelStrategy::library_gemm:
    return true;
  }
  llvm_unreachable("unknown strategy");
}

LogicalResult KernelPlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, KernelStrategy strategy,
    ReductionGeometry geometry, int64_t block, int64_t rowsPerBlock,
    int64_t columnsPerBlock, int64_t vectorWidth, DenseI64ArrayAttr cached,
    int64_t passes, int64_t launches, EpilogueForm epilogue, bool singlePass,
    bool registers) {
  if (!isStrategyForGeometry(strategy, geometry))
    return emitError() << "strategy " << stringifyKernelStrategy(strategy)
                       << " cannot reduce "
                       << stringifyReductionGeometry(geometry) << " dims";
  bool subwarp = strategy == KernelStrategy::subwarp_per_row;
  if (subwarp && (block < 1 || block > 16 || !llvm::isPowerOf2_64(block)))
    return emitError() << "subwarp_per_row with " << block
                       << " lanes per row: expected a power of two from 1 "
                          "to 16";
  if (!subwarp && block != 0 && (block < 32 || block > 1024 || block % 32 != 0))
    return emitError() << "block of " << block
                       << " threads: expected whole warps, at most 1024 (or "
                          "0: chosen at launch)";
  bool rows = strategy == KernelStrategy::warp_per_row ||
              strategy == KernelStrategy::block_per_row || subwarp;
  if (rows != (block != 0 && rowsPerBlock > 0) &&
      strategy != KernelStrategy::library_gemm)
    return emitError() << "rows_per_block " << rowsPerBlock << " and block "
                       << block << " do not fit strategy "
                       << stringifyKernelStrategy(strategy);
  bool split = strategy == KernelStrategy::split_reduction ||
               strategy == KernelStrategy::split_welford;
  if (split != (columnsPerBlock > 0 && 256 % columnsPerBlock == 0))
    return emitError() << "columns_per_block " << columnsPerBlock
                       << ": a split reduction needs a divisor of 256, other "
                          "strategies 0";
  if (vectorWidth != 1 && vectorWidth != 4)
    return emitError() << "vector width " << vectorWidth << ": expected 1 or 4";
  if (!cached || llvm::any_of(cached.asArrayRef(),
                              [](int64_t index) { return index < 0; }))
    return emitError() << "cached operand indices must be non-negative";
  if (!cached.empty() && !rows && strategy != KernelStrategy::row_by_length)
    return emitError() << "only row kernels cache operands";
  if (passes < 1 || launches < 1)
    return emitError() << "passes and launches must be at least 1";
  if (singlePass && !rows && strategy != KernelStrategy::row_by_length)
    return emitError() << "only row kernels compute statistics in a single "
                          "pass";
  if ((epilogue != EpilogueForm::none) &&
      strategy != KernelStrategy::library_gemm)
    return emitError() << "only a library GEMM has an epilogue form";
  // Rows in registers are float4 groups at a count per thread fixed by the
  // team; the sub-warp kernel holds its rows nowhere else.
  if (registers && (!rows || vectorWidth != 4))
    return emitError() << "rows in registers need a row strategy of a static "
                          "team and vector width 4";
  if (subwarp && !registers)
    return emitError() << "subwarp_per_row holds its rows in registers";
  return success();
}

/// Whether a kernel of `kind` can run a plan of `strategy`.
static bool isStrategyForKind(KernelStrategy strategy, KernelKind kind) {
  switch (kind) {
  case KernelKind::gemm:
    return strategy == KernelStrategy::library_gemm;
  case KernelKind::pointwise:
    return strategy == KernelStrategy::elementwise;
  case KernelKind::matvec:
    return strategy == KernelStrategy::library_gemm ||
           strategy == KernelStrategy::subwarp_per_row ||
           strategy == KernelStrategy::warp_per_row ||
           strategy == KernelStrategy::block_per_row ||
           strategy == KernelStrategy::row_by_length;
  case KernelKind::row_reduction:
    // Few long rows are split over many blocks.
    return strategy == KernelStrategy::subwarp_per_row ||
           strategy == KernelStrategy::warp_per_row ||
           strategy == KernelStrategy::block_per_row ||
           strategy == KernelStrategy::row_by_length ||
           strategy == KernelStrategy::split_reduction ||
           strategy == KernelStrategy::split_welford;
  case KernelKind::column_reduction:
    return strategy == KernelStrategy::split_reduction ||
           strategy == KernelStrategy::split_welford;
  }
  llvm_unreachable("unknown kernel kind");
}

/// Checks a kernel's plan against the kernel: its strategy fits the kind,
/// and it caches operands the kernel has.
static LogicalResult verifyKernelPlan(KernelOp kernel) {
  KernelPlanAttr plan = kernel.getPlanAttr();
  if (!plan)
    return success();
  if (!isStrategyForKind(plan.getStrategy(), kernel.getKind()))
    return kernel.emitOpError("plan strategy ")
           << stringifyKernelStrategy(plan.getStrategy())
           << " cannot generate a " << stringifyKernelKind(kernel.getKind())
           << " kernel";
  for (int64_t index : plan.getCached().asArrayRef())
    if (index >= static_cast<int64_t>(kernel.getInputs().size()))
      return kernel.emitOpError("plan caches operand #")
             << index << " but the kernel has " << kernel.getInputs().size()
             << " operands";
  // Welford states pair a mean with a variance around it in the same kernel.
  if (plan.getStrategy() == KernelStrategy::split_welford &&
      llvm::none_of(kernel.getBody().front(), [&](Operation &op) {
        std::optional<SinglePassPair> pair = matchSinglePassPair(&op);
        return pair && pair->form == SinglePassForm::Welford &&
               pair->first->getParentOp() == kernel;
      }))
    return kernel.emitOpError("plan strategy split_welford needs a mean and "
                              "a variance around it in the kernel");
  return success();
}

/// Checks what the CUDA emitter of `kind` relies on: a row_reduction kernel
/// reduces trailing dims only (its thread teams own contiguous rows).
static LogicalResult verifyKernelGeometry(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::row_reduction)
    return success();
  for (Operation &op : kernel.getBody().front()) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    if (!reduction)
      continue;
    ReductionGeometry geometry = reduction.getGeometry();
    if (geometry != ReductionGeometry::trailing)
      return op.emitOpError("reduces ")
             << stringifyReductionGeometry(geometry) << " dims "
             << formatShape(reduction.getDims()) << " of "
             << formatShape(
                    cast<ShapedType>(reduction.getInput().getType()).getShape())
             << ", but a row_reduction kernel reduces trailing dims only "
                "(a column_reduction kernel reduces any)";
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region has ")
           << body.getNumArguments() << " arguments but the kernel has "
           << getInputs().size() << " operands";
  for (auto [index, argument, input] :
       llvm::enumerate(body.getArguments(), getInputs()))
    if (argument.getType() != input.getType())
      return emitOpError("region argument #")
             << index << " has type " << argument.getType() << " but operand #"
             << index << " has type " << input.getType();

  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("region must end with sinter.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("terminator yields ")
           << yield.getValues().size() << " values but the kernel has "
           << getNumResults() << " results";
  for (auto [index, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError("terminator operand #")
             << index << " has type " << value.getType() << " but result #"
             << index << " has type " << result.getType();
  if (failed(verifyKernelGeometry(*this)))
    return failure();
  return verifyKernelPlan(*this);
}
