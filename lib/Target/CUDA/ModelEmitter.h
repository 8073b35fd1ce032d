//===- ModelEmitter.h - The parts of the CUDA driver ------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the driver (CUDAEmitter.cpp) writes the files of one model from, and
// the parts it calls, one concern per file:
//
//   ModelNames.cpp     the namer: C names of dims, API values, kernels and
//                      buffers, read from the model's signature;
//   WorkspacePlan.cpp  the slots intermediates share once dead, the scratch
//                      area, and the host body that launches the kernels;
//   HostCode.cpp       create, forward, workspace_bytes, destroy, helpers;
//   ModelHeader.cpp    `<model>.h` and its description for bindings;
//   PlanComment.cpp    the provenance and fusion plan atop `<model>.cu`.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_MODELEMITTER_H
#define SINTER_LIB_TARGET_CUDA_MODELEMITTER_H

#include "KernelEmitter.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Support/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <set>
#include <string>
#include <vector>

namespace mlir::sinter::cuda {

/// Which function of the model host code runs.
enum class FunctionRole {
  /// @prepare: the param-only values, once, at create.
  Prepare,
  /// @forward: every call of `<model>_forward`.
  Forward,
};

/// A tensor of the C API (an input, param or output) or a prepared value.
struct ApiValue {
  /// The C name: a parameter, a field of `<model>_params` or of the model.
  std::string name;
  /// The C element type.
  std::string type;
  Shape shape;
  /// The name in the model ("" for prepared values).
  std::string userName;
  /// Params: the init hint, for documentation ("linear_default(1024)").
  std::string init;
};

/// One function of the model (@prepare or @forward) as host code sees it.
struct FunctionInfo {
  func::FuncOp func;
  FunctionRole role = FunctionRole::Forward;
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

/// Generates the files of one model. Its parts, one concern per file:
/// the namer (ModelNames.cpp), the workspace plan (WorkspacePlan.cpp), the
/// host code (HostCode.cpp), the header and the C API description
/// (ModelHeader.cpp), the plan comment (PlanComment.cpp) and the driver that
/// runs the kernel generators and assembles the files (CUDAEmitter.cpp).
class ModelEmitter {
public:
  ModelEmitter(ModuleOp module, const CUDAEmitterOptions &options)
      : module(module), options(options), constants("") {}

  /// Generates the files; fails with an error at the offending op.
  FailureOr<CUDAOutput> emit();

private:
  //===--- The namer (ModelNames.cpp) -------------------------------------===//

  /// Reads the signature of the module, checks its functions and names its
  /// dims and API values; sets up `forward` and `prepare` with their shapes.
  LogicalResult readSignature();
  /// Checks that `func` holds only kernels, constants and fills of f32.
  LogicalResult checkFunction(func::FuncOp func);
  /// Names the kernels, kernel results, fills and kernel buffers of `info`,
  /// and builds each kernel's request.
  LogicalResult planFunction(FunctionInfo &info);

  //===--- The driver (CUDAEmitter.cpp) -----------------------------------===//

  /// Runs the generator of each kernel's kind.
  LogicalResult generateKernels(FunctionInfo &info, EmitterContext &context);
  /// `size_t <kernel>_scratch_bytes(dims)`: the sum of `terms`.
  std::string getScratchFunction(StringRef kernel,
                                 ArrayRef<std::string> terms) const;
  /// `<model>.cu`.
  std::string getSource(const EmitterContext &context) const;

  //===--- The workspace plan (WorkspacePlan.cpp) -------------------------===//

  /// Plans the workspace of `info` (slots shared by intermediates once
  /// dead, one scratch area shared by all kernels) and writes its host body:
  /// the layout, the fills, the launches and the copies of returned values.
  LogicalResult writeHostBody(FunctionInfo &info);

  //===--- Host code (HostCode.cpp) ---------------------------------------===//

  /// The model struct and the host functions of the C API.
  std::string getHostCode() const;

  //===--- The header and the C API description (ModelHeader.cpp) ---------===//

