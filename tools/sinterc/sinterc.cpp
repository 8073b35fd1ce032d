//===- sinterc.cpp - The Sinter compiler driver ---------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// sinterc [options] <file.sinter|file.mlir>
//
// Reads a model (.sinter text, or MLIR in the sinter dialect), lowers it,
// runs the Sinter pipeline as far as the stage chosen by -emit needs
// (mlir, simplified, fused, cuda: the default) and writes that stage. Exit
// status: 0 on success, 1 for errors in the input, 2 for usage errors (unknown
// flag, missing input, bad option value, unknown model).
//
//===----------------------------------------------------------------------===//

#include "RunCommand.h"

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/Transforms/FusionPlan.h"
#include "sinter/Dialect/Sinter/Transforms/Passes.h"
#include "sinter/Frontend/Parser.h"
#include "sinter/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
using namespace mlir;

namespace {

/// The exit status of sinterc.
enum ExitCode : int {
  ExitSuccess = 0,
  /// The input does not parse, type-check or verify, or cannot be read.
  ExitInputError = 1,
  /// The command line is wrong.
  ExitUsageError = 2,
};

/// The stages sinterc can print, in pipeline order.
enum class EmitAction {
  /// The model lowered to the sinter dialect.
  MLIR,
  /// Decomposed and simplified, param-only work hoisted into @prepare.
  Simplified,
  /// Grouped into sinter.kernel regions: the fusion plan.
  Fused,
  /// The generated CUDA source and C header.
  CUDA,
};

/// The option groups --help shows; everything else that libMLIR registers
/// (LLVM backend flags) is hidden.
cl::OptionCategory &getSintercCategory() {
  static cl::OptionCategory category("sinterc options");
  return category;
}
cl::OptionCategory &getMLIRCategory() {
  static cl::OptionCategory category(
      "MLIR options (context, printing, pass manager, timing)");
  return category;
}

/// The options of compile mode. They are registered when this is
/// constructed, so that a subcommand can register options of its own.
struct CompileOptions {
  cl::opt<std::string> inputFilename{
      cl::Positional, cl::desc("<input .sinter or .mlir file>"),
      cl::value_desc("file"), cl::cat(getSintercCategory())};
  cl::opt<std::string> outputPath{
      "o",
      cl::desc("Where to write the output: a directory that receives "
               "<model>.cu and <model>.h (-emit=cuda) or <model>.mlir, "
               "<model>.simplified.mlir, <model>.fused.mlir; or a file "
               "(MLIR stages); '-' (the default) is stdout"),
      cl::value_desc("dir|file"), cl::init("-"), cl::cat(getSintercCategory())};
  cl::opt<EmitAction> emitAction{
      "emit", cl::desc("The stage to print"),
      cl::values(clEnumValN(EmitAction::MLIR, "mlir",
                            "the model lowered to the sinter dialect "
                            "(func.func @forward), verified"),
                 clEnumValN(EmitAction::Simplified, "simplified",
                            "after sinter-decompose, sinter-simplify and "
                            "sinter-hoist-params: @forward and @prepare"),
                 clEnumValN(EmitAction::Fused, "fused",
                            "after sinter-stage-reductions, "
                            "sinter-form-kernels and sinter-plan-kernels: "
                            "every op inside a planned sinter.kernel region"),
                 clEnumValN(EmitAction::CUDA, "cuda",
                            "<model>.cu and <model>.h (into the -o directory; "
                            "both to stdout without -o); the default")),
      cl::init(EmitAction::CUDA), cl::cat(getSintercCategory())};
  cl::opt<sinter::FpMode> fpMode{
      "fp-mode",
      cl::desc("Which algebraic rewrites may change floating-point results"),
      cl::values(clEnumValN(sinter::FpMode::Strict, "strict",
                            "value-preserving rewrites only"),
                 clEnumValN(sinter::FpMode::Fast, "fast",
                            "also reassociate and assume finite values: "
                            "x - x = 0 and x * 0 = 0 even where x is inf or "
                            "NaN (the default)")),
      cl::init(sinter::FpMode::Fast), cl::cat(getSintercCategory())};
  cl::opt<bool> printFusionPlan{
      "print-fusion-plan",
      cl::desc("With -emit=fused or -emit=cuda: print the rewrites that "
               "fired and the fusion plan (each kernel, its kind, ops, "
               "inputs, outputs, estimated bytes and FLOPs; constant results "
               "that no kernel computes) to stdout, before any output "
               "written there"),
      cl::cat(getSintercCategory())};
  cl::opt<std::string> modelName{
      "model", cl::desc("The model to compile, when the input defines several"),
      cl::value_desc("name"), cl::cat(getSintercCategory())};
  cl::opt<bool> shortHelp{"h", cl::desc("Alias for --help"),
                          cl::cat(getSintercCategory())};
  cl::opt<bool> listBuiltins{
      "list-builtins",
      cl::desc("Print the builtin functions of the .sinter language (the "
               "table of docs/language.md: signature with defaults, the "
               "PyTorch function each mirrors) and exit"),
      cl::cat(getSintercCategory())};
  cl::opt<sinter::GemmPrecision> precision{
      "precision", cl::desc("The arithmetic of generated GEMMs (-emit=cuda)"),
      cl::values(clEnumValN(sinter::GemmPrecision::F32, "f32",
                            "fp32 (CUBLAS_COMPUTE_32F, TF32 off)"),
                 clEnumValN(sinter::GemmPrecision::TF32, "tf32",
                            "TF32 tensor cores, fp32 accumulation"),
                 clEnumValN(sinter::GemmPrecision::BF16, "bf16",
                            "bf16 tensor cores, fp32 accumulation")),
      cl::init(sinter::GemmPrecision::F32), cl::cat(getSintercCategory())};
  cl::opt<sinter::Fp32Gemm> fp32Gemm{
      "fp32-gemm",
      cl::desc("With --precision=f32: how fp32 GEMMs with a param weight run "
               "(-emit=fused, -emit=cuda)"),
      cl::values(
          clEnumValN(sinter::Fp32Gemm::Tf32x3, "3xtf32",
                     "3xTF32 tensor cores at fp32 accuracy on sm_90, cuBLAS "
                     "SGEMM elsewhere (the default)"),
          clEnumValN(sinter::Fp32Gemm::Sgemm, "sgemm",
                     "always cuBLAS SGEMM (CUBLAS_COMPUTE_32F)")),
      cl::init(sinter::Fp32Gemm::Tf32x3), cl::cat(getSintercCategory())};
  cl::opt<bool> embedRuntime{
      "embed-runtime",
      cl::desc("With -emit=cuda: also copy the Sinter runtime and write a "
               "CMakeLists.txt, so that the -o directory builds on its own"),
      cl::cat(getSintercCategory())};
  cl::opt<bool> emitTorch{
      "emit-torch",
      cl::desc("With -emit=cuda -o <dir>: also write <model>_torch.cpp, a "
               "PyTorch C++ extension of the model, and <model>_torch.py, "
               "which builds and loads it; embeds the runtime as "
               "--embed-runtime does (docs/torch-extension.md)"),
      cl::cat(getSintercCategory())};
  cl::opt<std::string> runtimeDir{
      "runtime-dir",
      cl::desc("The runtime sources that --embed-runtime and --emit-torch "
               "copy"),
      cl::value_desc("dir"), cl::init(SINTER_RUNTIME_DIR),
      cl::cat(getSintercCategory())};
};

} // namespace

