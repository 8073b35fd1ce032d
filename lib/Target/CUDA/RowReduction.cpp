//===- RowReduction.cpp - Kernels that reduce within rows -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A row kernel gives every row to a team of threads: one warp for rows of at
// most 1024 elements, a block of 256 or 1024 threads for longer ones. For
// each row the team
//   1. copies the row of every input that more than one pass reads into
//      shared memory, when it fits, so that HBM is read once per row;
//   2. computes the reductions level by level (a reduction that reads
//      another's result comes after it): each thread accumulates a strided
//      part of the row, then the team combines the partial results in a fixed
//      order (deterministic); reductions over segments of the row (group_norm
//      after reshape [R, C] -> [R, G, C/G]) give each segment to a warp and
//      keep the results in shared memory;
//   3. writes the outputs, computing every element from the inputs and the
//      reduction results.
// A row is whatever the reductions share: the kernel's row count R divides
// the result count of every reduction, which reduces trailing dims only.
// Matvec kernels come here too: a dot product with one output column is a
// sum over the row of lhs * rhs.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// The shared memory a row kernel may use per block: below the 227 KiB that
/// Hopper allows, leaving room for the static storage of block reductions.
static constexpr int64_t kMaxSharedBytes = 160 * 1024;

/// Rows up to this length go to one warp.
static constexpr int64_t kWarpRowLimit = 1024;
/// Rows up to this length go to 256 threads, longer ones to 1024.
static constexpr int64_t kMediumRowLimit = 8192;

namespace {
/// One reduction of a row kernel.
struct RowReduction {
  ReductionCombiner kind;
  Operation *op;
  /// The value consumers read.
  Value result;
  /// The shape whose elements are reduced: the reduction's input, or for a
  /// dot product the lhs as [..., M, K].
  Shape inputShape;
  /// Elements per reduced group.
  DimExpr groupSize;
  /// Groups per row (1: one result per row, kept in a register).
  DimExpr segments;
  /// 1 + the highest level of the reductions it reads.
  unsigned level = 0;
  /// The register variable or the shared array holding the results.
  std::string storage;
  /// The depth of the scope `storage` is declared in.
  unsigned storageDepth = 0;

  bool isPerRow() const { return segments.isConstant(1); }
  bool isArg() const { return getCombinerInfo(kind).isIndex; }
};

/// A dot product whose operands are contiguous input buffers along the
/// reduced dim, K a multiple of 4: it can read both with float4 loads.
struct VectorDot {
  RowReduction *reduction;
  const Buffer *lhs, *rhs;
  int64_t size;
};

/// How a row kernel runs, decided before any code is written.
struct RowPlan {
  /// The number of rows R.
  DimExpr rows;
  /// The reductions in the order they are computed.
  std::vector<RowReduction> reductions;
  /// Inputs copied to shared memory, with their elements per row.
  std::vector<std::pair<const Buffer *, DimExpr>> cached;
  /// The longest row the kernel walks, when every length is static.
  std::optional<int64_t> staticRowLength;
  /// The row lengths, for the host's choice of team size.
  SmallVector<DimExpr> rowLengths;
  /// Whether the shared memory sizes are static.
  bool staticShared = true;
  /// A matvec's dot product that has a float4 path (used when the host finds
  /// both buffers 16-byte aligned).
  std::optional<VectorDot> vectorDot;
};
} // namespace

