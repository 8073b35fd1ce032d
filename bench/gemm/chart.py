#!/usr/bin/env python3
"""Draws the chart of a GEMM benchmark result (bench/gemm/gemm_bench.cu).

  python3 bench/gemm/chart.py bench/results/gemm-h100.json

Reads the JSON that gemm_bench wrote and writes, beside it, <base>.png:
  - top: each contestant's speedup over cuBLAS SGEMM per shape (log scale):
    cuBLAS TF32 (one pass, not fp32-accurate), the 3xTF32 kernel (forced) and
    sinter_rt_gemm_tf32x3 (what generated code runs: the shape rule's pick);
  - bottom: each contestant's error against cublasDgemm per shape (log
    scale), the worst of the three data sets.
When <base>.md exists (gemm_bench's table) and does not show the chart yet,
appends the image link to it. Runs anywhere (no GPU); needs matplotlib
(`python3 -m pip install matplotlib`) and says so, with exit status 2, when
it is missing.
"""

import argparse
import json
import os
import sys

# (JSON key, legend label, colour) of each contestant, as gemm_bench names them.
CONTESTANTS = [
    ("cublas_sgemm", "cuBLAS SGEMM", "#4c72b0"),
    ("cublas_tf32", "cuBLAS TF32 (1 pass)", "#dd8452"),
    ("sinter_3xtf32_kernel", "3xTF32 kernel", "#55a868"),
    ("sinter_gemm_tf32x3", "sinter_rt_gemm_tf32x3 (rule)", "#8172b3"),
]
DATA_SETS = ("uniform", "normal", "wide")


def shape_label(result):
    label = "%d,%d,%d" % (result["m"], result["n"], result["k"])
    return label if result.get("rule", "3xtf32") == "3xtf32" else label + "\n(rule: sgemm)"


def worst_error(entry):
    errors = [entry.get("error_" + d) for d in DATA_SETS]
    errors = [e for e in errors if e is not None]
    return max(errors) if errors else None


def draw(doc, path):
    """Writes the two-panel chart of \\p doc to \\p path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    results = doc["results"]
    labels = [shape_label(r) for r in results]
    xs = list(range(len(results)))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(8, 1.3 * len(results) + 2), 9),
                                      gridspec_kw={"height_ratios": [3, 2]})

    faster = CONTESTANTS[1:]
    width = 0.8 / len(faster)
    for i, (key, label, color) in enumerate(faster):
        pos = [x - 0.4 + width * (i + 0.5) for x in xs]
        speedups = [r["cublas_sgemm"]["ms"] / r[key]["ms"] for r in results]
        top.bar(pos, speedups, width, label=label, color=color)
        for p, v in zip(pos, speedups):
            top.text(p, v, "%.2f" % v, ha="center", va="bottom", fontsize=7, rotation=90)
    top.set_yscale("log")
    top.set_ylim(0.3, 20)
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v)
    top.yaxis.set_major_formatter(plain)
    top.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    top.axhline(1.0, color="black", linewidth=0.8)
    top.axhline(2.0, color="gray", linewidth=0.8, linestyle="--")
    top.set_ylabel("speedup over cuBLAS SGEMM (×, log)")
    top.set_xticks(xs)
    top.set_xticklabels(labels, fontsize=8)
    top.legend(fontsize=8, loc="upper right")
    top.set_title("fp32 GEMM Y = X·Wᵀ (M,N,K), %s, median of %s runs, L2 flushed"
                  % (doc.get("device", "?"), doc.get("runs", "?")))

    shown = [c for c in CONTESTANTS if c[0] != "sinter_gemm_tf32x3"]
    width = 0.8 / len(shown)
    for i, (key, label, color) in enumerate(shown):
        pos = [x - 0.4 + width * (i + 0.5) for x in xs]
        errors = [worst_error(r[key]) for r in results]
        bottom.bar([p for p, e in zip(pos, errors) if e], [e for e in errors if e],
                   width, label=label, color=color)
    bottom.set_yscale("log")
    bottom.set_ylabel("error vs cublasDgemm\n(worst of %s)" % " / ".join(DATA_SETS))
    bottom.set_xticks(xs)
    bottom.set_xticklabels(labels, fontsize=8)
    bottom.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def link_from_markdown(md_path, png_name):
    """Appends the chart's image link to the table \\p md_path (once)."""
    if not os.path.exists(md_path):
        return False
    text = open(md_path).read()
    if "](%s)" % png_name in text:
        return False
    with open(md_path, "a") as f:
        f.write("%s![speedup over SGEMM and error against float64](%s)\n"
                % ("" if text.endswith("\n\n") else "\n", png_name))
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="the JSON that gemm_bench wrote")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("chart.py: matplotlib is not installed (python3 -m pip install "
              "matplotlib); no chart written", file=sys.stderr)
        return 2
    with open(args.json) as f:
        doc = json.load(f)
    base = os.path.splitext(args.json)[0]
    png = base + ".png"
    draw(doc, png)
    linked = link_from_markdown(base + ".md", os.path.basename(png))
    print("chart.py: wrote %s%s" % (png, " and linked it from %s.md" % base if linked else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
