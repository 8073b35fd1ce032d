//===- CUDAEmitter.h - Fused sinter modules to CUDA source ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The CUDA backend: turns a fused model module (every op of @forward and
// @prepare inside a sinter.kernel, besides constants and the terminator)
// into `<model>.h`, a C API, and `<model>.cu`, the kernels and the host code
// that launches them through the Sinter runtime (runtime/include/sinter).
// DESIGN.md, "Generated code contract", is the specification.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CUDA_CUDAEMITTER_H
#define SINTER_TARGET_CUDA_CUDAEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::sinter {

/// The arithmetic that generated GEMMs use; the data stay fp32 in every case.
enum class GemmPrecision {
  /// fp32 throughout (CUBLAS_COMPUTE_32F, TF32 off): the default.
  F32,
  /// TF32 tensor cores with fp32 accumulation.
  TF32,
  /// bf16 tensor cores with fp32 accumulation.
  BF16,
};

/// Returns "f32", "tf32" or "bf16".
StringRef stringifyGemmPrecision(GemmPrecision precision);

/// Parses "f32", "tf32" or "bf16".
std::optional<GemmPrecision> parseGemmPrecision(StringRef text);

/// How fp32 GEMMs (GemmPrecision::F32) compute.
enum class Fp32Gemm {
  /// Gemm kernels that sinter-select-gemm marked run as 3xTF32 on sm_90
  /// (sinter_rt_gemm_tf32x3: at least as accurate as SGEMM against float64);
  /// the others, and every GEMM on other devices, as cuBLAS SGEMM. The
  /// default.
  Tf32x3,
  /// Every fp32 GEMM as cuBLAS SGEMM (CUBLAS_COMPUTE_32F).
  Sgemm,
};

/// Returns "3xtf32" or "sgemm".
StringRef stringifyFp32Gemm(Fp32Gemm gemm);

/// What the generated files say about how they were made, and how GEMMs
/// compute.
struct CUDAEmitterOptions {
  GemmPrecision precision = GemmPrecision::F32;
  /// With GemmPrecision::F32: whether marked gemm kernels run as 3xTF32.
  Fp32Gemm fp32Gemm = Fp32Gemm::Tf32x3;
  /// The source the model was read from, as the user named it.
  std::string sourceName;
  /// The compiler and its version, e.g. "sinterc 0.1.0".
  std::string compilerVersion;
  /// The flags that change the output, as written on the command line.
  std::string flags;
  /// Also generate the PyTorch extension of the model (TorchExtension.h):
  /// CUDAOutput::torchSource and CUDAOutput::torchLoader.
  bool emitTorch = false;
};

/// A symbolic dim of a generated model's C API.
struct CUDADimInfo {
  /// The C identifier: the parameter of `<model>_forward`.
  std::string name;
  /// The name in the model source.
  std::string userName;
  /// The model's example value (`dim B = 1024`), when it declares one.
  std::optional<int64_t> exampleValue;
};

/// A tensor of a generated model's C API: a param, an input or an output.
struct CUDATensorInfo {
  /// The C identifier: the field of `<model>_params` or the parameter of
  /// `<model>_forward`.
  std::string name;
  /// The name in the model source.
  std::string userName;
  /// The C element type: "float", or "int64_t" for index outputs.
  std::string elementType;
  /// Per dim, its size: a decimal literal, a dim's C name, or (outputs only)
  /// a C expression over dim names such as "(B * 64)".
  SmallVector<std::string> shape;
};

/// The C API of a generated model as `<model>.h` declares it, for the
/// generators of bindings to it (TorchExtension.h).
struct CUDAModelInterface {
  /// The symbolic dims, in the order `<model>_forward` takes them.
  SmallVector<CUDADimInfo> dims;
  /// The params (fields of `<model>_params`), inputs and outputs, in order.
  SmallVector<CUDATensorInfo> params, inputs, outputs;
  /// Whether `<model>_forward` uses a workspace: `<model>_workspace_bytes`
  /// can be nonzero, and `<model>_set_workspace` lends one.
  bool forwardNeedsWorkspace = false;
};

/// The generated files of one model.
struct CUDAOutput {
  /// The C identifier every public name of the model starts with.
  std::string modelName;
  /// The model's name in its source.
  std::string sourceModelName;
  /// `<model>.h`: the C API.
  std::string header;
  /// `<model>.cu`: kernels and host code.
  std::string source;
  /// What `<model>.h` declares, for bindings.
  CUDAModelInterface api;
  /// With CUDAEmitterOptions::emitTorch: `<model>_torch.cpp`, the PyTorch
  /// extension, and `<model>_torch.py`, its loader; empty otherwise.
  std::string torchSource;
  std::string torchLoader;
};

/// Returns true when every op of @forward (and of @prepare, if present) is a
/// sinter.kernel, a sinter.constant or the terminator: the input the
/// emitter expects.
bool isFusedModel(ModuleOp module);

/// Generates the CUDA source and header of the fused model `module`. Emits
/// an error at the offending op and fails on anything it cannot generate
/// (an op outside a kernel, an unsupported kernel shape or element type);
/// never produces partial output. The output is a function of `module` and
/// `options` only: generating twice gives identical bytes.
FailureOr<CUDAOutput> emitCUDA(ModuleOp module,
                               const CUDAEmitterOptions &options);

/// Prints `output` as `sinterc -emit=cuda` does without -o: `<model>.h`
/// and `<model>.cu`, each after a `// ===== <file> =====` line.
void printCUDAOutput(raw_ostream &os, const CUDAOutput &output);

/// Registers the `--sinter-to-cuda` translation (sinter-translate): a fused
/// module to printCUDAOutput's text, with `--precision` and `--fp32-gemm`
/// options; the files name `compilerVersion` as the compiler.
void registerToCUDATranslation(StringRef compilerVersion);

/// Writes `output` as `<directory>/<model>.h` and `<directory>/<model>.cu`
/// (and `<model>_torch.cpp`, `<model>_torch.py` when it has them), creating
/// the directory. With `runtimeDirectory` set (the runtime/ folder
/// of a Sinter source tree), also copies the runtime's headers and sources
/// into `<directory>/sinter_rt/` and writes `<directory>/CMakeLists.txt`, so
/// that the directory builds on its own. Emits errors through `context` and
/// fails on I/O errors.
LogicalResult writeCUDAOutput(MLIRContext *context, const CUDAOutput &output,
                              StringRef directory,
                              std::optional<StringRef> runtimeDirectory);

} // namespace mlir::sinter

#endif // SINTER_TARGET_CUDA_CUDAEMITTER_H
