//===- Gemm.cpp - Library GEMMs and their fused epilogues -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A gemm kernel is one matmul of kernel inputs (transposes of inputs become
// the GEMM's transpose flags) plus an epilogue: the ops that consume its
// result. The matmul runs in cuBLAS through the runtime (row-major,
// operands swapped there; fp32 compute unless --precision says otherwise).
//  - No epilogue: the GEMM writes the output.
//  - `+ bias[N]`, optionally followed by relu or gelu(approximate=tanh):
//    cuBLASLt's BIAS, RELU_BIAS or GELU_BIAS epilogue, exactly those ops.
//  - Anything else: the GEMM writes its product to the workspace and ONE
//    generated kernel reads it once and computes the whole epilogue
//    (pointwise, or a row kernel when the epilogue reduces along rows, or a
//    column kernel when it reduces over the leading dims).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "sinter/Dialect/Sinter/Transforms/SelectGemm.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

namespace {
/// A matmul operand: the kernel input it reads and whether it is used
/// transposed.
struct GemmOperand {
  const Buffer *buffer = nullptr;
  /// The shape the GEMM reads the buffer as: the buffer's, or that of a
  /// reshape of it (row-major, so the same memory).
  Shape shape;
  bool transposed = false;
};

/// The library call of a gemm kernel.
struct GemmPlan {
  MatmulOp matmul;
  GemmOperand lhs, rhs;
  /// Ops of the region that only feed the matmul (transposes of inputs).
  llvm::SmallPtrSet<Operation *, 4> prologue;
  /// The cuBLASLt epilogue, when the epilogue ops match one exactly.
  std::optional<std::string> libraryEpilogue;
  const Buffer *bias = nullptr;
  /// The output the GEMM writes, when the product is an output.
  const Buffer *productOutput = nullptr;
};
} // namespace

/// Finds the buffer a matmul operand reads, through one transpose of the
/// last two dims and one reshape (a view of the contiguous buffer).
static FailureOr<GemmOperand>
resolveOperand(Value operand, const KernelRequest &request,
               const ShapeAnalysis &shapes,
               llvm::SmallPtrSetImpl<Operation *> &prologue) {
  GemmOperand result;
  if (auto transpose = operand.getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    size_t rank = perm.size();
    bool swapsLastTwo = rank >= 2 && perm[rank - 1] == int64_t(rank - 2) &&
                        perm[rank - 2] == int64_t(rank - 1);
    for (size_t d = 0; d + 2 < rank; ++d)
      swapsLastTwo &= perm[d] == int64_t(d);
    if (swapsLastTwo && transpose->hasOneUse()) {
      result.transposed = true;
      prologue.insert(transpose);
      operand = transpose.getInput();
    }
  }
  result.shape = shapes.getShape(operand);
  if (auto reshape = operand.getDefiningOp<ReshapeOp>()) {
    if (llvm::all_of(reshape->getUsers(), [&](Operation *user) {
          return isa<MatmulOp>(user) || prologue.contains(user);
        }))
      prologue.insert(reshape);
    operand = reshape.getInput();
  }
  for (const Buffer &input : request.inputs)
    if (input.value == operand)
      result.buffer = &input;
  if (!result.buffer)
    return emitError(operand.getLoc(),
                     "CUDA emitter: a matmul operand of a gemm kernel must be "
                     "a kernel input (or its transpose or reshape)");
  return result;
}

