//===- RunCommand.cpp - sinterc run: execute a model on the CPU -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinterc run <file.sinter|file.mlir> [--model=NAME] [--dim NAME=VALUE ...]
//     [--seed=N] [--inputs a.npy ...] [--params-dir DIR] [--out-dir DIR]
//     [--precision=f32|f64] [--save-inputs DIR] [--print-values]
//
// Symbolic dims take their defaults from the model, then the values given
// with --dim, then the sizes of the .npy inputs (which must agree with any
// --dim). Inputs without --inputs are drawn from randn(), params without
// --params-dir from their init hints, all with --seed. Every output is
// summarized on stdout as
//
//   <name> <type>[<shape>] min=<v> max=<v> mean=<v> fnv1a=<16 hex digits>
//
// where fnv1a is the 64-bit FNV-1a hash of the output's values as
// little-endian float32 (int64 for index outputs), in f64 mode too.
//
//===----------------------------------------------------------------------===//

#include "RunCommand.h"
#include "OutputSummary.h"
#include "RunDims.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"
#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"
#include "sinter/Frontend/Parser.h"
#include "sinter/Interpreter/InitHints.h"
#include "sinter/Interpreter/Interpreter.h"
#include "sinter/Interpreter/Npy.h"
#include "sinter/Support/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::run;

namespace {

/// The category of the options of `sinterc run`: --help shows only these.
cl::OptionCategory &getRunCategory() {
  static cl::OptionCategory category("sinterc run options");
  return category;
}

/// The options of `sinterc run`, registered when this is constructed.
struct RunOptions {
  cl::opt<std::string> inputFilename{
      cl::Positional, cl::desc("<input .sinter or .mlir file>"),
      cl::value_desc("file"), cl::cat(getRunCategory())};
  cl::opt<std::string> modelName{
      "model", cl::desc("The model to run, when the input defines several"),
      cl::value_desc("name"), cl::cat(getRunCategory())};
  cl::list<std::string> dims{
      "dim",
      cl::desc("Set a symbolic dim of the model, e.g. --dim B=4 (repeat "
               "the flag or separate with commas for several); the default "
               "is the value the model declares; 0, for a dim that every "
               "output has, is an empty batch: empty outputs, nothing runs"),
      cl::value_desc("NAME=VALUE"), cl::CommaSeparated,
      cl::cat(getRunCategory())};
  cl::opt<uint64_t> seed{
      "seed",
      cl::desc("Seed of the values drawn for inputs (randn) and params "
               "(their init hints); see sinter/Interpreter/InitHints.h"),
      cl::value_desc("N"), cl::init(0), cl::cat(getRunCategory())};
  cl::list<std::string> inputs{
      "inputs",
      cl::desc("The model's inputs as .npy files (<f4, <f8), one per input "
               "in declaration order: --inputs a.npy b.npy; without it "
               "inputs are drawn from randn()"),
      cl::value_desc("file.npy"), cl::CommaSeparated,
      cl::cat(getRunCategory())};
  cl::opt<std::string> paramsDir{
      "params-dir",
      cl::desc("Read every param from <dir>/<name>.npy instead of drawing "
               "it from its init hint"),
      cl::value_desc("dir"), cl::cat(getRunCategory())};
  cl::opt<std::string> outDir{
      "out-dir",
      cl::desc("Write every output to <dir>/<name>.npy (<f4 in f32 mode, "
               "<f8 in f64 mode, <i8 for indices)"),
      cl::value_desc("dir"), cl::cat(getRunCategory())};
  cl::opt<Precision> precision{
      "precision", cl::desc("The arithmetic of the interpreter"),
      cl::values(clEnumValN(Precision::F32, "f32",
                            "fp32 storage: every op's result is rounded "
                            "to its element type (default)"),
                 clEnumValN(Precision::F64, "f64",
                            "everything in double: the reference for "
                            "accuracy")),
      cl::init(Precision::F32), cl::cat(getRunCategory())};
  cl::opt<std::string> saveInputsDir{
      "save-inputs",
      cl::desc("Write every input and param used to <dir>/<name>.npy "
               "(<f4, or <f8 when a value is not a float32), so that other "
               "programs can reuse the exact data"),
      cl::value_desc("dir"), cl::cat(getRunCategory())};
  cl::opt<bool> printValues{
      "print-values",
      cl::desc("Also print every value of outputs of at most 4096 "
               "elements, one row of the last dim per line"),
      cl::cat(getRunCategory())};
  cl::opt<std::string> batchFile{
      "batch",
      cl::desc("Run every line of <file> as the arguments of one sinterc "
               "run, one after the other in this process (no start-up cost "
               "per run). Each run's output is framed by `sinterc run: batch "
               "line N` and `sinterc run: batch line N exit K` lines on "
               "stdout and stderr; the exit status is the largest K"),
      cl::value_desc("file"), cl::cat(getRunCategory())};
  cl::opt<bool> shortHelp{"h", cl::desc("Alias for --help"),
                          cl::cat(getRunCategory())};
};

} // namespace

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

