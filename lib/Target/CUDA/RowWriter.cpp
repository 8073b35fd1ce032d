//===- RowWriter.cpp - The body of a row kernel ---------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// The accumulator's C type: a single-pass state where the reduction's pass
/// also computes another; a double for a product (one rounding: a product
/// over rows of 64 in float was 2x less accurate than PyTorch's).
static StringRef getAccumulatorType(const RowReduction &reduction) {
  if (reduction.fusedOuter)
    return reduction.form == SinglePassForm::Welford ? "dev::Welford"
                                                     : "dev::OnlineSoftmax";
  if (reduction.kind == ReductionCombiner::prod)
    return "double";
  return reduction.isArg() ? "dev::ArgValue" : "float";
}

/// The C type of the reduction's result: its accumulator's, a product's
/// rounded to float.
static StringRef getResultType(const RowReduction &reduction) {
  return reduction.kind == ReductionCombiner::prod
             ? "float"
             : getAccumulatorType(reduction);
}

std::string cuda::getRowCombiner(const RowReduction &reduction) {
  if (reduction.fusedOuter)
    return reduction.form == SinglePassForm::Welford ? "dev::WelfordOp"
                                                     : "dev::OnlineSoftmaxOp";
  if (reduction.kind == ReductionCombiner::prod)
    return "dev::ProdDoubleOp";
  return getCombinerInfo(reduction.kind).deviceFunctor.str();
}

