//===- TorchExtension.cpp - PyTorch bridges of generated models -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generates `<model>_torch.cpp` and `<model>_torch.py` from the C API of a
// generated model (CUDAOutput::api). The extension's class Model checks its
// params and creates the C model in memory from PyTorch's caching allocator
// (`<model>_create_in`); Model.forward checks its inputs, derives the
// symbolic dims from them, allocates the outputs (and the workspace) through
// the caching allocator and calls `<model>_forward` on the current CUDA
// stream. Any failure raises RuntimeError through TORCH_CHECK.
//
// The generated code uses the C names of the model's values as parameters
// and locals; its own names (device, guard, params, pointers, stream, status,
// model, bytes, workspace, preparedMemory, Model) are reserved names
// (sinter/Support/Names.h) that no value is given, and its helpers live in
// namespace sinter_torch.
// That namespace is anonymous inside, and the Python class module-local, so
// that the extensions of several models load into one process.
//
//===----------------------------------------------------------------------===//

#include "sinter/Target/CUDA/TorchExtension.h"

#include "CodeWriter.h"
#include "TorchText.h"

#include "sinter/Support/Names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

/// The helpers of every extension: formatting and the checks of a tensor.
static constexpr llvm::StringLiteral kHelpers =
    R"cpp(/// Returns `sizes` as "[3, 4096]".
std::string formatSizes(c10::IntArrayRef sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(sizes[i]);
  return text + "]";
}

/// The device a model runs on: that of `first`, its first param, when it is
/// a CUDA tensor; otherwise (no params, or a first param that the checks
/// will reject) the current CUDA device.
c10::Device getModelDevice(const torch::Tensor *first) {
  if (first && first->defined() && first->is_cuda())
    return first->device();
  return c10::Device(c10::kCUDA, c10::cuda::current_device());
}

/// Checks that `tensor`, the model's `what` ("input 'x'"), is a float32
/// tensor on `device` with `rank` dims, as `shape` ("[B, 4096]") has.
void checkTensor(const torch::Tensor &tensor, const char *what,
                 const c10::Device &device, int64_t rank, const char *shape) {
  TORCH_CHECK(tensor.defined(), what,
              ": expected a tensor, got an undefined one");
  TORCH_CHECK(tensor.device() == device, what, ": expected a CUDA tensor on ",
              device, " (the model's device), got one on ", tensor.device());
  TORCH_CHECK(tensor.scalar_type() == torch::kFloat32, what,
              ": expected scalar type Float (torch.float32), got ",
              tensor.scalar_type());
  // Integers go into messages as strings: an int64_t that TORCH_CHECK
  // streamed crashed extensions built by PyTorch 2.11 with CUDA 13.
  TORCH_CHECK(tensor.dim() == rank, what, ": expected shape ", shape, " (",
              std::to_string(rank),
              " dims), got ", formatSizes(tensor.sizes()));
}

/// Checks that `tensor`, the model's `what`, has the sizes `expected` (the
/// values of `shape`; `origin` tells where its symbolic dims were read, ""
/// when it has none) and is contiguous.
void checkSizes(const torch::Tensor &tensor, const char *what,
                c10::IntArrayRef expected, const char *shape,
                const char *origin) {
  std::string values;
  if (*origin)
    values = " = " + formatSizes(expected) + " (" + origin + ")";
  TORCH_CHECK(tensor.sizes().equals(expected), what, ": expected shape ", shape,
              values, ", got ", formatSizes(tensor.sizes()));
  TORCH_CHECK(tensor.is_contiguous(), what,
              ": expected a contiguous tensor (row-major, as .contiguous() "
              "returns), got strides ",
              formatSizes(tensor.strides()));
}
)cpp";

namespace {
/// Generates the two files of one model's extension.
class TorchEmitter {
public:
  TorchEmitter(const CUDAOutput &output, const CUDAEmitterOptions &options)
      : output(output), api(output.api), model(output.modelName),
        options(options) {
    for (const CUDADimInfo &dim : api.dims)
      dimUserNames[dim.name] = dim.userName;
  }