/// Returns true if `arg` is a .npy file name rather than an option.
static bool isNpyArgument(StringRef arg) {
  return !arg.starts_with("-") && arg.ends_with(".npy");
}

/// Rewrites `--inputs a.npy b.npy` into one `--inputs=<file>` per file: the
/// flag takes every following argument that names a .npy file. Drops
/// argv[1] ("run") so that the rest parses as its own command line.
static SmallVector<std::string> expandInputLists(ArrayRef<StringRef> argv) {
  SmallVector<std::string> args{argv[0].str() + " run"};
  size_t argc = argv.size();
  for (size_t i = 2; i < argc; ++i) {
    StringRef arg = argv[i];
    StringRef flag = arg.take_until([](char c) { return c == '='; });
    if (flag != "--inputs" && flag != "-inputs") {
      args.push_back(arg.str());
      continue;
    }
    if (arg.contains('='))
      args.push_back(arg.str());
    bool any = arg.contains('=');
    for (; i + 1 < argc && isNpyArgument(argv[i + 1]); ++i, any = true)
      args.push_back("--inputs=" + argv[i + 1].str());
    if (!any)
      args.push_back(arg.str());
  }
  return args;
}

/// Returns `<dir>/<name>.npy`.
static std::string getNpyPath(StringRef dir, StringRef name) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name + ".npy");
  return std::string(path);
}

//===----------------------------------------------------------------------===//
// Gathering the arguments
//===----------------------------------------------------------------------===//

/// Reads the .npy files of the inputs and params given on the command line
/// into `tensors` (one slot per model argument) and binds their dims.
static int readArgumentFiles(const RunOptions &options,
                             const ModelSignature &signature,
                             DimBindings &bindings,
                             std::vector<HostTensor> &tensors,
                             SmallVectorImpl<bool> &given) {
  SmallVector<unsigned> inputIndices;
  for (auto [index, value] : llvm::enumerate(signature.arguments))
    if (value.role == ArgumentRole::Input)
      inputIndices.push_back(index);
  if (!options.inputs.empty() && options.inputs.size() != inputIndices.size())
    return fail(ExitUsageError,
                "--inputs gives " + Twine(options.inputs.size()) +
                    " files but model '" + signature.modelName + "' has " +
                    Twine(inputIndices.size()) + " inputs");

  auto load = [&](unsigned index, StringRef path) -> int {
    const ModelValue &value = signature.arguments[index];
    llvm::Expected<HostTensor> data = readNpyFile(path);
    if (!data)
      return fail(ExitInputError, llvm::toString(data.takeError()));
    if (llvm::Error error = bindShape(value, *data, path, bindings))
      return fail(ExitInputError, llvm::toString(std::move(error)));
    tensors[index] = std::move(*data);
    given[index] = true;
    return ExitSuccess;
  };
  for (auto [position, index] : llvm::enumerate(inputIndices))
    if (!options.inputs.empty())
      if (int code = load(index, options.inputs[position]))
        return code;
  if (options.paramsDir.empty())
    return ExitSuccess;
  for (auto [index, value] : llvm::enumerate(signature.arguments)) {
    if (value.role != ArgumentRole::Param)
      continue;
    if (!isSafeFileName(value.name))
      return fail(ExitInputError, "param '" + value.name +
                                      "' cannot name a file in --params-dir");
    if (int code = load(index, getNpyPath(options.paramsDir, value.name)))
      return code;
  }
  return ExitSuccess;
}

