//===- RowReduction.cpp - Kernels that reduce within rows -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A row kernel gives every row to a team of threads: a group of 1 to 16
// lanes for short rows (several rows per warp), one warp for rows of at most
// 1024 elements, a block of 256 or 1024 threads for longer ones, as the plan
// says. For each row the team
//   1. loads the row of every input that more than one pass reads into
//      registers (the plan's `registers`), or copies it into shared memory
//      when it fits there, or into that of a thread block cluster (the
//      plan's `cluster`: block k of the cluster holds and walks the k-th
//      slice of the row, and the reductions combine across the cluster),
//      so that HBM is read once per row (rows longer still are streamed
//      through L2 in slices, the plan's `row_slices`: see RowStream.cpp);
//   2. computes the reductions level by level (a reduction that reads
//      another's result comes after it): each thread accumulates a strided
//      part of the row, then the team combines the partial results in a fixed
//      order (deterministic); where the plan says single_pass, softmax's max
//      and sum, or a mean and its variance, share one loop (online softmax,
//      Welford); reductions over segments of the row (group_norm after
//      reshape [R, C] -> [R, G, C/G]) give each segment to a warp and keep
//      the results in shared memory;
//   3. writes the outputs, computing every element from the inputs and the
//      reduction results.
// Where the plan's vector width is 4, the loops over the row read and write
// whole-row buffers with float4 when the host finds them 16-byte aligned.
// Under the plan's tile_rows (short rows that are not float4 groups), the
// block copies its consecutive rows of each cached input into one tile in
// shared memory, coalesced (float4 groups when aligned), before its teams
// walk them there, and stores the tiles its outputs of whole rows were
// written to likewise (RowShared.cpp).
// A row is whatever the reductions share: the kernel's row count R divides
// the result count of every reduction, which reduces trailing dims only.
// Matvec kernels come here too: a dot product with one output column is a
// sum over the row of lhs * rhs. This file writes the launch; RowPlan.cpp
// decides what the kernel reads, RowWriter.cpp and RowVectors.cpp write its
// body.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

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
  FailureOr<RowPlan> plan = planRowKernel(context, kernel);
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
  // Rows in registers use no shared memory.
  if (plan->cached.empty() || plan->registerRows)
    cachedCondition = "false";
  plan->staticTeam = staticTeam;

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
  if (plan->hasVectorPaths())
    parameters.push_back("int vec");
  // A streamed row kernel's queue, the count of arrived slices of each row,
  // each reduction's partials, and the lag of its second pass.
  if (plan->rowSlices > 1) {
    parameters.push_back("unsigned long long *__restrict__ queue");
    parameters.push_back("unsigned *__restrict__ arrived");
    for (const RowReduction &reduction : plan->reductions)
      parameters.push_back(getSlicePartialType(*plan, reduction) +
                           " *__restrict__ " +
                           getSlicePartialName(*plan, reduction));
    parameters.push_back("int64_t lag");
  }
  // The blocks per multiprocessor the plan asks for (none for the epilogue
  // of a GEMM).
  int64_t blocks = kernel.plan ? kernel.plan.getMinBlocks() : 0;
  std::string minBlocks = blocks ? ", " + std::to_string(blocks) : "";
  // A tiled block holds the plan's rows, other short rows' blocks 256
  // threads.
  std::string threads = "kThreads < 256 ? 256 : kThreads";
  std::string rowsPerBlock = "kThreads < 256 ? 256 / kThreads : 1";
  if (plan->tileRows) {
    threads = std::to_string(plan->tileRowsPerBlock / plan->rowsPerThread) +
              " * kThreads";
    rowsPerBlock = std::to_string(plan->tileRowsPerBlock);
  }
  result.deviceCode = formatKernel(
      "template <int kThreads>\n__global__ void __launch_bounds__(" + threads +
          minBlocks + ")",
      kernel.name, parameters, *body);

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
  if (plan->hasVectorPaths()) {
    templateParameters.push_back("int vec");
    templateArguments.push_back("vec");
  }
  // A streamed row kernel's scratch: the queue and the counts of arrived
  // slices, zeroed before each launch, then each reduction's partials.
  std::string streamLayout;
  if (plan->rowSlices > 1) {
    const std::string rows = "static_cast<size_t>(" + plan->rows.str() + ")";
    const std::string counters =
        "sizeof(unsigned long long) + " + rows + " * sizeof(unsigned)";
    result.scratchBytes.push_back("sinterAlign(" + counters + ")");
    streamLayout =
        "  char *cursor = static_cast<char *>(scratch);\n"
        "  unsigned long long *const queue =\n"
        "      reinterpret_cast<unsigned long long *>(cursor);\n"
        "  unsigned *const arrived = reinterpret_cast<unsigned *>(queue + 1);\n"
        "  cursor += sinterAlign(" +
        counters + ");\n";
    templateArguments.append({"queue", "arrived"});
    for (const RowReduction &reduction : plan->reductions) {
      std::string type = getSlicePartialType(*plan, reduction);
      std::string name = getSlicePartialName(*plan, reduction);
      std::string bytes = "sinterAlign(" + rows + " * " +
                          std::to_string(plan->rowSlices) + " * sizeof(" +
                          type + "))";
      result.scratchBytes.push_back(bytes);
      streamLayout += "  " + type + " *const " + name + " = reinterpret_cast<" +
                      type + " *>(cursor);\n  cursor += " + bytes + ";\n";
      templateArguments.push_back(name);
    }
    streamLayout +=
        "  " +
        formatList("SINTER_RT_TRY(sinter_rt_check_cuda(",
                   {"ctx",
                    "cudaMemsetAsync(scratch, 0, " + counters + ", stream)",
                    "\"cudaMemsetAsync\""},
                   "));", 1) +
        "\n";
    templateArguments.push_back("lag");
    templateParameters.push_back("void *scratch");
    launchParameters.push_back("void *scratch");
    context.helpers.insert("align");
  }

  std::string launch =
      "template <int kThreads>\n" +
      getLaunchSignature(kernel.name + "_rows", templateParameters);
  launch += "  constexpr int kRowsPerBlock = " + rowsPerBlock + ";\n";
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
  std::string grid =
      "static_cast<unsigned>(blocks < INT32_MAX ? blocks : INT32_MAX)";
  if (plan->rowSlices > 1) {
    // As many blocks as the GPU holds at once (a persistent grid), which
    // draw the items; the second pass trails the first by `lag` items.
    const std::string items = "rows * " + std::to_string(plan->rowSlices);
    launch += "  if (rows == 0)\n    return SINTER_OK;\n";
    launch += streamLayout;
    launch += "  int resident = 0;\n";
    launch +=
        "  " +
        formatList("SINTER_RT_TRY(sinter_rt_check_cuda(",
                   {"ctx",
                    "sinter::getResidentBlocks(" + kernel.name +
                        "<kThreads>, kThreads, 0, " +
                        std::to_string(plan->streamBlocks) + ", &resident)",
                    "\"cudaOccupancyMaxActiveBlocksPerMultiprocessor\""},
                   "));", 1) +
        "\n";
    launch += "  const int64_t lag = std::min<int64_t>(" +
              std::to_string(plan->streamLag) + ", " + items + ");\n";
    launch += "  const int64_t blocks = std::min<int64_t>(resident, 2 * " +
              items + ");\n";
  } else if (plan->cluster > 1) {
    // A cluster of blocks a row, as many rows at once as the grid holds.
    std::string cluster = std::to_string(plan->cluster);
    launch += "  const int64_t clusters = rows < INT32_MAX / " + cluster +
              " ? rows : INT32_MAX / " + cluster + ";\n";
    grid = "static_cast<unsigned>(clusters * " + cluster + ")";
  } else {
    launch += "  const int64_t blocks = (rows + kRowsPerBlock - 1) / "
              "kRowsPerBlock;\n";
  }
  launch +=
      "  " +
      formatLaunch(kernel.name + "<kThreads>", grid,
                   plan->hasThreadTiles()
                       ? "kRowsPerBlock / " +
                             std::to_string(plan->rowsPerThread) + " * kThreads"
                       : std::string("kRowsPerBlock * kThreads"),
                   sharedBytes, templateArguments, 1, plan->cluster) +
      "\n";
  launch +=
      "  return sinter_rt_check_launch(ctx, \"" + kernel.name + "\");\n}\n\n";

  launch += getLaunchSignature(kernel.name, launchParameters);
  SmallVector<std::string> callArguments = {"ctx", "stream"};
  llvm::append_range(callArguments, arguments);
  if (plan->hasVectorPaths()) {
    launch +=
        formatConjunction("vec", getAlignmentConditions(plan->vectorBuffers));
    callArguments.push_back("vec");
  }
  if (plan->rowSlices > 1)
    callArguments.push_back("scratch");
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
        staticTeam == 1   ? "one lane per row"
        : staticTeam < 32 ? std::to_string(staticTeam) + " lanes per row"
        : staticTeam == 32
            ? "one warp per row"
            : "one block of " + std::to_string(staticTeam) + " threads per row";
    // Rows that several passes read are cached, or re-read when the plan
    // found them too long.
    bool reread =
        kernel.plan ? kernel.plan.getPasses() > 1 : !plan->cached.empty();
    if (plan->registerRows)
      result.strategy +=
          plan->heldParams.empty()
              ? ", rows held in registers"
              : ", rows held in registers, the params of a row held across "
                "rows";
    else if (cachedCondition == "true" && plan->cluster > 1)
      result.strategy += ", rows cached in the shared memory of a cluster of " +
                         std::to_string(plan->cluster) + " blocks";
    else if (plan->rowSlices > 1)
      result.strategy = "rows streamed through L2 in " +
                        std::to_string(plan->rowSlices) + " slices of " +
                        std::to_string(plan->getRowSlice()) +
                        ", one block of " + std::to_string(staticTeam) +
                        " threads a slice (a persistent grid)";
    else if (plan->hasThreadTiles())
      result.strategy += ", each thread's " +
                         std::to_string(plan->rowsPerThread) +
                         " rows held in its registers, loaded and stored as "
                         "float4 when aligned";
    else if (plan->tileRows)
      result.strategy += ", the block's " +
                         std::to_string(plan->tileRowsPerBlock) +
                         " rows staged as tiles in shared memory, copied as "
                         "float4 when aligned";
    else if (cachedCondition == "true")
      result.strategy += ", rows cached in shared memory";
    else if (reread)
      result.strategy += ", rows re-read (too long for shared memory)";
    if (plan->vectorRows)
      result.strategy += ", float4 when aligned";
    else if (plan->vectorEdges)
      result.strategy += ", float4 groups between scalar edges when aligned";
    if (kernel.plan && kernel.plan.getSinglePass())
      result.strategy += ", single-pass statistics";
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
      callArguments.insert(
          callArguments.end() - (plan->hasVectorPaths() ? 1 : 0), "cached");
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