  std::string getSource();

private:
  /// "float32[B, 4096]" for `tensor`, with the model's dim names.
  std::string describe(const CUDATensorInfo &tensor) const;
  /// `shape` with the model's dim names: "[B, 4096]".
  std::string formatShape(ArrayRef<std::string> shape) const;
  /// The checks of `tensor`, the model's `kind` ("param", "input") named
  /// `variable` in C++, and the declarations of the dims it is the first to
  /// carry, at `indent` levels.
  std::string checkTensor(const CUDATensorInfo &tensor, StringRef kind,
                          StringRef variable, unsigned indent);
  /// A TORCH_CHECK that `status` of <model>_<function> is SINTER_OK, with
  /// the C API's message of the failure.
  std::string checkStatus(StringRef function, StringRef modelArgument) const;
  std::string getConstructor();
  std::string getForward();
  std::string getModule() const;

  const CUDAOutput &output;
  const CUDAModelInterface &api;
  const std::string &model;
  const CUDAEmitterOptions &options;
  /// Dim C name -> the model's name.
  llvm::StringMap<std::string> dimUserNames;
  /// Dims read so far -> where from ("input 'x'").
  llvm::StringMap<std::string> dimOrigins;
};
} // namespace

std::string cuda::wrapComment(StringRef text, StringRef prefix,
                              unsigned indent) {
  std::string start = std::string(indent, ' ') + prefix.str();
  std::string result, line = start;
  SmallVector<StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef word : words) {
    if (line.size() > start.size() && line.size() + 1 + word.size() > 80) {
      result += StringRef(line).rtrim().str() + "\n";
      line = start;
    }
    bool first = line.size() == start.size();
    line += (first && prefix.empty() ? "" : " ") + word.str();
  }
  return result + line + "\n";
}

/// Returns `text` as adjacent C string literals, each line at most 80
/// columns; the lines after the first start after `indent` spaces.
static std::string wrapLiteral(StringRef text, unsigned indent) {
  std::string result, piece;
  SmallVector<StringRef> words;
  text.split(words, ' ');
  size_t width = 80 - indent - 3; // quotes and a separator
  for (auto [index, word] : llvm::enumerate(words)) {
    std::string next = word.str() + (index + 1 < words.size() ? " " : "");
    if (!piece.empty() && piece.size() + next.size() > width) {
      result += quoteCString(piece) + "\n" + std::string(indent, ' ');
      piece.clear();
    }
    piece += next;
  }
  return result + quoteCString(piece);
}

/// Returns `head`, then `items` separated by ", " and filled up to 80
/// columns, then `tail`; the first line starts at column `start`, the next
/// ones at column `column` (as clang-format aligns arguments).
static std::string packAligned(StringRef head, ArrayRef<std::string> items,
                               StringRef tail, size_t start, size_t column) {
  std::string text = head.str();
  size_t width = start + head.size();
  for (auto [index, item] : llvm::enumerate(items)) {
    std::string piece = item + (index + 1 < items.size() ? "," : tail.str());
    bool first = index == 0;
    if (!first && width + 1 + piece.size() > 80) {
      text += "\n" + std::string(column, ' ');
      width = column;
    } else if (!first) {
      text += " ";
      ++width;
    }
    text += piece;
    width += piece.size();
  }
  return items.empty() ? text + tail.str() : text;
}

/// The Python/C++ name of an element type: "float32" or "int64".
static StringRef getDTypeName(StringRef elementType) {
  return elementType == "int64_t" ? "int64" : "float32";
}

/// The torch scalar type of an element type: "torch::kFloat32".
static StringRef getScalarType(StringRef elementType) {
  return elementType == "int64_t" ? "torch::kInt64" : "torch::kFloat32";
}

SmallVector<std::string> cuda::getUserNames(ArrayRef<CUDATensorInfo> tensors) {
  SmallVector<std::string> names;
  for (const CUDATensorInfo &tensor : tensors)
    names.push_back(tensor.userName);
  return names;
}

/// The names of `tensors` in the model, each as a quoted string.
static SmallVector<std::string>
getQuotedUserNames(ArrayRef<CUDATensorInfo> tensors) {
  SmallVector<std::string> names = getUserNames(tensors);
  for (std::string &name : names)
    name = quoteCString(name);
  return names;
}

