#!/usr/bin/env bash
#===- scripts/test.sh - Build what changed and run every test ------------===#
#
# Rebuilds build/ (configured by scripts/setup.sh), runs the whole lit suite
# (dialect, frontend, passes, interpreter, emitter and differential tests),
# and prints `N passed, N failed` as its last line. Exits non-zero on any
# failure. Extra arguments go to lit (e.g. `scripts/test.sh -v`). BUILD_DIR
# names another configured build directory (default build/; scripts/
# sanitize.sh passes build-sanitize/).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
cd "$(dirname "$0")/.."

LIT=/usr/lib/llvm-22/bin/lit
build="${BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
  echo "test.sh: $build/ is not configured; run scripts/setup.sh first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
if ! ninja -C "$build" ${JOBS:+-j "$JOBS"}; then
  echo "test.sh: the build failed" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

log=$(mktemp)
"$LIT" -sv "$@" "$build/test" 2>&1 | tee "$log"
count() { # Sums the numbers of the lit summary lines named "$@".
  local total=0 n
  for label in "$@"; do
    n=$(sed -n "s/^ *${label}: *\([0-9][0-9]*\).*/\1/p" "$log" | tail -n 1)
    total=$((total + ${n:-0}))
  done
  echo "$total"
}
passed=$(count "Passed" "Expectedly Failed")
failed=$(count "Failed" "Unresolved" "Timed Out" "Unexpectedly Passed")
rm -f "$log"
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # lit itself did not run.
fi
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