static void printVersion(llvm::raw_ostream &os) {
  os << "sinterc " << SINTER_VERSION << "\n";
}

/// Files MLIR's standard options (-mlir-*) under their own --help heading
/// and hides the LLVM options that libMLIR registers but sinterc ignores.
static void organizeHelp() {
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-"))
      entry.second->addCategory(getMLIRCategory());
  cl::HideUnrelatedOptions({&getSintercCategory(), &getMLIRCategory()});
}

/// Prints a usage error and returns its exit code.
static int usageError(const llvm::Twine &message) {
  llvm::errs() << "sinterc: error: " << message << "\n";
  return ExitUsageError;
}

/// Checks that the input names exactly one model (by `modelName` when set);
/// errors are usage errors since the command line must change.
static int checkModelChoice(ArrayRef<std::string> models, StringRef modelName,
                            StringRef inputFilename) {
  std::string available = llvm::join(models, ", ");
  if (!modelName.empty() && !llvm::is_contained(models, modelName))
    return usageError("no model named '" + modelName + "' in " + inputFilename +
                      "; it defines: " + available);
  if (modelName.empty() && models.size() > 1)
    return usageError(inputFilename + " defines " + llvm::Twine(models.size()) +
                      " models; choose one with --model=<name>: " + available);
  return ExitSuccess;
}

/// Returns the file to write for a model: `outputPath` itself, or
/// `<outputPath>/<model>.<extension>` when it names a directory.
static std::string getOutputFile(StringRef outputPath, StringRef model,
                                 StringRef extension) {
  bool isDirectory = llvm::sys::fs::is_directory(outputPath) ||
                     llvm::sys::path::is_separator(outputPath.back());
  if (outputPath == "-" || !isDirectory)
    return outputPath.str();
  llvm::SmallString<128> path(outputPath);
  llvm::sys::path::append(path, model + "." + extension);
  return std::string(path);
}

