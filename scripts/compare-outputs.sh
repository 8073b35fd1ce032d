#!/usr/bin/env bash
# Compares the code two sinterc binaries generate: every .sinter and .mlir
# model of examples/ and test/ (each nested module of a test by --model),
# under each precision, with the PyTorch extension. Prints the differences
# and exits non-zero when there are any. A refactoring of the emitter must
# leave the output byte-identical:
#   scripts/compare-outputs.sh /path/to/main/build/bin/sinterc build/bin/sinterc
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 REFERENCE_SINTERC NEW_SINTERC" >&2
  exit 2
fi
reference=$1
candidate=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each case: a model file, and optionally the name of a nested module.
cases=()
while IFS= read -r file; do
  cases+=("$file|")
done < <(cd "$root" && find examples test -name '*.sinter' | sort)
while IFS= read -r file; do
  names=$(grep -oE '^\s*module @[A-Za-z0-9_]+' "$root/$file" |
    sed -E 's/.*@//' | sort -u)
  if [ -z "$names" ]; then
    cases+=("$file|")
  else
    for name in $names; do cases+=("$file|$name"); done
  fi
done < <(cd "$root" && find examples test/Target/CUDA -name '*.mlir' | sort)

compared=0
failed=0
for entry in "${cases[@]}"; do
  file=${entry%%|*}
  name=${entry#*|}
  for flags in "" "--precision=tf32" "--precision=bf16" "--fp32-gemm=sgemm"; do
    args=("$root/$file" -emit=cuda --emit-torch)
    [ -n "$name" ] && args+=("--model=$name")
    [ -n "$flags" ] && args+=("$flags")
    for side in reference candidate; do
      out="$work/$side"
      rm -rf "$out" && mkdir -p "$out"
      binary=$reference
      [ $side = candidate ] && binary=$candidate
      (cd "$root" && "$binary" "${args[@]}" -o "$out" >"$out.stdout" 2>"$out.stderr")
      echo "exit $?" >>"$out.stdout"
    done
    compared=$((compared + 1))
    # sinter_rt/ is a copy of the runtime of the source tree each binary was
    # built from, not generated code.
    if ! diff -r -x sinter_rt "$work/reference" "$work/candidate" >"$work/diff" ||
      ! diff "$work/reference.stdout" "$work/candidate.stdout" >>"$work/diff" ||
      ! diff "$work/reference.stderr" "$work/candidate.stderr" >>"$work/diff"; then
      failed=$((failed + 1))
      echo "DIFFERS: $file ${name:+--model=$name} $flags"
      head -20 "$work/diff"
    fi
  done
done
echo "$compared compared, $failed differ"
[ $failed -eq 0 ]
