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
    stores.push_back(reduction->storage +
                     "[g] = " + getRowFinal(*reduction, acc) + ";");
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