/// Writes `module` to `path` ('-' for stdout).
static int writeModule(ModuleOp module, StringRef path) {
  std::string errorMessage;
  if (path != "-") {
    StringRef parent = llvm::sys::path::parent_path(path);
    if (!parent.empty())
      if (std::error_code error = llvm::sys::fs::create_directories(parent))
        return llvm::errs() << "sinterc: error: cannot create directory '"
                            << parent << "': " << error.message() << "\n",
               ExitInputError;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(path, &errorMessage);
  if (!output) {
    llvm::errs() << "sinterc: error: " << errorMessage << "\n";
    return ExitInputError;
  }
  module.print(output->os(), OpPrintingFlags());
  output->os() << "\n";
  output->keep();
  return ExitSuccess;
}

/// The last pipeline stage that `action` needs, or nullopt when it prints
/// the model as lowered.
static std::optional<sinter::PipelineStage> getLastStage(EmitAction action) {
  switch (action) {
  case EmitAction::MLIR:
    return std::nullopt;
  case EmitAction::Simplified:
    return sinter::PipelineStage::HoistParams;
  case EmitAction::Fused:
  case EmitAction::CUDA:
    return sinter::PipelineStage::FormKernels;
  }
  llvm_unreachable("unknown -emit action");
}

/// The file name suffix of the MLIR stages: <model>.<suffix>.
static StringRef getStageExtension(EmitAction action) {
  switch (action) {
  case EmitAction::Simplified:
    return "simplified.mlir";
  case EmitAction::Fused:
    return "fused.mlir";
  default:
    return "mlir";
  }
}

/// Whether the fp32 GEMMs that can run as 3xTF32 are marked to
/// (sinter-select-gemm).
static bool selectsTf32x3(const CompileOptions &options) {
  return options.precision == sinter::GemmPrecision::F32 &&
         options.fp32Gemm == sinter::Fp32Gemm::Tf32x3;
}

/// Runs the Sinter pipeline up to `stage` on `module` and, after kernel
/// formation, sinter-select-gemm when `selectGemm`; of a module that already
/// holds kernels (a .mlir input that was fused before, whose GEMM choices are
/// kept), only plans the kernels that have no plan.
static int runPipeline(ModuleOp module, sinter::PipelineStage stage,
                       sinter::FpMode fpMode, bool selectGemm) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return ExitUsageError;
  if (sinter::isFusedModel(module)) {
    pm.addPass(sinter::createSinterPlanKernels());
    return succeeded(pm.run(module)) ? ExitSuccess : ExitInputError;
  }
  sinter::SinterPipelineOptions pipelineOptions;
  pipelineOptions.stopAfter = stage;
  pipelineOptions.fpMode = fpMode;
  sinter::buildSinterPipeline(pm, pipelineOptions);
  if (selectGemm && stage == sinter::PipelineStage::FormKernels)
    pm.addPass(sinter::createSinterSelectGemm());
  if (failed(pm.run(module)))
    return ExitInputError;
  return ExitSuccess;
}

/// Checks the flags that only make sense together; returns the usage error's
/// exit code, or ExitSuccess.
static int checkOptionCombinations(const CompileOptions &options) {
  if (options.printFusionPlan &&
      getLastStage(options.emitAction) != sinter::PipelineStage::FormKernels)
    return usageError("--print-fusion-plan needs -emit=fused or -emit=cuda");
  if (options.fp32Gemm.getNumOccurrences() &&
      options.precision != sinter::GemmPrecision::F32)
    return usageError("--fp32-gemm needs --precision=f32");
  if (options.emitAction != EmitAction::CUDA && options.embedRuntime)
    return usageError("--embed-runtime needs -emit=cuda");
  if (options.emitAction != EmitAction::CUDA && options.emitTorch)
    return usageError("--emit-torch needs -emit=cuda");
  if (options.embedRuntime && options.outputPath == "-")
    return usageError("--embed-runtime needs an output directory (-o <dir>)");
  if (options.emitTorch && options.outputPath == "-")
    return usageError("--emit-torch needs an output directory (-o <dir>)");
  return ExitSuccess;
}

