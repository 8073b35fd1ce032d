//===- ColumnReduction.cpp - Statistics over the leading dims -------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A column kernel reduces over dims other than the trailing ones (training
// batch_norm: mean and variance over the batch), then applies the result to
// every element. Without atomics, so that results are bitwise reproducible:
//   - per reduction, a partial kernel: a block of 256 threads covers up to
//     256 columns (adjacent threads read adjacent columns, so each row is
//     read in runs of up to 1 KiB), its other threads split the rows, and it
//     covers one of `splits` slices of the rows; it writes one partial result
//     per column and slice;
//   - a final kernel folds the partials of each column in slice order;
//   - reductions that read earlier results (the variance reads the mean)
//     run after them;
//   - the apply step is a pointwise kernel over the outputs that reads the
//     inputs and the final results.
// `splits` depends on the shape only, so the results do not depend on the
// GPU either.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

namespace {
/// One reduction of a column kernel.
struct ColumnReduction {
  ReductionInfo info;
  /// Results (kept positions) and elements reduced into each.
  DimExpr positions, groupSize;
  /// Names of the final results and the partials in the workspace.
  std::string stats, partial;
  /// The functor that combines two values.
  std::string combiner;
};
} // namespace

/// Returns the functor of a column reduction, or fails for argmax/argmin.
static FailureOr<std::string> getColumnCombiner(const ReductionInfo &info,
                                                EmitterContext &context) {
  switch (info.kind) {
  case ReductionKind::Sum:
  case ReductionKind::Mean:
    return std::string("dev::SumOp");
  case ReductionKind::Max:
    return std::string("dev::MaxOp");
  case ReductionKind::Min:
    return std::string("dev::MinOp");
  case ReductionKind::Prod:
    context.helpers.insert("prod");
    return std::string("ProdOp");
  case ReductionKind::Argmax:
  case ReductionKind::Argmin:
    break;
  }
  return info.op->emitError("CUDA emitter: ")
         << stringifyReductionKind(info.kind)
         << " over leading dims is not supported";
}

/// The columns a block of a partial kernel covers: as many as the reduction
/// keeps, rounded up to a power of two, from one warp to the whole block.
static int64_t getColumnsPerBlock(const DimExpr &positions) {
  std::optional<int64_t> columns = positions.getConstant();
  if (!columns)
    return 32;
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(*columns), 32, 256);
}

