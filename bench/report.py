#!/usr/bin/env python3
"""Turns a results JSON of bench/run.py into the committed benchmark report.

  python3 bench/report.py results.json [--out-dir bench/results] [--tag h100]

Runs here (no GPU, no PyTorch; needs matplotlib for the chart:
`python3 -m pip install matplotlib`). Writes, with <date> the date of the
latest run in the JSON:
  <out-dir>/<date>-<tag>.md    the table (times, speedups, fraction of the
                               limit, accuracy, targets met) and the details
  <out-dir>/<date>-<tag>.png   speedup over eager and over torch.compile per
                               example (log axis), and fraction of the limit
  <out-dir>/<date>-<tag>.json  the results JSON itself
A JSON marked as a test fixture ("fixture": true) is refused for the
repository's bench/results/: only measured numbers are committed there.
"""

import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import summary  # noqa: E402

# The examples in the order of the issue (unknown ones follow, sorted).
ORDER = ["gemm_divide_sum_scaling", "gemm_relu_divide", "gemm_bias_relu",
         "gemm_scale_batchnorm", "matmul_swish_bias_groupnorm", "mlp_block",
         "softmax", "layer_norm", "rms_norm", "bias_gelu", "row_statistics",
         "linear_sub_mean", "linear_avg_pool", "constant_output"]


def ordered(models):
    return [n for n in ORDER if n in models] + sorted(n for n in models if n not in ORDER)


def md_row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def contestant_cell(entry, name):
    """Median ms with p10..p90, or why there is none."""
    c = entry.get("contestants", {}).get(name)
    if not c:
        return "–"
    if c.get("error"):
        return "skipped" if c.get("skipped") else "failed"
    return summary.fmt_ms(c.get("median_ms"))


def limit_cell(entry):
    limit = entry.get("limit") or {}
    if limit.get("error"):
        return "failed"
    if limit.get("limit_ms") is None:
        return "–"
    return "%s (%s)" % (summary.fmt_ms(limit["limit_ms"]), limit.get("kind", "?"))


def environment_lines(doc):
    runs = doc.get("runs", [])
    last = runs[-1] if runs else {}
    gpus = sorted({r.get("gpu", "?") for r in runs})
    bws = [r["copy_bandwidth_gbs"] for r in runs if r.get("copy_bandwidth_gbs")]
    sinter = next((r["sinter"] for r in reversed(runs) if r.get("sinter")), {})
    lines = [
        "- GPU: %s; driver %s; `nvidia-smi`: %s" % (
            " / ".join(gpus), last.get("driver", "?"), last.get("nvidia_smi", "?")),
        "- PyTorch %s (CUDA %s), Triton %s, Python %s; %s" % (
            last.get("torch"), last.get("torch_cuda"), last.get("triton"),
            last.get("python"), " ".join(last.get("nvcc") or [])),
        "- Sinter: commit %s%s, %s, flags `%s`" % (
            sinter.get("commit", "?"), " (dirty)" if sinter.get("dirty") else "",
            sinter.get("sinterc", "?"), sinter.get("flags", "?")),
        "- Runs merged: %d (%s … %s)" % (
            len(runs), runs[0].get("date", "?") if runs else "?", last.get("date", "?")),
    ]
    if bws:
        lines.append("- Device-to-device copy bandwidth (bytes read + written / time): "
                     "%.0f–%.0f GB/s" % (min(bws), max(bws)))
    lines.append("- TF32 off (matmul %s, cuDNN %s, float32 matmul precision `%s`); "
                 "times are medians of %s repetitions after %s warm-up calls, CUDA "
                 "events around the forward call only, L2 flushed (%d MiB %s) "
                 "before each." % (
                     last.get("allow_tf32_matmul"), last.get("allow_tf32_cudnn"),
                     last.get("float32_matmul_precision"), last.get("reps"),
                     last.get("warmup"), (last.get("flush_bytes") or 0) >> 20,
                     # Runs before the read flush recorded no "flush".
                     last.get("flush", "write")))
    if len(gpus) > 1:
        lines.append("- **Warning: the merged runs were on different GPUs.**")
    return lines


