//===- ColumnStrips.cpp - A column kernel over strips of columns ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Under the plan's apply_in_strip, one kernel replaces a column kernel's
// partials, folds and apply step: a block a strip of columns reads every
// reduced element of the strip into its threads' registers (the partial
// kernel's loop, ColumnPartial.cpp) or, for the plan's cached operands,
// copies them into shared memory (here), folds the strip's statistics
// into shared memory, then writes the outputs over the strip from there
// (here). HBM is read once.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

bool cuda::isStagedInStrip(const EvalKernel &kernel, const Buffer &input) {
  auto argument = dyn_cast<BlockArgument>(input.value);
  return kernel.plan && argument &&
         llvm::is_contained(kernel.plan.getCached().asArrayRef(),
                            static_cast<int64_t>(argument.getArgNumber()));
}

/// The threads of a strip's block.
static constexpr int64_t kStripThreads = 256;

/// The columns a thread of a strip copies at a time: runs of 4 where the
/// kept innermost dim of `shape` is a multiple of 4 (so that no run
/// crosses it) and so are the strip's columns.
static int64_t getCopyRun(const ColumnReduction &reduction,
                          const Shape &shape) {
  std::optional<int64_t> innermost = shape.back().getConstant();
  return innermost && *innermost % 4 == 0 && reduction.columnsPerBlock % 4 == 0
             ? 4
             : 1;
}

bool cuda::writeStripCopies(
    ScalarEmitter &emitter, CodeWriter &writer,
    const ColumnReduction &reduction, const Shape &shape,
    ArrayRef<Buffer> inputs,
    const llvm::DenseMap<Value, StripArray> &registers) {
  SmallVector<std::pair<const Buffer *, const StripArray *>> staged;
  for (const Buffer &input : inputs) {
    auto held = registers.find(input.value);
    if (held != registers.end() && held->second.shared)
      staged.push_back({&input, &held->second});
  }
  if (staged.empty())
    return false;
  const int64_t columns = reduction.columnsPerBlock;
  const int64_t reduced = *reduction.groupSize.getConstant();
  const int64_t run = getCopyRun(reduction, shape);
  const std::string runsPerRow = std::to_string(columns / run);
  const int64_t copies =
      llvm::divideCeil(reduced * (columns / run), kStripThreads);
  writer.line("// The block copies the strip's elements of the staged "
              "inputs, " +
              std::string(run == 4 ? "4 columns" : "a column") +
              " at a time, a row after another.");
  // (Once every thread is done with the previous strip's elements.)
  writer.line("__syncthreads();");
  writer.openScope(); // over the thread's copies
  writer.line("const int64_t stripUnit = threadIdx.x + k * " +
              std::to_string(kStripThreads) + ";");
  writer.line("const uint32_t q = static_cast<uint32_t>(stripUnit / " +
              runsPerRow + ");");
  writer.line(
      "const int64_t stripOffset = " + std::string(run == 4 ? "4 * " : "") +
      "(stripUnit % " + runsPerRow + ");");
  writer.line("const int64_t stripColumn = strip * " + std::to_string(columns) +
              " + stripOffset;");
  writer.openScope(); // if (q < reduced && stripColumn < positions)
  Coords element = interleaveCoords(Expr("stripColumn", writer.getDepth()),
                                    Expr("q", writer.getDepth()), shape,
                                    reduction.info.dims);
  for (auto [input, array] : staged) {
    Expr index = emitter.bindIndex(linearize(element, input->shape));
    std::string target =
        array->name + "[q * " + std::to_string(columns) + " + stripOffset";
    std::string source = input->name + " + " + index.text;
    if (run == 1) {
      writer.line("dev::copyAsync(&" + target + "], " + source + ");");
      continue;
    }
    writer.line("if (vec) {");
    writer.line("  dev::copyAsync16(&" + target + "], " + source + ");");
    writer.line("} else {");
    writer.line("  for (int l = 0; l < 4; ++l)");
    writer.line("    dev::copyAsync(&" + target + " + l], " + source +
                " + l);");
    writer.line("}");
  }
  writer.closeScope("if (q < " + std::to_string(reduced) +
                    " && stripColumn < " + reduction.positions.str() + ") {");
  writer.closeScope("#pragma unroll\nfor (int k = 0; k < " +
                    std::to_string(copies) + "; ++k) {");
  writer.line("dev::waitAsyncCopies();");
  writer.line("__syncthreads();");
  return run == 4;
}

