//===- Pointwise.cpp - Elementwise kernels --------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A pointwise kernel walks the elements of its output shape with a
// grid-stride loop and computes every output element from its inputs,
// broadcasting through coordinates. The grid covers the work, a thread per
// element (or per four), so that the loop runs once per thread: that reads
// HBM at the copy bandwidth, where a grid of a few blocks per multiprocessor
// looping over the elements reaches 95% of it. When every buffer can be read 16
// bytes at a time (the host checks the alignment, and the row length when some
// input is broadcast along rows), a vector loop handles four elements per
// step with float4 loads and stores, and the scalar loop finishes the tail.
// Where the plan says so (chunk_loads: nothing broadcast, every value of the
// full shape or one element), each thread of a block of the plan's threads
// loads that many groups of every input, a block's groups consecutive, all
// before it computes and stores them, so that more loads are in flight.
// Where rows of a static length that is not a multiple of 4 are broadcast
// along (a per-channel scale over [N, C, 7, 7]), a group may straddle two
// rows: its full-shape buffers are still read and written as float4, and
// each lane reads the broadcast values at its own coordinates, but for the
// leading dims whose trailing dims hold a multiple of 4 elements, which
// the group's lanes share (the channel of [N, C, 150, 150]).
// Outputs whose shapes do not broadcast to that shape (a value and a reshape
// of it) get one more scalar loop per shape, in the same kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// Threads per block of pointwise kernels.
static constexpr int kPointwiseThreads = 256;

/// Broadcasts two shapes whose sizes are equal or 1; std::nullopt otherwise.
static std::optional<Shape> broadcastExactly(ArrayRef<DimExpr> a,
                                             ArrayRef<DimExpr> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    DimExpr x = i + a.size() >= rank ? a[i + a.size() - rank] : DimExpr();
    DimExpr y = i + b.size() >= rank ? b[i + b.size() - rank] : DimExpr();
    if (x == y || y.isConstant(1))
      result[i] = x;
    else if (x.isConstant(1))
      result[i] = y;
    else
      return std::nullopt;
  }
  return result;
}

/// True when every dim of `shape` is 1: one element, read by every thread.
static bool isScalarShape(ArrayRef<DimExpr> shape) {
  return llvm::all_of(shape,
                      [](const DimExpr &dim) { return dim.isConstant(1); });
}

namespace {
/// A grid-stride loop over `shape` that stores `outputs`, whose shapes
/// broadcast to `shape`.
struct PointwiseLoop {
  Shape shape;
  SmallVector<const Buffer *> outputs;
};

/// The decisions of one pointwise kernel.
struct PointwisePlan {
  /// The shape the main loops walk: the broadcast of the shapes of the
  /// outputs they store (`outputs`).
  Shape shape;
  SmallVector<const Buffer *> outputs;
  /// Outputs whose shapes do not broadcast with `shape` (a value and a
  /// reshape of it, both returned): one more scalar loop per shape, in the
  /// same kernel.
  std::vector<PointwiseLoop> extraLoops;
  /// Whether the kernel has the float4 path.
  bool vectorized = false;
  /// Whether some value is broadcast along rows (neither full-size nor a
  /// scalar) or the kernel has shape ops, so that four consecutive elements
  /// must lie in one row.
  bool needsRowMultipleOf4 = false;
  /// The rows a thread of the float4 path walks at one group of four
  /// columns (EvalKernel::rowsPerThread, where rows are multiples of 4
  /// long), so that values that vary along the rows only are loaded once
  /// for them all; 1 walks the groups in order.
  int64_t rowsPerThread = 1;
  /// Threads of a block (the plan's block).
  int64_t threads = kPointwiseThreads;
  /// The float4 groups of the vector path a thread loads, all in flight,
  /// before it computes them (the plan's chunk_loads): `threads` groups
  /// apart, a block's `groupsPerThread * threads` groups consecutive.
  int64_t groupsPerThread = 1;
};
} // namespace

/// The items of the float4 path's row loop (PointwisePlan::rowsPerThread):
/// the groups of four columns times the blocks of rows.
static std::string getRowLoopItems(const PointwisePlan &plan) {
  std::string length = sizeExpr(plan.shape.back()).text;
  std::string count = std::to_string(plan.rowsPerThread);
  return "(n / " + length + " + " + std::to_string(plan.rowsPerThread - 1) +
         ") / " + count + " * (" + length + " / 4)";
}