std::string cuda::getTorchProvenance(const CUDAEmitterOptions &options,
                                     StringRef comment) {
  std::string prefix = comment.str() + " ";
  return prefix + "Source:    " + escapeComment(options.sourceName) + "\n" +
         prefix + "Compiler:  " + options.compilerVersion + "\n" + prefix +
         "Flags:     " +
         (options.flags.empty() ? "(none)" : escapeComment(options.flags)) +
         "\n";
}

std::string TorchEmitter::formatShape(ArrayRef<std::string> shape) const {
  SmallVector<std::string> sizes;
  for (const std::string &size : shape) {
    auto userName = dimUserNames.find(size);
    std::string text = userName != dimUserNames.end() ? userName->second : size;
    if (text.size() > 2 && text.front() == '(' && text.back() == ')')
      text = text.substr(1, text.size() - 2);
    sizes.push_back(text);
  }
  return "[" + llvm::join(sizes, ", ") + "]";
}

std::string TorchEmitter::describe(const CUDATensorInfo &tensor) const {
  return getDTypeName(tensor.elementType).str() + formatShape(tensor.shape);
}

std::string TorchEmitter::checkTensor(const CUDATensorInfo &tensor,
                                      StringRef kind, StringRef variable,
                                      unsigned indent) {
  std::string margin(2 * indent, ' ');
  std::string what = quoteCString((kind + " '" + tensor.userName + "'").str());
  std::string shape = quoteCString(formatShape(tensor.shape));
  std::string text = margin +
                     formatList("sinter_torch::checkTensor(",
                                {variable.str(), what, "device",
                                 std::to_string(tensor.shape.size()), shape},
                                ");", indent) +
                     "\n";
  // The dims this tensor is the first to carry; the origins of all its dims.
  SmallVector<std::string> origins;
  for (auto [index, size] : llvm::enumerate(tensor.shape)) {
    if (!dimUserNames.count(size))
      continue;
    auto [origin, isNew] = dimOrigins.try_emplace(
        size, (kind + " '" + tensor.userName + "'").str());
    if (isNew)
      text += margin + "const int64_t " + size + " = " + variable.str() +
              ".size(" + std::to_string(index) + ");\n";
    std::string from = dimUserNames[size] + " from " + origin->second;
    if (!llvm::is_contained(origins, from))
      origins.push_back(from);
  }
  text += margin +
          formatList("sinter_torch::checkSizes(",
                     {variable.str(), what,
                      "{" + llvm::join(tensor.shape, ", ") + "}", shape,
                      quoteCString(llvm::join(origins, ", "))},
                     ");", indent) +
          "\n";
  return text;
}

/// `<target> = torch::empty(...)`: `bytes` bytes on the model's device from
/// PyTorch's caching allocator.
static std::string allocateBytes(StringRef target, unsigned indent) {
  return formatList(target.str() + " = torch::empty(",
                    {"{static_cast<int64_t>(bytes)}",
                     "torch::dtype(torch::kUInt8).device(device)"},
                    ");", indent);
}

std::string TorchEmitter::checkStatus(StringRef function,
                                      StringRef modelArgument) const {
  return "    " +
         formatList("TORCH_CHECK(",
                    {"status == SINTER_OK",
                     quoteCString(model + "_" + function.str() + " failed: "),
                     "sinter_status_string(status)", "\": \"",
                     model + "_last_error(" + modelArgument.str() + ")"},
                    ");", 2) +
         "\n";
}

