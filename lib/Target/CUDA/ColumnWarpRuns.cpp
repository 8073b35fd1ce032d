//===- ColumnWarpRuns.cpp - Whole positions of a middle dim a warp -------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one kernel of a split reduction under the plan's warp_runs: over
// [A, R, C] reduced along R, where C is short and R * C too few elements
// for a block (a max over dim 1 of [262144, 128, 2]), the R * C elements of
// a position of A are contiguous, so a warp reads them as whole lines: lane
// l reads channel l % C of rows l / C, l / C + 32 / C, ..., several
// positions at once, combines its loads as a tree a chunk at a time, then
// the lanes of each channel combine by shuffles and lanes 0 to C - 1 finish
// the position's C columns. No partials, no fold, no shared memory. A mean
// with the variance around it reads the input once: each chunk's Welford
// state joins the lane's, in double, and the lanes' states combine.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

FailureOr<std::string>
cuda::writeWarpRunKernel(EmitterContext &context, const EvalKernel &kernel,
                         const ColumnReduction &reduction,
                         const ColumnReduction *second, StringRef name,
                         ArrayRef<std::string> allDims,
                         SmallVectorImpl<std::string> &dims) {
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  std::optional<int64_t> reduced = reduction.groupSize.getConstant();
  const int64_t runs = reduction.warpRuns;
  const int64_t channels = reduction.columnsPerBlock / (8 * runs);
  const bool welford = reduction.pairs(SinglePassForm::Welford);
  if (!reduced || (reduction.second && !welford) || channels < 1 ||
      channels > 32)
    return emitError(reduction.info.result.getLoc(),
                     "CUDA emitter: warp_runs need a static count of reduced "
                     "elements, one statistic (or a Welford pair) and up to "
                     "32 channels");
  // Lane l reads rows l / C + k * lanesPerChannel of channel l % C; the
  // lanes past the last whole group of C idle.
  const int64_t lanesPerChannel = 32 / channels;
  const int64_t loads = llvm::divideCeil(*reduced, lanesPerChannel);
  const int64_t chunk = reduction.chunkLoads;

  CodeWriter writer;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        const Buffer *buffer = leafBuffers.lookup(value);
        if (!buffer)
          return emitError(value.getLoc(), "CUDA emitter: a column reduction "
                                           "reads a later result");
        return loadElement(emitter, *buffer, coords);
      });
  EvalKernel viewed = kernel;
  viewed.inputs = viewReshapedInputs(context, kernel.inputs);
  addKernelLeaves(emitter, viewed, leafBuffers);

  const bool isArg = reduction.info.isArg();
  const std::string accType = reduction.getAccumulatorType().str();
  const std::string positions = reduction.positions.str();
  const std::string runCount = std::to_string(runs);
  const std::string chunkSize = std::to_string(chunk);
  const std::string channelCount = std::to_string(channels);
  const std::string stride = std::to_string(lanesPerChannel);
  // The warp's positions of A begin at `first`; lane l's column of
  // position first + run is (first + run) * C + l % C.
  const std::string column = "const int64_t column = (first + run) * " +
                             channelCount + " + lane % " + channelCount + ";";
  writer.line("const int lane = threadIdx.x % 32;");
  writer.line("const int64_t first = (static_cast<int64_t>(blockIdx.x) * 8 + "
              "threadIdx.x / 32) * " +
              runCount + ";");
  // Sums accumulate the lane's chunks, and combine the lanes, in double:
  // only each chunk's tree adds in float (a sum over 341 rows of 3
  // channels: 9.1e-8 against float64 in float, above eager's 8.3e-8).
  // Welford states too: a lane's chunks' states join in double (var over
  // 128 rows of 2 channels).
  const bool sums = reduction.sumsInDouble();
  const std::string laneType =
      sums || welford ? reduction.getFoldType().str() : accType;
  const std::string laneCombiner =
      sums || welford ? reduction.getFoldCombiner().str() : reduction.combiner;
  writer.line((isArg ? "dev::ExactAccumulator<" : "dev::Accumulator<") +
              laneCombiner + ", " + laneType + "> accumulator[" + runCount +
              "];");
  writer.openScope(); // over the chunks of the lane's rows
  writer.line("float chunk[" + runCount + "][" + chunkSize + "];");
  // (A Welford chunk's state counts its rows read: a prefix of its slots.)
  if (welford)
    writer.line("int rows[" + runCount + "] = {};");
  writer.openScope(); // over the warp's positions
  writer.line(column);
  unsigned columnDepth = writer.getDepth();
  writer.openScope(); // over a chunk's loads
  writer.line("chunk[run][k] = " +
              (welford ? std::string("0.f")
                       : reduction.combiner + "::identity()" +
                             (isArg ? ".value" : "")) +
              ";");
  std::optional<int64_t> elements = getNumElements(shape).getConstant();
  const std::string row = "lane / " + channelCount + " + (k0 + k) * " + stride;
  writer.line(elements && *elements < (int64_t(1) << 32)
                  ? "const uint32_t q = static_cast<uint32_t>(" + row + ");"
                  : "const int64_t q = " + row + ";");
  writer.openScope(); // if the lane reads row q of its column
  Coords coords = interleaveCoords(Expr("column", columnDepth),
                                   Expr("q", writer.getDepth()), shape,
                                   reduction.info.dims);
  FailureOr<Expr> element = emitter.emit(reduction.info.input, coords);
  if (failed(element))
    return failure();
  writer.line("chunk[run][k] = " + element->text + ";");
  if (welford)
    writer.line("++rows[run];");
  // (Where C divides 32, no lane idles.)
  const int64_t busyLanes = lanesPerChannel * channels;
  writer.closeScope(
      "if (" +
      (busyLanes == 32 ? "" : "lane < " + std::to_string(busyLanes) + " && ") +
      "column < " + positions + " && q < " + std::to_string(*reduced) + ") {");
  writer.closeScope("#pragma unroll\nfor (int k = 0; k < " + chunkSize +
                    "; ++k) {");
  writer.closeScope("#pragma unroll\nfor (int run = 0; run < " + runCount +
                    "; ++run) {");
  // Each chunk combines as a fixed tree (argmax and argmin: slot k holds
  // row lane / C + (k0 + k) * 32 / C).
  writer.line("#pragma unroll");
  writer.line("for (int run = 0; run < " + runCount + "; ++run)");
  if (welford) {
    // (A lane past the end of its positions' rows read none.)
    writer.line("  if (rows[run] > 0)");
    writer.line("    accumulator[run].push(dev::widen(dev::welfordOfChunk<" +
                chunkSize + ">(chunk[run], rows[run])));");
  } else {
    std::string tree =
        isArg ? "dev::argTreeCombine<" +
                    std::string(reduction.info.kind == ReductionCombiner::argmax
                                    ? "dev::GreaterThan"
                                    : "dev::LessThan") +
                    ", " + chunkSize + ", 1>(chunk[run], lane / " +
                    channelCount + " + k0 * " + stride + ", " + stride + ")"
              : "dev::treeCombine<" + reduction.combiner + ", " + chunkSize +
                    ">(chunk[run])";
    writer.line("  accumulator[run].push(" + tree + ");");
  }
  writer.closeScope("for (int k0 = 0; k0 < " + std::to_string(loads) +
                    "; k0 += " + chunkSize + ") {");
  // The lanes of each channel combine; lane c < C finishes column c of
  // each position.
  writer.openScope(); // over the warp's positions, finishing
  writer.line(column);
  writer.line("const " + laneType + " total = dev::warpReduceChannels<" +
              channelCount + ", " + laneCombiner +
              ">(accumulator[run].result());");
  writer.line("if (lane < " + channelCount + " && column < " + positions +
              ") {");
  writer.line("  const int64_t p = column;");
  std::string finish = finishColumn(reduction, second, "  ");
  for (StringRef line : llvm::split(StringRef(finish).rtrim('\n'), '\n'))
    writer.line(line.str());
  writer.line("}");
  writer.closeScope("#pragma unroll\nfor (int run = 0; run < " + runCount +
                    "; ++run) {");
  std::string body = writer.finish(1);

  dims.assign(findUsedDims(body, allDims));
  SmallVector<std::string> parameters = getBufferParameters(kernel.inputs, {});
  parameters.push_back(reduction.getStatsType().str() + " *__restrict__ stats");
  if (second)
    parameters.push_back("float *__restrict__ " +
                         reduction.getSecondParameter().str());
  llvm::append_range(parameters,
                     getBufferParameters({}, reduction.epilogueOutputs));
  llvm::append_range(parameters, getDimParameters(dims));
  int64_t blocks = kernel.plan.getMinBlocks();
  std::string minBlocks = blocks ? ", " + std::to_string(blocks) : "";
  std::string dimList =
      llvm::join(llvm::map_range(reduction.info.dims,
                                 [](int64_t d) { return std::to_string(d); }),
                 ", ");
  std::string summary =
      "/// " + stringifyReductionCombiner(reduction.info.kind).str() +
      (welford ? " (Welford states, with the variance)" : "") + " over dims [" +
      dimList + "] of " + formatShape(shape) + ", " + runCount +
      " position(s) of the kept outer dims a warp, " + channelCount +
      " channels of " + std::to_string(*reduced) +
      " elements each, lanes side by side.\n";
  return summary +
         formatKernel("__global__ void __launch_bounds__(256" + minBlocks + ")",
                      name, parameters, body);
}
