//===- ModelNames.cpp - C names of dims, values, kernels ------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The namer of the CUDA driver: reads the model's signature (ModelSignature.h)
// and gives every dim, API value, prepared value, kernel, kernel result, fill
// and kernel buffer a unique C identifier; derives the symbolic shapes
// (ShapeAnalysis) of @prepare and @forward on the way.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "sinter/Support/Numbers.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// Renders an init hint as the .sinter source spells it: "uniform(-1, 1)".
static std::string formatInitHint(const InitHint &hint) {
  SmallVector<std::string> args;
  for (double arg : hint.args)
    args.push_back(formatDecimal(arg));
  return hint.kind + "(" + llvm::join(args, ", ") + ")";
}
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
    prepare.role = FunctionRole::Prepare;
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
  forward.role = FunctionRole::Forward;
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
  ArrayRef<ApiValue> results = getResults(info);
  // A kernel result that is returned is written where the caller wants it
  // (the first time it is returned).
  for (auto [index, value] : llvm::enumerate(ret.getOperands()))
    if ((isa_and_nonnull<KernelOp, FillOp>(value.getDefiningOp()) ||
         isSplatConstant(value)) &&
        !pointers.count(value)) {
      pointers[value] = getResultPointer(info, results[index].name);
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