/// Writes the partial kernel of reduction `index`.
static FailureOr<std::string>
writePartialKernel(EmitterContext &context, const EvalKernel &kernel,
                   ArrayRef<ColumnReduction> reductions, size_t index,
                   StringRef name, ArrayRef<std::string> allDims,
                   SmallVectorImpl<std::string> &dims) {
  const ColumnReduction &reduction = reductions[index];
  CodeWriter writer;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  std::vector<Buffer> statsBuffers;
  for (size_t i = 0; i < index; ++i) {
    Buffer stats;
    stats.name = reductions[i].stats;
    stats.value = reductions[i].info.result;
    stats.shape = context.shapes.getShape(stats.value);
    statsBuffers.push_back(stats);
  }
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        if (const Buffer *buffer = leafBuffers.lookup(value))
          return loadElement(emitter, *buffer, coords);
        return emitError(value.getLoc(), "CUDA emitter: a column reduction "
                                         "reads a later result");
      });
  addKernelLeaves(emitter, kernel, leafBuffers);
  for (const Buffer &stats : statsBuffers) {
    emitter.addLeaf(stats.value);
    leafBuffers[stats.value] = &stats;
  }

  // Element (column, q) of the input: column indexes the kept dims, q the
  // reduced.
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  Shape kept, reduced;
  for (auto [d, size] : llvm::enumerate(shape))
    (llvm::is_contained(reduction.info.dims, static_cast<int64_t>(d)) ? reduced
                                                                      : kept)
        .push_back(size);
  const std::string columns =
      std::to_string(getColumnsPerBlock(reduction.positions));
  const std::string lanes =
      std::to_string(256 / getColumnsPerBlock(reduction.positions));
  writer.line("float acc = " + reduction.combiner + "::identity();");
  writer.line("const int64_t column = static_cast<int64_t>(blockIdx.x) * " +
              columns + " + threadIdx.x % " + columns + ";");
  writer.openScope(); // if (column < positions)
  unsigned guardDepth = writer.getDepth();
  writer.openScope(); // over this slice's rows
  // The column indexes the kept dims (read only when some has size > 1).
  Coords keptCoords = delinearize(Expr("column", guardDepth), kept);
  Coords reducedCoords = delinearize(Expr("q", writer.getDepth()), reduced);
  Coords coords;
  size_t keptIndex = 0, reducedIndex = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    coords.indices.push_back(
        llvm::is_contained(reduction.info.dims, static_cast<int64_t>(d))
            ? reducedCoords.indices[reducedIndex++]
            : keptCoords.indices[keptIndex++]);
  FailureOr<Expr> element = emitter.emit(reduction.info.input, coords);
  if (failed(element))
    return failure();
  writer.line("acc = " + reduction.combiner + "()(acc, " + element->text +
              ");");
  // Unrolled so that each thread has four loads in flight (the order of the
  // combines, and so the result, stays the same).
  writer.closeScope("#pragma unroll 4\n"
                    "for (int64_t q = static_cast<int64_t>(blockIdx.y) * " +
                    lanes + " + threadIdx.x / " + columns + "; q < " +
                    reduction.groupSize.str() + "; q += splits * " + lanes +
                    ") {");
  writer.closeScope("if (column < " + reduction.positions.str() + ") {");
  if (lanes == "1") {
    writer.line("if (column < " + reduction.positions.str() + ")");
    writer.line("  partial[blockIdx.y * " + reduction.positions.str() +
                " + column] = acc;");
  } else {
    // Fold the lanes of each column in lane order.
    writer.line("__shared__ float slices[" + lanes + "][" + columns + "];");
    writer.line("slices[threadIdx.x / " + columns + "][threadIdx.x % " +
                columns + "] = acc;");
    writer.line("__syncthreads();");
    writer.line("if (threadIdx.x < " + columns + " && column < " +
                reduction.positions.str() + ") {");
    writer.line("  float total = slices[0][threadIdx.x];");
    writer.line("  for (int k = 1; k < " + lanes + "; ++k)");
    writer.line("    total = " + reduction.combiner +
                "()(total, slices[k][threadIdx.x]);");
    writer.line("  partial[blockIdx.y * " + reduction.positions.str() +
                " + column] = total;");
    writer.line("}");
  }
  std::string body = writer.finish(1);

  dims.assign(findUsedDims(body, allDims));
  SmallVector<std::string> parameters = getBufferParameters(kernel.inputs, {});
  for (const Buffer &stats : statsBuffers)
    parameters.push_back("const float *__restrict__ " + stats.name);
  parameters.push_back("float *__restrict__ partial");
  llvm::append_range(parameters, getDimParameters(dims));
  parameters.push_back("int64_t splits");
  return "/// Partial " + stringifyReductionKind(reduction.info.kind).str() +
         " over dims [" +
         llvm::join(
             llvm::map_range(reduction.info.dims,
                             [](int64_t d) { return std::to_string(d); }),
             ", ") +
         "] of " + formatShape(shape) + ", per column and slice of rows.\n" +
         "__global__ void __launch_bounds__(256)\n" +
         formatList(name.str() + "(", parameters, ") {", 0) + "\n" + body +
         "}\n";
}

