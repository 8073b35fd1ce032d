//===- RowPlan.cpp - What a row kernel reads ------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// Returns true if the dims that the reduction does not reduce are all of
/// size 1 after the first reduced dim that is not (the reduced elements of
/// one result are then contiguous; with only size-1 dims reduced, each
/// result reduces one element), as classifyReduction's `trailing`.
static bool reducesTrailingBlock(ArrayRef<DimExpr> shape,
                                 ArrayRef<int64_t> dims) {
  if (dims.empty())
    return false;
  std::optional<int64_t> first;
  for (int64_t d : dims)
    if (!shape[d].isConstant(1))
      first = std::min(first.value_or(d), d);
  if (!first)
    return true;
  for (int64_t d = *first; d < static_cast<int64_t>(shape.size()); ++d)
    if (!llvm::is_contained(dims, d) && !shape[d].isConstant(1))
      return false;
  return true;
}

/// Collects the reductions of `kernel`, with their input shapes and group
/// sizes (levels and segments come later).
static FailureOr<std::vector<RowReduction>>
collectReductions(EmitterContext &context, const EvalKernel &kernel) {
  std::vector<RowReduction> reductions;
  for (Operation &op : *kernel.body) {
    if (std::optional<ReductionInfo> info = getReductionInfo(&op)) {
      const Shape &shape = context.shapes.getShape(info->input);
      if (!reducesTrailingBlock(shape, info->dims))
        return op.emitError("CUDA emitter: a row_reduction kernel reduces "
                            "trailing dims only");
      RowReduction reduction;
      reduction.kind = info->kind;
      reduction.op = &op;
      reduction.result = info->result;
      reduction.inputShape = shape;
      reduction.groupSize =
          getNumElements(shape) /
          getNumElements(context.shapes.getShape(info->result));
      reductions.push_back(std::move(reduction));
      continue;
    }
    auto matmul = dyn_cast<MatmulOp>(op);
    if (!matmul || kernel.isInput(matmul.getResult()))
      continue;
    if (!llvm::is_contained(kernel.dotProducts, matmul))
      return op.emitError("CUDA emitter: a matmul in a row kernel must be a "
                          "matrix-vector product");
    // [..., M, 1] = lhs [..., M, K] @ rhs [..., K, 1]: a sum over K.
    Shape shape = context.shapes.getShape(matmul.getResult());
    Shape lhs = context.shapes.getShape(matmul.getLhs());
    DimExpr contraction =
        matmul.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
    shape.back() = contraction;
    RowReduction reduction;
    reduction.kind = ReductionCombiner::sum;
    reduction.op = &op;
    reduction.result = matmul.getResult();
    reduction.inputShape = shape;
    reduction.groupSize = contraction;
    reductions.push_back(std::move(reduction));
  }
  if (reductions.empty())
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: a row_reduction kernel has no reduction");
  return reductions;
}

/// The leaf buffers that `value` reads, stopping at reduction results.
static void collectLeafReads(Value value, const llvm::DenseSet<Value> &stops,
                             const llvm::DenseSet<Value> &leaves,
                             llvm::DenseSet<Value> &visited,
                             llvm::SetVector<Value> &found) {
  if (!visited.insert(value).second)
    return;
  if (leaves.contains(value)) {
    found.insert(value);
    return;
  }
  if (stops.contains(value))
    return;
  if (Operation *op = value.getDefiningOp())
    for (Value operand : op->getOperands())
      collectLeafReads(operand, stops, leaves, visited, found);
}

/// The values a reduction reads its elements from.
static SmallVector<Value> getReducedValues(const RowReduction &reduction) {
  if (auto matmul = dyn_cast<MatmulOp>(reduction.op))
    return {matmul.getLhs(), matmul.getRhs()};
  return {reduction.op->getOperand(0)};
}