LogicalResult
cuda::writeStripApply(EmitterContext &context, const EvalKernel &viewed,
                      const ColumnReduction &reduction,
                      const ColumnReduction *second, CodeWriter &writer,
                      const StripThread &thread, StripStatisticReads &reads) {
  const Expr &column = thread.column;
  StringRef lane = thread.lane;
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  EvalKernel apply = viewed;
  // The statistics' buffers, first and second.
  SmallVector<Value, 2> statistics;
  for (const ColumnReduction *statistic : {&reduction, second}) {
    if (!statistic)
      continue;
    Buffer stats;
    stats.name = statistic == &reduction ? "stats"
                                         : reduction.getSecondParameter().str();
    stats.value = statistic->info.result;
    stats.shape = context.shapes.getShape(stats.value);
    apply.inputs.push_back(stats);
    statistics.push_back(stats.value);
  }
  const std::string lanes = std::to_string(reduction.getLanes());
  writer.line("__syncthreads();");
  // Every load sits inside the guards that it depends on (the emitter
  // places a value at the depth of its operands): the column's, then the
  // element's.
  writer.openScope(); // if (column < positions)
  const Expr guardedColumn(column.text, writer.getDepth());
  writer.openScope(); // over the thread's elements
  writer.openScope(); // if (q < reduced)
  writer.line("const uint32_t q = static_cast<uint32_t>(" + lane + " + k * " +
              lanes + ");");
  Coords coords = interleaveCoords(guardedColumn, Expr("q", writer.getDepth()),
                                   shape, reduction.info.dims);
  // The linear index of the element's own column among the statistics (of
  // the reduced shape with its reduced dims 1): where the apply step reads
  // a statistic there, it reads the strip's shared array.
  Coords atColumn = coords;
  Shape statisticShape = shape;
  for (int64_t dim : reduction.info.dims) {
    atColumn.indices[dim] = Expr("0");
    statisticShape[dim] = DimExpr::constant(1);
  }
  atColumn.linear.reset();
  const std::string columnIndex = linearize(atColumn, statisticShape).text;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        auto held = thread.registers->find(value);
        if (held != thread.registers->end())
          return Expr(held->second.getElement("k", thread.columnInStrip,
                                              reduction.columnsPerBlock),
                      writer.getDepth());
        const Buffer &buffer = *leafBuffers.lookup(value);
        const auto *statistic = llvm::find(statistics, value);
        if (statistic == statistics.end())
          return loadElement(emitter, buffer, coords);
        size_t index = statistic - statistics.begin();
        if (linearize(coords, buffer.shape).text != columnIndex) {
          reads.elsewhere[index] = true;
          return loadElement(emitter, buffer, coords);
        }
        reads.atColumn[index] = true;
        return writer.bind(Expr((kStripStatisticNames[index] + Twine("[") +
                                 thread.columnInStrip + "]")
                                    .str(),
                                guardedColumn.depth),
                           buffer.isIndex ? "int64_t" : "float",
                           kStatisticNames[index]);
      });
  addKernelLeaves(emitter, apply, leafBuffers);
  for (const Buffer &output : reduction.applyOutputs) {
    if (ArrayRef<DimExpr>(output.shape) != ArrayRef<DimExpr>(shape))
      return emitError(output.value.getLoc(),
                       "CUDA emitter: apply_in_strip, but an output of the "
                       "apply step does not have the reduced input's shape");
    FailureOr<Expr> element = emitter.emit(output.value, coords);
    if (failed(element))
      return failure();
    Expr linear = emitter.bindIndex(linearize(coords, output.shape));
    writer.line(output.name + "[" + linear.text + "] = " + element->text + ";");
  }
  writer.closeScope(("if (" + lane + " + k * " + lanes + " < " +
                     reduction.groupSize.str() + ") {")
                        .str());
  writer.closeScope("#pragma unroll\nfor (int k = 0; k < " +
                    std::to_string(thread.loads) + "; ++k) {");
  writer.closeScope("if (" + column.text + " < " + reduction.positions.str() +
                    ") {");
  return success();
}

