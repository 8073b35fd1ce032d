#!/usr/bin/env python3
"""Derived numbers, issue targets and the compact table of a benchmark run.

Shared by bench/run.py (which prints the table last, on the GPU machine) and
bench/report.py (which writes the markdown report here). Needs no PyTorch:
everything is computed from the results JSON that run.py writes (its layout
is documented in bench/README.md, "The results JSON").

Targets of issue 6 are evaluated and reported, never asserted: a target whose
inputs were not measured (a contestant skipped or failed) reads "n/a".
"""

import math

# The contestants, in table order, and their column titles.
CONTESTANTS = [("eager", "eager"), ("compile", "compile"),
               ("autotune", "max-autotune"), ("sinter", "Sinter")]

# A Sinter error norm worse than this many times eager's is flagged.
ACCURACY_FLAG_RATIO = 2.0


def median_ms(entry, contestant):
    """The median time of a contestant, or None when not measured or failed."""
    c = entry.get("contestants", {}).get(contestant)
    if not c or c.get("error") or c.get("median_ms") is None:
        return None
    return c["median_ms"]


def rel_err(entry, contestant):
    c = entry.get("contestants", {}).get(contestant)
    if not c or not c.get("accuracy"):
        return None
    return c["accuracy"].get("rel_err")


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def best_compile(entry):
    """The faster of torch.compile default and max-autotune, as (ms, which)."""
    best = None
    for name in ("compile", "autotune"):
        t = median_ms(entry, name)
        if t is not None and (best is None or t < best[0]):
            best = (t, name)
    return best or (None, None)


def derive(entry):
    """Speedups, fraction of the limit and accuracy flags of one example."""
    sinter = median_ms(entry, "sinter")
    prepare = None
    s = entry.get("contestants", {}).get("sinter") or {}
    if s.get("prepare") and s["prepare"].get("median_ms") is not None:
        prepare = s["prepare"]["median_ms"]
    limit = entry.get("limit") or {}
    limit_ms = limit.get("limit_ms")
    d = {
        "sinter_ms": sinter,
        "prepare_ms": prepare,
        "sinter_plus_prepare_ms": (sinter + prepare
                                   if sinter is not None and prepare is not None
                                   else None),
        "speedup_eager": ratio(median_ms(entry, "eager"), sinter),
        "speedup_compile": ratio(median_ms(entry, "compile"), sinter),
        "speedup_autotune": ratio(median_ms(entry, "autotune"), sinter),
        "speedup_best_compile": ratio(best_compile(entry)[0], sinter),
        "limit_ms": limit_ms,
        "fraction_of_limit": ratio(limit_ms, sinter),
        "gemm_alone_ms": limit.get("gemm_ms"),
        "sinter_over_gemm": ratio(sinter, limit.get("gemm_ms")),
        "achieved_gbs": None,
        "rel_err_sinter": rel_err(entry, "sinter"),
        "rel_err_eager": rel_err(entry, "eager"),
        "accuracy_flag": False,
    }
    d["speedup_eager_with_prepare"] = ratio(median_ms(entry, "eager"),
                                            d["sinter_plus_prepare_ms"])
    if limit.get("kind") == "memory" and sinter and limit.get("min_bytes"):
        d["achieved_gbs"] = limit["min_bytes"] / (sinter * 1e-3) / 1e9
    rs, re_ = d["rel_err_sinter"], d["rel_err_eager"]
    acc = (s.get("accuracy") or {})
    if rs is not None and re_ is not None:
        # NaN/inf, or worse than twice eager's error norm (with a floor for
        # an eager error of exactly zero).
        d["accuracy_flag"] = (not math.isfinite(rs)
                              or rs > ACCURACY_FLAG_RATIO * max(re_, 1e-12))
    if acc and not acc.get("finite", True):
        d["accuracy_flag"] = True
    return d


def _target(name, value, threshold, op, fmt="%.3g"):
    """One target: met is True/False, or None when `value` was not measured."""
    if value is None:
        met = None
    elif op == ">=":
        met = value >= threshold
    elif op == "<=":
        met = value <= threshold
    elif op == "<":
        met = value < threshold
    else:
        raise ValueError(op)
    shown = "n/a" if value is None else fmt % value
    return {"name": name, "value": value, "threshold": threshold, "op": op,
            "met": met, "text": "%s: %s %s %s" % (name, shown, op, fmt % threshold)}


