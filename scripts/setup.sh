#!/usr/bin/env bash
#===- scripts/setup.sh - Install Sinter's dependencies and build it ------===#
#
# Idempotent: installs what is missing from Debian (MLIR/LLVM 22, ninja,
# clang and libFuzzer for the parser fuzzer, ...)
# and PyPI (numpy, for the interpreter's NumPy check; torch, for the PyTorch
# front door python/sinter and its tests), configures build/ if it
# is not configured yet, and builds everything. Run as root or with sudo.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

LLVM_VERSION=22
APT_PACKAGES=(
  "libmlir-${LLVM_VERSION}-dev" "mlir-${LLVM_VERSION}-tools"
  "llvm-${LLVM_VERSION}-dev" "llvm-${LLVM_VERSION}-tools"
  ninja-build cmake g++ python3 python3-pip
  clang libclang-rt-14-dev  # the parser fuzzer (scripts/fuzz-parser.sh)
)
# torch: the default wheel (about 2.8 GB to download, a minute to install);
# the CPU machines use only torch.export and the CPU of it.
PIP_PACKAGES=(numpy torch)

die() { echo "setup.sh: error: $*" >&2; exit 1; }

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing from Debian: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" \
    >/tmp/sinter-apt.log 2>&1 ||
    die "could not install ${missing[*]} from Debian (see /tmp/sinter-apt.log);" \
        "Sinter needs MLIR/LLVM ${LLVM_VERSION} packages (libmlir-${LLVM_VERSION}-dev)"
fi

for package in "${PIP_PACKAGES[@]}"; do
  python3 -c "import ${package}" 2>/dev/null && continue
  echo "setup.sh: installing from PyPI: ${package}"
  python3 -m pip install -q "${package}" ||
    python3 -m pip install -q --break-system-packages "${package}" ||
    die "could not install ${package} from PyPI"
done

MLIR_DIR="/usr/lib/llvm-${LLVM_VERSION}/lib/cmake/mlir"
[ -f "${MLIR_DIR}/MLIRConfig.cmake" ] || die "no MLIRConfig.cmake in ${MLIR_DIR}"

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="${MLIR_DIR}" \
    -DLLVM_EXTERNAL_LIT="/usr/lib/llvm-${LLVM_VERSION}/bin/lit"
fi
ninja -C build
echo "setup.sh: built into build/ (tools in build/bin)"
