//===- HostCode.cpp - Host functions of the C API -------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The host code of `<model>.cu`: the model struct, create (runs @prepare
// once), forward (checks dims and pointers, grows the workspace, runs the
// host body WorkspacePlan.cpp wrote), workspace_bytes, set_workspace,
// destroy, last_error, and the host helpers they use.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "sinter/Dialect/Sinter/IR/SplitReduction.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// `SINTER_RT_TRY(function(args...));` as a statement of a function body,
/// wrapped at 80 columns.
std::string mlir::sinter::cuda::tryCall(StringRef function,
                                        ArrayRef<std::string> args,
                                        unsigned indent) {
  return std::string(2 * indent, ' ') +
         formatList(("SINTER_RT_TRY(" + function + "(").str(), args, "));",
                    indent) +
         "\n";
}

/// `SINTER_RT_TRY(sinter_rt_check_cuda(ctx, call, "what"));`.
std::string mlir::sinter::cuda::tryCuda(StringRef ctx, StringRef call,
                                        StringRef what, unsigned indent) {
  return tryCall("sinter_rt_check_cuda",
                 {ctx.str(), call.str(), quoteCString(what)}, indent);
}

/// The bytes of `count` elements of `type` as a size_t expression.
std::string mlir::sinter::cuda::getBytes(const DimExpr &count, StringRef type) {
  return "static_cast<size_t>(" + count.str() + ") * sizeof(" + type.str() +
         ")";
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
  else if (hasArena())
    text += "  void *arena; // the tickets, unless lent\n";
  if (usesTickets)
    text += "  unsigned *tickets; // split reductions' counters, in the "
            "arena\n";
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

  // The arena: the tickets, each prepared value, then @prepare's scratch.
  const std::string ticketBytes = "sinterAlign(" +
                                  std::to_string(kSplitTargetBlocks) +
                                  " * sizeof(unsigned))";
  SmallVector<std::string> arenaTerms;
  for (const ApiValue &value : prepared)
    arenaTerms.push_back("sinterAlign(" +
                         getBytes(getNumElements(value.shape), "float") + ")");
  if (hasPrepare && prepare.workspaceBytes != "0")
    arenaTerms.push_back(prepare.workspaceBytes);
  if (hasArena()) {
    SmallVector<std::string> terms;
    if (usesTickets)
      terms.push_back(ticketBytes);
    llvm::append_range(terms, arenaTerms);
    text += "/// The device memory of the tickets, the prepared values and "
            "@prepare's\n/// scratch, in bytes.\n";
    text += "size_t " + model + "_arena_bytes() {\n  return " +
            (terms.empty() ? std::string("0")
                           : llvm::join(terms, " +\n         ")) +
            ";\n}\n\n";
  }
  if (hasPrepare) {
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
          (hasArena() ? model + "_arena_bytes()" : std::string("0")) +
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
  if (hasArena()) {
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
    // The tickets start at 0; each launch leaves them so.
    if (usesTickets)
      text += "  if (status == SINTER_OK) {\n"
              "    created->tickets = reinterpret_cast<unsigned *>(arena);\n"
              "    arena += " +
              ticketBytes + ";\n    status = " +
              formatList("sinter_rt_check_cuda(",
                         {"created->ctx",
                          "cudaMemsetAsync(created->tickets, 0, " +
                              ticketBytes + ", stream)",
                          "\"cudaMemsetAsync\""},
                         ");", 2) +
              "\n  }\n";
    if (hasPrepare)
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
  if (hasArena())
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
/// The host helper definitions.
std::string mlir::sinter::cuda::getHostHelper(StringRef name) {
  if (name == "launch_fill")
    return R"(/// Writes `value` to the `n` floats at `out`.
__global__ void sinterFillKernel(float *__restrict__ out, int64_t n,
                                 float value) {
  dev::beginDependentGrid();
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
  sinter::launchDependent(sinterFillKernel, gridBlocks(ctx, n, 256), 256, 0,
                          stream, out, n, value);
  return sinter_rt_check_launch(ctx, "sinterFill");
}
)";
  if (name == "align")
    return "/// Rounds a workspace size up to 256 bytes: every buffer starts "
           "aligned.\nsize_t sinterAlign(size_t bytes) {\n  return (bytes + "
           "255) & ~static_cast<size_t>(255);\n}\n";
  if (name == "column_splits") {
    // getColumnSplits (SplitReduction.h), in the generated host code.
    std::string target = std::to_string(kSplitTargetBlocks);
    std::string wave = std::to_string(kSplitWaveBlocks);
    std::string rows = std::to_string(kSplitRowsPerThread);
    return "/// The slices the rows of a column reduction are split into, for "
           "`blocks` blocks\n/// along the columns whose threads split each "
           "slice into `lanes`: about " +
           target + "\n/// blocks in all, at most " + wave +
           " (a wave) where fewer slices fit in it, and at\n/// least " + rows +
           " rows per thread. A function of the shape only, so that results "
           "do\n/// not depend on the GPU.\n"
           "int64_t sinterColumnSplits(int64_t rows, int64_t lanes, int64_t "
           "blocks) {\n"
           "  int64_t splits = (" +
           target +
           " + blocks - 1) / blocks;\n"
           "  if (splits > 1 && splits * blocks > " +
           wave + ")\n    splits = " + wave + " / blocks > 1 ? " + wave +
           " / blocks : 1;\n"
           "  const int64_t most = (rows + " +
           rows + " * lanes - 1) / (" + rows +
           " * lanes);\n"
           "  splits = splits < most ? splits : most;\n"
           "  return splits < 1 ? 1 : splits > " +
           std::to_string(kMaxSplits) + " ? " + std::to_string(kMaxSplits) +
           " : splits;\n}\n";
  }
  return getDeviceHelper(name);
}
