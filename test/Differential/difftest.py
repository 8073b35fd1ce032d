#!/usr/bin/env python3
# ===- difftest.py - Differential test of the Sinter pipeline --------------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
#
# For every model (random models from random_models.py, and model files given
# on the command line), runs the reference interpreter on:
#   ref  - the original module in f64 (the accuracy reference),
#   orig - the original module in f32,
#   opt  - the output of the whole pipeline in f32 (per fp mode),
# all on the same inputs and params, and checks that the optimized error
# against ref (relative error norm and max abs error) is no worse than the
# original's x 2 + 1e-6. In strict mode, it also checks that the pipeline's
# f32 result is bit-identical to that of the decomposed-only module: strict
# rewrites preserve values exactly. A failing model is printed whole so it can
# be added as a regression test.
#
# ===----------------------------------------------------------------------===#

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_models  # noqa: E402


class Failure(Exception):
    pass


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise Failure(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                      f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def interpret(tools, model, out_dir, precision, data_dir, dims, seed=None,
              save=False):
    cmd = [tools.sinterc, "run", model, f"--precision={precision}",
           f"--out-dir={out_dir}"]
    cmd += [f"--dim={d}" for d in dims]
    if save:
        cmd += [f"--seed={seed}", f"--save-inputs={data_dir}"]
    else:
        cmd += [f"--data-dir={data_dir}"]
    run(cmd)
    return {f[:-4]: np.load(os.path.join(out_dir, f))
            for f in sorted(os.listdir(out_dir)) if f.endswith(".npy")}


def errors(values, reference):
    """Relative error norm and max abs error of `values` against f64."""
    diff = values.astype(np.float64) - reference.astype(np.float64)
    if not np.all(np.isfinite(reference)):
        raise Failure("the f64 reference is not finite")
    norm = np.linalg.norm(reference.ravel())
    rel = np.linalg.norm(diff.ravel()) / norm if norm > 0 else \
        np.linalg.norm(diff.ravel())
    return rel, float(np.max(np.abs(diff))) if diff.size else 0.0


def check_model(tools, model_path, mode, work, dims, seed):
    """Returns a one-line summary or raises Failure."""
    data = os.path.join(work, "data")
    orig32 = interpret(tools, model_path, os.path.join(work, "orig32"), "f32",
                       data, dims, seed=seed, save=True)
    ref = interpret(tools, model_path, os.path.join(work, "ref"), "f64", data,
                    dims)
    optimized = os.path.join(work, f"opt-{mode}.mlir")
    with open(optimized, "w") as f:
        f.write(run([tools.sinter_opt, model_path,
                     f"--sinter-pipeline=fp-mode={mode}"]))
    opt32 = interpret(tools, optimized, os.path.join(work, f"opt32-{mode}"),
                      "f32", data, dims)
    if sorted(opt32) != sorted(ref):
        raise Failure(f"outputs differ: {sorted(opt32)} vs {sorted(ref)}")
    worst = 0.0
    for name in ref:
        if ref[name].shape != opt32[name].shape:
            raise Failure(f"{name}: shape {opt32[name].shape} vs "
                          f"{ref[name].shape}")
        orig_rel, orig_max = errors(orig32[name], ref[name])
        opt_rel, opt_max = errors(opt32[name], ref[name])
        if opt_rel > 2 * orig_rel + 1e-6 or opt_max > 2 * orig_max + 1e-6:
            raise Failure(f"{name}: optimized error rel={opt_rel:.3e} "
                          f"max={opt_max:.3e} vs original rel={orig_rel:.3e} "
                          f"max={orig_max:.3e}")
        worst = max(worst, opt_rel)
    if mode == "strict":
        decomposed = os.path.join(work, "decomposed.mlir")
        with open(decomposed, "w") as f:
            f.write(run([tools.sinter_opt, model_path, "--sinter-decompose"]))
        dec32 = interpret(tools, decomposed, os.path.join(work, "dec32"),
                          "f32", data, dims)
        for name in ref:
            if not np.array_equal(dec32[name], opt32[name], equal_nan=True):
                raise Failure(f"{name}: strict pipeline changed the f32 "
                              f"values of the decomposed model")
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sinterc", required=True)
    parser.add_argument("--sinter-opt", dest="sinter_opt", required=True)
    parser.add_argument("--count", type=int, default=300,
                        help="number of random models")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--modes", default="fast,strict")
    parser.add_argument("--dim", action="append", default=[],
                        help="NAME=VALUE for the model files")
    parser.add_argument("models", nargs="*", help="model files to check too")
    tools = parser.parse_args()

    cases = [(f"seed {s}", s, None) for s in
             range(tools.first_seed, tools.first_seed + tools.count)]
    cases += [(path, 0, path) for path in tools.models]
    failures = 0
    checked = 0
    for label, seed, path in cases:
        for mode in tools.modes.split(","):
            with tempfile.TemporaryDirectory() as work:
                model_path = path
                text = None
                if path is None:
                    _, text = random_models.generate(seed)
                    model_path = os.path.join(work, "model.mlir")
                    with open(model_path, "w") as f:
                        f.write(text)
                try:
                    check_model(tools, model_path, mode, work,
                                tools.dim if path else [], seed)
                    checked += 1
                except (Failure, subprocess.TimeoutExpired) as error:
                    failures += 1
                    print(f"FAIL {label} ({mode}): {error}")
                    if text:
                        print(text)
    print(f"difftest: {checked} model runs passed, {failures} failed "
          f"({len(cases)} models, modes {tools.modes})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