/// Decides the iteration shape and whether a vector path is possible.
static FailureOr<PointwisePlan> planPointwise(EmitterContext &context,
                                              const EvalKernel &kernel) {
  PointwisePlan plan;
  plan.shape = kernel.outputs.front().shape;
  for (const Buffer &output : kernel.outputs) {
    if (output.isIndex)
      return emitError(output.value.getLoc(),
                       "CUDA emitter: a pointwise kernel cannot produce "
                       "indices");
    if (std::optional<Shape> shape =
            broadcastExactly(plan.shape, output.shape)) {
      plan.shape = *shape;
      plan.outputs.push_back(&output);
      continue;
    }
    auto loop = llvm::find_if(plan.extraLoops, [&](const PointwiseLoop &loop) {
      return broadcastExactly(loop.shape, output.shape).has_value();
    });
    if (loop == plan.extraLoops.end())
      loop = plan.extraLoops.insert(loop, PointwiseLoop{output.shape, {}});
    loop->shape = *broadcastExactly(loop->shape, output.shape);
    loop->outputs.push_back(&output);
  }

  llvm::SetVector<Operation *> evaluated = getEvaluatedOps(kernel);
  bool hasShapeOps = llvm::any_of(evaluated, isShapeOp);
  bool allOutputsFull = plan.extraLoops.empty() &&
                        llvm::all_of(plan.outputs, [&](const Buffer *output) {
                          return ArrayRef<DimExpr>(output->shape) ==
                                 ArrayRef<DimExpr>(plan.shape);
                        });
  auto isPartial = [&](ArrayRef<DimExpr> shape) {
    return shape != ArrayRef<DimExpr>(plan.shape) && !isScalarShape(shape);
  };
  bool broadcasts = llvm::any_of(kernel.inputs,
                                 [&](const Buffer &input) {
                                   return isPartial(input.shape);
                                 }) ||
                    llvm::any_of(evaluated, [&](Operation *op) {
                      return llvm::any_of(op->getResults(), [&](Value result) {
                        return isPartial(context.shapes.getShape(result));
                      });
                    });
  std::optional<int64_t> count = getNumElements(plan.shape).getConstant();
  std::optional<int64_t> rowLength =
      plan.shape.empty() ? std::nullopt : plan.shape.back().getConstant();
  bool oddRows = rowLength && *rowLength % 4 != 0;
  // Where values broadcast along rows of a multiple of 4, the lanes of a
  // float4 group are four elements of one row, which share the broadcast
  // values; so are they through shape ops (an apply step reading through a
  // group_norm's reshapes), and rows that are not float4 groups then take
  // no vectors. Over other rows, each lane of a group takes its own
  // coordinates (the group may straddle two rows) and reads the broadcast
  // values there (a per-channel scale over [N, C, 7, 7]).
  plan.needsRowMultipleOf4 = hasShapeOps || (broadcasts && !oddRows);
  bool rowsNeverFit = hasShapeOps && oddRows;
  bool canVectorize = !plan.shape.empty() && allOutputsFull &&
                      !(count && *count < 4) && !rowsNeverFit;
  // The kernel's plan decides the vector width (an apply or epilogue step
  // decides here); the symbolic shapes must agree with it.
  plan.vectorized =
      kernel.plan ? kernel.plan.getVectorWidth() == 4 : canVectorize;
  if (plan.vectorized && !canVectorize)
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: the plan's vector width 4 does not fit "
                     "the kernel's shapes");
  // The row loop fixes each thread's columns: values broadcast along the
  // rows, read without shape ops, then load once for its rows.
  if (kernel.rowsPerThread > 1 && plan.vectorized && plan.needsRowMultipleOf4 &&
      !hasShapeOps && plan.shape.size() >= 2)
    plan.rowsPerThread = kernel.rowsPerThread;
  // An elementwise plan chooses the block and the groups a thread loads at
  // once; those groups are loads of the thread's own elements, so nothing
  // may broadcast (the planner's readsOwnElementsOnly).
  if (kernel.plan && kernel.plan.getStrategy() == KernelStrategy::elementwise) {
    // (A block of 0, chosen at launch, is kPointwiseThreads.)
    if (kernel.plan.getBlock() != 0)
      plan.threads = kernel.plan.getBlock();
    plan.groupsPerThread = std::max<int64_t>(1, kernel.plan.getChunkLoads());
  }
  if (plan.groupsPerThread > 1 &&
      (!plan.vectorized || plan.needsRowMultipleOf4 || plan.rowsPerThread > 1))
    return emitError(kernel.body->getParentOp()->getLoc(),
                     "CUDA emitter: the plan's chunk_loads " +
                         std::to_string(plan.groupsPerThread) +
                         " need float4 groups of the kernel's own elements, "
                         "which a broadcast value or shape op rules out");
  return plan;
}