/// Returns the reduction's input dims that it does not reduce, if they are
/// all of size 1 after the first reduced dim (the reduced elements of one
/// result are then contiguous); std::nullopt otherwise.
static bool reducesTrailingBlock(ArrayRef<DimExpr> shape,
                                 ArrayRef<int64_t> dims) {
  if (dims.empty())
    return false;
  int64_t first = *llvm::min_element(dims);
  for (int64_t d = first; d < static_cast<int64_t>(shape.size()); ++d)
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

/// Decides rows, levels, segments and caching.
static FailureOr<RowPlan> planRows(EmitterContext &context,
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
  return plan;
}

/// The team size for rows of `length` elements.
static int getTeamSize(int64_t length) {
  return length <= kWarpRowLimit ? 32 : length <= kMediumRowLimit ? 256 : 1024;
}

namespace {
/// Writes the body of one row kernel.
class RowWriter {
public:
  RowWriter(EmitterContext &context, const EvalKernel &kernel, RowPlan &plan,
            StringRef cachedCondition)
      : context(context), kernel(kernel), plan(plan),
        cachedCondition(cachedCondition.str()),
        emitter(writer, context.shapes, context.constants,
                [this](Value value, const Coords &coords) {
                  return readLeaf(value, coords);
                }) {
    addKernelLeaves(emitter, kernel, leafBuffers);
    for (RowReduction &reduction : plan.reductions) {
      emitter.addLeaf(reduction.result);
      reductionsByResult[reduction.result] = &reduction;
    }
  }

  /// Writes the kernel body and returns it.
  FailureOr<std::string> write();

  /// The shared memory per team, in floats, as a C expression over dims and
  /// `cached` (segments first, then cached rows).
  std::string getSharedFloats(StringRef cached) const;

private:
  FailureOr<Expr> readLeaf(Value value, const Coords &coords);
  /// The coordinates of element `position` of the current row of a value of
  /// shape `shape`.
  Coords rowCoords(ArrayRef<DimExpr> shape, const Expr &position);
  /// The index within the current row of linear index `linear` of a value
  /// with `perRow` elements per row.
  Expr rowLocal(const Expr &linear, const DimExpr &perRow);
  /// Emits element `position` of the row of `reduction`'s reduced elements.
  FailureOr<Expr> emitReducedElement(const RowReduction &reduction,
                                     const Expr &position);
  FailureOr<Expr> emitDotElement(MatmulOp matmul, const Coords &coords);
  /// Declares one accumulator per reduction of `group`, at its identity.
  void declareAccumulators(ArrayRef<RowReduction *> group,
                           SmallVectorImpl<std::string> &accumulators,
                           SmallVectorImpl<std::string> &combiners);
  /// Combines every accumulator with its reduction's element at `position`
  /// of the row.
  LogicalResult writeUpdates(ArrayRef<RowReduction *> group,
                             ArrayRef<std::string> accumulators,
                             ArrayRef<std::string> combiners,
                             const Expr &position);
  /// Writes `if (vec) { <float4 loop> }` for the vector dot product
  /// accumulating into `acc`, and opens the scope of the scalar loop's
  /// `if (!vec)`.
  void writeVectorDot(const std::string &acc);
  LogicalResult writePerRowReductions(ArrayRef<RowReduction *> group);
  LogicalResult writeSegmentReductions(ArrayRef<RowReduction *> group);
  LogicalResult writeOutputs();
  void writeCacheFill();
  bool usesShared() const;

  EmitterContext &context;
  const EvalKernel &kernel;
  RowPlan &plan;
  std::string cachedCondition;
  CodeWriter writer;
  ScalarEmitter emitter;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  llvm::DenseMap<Value, RowReduction *> reductionsByResult;
  /// Cached inputs: their shared arrays.
  llvm::DenseMap<Value, std::string> sharedRows;
  unsigned rowDepth = 0;
};
} // namespace

/// The accumulator's C type.
static StringRef getAccumulatorType(const RowReduction &reduction) {
  return reduction.isArg() ? "ArgValue" : "float";
}

/// `acc` combined with the element `value` (at `index` along the reduced
/// dim, for argmax/argmin).
static std::string getUpdate(const RowReduction &reduction,
                             const std::string &combiner,
                             const std::string &acc, const Expr &value,
                             const Expr &index) {
  switch (reduction.kind) {
  case ReductionCombiner::sum:
  case ReductionCombiner::mean:
    return acc + " + " + value.text;
  case ReductionCombiner::prod:
    return acc + " * " + value.text;
  case ReductionCombiner::max:
    return "dev::maximum(" + acc + ", " + value.text + ")";
  case ReductionCombiner::min:
    return "dev::minimum(" + acc + ", " + value.text + ")";
  case ReductionCombiner::argmax:
  case ReductionCombiner::argmin:
    return combiner + "()(" + acc + ", ArgValue{" + value.text + ", " +
           index.text + "})";
  case ReductionCombiner::logsumexp:
  case ReductionCombiner::var:
    break;
  }
  llvm_unreachable("sinter-decompose rewrites logsumexp and var");
}

/// The result of a reduction from its combined accumulator.
static std::string getFinal(const RowReduction &reduction,
                            const std::string &combined) {
  if (getCombinerInfo(reduction.kind).dividesByCount)
    return combined + " / static_cast<float>(" + reduction.groupSize.str() +
           ")";
  return combined;
}

bool RowWriter::usesShared() const {
  return (!plan.cached.empty() && cachedCondition != "false") ||
         llvm::any_of(plan.reductions, [](const RowReduction &reduction) {
           return !reduction.isPerRow();
         });
}

std::string RowWriter::getSharedFloats(StringRef cached) const {
  SmallVector<std::string> segments, rows;
  for (const RowReduction &reduction : plan.reductions)
    if (!reduction.isPerRow())
      segments.push_back(reduction.segments.str());
  for (auto &[buffer, perRow] : plan.cached)
    rows.push_back(perRow.str());
  if (!rows.empty() && cached == "true")
    segments.append(rows.begin(), rows.end());
  else if (!rows.empty() && cached != "false")
    segments.push_back("(" + cached.str() + " ? " + llvm::join(rows, " + ") +
                       " : 0)");
  return segments.empty() ? "0" : llvm::join(segments, " + ");
}

Coords RowWriter::rowCoords(ArrayRef<DimExpr> shape, const Expr &position) {
  DimExpr perRow = getNumElements(shape) / plan.rows;
  Expr row("r", rowDepth);
  Expr rowBase = emitter.bindIndex(mulIndex(row, sizeExpr(perRow)));
  Expr linear = addIndex(rowBase, position);
  // Split the shape into the dims that index rows and the dims within a
  // row when they separate; otherwise go through the linear index.
  DimExpr leading;
  for (size_t k = 0; k <= shape.size(); ++k) {
    if (leading == plan.rows) {
      Coords coords = delinearize(row, shape.take_front(k));
      Coords inner = delinearize(position, shape.drop_front(k));
      coords.indices.append(inner.indices.begin(), inner.indices.end());
      coords.linear = linear;
      coords.linearShape.assign(shape.begin(), shape.end());
      return coords;
    }
    if (k < shape.size())
      leading = leading * shape[k];
  }
  return delinearize(emitter.bindIndex(linear), shape);
}

Expr RowWriter::rowLocal(const Expr &linear, const DimExpr &perRow) {
  Expr rowBase =
      emitter.bindIndex(mulIndex(Expr("r", rowDepth), sizeExpr(perRow)));
  StringRef text = linear.text;
  if (text == rowBase.text)
    return Expr("0");
  if (text.consume_front(rowBase.text + " + "))
    return Expr(text.str(), linear.depth);
  return Expr("(" + linear.text + ") - " + rowBase.text,
              maxDepth(linear, rowBase));
}

FailureOr<Expr> RowWriter::readLeaf(Value value, const Coords &coords) {
  if (RowReduction *reduction = reductionsByResult.lookup(value)) {
    if (reduction->isPerRow())
      return Expr(reduction->storage + (reduction->isArg() ? ".index" : ""),
                  reduction->storageDepth);
    Expr local = emitter.bindIndex(
        rowLocal(linearize(coords, context.shapes.getShape(reduction->result)),
                 reduction->segments));
    return writer.bind(Expr(reduction->storage + "[" + local.text + "]",
                            std::max(local.depth, rowDepth)),
                       "float", "v");
  }
  const Buffer &buffer = *leafBuffers.lookup(value);
  auto shared = sharedRows.find(value);
  if (shared == sharedRows.end() || cachedCondition == "false")
    return loadElement(emitter, buffer, coords);
  DimExpr perRow = getNumElements(buffer.shape) / plan.rows;
  Expr linear = linearize(coords, buffer.shape);
  Expr local = emitter.bindIndex(rowLocal(linear, perRow));
  if (cachedCondition != "true")
    linear = emitter.bindIndex(linear);
  std::string fromShared = shared->second + "[" + local.text + "]";
  std::string text = cachedCondition == "true"
                         ? fromShared
                         : cachedCondition + " ? " + fromShared + " : " +
                               buffer.name + "[" + linear.text + "]";
  return writer.bind(Expr(text, std::max(local.depth, rowDepth)), "float", "v");
}

FailureOr<Expr> RowWriter::emitDotElement(MatmulOp matmul,
                                          const Coords &coords) {
  // coords index [..., M, K]; lhs is [..., M, K] or [..., K, M], rhs is
  // [..., K, 1] or [..., 1, K], either without the batch dim.
  size_t rank = coords.indices.size();
  Expr m = coords.indices[rank - 2], k = coords.indices[rank - 1];
  auto operandCoords = [&](Value operand, Expr first, Expr second) {
    const Shape &shape = context.shapes.getShape(operand);
    Coords result;
    if (shape.size() == 3)
      result.indices.push_back(shape[0].isConstant(1) ? Expr("0")
                                                      : coords.indices[0]);
    result.indices.push_back(first);
    result.indices.push_back(second);
    return result;
  };
  Coords lhs = matmul.getTransposeA() ? operandCoords(matmul.getLhs(), k, m)
                                      : operandCoords(matmul.getLhs(), m, k);
  Coords rhs = matmul.getTransposeB()
                   ? operandCoords(matmul.getRhs(), Expr("0"), k)
                   : operandCoords(matmul.getRhs(), k, Expr("0"));
  FailureOr<Expr> a = emitter.emit(matmul.getLhs(), lhs);
  FailureOr<Expr> b = emitter.emit(matmul.getRhs(), rhs);
  if (failed(a) || failed(b))
    return failure();
  return writer.bind(Expr(a->text + " * " + b->text, maxDepth(*a, *b)), "float",
                     "v");
}

FailureOr<Expr> RowWriter::emitReducedElement(const RowReduction &reduction,
                                              const Expr &position) {
  Coords coords = rowCoords(reduction.inputShape, position);
  if (auto matmul = dyn_cast<MatmulOp>(reduction.op))
    return emitDotElement(matmul, coords);
  return emitter.emit(reduction.op->getOperand(0), coords);
}

void RowWriter::writeCacheFill() {
  if (plan.cached.empty() || cachedCondition == "false")
    return;
  writer.openScope();
  for (auto &[buffer, perRow] : plan.cached) {
    writer.openScope();
    Expr row("r", rowDepth);
    writer.line(sharedRows[buffer->value] + "[j] = " + buffer->name + "[" +
                emitter.bindIndex(mulIndex(row, sizeExpr(perRow))).text +
                " + j];");
    writer.closeScope("for (int64_t j = tid; j < " + perRow.str() +
                      "; j += kThreads) {");
  }
  writer.line("teamSync<kThreads>();");
  writer.closeScope(cachedCondition == "true"
                        ? "{ // Copy the rows read more than once."
                        : "if (" + cachedCondition +
                              ") { // Copy the rows read more than once.");
}

void RowWriter::declareAccumulators(ArrayRef<RowReduction *> group,
                                    SmallVectorImpl<std::string> &accumulators,
                                    SmallVectorImpl<std::string> &combiners) {
  for (RowReduction *reduction : group) {
    std::string acc = writer.freshName("acc");
    combiners.push_back(getReductionCombiner(reduction->kind, context));
    if (reduction->isArg())
      context.helpers.insert("arg_shuffle");
    writer.line((getAccumulatorType(*reduction) + " " + acc + " = " +
                 combiners.back() + "::identity();")
                    .str());
    accumulators.push_back(acc);
  }
}

LogicalResult RowWriter::writeUpdates(ArrayRef<RowReduction *> group,
                                      ArrayRef<std::string> accumulators,
                                      ArrayRef<std::string> combiners,
                                      const Expr &position) {
  for (auto [reduction, acc, combiner] :
       llvm::zip(group, accumulators, combiners)) {
    FailureOr<Expr> element = emitReducedElement(*reduction, position);
    if (failed(element))
      return failure();
    writer.line(acc + " = " +
                getUpdate(*reduction, combiner, acc, *element, position) + ";");
  }
  return success();
}

void RowWriter::writeVectorDot(const std::string &acc) {
  const VectorDot &dot = *plan.vectorDot;
  Expr rowBase = emitter.bindIndex(
      mulIndex(Expr("r", rowDepth), sizeExpr(DimExpr::constant(dot.size))));
  writer.openScope(); // if (vec)
  writer.openScope(); // over groups of four
  std::string a = writer.freshName("a"), b = writer.freshName("b");
  writer.line("const float4 " + a + " = dev::loadFloat4(" + dot.lhs->name +
              " + " + rowBase.text + " + 4 * j);");
  writer.line("const float4 " + b + " = dev::loadFloat4(" + dot.rhs->name +
              " + 4 * j);");
  writer.line(acc + " = " + acc + " + " + a + ".x * " + b + ".x + " + a +
              ".y * " + b + ".y + " + a + ".z * " + b + ".z + " + a + ".w * " +
              b + ".w;");
  writer.closeScope("for (int64_t j = tid; j < " +
                    std::to_string(dot.size / 4) + "; j += kThreads) {");
  writer.closeScope("if (vec) { // float4 loads of both operands");
  // The scalar loop follows in an `if (!vec)` scope the caller closes.
  writer.openScope();
}

LogicalResult RowWriter::writePerRowReductions(ArrayRef<RowReduction *> group) {
  DimExpr length = group.front()->groupSize;
  SmallVector<std::string> accumulators, combiners;
  declareAccumulators(group, accumulators, combiners);
  bool vectorDot = plan.vectorDot && group.size() == 1 &&
                   group.front() == plan.vectorDot->reduction;
  if (vectorDot)
    writeVectorDot(accumulators.front());
  writer.openScope();
  if (failed(writeUpdates(group, accumulators, combiners,
                          Expr("j", writer.getDepth()))))
    return failure();
  writer.closeScope("for (int64_t j = tid; j < " + length.str() +
                    "; j += kThreads) {");
  if (vectorDot)
    writer.closeScope("if (!vec) {");
  for (auto [reduction, acc, combiner] :
       llvm::zip(group, accumulators, combiners)) {
    reduction->storage = writer.freshName("red");
    reduction->storageDepth = rowDepth;
    context.helpers.insert("team_reduce");
    writer.line(("const " + getAccumulatorType(*reduction) + " " +
                 reduction->storage + " = " +
                 getFinal(*reduction, "teamReduce<kThreads, " + combiner +
                                          ">(" + acc + ")") +
                 ";")
                    .str());
  }
  return success();
}

LogicalResult
RowWriter::writeSegmentReductions(ArrayRef<RowReduction *> group) {
  DimExpr size = group.front()->groupSize;
  DimExpr segments = group.front()->segments;
  writer.openScope(); // over segments
  unsigned segmentDepth = writer.getDepth();
  SmallVector<std::string> accumulators, combiners;
  declareAccumulators(group, accumulators, combiners);
  writer.openScope(); // over the elements of a segment
  Expr position = addIndex(mulIndex(Expr("g", segmentDepth), sizeExpr(size)),
                           Expr("q", writer.getDepth()));
  if (failed(writeUpdates(group, accumulators, combiners, position)))
    return failure();
  writer.closeScope("for (int64_t q = lane; q < " + size.str() +
                    "; q += dev::kWarpSize) {");
  SmallVector<std::string> stores;
  for (auto [reduction, acc, combiner] :
       llvm::zip(group, accumulators, combiners)) {
    writer.line(acc + " = dev::warpReduce<" + combiner + ">(" + acc + ");");
    stores.push_back(reduction->storage + "[g] = " + getFinal(*reduction, acc) +
                     ";");
  }
  writer.line("if (lane == 0) {");
  for (const std::string &store : stores)
    writer.line("  " + store);
  writer.line("}");
  writer.closeScope("for (int64_t g = warp; g < " + segments.str() +
                    "; g += kThreads / dev::kWarpSize) {");
  writer.line("teamSync<kThreads>();");
  return success();
}

LogicalResult RowWriter::writeOutputs() {
  // One loop per row length, outputs in order.
  std::vector<std::pair<DimExpr, SmallVector<const Buffer *>>> groups;
  for (const Buffer &output : kernel.outputs) {
    DimExpr perRow = getNumElements(output.shape) / plan.rows;
    auto it = llvm::find_if(groups,
                            [&](auto &group) { return group.first == perRow; });
    if (it == groups.end())
      groups.push_back({perRow, {&output}});
    else
      it->second.push_back(&output);
  }
  for (auto &[perRow, outputs] : groups) {
    writer.openScope();
    Expr position("j", writer.getDepth());
    for (const Buffer *output : outputs) {
      Coords coords = rowCoords(output->shape, position);
      FailureOr<Expr> element = emitter.emit(output->value, coords);
      if (failed(element))
        return failure();
      Expr index = emitter.bindIndex(linearize(coords, output->shape));
      writer.line(output->name + "[" + index.text + "] = " + element->text +
                  ";");
    }
    writer.closeScope("for (int64_t j = tid; j < " + perRow.str() +
                      "; j += kThreads) {");
  }
  return success();
}

FailureOr<std::string> RowWriter::write() {
  writer.line("constexpr int kRowsPerBlock = kThreads < 256 ? 256 / kThreads "
              ": 1;");
  writer.line("const int tid = threadIdx.x % kThreads;");
  bool hasSegments = llvm::any_of(
      plan.reductions, [](const RowReduction &r) { return !r.isPerRow(); });
  if (hasSegments) {
    writer.line("const int warp = tid / dev::kWarpSize;");
    writer.line("const int lane = tid % dev::kWarpSize;");
  }
  if (usesShared()) {
    writer.line("extern __shared__ float sharedMemory[];");
    writer.line("float *const shared = sharedMemory + threadIdx.x / kThreads "
                "* (" +
                getSharedFloats(cachedCondition) + ");");
    std::string offset = "0";
    for (RowReduction &reduction : plan.reductions) {
      if (reduction.isPerRow())
        continue;
      reduction.storage = writer.freshName("segment");
      writer.line("float *const " + reduction.storage + " = shared + " +
                  offset + ";");
      offset += " + " + reduction.segments.str();
    }
    if (cachedCondition != "false") {
      for (auto &[buffer, perRow] : plan.cached) {
        std::string name = buffer->name + "_row";
        sharedRows[buffer->value] = name;
        writer.line("float *const " + name + " = shared + " + offset + ";");
        offset += " + " + perRow.str();
      }
    }
  }

  writer.openScope();
  rowDepth = writer.getDepth();
  writeCacheFill();
  // Reductions level by level; per level, one loop per kind of group.
  for (size_t begin = 0; begin < plan.reductions.size();) {
    unsigned level = plan.reductions[begin].level;
    size_t end = begin;
    while (end < plan.reductions.size() && plan.reductions[end].level == level)
      ++end;
    SmallVector<RowReduction *> pending;
    for (size_t i = begin; i < end; ++i)
      pending.push_back(&plan.reductions[i]);
    while (!pending.empty()) {
      RowReduction *first = pending.front();
      SmallVector<RowReduction *> group, rest;
      for (RowReduction *reduction : pending)
        (reduction->segments == first->segments &&
                 reduction->groupSize == first->groupSize
             ? group
             : rest)
            .push_back(reduction);
      if (failed(first->isPerRow() ? writePerRowReductions(group)
                                   : writeSegmentReductions(group)))
        return failure();
      pending = std::move(rest);
    }
    begin = end;
  }
  if (failed(writeOutputs()))
    return failure();
  if (usesShared())
    writer.line("teamSync<kThreads>(); // The next row reuses shared memory.");
  context.helpers.insert("team_reduce");
  writer.closeScope(
      "for (int64_t r = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + "
      "threadIdx.x / kThreads; r < " +
      plan.rows.str() +
      "; r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {");
  return writer.finish(1);
}

/// Returns `max(a, b, ...)` of C integer expressions, each value once.
static std::string maxOf(ArrayRef<DimExpr> values) {
  std::vector<DimExpr> unique;
  for (const DimExpr &value : values)
    if (!llvm::is_contained(unique, value))
      unique.push_back(value);
  std::string text = unique.front().str();
  for (const DimExpr &value : ArrayRef(unique).drop_front())
    text = "std::max<int64_t>(" + text + ", " + value.str() + ")";
  return text;
}

FailureOr<GeneratedKernel>
cuda::generateRowReduction(EmitterContext &context, const EvalKernel &kernel) {
  FailureOr<RowPlan> plan = planRows(context, kernel);
  if (failed(plan))
    return failure();

  // With static sizes, whether the cache fits is known now: the kernel's
  // plan says (its team size, 0 when the launch picks it), or for an
  // epilogue, the sizes.
  std::string cachedCondition = "cached";
  int staticTeam = 0;
  if (kernel.plan && kernel.plan.getBlock() != 0) {
    staticTeam = kernel.plan.getBlock();
    cachedCondition = plan->cached.empty() ? "false" : "true";
  } else if (!kernel.plan && plan->staticShared) {
    staticTeam = getTeamSize(*plan->staticRowLength);
    RowWriter sizing(context, kernel, *plan, "true");
    int64_t segmentFloats = 0, rowFloats = 0;
    for (RowReduction &reduction : plan->reductions)
      if (!reduction.isPerRow())
        segmentFloats += *reduction.segments.getConstant();
    for (auto &[buffer, perRow] : plan->cached)
      rowFloats += *perRow.getConstant();
    int64_t rowsPerBlock = staticTeam < 256 ? 256 / staticTeam : 1;
    bool fits =
        rowsPerBlock * (segmentFloats + rowFloats) * 4 <= kMaxSharedBytes;
    if (rowsPerBlock * segmentFloats * 4 > kMaxSharedBytes)
      return emitError(kernel.body->getParentOp()->getLoc(),
                       "CUDA emitter: too many row segments for shared memory");
    cachedCondition = fits && !plan->cached.empty() ? "true" : "false";
  }
  if (plan->cached.empty())
    cachedCondition = "false";

  RowWriter bodyWriter(context, kernel, *plan, cachedCondition);
  FailureOr<std::string> body = bodyWriter.write();
  if (failed(body))
    return failure();

  GeneratedKernel result;
  SmallVector<std::string> allDims = collectDims(context.shapes, kernel);
  result.dims = findUsedDims(*body + plan->rows.str(), allDims);
  SmallVector<std::string> parameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(parameters, getDimParameters(result.dims));
  bool runtimeCache = cachedCondition == "cached";
  if (runtimeCache)
    parameters.push_back("int cached");
  if (plan->vectorDot)
    parameters.push_back("int vec");
  result.deviceCode =
      "template <int kThreads>\n__global__ void __launch_bounds__(kThreads < "
      "256 ? 256 : kThreads)\n" +
      formatList(kernel.name + "(", parameters, ") {", 0) + "\n" + *body +
      "}\n";

  // The launch: a template over the team size, and the choice of it.
  SmallVector<std::string> launchParameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(launchParameters, getDimParameters(result.dims));
  SmallVector<std::string> arguments = getBufferNames(kernel.inputs);
  llvm::append_range(arguments, getBufferNames(kernel.outputs));
  llvm::append_range(arguments, result.dims);
  SmallVector<std::string> templateParameters = launchParameters;
  SmallVector<std::string> templateArguments = arguments;
  if (runtimeCache) {
    templateParameters.push_back("int cached");
    templateArguments.push_back("cached");
  }
  if (plan->vectorDot) {
    templateParameters.push_back("int vec");
    templateArguments.push_back("vec");
  }

  std::string launch =
      "template <int kThreads>\n" +
      getLaunchSignature(kernel.name + "_rows", templateParameters);
  launch +=
      "  constexpr int kRowsPerBlock = kThreads < 256 ? 256 / kThreads : 1;\n";
  launch += "  const int64_t rows = " + plan->rows.str() + ";\n";
  bool usesShared = bodyWriter.getSharedFloats(cachedCondition) != "0";
  std::string sharedBytes = "0";
  if (usesShared) {
    launch +=
        "  const size_t sharedBytes = static_cast<size_t>(kRowsPerBlock) * "
        "(" +
        bodyWriter.getSharedFloats(cachedCondition) + ") * sizeof(float);\n";
    launch += "  if (sharedBytes > 48 * 1024)\n    " +
              formatList("SINTER_RT_TRY(sinter_rt_check_cuda(",
                         {"ctx",
                          "cudaFuncSetAttribute(" + kernel.name +
                              "<kThreads>, "
                              "cudaFuncAttributeMaxDynamicSharedMemorySize, "
                              "static_cast<int>(sharedBytes))",
                          "\"cudaFuncSetAttribute\""},
                         "));", 2) +
              "\n";
    sharedBytes = "sharedBytes";
  }
  launch +=
      "  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;\n";
  launch += "  " +
            formatList(kernel.name +
                           "<kThreads><<<static_cast<unsigned>(blocks < "
                           "INT32_MAX ? blocks : INT32_MAX), kRowsPerBlock * "
                           "kThreads, " +
                           sharedBytes + ", stream>>>(",
                       templateArguments, ");", 1) +
            "\n";
  launch +=
      "  return sinter_rt_check_launch(ctx, \"" + kernel.name + "\");\n}\n\n";

  launch += getLaunchSignature(kernel.name, launchParameters);
  SmallVector<std::string> callArguments = {"ctx", "stream"};
  llvm::append_range(callArguments, arguments);
  if (plan->vectorDot) {
    launch += formatConjunction(
        "vec", getAlignmentConditions(
                   {plan->vectorDot->lhs->name, plan->vectorDot->rhs->name}));
    callArguments.push_back("vec");
  }
  // `return launch_<kernel>_rows<threads>(...);` at `indent`.
  auto callRows = [&](int threads, unsigned indent) {
    return std::string(2 * indent, ' ') +
           formatList("return launch_" + kernel.name + "_rows<" +
                          std::to_string(threads) + ">(",
                      callArguments, ");", indent) +
           "\n";
  };
  if (staticTeam) {
    launch += callRows(staticTeam, 1) + "}\n";
    result.strategy =
        (staticTeam == 32 ? "one warp per row"
                          : "one block of " + std::to_string(staticTeam) +
                                " threads per row");
    // Rows that several passes read are cached, or re-read when the plan
    // found them too long.
    bool reread =
        kernel.plan ? kernel.plan.getPasses() > 1 : !plan->cached.empty();
    if (cachedCondition == "true")
      result.strategy += ", rows cached in shared memory";
    else if (reread)
      result.strategy += ", rows re-read (too long for shared memory)";
  } else {
    launch += "  const int64_t length = " + maxOf(plan->rowLengths) + ";\n";
    launch +=
        "  const int threads = length <= " + std::to_string(kWarpRowLimit) +
        " ? 32 : length <= " + std::to_string(kMediumRowLimit) +
        " ? 256 : 1024;\n";
    if (runtimeCache) {
      launch += "  const int64_t rowsPerBlock = threads < 256 ? 256 / threads "
                ": 1;\n";
      launch += "  const int cached = rowsPerBlock * (" +
                bodyWriter.getSharedFloats("true") +
                ") * static_cast<int64_t>(sizeof(float)) <= " +
                std::to_string(kMaxSharedBytes) + ";\n";
      // The template takes `cached` before `vec`.
      callArguments.insert(callArguments.end() - (plan->vectorDot ? 1 : 0),
                           "cached");
    }
    launch += "  if (threads == 32)\n" + callRows(32, 2);
    launch += "  if (threads == 256)\n" + callRows(256, 2);
    launch += callRows(1024, 1) + "}\n";
    result.strategy = "one warp or block per row by row length";
    if (runtimeCache)
      result.strategy += ", rows cached in shared memory when they fit";
  }
  result.launchCode = launch;
  return result;
}
