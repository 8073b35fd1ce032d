//===- ColumnPartial.cpp - The partial kernels of a column kernel ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A partial kernel reduces one slice of the rows per column (see
// ColumnReduction.cpp): each thread loads a chunk of elements (or of runs of
// 4 adjacent elements, as float4s) at a time, combines it as a fixed tree
// and pushes the result into a blocked accumulator; the block then folds its
// threads' results in a fixed order.
//
//===----------------------------------------------------------------------===//

#include "ColumnKernel.h"

#include "sinter/Dialect/Sinter/IR/SplitReduction.h"
#include "sinter/Dialect/Sinter/Transforms/Occupancy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

std::vector<Buffer> cuda::viewReshapedInputs(EmitterContext &context,
                                             ArrayRef<Buffer> inputs) {
  std::vector<Buffer> views(inputs.begin(), inputs.end());
  for (Buffer &view : views) {
    if (!view.value.hasOneUse())
      continue;
    auto reshape = dyn_cast<ReshapeOp>(*view.value.getUsers().begin());
    if (!reshape)
      continue;
    view.value = reshape.getResult();
    view.shape = context.shapes.getShape(view.value);
  }
  return views;
}

/// The name of the array that holds the run of 4 elements of `buffer` that
/// begins at `base`, loaded once per run: a float4 where `vec` (the launch
/// found the buffers aligned), else 4 scalar loads.
static std::string loadRun(CodeWriter &writer, ScalarEmitter &emitter,
                           const Buffer &buffer, const Coords &base,
                           llvm::StringMap<std::string> &vectors) {
  auto it = vectors.find(buffer.name);
  if (it != vectors.end())
    return it->second;
  Expr linear = emitter.bindIndex(linearize(base, buffer.shape));
  std::string name = writer.freshName(buffer.name + "_run");
  auto element = [&](int lane) {
    return buffer.name + "[" + linear.text + " + " + std::to_string(lane) + "]";
  };
  unsigned depth = std::max(linear.depth, base.getDepth());
  writer.lineAt(depth, "const float4 " + name + "4 = vec ? dev::loadFloat4(" +
                           buffer.name + " + " + linear.text +
                           ") : make_float4(" + element(0) + ", " + element(1) +
                           ", " + element(2) + ", " + element(3) + ");");
  writer.lineAt(depth, "const float " + name + "[4] = {" + name + "4.x, " +
                           name + "4.y, " + name + "4.z, " + name + "4.w};");
  vectors[buffer.name] = name;
  return name;
}

/// Welford states of up to this many lanes of a block fold in double.
static constexpr int64_t kWideFoldLanes = 8;

/// The fixed tree over the chunk of `count` slots at `values`: of Welford
/// states for a mean with its variance (`rows` of them read), of (value,
/// index) pairs in order for argmax and argmin, whose chunk holds the
/// values only (slot i of index `first` + (i / `run`) * `stride` + i %
/// `run`), else of the reduction's combiner (online softmax states push
/// their chunks instead).
static std::string getChunkTree(const ColumnReduction &reduction,
                                StringRef values, StringRef count,
                                StringRef first, StringRef stride,
                                StringRef run) {
  if (reduction.pairs(SinglePassForm::Welford))
    return ("dev::welfordOfChunk<" + count + ">(" + values + ", rows)").str();
  if (reduction.info.isArg())
    return ("dev::argTreeCombine<" +
            StringRef(reduction.info.kind == ReductionCombiner::argmax
                          ? "dev::GreaterThan"
                          : "dev::LessThan") +
            ", " + count + ", " + run + ">(" + values + ", " + first + ", " +
            stride + ")")
        .str();
  return ("dev::treeCombine<" + reduction.combiner + ", " + count + ">(" +
          values + ")")
      .str();
}