/// The coordinates over `shape` of lane `l` (at `laneDepth`) of the float4
/// group whose first element is `base`, at a linear index `i` that is a
/// multiple of 4, where rows are not a multiple of 4 long: the lanes share
/// the leading dims whose trailing dims hold a static multiple of 4
/// elements (an aligned group lies in one run of them: a channel of
/// [N, C, 150, 150], whose values broadcast per channel are then read and
/// computed once a group), and take the trailing ones from their offset in
/// that run.
static Coords getLaneCoords(const Coords &base, ArrayRef<DimExpr> shape,
                            unsigned laneDepth) {
  Expr lane("i + l", laneDepth);
  int64_t run = 1;
  size_t shared = 0;
  for (size_t d = shape.size(); d-- > 1;) {
    std::optional<int64_t> size = shape[d].getConstant();
    if (!size)
      break;
    run *= *size;
    if (run % 4 == 0) {
      shared = d;
      break;
    }
  }
  if (shared == 0)
    return delinearize(lane, shape);
  Coords trailing = delinearize(
      addIndex(remIndex(*base.linear, sizeExpr(DimExpr::constant(run))),
               Expr("l", laneDepth)),
      shape.drop_front(shared));
  Coords coords;
  coords.indices.assign(base.indices.begin(), base.indices.begin() + shared);
  coords.indices.append(trailing.indices.begin(), trailing.indices.end());
  coords.linear = lane;
  coords.linearShape.assign(shape.begin(), shape.end());
  return coords;
}

namespace {
/// Writes the body of one pointwise kernel.
class PointwiseWriter {
public:
  PointwiseWriter(EmitterContext &context, const EvalKernel &kernel,
                  const PointwisePlan &plan)
      : context(context), kernel(kernel), plan(plan),
        emitter(writer, context.shapes, context.constants,
                [this](Value value, const Coords &coords) {
                  return readLeaf(value, coords);
                }) {
    addKernelLeaves(emitter, kernel, leafBuffers);
  }

  /// Writes the kernel and returns its code.
  FailureOr<std::string> write();

private:
  FailureOr<Expr> readLeaf(Value value, const Coords &coords);
  /// Loads the four elements of `buffer` that start at linear index
  /// `linear` into an array and returns the array's name.
  std::string loadVector(const Buffer &buffer, const Expr &linear);
  LogicalResult writeVectorLoop();
  /// Writes the grid-stride loop over `shape`, from `begin` to `count`, that
  /// stores `outputs`.
  LogicalResult writeScalarLoop(ArrayRef<DimExpr> shape,
                                ArrayRef<const Buffer *> outputs,
                                StringRef begin, StringRef count);

  EmitterContext &context;
  const EvalKernel &kernel;
  const PointwisePlan &plan;
  CodeWriter writer;
  ScalarEmitter emitter;
  llvm::DenseMap<Value, const Buffer *> leafBuffers;
  /// While writing the vector loop: the coordinates of its first lane, and
  /// the shallowest depth its loads may be placed at (where the row loop
  /// fixes the columns, values that vary along the rows only load once).
  std::optional<Coords> vectorBase;
  unsigned vectorLoadDepth = 0;
  /// Arrays already loaded in the vector loop, by "buffer[index]".
  llvm::StringMap<std::string> vectors;
  /// With several groups a thread: the array of each input's groups, loaded
  /// before the loop that computes them, by buffer name.
  llvm::StringMap<std::string> groupArrays;
};
} // namespace

std::string PointwiseWriter::loadVector(const Buffer &buffer,
                                        const Expr &linear) {
  std::string key = buffer.name + "[" + linear.text + "]";
  auto it = vectors.find(key);
  if (it != vectors.end())
    return it->second;
  std::string name = writer.freshName(buffer.name + "_v");
  unsigned depth = std::max(linear.depth, vectorLoadDepth);
  // A group loaded ahead: every read of the thread's own elements is at `i`.
  auto group = groupArrays.find(buffer.name);
  if (group != groupArrays.end() && linear.text == "i")
    writer.lineAt(depth,
                  "const float4 " + name + "4 = " + group->second + "[g];");
  else
    writer.lineAt(depth, "const float4 " + name + "4 = dev::loadFloat4(" +
                             buffer.name + " + " + linear.text + ");");
  writer.lineAt(depth, "const float " + name + "[4] = {" + name + "4.x, " +
                           name + "4.y, " + name + "4.z, " + name + "4.w};");
  vectors[key] = name;
  return name;
}