/// Matches `value = act(product + bias)` with act one of cuBLASLt's
/// epilogues, every intermediate used once; returns the epilogue's name.
static std::optional<std::string>
matchLibraryEpilogue(const KernelRequest &request, GemmPlan &plan) {
  Block &body = request.op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1)
    return std::nullopt;
  Value product = plan.matmul.getResult();
  // Exactly the prologue, the matmul, an add, and at most one activation.
  size_t epilogueOps = 0;
  for (Operation &op : body.without_terminator())
    if (&op != plan.matmul && !plan.prologue.contains(&op))
      ++epilogueOps;
  if (epilogueOps < 1 || epilogueOps > 2 || !product.hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<AddOp>(*product.getUsers().begin());
  if (!add)
    return std::nullopt;
  Value biasValue = add.getLhs() == product ? add.getRhs() : add.getLhs();
  for (const Buffer &input : request.inputs)
    if (input.value == biasValue)
      plan.bias = &input;
  if (!plan.bias)
    return std::nullopt;
  // The bias is one row of N: [N] or [1, N].
  const Shape &bias = plan.bias->shape;
  const Shape &out = request.outputs.front().shape;
  bool isRow = !bias.empty() && bias.back() == out.back() &&
               llvm::all_of(ArrayRef<DimExpr>(bias).drop_back(),
                            [](const DimExpr &d) { return d.isConstant(1); });
  if (!isRow || bias.size() > 2)
    return std::nullopt;
  Value sum = add.getResult();
  if (epilogueOps == 1)
    return yield.getValues().front() == sum
               ? std::optional<std::string>("SINTER_EPILOGUE_BIAS")
               : std::nullopt;
  if (!sum.hasOneUse())
    return std::nullopt;
  Operation *activation = *sum.getUsers().begin();
  if (yield.getValues().front() != activation->getResult(0))
    return std::nullopt;
  if (isa<ReluOp>(activation))
    return "SINTER_EPILOGUE_RELU_BIAS";
  if (auto gelu = dyn_cast<GeluOp>(activation))
    if (gelu.getApproximate() == GeluApproximation::tanh)
      return "SINTER_EPILOGUE_GELU_TANH_BIAS";
  return std::nullopt;
}

/// Returns "SINTER_PRECISION_FP32" and so on.
static std::string getPrecisionName(GemmPrecision precision) {
  switch (precision) {
  case GemmPrecision::F32:
    return "SINTER_PRECISION_FP32";
  case GemmPrecision::TF32:
    return "SINTER_PRECISION_TF32";
  case GemmPrecision::BF16:
    return "SINTER_PRECISION_BF16";
  }
  llvm_unreachable("unknown precision");
}

/// Builds the plan of a gemm kernel.
static FailureOr<GemmPlan> planGemm(const KernelRequest &request,
                                    const ShapeAnalysis &shapes) {
  GemmPlan plan;
  Block &body = request.op.getBody().front();
  for (Operation &op : body) {
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      if (plan.matmul)
        return op.emitError("CUDA emitter: a gemm kernel holds one matmul");
      plan.matmul = matmul;
    }
  }
  if (!plan.matmul)
    return request.op.emitError("CUDA emitter: a gemm kernel has no matmul");
  FailureOr<GemmOperand> lhs =
      resolveOperand(plan.matmul.getLhs(), request, shapes, plan.prologue);
  FailureOr<GemmOperand> rhs =
      resolveOperand(plan.matmul.getRhs(), request, shapes, plan.prologue);
  if (failed(lhs) || failed(rhs))
    return failure();
  plan.lhs = *lhs;
  plan.rhs = *rhs;
  plan.lhs.transposed ^= plan.matmul.getTransposeA();
  plan.rhs.transposed ^= plan.matmul.getTransposeB();
  for (const Buffer &output : request.outputs)
    if (output.value == plan.matmul.getResult() && !plan.productOutput)
      plan.productOutput = &output;
  return plan;
}

namespace {
/// The arguments of one cuBLAS call, as C expressions.
struct GemmCall {
  std::string m, n, k, lda, ldb, strideA, strideB, strideC, batch;
  bool batched = false;
};
} // namespace

/// Computes the GEMM's sizes, leading dims and batch strides.
static GemmCall getGemmCall(const GemmPlan &plan) {
  const Shape &a = plan.lhs.shape, &b = plan.rhs.shape;
  // Stored [.., rows, cols]; op(A) is [M, K], op(B) is [K, N].
  DimExpr aRows = a[a.size() - 2], aCols = a.back();
  DimExpr bRows = b[b.size() - 2], bCols = b.back();
  DimExpr m = plan.lhs.transposed ? aCols : aRows;
  DimExpr k = plan.lhs.transposed ? aRows : aCols;
  DimExpr n = plan.rhs.transposed ? bRows : bCols;
  GemmCall call;
  call.k = k.str();
  call.n = n.str();
  call.lda = aCols.str();
  call.ldb = bCols.str();
  bool batchA = a.size() == 3 && !a[0].isConstant(1);
  bool batchB = b.size() == 3 && !b[0].isConstant(1);
  if (batchA && !batchB && !plan.lhs.transposed) {
    // [Bt, M, K] @ [K, N]: one GEMM with Bt * M rows.
    call.m = (a[0] * m).str();
    return call;
  }
  call.m = m.str();
  if (!batchA && !batchB)
    return call;
  call.batched = true;
  call.batch = (batchA ? a[0] : b[0]).str();
  call.strideA = batchA ? (aRows * aCols).str() : "0";
  call.strideB = batchB ? (bRows * bCols).str() : "0";
  call.strideC = (m * n).str();
  return call;
}

