//===- CUDAEmitter.cpp - Fused sinter modules to CUDA source --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The driver of the CUDA backend. For a fused model module it
//   - reads the signature (ModelSignature.h) and names every dim and buffer
//     with a unique C identifier;
//   - derives symbolic shapes (ShapeAnalysis) of @prepare and @forward;
//   - dispatches every sinter.kernel to the generator of its kind;
//   - plans the workspace (intermediates share slots once dead, kernels
//     share one scratch area) and writes the host code: create (runs
//     @prepare once), forward, workspace_bytes, destroy, last_error;
//   - assembles `<model>.h` and `<model>.cu`, the latter opening with the
//     provenance and the fusion plan.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "KernelEmitter.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Support/Names.h"
#include "sinter/Target/CUDA/TorchExtension.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <set>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

StringRef mlir::sinter::stringifyGemmPrecision(GemmPrecision precision) {
  switch (precision) {
  case GemmPrecision::F32:
    return "f32";
  case GemmPrecision::TF32:
    return "tf32";
  case GemmPrecision::BF16:
    return "bf16";
  }
  llvm_unreachable("unknown precision");
}

StringRef mlir::sinter::stringifyFp32Gemm(Fp32Gemm gemm) {
  return gemm == Fp32Gemm::Tf32x3 ? "3xtf32" : "sgemm";
}

std::optional<GemmPrecision> mlir::sinter::parseGemmPrecision(StringRef text) {
  return llvm::StringSwitch<std::optional<GemmPrecision>>(text)
      .Case("f32", GemmPrecision::F32)
      .Case("tf32", GemmPrecision::TF32)
      .Case("bf16", GemmPrecision::BF16)
      .Default(std::nullopt);
}

/// The ops that may appear directly in @forward or @prepare of a fused
/// module.
static bool isAllowedAtTopLevel(Operation &op) {
  return isa<KernelOp, ConstantOp, FillOp, func::ReturnOp>(op);
}

bool mlir::sinter::isFusedModel(ModuleOp module) {
  for (func::FuncOp func : {getForwardFunc(module), getPrepareFunc(module)})
    if (func && !llvm::all_of(func.getBody().front(), isAllowedAtTopLevel))
      return false;
  return static_cast<bool>(getForwardFunc(module));
}

//===----------------------------------------------------------------------===//
// Init hints
//===----------------------------------------------------------------------===//