  /// `<model>.h`.
  std::string getHeader() const;
  /// What `<model>.h` declares, for the generators of bindings.
  CUDAModelInterface getInterface() const;
  /// `sinter_status <model>_create(...)`, without `;` or body.
  std::string getCreateSignature() const;
  /// `sinter_status <model>_create_in(...)`, without `;` or body.
  std::string getCreateInSignature() const;
  /// `sinter_status <model>_set_workspace(...)`, without `;` or body.
  std::string getSetWorkspaceSignature() const;

  //===--- The plan comment (PlanComment.cpp) -----------------------------===//

  /// The provenance, precision and fusion plans atop `<model>.cu`.
  std::string getPlanComment() const;
  /// The fusion plan of `info`: kernel -> ops, and how each runs.
  std::string getFusionPlan(const FunctionInfo &info) const;

  //===--- State ----------------------------------------------------------===//

  /// The values `info`'s function returns: outputs or prepared values.
  ArrayRef<ApiValue> getResults(const FunctionInfo &info) const {
    return info.role == FunctionRole::Forward ? ArrayRef(outputs)
                                              : ArrayRef(prepared);
  }
  /// The host expression of the result `name` of `info`'s function: a
  /// parameter of forward, or a member of the model.
  std::string getResultPointer(const FunctionInfo &info, StringRef name) const {
    return info.role == FunctionRole::Forward ? name.str()
                                              : "model->" + name.str();
  }
  /// Whether a kernel of @forward runs a 3xTF32 GEMM.
  bool usesTf32x3() const { return !forward.weightPreparations.empty(); }

  ModuleOp module;
  const CUDAEmitterOptions &options;
  ModelSignature signature;
  NamePool namer;
  /// The C identifier every public name starts with.
  std::string model;
  ConstantPool constants;

  /// Dims: C names, in API order.
  SmallVector<std::string> dims;
  /// Per dim: its name in the model.
  SmallVector<std::string> dimUserNames;
  /// The dims every output's size is a multiple of: with one of them 0, the
  /// call has nothing to compute (an empty batch).
  llvm::StringSet<> emptyingDims;

  /// Inputs, params and outputs of the C API.
  std::vector<ApiValue> inputs, params, outputs;
  /// Prepared values: C member names and shapes.
  std::vector<ApiValue> prepared;

  FunctionInfo forward, prepare;
  bool hasPrepare = false;
  /// Whether a kernel of @forward or @prepare calls cuBLAS.
  bool runsGemms = false;
  /// Whether a kernel of @forward or @prepare takes the tickets of split
  /// reductions (GeneratedKernel::usesTickets): the arena begins with them.
  bool usesTickets = false;
  /// Whether the model has an arena: prepared values, @prepare's scratch or
  /// tickets.
  bool hasArena() const { return hasPrepare || usesTickets; }
  /// Helpers the host code needs beyond the kernels'.
  std::set<std::string> hostHelpers;
};

/// Returns true for the ops that may appear directly in @forward or
/// @prepare of a fused module.
bool isAllowedAtTopLevel(Operation &op);

/// Returns true if `value` is a splat `sinter.constant`.
bool isSplatConstant(Value value);

/// The value of every element of a fill or splat constant.
double getFillValue(Value fill);

/// `SINTER_RT_TRY(function(args...));` as a statement of a function body,
/// wrapped at 80 columns.
std::string tryCall(StringRef function, ArrayRef<std::string> args,
                    unsigned indent = 1);

/// `SINTER_RT_TRY(sinter_rt_check_cuda(ctx, call, "what"));`.
std::string tryCuda(StringRef ctx, StringRef call, StringRef what,
                    unsigned indent = 1);

/// The bytes of `count` elements of `type` as a size_t expression.
std::string getBytes(const DimExpr &count, StringRef type);

/// The definition of helper `name`: a host helper, or a device helper
/// (getDeviceHelper).
std::string getHostHelper(StringRef name);

/// The C declaration of a value's shape for comments: "float[B][64]".
std::string describeApiValue(StringRef type, ArrayRef<DimExpr> shape);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_MODELEMITTER_H