FailureOr<Expr> PointwiseWriter::readLeaf(Value value, const Coords &coords) {
  const Buffer &buffer = *leafBuffers.lookup(value);
  // Lanes along rows carry their first lane's coordinates where they read
  // consecutive elements (see Coords::laneBase); others read one element.
  bool rowsAlongLanes = vectorBase && (plan.needsRowMultipleOf4
                                           ? coords.laneBase != nullptr
                                           : ArrayRef<DimExpr>(buffer.shape) ==
                                                 ArrayRef<DimExpr>(plan.shape));
  if (!rowsAlongLanes)
    return loadElement(emitter, buffer, coords);
  // The four lanes read four consecutive elements of this buffer: one
  // float4 at the first lane's element.
  Coords base = plan.needsRowMultipleOf4 ? *coords.laneBase : *vectorBase;
  Expr linear = emitter.bindIndex(linearize(base, buffer.shape));
  std::string array = loadVector(buffer, linear);
  return Expr(array + "[l]", writer.getDepth());
}

LogicalResult PointwiseWriter::writeVectorLoop() {
  writer.openScope(); // if (vec)
  writer.openScope(); // the loop over groups of four
  unsigned loopDepth = writer.getDepth();
  const int64_t rowsPerThread = plan.rowsPerThread;
  const std::string groups = "(" + sizeExpr(plan.shape.back()).text + " / 4)";
  const std::string rows = "(n / " + sizeExpr(plan.shape.back()).text + ")";
  if (rowsPerThread > 1) {
    // Item q: the group of four columns q % groups, in rowsPerThread rows
    // from (q / groups) * rowsPerThread.
    writer.line("const int64_t column = (q % " + groups + ") * 4;");
    writer.openScope(); // the loop over the rows
    writer.openScope(); // if (j < rows)
    unsigned rowDepth = writer.getDepth();
    writer.line("const int64_t i = j * " + sizeExpr(plan.shape.back()).text +
                " + column;");
    vectorBase =
        delinearize(Expr("j", rowDepth), ArrayRef(plan.shape).drop_back());
    vectorBase->indices.push_back(Expr("column", loopDepth));
    vectorBase->linear = Expr("i", rowDepth);
    vectorBase->linearShape = plan.shape;
    vectorLoadDepth = loopDepth;
  } else if (plan.groupsPerThread > 1) {
    // Each full-shape input's groups of this thread, loaded first; then
    // group g (item q) computes from them.
    const std::string groups = std::to_string(plan.groupsPerThread);
    const std::string stride = std::to_string(plan.threads);
    for (const Buffer &input : kernel.inputs) {
      if (ArrayRef<DimExpr>(input.shape) != ArrayRef<DimExpr>(plan.shape))
        continue;
      std::string array = writer.freshName(input.name + "_g");
      groupArrays[input.name] = array;
      writer.line("float4 " + array + "[" + groups + "] = {};");
      writer.line("#pragma unroll");
      writer.line("for (int g = 0; g < " + groups + "; ++g)");
      writer.line("  if (p + g * " + stride + " < n / 4)");
      writer.line("    " + array + "[g] = dev::loadFloat4(" + input.name +
                  " + (p + g * " + stride + ") * 4);");
    }
    writer.openScope(); // the loop over the groups
    writer.openScope(); // if (q < n / 4)
    loopDepth = writer.getDepth();
    writer.line("const int64_t i = q * 4;");
    vectorBase = delinearize(Expr("i", loopDepth), plan.shape);
    vectorLoadDepth = vectorBase->getDepth();
  } else {
    writer.line("const int64_t i = q * 4;");
    vectorBase = delinearize(Expr("i", loopDepth), plan.shape);
    vectorLoadDepth = vectorBase->getDepth();
  }
  for (const Buffer *output : plan.outputs)
    writer.line("float " + output->name + "_out[4];");

  writer.openScope(); // the loop over lanes
  unsigned laneDepth = writer.getDepth();
  Coords lane;
  if (plan.needsRowMultipleOf4) {
    // Rows are multiples of four long: the lanes share every coordinate
    // but the last.
    lane = addLaneOffset(*vectorBase, Expr("l", laneDepth),
                         emitter.bindIndex(vectorBase->indices.back()));
  } else {
    lane = getLaneCoords(*vectorBase, plan.shape, laneDepth);
  }
  for (const Buffer *output : plan.outputs) {
    FailureOr<Expr> element = emitter.emit(output->value, lane);
    if (failed(element))
      return failure();
    writer.line(output->name + "_out[l] = " + element->text + ";");
  }
  writer.closeScope("#pragma unroll\nfor (int l = 0; l < 4; ++l) {");

  for (const Buffer *output : plan.outputs) {
    std::string out = output->name + "_out";
    writer.line("dev::storeFloat4(" + output->name + " + i, make_float4(" +
                out + "[0], " + out + "[1], " + out + "[2], " + out + "[3]));");
  }
  if (rowsPerThread > 1) {
    std::string count = std::to_string(rowsPerThread);
    writer.closeScope("const int64_t j = (q / " + groups + ") * " + count +
                      " + k;\nif (j < " + rows + ") {");
    writer.closeScope("#pragma unroll\nfor (int k = 0; k < " + count +
                      "; ++k) {");
    writer.closeScope("for (int64_t q = dev::globalThreadIndex(); q < " +
                      getRowLoopItems(plan) + "; q += dev::gridStride()) {");
  } else if (plan.groupsPerThread > 1) {
    const std::string groups = std::to_string(plan.groupsPerThread);
    const std::string tile =
        std::to_string(plan.groupsPerThread * plan.threads);
    writer.closeScope("const int64_t q = p + g * " +
                      std::to_string(plan.threads) + ";\nif (q < n / 4) {");
    writer.closeScope("#pragma unroll\nfor (int g = 0; g < " + groups +
                      "; ++g) {");
    writer.closeScope("for (int64_t p = static_cast<int64_t>(blockIdx.x) * " +
                      tile +
                      " + threadIdx.x; p < n / 4;\n     p += "
                      "static_cast<int64_t>(gridDim.x) * " +
                      tile + ") {");
    groupArrays.clear();
  } else {
    writer.closeScope("for (int64_t q = dev::globalThreadIndex(); q < n / 4; "
                      "q += dev::gridStride()) {");
  }
  writer.line("begin = n / 4 * 4;");
  writer.closeScope("if (vec) {");
  vectorBase.reset();
  return success();
}