/// -emit=cuda: generates the model's CUDA source and header from a fused
/// module.
static int emitCUDA(ModuleOp module, const CompileOptions &options) {
  sinter::CUDAEmitterOptions emitterOptions;
  emitterOptions.precision = options.precision;
  emitterOptions.fp32Gemm = options.fp32Gemm;
  emitterOptions.sourceName = options.inputFilename;
  emitterOptions.compilerVersion = "sinterc " SINTER_VERSION;
  emitterOptions.flags =
      "-emit=cuda --precision=" +
      sinter::stringifyGemmPrecision(options.precision).str() +
      (options.fpMode == sinter::FpMode::Strict ? " --fp-mode=strict" : "") +
      (options.fp32Gemm == sinter::Fp32Gemm::Sgemm ? " --fp32-gemm=sgemm"
                                                   : "") +
      (options.embedRuntime ? " --embed-runtime" : "") +
      (options.emitTorch ? " --emit-torch" : "");
  emitterOptions.emitTorch = options.emitTorch;
  FailureOr<sinter::CUDAOutput> output =
      sinter::emitCUDA(module, emitterOptions);
  if (failed(output))
    return ExitInputError;
  if (options.outputPath == "-") {
    sinter::printCUDAOutput(llvm::outs(), *output);
    return ExitSuccess;
  }
  std::optional<StringRef> runtime;
  if (options.embedRuntime || options.emitTorch)
    runtime = StringRef(options.runtimeDir);
  if (failed(sinter::writeCUDAOutput(module.getContext(), *output,
                                     options.outputPath, runtime)))
    return ExitInputError;
  return ExitSuccess;
}

/// Returns whether the command line named the registered option `name`.
static bool isOptionGiven(StringRef name) {
  auto &options = cl::getRegisteredOptions();
  auto it = options.find(name);
  return it != options.end() && it->second->getNumOccurrences() > 0;
}

/// Compile mode: sinterc [options] <file.sinter|file.mlir>.
static int compileMain(int argc, char **argv) {
  CompileOptions options;
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  organizeHelp();
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "sinterc: the Sinter compiler\n\n"
          "  Reads a model (.sinter, or .mlir in the sinter dialect), runs the "
          "Sinter pipeline\n  and writes the stage chosen by -emit (CUDA by "
          "default):\n\n"
          "    sinterc model.sinter -o gen/          gen/<model>.cu, "
          "gen/<model>.h\n"
          "    sinterc model.sinter -emit=fused      the kernels, as MLIR\n"
          "    sinterc run model.sinter              run it on the CPU "
          "(see sinterc run --help)\n\n"
          "  Exit status: 0 success, 1 input error, 2 usage error.\n",
          &llvm::errs()))
    return ExitUsageError;
  if (options.shortHelp) {
    cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
    return ExitSuccess;
  }
  if (options.listBuiltins) {
    sinter::printBuiltinReference(llvm::outs());
    return ExitSuccess;
  }

  if (int code = checkOptionCombinations(options))
    return code;

  std::string inputFilename = options.inputFilename;
  if (inputFilename.empty())
    return usageError("no input file; usage: sinterc [options] "
                      "<file.sinter|file.mlir> (see --help)");
  StringRef extension = llvm::sys::path::extension(inputFilename);
  if (extension != ".sinter" && extension != ".mlir")
    return usageError("input '" + inputFilename +
                      "' must end in .sinter or .mlir");
  bool isMLIR = extension == ".mlir";

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "sinterc: error: " << errorMessage << "\n";
    return ExitInputError;
  }

  DialectRegistry registry;
  registry.insert<sinter::SinterDialect, func::FuncDialect>();
  MLIRContext context(registry);
  // An error quotes the user's line (file:line:col); MLIR's dump of the
  // failing op is for compiler developers, who ask for it by its flag.
  if (!isOptionGiven("mlir-print-op-on-diagnostic"))
    context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnosticHandler(sourceMgr, &context);

  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();

  TimingScope parseTiming = timing.nest("Parse");
  FailureOr<SmallVector<std::string>> models =
      sinter::listModels(sourceMgr, &context, isMLIR);
  if (failed(models))
    return ExitInputError;
  if (int code = checkModelChoice(*models, options.modelName, inputFilename))
    return code;
  OwningOpRef<ModuleOp> module =
      sinter::loadModel(sourceMgr, &context, isMLIR, options.modelName);
  if (!module)
    return ExitInputError;
  parseTiming.stop();

  std::string modelName = module->getSymName().value_or("model").str();
  std::optional<sinter::PipelineStage> lastStage =
      getLastStage(options.emitAction);
  if (lastStage) {
    TimingScope pipelineTiming = timing.nest("Pipeline");
    if (int code = runPipeline(*module, *lastStage, options.fpMode,
                               selectsTf32x3(options)))
      return code;
  }
  if (options.printFusionPlan) {
    sinter::printFusionPlan(*module, llvm::outs());
    llvm::outs().flush();
  }

  TimingScope outputTiming = timing.nest("Output");
  if (options.emitAction == EmitAction::CUDA)
    return emitCUDA(*module, options);
  return writeModule(*module,
                     getOutputFile(options.outputPath, modelName,
                                   getStageExtension(options.emitAction)));
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::SetVersionPrinter(printVersion);
  // Subcommands (`sinterc <name> ...`) are dispatched here on argv[1],
  // before any option is parsed; every other command line is compile mode.
  if (argc > 1 && StringRef(argv[1]) == "run")
    return sinter::runMain(argc, argv);
  return compileMain(argc, argv);
}
