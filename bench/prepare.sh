#!/usr/bin/env bash
#===- bench/prepare.sh - The folder that the GPU benchmark runs from -------===#
#
#   bench/prepare.sh [OUT]        (default OUT: .carry/bench)
#
# Runs where Sinter is built (needs build/bin/sinterc; no GPU). Writes
#
#   OUT/run.py models.py summary.py   the GPU side (bench/*.py)
#   OUT/gen/<model>/                  sinterc -emit=cuda --emit-torch output:
#                                     <model>.cu .h _torch.cpp _torch.py,
#                                     sinter_rt/, CMakeLists.txt
#   OUT/manifest.json                 commit, sinterc version, date, flags
#
# for every examples/*.sinter, and prints the folder's size (it must stay
# under 60 MiB to be carried to the GPU machine). OUT is emptied first.
# SINTERC=/path/to/sinterc overrides the compiler; SINTER_FLAGS adds flags.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.carry/bench}"
sinterc="${SINTERC:-$root/build/bin/sinterc}"
extra_flags="${SINTER_FLAGS:-}"

if [ ! -x "$sinterc" ]; then
  echo "prepare.sh: $sinterc not found; build Sinter first (scripts/setup.sh)" >&2
  exit 1
fi
case "$out" in
  ""|"/"|"$root"|"$root/") echo "prepare.sh: refusing to empty '$out'" >&2; exit 2 ;;
esac

rm -rf "$out"
mkdir -p "$out/gen"
cp "$root"/bench/*.py "$out/"

failed=0
for source in "$root"/examples/*.sinter; do
  model="$(basename "$source" .sinter)"
  # shellcheck disable=SC2086 # SINTER_FLAGS is a list of flags
  if ! "$sinterc" "$source" -emit=cuda -o "$out/gen/$model" --emit-torch \
        $extra_flags 2>"$out/gen/$model.err"; then
    echo "prepare.sh: sinterc failed on $model:" >&2
    cat "$out/gen/$model.err" >&2
    failed=1
    continue
  fi
  rm -f "$out/gen/$model.err"
  for file in "$model.cu" "$model.h" "${model}_torch.py"; do
    if [ ! -f "$out/gen/$model/$file" ]; then
      echo "prepare.sh: sinterc wrote no $model/$file" >&2
      failed=1
    fi
  done
  echo "  $model"
done

# What was benchmarked: recorded in every results JSON by run.py.
commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
dirty="$(git -C "$root" status --porcelain 2>/dev/null | grep -qv '^??' && echo true || echo false)"
version="$("$sinterc" --version 2>/dev/null | head -n 1 || true)"
python3 - "$out/manifest.json" "$commit" "$dirty" "$version" "$extra_flags" <<'EOF'
import datetime, json, sys
path, commit, dirty, version, flags = sys.argv[1:6]
json.dump({"commit": commit, "dirty": dirty == "true", "sinterc": version.strip(),
           "flags": "-emit=cuda --emit-torch " + flags,
           "prepared": datetime.datetime.now(datetime.timezone.utc).strftime(
               "%Y-%m-%dT%H:%M:%SZ")}, open(path, "w"), indent=1)
EOF

size_kib="$(du -sk "$out" | cut -f1)"
echo "prepare.sh: wrote $out ($((size_kib / 1024)) MiB, $size_kib KiB; the limit is 60 MiB)"
if [ "$size_kib" -gt $((60 * 1024)) ]; then
  echo "prepare.sh: the folder is over 60 MiB" >&2
  exit 1
fi
exit "$failed"