LogicalResult PointwiseWriter::writeScalarLoop(ArrayRef<DimExpr> shape,
                                               ArrayRef<const Buffer *> outputs,
                                               StringRef begin,
                                               StringRef count) {
  writer.openScope();
  Coords coords = delinearize(Expr("i", writer.getDepth()), shape);
  for (const Buffer *output : outputs) {
    if (ArrayRef<DimExpr>(output->shape) == shape) {
      FailureOr<Expr> element = emitter.emit(output->value, coords);
      if (failed(element))
        return failure();
      writer.line(output->name + "[i] = " + element->text + ";");
      continue;
    }
    // A smaller output is written once per element: at the point whose
    // coordinates along its broadcast dims are 0.
    Coords outputCoords = broadcastCoords(coords, shape, output->shape);
    SmallVector<std::string> firsts;
    size_t offset = shape.size() - output->shape.size();
    for (size_t d = 0; d < shape.size(); ++d) {
      bool broadcast = d < offset || (output->shape[d - offset].isConstant(1) &&
                                      !shape[d].isConstant(1));
      if (broadcast)
        firsts.push_back(emitter.bindIndex(coords.indices[d]).text + " == 0");
    }
    writer.openScope();
    FailureOr<Expr> element = emitter.emit(output->value, outputCoords);
    if (failed(element))
      return failure();
    Expr index = emitter.bindIndex(linearize(outputCoords, output->shape));
    writer.line(output->name + "[" + index.text + "] = " + element->text + ";");
    writer.closeScope("if (" + llvm::join(firsts, " && ") + ") {");
  }
  writer.closeScope(("for (int64_t i = " + begin +
                     "dev::globalThreadIndex(); i < " + count +
                     "; i += dev::gridStride()) {")
                        .str());
  return success();
}