def targets(name, entry):
    """The issue's targets for example `name` (an empty list when it has none)."""
    # "x torch.compile" compares with the faster of the two torch.compile
    # modes that were measured (default, max-autotune-no-cudagraphs).
    d = derive(entry)
    out = []
    if name == "gemm_divide_sum_scaling":
        out.append(_target("x eager", d["speedup_eager"], 100.0, ">="))
        out.append(_target("x eager incl. prepare", d["speedup_eager_with_prepare"],
                           20.0, ">="))
        out.append(_target("rel err Sinter/eager", ratio(d["rel_err_sinter"],
                                                         d["rel_err_eager"]),
                           1.0, "<"))
    elif name in ("gemm_relu_divide", "gemm_bias_relu", "gemm_scale_batchnorm"):
        out.append(_target("x torch.compile", d["speedup_best_compile"], 1.0, ">="))
        out.append(_target("Sinter/GEMM alone", d["sinter_over_gemm"], 1.03, "<="))
    elif name == "matmul_swish_bias_groupnorm":
        out.append(_target("x torch.compile", d["speedup_best_compile"], 1.05, ">="))
        out.append(_target("Sinter/GEMM alone", d["sinter_over_gemm"], 1.08, "<="))
    elif name in ("softmax", "layer_norm", "rms_norm"):
        out.append(_target("fraction of copy BW", d["fraction_of_limit"], 0.85, ">="))
        out.append(_target("x torch.compile", d["speedup_best_compile"], 1.0, ">="))
    return out


def verdict(tlist):
    """'yes', 'NO', 'n/a' (nothing measured) or '-' (no targets) for a list."""
    if not tlist:
        return "-"
    if any(t["met"] is False for t in tlist):
        return "NO"
    if all(t["met"] is True for t in tlist):
        return "yes"
    return "n/a"


# -- formatting ---------------------------------------------------------------

def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3f" % v


def fmt_x(v):
    if v is None:
        return "-"
    return ("%.0fx" % v) if v >= 100 else ("%.2fx" % v)


def fmt_f(v, digits=2):
    return "-" if v is None else ("%.*f" % (digits, v))


def fmt_e(v):
    return "-" if v is None else ("%.1e" % v)


def contestant_cell(entry, name):
    """The median, or a short reason when a contestant has no time."""
    c = entry.get("contestants", {}).get(name)
    if not c:
        return "-"
    if c.get("error"):
        return "FAIL" if not c.get("skipped") else "skip"
    return fmt_ms(c.get("median_ms"))


def table_lines(models, order=None):
    """The compact plain-text table (printed last by run.py)."""
    names = [n for n in (order or list(models)) if n in models]
    head = ("%-27s %7s %7s %7s %7s %7s %7s %7s %7s %5s %5s %7s %7s %-4s %s" % (
        "example (ms)", "eager", "compile", "autotun", "Sinter", "prep",
        "xeager", "xcomp", "xauto", "frac", "GB/s", "errS", "errE", "acc", "targets"))
    lines = [head, "-" * len(head)]
    for n in names:
        e = models[n]
        d = derive(e)
        t = targets(n, e)
        lines.append("%-27s %7s %7s %7s %7s %7s %7s %7s %7s %5s %5s %7s %7s %-4s %s" % (
            n[:27], contestant_cell(e, "eager"), contestant_cell(e, "compile"),
            contestant_cell(e, "autotune"), contestant_cell(e, "sinter"),
            fmt_ms(d["prepare_ms"]), fmt_x(d["speedup_eager"]),
            fmt_x(d["speedup_compile"]), fmt_x(d["speedup_autotune"]),
            fmt_f(d["fraction_of_limit"]),
            "-" if d["achieved_gbs"] is None else "%.0f" % d["achieved_gbs"],
            fmt_e(d["rel_err_sinter"]),
            fmt_e(d["rel_err_eager"]), "BAD" if d["accuracy_flag"] else "ok",
            verdict(t)))
    return lines


def target_lines(models, order=None):
    """One line per evaluated target: the value, the threshold, met or not."""
    names = [n for n in (order or list(models)) if n in models]
    lines = []
    for n in names:
        for t in targets(n, models[n]):
            mark = {True: "met", False: "NOT MET", None: "n/a"}[t["met"]]
            lines.append("  %-27s %-36s %s" % (n, t["text"], mark))
    return lines


def failure_lines(models, order=None, width=110):
    """One line per failed or skipped contestant, with the reason cut short."""
    names = [n for n in (order or list(models)) if n in models]
    lines = []
    for n in names:
        failed = [(c, info) for c, info in models[n].get("contestants", {}).items()]
        failed.append(("limit", models[n].get("limit") or {}))
        failed.append(("example", models[n]))
        for c, info in failed:
            if info.get("error"):
                reason = " ".join(str(info["error"]).split())
                lines.append(("  %s/%s: %s" % (n, c, reason))[:width])
    return lines