/// Draws every argument that no file gave.
static int drawArguments(const RunOptions &options,
                         const ModelSignature &signature,
                         const DimBindings &bindings,
                         std::vector<HostTensor> &tensors,
                         ArrayRef<bool> given) {
  for (auto [index, value] : llvm::enumerate(signature.arguments)) {
    if (given[index])
      continue;
    llvm::Expected<SmallVector<int64_t>> shape =
        getConcreteShape(value, bindings);
    if (!shape)
      return fail(ExitInputError, llvm::toString(shape.takeError()));
    InitHint hint = value.init.value_or(getDefaultInputHint());
    llvm::Expected<HostTensor> data = drawTensor(
        hint, *shape, value.type.getElementType(), options.seed, value.name);
    if (!data)
      return fail(ExitInputError,
                  "'" + value.name + "': " + llvm::toString(data.takeError()));
    tensors[index] = std::move(*data);
  }
  return ExitSuccess;
}

/// Creates `dir` and checks that every value can name a file in it.
static int prepareDirectory(StringRef dir, ArrayRef<ModelValue> values,
                            StringRef what) {
  for (const ModelValue &value : values)
    if (!isSafeFileName(value.name))
      return fail(ExitInputError,
                  what + " '" + value.name + "' cannot name a file in " + dir);
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return fail(ExitInputError,
                "cannot create directory '" + dir + "': " + error.message());
  return ExitSuccess;
}

/// Writes every argument to `<dir>/<name>.npy` (--save-inputs).
static int saveArguments(StringRef dir, const ModelSignature &signature,
                         ArrayRef<HostTensor> tensors) {
  if (int code = prepareDirectory(dir, signature.arguments, "argument"))
    return code;
  for (auto [value, tensor] : llvm::zip(signature.arguments, tensors)) {
    bool isFloat32 =
        isRepresentableAs(tensor, Float32Type::get(value.type.getContext()));
    NpyElementType type = isFloat32 ? NpyElementType::F32 : NpyElementType::F64;
    if (llvm::Error error =
            writeNpyFile(getNpyPath(dir, value.name), tensor, type))
      return fail(ExitInputError, llvm::toString(std::move(error)));
  }
  return ExitSuccess;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

/// Summarizes every output and writes it to --out-dir.
static int emitOutputs(const RunOptions &options,
                       const ModelSignature &signature,
                       ArrayRef<HostTensor> outputs) {
  if (!options.outDir.empty())
    if (int code =
            prepareDirectory(options.outDir, signature.results, "output"))
      return code;
  for (auto [value, tensor] : llvm::zip(signature.results, outputs)) {
    printSummary(llvm::outs(), value, tensor);
    if (options.printValues)
      printValues(llvm::outs(), tensor);
    if (options.outDir.empty())
      continue;
    NpyElementType type = tensor.isInteger ? NpyElementType::I64
                          : options.precision == Precision::F64
                              ? NpyElementType::F64
                              : NpyElementType::F32;
    if (llvm::Error error =
            writeNpyFile(getNpyPath(options.outDir, value.name), tensor, type))
      return fail(ExitInputError, llvm::toString(std::move(error)));
  }
  return ExitSuccess;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Parses the command line `argv` (argv[1] is "run") into the options.
static bool parseCommandLine(ArrayRef<StringRef> argv) {
  SmallVector<std::string> args = expandInputLists(argv);
  SmallVector<const char *> argPointers = llvm::map_to_vector(
      args, [](const std::string &arg) { return arg.c_str(); });
  return cl::ParseCommandLineOptions(
      argPointers.size(), argPointers.data(),
      "sinterc run: execute a model with the reference interpreter\n\n"
      "  Inputs and params come from .npy files or are drawn from the "
      "init hints\n  with --seed; outputs are summarized on stdout and "
      "written with --out-dir.\n  Exit status: 0 success, 1 input error, "
      "2 usage error.\n",
      &llvm::errs());
}

static int runOnce(RunOptions &options);

/// Runs every line of the file `path` as the arguments of one run (--batch).
static int runBatch(RunOptions &options, StringRef path, StringRef tool) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &errorMessage);
  if (!file)
    return fail(ExitInputError, errorMessage);
  SmallVector<StringRef> lines;
  file->getBuffer().split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  int worst = ExitSuccess;
  for (auto [index, line] : llvm::enumerate(lines)) {
    llvm::BumpPtrAllocator allocator;
    llvm::StringSaver saver(allocator);
    SmallVector<const char *> words;
    cl::TokenizeGNUCommandLine(line, saver, words);
    SmallVector<StringRef> argv{tool, "run"};
    argv.append(words.begin(), words.end());
    std::string frame = "sinterc run: batch line " + std::to_string(index + 1);
    llvm::outs() << frame << "\n";
    llvm::outs().flush();
    llvm::errs() << frame << "\n";
    cl::ResetAllOptionOccurrences();
    int code = !parseCommandLine(argv) ? ExitUsageError
               : !options.batchFile.empty()
                   ? fail(ExitUsageError, "--batch in a batch line")
                   : runOnce(options);
    llvm::outs() << frame << " exit " << code << "\n";
    llvm::outs().flush();
    llvm::errs() << frame << " exit " << code << "\n";
    worst = std::max(worst, code);
  }
  return worst;
}