FailureOr<std::string> PointwiseWriter::write() {
  writer.line("const int64_t n = " + getNumElements(plan.shape).str() + ";");
  writer.line("int64_t begin = 0;");
  if (plan.vectorized && failed(writeVectorLoop()))
    return failure();
  if (failed(writeScalarLoop(plan.shape, plan.outputs, "begin + ", "n")))
    return failure();
  for (auto [index, loop] : llvm::enumerate(plan.extraLoops)) {
    std::string count = "n" + std::to_string(index + 1);
    writer.line("const int64_t " + count + " = " +
                getNumElements(loop.shape).str() + ";");
    if (failed(writeScalarLoop(loop.shape, loop.outputs, "", count)))
      return failure();
  }
  return writer.finish(1);
}

FailureOr<GeneratedKernel> cuda::generatePointwise(EmitterContext &context,
                                                   const EvalKernel &kernel) {
  FailureOr<PointwisePlan> plan = planPointwise(context, kernel);
  if (failed(plan))
    return failure();
  PointwiseWriter bodyWriter(context, kernel, *plan);
  FailureOr<std::string> body = bodyWriter.write();
  if (failed(body))
    return failure();

  GeneratedKernel result;
  SmallVector<std::string> allDims = collectDims(context.shapes, kernel);
  result.dims = findUsedDims(*body, allDims);
  SmallVector<std::string> parameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(parameters, getDimParameters(result.dims));
  if (plan->vectorized)
    parameters.push_back("int vec");
  int64_t blocks =
      kernel.plan ? kernel.plan.getMinBlocks() : kernel.minBlocksPerSM;
  std::string minBlocks = blocks ? ", " + std::to_string(blocks) : "";
  result.deviceCode =
      formatKernel("__global__ void __launch_bounds__(" +
                       std::to_string(plan->threads) + minBlocks + ")",
                   kernel.name, parameters, *body);

  // The launch function.
  SmallVector<std::string> launchParameters =
      getBufferParameters(kernel.inputs, kernel.outputs);
  llvm::append_range(launchParameters, getDimParameters(result.dims));
  std::string launch = getLaunchSignature(kernel.name, launchParameters);
  launch += "  const int64_t n = " + getNumElements(plan->shape).str() + ";\n";
  SmallVector<std::string> arguments = getBufferNames(kernel.inputs);
  llvm::append_range(arguments, getBufferNames(kernel.outputs));
  llvm::append_range(arguments, result.dims);
  if (plan->vectorized) {
    SmallVector<std::string> vectorBuffers;
    for (const Buffer &input : kernel.inputs)
      if (!input.shape.empty() && !input.shape.back().isConstant(1))
        vectorBuffers.push_back(input.name);
    llvm::append_range(vectorBuffers, getBufferNames(kernel.outputs));
    SmallVector<std::string> conditions;
    if (plan->needsRowMultipleOf4)
      conditions.push_back(plan->shape.back().str() + " % 4 == 0");
    llvm::append_range(conditions, getAlignmentConditions(vectorBuffers));
    launch += formatConjunction("vec", conditions);
    std::string groups = std::to_string(plan->groupsPerThread);
    launch += "  const int64_t work = vec ? " +
              (plan->rowsPerThread > 1 ? getRowLoopItems(*plan)
               : plan->groupsPerThread > 1
                   ? "(n / 4 + " + std::to_string(plan->groupsPerThread - 1) +
                         ") / " + groups
                   : std::string("n / 4")) +
              " : n;\n";
    arguments.push_back("vec");
  } else {
    // Enough threads for the longest loop.
    std::string work = "n";
    for (auto [index, loop] : llvm::enumerate(plan->extraLoops)) {
      std::string count = "n" + std::to_string(index + 1);
      launch += "  const int64_t " + count + " = " +
                getNumElements(loop.shape).str() + ";\n";
      work = count + " > " + work + " ? " + count + " : " + work;
    }
    launch += "  const int64_t work = " + work + ";\n";
  }
  // One item per thread: the grid covers the work.
  context.helpers.insert("cover_blocks");
  launch +=
      "  " +
      formatLaunch(kernel.name,
                   "coverBlocks(work, " + std::to_string(plan->threads) + ")",
                   std::to_string(plan->threads), "0", arguments, 1) +
      "\n";
  launch +=
      "  return sinter_rt_check_launch(ctx, \"" + kernel.name + "\");\n}\n";
  result.launchCode = launch;
  result.strategy = plan->vectorized ? "grid-stride loop, float4 when aligned"
                                     : "grid-stride loop";
  return result;
}
