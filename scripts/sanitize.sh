#!/usr/bin/env bash
#===- sanitize.sh - Run the lit suite under ASan and UBSan ----------------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
#===----------------------------------------------------------------------===#
#
# Usage: scripts/sanitize.sh [LIT ARGS...]
#
# Configures build-sanitize/ with -DSINTER_SANITIZE=address,undefined (or the
# list in SANITIZE), builds it, and runs the whole lit suite with its tools
# (scripts/test.sh with BUILD_DIR=build-sanitize): every sinterc, sinter-opt
# and interpreter run of every test is checked for memory errors and
# undefined behaviour, and a finding aborts that tool, so its test fails.
# The last line is `N passed, N failed`. Slow: the build does not share
# build/'s ccache entries, and the suite runs several times slower.
#
# Environment: CXX, CC (default: CMake's choice), MLIR_DIR, JOBS (default 2),
# SANITIZE (default address,undefined).
#
#===----------------------------------------------------------------------===#

set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-sanitize"

options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}"
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
  -DSINTER_SANITIZE="${SANITIZE:-address,undefined}")
[[ -n "${CXX:-}" ]] && options+=("-DCMAKE_CXX_COMPILER=$CXX")
[[ -n "${CC:-}" ]] && options+=("-DCMAKE_C_COMPILER=$CC")
command -v ccache >/dev/null && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if ! cmake -G Ninja -S "$root" -B "$build" "${options[@]}" >/dev/null; then
  echo "sanitize.sh: configuring $build failed" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

# libMLIR.so's process-lifetime singletons are never freed; they are not
# Sinter's leaks, so LeakSanitizer is off. The system libMLIR.so is not
# instrumented, but LLVM's headers poison and unpoison BumpPtrAllocator slabs
# inline in code built with ASan (LLVM_ADDRESS_SANITIZER_BUILD, which cannot
# be overridden): memory that Sinter's inlined copy poisoned is handed out by
# libMLIR's uninstrumented copy, and reading it is reported as a
# use-after-poison that is not one. allow_user_poisoning=0 turns that manual
# poisoning off; heap, stack and global accesses stay checked. Every other
# finding aborts.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
BUILD_DIR="$build" JOBS="${JOBS:-2}" exec "$root/scripts/test.sh" "$@"