/// Returns the shortest decimal form of `value` that reads back exactly.
static std::string formatDouble(double value) {
  if (value == std::trunc(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<int64_t>(value));
  char buffer[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

/// Renders an init hint as the .sinter source spells it: "uniform(-1, 1)".
static std::string formatInitHint(const InitHint &hint) {
  SmallVector<std::string> args;
  for (double arg : hint.args)
    args.push_back(formatDouble(arg));
  return hint.kind + "(" + llvm::join(args, ", ") + ")";
}

//===----------------------------------------------------------------------===//
// The model emitter
//===----------------------------------------------------------------------===//

namespace {
/// One function of the model (@prepare or @forward) as host code sees it.
struct FunctionInfo {
  func::FuncOp func;
  /// "forward" or "prepare".
  std::string role;
  /// Kernel name prefix: "<model>_k" or "<model>_p".
  std::string kernelPrefix;
  ShapeAnalysis shapes;
  /// Per argument: the host expression of its pointer and its base name.
  SmallVector<std::string> argumentPointers;
  SmallVector<std::string> argumentNames;
  /// The kernels, with their generated code.
  struct Kernel {
    KernelOp op;
    std::string name;
    GeneratedKernel code;
    KernelRequest request;
  };
  std::vector<Kernel> kernels;
  /// The fills of the function (sinter.fill, and splat constants it
  /// returns), in order, and their names: the result's, or a workspace
  /// buffer's.
  SmallVector<Value> fills;
  llvm::DenseMap<Value, std::string> fillNames;
  /// The body of the host function that runs the kernels.
  std::string hostBody;
  /// The workspace this function needs, in bytes (a C expression).
  std::string workspaceBytes;
  /// Statements that split the weights of its 3xTF32 GEMMs once, at
  /// creation (sinter_rt_tf32x3_prepare_weight), without repeats.
  std::vector<std::string> weightPreparations;
};

/// Generates the files of one model.
class ModelEmitter {
public:
  ModelEmitter(ModuleOp module, const CUDAEmitterOptions &options)
      : module(module), options(options), constants("") {}

  FailureOr<CUDAOutput> emit();

private:
  LogicalResult readSignature();
  LogicalResult checkFunction(func::FuncOp func);
  LogicalResult planFunction(FunctionInfo &info);
  LogicalResult generateKernels(FunctionInfo &info, EmitterContext &context);
  /// `size_t <kernel>_scratch_bytes(dims)`: the sum of `terms`.
  std::string getScratchFunction(StringRef kernel,
                                 ArrayRef<std::string> terms) const;
  LogicalResult writeHostBody(FunctionInfo &info);
  std::string getHeader() const;
  /// `sinter_status <model>_create(...)`, without `;` or body.
  std::string getCreateSignature() const {
    return formatList("sinter_status " + model + "_create(",
                      {model + " **model", "const " + model + "_params *params",
                       "cudaStream_t stream"},
                      ")", 0);
  }
  std::string getCreateInSignature() const {
    return formatList("sinter_status " + model + "_create_in(",
                      {model + " **model", "const " + model + "_params *params",
                       "void *memory", "size_t bytes", "cudaStream_t stream"},
                      ")", 0);
  }
  std::string getSetWorkspaceSignature() const {
    return formatList("sinter_status " + model + "_set_workspace(",
                      {model + " *model", "void *workspace", "size_t bytes"},
                      ")", 0);
  }
  std::string getSource(const EmitterContext &context) const;
  /// Whether a kernel of @forward runs a 3xTF32 GEMM.
  bool usesTf32x3() const { return !forward.weightPreparations.empty(); }
  std::string getFusionPlan(const FunctionInfo &info) const;
  std::string getHostCode() const;
  CUDAModelInterface getInterface() const;

  ModuleOp module;
  const CUDAEmitterOptions &options;
  ModelSignature signature;
  NamePool namer;
  std::string model;
  ConstantPool constants;

  /// Dims: C names, in API order, and the model's defaults.
  SmallVector<std::string> dims;
  /// Per dim: its name in the model.
  SmallVector<std::string> dimUserNames;
  /// The dims every output's size is a multiple of: with one of them 0, the
  /// call has nothing to compute (an empty batch).
  llvm::StringSet<> emptyingDims;

public:
  /// Inputs, params and outputs of the C API.
  struct ApiValue {
    std::string name;
    std::string type;
    Shape shape;
    std::string userName;
    /// Params: the init hint, for documentation ("linear_default(1024)").
    std::string init;
  };

private:
  std::vector<ApiValue> inputs, params, outputs;
  /// Prepared values: C member names and shapes.
  std::vector<ApiValue> prepared;

  FunctionInfo forward, prepare;
  bool hasPrepare = false;
  /// Whether a kernel of @forward or @prepare calls cuBLAS.
  bool runsGemms = false;
  /// Helpers the host code needs beyond the kernels'.
  std::set<std::string> hostHelpers;
};
} // namespace

LogicalResult ModelEmitter::checkFunction(func::FuncOp func) {
  for (Operation &op : func.getBody().front()) {
    if (!isAllowedAtTopLevel(op))
      return op.emitError("CUDA emitter: '")
             << op.getName()
             << "' is outside any sinter.kernel; run sinter-form-kernels "
                "first (sinterc -emit=cuda runs the whole pipeline)";
    for (Type type : op.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      Type element = tensor ? tensor.getElementType() : Type();
      bool isF32 = element && element.isF32();
      bool isIndex = element && element.isInteger(64) && isa<KernelOp>(op);
      if (!isF32 && !isIndex)
        return op.emitError("CUDA emitter: only f32 tensors (and i64 "
                            "indices) are supported, not ")
               << type;
    }
  }
  for (Type type : func.getArgumentTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getElementType().isF32())
      return func.emitError("CUDA emitter: arguments must be f32 tensors, not ")
             << type;
  }
  return success();
}

LogicalResult ModelEmitter::readSignature() {
  if (failed(checkModelForOutput(module)))
    return failure();
  FailureOr<ModelSignature> read = getModelSignature(module);
  if (failed(read))
    return failure();
  signature = std::move(*read);
  model = namer.getUnique(signature.modelName);
  constants = ConstantPool(model);

  // Dims: every dim the signature names, in name order.
  std::set<std::string> dimNames;
  for (auto &[name, value] : signature.dims)
    dimNames.insert(name);
  for (const ModelValue &value : signature.arguments)
    for (const std::string &name : value.dimNames)
      if (!name.empty())
        dimNames.insert(name);
  llvm::StringMap<std::string> dimIdentifiers;
  for (const std::string &name : dimNames) {
    dimIdentifiers[name] = namer.getUnique(name);
    dims.push_back(dimIdentifiers[name]);
    dimUserNames.push_back(name);
  }
  auto cDimNames = [&](ArrayRef<std::string> names) {
    SmallVector<std::string> result;
    for (const std::string &name : names)
      result.push_back(name.empty() ? "" : dimIdentifiers[name]);
    return result;
  };

  // The original arguments: inputs and params of the C API.
  SmallVector<std::string> originalPointers;
  std::vector<Shape> originalShapes;
  for (auto [index, value] : llvm::enumerate(signature.arguments)) {
    // <model>_create takes the params once, without dims: @prepare cannot
    // read a param whose size depends on them.
    if (value.role == ArgumentRole::Param && !value.type.hasStaticShape() &&
        llvm::is_contained(signature.prepareArguments, index))
      return getForwardFunc(module).emitError("CUDA emitter: param '")
             << value.name
             << "' has a symbolic dim and @prepare reads it; the generated "
                "code runs @prepare once, at create, without dims: give it a "
                "static shape";
    FailureOr<Shape> shape =
        getArgumentShape(getForwardFunc(module), value.type,
                         cDimNames(value.dimNames), "'" + value.name + "'");
    if (failed(shape))
      return failure();
    ApiValue api{namer.getUnique(value.name), "float", *shape, value.name,
                 value.init ? formatInitHint(*value.init) : ""};
    if (value.role == ArgumentRole::Param) {
      originalPointers.push_back("model->params." + api.name);
      params.push_back(api);
    } else {
      originalPointers.push_back(api.name);
      inputs.push_back(api);
    }
    originalShapes.push_back(*shape);
  }

  // @prepare: its arguments are original params.
  func::FuncOp prepareFunc = getPrepareFunc(module);
  hasPrepare = static_cast<bool>(prepareFunc);
  std::vector<Shape> prepareShapes;
  if (hasPrepare) {
    if (failed(checkFunction(prepareFunc)))
      return failure();
    prepare.func = prepareFunc;
    prepare.role = "prepare";
    prepare.kernelPrefix = model + "_p";
    for (unsigned index : signature.prepareArguments) {
      prepare.argumentPointers.push_back(originalPointers[index]);
      prepare.argumentNames.push_back(
          StringRef(originalPointers[index]).rsplit('.').second.str());
      prepareShapes.push_back(originalShapes[index]);
    }
    if (failed(prepare.shapes.run(prepareFunc, prepareShapes)))
      return failure();
    auto ret =
        cast<func::ReturnOp>(prepareFunc.getBody().front().getTerminator());
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      ApiValue api{"prepared" + std::to_string(index), "float",
                   prepare.shapes.getShape(value), "", ""};
      if (!getNumElements(api.shape).getConstant())
        return prepareFunc.emitError("CUDA emitter: prepared value #")
               << index << " has a size that depends on symbolic dims";
      prepared.push_back(api);
    }
  }

  // @forward: original arguments and prepared values.
  func::FuncOp forwardFunc = getForwardFunc(module);
  if (failed(checkFunction(forwardFunc)))
    return failure();
  forward.func = forwardFunc;
  forward.role = "forward";
  forward.kernelPrefix = model + "_k";
  std::vector<Shape> forwardShapes;
  for (const ArgumentSource &source : signature.forwardArguments) {
    if (source.kind == ArgumentSource::Kind::Original) {
      forward.argumentPointers.push_back(originalPointers[source.index]);
      std::string pointer = originalPointers[source.index];
      forward.argumentNames.push_back(
          StringRef(pointer).contains('.')
              ? StringRef(pointer).rsplit('.').second.str()
              : pointer);
      forwardShapes.push_back(originalShapes[source.index]);
    } else {
      if (source.index >= prepared.size())
        return forwardFunc.emitError("CUDA emitter: @forward reads @prepare "
                                     "result #")
               << source.index << ", which does not exist";
      forward.argumentPointers.push_back("model->" +
                                         prepared[source.index].name);
      forward.argumentNames.push_back(prepared[source.index].name);
      forwardShapes.push_back(prepared[source.index].shape);
    }
  }
  if (failed(forward.shapes.run(forwardFunc, forwardShapes)))
    return failure();
  auto ret =
      cast<func::ReturnOp>(forwardFunc.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    const ModelValue &result = signature.results[index];
    bool isIndex =
        cast<RankedTensorType>(value.getType()).getElementType().isInteger(64);
    outputs.push_back({namer.getUnique(result.name),
                       isIndex ? "int64_t" : "float",
                       forward.shapes.getShape(value), result.name, ""});
  }
  for (const std::string &dim : dims)
    if (llvm::all_of(outputs, [&](const ApiValue &output) {
          return llvm::is_contained(getNumElements(output.shape).getSymbols(),
                                    dim);
        }))
      emptyingDims.insert(dim);
  return success();
}

/// Returns true if `value` is a splat `sinter.constant`.
static bool isSplatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant && getSplatFloat(constant.getValue());
}

/// The value of every element of a fill or splat constant.
static double getFillValue(Value fill) {
  if (auto op = fill.getDefiningOp<FillOp>())
    return op.getElementValue().convertToDouble();
  return getSplatFloat(fill.getDefiningOp<ConstantOp>().getValue())
      ->convertToDouble();
}

