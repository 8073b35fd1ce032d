#!/usr/bin/env bash
#===- fuzz-parser.sh - Fuzz the .sinter frontend for a bounded time -------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
#===----------------------------------------------------------------------===#
#
# Usage: scripts/fuzz-parser.sh [SECONDS]   (default 60)
#
# Builds tools/sinter-fuzz-parser with clang, libFuzzer and AddressSanitizer
# in build-fuzz/ and runs it for SECONDS on the seed corpus: fuzz/corpus/,
# examples/ and the frontend's lit tests. Exits non-zero on any crash, leak,
# timeout or out-of-memory; the input that caused it is written to
# build-fuzz/fuzz-artifacts/ (turn it into a test under test/Frontend/).
#
# Needs clang and its fuzzer runtime (Debian: clang, libclang-rt-14-dev or
# the libclang-rt-dev of the installed clang). Environment: CXX, CC (default
# clang++, clang), MLIR_DIR, JOBS (default 2).
#
#===----------------------------------------------------------------------===#

set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [SECONDS]" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
mlir_dir="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}"

cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
  -DCMAKE_C_COMPILER="${CC:-clang}" \
  -DMLIR_DIR="$mlir_dir" \
  -DSINTER_ENABLE_FUZZER=ON >/dev/null
ninja -C "$build" -j "${JOBS:-2}" sinter-fuzz-parser

# New inputs go to a scratch corpus; the seed directories stay read-only.
work="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$work" "$artifacts"
seeds=("$root/fuzz/corpus" "$root/test/Frontend")
[[ -d "$root/examples" ]] && seeds+=("$root/examples")

# ASan's leak checker reports libMLIR's process-lifetime singletons; the
# fuzzer's own -detect_leaks covers leaks per input.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
exec "$build/bin/sinter-fuzz-parser" \
  -max_total_time="$seconds" \
  -timeout=10 \
  -rss_limit_mb=4096 \
  -max_len=16384 \
  -dict="$root/fuzz/sinter.dict" \
  -artifact_prefix="$artifacts/" \
  -print_final_stats=1 \
  "$work" "${seeds[@]}"
