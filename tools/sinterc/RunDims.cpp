//===- RunDims.cpp - sinterc run: dims and shapes of a model --------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "RunDims.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::run;

/// Prints an error of `sinterc run` and returns `code`.
int run::fail(int code, const Twine &message) {
  llvm::errs() << "sinterc run: error: " << message << "\n";
  return code;
}

/// Returns true if every output of the model has the symbolic dim `name`:
/// with it 0, every output is empty (an empty batch), the rule of the C
/// API's forward.
static bool emptiesEveryOutput(const ModelSignature &signature,
                               StringRef name) {
  return !signature.results.empty() &&
         llvm::all_of(signature.results, [&](const ModelValue &result) {
           return llvm::is_contained(result.dimNames, name);
         });
}

int run::applyDimFlags(ArrayRef<std::string> flags,
                       const ModelSignature &signature, DimBindings &bindings) {
  for (const auto &[name, value] : signature.dims)
    bindings.values[name] = value;
  for (StringRef flag : flags) {
    auto [name, text] = flag.split('=');
    if (!flag.contains('=') || name.empty())
      return fail(ExitUsageError,
                  "--dim expects NAME=VALUE, got '" + flag + "'");
    if (!bindings.values.count(name)) {
      std::string known;
      for (const auto &dim : signature.dims)
        known += (known.empty() ? "" : ", ") + dim.first;
      return fail(ExitUsageError,
                  "--dim " + flag + ": model '" + signature.modelName +
                      "' has no dim named '" + name + "'" +
                      (known.empty() ? Twine("") : "; its dims: " + known));
    }
    int64_t value = 0;
    if (text.getAsInteger(10, value) || value < 0 || value > kMaxTensorElements)
      return fail(ExitInputError, "--dim " + flag +
                                      ": the value must be an "
                                      "integer from 0 to " +
                                      Twine(kMaxTensorElements));
    bindings.values[name] = value;
    bindings.setBy[name] = ("--dim " + flag).str();
  }
  return ExitSuccess;
}

FailureOr<bool> run::checkEmptyDims(const ModelSignature &signature,
                                    const DimBindings &bindings) {
  bool empty = false;
  for (const auto &[name, value] : bindings.values) {
    if (value != 0)
      continue;
    if (!emptiesEveryOutput(signature, name)) {
      auto setBy = bindings.setBy.find(name);
      fail(ExitInputError, (setBy == bindings.setBy.end() ? Twine("the model")
                                                          : setBy->second) +
                               " sets " + name +
                               " = 0, but only a dim that every output "
                               "has may be 0 (an empty batch)");
      return failure();
    }
    empty = true;
  }
  return empty;
}

/// Formats the declared type of `value`, symbolic dims by name: f32[B, 16].
static std::string formatDeclaredType(const ModelValue &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value.type.getElementType() << '[';
  for (auto [index, dim] : llvm::enumerate(value.type.getShape())) {
    if (index)
      os << ", ";
    if (!value.dimNames[index].empty())
      os << value.dimNames[index];
    else if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  }
  os << ']';
  return text;
}

llvm::Error run::bindShape(const ModelValue &value, const HostTensor &data,
                           StringRef source, DimBindings &bindings) {
  auto mismatch = [&]() {
    return llvm::createStringError(
        source + ": '" + value.name + "' has shape " + formatShape(data.shape) +
        " but the model declares " + formatDeclaredType(value));
  };
  if (data.isInteger)
    return llvm::createStringError(
        source + ": '" + value.name + "' is declared " +
        formatDeclaredType(value) + " but the file holds int64 data");
  if (data.shape.size() != value.dimNames.size())
    return mismatch();
  for (auto [index, size] : llvm::enumerate(data.shape)) {
    int64_t declared = value.type.getDimSize(index);
    StringRef name = value.dimNames[index];
    if (!ShapedType::isDynamic(declared) && declared != size)
      return mismatch();
    if (name.empty())
      continue;
    auto setBy = bindings.setBy.find(name);
    if (setBy != bindings.setBy.end() && bindings.values[name] != size)
      return llvm::createStringError(
          source + ": '" + value.name + "' has " + name + " = " +
          std::to_string(size) + " but " + setBy->second + " sets " + name +
          " = " + std::to_string(bindings.values[name]));
    bindings.values[name] = size;
    bindings.setBy[name] = source.str();
  }
  return llvm::Error::success();
}

llvm::Expected<SmallVector<int64_t>>
run::getConcreteShape(const ModelValue &value, const DimBindings &bindings) {
  SmallVector<int64_t> shape;
  for (auto [index, declared] : llvm::enumerate(value.type.getShape())) {
    StringRef name = value.dimNames[index];
    if (!name.empty() && bindings.values.count(name)) {
      shape.push_back(bindings.values.lookup(name));
    } else if (!ShapedType::isDynamic(declared)) {
      shape.push_back(declared);
    } else {
      return llvm::createStringError(
          "'" + value.name + "' has dynamic dim " + std::to_string(index) +
          (name.empty() ? std::string(" without a name")
                        : " named '" + name.str() +
                              "', which the model does "
                              "not declare") +
          "; give its data as a .npy file");
    }
  }
  return shape;
}