/// The buffer `name` of a kernel: the region value `value` that holds the
/// function value `outer`, with `outer`'s shape and element type.
static Buffer makeBuffer(std::string name, Value value, Value outer,
                         const ShapeAnalysis &shapes) {
  Buffer buffer;
  buffer.name = std::move(name);
  buffer.value = value;
  buffer.shape = shapes.getShape(outer);
  buffer.isIndex =
      cast<RankedTensorType>(outer.getType()).getElementType().isInteger(64);
  return buffer;
}

LogicalResult ModelEmitter::planFunction(FunctionInfo &info) {
  // Names and host pointers of kernel results.
  llvm::DenseMap<Value, std::string> pointers, names;
  for (auto [argument, pointer, name] :
       llvm::zip(info.func.getArguments(), info.argumentPointers,
                 info.argumentNames)) {
    pointers[argument] = pointer;
    names[argument] = name;
  }
  auto ret = cast<func::ReturnOp>(info.func.getBody().front().getTerminator());
  ArrayRef<ApiValue> results = info.role == "forward" ? outputs : prepared;
  auto prefixOf = [&](StringRef name) {
    return info.role == "forward" ? name.str() : "model->" + name.str();
  };
  // A kernel result that is returned is written where the caller wants it
  // (the first time it is returned).
  for (auto [index, value] : llvm::enumerate(ret.getOperands()))
    if ((isa_and_nonnull<KernelOp, FillOp>(value.getDefiningOp()) ||
         isSplatConstant(value)) &&
        !pointers.count(value)) {
      pointers[value] = prefixOf(results[index].name);
      names[value] = results[index].name;
    }
  // Fills (and returned splats) are written by the host code before any
  // kernel runs: into the result they are, or into a workspace buffer that
  // kernels read.
  for (Operation &op : info.func.getBody().front()) {
    if (op.getNumResults() != 1)
      continue;
    Value value = op.getResult(0);
    if (!isa<FillOp>(op) && !(isSplatConstant(value) &&
                              llvm::is_contained(ret.getOperands(), value)))
      continue;
    info.fills.push_back(value);
    if (!names.count(value))
      names[value] =
          namer.getUnique(info.kernelPrefix.substr(model.size() + 1) + "fill" +
                          std::to_string(info.fills.size() - 1));
    info.fillNames[value] = names[value];
  }

  unsigned kernelIndex = 0;
  for (Operation &op : info.func.getBody().front()) {
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      continue;
    FunctionInfo::Kernel entry;
    entry.op = kernel;
    entry.name = info.kernelPrefix + std::to_string(kernelIndex) + "_" +
                 stringifyKernelKind(kernel.getKind()).str();
    for (auto [resultIndex, result] : llvm::enumerate(kernel.getResults()))
      if (!names.count(result))
        names[result] = namer.getUnique(
            (info.kernelPrefix.substr(model.size() + 1) +
             std::to_string(kernelIndex) + "_r" + std::to_string(resultIndex)));
    // Buffers, named uniquely within the kernel.
    llvm::StringSet<> kernelNames;
    auto kernelName = [&](StringRef base) {
      std::string name = base.str();
      for (unsigned suffix = 2; kernelNames.contains(name); ++suffix)
        name = base.str() + "_" + std::to_string(suffix);
      kernelNames.insert(name);
      return name;
    };
    Block &body = kernel.getBody().front();
    for (auto [argument, operand] :
         llvm::zip(body.getArguments(), kernel.getInputs())) {
      if (isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
        continue;
      if (!names.count(operand))
        return kernel.emitError("CUDA emitter: kernel operand has no buffer");
      entry.request.inputs.push_back(makeBuffer(
          kernelName(names[operand]), argument, operand, info.shapes));
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [result, value] :
         llvm::zip(kernel.getResults(), yield.getValues())) {
      entry.request.outputs.push_back(
          makeBuffer(kernelName(names[result]), value, result, info.shapes));
    }
    entry.request.name = entry.name;
    entry.request.op = kernel;
    info.kernels.push_back(std::move(entry));
    ++kernelIndex;
  }
  return success();
}

std::string
ModelEmitter::getScratchFunction(StringRef kernel,
                                 ArrayRef<std::string> terms) const {
  SmallVector<std::string> parameters =
      getDimParameters(findUsedDims(llvm::join(terms, " + "), dims));
  return "/// The workspace " + kernel.str() +
         " needs beside its inputs and outputs, in bytes.\n" +
         formatList("size_t " + kernel.str() + "_scratch_bytes(", parameters,
                    ") {", 0) +
         "\n  return " + llvm::join(terms, " +\n         ") + ";\n}\n";
}

LogicalResult ModelEmitter::generateKernels(FunctionInfo &info,
                                            EmitterContext &context) {
  EmitterContext local{info.shapes, context.constants, context.precision,
                       context.fp32Gemm, std::move(context.helpers)};
  for (FunctionInfo::Kernel &kernel : info.kernels) {
    if (!kernel.op.getPlanAttr())
      return kernel.op.emitError("CUDA emitter: the kernel has no plan (run "
                                 "sinter-plan-kernels first)");
    FailureOr<GeneratedKernel> code;
    switch (kernel.op.getKind()) {
    case KernelKind::gemm:
      runsGemms = true;
      code = generateGemm(local, kernel.request);
      break;
    case KernelKind::matvec:
      code = generateMatvec(local, kernel.request);
      break;
    case KernelKind::pointwise:
      code =
          generatePointwise(local, makeEvalKernel(kernel.request, kernel.name));
      break;
    case KernelKind::row_reduction:
      code = generateRowReduction(local,
                                  makeEvalKernel(kernel.request, kernel.name));
      break;
    case KernelKind::column_reduction:
      code = generateColumnReduction(
          local, makeEvalKernel(kernel.request, kernel.name));
      break;
    }
    if (failed(code))
      return failure();
    kernel.code = std::move(*code);
    if (!kernel.code.scratchBytes.empty())
      kernel.code.launchCode +=
          "\n" + getScratchFunction(kernel.name, kernel.code.scratchBytes);
  }
  context.helpers = std::move(local.helpers);
  return success();
}

/// `SINTER_RT_TRY(function(args...));` as a statement of a function body,
/// wrapped at 80 columns.
static std::string tryCall(StringRef function, ArrayRef<std::string> args,
                           unsigned indent = 1) {
  return std::string(2 * indent, ' ') +
         formatList(("SINTER_RT_TRY(" + function + "(").str(), args, "));",
                    indent) +
         "\n";
}

/// `SINTER_RT_TRY(sinter_rt_check_cuda(ctx, call, "what"));`.
static std::string tryCuda(StringRef ctx, StringRef call, StringRef what,
                           unsigned indent = 1) {
  return tryCall("sinter_rt_check_cuda",
                 {ctx.str(), call.str(), quoteCString(what)}, indent);
}

/// The bytes of `count` elements of `type` as a size_t expression.
static std::string getBytes(const DimExpr &count, StringRef type) {
  return "static_cast<size_t>(" + count.str() + ") * sizeof(" + type.str() +
         ")";
}

/// The host statement that writes `value` to the `elements` floats at
/// `pointer`: a memset for +0, else the fill kernel (helper "launch_fill").
static std::string getFillCall(StringRef pointer, const DimExpr &elements,
                               double value, std::set<std::string> &helpers) {
  if (value == 0.0 && !std::signbit(value))
    return tryCuda("ctx",
                   "cudaMemsetAsync(" + pointer.str() + ", 0, " +
                       getBytes(elements, "float") + ", stream)",
                   "cudaMemsetAsync");
  // After "grid_blocks" in the file, which orders helpers by name.
  helpers.insert({"grid_blocks", "launch_fill"});
  return tryCall("sinterFill", {"ctx", "stream", pointer.str(), elements.str(),
                                formatFloatLiteral(value)});
}

/// The operands of `kernel` that are buffers (not constants), in order: one
/// per KernelRequest::inputs.
static SmallVector<Value> getBufferOperands(KernelOp kernel) {
  SmallVector<Value> operands;
  for (Value operand : kernel.getInputs())
    if (!isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
      operands.push_back(operand);
  return operands;
}

LogicalResult ModelEmitter::writeHostBody(FunctionInfo &info) {
  Block &block = info.func.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  ArrayRef<ApiValue> results = info.role == "forward" ? outputs : prepared;

  // Pointers of values, and the last kernel that reads each.
  llvm::DenseMap<Value, std::string> pointers;
  for (auto [argument, pointer] :
       llvm::zip(info.func.getArguments(), info.argumentPointers))
    pointers[argument] = pointer;
  llvm::DenseMap<Value, size_t> lastUse;
  for (auto [index, kernel] : llvm::enumerate(info.kernels))
    for (Value operand : kernel.op.getInputs())
      lastUse[operand] = index;
  auto resultPointer = [&](StringRef name) {
    return info.role == "forward" ? name.str() : "model->" + name.str();
  };
  for (auto [index, value] : llvm::enumerate(ret.getOperands()))
    if ((isa_and_nonnull<KernelOp, FillOp>(value.getDefiningOp()) ||
         isSplatConstant(value)) &&
        !pointers.count(value))
      pointers[value] = resultPointer(results[index].name);

  // Workspace slots: an intermediate takes a slot of the same size whose
  // value no later kernel reads, or a new one.
  struct Slot {
    DimExpr elements;
    std::string type;
    std::optional<Value> owner;
  };
  std::vector<Slot> slots;
  std::string declarations, calls;
  SmallVector<std::string> scratchSizes;
  for (Value fill : info.fills) {
    DimExpr elements = getNumElements(info.shapes.getShape(fill));
    if (!pointers.count(fill)) {
      const std::string &name = info.fillNames[fill];
      slots.push_back({elements, "float", fill});
      pointers[fill] = name;
      declarations += "  float *const " + name +
                      " = reinterpret_cast<float *>(slot" +
                      std::to_string(slots.size() - 1) + ");\n";
    }
    calls +=
        getFillCall(pointers[fill], elements, getFillValue(fill), hostHelpers);
  }
  for (auto [index, kernel] : llvm::enumerate(info.kernels)) {
    for (Slot &slot : slots)
      if (slot.owner && lastUse.lookup(*slot.owner) < index)
        slot.owner.reset();
    for (auto [result, buffer] :
         llvm::zip(kernel.op.getResults(), kernel.request.outputs)) {
      if (pointers.count(result))
        continue;
      DimExpr elements = getNumElements(buffer.shape);
      std::string type = buffer.getElementType().str();
      size_t chosen = slots.size();
      for (auto [slotIndex, slot] : llvm::enumerate(slots))
        if (!slot.owner && slot.elements == elements && slot.type == type) {
          chosen = slotIndex;
          break;
        }
      if (chosen == slots.size())
        slots.push_back({elements, type, std::nullopt});
      slots[chosen].owner = result;
      pointers[result] = buffer.name;
      declarations += "  " + type + " *const " + buffer.name +
                      " = reinterpret_cast<" + type + " *>(slot" +
                      std::to_string(chosen) + ");\n";
    }
    // The call.
    SmallVector<std::string> arguments = {"ctx", "stream"};
    for (auto [argument, operand] : llvm::zip(
             kernel.op.getBody().front().getArguments(), kernel.op.getInputs()))
      if (!isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
        arguments.push_back(pointers[operand]);
    for (Value result : kernel.op.getResults())
      arguments.push_back(pointers[result]);
    if (const auto &weight = kernel.code.tf32x3Weight)
      for (auto [buffer, operand] :
           llvm::zip(kernel.request.inputs, getBufferOperands(kernel.op)))
        if (buffer.name == weight->buffer) {
          std::string statement = tryCall("sinter_rt_tf32x3_prepare_weight",
                                          {"model->ctx", pointers[operand],
                                           weight->n, weight->k, weight->ld});
          if (!llvm::is_contained(info.weightPreparations, statement))
            info.weightPreparations.push_back(statement);
        }
    llvm::append_range(arguments, kernel.code.dims);
    if (!kernel.code.scratchBytes.empty()) {
      arguments.push_back("scratch");
      SmallVector<std::string> scratchDims =
          findUsedDims(llvm::join(kernel.code.scratchBytes, " + "), dims);
      scratchSizes.push_back(kernel.name + "_scratch_bytes(" +
                             llvm::join(scratchDims, ", ") + ")");
    }
    calls += "  " +
             formatList("SINTER_RT_TRY(launch_" + kernel.name + "(", arguments,
                        "));", 1) +
             "\n";
  }

  // Returned values that no kernel wrote in place: copies.
  llvm::DenseSet<Value> written;
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    std::string target = resultPointer(results[index].name);
    bool inPlace = isa_and_nonnull<KernelOp>(value.getDefiningOp()) &&
                   pointers[value] == target;
    bool filled =
        llvm::is_contained(info.fills, value) && pointers[value] == target;
    if ((inPlace || filled) && written.insert(value).second)
      continue;
    // A dense constant result: a copy from its array in device memory.
    if (auto constant = value.getDefiningOp<ConstantOp>();
        constant && !isSplatConstant(value)) {
      auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!attr || !isa<Float32Type>(attr.getElementType()))
        return ret.emitError("CUDA emitter: a model result is a constant "
                             "that is not dense f32 elements");
      calls +=
          tryCuda("ctx",
                  "cudaMemcpyFromSymbolAsync(" + target + ", " +
                      constants.getArray(attr) + ", " +
                      getBytes(getNumElements(results[index].shape), "float") +
                      ", 0, cudaMemcpyDeviceToDevice, stream)",
                  "cudaMemcpyFromSymbolAsync");
      continue;
    }
    calls +=
        tryCuda("ctx",
                "cudaMemcpyAsync(" + target + ", " + pointers[value] + ", " +
                    getBytes(getNumElements(results[index].shape),
                             results[index].type) +
                    ", cudaMemcpyDeviceToDevice, stream)",
                "cudaMemcpyAsync");
  }

  if (info.role == "prepare")
    hostHelpers.insert("align"); // <model>_arena_bytes
  // The layout: slots, then the scratch area shared by all kernels.
  std::string layout, bytes;
  SmallVector<std::string> terms;
  if (!slots.empty() || !scratchSizes.empty()) {
    // @prepare's scratch follows the prepared values in the memory create
    // carves them from; forward calls use the (lent) workspace.
    layout += info.role == "prepare"
                  ? "  char *cursor = prepareScratch;\n"
                  : "  char *cursor = static_cast<char *>(\n"
                    "      model->lentWorkspace ? model->lentWorkspace : "
                    "model->workspace);\n";
    for (auto [index, slot] : llvm::enumerate(slots)) {
      std::string size =
          "sinterAlign(" + getBytes(slot.elements, slot.type) + ")";
      layout += "  char *const slot" + std::to_string(index) + " = cursor;\n";
      layout += "  cursor += " + size + ";\n";
      terms.push_back(size);
    }
    if (!scratchSizes.empty()) {
      layout += "  void *const scratch = cursor;\n";
      std::string scratch = scratchSizes.front();
      for (const std::string &size : ArrayRef(scratchSizes).drop_front())
        scratch = "std::max<size_t>(" + scratch + ", " + size + ")";
      terms.push_back(scratch);
    }
    hostHelpers.insert("align");
  }
  info.workspaceBytes =
      terms.empty() ? "0" : llvm::join(terms, " +\n         ");
  info.hostBody = layout + declarations + calls;
  return success();
}

std::string ModelEmitter::getFusionPlan(const FunctionInfo &info) const {
  std::string text;
  for (Value fill : info.fills)
    text += "//   " + info.fillNames.lookup(fill) + ": fill " +
            formatFloatLiteral(getFillValue(fill)) + " of " +
            formatShape(info.shapes.getShape(fill)) +
            " (constant: no kernel computes it)\n";
  for (const FunctionInfo::Kernel &kernel : info.kernels) {
    text += "//   " + kernel.name + ": " +
            listOpNames(KernelOp(kernel.op).getBody().front()) + "\n";
    text += "//       " + kernel.code.strategy + "\n";
  }
  return text;
}

/// The C declaration of `value`'s shape for comments: "float[B][64]".
static std::string describeApiValue(StringRef type, ArrayRef<DimExpr> shape) {
  std::string text = type.str();
  for (const DimExpr &dim : shape) {
    std::string size = dim.str();
    if (size.front() == '(')
      size = size.substr(1, size.size() - 2);
    text += "[" + size + "]";
  }
  return text;
}

/// ", 'name' in the model" when the C name differs from the model's.
static std::string describeRename(const ModelEmitter::ApiValue &value) {
  return value.name == value.userName
             ? ""
             : ", '" + value.userName + "' in the model";
}

std::string ModelEmitter::getHeader() const {
  // The prefix SINTER_ is reserved (sinter/Support/Names.h): no value of
  // the model is named like the guard.
  std::string guard = "SINTER_" + StringRef(model).upper() + "_H";
  std::string text;
  text += "// " + model + ".h: the C API of model '" + signature.modelName +
          "', generated by " + options.compilerVersion +
          ".\n// Do not edit: regenerate with sinterc. The kernels are in " +
          model + ".cu; link the Sinter\n// runtime (sinter_rt) and cuBLAS.\n";
  text += "//\n// Every function returns a sinter_status (sinter/rt.h; "
          "sinter_status_string()\n// explains it, " +
          model +
          "_last_error() gives the details) and never exits\n// or aborts. "
          "Tensors are dense, row-major, on the device, 4-byte aligned\n// "
          "(16-byte alignment enables the vectorized paths). Work is queued on "
          "the\n// given stream; no call waits for the GPU except " +
          model + "_create and\n// " + model +
          "_destroy. A model object is used by one host thread at a time.\n";
  text += "\n#ifndef " + guard + "\n#define " + guard + "\n\n";
  text += "#include \"sinter/rt.h\"\n\n#include <stddef.h>\n#include "
          "<stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  text += "/// The params of " + model +
          ": device pointers that must stay valid until\n/// " + model +
          "_destroy.\ntypedef struct " + model + "_params {\n";
  for (const ApiValue &param : params)
    text += "  const float *" + param.name + "; /**< " +
            describeApiValue("float", param.shape) +
            (param.init.empty() ? "" : ", init " + param.init) +
            describeRename(param) + " */\n";
  if (params.empty())
    text += "  int unused; /**< The model has no params. */\n";
  text += "} " + model + "_params;\n\n";
  text +=
      "/// A created model: its params, the values computed from them once, "
      "a\n/// cuBLAS context and a workspace.\ntypedef struct " +
      model + " " + model + ";\n\n";

  text += "/// Creates the model on the current device: copies *params (the "
          "pointers), sets\n/// up cuBLAS and runs the param-only computations "
          "once, on `stream`. Waits for\n/// the device. On failure *model is "
          "NULL.\n";
  text += getCreateSignature() + ";\n\n";
  text += "/// Sets *bytes to the device memory that " + model +
          "_create_in needs: the values\n/// computed once from the params "
          "and the scratch of that computation (0 when\n/// there are none).\n";
  text += "sinter_status " + model + "_prepared_bytes(size_t *bytes);\n\n";
  text += "/// Creates the model as " + model +
          "_create does, but carves the values\n/// computed from the params "
          "out of `bytes` of device memory at `memory`\n/// (256-byte "
          "aligned, at least " +
          model +
          "_prepared_bytes), for callers with an allocator\n/// of their own "
          "(PyTorch's caching allocator). The model never frees it; it\n/// "
          "must stay valid until " +
          model + "_destroy. With NULL, the model allocates it.\n";
  text += getCreateInSignature() + ";\n\n";

  SmallVector<std::string> forwardParams = {model + " *model"};
  std::string dimsDoc;
  for (const std::string &dim : dims) {
    forwardParams.push_back("int64_t " + dim);
    bool empties = emptyingDims.contains(dim);
    dimsDoc +=
        "/// " + dim + ": a symbolic dim, at least " + (empties ? "0" : "1");
    for (auto &[name, value] : signature.dims)
      if (name == dim)
        dimsDoc +=
            " (the model's example value is " + std::to_string(value) + ")";
    dimsDoc += empties ? ";\n///   with 0, every output is empty and nothing "
                         "runs.\n"
                       : ".\n";
  }
  std::string valuesDoc;
  for (const ApiValue &input : inputs) {
    forwardParams.push_back("const float *" + input.name);
    valuesDoc += "/// " + input.name + ": input, " +
                 describeApiValue("float", input.shape) +
                 describeRename(input) + ".\n";
  }
  for (const ApiValue &output : outputs) {
    forwardParams.push_back(output.type + " *" + output.name);
    valuesDoc += "/// " + output.name + ": output, " +
                 describeApiValue(output.type, output.shape) +
                 describeRename(output) + ".\n";
  }
  forwardParams.push_back("cudaStream_t stream");
  text += "/// Runs the model on `stream`. Checks the dims and pointers first "
          "(an error\n/// status, nothing launched); grows the workspace in "
          "stream order when the\n/// dims need more than any call before.\n";
  text += dimsDoc + valuesDoc;
  text += formatList("sinter_status " + model + "_forward(", forwardParams,
                     ");", 0) +
          "\n\n";

  SmallVector<std::string> bytesParams;
  for (const std::string &dim : dims)
    bytesParams.push_back("int64_t " + dim);
  bytesParams.push_back("size_t *bytes");
  text += "/// Sets *bytes to the device workspace that " + model +
          "_forward needs for these\n/// dims (the model allocates and owns "
          "it).\n";
  text += formatList("sinter_status " + model + "_workspace_bytes(",
                     bytesParams, ");", 0) +
          "\n\n";
  text += "/// Lends the model a workspace for the following forward calls, "
          "instead of\n/// the one it allocates itself: `bytes` of device "
          "memory at `workspace`\n/// (256-byte aligned), for callers with an "
          "allocator of their own (PyTorch's\n/// caching allocator), who "
          "size it with " +
          model +
          "_workspace_bytes. The model\n/// never frees it; it must stay "
          "valid until the calls queued with it have\n/// run. NULL returns "
          "to the model's own workspace. A forward call that needs\n/// more "
          "than `bytes` fails with SINTER_ERROR_BAD_DIM and launches "
          "nothing.\n";
  text += getSetWorkspaceSignature() + ";\n\n";
  text += "/// Destroys the model and frees what it owns; NULL is accepted. "
          "Waits for the\n/// device.\n";
  text += "sinter_status " + model + "_destroy(" + model + " *model);\n\n";
  text += "/// The message of the model's last failure (\"\" if none); with "
          "NULL, the\n/// calling thread's last failure of a call without a "
          "model.\n";
  text +=
      "const char *" + model + "_last_error(const " + model + " *model);\n\n";
  text += "#ifdef __cplusplus\n} // extern \"C\"\n#endif\n\n#endif // " +
          guard + "\n";
  return text;
}

std::string ModelEmitter::getHostCode() const {
  std::string text;
  text += "struct " + model + " {\n  sinter_rt_context *ctx;\n  " + model +
          "_params params;\n";
  for (const ApiValue &value : prepared)
    text += "  float *" + value.name + "; // " +
            describeApiValue("float", value.shape) + ", from @prepare\n";
  if (hasPrepare)
    text += "  void *arena; // the prepared values (and @prepare's scratch), "
            "unless lent\n";
  text += "  void *workspace;\n  size_t workspaceBytes;\n";
  text += "  void *lentWorkspace; // by " + model +
          "_set_workspace, or NULL\n  size_t lentBytes;\n};\n\n";

  // Dim checks, shared by forward and workspace_bytes.
  // A dim of 0 that empties every output returns at once (`onEmpty`):
  // before the pointer checks, since an empty tensor may have none.
  auto dimChecks = [&](StringRef ctx, StringRef onEmpty) {
    std::string checks;
    SmallVector<std::string> isEmpty;
    for (const std::string &dim : dims) {
      bool empties = emptyingDims.contains(dim);
      checks += tryCall("sinter_rt_check_dim",
                        {ctx.str(), quoteCString(dim), dim, empties ? "0" : "1",
                         "SINTER_RT_MAX_DIM"});
      if (empties)
        isEmpty.push_back(dim + " == 0");
    }
    if (!isEmpty.empty())
      checks += "  // Every output is empty: nothing to run.\n  if (" +
                llvm::join(isEmpty, " || ") +
                (onEmpty.empty() ? ")\n    return SINTER_OK;\n"
                                 : ") {\n" + onEmpty.str() +
                                       "    return SINTER_OK;\n  }\n");
    for (const RuntimeCheck &check : forward.shapes.getChecks())
      checks +=
          tryCall("sinter_rt_check_dim", {ctx.str(), quoteCString(check.what),
                                          check.value, check.min, check.max});
    return checks;
  };
  SmallVector<std::string> dimParams, dimArgs = dims;
  for (const std::string &dim : dims)
    dimParams.push_back("int64_t " + dim);

  text += "namespace {\n\n";
  text += "/// The workspace " + model + "_forward needs, in bytes.\n";
  text += "size_t " + model + "_forward_bytes(" + llvm::join(dimParams, ", ") +
          ") {\n";
  for (const std::string &dim : dims)
    if (forward.workspaceBytes.find(dim) == std::string::npos)
      text += "  (void)" + dim + ";\n";
  text += "  return " + forward.workspaceBytes + ";\n}\n\n";

  bool needsReserve = forward.workspaceBytes != "0";
  if (needsReserve) {
    text += "/// Grows the workspace to at least `bytes`, in stream order "
            "(no host wait).\n";
    text +=
        formatList("sinter_status " + model + "_reserve(",
                   {model + " *model", "size_t bytes", "cudaStream_t stream"},
                   ") {", 0) +
        "\n";
    text += "  if (model->lentWorkspace)\n    return " +
            formatList(
                "sinter_rt_check_dim(",
                {"model->ctx",
                 quoteCString("the bytes lent by " + model + "_set_workspace"),
                 "static_cast<int64_t>(model->lentBytes)",
                 "static_cast<int64_t>(bytes)", "INT64_MAX"},
                ");", 2) +
            "\n";
    text += "  if (bytes <= model->workspaceBytes)\n    return SINTER_OK;\n";
    text += "  if (model->workspace)\n" +
            tryCuda("model->ctx", "cudaFreeAsync(model->workspace, stream)",
                    "cudaFreeAsync", 2);
    text += "  model->workspace = nullptr;\n  model->workspaceBytes = 0;\n";
    text += tryCuda("model->ctx",
                    "cudaMallocAsync(&model->workspace, bytes, stream)",
                    "cudaMallocAsync");
    text += "  model->workspaceBytes = bytes;\n  return SINTER_OK;\n}\n\n";
  }

  // The memory of @prepare: each prepared value, then its scratch.
  SmallVector<std::string> arenaTerms;
  for (const ApiValue &value : prepared)
    arenaTerms.push_back("sinterAlign(" +
                         getBytes(getNumElements(value.shape), "float") + ")");
  if (hasPrepare && prepare.workspaceBytes != "0")
    arenaTerms.push_back(prepare.workspaceBytes);
  if (hasPrepare) {
    text += "/// The device memory of the prepared values and @prepare's "
            "scratch, in bytes.\n";
    text += "size_t " + model + "_arena_bytes() {\n  return " +
            (arenaTerms.empty() ? std::string("0")
                                : llvm::join(arenaTerms, " +\n         ")) +
            ";\n}\n\n";
    text += "/// Computes the param-only values (@prepare) once, into `arena` "
            "(" +
            model + "_arena_bytes()).\n";
    text +=
        formatList("sinter_status " + model + "_prepare(",
                   {model + " *model", "char *arena", "cudaStream_t stream"},
                   ") {", 0) +
        "\n";
    text += "  sinter_rt_context *const ctx = model->ctx;\n";
    for (auto [index, value] : llvm::enumerate(prepared)) {
      text +=
          "  model->" + value.name + " = reinterpret_cast<float *>(arena);\n";
      text += "  arena += " + arenaTerms[index] + ";\n";
    }
    if (prepare.workspaceBytes != "0")
      text += "  char *const prepareScratch = arena;\n";
    else
      text += "  (void)arena;\n";
    text += prepare.hostBody + "  return SINTER_OK;\n}\n\n";
  }
  if (!forward.weightPreparations.empty()) {
    text += "/// Splits the weights of the 3xTF32 GEMMs into their TF32 parts, "
            "once\n/// (the runtime keeps them; nothing where SGEMM runs "
            "instead).\n";
    text +=
        "sinter_status " + model + "_prepare_weights(" + model + " *model) {\n";
    for (const std::string &statement : forward.weightPreparations)
      text += statement;
    text += "  return SINTER_OK;\n}\n\n";
  }
  text += "} // namespace\n\n";

  // prepared_bytes, create_in and create
  text += "sinter_status " + model + "_prepared_bytes(size_t *bytes) {\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"bytes\", bytes, "
          "1));\n";
  text += std::string("  *bytes = ") +
          (hasPrepare ? model + "_arena_bytes()" : std::string("0")) +
          ";\n  return SINTER_OK;\n}\n\n";
  text += getCreateSignature() + " {\n";
  text += "  return " + model +
          "_create_in(model, params, nullptr, 0, stream);\n}\n\n";
  text += getCreateInSignature() + " {\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"model\", model, "
          "1));\n  *model = nullptr;\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"params\", "
          "params, 1));\n";
  for (const ApiValue &param : params)
    text += tryCall("sinter_rt_check_pointer",
                    {"nullptr", quoteCString("params->" + param.name),
                     "params->" + param.name, "sizeof(float)"});
  text += "  " + model + " *created = static_cast<" + model +
          " *>(calloc(1, sizeof(" + model + ")));\n";
  text += "  if (!created)\n    return SINTER_ERROR_OUT_OF_MEMORY;\n";
  text += "  created->params = *params;\n";
  text += "  sinter_status status = sinter_rt_create(&created->ctx, stream, "
          "0);\n";
  // cuBLAS is set up here, so that forward calls never allocate.
  if (runsGemms)
    text += "  if (status == SINTER_OK)\n"
            "    status = sinter_rt_init_blas(created->ctx);\n";
  if (hasPrepare) {
    // Memory lent by the caller, or the model's own.
    text += "  char *arena = static_cast<char *>(memory);\n";
    text += "  if (status == SINTER_OK && memory)\n"
            "    status = sinter_rt_check_pointer(created->ctx, \"memory\", "
            "memory, 256);\n";
    text +=
        "  if (status == SINTER_OK && memory)\n    status = " +
        formatList("sinter_rt_check_dim(",
                   {"created->ctx",
                    quoteCString("the bytes lent to " + model + "_create_in"),
                    "static_cast<int64_t>(bytes)",
                    "static_cast<int64_t>(" + model + "_arena_bytes())",
                    "INT64_MAX"},
                   ");", 2) +
        "\n";
    text += "  if (status == SINTER_OK && !memory) {\n"
            "    status = sinter_rt_check_cuda(\n"
            "        created->ctx, cudaMalloc(&created->arena, " +
            model +
            "_arena_bytes()),\n"
            "        \"cudaMalloc\");\n"
            "    arena = static_cast<char *>(created->arena);\n  }\n";
    text += "  if (status == SINTER_OK)\n    status = " + model +
            "_prepare(created, arena, stream);\n";
  } else {
    text += "  (void)memory;\n  (void)bytes;\n";
  }
  // The weights of 3xTF32 GEMMs are split once, here (after @prepare, which
  // may compute them).
  if (!forward.weightPreparations.empty())
    text += "  if (status == SINTER_OK)\n    status = " + model +
            "_prepare_weights(created);\n";
  // The header promises that creation waits: @prepare's errors surface here.
  text += "  if (status == SINTER_OK)\n"
          "    status = sinter_rt_check_cuda(created->ctx, "
          "cudaStreamSynchronize(stream),\n"
          "                                  \"cudaStreamSynchronize\");\n";
  text += "  if (status != SINTER_OK) {\n    " + model +
          "_destroy(created);\n    return status;\n  }\n";
  text += "  *model = created;\n  return SINTER_OK;\n}\n\n";

  // forward
  SmallVector<std::string> forwardParams = {model + " *model"};
  llvm::append_range(forwardParams, dimParams);
  for (const ApiValue &input : inputs)
    forwardParams.push_back("const float *" + input.name);
  for (const ApiValue &output : outputs)
    forwardParams.push_back(output.type + " *" + output.name);
  forwardParams.push_back("cudaStream_t stream");
  text += formatList("sinter_status " + model + "_forward(", forwardParams,
                     ") {", 0) +
          "\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"model\", model, "
          "1));\n";
  text += "  sinter_rt_context *const ctx = model->ctx;\n";
  text += "  SINTER_RT_TRY(sinter_rt_set_stream(ctx, stream));\n";
  text += dimChecks("ctx", "");
  for (const ApiValue &input : inputs)
    text += tryCall("sinter_rt_check_pointer", {"ctx", quoteCString(input.name),
                                                input.name, "sizeof(float)"});
  for (const ApiValue &output : outputs)
    text += tryCall("sinter_rt_check_pointer",
                    {"ctx", quoteCString(output.name), output.name,
                     "sizeof(" + output.type + ")"});
  if (forward.workspaceBytes != "0")
    text += tryCall(
        model + "_reserve",
        {"model", model + "_forward_bytes(" + llvm::join(dimArgs, ", ") + ")",
         "stream"});
  text += forward.hostBody + "  return SINTER_OK;\n}\n\n";

  // workspace_bytes
  SmallVector<std::string> bytesParams = dimParams;
  bytesParams.push_back("size_t *bytes");
  text += formatList("sinter_status " + model + "_workspace_bytes(",
                     bytesParams, ") {", 0) +
          "\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"bytes\", bytes, "
          "1));\n";
  text += dimChecks("nullptr", "    *bytes = 0;\n");
  text += "  *bytes = " + model + "_forward_bytes(" +
          llvm::join(dimArgs, ", ") + ");\n  return SINTER_OK;\n}\n\n";

  // set_workspace
  text += getSetWorkspaceSignature() + " {\n";
  text += "  SINTER_RT_TRY(sinter_rt_check_pointer(nullptr, \"model\", model, "
          "1));\n";
  text +=
      "  if (workspace)\n" +
      tryCall("sinter_rt_check_pointer",
              {"model->ctx", quoteCString("workspace"), "workspace", "256"}, 2);
  text += "  model->lentWorkspace = workspace;\n  model->lentBytes = workspace "
          "? bytes : 0;\n  return SINTER_OK;\n}\n\n";

  // destroy
  text += "sinter_status " + model + "_destroy(" + model + " *model) {\n";
  text += "  if (!model)\n    return SINTER_OK;\n";
  // Work queued with the model's buffers (its @prepare, forward calls not
  // yet run) must finish before they are freed.
  text += "  sinter_status status = sinter_rt_check_cuda(\n"
          "      model->ctx, cudaDeviceSynchronize(), "
          "\"cudaDeviceSynchronize\");\n";
  text += "  auto release = [&](void *pointer) {\n"
          "    if (!pointer)\n      return;\n"
          "    sinter_status freed =\n        sinter_rt_check_cuda(model->ctx, "
          "cudaFree(pointer), \"cudaFree\");\n"
          "    if (status == SINTER_OK)\n      status = freed;\n  };\n";
  text += "  release(model->workspace);\n";
  if (hasPrepare)
    text += "  release(model->arena);\n";
  text += "  sinter_status destroyed = sinter_rt_destroy(model->ctx);\n";
  text += "  if (status == SINTER_OK)\n    status = destroyed;\n";
  text += "  free(model);\n  return status;\n}\n\n";

  // last_error
  text += "const char *" + model + "_last_error(const " + model +
          " *model) {\n  return sinter_rt_last_error(model ? model->ctx : "
          "nullptr);\n}\n";
  return text;
}

CUDAModelInterface ModelEmitter::getInterface() const {
  CUDAModelInterface api;
  for (auto [name, userName] : llvm::zip(dims, dimUserNames)) {
    CUDADimInfo dim{name, userName, std::nullopt};
    for (auto &[declared, value] : signature.dims)
      if (declared == userName)
        dim.exampleValue = value;
    api.dims.push_back(std::move(dim));
  }
  auto describe = [](ArrayRef<ApiValue> values,
                     SmallVector<CUDATensorInfo> &infos) {
    for (const ApiValue &value : values) {
      CUDATensorInfo info{value.name, value.userName, value.type, {}};
      for (const DimExpr &size : value.shape)
        info.shape.push_back(size.str());
      infos.push_back(std::move(info));
    }
  };
  describe(params, api.params);
  describe(inputs, api.inputs);
  describe(outputs, api.outputs);
  api.forwardNeedsWorkspace = forward.workspaceBytes != "0";
  return api;
}

/// The host helper definitions.
static std::string getHostHelper(StringRef name) {
  if (name == "launch_fill")
    return R"(/// Writes `value` to the `n` floats at `out`.
__global__ void sinterFillKernel(float *__restrict__ out, int64_t n,
                                 float value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    out[i] = value;
}

/// Fills the `n` floats at `out` with `value` on `stream` (a model result
/// or an intermediate known to be constant).
sinter_status sinterFill(sinter_rt_context *ctx, cudaStream_t stream,
                         float *out, int64_t n, float value) {
  if (n == 0)
    return SINTER_OK;
  sinterFillKernel<<<gridBlocks(ctx, n, 256), 256, 0, stream>>>(out, n, value);
  return sinter_rt_check_launch(ctx, "sinterFill");
}
)";
  if (name == "align")
    return "/// Rounds a workspace size up to 256 bytes: every buffer starts "
           "aligned.\nsize_t sinterAlign(size_t bytes) {\n  return (bytes + "
           "255) & ~static_cast<size_t>(255);\n}\n";
  if (name == "column_splits")
    return "/// The slices the rows of a column reduction are split into, for "
           "`blocks` blocks\n/// along the columns whose threads split each "
           "slice into `lanes`: about 1024\n/// blocks in all, and at least 8 "
           "rows per thread. A function of the shape only,\n/// so that "
           "results do not depend on the GPU.\n"
           "int64_t sinterColumnSplits(int64_t rows, int64_t lanes, int64_t "
           "blocks) {\n"
           "  int64_t splits = (1024 + blocks - 1) / blocks;\n"
           "  const int64_t most = (rows + 8 * lanes - 1) / (8 * lanes);\n"
           "  splits = splits < most ? splits : most;\n"
           "  return splits < 1 ? 1 : splits > 1024 ? 1024 : splits;\n}\n";
  return getDeviceHelper(name);
}