/// Finds the dot product of a matvec kernel that float4 loads can read: the
/// only reduction, of two input buffers (lhs [M, K], rhs [K, 1] or [1, K]),
/// with a static K that is a multiple of 4, its lhs not cached.
static std::optional<VectorDot> findVectorDot(const EvalKernel &kernel,
                                              RowPlan &plan) {
  if (plan.reductions.size() != 1 || kernel.dotProducts.size() != 1)
    return std::nullopt;
  auto matmul = dyn_cast<MatmulOp>(plan.reductions.front().op);
  if (!matmul || matmul.getTransposeA())
    return std::nullopt;
  auto bufferOf = [&](Value value) -> const Buffer * {
    for (const Buffer &input : kernel.inputs)
      if (input.value == value && input.shape.size() == 2)
        return &input;
    return nullptr;
  };
  const Buffer *lhs = bufferOf(matmul.getLhs()),
               *rhs = bufferOf(matmul.getRhs());
  std::optional<int64_t> size = plan.reductions.front().groupSize.getConstant();
  bool lhsCached = llvm::any_of(
      plan.cached, [&](auto &entry) { return entry.first == lhs; });
  if (!lhs || !rhs || lhsCached || !size || *size % 4 != 0)
    return std::nullopt;
  return VectorDot{&plan.reductions.front(), lhs, rhs, *size};
}

/// Marks the pairs of per-row reductions that one pass computes (see
/// SinglePass.h): the inner one's pass computes the outer one too.
static void pairSinglePassReductions(std::vector<RowReduction> &reductions) {
  for (RowReduction &outer : reductions) {
    std::optional<SinglePassPair> pair = matchSinglePassPair(outer.op);
    if (!pair || !outer.isPerRow())
      continue;
    for (RowReduction &inner : reductions)
      if (inner.op == pair->first && inner.isPerRow() &&
          inner.groupSize == outer.groupSize && !inner.fusedOuter) {
        inner.fusedOuter = &outer;
        inner.form = pair->form;
        inner.clampedMax = pair->clampedMax;
        outer.fusedIntoInner = true;
      }
  }
}

bool RowPlan::isSliced(const DimExpr &length) const {
  return getRowSlices() > 1 && length == DimExpr::constant(*staticRowLength);
}

std::string RowPlan::getRowLoop(const DimExpr &length) const {
  // A streamed slice is read from HBM or L2: unrolled, eight loads of each
  // thread are in flight at once.
  if (isSliced(length))
    return std::string(rowSlices > 1 ? "#pragma unroll 8\n" : "") +
           "for (int64_t j = begin + tid; j < " + getSliceEnd() +
           "; j += kThreads) {";
  if (hasEdges(length))
    return "for (int64_t k = tid; k < (vec ? vecEdges : " + length.str() +
           "); k += kThreads) {";
  // A static team's few steps over a static row: unrolled, each predicated.
  std::optional<int64_t> size = length.getConstant();
  if (staticTeam && size &&
      llvm::divideCeil(*size, staticTeam) <= kMaxUnrolledRowSteps)
    return "#pragma unroll\nfor (int k = 0; k < " +
           std::to_string(llvm::divideCeil(*size, staticTeam)) +
           "; ++k) if (const int j = tid + k * kThreads; j < " + length.str() +
           ") {";
  return "for (int64_t j = tid; j < " + length.str() + "; j += kThreads) {";
}

std::string RowPlan::getSliceEnd() const {
  return hasShortSlice() ? "end" : "begin + " + std::to_string(getRowSlice());
}

std::string RowPlan::getCachedFloats(const DimExpr &perRow) const {
  return isSliced(perRow) ? std::to_string(getRowSlice()) : perRow.str();
}

std::string RowPlan::getFilledFloats(const DimExpr &perRow) const {
  return isSliced(perRow) && hasShortSlice() ? "end - begin"
                                             : getCachedFloats(perRow);
}

