#!/usr/bin/env bash
#===- run-gpu-test.sh - Build the runtime and test it on a GPU -----------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
#===----------------------------------------------------------------------===#
#
# One command for a GPU machine (needs nvcc, CMake and a CUDA GPU; not MLIR):
#
#   runtime/test/run-gpu-test.sh [--memcheck]
#
# builds runtime/ on its own into build-rt-gpu/ (or $SINTER_RT_BUILD_DIR),
# runs the C API test and the GPU test, then, when python3 can import torch
# with CUDA, compares the device math functions with PyTorch's kernels bit
# for bit. --memcheck also runs the GPU test under compute-sanitizer. Exits
# non-zero on any failure.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runtime=$(dirname "$here")
build=${SINTER_RT_BUILD_DIR:-$(dirname "$runtime")/build-rt-gpu}
memcheck=0
for arg in "$@"; do
  case "$arg" in
  --memcheck) memcheck=1 ;;
  *) echo "usage: $0 [--memcheck]" >&2; exit 2 ;;
  esac
done

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake "${generator[@]}" -S "$runtime" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"

echo "== C API test"
"$build/test/sinter-rt-c-api-test"
echo "== GPU test"
"$build/test/sinter-rt-gpu-test" --dump-math "$build/math.bin"
echo "== 3xTF32 GEMM test"
"$build/test/sinter-rt-tf32x3-gpu-test"

if python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' \
    2>/dev/null; then
  echo "== device math functions against PyTorch"
  python3 "$here/compare_with_torch.py" "$build/math.bin"
else
  echo "== PyTorch with CUDA not found: skipped the comparison with PyTorch"
fi

if [ "$memcheck" = 1 ]; then
  echo "== GPU test under compute-sanitizer memcheck"
  # The bad launch that tests sinter_rt_check_launch is an API error on
  # purpose; it ran above, so it is skipped here.
  compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$build/test/sinter-rt-gpu-test" --no-provoked-errors
  compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$build/test/sinter-rt-tf32x3-gpu-test"
fi
echo "run-gpu-test.sh: all passed"