std::string TorchEmitter::getConstructor() {
  SmallVector<std::string> parameters;
  std::string doc;
  for (const CUDATensorInfo &param : api.params) {
    parameters.push_back("const torch::Tensor &" + param.name);
    doc += "  ///   " + param.userName + ": " + describe(param) + "\n";
  }
  std::string text =
      wrapComment("Checks the params (float32, contiguous, of their shapes, "
                  "on one CUDA device), keeps them and creates the model on "
                  "the current stream of their device, which computes what "
                  "depends on params alone (@prepare) once. The params must "
                  "not change while the model lives.",
                  "///", 2) +
      doc;
  std::string first =
      api.params.empty() ? "nullptr" : "&" + api.params.front().name;
  text += "  " + formatList("explicit Model(", parameters, ")", 1) + "\n";
  text += "      : device(sinter_torch::getModelDevice(" + first + ")) {\n";
  text += "    c10::cuda::CUDAGuard guard(device);\n";
  for (const CUDATensorInfo &param : api.params)
    text += checkTensor(param, "param", param.name, 2);
  SmallVector<std::string> names;
  for (const CUDATensorInfo &param : api.params)
    names.push_back(param.name);
  if (!names.empty())
    text += "    " + formatList("params = {", names, "};", 2) + "\n";
  text += "    " + model + "_params pointers = {};\n";
  for (const CUDATensorInfo &param : api.params)
    text += "    pointers." + param.name + " = " + param.name +
            ".data_ptr<float>();\n";
  text += "    const cudaStream_t stream = "
          "at::cuda::getCurrentCUDAStream().stream();\n";
  text += "    // The values computed from the params live in memory from "
          "PyTorch's caching\n    // allocator.\n";
  text += "    size_t bytes = 0;\n";
  text += "    sinter_status status = " + model + "_prepared_bytes(&bytes);\n";
  text += checkStatus("prepared_bytes", "nullptr");
  text +=
      "    if (bytes > 0)\n      " + allocateBytes("preparedMemory", 3) + "\n";
  text += "    " +
          formatList("status = " + model + "_create_in(",
                     {"&model", "&pointers",
                      "bytes > 0 ? preparedMemory.data_ptr() : nullptr",
                      "bytes", "stream"},
                     ");", 2) +
          "\n";
  text += checkStatus("create_in", "nullptr");
  text += "  }\n\n";
  return text;
}