/// Writes the final kernel of `reduction`.
static std::string writeFinalKernel(const ColumnReduction &reduction,
                                    StringRef name,
                                    ArrayRef<std::string> allDims,
                                    SmallVectorImpl<std::string> &dims) {
  std::string positions = reduction.positions.str();
  std::string body =
      "  for (int64_t p = dev::globalThreadIndex(); p < " + positions +
      "; p += dev::gridStride()) {\n"
      "    float total = partial[p];\n"
      "    #pragma unroll 4\n"
      "    for (int64_t s = 1; s < splits; ++s)\n"
      "      total = " +
      reduction.combiner + "()(total, partial[s * " + positions + " + p]);\n";
  if (reduction.info.kind == ReductionKind::Mean)
    body += "    total = total / static_cast<float>(" +
            reduction.groupSize.str() + ");\n";
  body += "    stats[p] = total;\n  }\n";
  dims.assign(findUsedDims(body, allDims));
  SmallVector<std::string> parameters = {"const float *__restrict__ partial",
                                         "float *__restrict__ stats"};
  llvm::append_range(parameters, getDimParameters(dims));
  parameters.push_back("int64_t splits");
  return "/// Folds the partials of each column in slice order.\n"
         "__global__ void __launch_bounds__(256)\n" +
         formatList(name.str() + "(", parameters, ") {", 0) + "\n" + body +
         "}\n";
}

