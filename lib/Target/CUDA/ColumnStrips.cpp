//===- ColumnStrips.cpp - A column kernel over strips in registers -------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Under the plan's apply_in_strip, one kernel replaces a column kernel's
// partials, folds and apply step: a persistent grid whose block walks
// strips of columns, reads every reduced element of a strip into its
// threads' registers (the partial kernel's loop, ColumnPartial.cpp), folds
// and stores the strip's statistics, then writes the outputs over the
// strip from the registers (here). HBM is read once.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

LogicalResult
cuda::writeStripApply(EmitterContext &context, const EvalKernel &viewed,
                      const ColumnReduction &reduction,
                      const ColumnReduction *second, CodeWriter &writer,
                      const Expr &column, StringRef lane, int64_t loads,
                      const llvm::DenseMap<Value, std::string> &registers) {
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  EvalKernel apply = viewed;
  for (const ColumnReduction *statistic : {&reduction, second}) {
    if (!statistic)
      continue;
    Buffer stats;
    stats.name = statistic == &reduction ? "stats"
                                         : reduction.getSecondParameter().str();
    stats.value = statistic->info.result;
    stats.shape = context.shapes.getShape(stats.value);
    apply.inputs.push_back(stats);
  }
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        auto held = registers.find(value);
        if (held != registers.end())
          return Expr(held->second + "[k]", writer.getDepth());
        return loadElement(emitter, *leafBuffers.lookup(value), coords);
      });
  addKernelLeaves(emitter, apply, leafBuffers);
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
                    std::to_string(loads) + "; ++k) {");
  writer.closeScope("if (" + column.text + " < " + reduction.positions.str() +
                    ") {");
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
  // As many blocks as the GPU holds at once (a persistent grid), at most
  // the plan's stream_blocks a multiprocessor, and no more than the strips.
  launchBody += "  const int64_t strips = " + strips.str() + ";\n";
  launchBody += "  if (strips == 0)\n    return SINTER_OK;\n";
  launchBody += "  int resident = 0;\n";
  launchBody +=
      "  " +
      formatList("SINTER_RT_TRY(sinter_rt_check_cuda(",
                 {"ctx",
                  "sinter::getResidentBlocks(" + name + ", 256, 0, " +
                      std::to_string(kernel.plan.getStreamBlocks()) +
                      ", &resident)",
                  "\"cudaOccupancyMaxActiveBlocksPerMultiprocessor\""},
                 "));", 1) +
      "\n";
  launchBody += "  const unsigned stripBlocks = static_cast<unsigned>("
                "std::min<int64_t>(resident, strips));\n";
  launchBody +=
      "  " + formatLaunch(name, "stripBlocks", "256", "0", arguments, 1) + "\n";
  launchBody +=
      "  SINTER_RT_TRY(sinter_rt_check_launch(ctx, \"" + name + "\"));\n";
  return stripKernel;
}
