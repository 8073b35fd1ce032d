//===- KernelEmitter.cpp - Helpers shared by the kernel generators --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

EvalKernel cuda::makeEvalKernel(const KernelRequest &request, StringRef name) {
  EvalKernel kernel;
  kernel.name = name.str();
  kernel.body = &request.op.getBody().front();
  kernel.inputs = request.inputs;
  kernel.outputs = request.outputs;
  kernel.plan = request.op.getPlanAttr();
  for (auto [argument, input] :
       llvm::zip(kernel.body->getArguments(), request.op.getInputs()))
    if (isa_and_nonnull<ConstantOp>(input.getDefiningOp()))
      kernel.constantArguments.emplace_back(argument, input);
  return kernel;
}

/// True when `text[pos, pos + length)` is a whole identifier.
static bool isWholeIdentifier(StringRef text, size_t pos, size_t length) {
  auto isIdentifierChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  if (pos > 0 && isIdentifierChar(text[pos - 1]))
    return false;
  size_t end = pos + length;
  return end >= text.size() || !isIdentifierChar(text[end]);
}

SmallVector<std::string> cuda::findUsedDims(StringRef code,
                                            ArrayRef<std::string> candidates) {
  SmallVector<std::string> used;
  for (const std::string &dim : candidates) {
    for (size_t pos = code.find(dim); pos != StringRef::npos;
         pos = code.find(dim, pos + 1)) {
      if (isWholeIdentifier(code, pos, dim.size())) {
        used.push_back(dim);
        break;
      }
    }
  }
  return used;
}

SmallVector<std::string> cuda::collectDims(const ShapeAnalysis &shapes,
                                           const EvalKernel &kernel) {
  std::set<std::string> names;
  auto add = [&](ArrayRef<DimExpr> shape) {
    for (const DimExpr &dim : shape)
      for (std::string &name : dim.getSymbols())
        names.insert(std::move(name));
  };
  for (const Buffer &buffer : kernel.inputs)
    add(buffer.shape);
  for (const Buffer &buffer : kernel.outputs)
    add(buffer.shape);
  for (Operation &op : *kernel.body)
    for (Value result : op.getResults())
      add(shapes.getShape(result));
  return SmallVector<std::string>(names.begin(), names.end());
}

/// Adds to `found` the values of `results` that `value` reads.
static void collectReductionInputs(Value value,
                                   const llvm::DenseSet<Value> &results,
                                   llvm::DenseSet<Value> &visited,
                                   SmallVectorImpl<Value> &found) {
  if (!visited.insert(value).second)
    return;
  if (results.contains(value)) {
    found.push_back(value);
    return;
  }
  Operation *op = value.getDefiningOp();
  if (!op || isa<ConstantOp>(op))
    return;
  for (Value operand : op->getOperands())
    collectReductionInputs(operand, results, visited, found);
}

SmallVector<unsigned>
cuda::computeReductionLevels(ArrayRef<Value> results,
                             ArrayRef<SmallVector<Value>> reads) {
  llvm::DenseSet<Value> resultSet(results.begin(), results.end());
  SmallVector<unsigned> levels(results.size(), 0);
  for (size_t i = 0; i < results.size(); ++i) {
    llvm::DenseSet<Value> visited;
    SmallVector<Value> inputs;
    for (Value value : reads[i])
      collectReductionInputs(value, resultSet, visited, inputs);
    unsigned level = 0;
    for (Value input : inputs)
      for (size_t j = 0; j < i; ++j)
        if (results[j] == input)
          level = std::max(level, levels[j]);
    levels[i] = level + 1;
  }
  return levels;
}

SmallVector<std::string> cuda::getBufferParameters(ArrayRef<Buffer> inputs,
                                                   ArrayRef<Buffer> outputs) {
  SmallVector<std::string> parameters;
  for (const Buffer &buffer : inputs)
    parameters.push_back(
        ("const " + buffer.getElementType() + " *__restrict__ " + buffer.name)
            .str());
  for (const Buffer &buffer : outputs)
    parameters.push_back(
        (buffer.getElementType() + " *__restrict__ " + buffer.name).str());
  return parameters;
}

SmallVector<std::string> cuda::getBufferNames(ArrayRef<Buffer> buffers) {
  SmallVector<std::string> names;
  for (const Buffer &buffer : buffers)
    names.push_back(buffer.name);
  return names;
}

SmallVector<std::string> cuda::getDimParameters(ArrayRef<std::string> dims) {
  SmallVector<std::string> parameters;
  for (const std::string &dim : dims)
    parameters.push_back("int64_t " + dim);
  return parameters;
}

llvm::SetVector<Operation *> cuda::getEvaluatedOps(const EvalKernel &kernel) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist;
  for (const Buffer &output : kernel.outputs)
    worklist.push_back(output.value);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *op = value.getDefiningOp();
    if (!op || kernel.isInput(value) || !ops.insert(op))
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  return ops;
}