FailureOr<GeneratedKernel>
cuda::generateColumnReduction(EmitterContext &context,
                              const EvalKernel &kernel) {
  std::vector<ColumnReduction> reductions;
  SmallVector<Value> results;
  SmallVector<SmallVector<Value>> reads;
  for (Operation &op : *kernel.body) {
    if (isa<MatmulOp>(op) && !kernel.isInput(op.getResult(0)))
      return op.emitError(
          "CUDA emitter: a column_reduction kernel cannot hold a matmul");
    std::optional<ReductionInfo> info = getReductionInfo(&op);
    if (!info)
      continue;
    FailureOr<std::string> combiner = getColumnCombiner(*info, context);
    if (failed(combiner))
      return failure();
    ColumnReduction reduction{*info, {}, {}, "", "", *combiner};
    reduction.positions = getNumElements(context.shapes.getShape(info->result));
    reduction.groupSize = getNumElements(context.shapes.getShape(info->input)) /
                          reduction.positions;
    reduction.stats = "stats" + std::to_string(reductions.size());
    reduction.partial = "partial" + std::to_string(reductions.size());
    results.push_back(info->result);
    reads.push_back({info->input});
    reductions.push_back(std::move(reduction));
  }
  if (reductions.empty())
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: a column_reduction kernel has no "
                     "reduction");
  // Program order already puts every reduction after those it reads;
  // computeReductionLevels checks nothing reads a later one.
  (void)computeReductionLevels(results, reads);

  GeneratedKernel result;
  SmallVector<std::string> allDims = collectDims(context.shapes, kernel);
  std::string launchBody = "  char *cursor = static_cast<char *>(scratch);\n";
  SmallVector<std::string> scratch;
  context.helpers.insert("align");
  context.helpers.insert("column_splits");
  context.helpers.insert("grid_blocks");
  SmallVector<std::string> usedDims;
  for (auto [index, reduction] : llvm::enumerate(reductions)) {
    std::string suffix = std::to_string(index);
    std::string positions = reduction.positions.str();
    std::string splits = "splits" + suffix;
    int64_t columnsPerBlock = getColumnsPerBlock(reduction.positions);
    std::string columnBlocks = "(" + positions + " + " +
                               std::to_string(columnsPerBlock - 1) + ") / " +
                               std::to_string(columnsPerBlock);
    std::string splitsExpr = "sinterColumnSplits(" + reduction.groupSize.str() +
                             ", " + std::to_string(256 / columnsPerBlock) +
                             ", " + columnBlocks + ")";
    scratch.push_back("sinterAlign(static_cast<size_t>(" + positions +
                      ") * sizeof(float))");
    scratch.push_back("sinterAlign(static_cast<size_t>(" + splitsExpr + ") * " +
                      positions + " * sizeof(float))");

    SmallVector<std::string> partialDims, finalDims;
    std::string partialName = kernel.name + "_partial" + suffix;
    std::string finalName = kernel.name + "_final" + suffix;
    FailureOr<std::string> partialKernel = writePartialKernel(
        context, kernel, reductions, index, partialName, allDims, partialDims);
    if (failed(partialKernel))
      return failure();
    result.deviceCode += *partialKernel + "\n";
    result.deviceCode +=
        writeFinalKernel(reduction, finalName, allDims, finalDims) + "\n";

    launchBody += "  const int64_t " + splits + " = " + splitsExpr + ";\n";
    launchBody += "  float *const " + reduction.stats +
                  " = reinterpret_cast<float *>(cursor);\n";
    launchBody += "  cursor += " + scratch[2 * index] + ";\n";
    launchBody += "  float *const " + reduction.partial +
                  " = reinterpret_cast<float *>(cursor);\n";
    launchBody += "  cursor += " + scratch[2 * index + 1] + ";\n";
    SmallVector<std::string> partialArgs = getBufferNames(kernel.inputs);
    for (size_t i = 0; i < index; ++i)
      partialArgs.push_back(reductions[i].stats);
    partialArgs.push_back(reduction.partial);
    llvm::append_range(partialArgs, partialDims);
    partialArgs.push_back(splits);
    std::string grid = "grid" + suffix;
    launchBody += "  const dim3 " + grid + "(static_cast<unsigned>(" +
                  columnBlocks + "),\n" + std::string(14 + grid.size(), ' ') +
                  "static_cast<unsigned>(" + splits + "));\n";
    launchBody +=
        "  " +
        formatList(partialName + "<<<" + grid + ", 256, 0, stream>>>(",
                   partialArgs, ");", 1) +
        "\n";
    launchBody += "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" +
                  partialName + "\"));\n";
    SmallVector<std::string> finalArgs = {reduction.partial, reduction.stats};
    llvm::append_range(finalArgs, finalDims);
    finalArgs.push_back(splits);
    launchBody += "  " +
                  formatList(finalName + "<<<gridBlocks(ctx, " + positions +
                                 ", 256), 256, 0, stream>>>(",
                             finalArgs, ");", 1) +
                  "\n";
    launchBody += "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" + finalName +
                  "\"));\n";
  }

  // The apply step: a pointwise kernel over the outputs.
  EvalKernel apply;
  apply.name = kernel.name + "_apply";
  apply.body = kernel.body;
  apply.inputs = kernel.inputs;
  apply.outputs = kernel.outputs;
  apply.constantArguments = kernel.constantArguments;
  for (const ColumnReduction &reduction : reductions) {
    Buffer stats;
    stats.name = reduction.stats;
    stats.value = reduction.info.result;
    stats.shape = context.shapes.getShape(stats.value);
    apply.inputs.push_back(stats);
  }
  FailureOr<GeneratedKernel> applied = generatePointwise(context, apply);
  if (failed(applied))
    return failure();
  result.deviceCode += applied->deviceCode;
  SmallVector<std::string> applyArgs = {"ctx", "stream"};
  for (const Buffer &input : apply.inputs)
    applyArgs.push_back(input.name);
  llvm::append_range(applyArgs, getBufferNames(apply.outputs));
  llvm::append_range(applyArgs, applied->dims);
  launchBody +=
      "  " +
      formatList("return launch_" + apply.name + "(", applyArgs, ");", 1) +
      "\n";

  result.scratchBytes = scratch;
  result.dims = findUsedDims(launchBody + llvm::join(scratch, " + "), allDims);
  SmallVector<std::string> parameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(parameters, getDimParameters(result.dims));
  parameters.push_back("void *scratch");
  result.launchCode = applied->launchCode + "\n" +
                      getLaunchSignature(kernel.name, parameters) + launchBody +
                      "}\n";
  result.strategy = std::to_string(reductions.size()) +
                    " reduction(s): per-slice partials, ordered fold, then "
                    "pointwise apply";
  return result;
}
