//===- KernelEmitter.h - Generators of the kernel kinds ---------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// One generator per kernel kind (sinter.kernel's `kind`). Each turns a
// fusion group into device code and a host launch function
//
//   static sinter_status launch_<kernel>(sinter_rt_context *ctx,
//       cudaStream_t stream, <inputs>, <outputs>, <dims>[, void *scratch])
//
// that the model's host code calls in program order. The gemm generator
// reuses the pointwise, row and column generators for its epilogue, and the
// matvec generator the row generator, through `EvalKernel`: a set of values
// to store, computed element by element from leaf buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_KERNELEMITTER_H
#define SINTER_LIB_TARGET_CUDA_KERNELEMITTER_H

#include "OpClasses.h"
#include "ScalarEmitter.h"
#include "Shapes.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "llvm/ADT/SetVector.h"

#include <set>
#include <string>

namespace mlir::sinter::cuda {

/// A device buffer that a kernel reads or writes.
struct Buffer {
  /// Its C name in the kernel and in the launch function.
  std::string name;
  /// The region value it holds.
  Value value;
  Shape shape;
  /// True for i64 elements (argmax/argmin results); f32 otherwise.
  bool isIndex = false;

  /// The C element type.
  StringRef getElementType() const { return isIndex ? "int64_t" : "float"; }
};

/// What every kernel generator shares: the file-wide state.
struct EmitterContext {
  const ShapeAnalysis &shapes;
  ConstantPool &constants;
  GemmPrecision precision;
  /// With GemmPrecision::F32: whether gemm kernels marked 3xtf32
  /// (sinter.gemm_algorithm) run as 3xTF32.
  Fp32Gemm fp32Gemm;
  /// Device helpers (by name) that the generated kernels need; the file
  /// defines each once (see getDeviceHelper).
  std::set<std::string> helpers;
};

/// A fusion group as the generators see it.
struct KernelRequest {
  /// `<model>_k<N>_<kind>`: the kernel's name.
  std::string name;
  /// Mutable: op handles are values whose accessors are not const.
  mutable KernelOp op;
  /// One per kernel operand that is not a constant, in operand order.
  std::vector<Buffer> inputs;
  /// One per kernel result.
  std::vector<Buffer> outputs;
};

/// Values to store, computed element by element from leaf buffers: a
/// pointwise kernel, a row or column reduction, an epilogue.
struct EvalKernel {
  /// The __global__ function's name.
  std::string name;
  /// The region whose ops compute the outputs.
  Block *body = nullptr;
  /// Leaf buffers: region arguments, and matmul results stored by a library
  /// call.
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  /// Region arguments that receive constants, with the constant values.
  SmallVector<std::pair<Value, Value>> constantArguments;
  /// Matvec: matmuls with one output column, computed as row reductions.
  SmallVector<MatmulOp> dotProducts;
  /// The plan of the sinter.kernel this is (null for the epilogue or apply
  /// step of another kernel, which its generator plans).
  KernelPlanAttr plan;
  /// Without a plan, the blocks per multiprocessor whose registers the
  /// launch bounds reserve (0: no minimum), as the generator of the apply
  /// step or epilogue says; a planned kernel's plan says (min_blocks).
  int64_t minBlocksPerSM = 0;
  /// For a pointwise apply step: the rows each thread of the float4 path
  /// walks at one group of four columns (the plan's apply_rows_per_thread;
  /// 1: groups in order; see Pointwise.cpp).
  int64_t rowsPerThread = 1;