void cuda::addKernelLeaves(ScalarEmitter &emitter, const EvalKernel &kernel,
                           llvm::DenseMap<Value, const Buffer *> &buffers) {
  for (const Buffer &input : kernel.inputs) {
    emitter.addLeaf(input.value);
    buffers[input.value] = &input;
  }
  for (auto [argument, constant] : kernel.constantArguments)
    emitter.mapArgument(argument, constant);
}

Expr cuda::loadElement(ScalarEmitter &emitter, const Buffer &buffer,
                       const Coords &coords) {
  Expr index = emitter.bindIndex(linearize(coords, buffer.shape));
  return emitter.getWriter().bind(
      Expr(buffer.name + "[" + index.text + "]", index.depth),
      buffer.getElementType(), "v");
}

/// Returns the op's name without the dialect prefix.
static StringRef getShortName(Operation &op) {
  return op.getName().stripDialect();
}

std::string cuda::describeOps(Block &body, StringRef prefix) {
  std::string text;
  for (Operation &op : body.without_terminator()) {
    text += (prefix + getShortName(op)).str();
    if (std::string loc = formatLocation(op.getLoc()); !loc.empty())
      text += " (" + loc + ")";
    text += "\n";
  }
  return text;
}

std::string cuda::listOpNames(Block &body) {
  SmallVector<std::string> names;
  for (Operation &op : body.without_terminator())
    if (!isa<ConstantOp>(op))
      names.push_back(getShortName(op).str());
  return names.empty() ? "copy" : llvm::join(names, ", ");
}

std::string cuda::getLaunchSignature(StringRef kernelName,
                                     ArrayRef<std::string> parameters) {
  SmallVector<std::string> all = {"sinter_rt_context *ctx",
                                  "cudaStream_t stream"};
  all.append(parameters.begin(), parameters.end());
  return formatList(("static sinter_status launch_" + kernelName + "(").str(),
                    all, ") {", 0) +
         "\n";
}

SmallVector<std::string>
cuda::getAlignmentConditions(ArrayRef<std::string> names) {
  SmallVector<std::string> terms;
  for (const std::string &name : names)
    terms.push_back("sinter_rt_is_aligned(" + name +
                    ", SINTER_RT_VECTOR_ALIGNMENT)");
  return terms;
}

std::string cuda::formatConjunction(StringRef name,
                                    ArrayRef<std::string> terms) {
  std::string head = ("  const int " + name + " = ").str();
  std::string line = head + (terms.empty() ? "1" : llvm::join(terms, " && "));
  if (line.size() + 1 <= 80)
    return line + ";\n";
  return head + llvm::join(terms, " &&\n" + std::string(head.size(), ' ')) +
         ";\n";
}

std::string cuda::getDeviceHelper(StringRef name) {
  if (name == "team_reduce")
    return R"(/// Reduces `value` over the kThreads threads of a row: a group of
/// lanes, one warp, or the whole block. Deterministic (sinter/rt_device.cuh).
template <int kThreads, typename Op, typename T>
__device__ __forceinline__ T teamReduce(T value) {
  if constexpr (kThreads <= dev::kWarpSize)
    return dev::laneGroupReduce<kThreads, Op>(value);
  else
    return dev::blockReduce<kThreads, Op>(value);
}

/// Synchronizes the threads that share a row.
template <int kThreads> __device__ __forceinline__ void teamSync() {
  if constexpr (kThreads <= dev::kWarpSize)
    __syncwarp(dev::laneGroupMask<kThreads>());
  else
    __syncthreads();
}
)";
  if (name == "cover_blocks")
    return R"(/// The blocks that give each of `threads` threads per block one of
/// `work` items: a grid-stride loop then runs once per thread, which reads
/// HBM at the copy bandwidth where a grid of a few blocks per multiprocessor
/// looping over the items does not (2.85 against 3.0 TB/s on an H100).
static unsigned coverBlocks(int64_t work, int threads) {
  int64_t blocks = (work + threads - 1) / threads;
  const int64_t limit = 0x7fffffff; // gridDim.x
  if (blocks > limit)
    blocks = limit;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}
)";
  if (name == "grid_blocks")
    return R"(/// The blocks of a grid-stride loop over `work` items:
/// enough to cover them, at most 32 per multiprocessor.
static unsigned gridBlocks(sinter_rt_context *ctx, int64_t work,
                           int threads) {
  int64_t blocks = (work + threads - 1) / threads;
  int64_t limit = static_cast<int64_t>(sinter_rt_sm_count(ctx)) * 32;
  if (limit < 1)
    limit = 1;
  if (blocks > limit)
    blocks = limit;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}
)";
  llvm_unreachable("unknown helper");
}
