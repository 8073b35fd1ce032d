//===- CUDAEmitter.cpp - Fused sinter modules to CUDA source --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The driver of the CUDA backend. For a fused model module it
//   - names every dim, value, kernel and buffer (ModelNames.cpp);
//   - dispatches every sinter.kernel to the generator of its kind
//     (KernelEmitter.h);
//   - plans the workspace and writes the host body (WorkspacePlan.cpp);
//   - assembles `<model>.h` (ModelHeader.cpp) and `<model>.cu`: the plan
//     comment (PlanComment.cpp), helpers, constants, kernels and the host
//     code (HostCode.cpp).
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "ModelEmitter.h"

#include "sinter/Target/CUDA/TorchExtension.h"

#include "llvm/ADT/StringSwitch.h"

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

bool mlir::sinter::cuda::isAllowedAtTopLevel(Operation &op) {
  return isa<KernelOp, ConstantOp, FillOp, func::ReturnOp>(op);
}

bool mlir::sinter::isFusedModel(ModuleOp module) {
  for (func::FuncOp func : {getForwardFunc(module), getPrepareFunc(module)})
    if (func && !llvm::all_of(func.getBody().front(), isAllowedAtTopLevel))
      return false;
  return static_cast<bool>(getForwardFunc(module));
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
      // Few long rows: the plan splits each row over many blocks.
      code = isSplitStrategy(kernel.op.getPlanAttr().getStrategy())
                 ? generateColumnReduction(
                       local, makeEvalKernel(kernel.request, kernel.name))
                 : generateRowReduction(
                       local, makeEvalKernel(kernel.request, kernel.name));
      break;
    case KernelKind::column_reduction:
      code = generateColumnReduction(
          local, makeEvalKernel(kernel.request, kernel.name));
      break;
    }
    if (failed(code))
      return failure();
    kernel.code = std::move(*code);
    usesTickets |= kernel.code.usesTickets;
    if (!kernel.code.scratchBytes.empty())
      kernel.code.launchCode +=
          "\n" + getScratchFunction(kernel.name, kernel.code.scratchBytes);
  }
  context.helpers = std::move(local.helpers);
  return success();
}

std::string ModelEmitter::getSource(const EmitterContext &context) const {
  std::string text = getPlanComment();
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