  /// True when `value` is read from one of the input buffers.
  bool isInput(Value value) const {
    return llvm::any_of(
        inputs, [&](const Buffer &input) { return input.value == value; });
  }
};

/// What a generator produces.
struct GeneratedKernel {
  /// Kernels and device helpers, at file scope.
  std::string deviceCode;
  /// The definition of the launch function `launch_<name>`.
  std::string launchCode;
  /// The dims the launch function takes after the buffers, in order.
  SmallVector<std::string> dims;
  /// The scratch bytes the launch needs from the workspace: C expressions
  /// over dims to add up, none when it needs no scratch.
  SmallVector<std::string> scratchBytes;
  /// Whether the launch takes the model's tickets (`unsigned *tickets`, after
  /// the scratch): counters of the blocks of a split reduction that have
  /// finished, one per column group, zero between launches.
  bool usesTickets = false;
  /// How the group runs, for the fusion plan ("block per row, row cached in
  /// shared memory").
  std::string strategy;
  /// A 3xTF32 GEMM's weight, whose TF32 parts the model prepares once at
  /// creation (sinter_rt_tf32x3_prepare_weight): the kernel input buffer's
  /// name, and its rows (N), columns (K) and leading dimension as C
  /// expressions.
  struct Tf32x3Weight {
    std::string buffer, n, k, ld;
  };
  std::optional<Tf32x3Weight> tf32x3Weight;
};

/// Builds the EvalKernel of a whole fusion group.
EvalKernel makeEvalKernel(const KernelRequest &request, StringRef name);

/// The generators, one per kernel kind.
FailureOr<GeneratedKernel> generatePointwise(EmitterContext &context,
                                             const EvalKernel &kernel);
FailureOr<GeneratedKernel> generateRowReduction(EmitterContext &context,
                                                const EvalKernel &kernel);
FailureOr<GeneratedKernel> generateColumnReduction(EmitterContext &context,
                                                   const EvalKernel &kernel);
FailureOr<GeneratedKernel> generateGemm(EmitterContext &context,
                                        const KernelRequest &request);
FailureOr<GeneratedKernel> generateMatvec(EmitterContext &context,
                                          const KernelRequest &request);

/// Returns the definition of helper `name` (device code, or the host
/// function gridBlocks), one of the names generators add to
/// EmitterContext::helpers.
std::string getDeviceHelper(StringRef name);

//===----------------------------------------------------------------------===//
// Helpers shared by the generators
//===----------------------------------------------------------------------===//

/// The symbolic dims of the model that appear in `code`, in the order of
/// `candidates` (whole identifiers only).
SmallVector<std::string> findUsedDims(StringRef code,
                                      ArrayRef<std::string> candidates);

/// All dims that the shapes of `kernel`'s buffers and region values use,
/// sorted.
SmallVector<std::string> collectDims(const ShapeAnalysis &shapes,
                                     const EvalKernel &kernel);

/// For reductions with results `results` (in program order) that read the
/// values `reads[i]`: 1 + the highest level of the reductions whose results
/// reduction i reads through the region's elementwise and shape ops.
SmallVector<unsigned>
computeReductionLevels(ArrayRef<Value> results,
                       ArrayRef<SmallVector<Value>> reads);

/// The C parameter declarations of `inputs` (const, restrict) and `outputs`.
SmallVector<std::string> getBufferParameters(ArrayRef<Buffer> inputs,
                                             ArrayRef<Buffer> outputs);

/// The names of `buffers`.
SmallVector<std::string> getBufferNames(ArrayRef<Buffer> buffers);

/// Returns `type name` for every dim.
SmallVector<std::string> getDimParameters(ArrayRef<std::string> dims);

/// The ops of `kernel`'s region that computing its outputs evaluates: those
/// the outputs reach through operands, stopping at input buffers.
llvm::SetVector<Operation *> getEvaluatedOps(const EvalKernel &kernel);

/// Makes every input buffer of `kernel` a leaf of `emitter`, recording it in
/// `buffers`, and maps the region arguments that receive constants.
void addKernelLeaves(ScalarEmitter &emitter, const EvalKernel &kernel,
                     llvm::DenseMap<Value, const Buffer *> &buffers);

/// Reads element `coords` of `buffer` from global memory.
Expr loadElement(ScalarEmitter &emitter, const Buffer &buffer,
                 const Coords &coords);

/// Returns the comment block listing the ops of `body` that compute
/// `values`, one line per op, each line prefixed with `prefix`.
std::string describeOps(Block &body, StringRef prefix);

/// Returns the names of the ops of `body`, comma-separated, for the fusion
/// plan ("matmul, add, relu").
std::string listOpNames(Block &body);

/// The opening lines of a launch function: its signature and "{".
std::string getLaunchSignature(StringRef kernelName,
                               ArrayRef<std::string> parameters);

/// The conditions, in host code, that every pointer in `names` is 16-byte
/// aligned.
SmallVector<std::string> getAlignmentConditions(ArrayRef<std::string> names);

/// `const int <name> = a && b && ...;` at one indent level, one condition
/// per line when they do not fit on one.
std::string formatConjunction(StringRef name, ArrayRef<std::string> terms);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_KERNELEMITTER_H