std::string ModelEmitter::getSource(const EmitterContext &context) const {
  std::string text;
  text += "// " + model + ".cu: model '" + signature.modelName +
          "', generated by " + options.compilerVersion + ". Do not edit.\n";
  text += "//\n";
  text += "// Source:    " + escapeComment(options.sourceName) + "\n";
  text += "// Compiler:  " + options.compilerVersion + "\n";
  text += "// Flags:     " +
          (options.flags.empty() ? "(none)" : escapeComment(options.flags)) +
          "\n";
  text += "// Precision: " + stringifyGemmPrecision(options.precision).str();
  switch (options.precision) {
  case GemmPrecision::F32:
    text += usesTf32x3()
                ? " (GEMMs at fp32 accuracy: 3xTF32 on sm_90 where the plan "
                  "says so, else\n//            CUBLAS_COMPUTE_32F with TF32 "
                  "off)\n"
                : " (GEMMs in fp32: CUBLAS_COMPUTE_32F, TF32 off)\n";
    break;
  case GemmPrecision::TF32:
    text += " (GEMMs on TF32 tensor cores, fp32 accumulation)\n";
    break;
  case GemmPrecision::BF16:
    text += " (GEMMs on bf16 tensor cores, fp32 accumulation)\n";
    break;
  }
  text += "// Other math: fp32 with PyTorch's definitions "
          "(sinter/rt_device.cuh).\n//\n";
  if (hasPrepare) {
    text += "// Fusion plan of @prepare (run once by " + model + "_create):\n" +
            getFusionPlan(prepare) + "//\n";
  }
  text += "// Fusion plan of @forward (run by " + model + "_forward):\n" +
          getFusionPlan(forward);
  text += "\n#include \"" + model + ".h\"\n\n";
  text += "#include \"sinter/rt_device.cuh\"\n\n";
  text += "#include <algorithm>\n#include <cstdint>\n#include <cstdlib>\n\n";
  text += "namespace {\n\nnamespace dev = sinter::dev;\n\n";
  std::set<std::string> helpers = context.helpers;
  helpers.insert(hostHelpers.begin(), hostHelpers.end());
  for (const std::string &helper : helpers)
    text += getHostHelper(helper) + "\n";
  if (std::string declarations = constants.getDeclarations();
      !declarations.empty())
    text += declarations + "\n";
  for (const FunctionInfo *info : {&prepare, &forward}) {
    if (!info->func)
      continue;
    for (const FunctionInfo::Kernel &kernel : info->kernels) {
      std::string rule(77, '-');
      text += "//" + rule + "\n// " + kernel.name + ": " +
              kernel.code.strategy + "\n" +
              describeOps(KernelOp(kernel.op).getBody().front(), "//   ") +
              "//" + rule + "\n\n";
      text += kernel.code.deviceCode + "\n" + kernel.code.launchCode + "\n";
    }
  }
  text += "} // namespace\n\n";
  text += getHostCode();
  return text;
}

FailureOr<CUDAOutput> ModelEmitter::emit() {
  if (failed(readSignature()))
    return failure();
  EmitterContext context{
      forward.shapes, constants, options.precision, options.fp32Gemm, {}};
  for (FunctionInfo *info : {&prepare, &forward}) {
    if (!info->func)
      continue;
    if (failed(planFunction(*info)) ||
        failed(generateKernels(*info, context)) || failed(writeHostBody(*info)))
      return failure();
  }
  if (hasPrepare && !prepare.shapes.getChecks().empty())
    return prepare.func.emitError(
        "CUDA emitter: @prepare depends on symbolic dims");
  CUDAOutput output;
  output.modelName = model;
  output.sourceModelName = signature.modelName;
  output.header = getHeader();
  output.source = getSource(context);
  output.api = getInterface();
  if (options.emitTorch) {
    output.torchSource = getTorchExtensionSource(output, options);
    output.torchLoader = getTorchExtensionLoader(output, options);
  }
  return output;
}

FailureOr<CUDAOutput>
mlir::sinter::emitCUDA(ModuleOp module, const CUDAEmitterOptions &options) {
  ModelEmitter emitter(module, options);
  return emitter.emit();
}