std::string TorchEmitter::getForward() {
  SmallVector<std::string> parameters, inputNames, outputNames, outputTypes;
  std::string doc;
  for (const CUDATensorInfo &input : api.inputs) {
    parameters.push_back("const torch::Tensor &" + input.name);
    inputNames.push_back(input.userName);
    doc += "  ///   " + input.userName + ": " + describe(input) + "\n";
  }
  for (const CUDATensorInfo &result : api.outputs) {
    outputNames.push_back(result.name);
    outputTypes.push_back("torch::Tensor");
    doc +=
        "  ///   returns " + result.userName + ": " + describe(result) + "\n";
  }
  std::string returnType = "torch::Tensor";
  std::string text;
  if (api.outputs.size() > 1) {
    returnType = "Outputs";
    text += "  /// The outputs of forward, which Python receives as a tuple.\n";
    text += "  " +
            formatList("using Outputs = std::tuple<", outputTypes, ">;", 1) +
            "\n\n";
  }

  text +=
      wrapComment("Checks the inputs (float32, contiguous, of their shapes, "
                  "on the model's device), allocates the outputs there and "
                  "queues the model on the current CUDA stream.",
                  "///", 2) +
      doc;
  text +=
      "  " + formatList(returnType + " forward(", parameters, ") {", 1) + "\n";
  text += "    c10::cuda::CUDAGuard guard(device);\n";

  // Dims the params carry: read again from the params kept.
  dimOrigins.clear();
  for (auto [index, param] : llvm::enumerate(api.params))
    for (auto [dimIndex, size] : llvm::enumerate(param.shape))
      if (dimUserNames.count(size) &&
          dimOrigins.try_emplace(size, "param '" + param.userName + "'").second)
        text += "    const int64_t " + size + " = params[" +
                std::to_string(index) + "].size(" + std::to_string(dimIndex) +
                ");\n";
  for (const CUDATensorInfo &input : api.inputs)
    text += checkTensor(input, "input", input.name, 2);
  // Dims that no input or param carries (outputs cannot depend on them, but
  // the C API takes every dim): the model's example value.
  for (const CUDADimInfo &dim : api.dims)
    if (!dimOrigins.count(dim.name)) {
      text += "    const int64_t " + dim.name + " = " +
              std::to_string(dim.exampleValue.value_or(1)) +
              "; // no input or param has this dim\n";
      dimOrigins[dim.name] = "the model";
    }

  for (const CUDATensorInfo &result : api.outputs)
    text += "    " +
            formatList("torch::Tensor " + result.name + " = torch::empty(",
                       {"{" + llvm::join(result.shape, ", ") + "}",
                        ("torch::dtype(" + getScalarType(result.elementType) +
                         ").device(device)")
                            .str()},
                       ");", 2) +
            "\n";
  text += "    const cudaStream_t stream = "
          "at::cuda::getCurrentCUDAStream().stream();\n";

  SmallVector<std::string> dimArguments;
  for (const CUDADimInfo &dim : api.dims)
    dimArguments.push_back(dim.name);
  bool lends = api.forwardNeedsWorkspace;
  if (lends) {
    SmallVector<std::string> bytesArguments = dimArguments;
    bytesArguments.push_back("&bytes");
    text += "    // The workspace comes from PyTorch's caching allocator, in "
            "stream order.\n";
    text += "    size_t bytes = 0;\n";
    text += "    " +
            formatList("sinter_status status = " + model + "_workspace_bytes(",
                       bytesArguments, ");", 2) +
            "\n";
    text += checkStatus("workspace_bytes", "nullptr");
    text += "    " + allocateBytes("torch::Tensor workspace", 2) + "\n";
    text += "    " +
            formatList("status = " + model + "_set_workspace(",
                       {"model", "workspace.data_ptr()", "bytes"}, ");", 2) +
            "\n";
    text += checkStatus("set_workspace", "model");
  }

  SmallVector<std::string> arguments = {"model"};
  llvm::append_range(arguments, dimArguments);
  for (const CUDATensorInfo &input : api.inputs)
    arguments.push_back(input.name + ".data_ptr<float>()");
  for (const CUDATensorInfo &result : api.outputs)
    arguments.push_back(result.name + ".data_ptr<" + result.elementType +
                        ">()");
  arguments.push_back("stream");
  text += "    " +
          formatList((lends ? "status = " : "sinter_status status = ") + model +
                         "_forward(",
                     arguments, ");", 2) +
          "\n";
  if (lends)
    text += "    " + model + "_set_workspace(model, nullptr, 0);\n";
  text += checkStatus("forward", "model");
  if (api.outputs.size() == 1)
    text += "    return " + outputNames.front() + ";\n";
  else
    text += "    " +
            formatList("return std::make_tuple(", outputNames, ");", 2) + "\n";
  text += "  }\n\n";
  return text;
}

std::string TorchEmitter::getModule() const {
  SmallVector<std::string> initTypes, paramArgs, inputArgs, dimNames;
  for (const CUDATensorInfo &param : api.params) {
    initTypes.push_back("const torch::Tensor &");
    paramArgs.push_back("py::arg(" + quoteCString(param.userName) + ")");
  }
  for (const CUDATensorInfo &input : api.inputs)
    inputArgs.push_back("py::arg(" + quoteCString(input.userName) + ")");
  for (const CUDADimInfo &dim : api.dims)
    dimNames.push_back(quoteCString(dim.userName));

  std::string text = "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n";
  text += "  m.doc() = " +
          wrapLiteral("Model '" + output.sourceModelName + "' (" + model +
                          ".h), generated by " + options.compilerVersion +
                          " --emit-torch.",
                      12) +
          ";\n";
  text += "  py::class_<sinter_torch::Model>(\n      m, \"Model\", "
          "py::module_local(),\n      " +
          wrapLiteral("Model '" + output.sourceModelName +
                          "' compiled by Sinter: Model(params...) checks the "
                          "params and runs @prepare once; forward(inputs...) "
                          "runs the model on the current CUDA stream.",
                      6) +
          ")\n";
  text += "      .def(" + packAligned("py::init<", initTypes, ">()", 11, 20);
  if (!paramArgs.empty())
    text += ",\n           " + packAligned("", paramArgs, ")", 11, 11);
  else
    text += ")";
  text += "\n";
  for (StringRef method : {"forward", "__call__"}) {
    SmallVector<std::string> def = {quoteCString(method),
                                    "&sinter_torch::Model::forward"};
    llvm::append_range(def, inputArgs);
    StringRef tail = method == "__call__" ? ");" : ")";
    text += "      " + formatList(".def(", def, tail, 3) + "\n";
  }
  for (auto [attribute, names] :
       {std::make_pair("PARAM_NAMES", getQuotedUserNames(api.params)),
        std::make_pair("INPUT_NAMES", getQuotedUserNames(api.inputs)),
        std::make_pair("OUTPUT_NAMES", getQuotedUserNames(api.outputs)),
        std::make_pair("DIMS", dimNames)})
    text += "  " +
            formatList("m.attr(\"" + std::string(attribute) +
                           "\") = py::make_tuple(",
                       names, ");", 1) +
            "\n";
  text += "}\n";
  return text;
}

