//===- WorkspacePlan.cpp - Workspace slots and the host body --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The workspace plan of @prepare and @forward: an intermediate takes a slot
// of the same size and type whose value no later kernel reads, or a new one;
// all kernels share one scratch area after the slots. Writes the host body
// that lays the workspace out, runs the fills and kernels in program order
// and copies returned values that no kernel wrote in place.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// Returns true if `value` is a splat `sinter.constant`.
bool mlir::sinter::cuda::isSplatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant && getSplatFloat(constant.getValue());
}

/// The value of every element of a fill or splat constant.
double mlir::sinter::cuda::getFillValue(Value fill) {
  if (auto op = fill.getDefiningOp<FillOp>())
    return op.getElementValue().convertToDouble();
  return getSplatFloat(fill.getDefiningOp<ConstantOp>().getValue())
      ->convertToDouble();
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
  ArrayRef<ApiValue> results = getResults(info);

  // Pointers of values, and the last kernel that reads each.
  llvm::DenseMap<Value, std::string> pointers;
  for (auto [argument, pointer] :
       llvm::zip(info.func.getArguments(), info.argumentPointers))
    pointers[argument] = pointer;
  llvm::DenseMap<Value, size_t> lastUse;
  for (auto [index, kernel] : llvm::enumerate(info.kernels))
    for (Value operand : kernel.op.getInputs())
      lastUse[operand] = index;
  for (auto [index, value] : llvm::enumerate(ret.getOperands()))
    if ((isa_and_nonnull<KernelOp, FillOp>(value.getDefiningOp()) ||
         isSplatConstant(value)) &&
        !pointers.count(value))
      pointers[value] = getResultPointer(info, results[index].name);

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
    if (kernel.code.usesTickets)
      arguments.push_back("model->tickets");
    calls += "  " +
             formatList("SINTER_RT_TRY(launch_" + kernel.name + "(", arguments,
                        "));", 1) +
             "\n";
  }

  // Returned values that no kernel wrote in place: copies.
  llvm::DenseSet<Value> written;
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    std::string target = getResultPointer(info, results[index].name);
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

  if (info.role == FunctionRole::Prepare)
    hostHelpers.insert("align"); // <model>_arena_bytes
  // The layout: slots, then the scratch area shared by all kernels.
  std::string layout, bytes;
  SmallVector<std::string> terms;
  if (!slots.empty() || !scratchSizes.empty()) {
    // @prepare's scratch follows the prepared values in the memory create
    // carves them from; forward calls use the (lent) workspace.
    layout += info.role == FunctionRole::Prepare
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