/// The runtime call that computes `target = op(A) op(B)`, as a statement.
static std::string getLibraryCall(const GemmPlan &plan, const GemmCall &call,
                                  StringRef precision, StringRef target) {
  std::string opA = plan.lhs.transposed ? "SINTER_OP_T" : "SINTER_OP_N";
  std::string opB = plan.rhs.transposed ? "SINTER_OP_T" : "SINTER_OP_N";
  SmallVector<std::string> args = {"ctx",  precision.str(), opA,    opB,
                                   call.m, call.n,          call.k, "1.0f"};
  std::string a = plan.lhs.buffer->name, b = plan.rhs.buffer->name;
  std::string function = "sinter_rt_gemm";
  if (call.batched) {
    args.append({a, call.lda, call.strideA, b, call.ldb, call.strideB, "0.0f",
                 target.str(), call.n, call.strideC, call.batch});
    function = "sinter_rt_gemm_batched";
  } else {
    args.append({a, call.lda, b, call.ldb, "0.0f", target.str(), call.n});
    if (plan.libraryEpilogue) {
      args.append({*plan.libraryEpilogue, plan.bias->name});
      function = "sinter_rt_gemm_epilogue";
    }
  }
  return "  " + formatList("SINTER_RT_TRY(" + function + "(", args, "));", 1) +
         "\n";
}

/// The runtime call that computes `target = x w^T` as 3xTF32 (SGEMM where
/// the runtime says so), with X's parts in the scratch at `xParts`.
static std::string getTf32x3Call(const GemmPlan &plan, const GemmCall &call,
                                 StringRef target, StringRef xParts) {
  SmallVector<std::string> args = {
      "ctx",
      call.m,
      call.n,
      call.k,
      "1.0f",
      plan.lhs.buffer->name,
      call.lda,
      plan.rhs.buffer->name,
      call.ldb,
      "0.0f",
      target.str(),
      call.n,
      plan.libraryEpilogue.value_or("SINTER_EPILOGUE_NONE"),
      plan.libraryEpilogue ? plan.bias->name : "nullptr",
      xParts.str()};
  return "  " +
         formatList("SINTER_RT_TRY(sinter_rt_gemm_tf32x3(", args, "));", 1) +
         "\n";
}

/// Whether the gemm kernel of `plan` runs as 3xTF32: sinter-select-gemm
/// marked it, the precision is fp32 with 3xTF32 allowed, and the call is
/// one x w^T (not batched, x as stored, w transposed).
static bool runsTf32x3(const EmitterContext &context,
                       const KernelRequest &request, const GemmPlan &plan,
                       const GemmCall &call) {
  return context.precision == GemmPrecision::F32 &&
         context.fp32Gemm == Fp32Gemm::Tf32x3 &&
         getGemmAlgorithm(request.op) == kTf32x3Algorithm && !call.batched &&
         !plan.lhs.transposed && plan.rhs.transposed;
}

/// True when every reduction of `body` reduces trailing
/// dims; false when some reduces leading ones. std::nullopt: no reduction.
static std::optional<bool> reducesRows(Block &body,
                                       const ShapeAnalysis &shapes) {
  std::optional<bool> rows;
  for (Operation &op : body) {
    std::optional<ReductionInfo> info = getReductionInfo(&op);
    if (!info)
      continue;
    const Shape &shape = shapes.getShape(info->input);
    bool trailing = true;
    int64_t first = *llvm::min_element(info->dims);
    for (int64_t d = first; d < static_cast<int64_t>(shape.size()); ++d)
      trailing &= llvm::is_contained(info->dims, d) || shape[d].isConstant(1);
    rows = rows.value_or(true) && trailing;
  }
  return rows;
}