std::string TorchEmitter::getSource() {
  std::string text;
  text += wrapComment(model + "_torch.cpp: the PyTorch extension of model '" +
                          output.sourceModelName + "', generated by " +
                          options.compilerVersion + ". Do not edit.",
                      "//") +
          "//\n";
  text += getTorchProvenance(options, "//");
  text += "//\n" + wrapComment("Exposes the C API of " + model +
                                   ".h to Python; " + model +
                                   "_torch.py builds and loads it (load()). "
                                   "The module holds:",
                               "//");
  text += "//   Model(*params): creates the model (runs @prepare once)\n";
  for (const CUDATensorInfo &param : api.params)
    text += "//     param  " + param.userName + ": " + describe(param) + "\n";
  text += std::string("//   Model.forward(*inputs) -> ") +
          (api.outputs.size() == 1 ? "the output" : "a tuple of the outputs") +
          "\n";
  for (const CUDATensorInfo &input : api.inputs)
    text += "//     input  " + input.userName + ": " + describe(input) + "\n";
  for (const CUDATensorInfo &result : api.outputs)
    text += "//     output " + result.userName + ": " + describe(result) + "\n";
  text += "//   PARAM_NAMES, INPUT_NAMES, OUTPUT_NAMES, DIMS: tuples of str\n";
  text += "// Tensors live on the GPU of the params (the current device for a "
          "model without\n// params). Every tensor is checked (device, dtype, "
          "shape, contiguity) before\n// anything runs; a mismatch, like a "
          "failed call of the C API, raises\n// RuntimeError naming it. Work "
          "is queued on the current CUDA stream.\n\n";
  text += "#include \"" + model + ".h\"\n\n";
  text += "#include <ATen/cuda/CUDAContext.h>\n#include "
          "<c10/cuda/CUDAGuard.h>\n#include <torch/extension.h>\n\n";
  text += "#include <cstdint>\n#include <string>\n#include <tuple>\n#include "
          "<vector>\n\n";
  text += "namespace sinter_torch {\n// Internal linkage: the extensions of "
          "several models share a process.\n"
          "namespace {\n\n" +
          kHelpers.str() + "\n";
  text += wrapComment("Model '" + output.sourceModelName +
                          "' on one CUDA device: the C model (" + model +
                          ".h) and the params it reads, kept alive.",
                      "///") +
          "class Model {\npublic:\n";
  text += getConstructor();
  text += "  Model(const Model &) = delete;\n  Model &operator=(const Model &) "
          "= delete;\n\n";
  text += "  /// Destroys the C model, which waits for its work to finish.\n";
  text += "  ~Model() {\n    c10::cuda::CUDAGuard guard(device);\n    " +
          model + "_destroy(model);\n  }\n\n";
  text += getForward();
  text += "private:\n";
  text += "  c10::Device device;\n";
  text += "  std::vector<torch::Tensor> params;\n";
  text +=
      "  torch::Tensor preparedMemory; // lent to " + model + "_create_in\n";
  text += "  " + model + " *model = nullptr;\n";
  text += "};\n\n} // namespace\n} // namespace sinter_torch\n\n";
  text += getModule();
  return text;
}

std::string
mlir::sinter::getTorchExtensionSource(const CUDAOutput &output,
                                      const CUDAEmitterOptions &options) {
  return TorchEmitter(output, options).getSource();
}