LogicalResult cuda::declareStripStatistics(
    EmitterContext &context, const EvalKernel &viewed,
    const ColumnReduction &reduction, const ColumnReduction *second,
    CodeWriter &writer, const StripThread &thread, ColumnReduction &finishing) {
  // A dry run of the apply step, on copies of the writer and the constants,
  // tells where it reads the statistics.
  CodeWriter dryWriter = writer;
  ConstantPool dryConstants = context.constants;
  EmitterContext dryContext{context.shapes, dryConstants, context.precision,
                            context.fp32Gemm, context.helpers};
  StripStatisticReads reads;
  if (failed(writeStripApply(dryContext, viewed, reduction, second, dryWriter,
                             thread, reads)))
    return failure();
  finishing.readsLocal = reads.atColumn[0];
  finishing.secondReadsLocal = reads.atColumn[1];
  finishing.stored = reduction.stored || reads.elsewhere[0];
  finishing.secondStored = reduction.secondStored || reads.elsewhere[1];
  const std::string types[2] = {
      reduction.pairs(SinglePassForm::OnlineSoftmax) ||
              reduction.pairs(SinglePassForm::Welford)
          ? "float"
          : reduction.getStatsType().str(),
      "float"};
  for (int i = 0; i < 2; ++i)
    if (reads.atColumn[i])
      writer.line("__shared__ " + types[i] + " " + kStripStatisticNames[i] +
                  "[" + std::to_string(reduction.columnsPerBlock) + "];");
  return success();
}

FailureOr<std::string>
cuda::writeColumnStrips(EmitterContext &context, const EvalKernel &kernel,
                        ArrayRef<ColumnReduction> reductions, size_t index,
                        ArrayRef<std::string> allDims, StringRef strips,
                        std::string &launchBody) {
  const ColumnReduction &reduction = reductions[index];
  const ColumnReduction *second =
      reduction.second ? &reductions[*reduction.second] : nullptr;
  const std::string name = kernel.name + "_strips";
  SmallVector<std::string> dims;
  FailureOr<std::string> stripKernel = writeColumnPartialKernel(
      context, kernel, reductions, index, name, allDims, dims);
  if (failed(stripKernel))
    return failure();
  SmallVector<std::string> arguments = getBufferNames(kernel.inputs);
  arguments.push_back(reduction.stats);
  if (second)
    arguments.push_back(second->stats);
  llvm::append_range(arguments, getBufferNames(reduction.applyOutputs));
  llvm::append_range(arguments, dims);
  arguments.push_back("strips");
  // The strip's shared memory: each staged input's elements of the
  // strip, one after another (writeColumnPartialKernel).
  // Where it copies runs of 4, it reads them as 16 bytes where every
  // staged input is aligned.
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  int64_t stagedFloats = 0;
  SmallVector<std::string> staged;
  for (const Buffer &input : viewReshapedInputs(context, kernel.inputs))
    if (ArrayRef<DimExpr>(input.shape) == ArrayRef<DimExpr>(shape) &&
        isStagedInStrip(kernel, input)) {
      stagedFloats +=
          *reduction.groupSize.getConstant() * reduction.columnsPerBlock;
      staged.push_back(input.name);
    }
  std::string sharedBytes = "0";
  launchBody += "  const int64_t strips = " + strips.str() + ";\n";
  launchBody += "  if (strips == 0)\n    return SINTER_OK;\n";
  if (!staged.empty() && getCopyRun(reduction, shape) == 4) {
    launchBody += formatConjunction("vec", getAlignmentConditions(staged));
    arguments.push_back("vec");
  }
  if (stagedFloats) {
    sharedBytes = "sharedBytes";
    launchBody +=
        "  const size_t sharedBytes = " + std::to_string(stagedFloats) +
        " * sizeof(float);\n";
    if (stagedFloats * 4 > 48 * 1024)
      launchBody +=
          "  " +
          formatList("SINTER_RT_TRY(sinter_rt_check_cuda(",
                     {"ctx",
                      "cudaFuncSetAttribute(" + name +
                          ", cudaFuncAttributeMaxDynamicSharedMemorySize, "
                          "static_cast<int>(sharedBytes))",
                      "\"cudaFuncSetAttribute\""},
                     "));", 1) +
          "\n";
  }
  // A block a strip (a grid too large for gridDim.x walks them).
  launchBody += "  const unsigned stripBlocks = static_cast<unsigned>("
                "std::min<int64_t>(strips, INT32_MAX));\n";
  launchBody +=
      "  " +
      formatLaunch(name, "stripBlocks", "256", sharedBytes, arguments, 1) +
      "\n";
  launchBody +=
      "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" + name + "\"));\n";
  return stripKernel;
}