FailureOr<GeneratedKernel> cuda::generateGemm(EmitterContext &context,
                                              const KernelRequest &request) {
  FailureOr<GemmPlan> maybePlan = planGemm(request, context.shapes);
  if (failed(maybePlan))
    return failure();
  GemmPlan &plan = *maybePlan;
  Block &body = request.op.getBody().front();
  GemmCall call = getGemmCall(plan);
  // The kernel's plan says whether cuBLASLt computes the epilogue.
  KernelPlanAttr kernelPlan = request.op.getPlanAttr();
  if (kernelPlan && kernelPlan.getEpilogue() == EpilogueForm::library) {
    plan.libraryEpilogue = matchLibraryEpilogue(request, plan);
    if (!plan.libraryEpilogue || call.batched)
      return request.op.emitError("CUDA emitter: the plan's library epilogue "
                                  "does not match the kernel");
  }
  bool tf32x3 = runsTf32x3(context, request, plan, call);
  std::string gemmName =
      tf32x3 ? "3xTF32 GEMM (cuBLAS SGEMM off sm_90 or where faster)"
             : "cuBLAS GEMM";

  // The epilogue kernel computes every output the GEMM does not write.
  std::vector<Buffer> epilogueOutputs;
  for (const Buffer &output : request.outputs)
    if (&output != plan.productOutput && !plan.libraryEpilogue)
      epilogueOutputs.push_back(output);

  GeneratedKernel result;
  Buffer product;
  product.name = "product";
  product.value = plan.matmul.getResult();
  product.shape = context.shapes.getShape(product.value);
  std::string target = plan.libraryEpilogue ? request.outputs.front().name
                       : plan.productOutput ? plan.productOutput->name
                                            : "product";

  SmallVector<std::string> parameters =
      getBufferParameters(request.inputs, request.outputs);
  std::string launchBody;
  if (target == "product") {
    result.scratchBytes.push_back("sinterAlign(static_cast<size_t>(" +
                                  getNumElements(product.shape).str() +
                                  ") * sizeof(float))");
    launchBody += "  float *const product = static_cast<float *>(scratch);\n";
  }
  // The 3xTF32 call goes here once its scratch offset is known.
  size_t callPosition = launchBody.size();
  if (!tf32x3)
    launchBody +=
        getLibraryCall(plan, call, getPrecisionName(context.precision), target);

  if (!epilogueOutputs.empty()) {
    EvalKernel epilogue;
    epilogue.name = request.name + "_epilogue";
    epilogue.body = &body;
    epilogue.outputs = epilogueOutputs;
    // Inputs: the product (from the workspace, or from the output that
    // holds it), and the kernel inputs the epilogue reads.
    product.name = target;
    epilogue.inputs.push_back(product);
    for (auto [argument, outer] :
         llvm::zip(body.getArguments(), request.op.getInputs()))
      if (isa_and_nonnull<ConstantOp>(outer.getDefiningOp()))
        epilogue.constantArguments.emplace_back(argument, outer);
    for (const Buffer &input : request.inputs) {
      bool readByEpilogue =
          llvm::any_of(input.value.getUsers(), [&](Operation *user) {
            return user != plan.matmul && !plan.prologue.contains(user);
          });
      if (readByEpilogue)
        epilogue.inputs.push_back(input);
    }
    std::optional<bool> rows = reducesRows(body, context.shapes);
    FailureOr<GeneratedKernel> generated =
        !rows   ? generatePointwise(context, epilogue)
        : *rows ? generateRowReduction(context, epilogue)
                : generateColumnReduction(context, epilogue);
    if (failed(generated))
      return failure();
    result.deviceCode = generated->deviceCode;
    result.launchCode = generated->launchCode + "\n";
    if (!generated->scratchBytes.empty()) {
      // The epilogue's own scratch follows the product.
      llvm::append_range(result.scratchBytes, generated->scratchBytes);
    }
    SmallVector<std::string> arguments = {"ctx", "stream"};
    for (const Buffer &input : epilogue.inputs)
      arguments.push_back(input.name);
    llvm::append_range(arguments, getBufferNames(epilogue.outputs));
    llvm::append_range(arguments, generated->dims);
    if (!generated->scratchBytes.empty()) {
      std::string offset = target == "product"
                               ? "static_cast<char *>(scratch) + "
                                 "sinterAlign(static_cast<size_t>(" +
                                     getNumElements(product.shape).str() +
                                     ") * sizeof(float))"
                               : "scratch";
      arguments.push_back(offset);
    }
    launchBody +=
        "  " +
        formatList("return launch_" + epilogue.name + "(", arguments, ");", 1) +
        "\n";
    result.strategy =
        gemmName + ", then " + epilogue.name + " (" + generated->strategy + ")";
  } else {
    launchBody += "  return SINTER_OK;\n";
    std::string libraryGemm = tf32x3 ? gemmName : "cuBLASLt GEMM";
    result.strategy = plan.libraryEpilogue
                          ? libraryGemm + " with the " +
                                StringRef(*plan.libraryEpilogue)
                                    .drop_front(strlen("SINTER_EPILOGUE_"))
                                    .str() +
                                " epilogue"
                      : call.batched ? "cuBLAS strided batched GEMM"
                                     : gemmName;
  }
  if (tf32x3) {
    // X's TF32 parts follow the product and the epilogue's scratch.
    std::string offset = result.scratchBytes.empty()
                             ? ""
                             : " + " + llvm::join(result.scratchBytes, " + ");
    result.scratchBytes.push_back(
        "sinterAlign(sinter_rt_tf32x3_scratch_bytes(" + call.m + ", " + call.k +
        "))");
    std::string xParts =
        "  void *const xParts =\n      static_cast<char *>(scratch)" + offset +
        ";\n";
    launchBody.insert(callPosition,
                      xParts + getTf32x3Call(plan, call, target, "xParts"));
    result.tf32x3Weight = GeneratedKernel::Tf32x3Weight{
        plan.rhs.buffer->name, call.n, call.k, call.ldb};
  }
  if (!result.scratchBytes.empty())
    context.helpers.insert("align");

  SmallVector<std::string> allDims;
  for (const Buffer &buffer : request.inputs)
    for (const DimExpr &dim : buffer.shape)
      llvm::append_range(allDims, dim.getSymbols());
  for (const Buffer &buffer : request.outputs)
    for (const DimExpr &dim : buffer.shape)
      llvm::append_range(allDims, dim.getSymbols());
  llvm::sort(allDims);
  allDims.erase(std::unique(allDims.begin(), allDims.end()), allDims.end());
  result.dims = findUsedDims(
      launchBody + llvm::join(result.scratchBytes, " + "), allDims);
  llvm::append_range(parameters, getDimParameters(result.dims));
  if (!result.scratchBytes.empty())
    parameters.push_back("void *scratch");
  result.launchCode += getLaunchSignature(request.name, parameters);
  if (launchBody.find("stream") == std::string::npos)
    result.launchCode += "  (void)stream; // cuBLAS runs on the context's "
                         "stream, which is `stream`.\n";
  result.launchCode += launchBody + "}\n";
  return result;
}

FailureOr<GeneratedKernel> cuda::generateMatvec(EmitterContext &context,
                                                const KernelRequest &request) {
  MatmulOp matmul;
  for (Operation &op : request.op.getBody().front())
    if (auto candidate = dyn_cast<MatmulOp>(op)) {
      if (matmul)
        return op.emitError("CUDA emitter: a matvec kernel holds one matmul");
      matmul = candidate;
    }
  if (!matmul)
    return request.op.emitError("CUDA emitter: a matvec kernel has no matmul");
  // One output column: a dot product per row, in a row kernel. Otherwise
  // the library GEMM (cuBLAS picks its GEMV paths for thin products).
  const Shape &shape = context.shapes.getShape(matmul.getResult());
  if (!shape.back().isConstant(1))
    return generateGemm(context, request);
  EvalKernel kernel = makeEvalKernel(request, request.name);
  kernel.dotProducts.push_back(matmul);
  FailureOr<GeneratedKernel> generated = generateRowReduction(context, kernel);
  if (succeeded(generated))
    generated->strategy = "dot product per row: " + generated->strategy;
  return generated;
}
