//===- RunCommand.h - sinterc run: execute a model on the CPU ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `sinterc run <file> [options]` loads a model, gathers its inputs and
// params (from .npy files, or drawn from the init hints with a seed; see
// sinter/Interpreter/InitHints.h), runs it with the reference interpreter
// and writes and summarizes its outputs.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TOOLS_SINTERC_RUNCOMMAND_H
#define SINTER_TOOLS_SINTERC_RUNCOMMAND_H

namespace mlir::sinter {

/// Runs `sinterc run`. `argv` is the whole command line (argv[1] is "run").
/// Returns 0 on success, 1 for errors in the input (model, .npy files, dim
/// values, run-time shape errors) and 2 for usage errors.
int runMain(int argc, char **argv);

} // namespace mlir::sinter

#endif // SINTER_TOOLS_SINTERC_RUNCOMMAND_H