FailureOr<std::string> cuda::writeColumnPartialKernel(
    EmitterContext &context, const EvalKernel &kernel,
    ArrayRef<ColumnReduction> reductions, size_t index, StringRef name,
    ArrayRef<std::string> allDims, SmallVectorImpl<std::string> &dims) {
  const ColumnReduction &reduction = reductions[index];
  if (reduction.warpRuns)
    return writeWarpRunKernel(context, kernel, reduction,
                              reduction.second ? &reductions[*reduction.second]
                                               : nullptr,
                              name, allDims, dims);
  const Shape &shape = context.shapes.getShape(reduction.info.input);
  const bool vector = reduction.runs;
  const bool columnRuns = reduction.hasColumnRuns();
  CodeWriter writer;
  // The vector path: the first element of the run of 4 that the lanes `l`
  // read, and the float4s already loaded, by buffer.
  std::optional<Coords> vectorBase;
  llvm::StringMap<std::string> vectors;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  std::vector<Buffer> statsBuffers;
  for (size_t i = 0; i < index; ++i) {
    Buffer stats;
    stats.name = reductions[i].stats;
    stats.value = reductions[i].info.result;
    stats.shape = context.shapes.getShape(stats.value);
    stats.isIndex = reductions[i].info.isArg();
    statsBuffers.push_back(stats);
  }
  // Under apply_in_strip, the inputs of the reduced shape that the thread
  // holds (their arrays, by value), the index of the register being read
  // in them, and the strip's column of the thread.
  llvm::DenseMap<Value, StripArray> stripRegisters;
  std::string registerIndex;
  const std::string columnInStrip =
      "threadIdx.x % " + std::to_string(reduction.getThreadsPerRow());
  ScalarEmitter emitter(
      writer, context.shapes, context.constants,
      [&](Value value, const Coords &coords) -> FailureOr<Expr> {
        const Buffer *buffer = leafBuffers.lookup(value);
        if (!buffer)
          return emitError(value.getLoc(), "CUDA emitter: a column reduction "
                                           "reads a later result");
        auto held = stripRegisters.find(value);
        if (held != stripRegisters.end())
          return Expr(held->second.getElement(registerIndex, columnInStrip,
                                              reduction.columnsPerBlock),
                      writer.getDepth());
        if (!vectorBase ||
            ArrayRef<DimExpr>(buffer->shape) != ArrayRef<DimExpr>(shape))
          return loadElement(emitter, *buffer, coords);
        return Expr(loadRun(writer, emitter, *buffer, *vectorBase, vectors) +
                        "[l]",
                    writer.getDepth());
      });
  EvalKernel viewed = kernel;
  viewed.inputs = viewReshapedInputs(context, kernel.inputs);
  addKernelLeaves(emitter, viewed, leafBuffers);
  for (const Buffer &stats : statsBuffers) {
    emitter.addLeaf(stats.value);
    leafBuffers[stats.value] = &stats;
  }

  const std::string columns = std::to_string(reduction.columnsPerBlock);
  const std::string threads = std::to_string(reduction.getThreadsPerRow());
  const std::string lanes = std::to_string(reduction.getLanes());
  const std::string accType = reduction.getAccumulatorType().str();
  const std::string positions = reduction.positions.str();
  // Argmax and argmin give the same result in any order: they need no
  // blocked runs (three registers fewer a column: 53 a thread, not 64).
  // Online softmax states push each chunk's values (8 a column of a
  // thread's columns, 16 or 8 of a row split over its block) into one state
  // a column (OnlineSoftmaxAccumulator; its sum is a double), which
  // rescales in double only where a chunk raises the max. A state per chunk
  // of a split row, combined, rescaled each (logsumexp over [64, 1048576]
  // at 0.86 of copy on the H100, 0.88 so).
  const bool exact = reduction.info.isArg();
  const bool pushChunks = reduction.pairs(SinglePassForm::OnlineSoftmax);
  const std::string accumulator =
      pushChunks ? "dev::OnlineSoftmaxAccumulator"
                 : (exact ? "dev::ExactAccumulator<" : "dev::Accumulator<") +
                       reduction.combiner + ", " + accType + ">";
  // Under apply_in_strip, the block walks strips (one slice each: every
  // reduced element of its columns).
  const bool strips = reduction.applyInStrip;
  if (strips)
    writer.openScope(); // over the block's strips
  // The chunks of a pair's states hold the values, and how many of them
  // are rows (the identity of a sum or a max past them). With column runs,
  // the values of column l are chunk[loads * l + k]. Chunks of an argmax or
  // argmin hold the values too: the slots give the indices.
  const bool welford = reduction.pairs(SinglePassForm::Welford);
  const bool softmax = reduction.pairs(SinglePassForm::OnlineSoftmax);
  const bool paired = welford || softmax;
  const bool isArg = reduction.info.isArg();
  const std::string chunkType = paired || isArg ? "float" : accType;
  const std::string chunkSize =
      std::to_string(vector ? 4 * reduction.chunkLoads : reduction.chunkLoads);
  // With several columns a thread (one slice: the thread finishes its
  // columns), thread t of the block covers columns u * 256 + t of its
  // group: it loads every column's chunk (all of its rows), then combines
  // each and stores it, so that the loads of them all are in flight at once.
  const int64_t columnsPerThread = reduction.columnsPerThread;
  const bool oneSlice = columnsPerThread > 1;
  const std::string overColumns =
      "#pragma unroll\nfor (int owned = 0; owned < " +
      std::to_string(columnsPerThread) + "; ++owned) {";
  if (oneSlice) {
    writer.line(chunkType + " chunks[" + std::to_string(columnsPerThread) +
                "][" + chunkSize + "] = {};");
    if (paired)
      writer.line("int rowsOf[" + std::to_string(columnsPerThread) + "] = {};");
    writer.openScope(); // over the thread's columns, loading
  }
  const std::string blockColumns =
      strips     ? "strip"
      : oneSlice ? "(static_cast<int64_t>(blockIdx.x) * " +
                       std::to_string(columnsPerThread) + " + owned)"
                 : "static_cast<int64_t>(blockIdx.x)";
  const std::string accumulatorDecl =
      accumulator + " accumulator" + (columnRuns ? "[4]" : "") + ";";
  if (!oneSlice)
    writer.line(accumulatorDecl);
  // A block covers `columns` columns; its threads split into `lanes` lanes
  // of adjacent columns (4 a thread with column runs; or, for one column,
  // adjacent reduced elements).
  const bool oneColumn = reduction.columnsPerBlock == 1;
  // (One thread across the columns: a run of 4 columns a block.)
  const bool oneThreadAcross = reduction.getThreadsPerRow() == 1;
  const std::string lane =
      oneColumn || oneThreadAcross ? "threadIdx.x" : "threadIdx.x / " + threads;
  std::string inBlock = "threadIdx.x % " + threads;
  if (columnRuns)
    inBlock = "4 * (" + inBlock + ")";
  const std::string columnDecl =
      oneColumn ? std::string("const int64_t column = ") +
                      (strips ? "strip" : "blockIdx.x") + ";"
                : "const int64_t column = " + blockColumns + " * " + columns +
                      (oneThreadAcross ? "" : " + " + inBlock) + ";";
  writer.line(columnDecl);
  const unsigned columnDepth = writer.getDepth();
  // Under apply_in_strip, each thread holds its elements of the inputs of
  // the reduced shape, element k of its column being row lane + k * lanes
  // (the reduced elements are static): in registers, or for the plan's
  // cached operands in the strip's shared memory, one after another (as
  // writeColumnStrips sizes it).
  std::optional<int64_t> stripLoads;
  bool stagedRuns = false;
  if (strips) {
    std::optional<int64_t> reduced = reduction.groupSize.getConstant();
    if (!reduced)
      return emitError(reduction.info.result.getLoc(),
                       "CUDA emitter: apply_in_strip over a symbolic count "
                       "of reduced elements");
    stripLoads = llvm::divideCeil(*reduced, reduction.getLanes());
    int64_t staged = 0;
    for (auto [input, operand] : llvm::zip(viewed.inputs, kernel.inputs)) {
      if (ArrayRef<DimExpr>(input.shape) != ArrayRef<DimExpr>(shape))
        continue;
      StripArray array{writer.freshName(input.name + "_strip"),
                       isStagedInStrip(kernel, operand)};
      if (array.shared) {
        if (staged == 0)
          writer.line("extern __shared__ float stripShared[];");
        writer.line(
            "float *const " + array.name + " = stripShared + " +
            std::to_string(staged * *reduced * reduction.columnsPerBlock) +
            ";");
        ++staged;
      } else {
        writer.line("float " + array.name + "[" + std::to_string(*stripLoads) +
                    "];");
      }
      stripRegisters[input.value] = std::move(array);
    }
    // The block copies the staged inputs' elements of the strip, then
    // every thread reads its own.
    stagedRuns = writeStripCopies(emitter, writer, reduction, shape,
                                  viewed.inputs, stripRegisters);
  }
  writer.openScope(); // if (column < positions)
  unsigned guardDepth = writer.getDepth();
  writer.line("const int64_t step = " +
              (strips || oneSlice ? lanes : "splits * " + lanes) + ";");
  const bool loadsRegisters = llvm::any_of(
      stripRegisters, [](const auto &held) { return !held.second.shared; });
  if (loadsRegisters) {
    // Every load of the strip in flight at once.
    writer.openScope(); // over the thread's elements
    writer.openScope(); // if (q < reduced)
    writer.line("const uint32_t q = static_cast<uint32_t>(" + lane + " + k * " +
                lanes + ");");
    Coords element = interleaveCoords(Expr("column", guardDepth),
                                      Expr("q", writer.getDepth()), shape,
                                      reduction.info.dims);
    for (const Buffer &input : viewed.inputs) {
      auto held = stripRegisters.find(input.value);
      if (held == stripRegisters.end() || held->second.shared)
        continue;
      Expr load = loadElement(emitter, input, element);
      writer.line(held->second.name + "[k] = " + load.text + ";");
    }
    writer.closeScope("if (" + lane + " + k * " + lanes + " < " +
                      reduction.groupSize.str() + ") {");
    writer.closeScope("#pragma unroll\nfor (int k = 0; k < " +
                      std::to_string(*stripLoads) + "; ++k) {");
  }
  if (strips)
    registerIndex = "c0 + k";
  writer.openScope(); // over this slice's rows, a chunk at a time
  if (strips)
    writer.line("const int64_t q0 = " + lane + " + c0 * " + lanes + ";");
  const std::string loads = std::to_string(reduction.chunkLoads);
  const std::string chunkCombiner =
      welford   ? "dev::SumOp"
      : softmax ? getCombinerInfo(reduction.info.kind).deviceFunctor.str()
                : reduction.combiner;
  std::string slot = !vector      ? "k"
                     : columnRuns ? loads + " * l + k"
                                  : "4 * k + l";
  // (One slice: the chunk is the column's in the thread's chunks.)
  auto declareChunk = [&] {
    if (oneSlice) {
      writer.line(chunkType + " (&chunk)[" + chunkSize + "] = chunks[owned];");
      if (paired)
        writer.line("int &rows = rowsOf[owned];");
      return;
    }
    writer.line(chunkType + " chunk[" + chunkSize + "];");
    if (paired)
      writer.line("int rows = 0;");
  };
  declareChunk();
  writer.openScope(); // over the loads of one chunk
  if (vector)
    writer.line("for (int l = 0; l < 4; ++l)");
  writer.line((vector ? "  chunk[" : "chunk[") + slot + "] = " + chunkCombiner +
              "::identity()" + (isArg ? ".value" : "") + ";");
  writer.openScope(); // if (q < groupSize): the loads stay inside
  const bool rowRuns = vector && !columnRuns;
  // The reduced position of an input of fewer than 2^32 elements is 32-bit:
  // its divisions by sizes that are no powers of two are then a
  // multiply-high, not a 64-bit sequence (max over N, H and W of [24, 96,
  // 170, 171] ran at 0.56 of copy with 64 bits, 0.89 with 32, on the H100).
  std::optional<int64_t> elements = getNumElements(shape).getConstant();
  const std::string position =
      rowRuns ? "(q0 + k * step) * 4" : "q0 + k * step";
  // (Under apply_in_strip, the elements of the reduced shape come from
  // registers: q may go unread.)
  writer.line(
      std::string(strips ? "[[maybe_unused]] " : "") +
      (elements && *elements < (int64_t(1) << 32)
           ? "const uint32_t q = static_cast<uint32_t>(" + position + ");"
           : "const int64_t q = " + position + ";"));
  // Element (column, q) of the input: column indexes the kept dims (read
  // only when some has size > 1), q the reduced.
  Coords coords =
      interleaveCoords(Expr("column", guardDepth), Expr("q", writer.getDepth()),
                       shape, reduction.info.dims);
  if (vector) {
    // The lanes share every coordinate but the innermost (reduced with row
    // runs, kept with column runs) one.
    vectorBase = coords;
    writer.openScope(); // over the lanes of a run
    coords.indices.back() = addIndex(emitter.bindIndex(coords.indices.back()),
                                     Expr("l", writer.getDepth()));
    if (coords.linear)
      coords.linear = addIndex(emitter.bindIndex(*coords.linear),
                               Expr("l", writer.getDepth()));
  }
  FailureOr<Expr> element = emitter.emit(reduction.info.input, coords);
  if (failed(element))
    return failure();
  writer.line("chunk[" + slot + "] = " + element->text + ";");
  if (vector) {
    writer.closeScope("#pragma unroll\nfor (int l = 0; l < 4; ++l) {");
    vectorBase.reset();
  }
  if (paired)
    writer.line(rowRuns ? "rows += 4;" : "++rows;");
  std::string count = reduction.groupSize.str() + (rowRuns ? " / 4" : "");
  writer.closeScope("if (q0 + k * step < " + count + ") {");
  // `loads` loads in flight per thread; the chunk combines as a fixed tree
  // and joins the accumulator's runs, so that the error grows with about
  // the square root of the rows a thread reads.
  writer.closeScope("#pragma unroll\nfor (int k = 0; k < " + loads +
                    "; ++k) {");
  // The index of an argmax is q (it reduces one dim): q0 + k * step for
  // slot k, times 4 plus l for slot 4 * k + l of row runs.
  if (columnRuns) {
    writer.line("#pragma unroll");
    writer.line("for (int l = 0; l < 4; ++l)");
    writer.line(pushChunks
                    ? "  accumulator[l].pushChunk<" + loads + ">(chunk + " +
                          loads + " * l, rows);"
                    : "  accumulator[l].push(" +
                          getChunkTree(reduction, "chunk + " + loads + " * l",
                                       loads, "q0", "step", "1") +
                          ");");
  } else if (pushChunks) {
    writer.line("accumulator.pushChunk<" + chunkSize + ">(chunk, rows);");
  } else if (!oneSlice) {
    writer.line(
        "accumulator.push(" +
        getChunkTree(reduction, "chunk", chunkSize, rowRuns ? "q0 * 4" : "q0",
                     rowRuns ? "step * 4" : "step", rowRuns ? "4" : "1") +
        ");");
  }
  if (strips)
    writer.closeScope("#pragma unroll\nfor (int c0 = 0; c0 < " +
                      std::to_string(*stripLoads) + "; c0 += " + loads + ") {");
  else
    writer.closeScope("for (int64_t q0 = " +
                      (oneSlice ? std::string("0")
                                : "static_cast<int64_t>(blockIdx.y) * " +
                                      lanes + " + " + lane) +
                      "; q0 < " + count + "; q0 += " + loads + " * step) {");
  writer.closeScope("if (column < " + positions + ") {");
  if (oneSlice) {
    // Every column's loads are in flight: combine each (its one chunk,
    // rows 0 to 7) and finish it.
    writer.closeScope(overColumns);
    writer.openScope(); // over the thread's columns, finishing
    writer.line(columnDecl);
    writer.line(accumulatorDecl);
    declareChunk();
    writer.line("accumulator.push(" +
                getChunkTree(reduction, "chunk", chunkSize, "0", "1", "1") +
                ");");
  }
  const ColumnReduction *second =
      reduction.second ? &reductions[*reduction.second] : nullptr;
  // Under apply_in_strip, the finishing threads share the statistics that
  // the apply step reads at their own column (ColumnStrips.cpp).
  ColumnReduction finishing = reduction;
  std::optional<StripThread> stripThread;
  if (strips)
    stripThread = StripThread{Expr("column", columnDepth), columnInStrip, lane,
                              *stripLoads, &stripRegisters};
  if (strips &&
      failed(declareStripStatistics(context, viewed, reduction, second, writer,
                                    *stripThread, finishing)))
    return failure();
  // Stores `value`, made of the block's `total` for column `p`, as the
  // partial of its slice, in lines that begin with `indent`; under
  // last_block_folds with one slice, finishes the column instead (the fold
  // would read that partial back alone).
  auto storePartial = [&](StringRef indent, StringRef p, StringRef value) {
    std::string store =
        ("partial[blockIdx.y * " + positions + " + " + p + "] = " + value + ";")
            .str();
    if (strips || oneSlice) {
      // The strip's block (the thread, of one slice) read every reduced
      // element: its total is final.
      std::string finish = finishColumn(finishing, second, "");
      // (A strip's statistics it only shares need no p.)
      if (p != "p" && !findUsedDims(finish, {"p"}).empty())
        writer.line(indent + "const int64_t p = " + p + ";");
      for (StringRef line : llvm::split(StringRef(finish).rtrim('\n'), '\n'))
        writer.line(indent + line);
      return;
    }
    if (!reduction.lastBlockFolds) {
      writer.line(indent + store);
      return;
    }
    writer.line(indent + "if (splits > 1) {");
    writer.line(indent + "  " + store);
    writer.line(indent + "} else {");
    writer.line(indent +
                "  // One slice: the block's total is its column's result.");
    if (p != "p")
      writer.line(indent + "  const int64_t p = " + p + ";");
    std::string finish = finishColumn(reduction, second, "  ");
    for (StringRef line : llvm::split(StringRef(finish).rtrim('\n'), '\n'))
      writer.line(indent + line);
    writer.line(indent + "}");
  };
  if (!columnRuns)
    writer.line(accType + (lanes == "1" ? " total" : " acc") +
                " = accumulator.result();");
  if (!columnRuns && lanes == "1") {
    writer.line("if (column < " + positions + ") {");
    storePartial("  ", "column", "total");
    writer.line("}");
    if (oneSlice)
      writer.closeScope(overColumns);
  } else if (oneColumn) {
    // The whole block shares one column: a tree over its threads (in
    // double for sums).
    if (reduction.sumsInDouble())
      writer.line("const double total = dev::blockReduce<256, "
                  "dev::SumDoubleOp>(static_cast<double>(acc));");
    else
      writer.line("const " + accType + " total = dev::blockReduce<256, " +
                  reduction.combiner + ">(acc);");
    writer.line("if (threadIdx.x == 0) {");
    storePartial("  ", "column", "total");
    writer.line("}");
  } else {
    // Each thread's columns (4 with column runs) into the block's table,
    // then fold the lanes of each column in lane order.
    writer.line("__shared__ " + accType + " slices[" + lanes + "][" + columns +
                "];");
    if (columnRuns) {
      writer.line("#pragma unroll");
      writer.line("for (int l = 0; l < 4; ++l)");
      writer.line("  slices[" + lane + "][" +
                  (oneThreadAcross ? "" : inBlock + " + ") +
                  "l] = accumulator[l].result();");
    } else {
      writer.line("slices[threadIdx.x / " + columns + "][threadIdx.x % " +
                  columns + "] = acc;");
    }
    writer.line("__syncthreads();");
    writer.line("const int64_t first = " + blockColumns + " * " + columns +
                " + threadIdx.x;");
    writer.line("if (threadIdx.x < " + columns + " && first < " + positions +
                ") {");
    // Welford states of a few lanes fold in double and round once (var over
    // 64 rows, 4 lanes: an error of 6.4e-8 against float64, 4.8e-8 so); the
    // chain of many lanes' (64 for 16 columns) would wait on as many double
    // divisions.
    // Sums fold their lanes in double, as their partials are.
    const bool wide = welford && reduction.getLanes() <= kWideFoldLanes;
    const bool sums = reduction.sumsInDouble();
    auto slice = [&](StringRef lane) {
      std::string element = ("slices[" + lane + "][threadIdx.x]").str();
      return wide   ? "dev::widen(" + element + ")"
             : sums ? "static_cast<double>(" + element + ")"
                    : element;
    };
    writer.line("  " +
                (wide || sums ? reduction.getFoldType().str() : accType) +
                " total = " + slice("0") + ";");
    writer.line("  for (int k = 1; k < " + lanes + "; ++k)");
    writer.line("    total = " +
                (wide || sums ? reduction.getFoldCombiner().str()
                              : reduction.combiner) +
                "()(total, " + slice("k") + ");");
    storePartial("  ", "first", wide ? "dev::narrow(total)" : "total");
    writer.line("}");
  }
  if (strips) {
    StripStatisticReads reads;
    if (failed(writeStripApply(context, viewed, reduction, second, writer,
                               *stripThread, reads)))
      return failure();
    writer.closeScope("for (int64_t strip = blockIdx.x; strip < strips; "
                      "strip += gridDim.x) {");
  }
  std::string body = writer.finish(1);
  if (reduction.lastBlockFolds && !oneSlice)
    body += writeLastBlockFold(reduction, second);

  dims.assign(findUsedDims(body, allDims));
  SmallVector<std::string> parameters = getBufferParameters(kernel.inputs, {});
  for (const Buffer &stats : statsBuffers)
    parameters.push_back("const " + stats.getElementType().str() +
                         " *__restrict__ " + stats.name);
  if (!strips && !oneSlice)
    parameters.push_back(reduction.getPartialType().str() +
                         " *__restrict__ partial");
  // A kernel that finishes its columns stores their statistics and writes
  // the outputs of the apply step (a strip's) or of the fold's epilogue.
  if (strips || reduction.lastBlockFolds) {
    parameters.push_back(reduction.getStatsType().str() +
                         " *__restrict__ stats");
    if (second)
      parameters.push_back("float *__restrict__ " +
                           reduction.getSecondParameter().str());
    // The kernel's inputs are parameters already.
    llvm::append_range(parameters, getBufferParameters(
                                       {}, strips ? reduction.applyOutputs
                                                  : reduction.epilogueOutputs));
  }
  if (reduction.lastBlockFolds && !oneSlice)
    parameters.push_back("unsigned *__restrict__ tickets");
  llvm::append_range(parameters, getDimParameters(dims));
  if (!oneSlice)
    parameters.push_back(strips ? "int64_t strips" : "int64_t splits");
  if (vector || stagedRuns)
    parameters.push_back("int vec");
  // The blocks per multiprocessor the plan asks for (Occupancy.h decides for
  // the epilogue of a GEMM, which has none).
  int64_t blocks =
      kernel.plan ? kernel.plan.getMinBlocks() : getSplitMinBlocks();
  std::string minBlocks = blocks ? ", " + std::to_string(blocks) : "";
  std::string what = stringifyReductionCombiner(reduction.info.kind).str();
  if (reduction.pairs(SinglePassForm::Welford))
    what += " (Welford states, with the variance)";
  if (reduction.pairs(SinglePassForm::OnlineSoftmax))
    what += " (online softmax states, with the sum of exp(x - max))";
  std::string dimList =
      llvm::join(llvm::map_range(reduction.info.dims,
                                 [](int64_t d) { return std::to_string(d); }),
                 ", ");
  std::string summary =
      strips ? "/// " + what + " over dims [" + dimList + "] of " +
                   formatShape(shape) + ", a strip of " + columns +
                   " columns at a time, then the outputs over the strip.\n"
      : oneSlice
          ? "/// " + what + " over dims [" + dimList + "] of " +
                formatShape(shape) + ", " + std::to_string(columnsPerThread) +
                " columns a thread, each whole.\n"
          : "/// Partial " + what + " over dims [" + dimList + "] of " +
                formatShape(shape) + ", per column and slice of rows.\n";
  return summary +
         formatKernel("__global__ void __launch_bounds__(256" + minBlocks + ")",
                      name, parameters, body);
}