/// `acc` combined with the element `value` (at `index` along the reduced
/// dim, for argmax/argmin).
static std::string getUpdate(const RowReduction &reduction,
                             const std::string &combiner,
                             const std::string &acc, const Expr &value,
                             const Expr &index) {
  if (reduction.fusedOuter)
    return (reduction.form == SinglePassForm::Welford
                ? "dev::welfordPush("
                : "dev::onlineSoftmaxPush(") +
           acc + ", " + value.text + ")";
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
    // A thread pushes its elements in increasing index order.
    return "dev::argPush(" + combiner + "(), " + acc + ", " + value.text +
           ", " + index.text + ")";
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

Coords RowWriter::rowCoords(ArrayRef<DimExpr> shape, const Expr &position) {
  // Lane l of a float4 group of a row whose last dim holds whole groups:
  // the group's coordinates with l added to the last (Coords::laneBase), so
  // that values broadcast along the last dim index once a group.
  std::optional<int64_t> last =
      shape.empty() ? std::nullopt : shape.back().getConstant();
  if (!lanePosition || !vectorGroup || position.text != lanePosition->text ||
      !last || *last % 4 != 0)
    return elementCoords(shape, position);
  Coords base = elementCoords(shape, *vectorGroup);
  Coords lane =
      addLaneOffset(base, Expr("l", position.depth), base.indices.back());
  // The lane's linear index, which readVectorLane matches.
  DimExpr perRow = getNumElements(shape) / plan.rows;
  lane.linear = addIndex(
      emitter.bindIndex(mulIndex(Expr("r", rowDepth), sizeExpr(perRow))),
      position);
  lane.linearShape.assign(shape.begin(), shape.end());
  return lane;
}

Coords RowWriter::elementCoords(ArrayRef<DimExpr> shape, const Expr &position) {
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
  Coords coords = delinearize(emitter.bindIndex(linear), shape);
  // The unbound index, which readVectorLane recognizes as lane l's: a
  // group_norm's output reads its input in registers through the reshapes.
  coords.linear = linear;
  return coords;
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
  if (std::optional<Expr> lane = readVectorLane(buffer, coords))
    return *lane;
  auto shared = sharedRows.find(value);
  // A streamed row's slices: kept in L2 by the first pass, let go by the
  // second.
  if (!loadPolicy.empty() &&
      plan.isSliced(getNumElements(buffer.shape) / plan.rows)) {
    Expr index = emitter.bindIndex(linearize(coords, buffer.shape));
    return writer.bind(Expr("dev::loadWithPolicy(" + buffer.name + " + " +
                                index.text + ", " + loadPolicy + ")",
                            index.depth),
                       "float", "v");
  }
  if (shared == sharedRows.end() || cachedCondition == "false")
    return loadElement(emitter, buffer, coords);
  DimExpr perRow = getNumElements(buffer.shape) / plan.rows;
  Expr linear = linearize(coords, buffer.shape);
  Expr local = emitter.bindIndex(rowLocal(linear, perRow));
  if (cachedCondition != "true")
    linear = emitter.bindIndex(linear);
  // A block of a cluster holds its slice of the row, from `begin`.
  if (plan.isSliced(perRow))
    local = Expr(
        (isSimpleExpression(local.text) ? local.text : "(" + local.text + ")") +
            " - begin",
        local.depth);
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

bool RowWriter::sumsInDouble(const RowReduction &reduction) const {
  // Per-row reductions only: segments of a row reduce by warps.
  bool longRegisterRows = plan.registerRows && reduction.isPerRow() &&
                          plan.groupsPerThread() >= kDoubleSumGroups;
  return (plan.tileRows || longRegisterRows) && !reduction.fusedOuter &&
         (reduction.kind == ReductionCombiner::sum ||
          reduction.kind == ReductionCombiner::mean);
}

bool RowWriter::combinesThreadsInDouble() const {
  return plan.staticTeam == 256 && !plan.registerRows && plan.cached.empty() &&
         !plan.tileRows && plan.getRowSlices() == 1 && plan.staticRowLength &&
         *plan.staticRowLength > kMediumRowLimit;
}

bool RowWriter::accumulatesPerLane(const RowReduction &reduction) const {
  if (reduction.isArg() || sumsInDouble(reduction))
    return false;
  if (plan.registerRows)
    return true;
  return plan.hasEdges(reduction.groupSize) && !reduction.fusedOuter &&
         (reduction.kind == ReductionCombiner::sum ||
          reduction.kind == ReductionCombiner::mean);
}

void RowWriter::declareAccumulators(ArrayRef<RowReduction *> group,
                                    SmallVectorImpl<std::string> &accumulators,
                                    SmallVectorImpl<std::string> &combiners,
                                    const Expr &first) {
  for (RowReduction *reduction : group) {
    std::string acc = writer.freshName("acc");
    combiners.push_back(getRowCombiner(*reduction));
    std::string identity =
        reduction->isArg() && !reduction->fusedOuter
            ? "dev::argStart(" + combiners.back() + "(), " + first.text + ")"
            : combiners.back() + "::identity()";
    if (sumsInDouble(*reduction))
      writer.line("double " + acc + " = 0.0;");
    else if (accumulatesPerLane(*reduction))
      writer.line((getAccumulatorType(*reduction) + " " + acc + "[4] = {" +
                   identity + ", " + identity + ", " + identity + ", " +
                   identity + "};")
                      .str());
    else
      writer.line(
          (getAccumulatorType(*reduction) + " " + acc + " = " + identity + ";")
              .str());
    accumulators.push_back(acc);
  }
}

LogicalResult RowWriter::writeUpdates(ArrayRef<RowReduction *> group,
                                      ArrayRef<std::string> accumulators,
                                      ArrayRef<std::string> combiners,
                                      const Expr &position,
                                      ArrayRef<std::string> groups) {
  for (auto [i, reduction] : llvm::enumerate(group)) {
    FailureOr<Expr> element = emitReducedElement(*reduction, position);
    if (failed(element))
      return failure();
    if (i < groups.size() && !groups[i].empty())
      writer.line(groups[i] + "[l] = " + element->text + ";");
    else
      writer.line(accumulators[i] + " = " +
                  getUpdate(*reduction, combiners[i], accumulators[i], *element,
                            position) +
                  ";");
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

void RowWriter::writeSinglePassResults(RowReduction &inner,
                                       const std::string &own) {
  RowReduction &outer = *inner.fusedOuter;
  inner.storage = writer.freshName("red");
  outer.storage = writer.freshName("red");
  inner.storageDepth = outer.storageDepth = writer.getDepth();
  if (inner.form == SinglePassForm::OnlineSoftmax) {
    // The team's max first, then each thread's sum rescaled to it once and
    // summed: one rounding of a rescale per thread, where combining the
    // (max, sum) pairs rescales a sum at every level of the tree (and
    // softmax over rows of 65536 was 1.3x less accurate than PyTorch's).
    // The rescaling and the tree are in double, rounded once: the tree's
    // last roundings in float are an error common to the whole row (a
    // scaled softmax over rows of 65536 was 2.3% less accurate than
    // PyTorch's on the H100).
    std::string state = own;
    if (own.find('(') != std::string::npos) {
      state = writer.freshName("state");
      writer.line("const dev::OnlineSoftmax " + state + " = " + own + ";");
    }
    writer.line("const float " + inner.storage +
                " = teamReduce<kThreads, dev::MaxOp>(" + state + ".max);");
    std::string sum = "static_cast<float>(teamReduce<kThreads, "
                      "dev::SumDoubleOp>(dev::onlineSoftmaxRescale(static_"
                      "cast<double>(" +
                      state + ".sum), " + state + ".max, " + inner.storage +
                      ")))";
    // logsumexp's sum is of exp(x - clamp(max)).
    if (inner.clampedMax)
      sum = "dev::onlineSoftmaxSumAtFinite(" + inner.storage + ", " + sum + ")";
    writer.line("const float " + outer.storage + " = " + sum + ";");
    return;
  }
  std::string state = writer.freshName("state");
  writer.line("const dev::Welford " + state +
              " = teamReduce<kThreads, dev::WelfordOp>(" + own + ");");
  writer.line("const float " + inner.storage + " = " + state + ".mean;");
  // The mean of squared deviations is M2 over the count, their sum M2.
  writer.line("const float " + outer.storage + " = " + state +
              (getCombinerInfo(outer.kind).dividesByCount
                   ? ".m2 / static_cast<float>(" + outer.groupSize.str() + ");"
                   : ".m2;"));
}

void RowWriter::finishPerRowReduction(RowReduction &reduction,
                                      const std::string &own,
                                      const std::string &combiner) {
  if (reduction.fusedOuter) {
    writeSinglePassResults(reduction, own);
    return;
  }
  // A cluster's blocks combine their blocks' results in rank order, and a
  // streamed row's slices fold their partials in slice order; their sums,
  // of the threads' sums in float, add in double (rounded once), as
  // softmax over rows of 65536 in float was less accurate than PyTorch's.
  bool sums = reduction.kind == ReductionCombiner::sum ||
              reduction.kind == ReductionCombiner::mean;
  std::string reduced = "teamReduce<kThreads, " + combiner + ">(" + own + ")";
  if (plan.cluster > 1)
    reduced = "dev::clusterReduce<kThreads, " + std::to_string(plan.cluster) +
              ", " +
              (sums ? "dev::SumDoubleOp>(static_cast<double>(" + own + ")"
                    : combiner + ">(" + own) +
              ", exchange)";
  else if (plan.rowSlices > 1 && sums) // `own` is a slice's double partial
    reduced = "teamReduce<kThreads, dev::SumDoubleOp>(" + own + ")";
  else if (sums && combinesThreadsInDouble())
    reduced = "static_cast<float>(teamReduce<kThreads, dev::SumDoubleOp>("
              "static_cast<double>(" +
              own + ")))";
  if (sums && plan.getRowSlices() > 1)
    reduced = "static_cast<float>(" + reduced + ")";
  std::string result = getFinal(reduction, reduced);
  // A tile's sums add in double, and a mean divides there: rounded once.
  if (sumsInDouble(reduction)) {
    reduced = "teamReduce<kThreads, dev::SumDoubleOp>(" + own + ")";
    if (getCombinerInfo(reduction.kind).dividesByCount)
      reduced += " / static_cast<double>(" + reduction.groupSize.str() + ")";
    result = "static_cast<float>(" + reduced + ")";
  }
  reduction.storage = writer.freshName("red");
  reduction.storageDepth = writer.getDepth();
  if (getResultType(reduction) != getAccumulatorType(reduction))
    result =
        ("static_cast<" + getResultType(reduction) + ">(" + result + ")").str();
  writer.line(("const " + getResultType(reduction) + " " + reduction.storage +
               " = " + result + ";")
                  .str());
}

LogicalResult RowWriter::writePerRowReductions(ArrayRef<RowReduction *> group) {
  DimExpr length = group.front()->groupSize;
  SmallVector<std::string> accumulators, combiners;
  declareAccumulators(group, accumulators, combiners, Expr("0"));
  SmallVector<std::string> updated(accumulators);
  for (auto [reduction, acc] : llvm::zip(group, updated))
    if (accumulatesPerLane(*reduction))
      acc += "[l]";
  bool vectorDot = plan.vectorDot && group.size() == 1 &&
                   group.front() == plan.vectorDot->reduction;
  if (vectorDot)
    writeVectorDot(accumulators.front());
  std::optional<int64_t> vectorLength = length.getConstant();
  bool vectorRows =
      (plan.vectorRows && vectorLength && *vectorLength % 4 == 0) ||
      plan.hasEdges(length);
  // Online softmax states take a float4 group's values at once.
  SmallVector<std::string> groups(group.size());
  for (auto [reduction, four] : llvm::zip(group, groups))
    if (vectorRows && !plan.registerRows && reduction->fusedOuter &&
        reduction->form == SinglePassForm::OnlineSoftmax)
      four = writer.freshName("four");
  if (vectorRows &&
      failed(writeVectorRowLoop(
          *vectorLength,
          [&](const Expr &position) {
            for (const std::string &four : groups)
              if (!four.empty())
                writer.lineAt(vectorDepth, "float " + four + "[4];");
            return writeUpdates(group, updated, combiners, position, groups);
          },
          [&] {
            for (auto [acc, four] : llvm::zip(updated, groups))
              if (!four.empty())
                writer.line(acc + " = dev::onlineSoftmaxPushFour(" + acc +
                            ", " + four + ");");
          })))
    return failure();
  // Rows in registers have no scalar loop; the scalar edges of rows with
  // an accumulator per lane add into its first.
  if (!plan.registerRows) {
    SmallVector<std::string> edgeAccumulators(accumulators);
    for (auto [reduction, acc] : llvm::zip(group, edgeAccumulators))
      if (accumulatesPerLane(*reduction))
        acc += "[0]";
    openScalarRowLoop(length);
    if (failed(writeUpdates(group, edgeAccumulators, combiners,
                            Expr("j", writer.getDepth()))))
      return failure();
    writer.closeScope(plan.getRowLoop(length));
  }
  if (vectorDot || (vectorRows && !plan.registerRows))
    writer.closeScope(vectorDot ? "if (!vec) {" : getScalarRowScope(length));
  for (auto [reduction, acc, combiner] :
       llvm::zip(group, accumulators, combiners)) {
    context.helpers.insert("team_reduce");
    std::string own = accumulatesPerLane(*reduction)
                          ? "dev::treeCombine<" + combiner + ", 4>(" + acc + ")"
                          : acc;
    finishPerRowReduction(*reduction, own, combiner);
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
  Expr first = mulIndex(Expr("g", segmentDepth), sizeExpr(size));
  declareAccumulators(group, accumulators, combiners, first);
  writer.openScope(); // over the elements of a segment
  Expr position = addIndex(first, Expr("q", writer.getDepth()));
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
    std::optional<int64_t> length = perRow.getConstant();
    bool vectorRows =
        ((plan.vectorRows && length && *length % 4 == 0) ||
         plan.hasEdges(perRow)) &&
        llvm::none_of(outputs, [](const Buffer *b) { return b->isIndex; });
    if (vectorRows && failed(writeVectorOutputs(outputs, *length)))
      return failure();
    if (vectorRows && plan.registerRows)
      continue;
    // The blocks of a cluster, or a streamed row's items, write a slice
    // each of the whole rows; the first writes the rest.
    const bool firstBlock = plan.getRowSlices() > 1 && !plan.isSliced(perRow);
    if (firstBlock)
      writer.openScope();
    openScalarRowLoop(perRow);
    Expr position("j", writer.getDepth());
    for (const Buffer *output : outputs) {
      Coords coords = rowCoords(output->shape, position);
      FailureOr<Expr> element = emitter.emit(output->value, coords);
      if (failed(element))
        return failure();
      // A tiled output's row is in shared memory, which the block stores.
      if (std::string tiled = tiledOutputRows.lookup(output); !tiled.empty()) {
        Expr local = emitter.bindIndex(
            rowLocal(linearize(coords, output->shape), perRow));
        writer.line(tiled + "[" + local.text + "] = " + element->text + ";");
        continue;
      }
      Expr index = emitter.bindIndex(linearize(coords, output->shape));
      // Streamed outputs are stored past L2 (evict-first), which keeps the
      // slices that the second pass reads again.
      writer.line(plan.rowSlices > 1
                      ? "__stcs(" + output->name + " + " + index.text + ", " +
                            element->text + ");"
                      : output->name + "[" + index.text +
                            "] = " + element->text + ";");
    }
    writer.closeScope(plan.getRowLoop(perRow));
    if (firstBlock)
      writer.closeScope(plan.cluster > 1
                            ? "if (blockIdx.x % " +
                                  std::to_string(plan.cluster) +
                                  " == 0) { // The first block of the cluster."
                            : "if (begin == 0) { // The row's first slice.");
    if (vectorRows)
      writer.closeScope(getScalarRowScope(perRow));
  }
  return success();
}

FailureOr<std::string> RowWriter::write() {
  // A block of a cluster, or a streamed item, covers one row.
  if (plan.tileRows)
    writer.line("constexpr int kRowsPerBlock = " +
                std::to_string(plan.tileRowsPerBlock) + ";");
  else if (plan.getRowSlices() == 1)
    writer.line("constexpr int kRowsPerBlock = kThreads < 256 ? 256 / kThreads "
                ": 1;");
  writer.line("const int tid = threadIdx.x % kThreads;");
  // Streamed rows: a queue of slices (RowStream.cpp).
  if (plan.rowSlices > 1)
    return writeStreamed();
  declareShared();
  if (plan.tileRows) {
    openTileLoop();
  } else {
    writer.openScope();
    rowDepth = writer.getDepth();
  }
  if (plan.registerRows)
    writeRegisterFill();
  else if (!plan.tileRows)
    writeCacheFill();
  // Reductions level by level; per level, one loop per kind of group.
  for (size_t begin = 0; begin < plan.reductions.size();) {
    unsigned level = plan.reductions[begin].level;
    size_t end = begin;
    while (end < plan.reductions.size() && plan.reductions[end].level == level)
      ++end;
    SmallVector<RowReduction *> pending;
    for (size_t i = begin; i < end; ++i)
      if (!plan.reductions[i].fusedIntoInner)
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
  context.helpers.insert("team_reduce");
  if (plan.tileRows) {
    closeTileLoop();
    return writer.finish(1);
  }
  if (usesShared())
    writer.line("teamSync<kThreads>(); // The next row reuses shared memory.");
  if (plan.cluster > 1) {
    const std::string cluster = std::to_string(plan.cluster);
    writer.closeScope("for (int64_t r = static_cast<int64_t>(blockIdx.x) / " +
                      cluster + "; r < " + plan.rows.str() +
                      "; r += static_cast<int64_t>(gridDim.x) / " + cluster +
                      ") {");
    writer.line("// No block exits while another reads its exchange slots.");
    writer.line("dev::clusterSync();");
  } else
    writer.closeScope(
        "for (int64_t r = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + "
        "threadIdx.x / kThreads; r < " +
        plan.rows.str() +
        "; r += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {");
  return writer.finish(1);
}