def markdown(doc, png_name):
    models = doc["models"]
    names = ordered(models)
    last = (doc.get("runs") or [{}])[-1]
    out = ["# Sinter vs PyTorch: %s, %s" % (last.get("gpu", "?"), last.get("date", "?")[:10]),
           ""]
    if doc.get("fixture"):
        out += ["**TEST FIXTURE: synthetic numbers, not a measurement.**", ""]
    out += environment_lines(doc) + [""]
    out += ["Times in ms (median). × = speedup of Sinter's steady-state forward; "
            "fraction of limit = limit / Sinter time (1.0 is the limit); rel err = "
            "‖out − ref‖ / ‖ref‖ against float64. See bench/README.md for the method.",
            ""]
    out.append(md_row(["example", "eager", "compile", "max-autotune", "Sinter",
                       "@prepare", "× eager", "× compile", "× max-autotune",
                       "limit (kind)", "fraction of limit", "rel err Sinter",
                       "rel err eager", "targets met"]))
    out.append(md_row(["---"] + ["---:"] * 12 + [":---:"]))
    for n in names:
        e = models[n]
        d = summary.derive(e)
        acc = summary.fmt_e(d["rel_err_sinter"])
        if d["accuracy_flag"]:
            acc += " ⚠"
        out.append(md_row([
            "`%s`" % n, contestant_cell(e, "eager"), contestant_cell(e, "compile"),
            contestant_cell(e, "autotune"), contestant_cell(e, "sinter"),
            summary.fmt_ms(d["prepare_ms"]), summary.fmt_x(d["speedup_eager"]),
            summary.fmt_x(d["speedup_compile"]), summary.fmt_x(d["speedup_autotune"]),
            limit_cell(e), summary.fmt_f(d["fraction_of_limit"]), acc,
            summary.fmt_e(d["rel_err_eager"]),
            summary.verdict(summary.targets(n, e))]))
    out += ["", "⚠: Sinter's error norm is more than %.0f× eager's (or not finite)."
            % summary.ACCURACY_FLAG_RATIO, ""]
    out += ["![speedups and fraction of the limit](%s)" % png_name, ""]

    # The targets of issue 6, one line each.
    out += ["## Targets (issue 6)", "",
            "“× torch.compile” compares with the faster of the two torch.compile "
            "modes measured (default, max-autotune-no-cudagraphs); “Sinter/GEMM "
            "alone” divides Sinter's time by the cuBLAS fp32 GEMM of the same shape "
            "timed in the same run.", ""]
    out.append(md_row(["example", "target", "measured", "threshold", "met"]))
    out.append(md_row(["---", "---", "---:", "---:", ":---:"]))
    for n in names:
        for t in summary.targets(n, models[n]):
            value = "n/a" if t["value"] is None else "%.4g" % t["value"]
            met = {True: "yes", False: "**no**", None: "n/a"}[t["met"]]
            out.append(md_row(["`%s`" % n, t["name"], value,
                               "%s %.4g" % (t["op"], t["threshold"]), met]))

    # Details: spread, compile and build times, checks.
    out += ["", "## Details", ""]
    out.append(md_row(["example", "contestant", "median", "p10", "p90", "reps",
                       "rel err", "max abs err", "compile / build s", "notes"]))
    out.append(md_row(["---", "---"] + ["---:"] * 7 + ["---"]))
    for n in names:
        e = models[n]
        for cname, title in summary.CONTESTANTS:
            c = e.get("contestants", {}).get(cname)
            if not c:
                continue
            acc = c.get("accuracy") or {}
            notes = []
            if c.get("error"):
                notes.append(" ".join(str(c["error"]).split())[:160].replace("|", "/"))
            if cname == "sinter" and not c.get("error"):
                prep = c.get("prepare") or {}
                notes.append("@prepare %s ms (cold %s); forward + @prepare %s ms" % (
                    summary.fmt_ms(prep.get("median_ms")), summary.fmt_ms(prep.get("cold_ms")),
                    summary.fmt_ms(summary.derive(e)["sinter_plus_prepare_ms"])))
                notes.append("poison landed %s" % c.get("poison_landed"))
                notes.append("deterministic %s" % c.get("deterministic"))
            seconds = c.get("compile_s") if cname in ("compile", "autotune") else c.get("build_s")
            out.append(md_row([
                "`%s`" % n, title, summary.fmt_ms(c.get("median_ms")),
                summary.fmt_ms(c.get("p10_ms")), summary.fmt_ms(c.get("p90_ms")),
                c.get("reps", "–"), summary.fmt_e(acc.get("rel_err")),
                summary.fmt_e(acc.get("max_abs")),
                "–" if seconds is None else "%.1f" % seconds, "; ".join(notes)]))
        limit = e.get("limit") or {}
        if limit:
            d = summary.derive(e)
            note = limit.get("note") or ""
            if limit.get("kind") == "gemm" and limit.get("per_gemm"):
                note = "GEMMs alone %s ms (%s TFLOP/s) + output write %s ms" % (
                    summary.fmt_ms(limit.get("gemm_ms")),
                    ", ".join("%.1f" % g["tflops"] for g in limit["per_gemm"]),
                    summary.fmt_ms(limit.get("write_ms")))
            elif limit.get("kind") == "memory":
                note = "%.1f MB at %.0f GB/s%s; Sinter achieves %s GB/s" % (
                    (limit.get("min_bytes") or 0) / 1e6, limit.get("bandwidth_gbs") or 0,
                    ("; " + note) if note else "",
                    "–" if d["achieved_gbs"] is None else "%.0f" % d["achieved_gbs"])
            if limit.get("error"):
                note = " ".join(str(limit["error"]).split())[:160]
            out.append(md_row(["`%s`" % n, "limit", summary.fmt_ms(limit.get("limit_ms")),
                               "", "", "", "", "", "", note.replace("|", "/")]))
    out.append("")
    return "\n".join(out)