FailureOr<RowPlan> cuda::planRowKernel(EmitterContext &context,
                                       const EvalKernel &kernel) {
  RowPlan plan;
  FailureOr<std::vector<RowReduction>> reductions =
      collectReductions(context, kernel);
  if (failed(reductions))
    return failure();
  plan.reductions = std::move(*reductions);

  // Levels: a reduction comes after every reduction it reads.
  llvm::DenseSet<Value> results;
  SmallVector<Value> resultList;
  SmallVector<SmallVector<Value>> reads;
  for (RowReduction &reduction : plan.reductions) {
    results.insert(reduction.result);
    resultList.push_back(reduction.result);
    reads.push_back(getReducedValues(reduction));
  }
  SmallVector<unsigned> levels = computeReductionLevels(resultList, reads);
  for (auto [reduction, level] : llvm::zip(plan.reductions, levels))
    reduction.level = level;
  llvm::stable_sort(plan.reductions,
                    [](const RowReduction &a, const RowReduction &b) {
                      return a.level < b.level;
                    });

  // Rows: the result count of some reduction that divides every other's.
  auto divides = [](const DimExpr &rows, const DimExpr &count) {
    DimExpr quotient = count / rows;
    return quotient.isExpressible() && !quotient.hasFraction();
  };
  std::optional<DimExpr> rows;
  for (RowReduction &candidate : plan.reductions) {
    DimExpr count = getNumElements(context.shapes.getShape(candidate.result));
    bool dividesAll = llvm::all_of(plan.reductions, [&](RowReduction &other) {
      return divides(count,
                     getNumElements(context.shapes.getShape(other.result)));
    });
    bool dividesOutputs =
        llvm::all_of(kernel.outputs, [&](const Buffer &output) {
          return divides(count, getNumElements(output.shape));
        });
    if (dividesAll && dividesOutputs) {
      rows = count;
      break;
    }
  }
  if (!rows)
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: the reductions and outputs of a "
                     "row_reduction kernel do not share rows");
  plan.rows = *rows;
  for (RowReduction &reduction : plan.reductions) {
    reduction.segments =
        getNumElements(context.shapes.getShape(reduction.result)) / plan.rows;
    if (!reduction.isPerRow() && reduction.isArg())
      return reduction.op->emitError(
          "CUDA emitter: argmax/argmin over segments of a row is not "
          "supported");
    plan.rowLengths.push_back(getNumElements(reduction.inputShape) / plan.rows);
  }
  for (const Buffer &output : kernel.outputs)
    plan.rowLengths.push_back(getNumElements(output.shape) / plan.rows);

  // The plan's single-pass statistics: pairs of per-row reductions.
  if (kernel.plan && kernel.plan.getSinglePass())
    pairSinglePassReductions(plan.reductions);

  // Caching: inputs with whole rows that more than one pass reads.
  llvm::DenseSet<Value> leaves;
  for (const Buffer &input : kernel.inputs)
    leaves.insert(input.value);
  llvm::DenseMap<Value, unsigned> passes;
  auto countPass = [&](ArrayRef<Value> roots) {
    llvm::DenseSet<Value> visited;
    llvm::SetVector<Value> found;
    for (Value root : roots)
      collectLeafReads(root, results, leaves, visited, found);
    for (Value leaf : found)
      ++passes[leaf];
  };
  for (RowReduction &reduction : plan.reductions)
    countPass(getReducedValues(reduction));
  SmallVector<Value> outputValues;
  for (const Buffer &output : kernel.outputs)
    outputValues.push_back(output.value);
  countPass(outputValues);
  for (const Buffer &input : kernel.inputs) {
    DimExpr perRow = getNumElements(input.shape) / plan.rows;
    bool wholeRows = perRow.isExpressible() && !perRow.hasFraction() &&
                     !perRow.isConstant(1);
    // The kernel's plan names the operands it caches; the epilogue of a
    // GEMM caches what more than one pass reads.
    bool cache = kernel.plan
                     ? llvm::is_contained(
                           kernel.plan.getCached().asArrayRef(),
                           cast<BlockArgument>(input.value).getArgNumber())
                     : passes.lookup(input.value) > 1 && !input.isIndex;
    if (cache && wholeRows)
      plan.cached.emplace_back(&input, perRow);
    if (kernel.plan && kernel.plan.getHeldParams() &&
        llvm::is_contained(kernel.plan.getHeldParams().asArrayRef(),
                           cast<BlockArgument>(input.value).getArgNumber()))
      plan.heldParams.push_back(input.value);
  }

  // Static sizes let the plan be fixed here; otherwise the host decides.
  plan.staticRowLength = 1;
  for (const DimExpr &length : plan.rowLengths) {
    std::optional<int64_t> value = length.getConstant();
    if (!value) {
      plan.staticRowLength.reset();
      break;
    }
    plan.staticRowLength = std::max(*plan.staticRowLength, *value);
  }
  plan.staticShared = plan.staticRowLength.has_value();
  for (RowReduction &reduction : plan.reductions)
    plan.staticShared &= reduction.segments.getConstant().has_value();
  plan.vectorDot = findVectorDot(kernel, plan);
  if (plan.vectorDot)
    plan.vectorBuffers = {plan.vectorDot->lhs->name, plan.vectorDot->rhs->name};
  // The plan's float4 rows: every input and output with whole rows.
  plan.vectorRows = kernel.plan && kernel.plan.getVectorWidth() == 4 &&
                    !plan.vectorDot && plan.staticRowLength &&
                    *plan.staticRowLength % 4 == 0;
  // Other rows read from HBM by every pass: float4 groups and scalar edges.
  plan.vectorEdges =
      kernel.plan && kernel.plan.getVectorWidth() == 4 && !plan.vectorDot &&
      plan.staticRowLength && *plan.staticRowLength % 4 != 0 &&
      *plan.staticRowLength > 4 && plan.cached.empty() &&
      !kernel.plan.getRegisters() && kernel.plan.getCluster() == 1 &&
      kernel.plan.getRowSlices() == 1 &&
      llvm::all_of(plan.reductions, [&](const RowReduction &reduction) {
        return reduction.isPerRow() && !reduction.isArg() &&
               reduction.groupSize == DimExpr::constant(*plan.staticRowLength);
      });
  if (plan.vectorRows || plan.vectorEdges) {
    auto addWholeRows = [&](const Buffer &buffer) {
      if (!buffer.isIndex && getNumElements(buffer.shape) / plan.rows ==
                                 DimExpr::constant(*plan.staticRowLength))
        plan.vectorBuffers.push_back(buffer.name);
    };
    llvm::for_each(kernel.inputs, addWholeRows);
    llvm::for_each(kernel.outputs, addWholeRows);
  }
  // The plan's rows in registers: float4 groups of whole rows, and of
  // params of one row's elements (a norm's weight).
  plan.registerRows = kernel.plan && kernel.plan.getRegisters();
  if (plan.registerRows) {
    plan.team = kernel.plan.getBlock();
    for (const Buffer &input : kernel.inputs)
      if (plan.vectorRows && !input.isIndex &&
          getNumElements(input.shape) ==
              DimExpr::constant(*plan.staticRowLength))
        plan.vectorBuffers.push_back(input.name);
    bool wholeRows = llvm::all_of(plan.reductions, [&](RowReduction &r) {
      return r.groupSize == DimExpr::constant(*plan.staticRowLength);
    });
    if (!plan.vectorRows || !wholeRows)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       "CUDA emitter: rows in registers need reductions over "
                       "whole rows of a static multiple of 4");
  }
  // The plan's cluster or streamed slices: whole rows of a static length
  // it divides, every reduction over whole rows; a cluster caches its
  // slices, streamed slices are read twice (and fold one partial a thread).
  plan.cluster = kernel.plan ? kernel.plan.getCluster() : 1;
  plan.rowSlices = kernel.plan ? kernel.plan.getRowSlices() : 1;
  plan.streamLag = kernel.plan ? kernel.plan.getStreamLag() : 0;
  plan.streamBlocks = kernel.plan ? kernel.plan.getStreamBlocks() : 0;
  if (plan.getRowSlices() > 1) {
    // A cluster's last slice may be short (but not empty), not with float4
    // groups; streamed slices divide the row.
    bool sliced =
        plan.staticRowLength &&
        (plan.getRowSlices() - 1) * plan.getRowSlice() <
            *plan.staticRowLength &&
        (plan.rowSlices == 1 || *plan.staticRowLength % plan.rowSlices == 0) &&
        (!plan.vectorRows || !plan.hasShortSlice()) &&
        plan.cached.empty() == (plan.rowSlices > 1) && !plan.registerRows &&
        ((plan.rowSlices == 1 && !plan.vectorRows) ||
         plan.getRowSlice() % 4 == 0) &&
        !plan.vectorDot &&
        llvm::all_of(plan.reductions, [&](RowReduction &reduction) {
          return reduction.isPerRow() && !reduction.isArg() &&
                 reduction.groupSize ==
                     DimExpr::constant(*plan.staticRowLength) &&
                 (plan.rowSlices == 1 || reduction.level == 1 ||
                  getSlicePair(plan, reduction));
        });
    // A streamed slice, or a cluster's, reads a param of one row's elements
    // (a norm's weight) as float4 groups too.
    if (sliced && plan.vectorRows)
      for (const Buffer &input : kernel.inputs)
        if (!input.isIndex &&
            getNumElements(input.shape) ==
                DimExpr::constant(*plan.staticRowLength) &&
            !llvm::is_contained(plan.vectorBuffers, input.name))
          plan.vectorBuffers.push_back(input.name);
    if (!sliced)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       plan.cluster > 1
                           ? "CUDA emitter: a cluster shares cached rows of a "
                             "static length, a slice of each block but for "
                             "the last (which float4 groups divide equally "
                             "where the vector width is 4), every reduction "
                             "over whole rows"
                           : "CUDA emitter: streamed rows are of a static "
                             "length that the slices divide into float4 "
                             "groups, every reduction over whole rows and "
                             "reading no other's result but as a single-pass "
                             "pair");
  }
  // The plan's tiles: every cached input and tiled output of whole rows of
  // the static length, every reduction over whole rows.
  plan.tileRows = kernel.plan && kernel.plan.getTileRows();
  if (plan.tileRows) {
    plan.tileRowsPerBlock = kernel.plan.getRowsPerBlock();
    plan.rowsPerThread = kernel.plan.getRowsPerThread();
    std::optional<DimExpr> length;
    if (plan.staticRowLength)
      length = DimExpr::constant(*plan.staticRowLength);
    // A tile holds rows in row-major order, which only a reshape keeps.
    bool movesElements = llvm::any_of(*kernel.body, [](Operation &op) {
      return isShapeOp(&op) && !isa<ReshapeOp>(op);
    });
    bool tiled =
        length && !movesElements && !plan.cached.empty() && !plan.vectorDot &&
        !plan.registerRows && plan.getRowSlices() == 1 &&
        llvm::all_of(
            plan.cached,
            [&](const auto &cached) { return cached.second == *length; }) &&
        llvm::all_of(plan.reductions, [&](const RowReduction &reduction) {
          return reduction.isPerRow() && reduction.groupSize == *length;
        });
    for (const Buffer &output : kernel.outputs) {
      DimExpr perRow = getNumElements(output.shape) / plan.rows;
      if (length && perRow == *length && !output.isIndex)
        plan.tiledOutputs.push_back(&output);
      else if (!perRow.isConstant(1))
        tiled = false;
      else if (plan.hasThreadTiles() && !output.isIndex)
        plan.tiledStatistics.push_back(&output);
    }
    if (!tiled)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       "CUDA emitter: tiled rows are of a static length, "
                       "every cached input and output of whole rows or one "
                       "element a row, every reduction over whole rows, no "
                       "shape op but a reshape");
    for (auto &[buffer, perRow] : plan.cached)
      plan.vectorBuffers.push_back(buffer->name);
    for (const Buffer *output : plan.tiledOutputs)
      plan.vectorBuffers.push_back(output->name);
    for (const Buffer *output : plan.tiledStatistics)
      plan.vectorBuffers.push_back(output->name);
  }
  plan.vectorCache =
      plan.vectorRows && !plan.cached.empty() && !plan.registerRows &&
      llvm::all_of(plan.reductions,
                   [](const RowReduction &r) { return r.isPerRow(); }) &&
      llvm::all_of(plan.cached, [&](const auto &cached) {
        return cached.second == DimExpr::constant(*plan.staticRowLength);
      });
  return plan;
}