int mlir::sinter::runMain(int argc, char **argv) {
  RunOptions options;
  cl::HideUnrelatedOptions(getRunCategory());
  SmallVector<StringRef> args(argv, argv + argc);
  if (!parseCommandLine(args))
    return ExitUsageError;
  if (options.shortHelp) {
    cl::PrintHelpMessage();
    return ExitSuccess;
  }
  if (!options.batchFile.empty())
    return runBatch(options, options.batchFile, argv[0]);
  return runOnce(options);
}

/// Runs the model of one command line.
static int runOnce(RunOptions &options) {
  std::string inputFilename = options.inputFilename;
  if (inputFilename.empty())
    return fail(ExitUsageError, "no input file; usage: sinterc run [options] "
                                "<file.sinter|file.mlir> (see --help)");
  StringRef extension = llvm::sys::path::extension(inputFilename);
  if (extension != ".sinter" && extension != ".mlir")
    return fail(ExitUsageError,
                "input '" + inputFilename + "' must end in .sinter or .mlir");

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input)
    return fail(ExitInputError, errorMessage);
  DialectRegistry registry;
  registry.insert<SinterDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnosticHandler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module =
      loadModel(sourceMgr, &context, extension == ".mlir", options.modelName);
  if (!module)
    return ExitInputError;
  FailureOr<ModelSignature> signature = getModelSignature(*module);
  if (failed(signature))
    return ExitInputError;

  DimBindings bindings;
  std::vector<HostTensor> tensors(signature->arguments.size());
  SmallVector<bool> given(signature->arguments.size(), false);
  if (int code = applyDimFlags(options.dims, *signature, bindings))
    return code;
  if (int code =
          readArgumentFiles(options, *signature, bindings, tensors, given))
    return code;
  FailureOr<bool> empty = checkEmptyDims(*signature, bindings);
  if (failed(empty))
    return ExitInputError;
  if (int code = drawArguments(options, *signature, bindings, tensors, given))
    return code;
  if (!options.saveInputsDir.empty())
    if (int code = saveArguments(options.saveInputsDir, *signature, tensors))
      return code;

  // An empty batch: every output is empty and nothing runs, as in the C API.
  if (*empty) {
    std::vector<HostTensor> outputs;
    for (const ModelValue &result : signature->results) {
      llvm::Expected<SmallVector<int64_t>> shape =
          getConcreteShape(result, bindings);
      if (!shape)
        return fail(ExitInputError, llvm::toString(shape.takeError()));
      outputs.emplace_back(*shape, result.type.getElementType().isInteger());
    }
    return emitOutputs(options, *signature, outputs);
  }
  Interpreter interpreter(options.precision);
  FailureOr<std::vector<HostTensor>> outputs =
      interpreter.runModel(*module, tensors);
  if (failed(outputs))
    return ExitInputError;
  return emitOutputs(options, *signature, *outputs);
}