def chart(doc, path):
    """Speedups over eager and torch.compile (log), and fraction of the limit."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 - used as matplotlib.ticker

    models = doc["models"]
    names = ordered(models)
    derived = [summary.derive(models[n]) for n in names]
    series = [("over eager", "speedup_eager", "#4c72b0"),
              ("over torch.compile", "speedup_compile", "#dd8452"),
              ("over max-autotune", "speedup_autotune", "#55a868")]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(8, 1.1 * len(names) + 3), 9),
                                      gridspec_kw={"height_ratios": [3, 2]})
    width = 0.8 / len(series)
    xs = list(range(len(names)))
    for i, (label, key, color) in enumerate(series):
        vals = [d[key] for d in derived]
        pos = [x - 0.4 + width * (i + 0.5) for x in xs]
        top.bar([p for p, v in zip(pos, vals) if v], [v for v in vals if v],
                width, label=label, color=color)
        for p, v in zip(pos, vals):
            if v:
                top.text(p, v, ("%.0f" % v) if v >= 10 else ("%.2f" % v),
                         ha="center", va="bottom", fontsize=6, rotation=90)
    top.set_yscale("log")
    shown = [d[key] for d in derived for _, key, _ in series if d[key]]
    if shown:  # room below 1x for slowdowns, above the largest bar for labels
        top.set_ylim(min(0.5, min(shown) / 1.5), max(2.0, max(shown) * 3))
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v)
    top.yaxis.set_major_formatter(plain)
    top.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    top.axhline(1.0, color="black", linewidth=0.8)
    top.set_ylabel("Sinter speedup (×, log scale)")
    top.set_xticks(xs)
    top.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    top.legend(fontsize=8)
    last = (doc.get("runs") or [{}])[-1]
    title = "Sinter vs PyTorch, %s, %s" % (last.get("gpu", "?"), last.get("date", "?")[:10])
    if doc.get("fixture"):
        title = "TEST FIXTURE (synthetic) - " + title
    top.set_title(title)

    fractions = [d["fraction_of_limit"] for d in derived]
    bottom.bar([x for x, f in zip(xs, fractions) if f is not None],
               [f for f in fractions if f is not None], 0.6, color="#8172b3")
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.axhline(0.85, color="gray", linewidth=0.8, linestyle="--")
    bottom.set_ylabel("fraction of limit\n(limit / Sinter time)")
    bottom.set_xticks(xs)
    bottom.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    # Above 1 the limit was not tight; the axis stops at 1.5, labels tell all.
    top_value = max([f for f in fractions if f is not None] + [1.0])
    ceiling = min(1.5, max(1.1, top_value * 1.1))
    bottom.set_ylim(0, ceiling)
    for x, f in zip(xs, fractions):
        if f is not None:
            bottom.text(x, min(f, ceiling * 0.97), "%.2f" % f, ha="center",
                        va="bottom" if f < ceiling * 0.9 else "top", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results", help="the JSON that bench/run.py wrote")
    p.add_argument("--out-dir", default=os.path.join(HERE, "results"))
    p.add_argument("--tag", default="h100", help="file name suffix (the GPU)")
    p.add_argument("--date", default=None, help="file name date (default: the latest run's)")
    args = p.parse_args(argv)

    with open(args.results) as f:
        doc = json.load(f)
    repo_results = os.path.realpath(os.path.join(HERE, "results"))
    if doc.get("fixture") and os.path.realpath(args.out_dir) == repo_results:
        sys.exit("report.py: %s is a test fixture; not writing it to %s"
                 % (args.results, args.out_dir))
    date = args.date or ((doc.get("runs") or [{}])[-1].get("date") or "undated")[:10]
    base = os.path.join(args.out_dir, "%s-%s" % (date, args.tag))
    os.makedirs(args.out_dir, exist_ok=True)

    png = base + ".png"
    with open(base + ".md", "w") as f:
        f.write(markdown(doc, os.path.basename(png)))
    chart(doc, png)
    if os.path.realpath(args.results) != os.path.realpath(base + ".json"):
        shutil.copyfile(args.results, base + ".json")
    order = ordered(doc["models"])
    for line in summary.table_lines(doc["models"], order):
        print(line)
    print("report.py: wrote %s.md, %s.png and %s.json" % (base, base, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
