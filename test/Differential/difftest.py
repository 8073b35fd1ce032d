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
#   dec  - the module after sinter-decompose in f32,
#   opt  - the output of the whole pipeline in f32 (per fp mode),
# all on the same inputs and params, and checks that the optimized error
# against ref (relative error norm and max abs error) is no worse than the
# original's x 2 + 1e-6. The interpreter evaluates a whole norm with
# unrounded statistics, which no f32 kernel does, so where the decomposed
# module is less accurate (an ill-conditioned x - mean) its error is the
# baseline, provided it is itself within 1e-5 (the GPU accuracy bar) or the
# original's x 2 + 1e-6. In strict mode the pipeline's f32 result must be
# bit-identical to the decomposed module's: strict rewrites preserve values
# exactly. Every pass runs under --verify-each. A failing model is printed
# whole so it can be added as a regression test. At the end it prints, per
# fp mode, the rewrites of sinter-simplify that fired and in how many models
# (the sinter.rewrites attribute), so that a test can require every pattern
# to be exercised.
#
# ===----------------------------------------------------------------------===#

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_models  # noqa: E402


# The relative error norm against f64 that a decomposed model may reach when
# it is worse than the original's x 2 + 1e-6 (the GPU check's bar).
DECOMPOSED_BAR = 1e-5


class Failure(Exception):
    pass


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise Failure(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                      f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def interpret(tools, model, out_dir, precision, data_dir, dims, inputs=None,
              seed=None):
    """Runs `model` with the interpreter and returns {output name: array}.
    With `seed`, draws the inputs and params and saves them to `data_dir`;
    otherwise reads them from there (`inputs`: the input names in order)."""
    cmd = [tools.sinterc, "run", model, f"--precision={precision}",
           f"--out-dir={out_dir}"]
    cmd += [f"--dim={d}" for d in dims]
    if seed is not None:
        cmd += [f"--seed={seed}", f"--save-inputs={data_dir}"]
    else:
        cmd += [f"--params-dir={data_dir}"]
        if inputs:
            cmd += ["--inputs"] + [os.path.join(data_dir, n + ".npy")
                                   for n in inputs]
    run(cmd)
    return {f[:-4]: np.load(os.path.join(out_dir, f))
            for f in sorted(os.listdir(out_dir)) if f.endswith(".npy")}


def input_names(tools, model):
    """The names of the model's inputs, in order, from its lowered MLIR."""
    return parse_input_names(run([tools.sinterc, model, "-emit=mlir"]))


def parse_input_names(text):
    """The names of the inputs of the model whose MLIR is `text`, in order."""
    signature = text.split("func.func @forward(", 1)[1].split(") ->", 1)[0]
    names = []
    for attrs in re.findall(r"\{([^{}]*)\}", signature):
        if 'sinter.role = "input"' in attrs:
            names.append(re.search(r'sinter\.name = "([^"]+)"', attrs)[1])
    return names


def errors(values, reference):
    """Relative error norm and max abs error of `values` against f64."""
    diff = values.astype(np.float64) - reference.astype(np.float64)
    if not np.all(np.isfinite(reference)):
        raise Failure("the f64 reference is not finite")
    norm = np.linalg.norm(reference.ravel())
    rel = np.linalg.norm(diff.ravel()) / norm if norm > 0 else \
        np.linalg.norm(diff.ravel())
    return rel, float(np.max(np.abs(diff))) if diff.size else 0.0


def rewrites_fired(mlir_text):
    """{label: count} of the sinter.rewrites attribute of @forward."""
    found = re.search(r"sinter\.rewrites = \{([^}]*)\}", mlir_text)
    if not found:
        return {}
    return {label: int(count) for label, count in
            re.findall(r'"?([\w-]+)"? = (\d+) : i64', found[1])}


def check_decomposed(ref, orig32, dec32):
    """Checks the decomposed model's f32 results `dec32` against the f64
    reference `ref` and the original's f32 results `orig32`; returns the
    baseline error (rel, max) of each output that the optimized model may
    not exceed by more than x 2 + 1e-6."""
    baseline = {}
    for name in ref:
        orig_rel, orig_max = errors(orig32[name], ref[name])
        dec_rel, dec_max = errors(dec32[name], ref[name])
        # The interpreter evaluates a whole norm op with its statistics
        # unrounded, which no f32 kernel does; the decomposed model, whose
        # mean and variance are f32 values, may be less accurate by the
        # conditioning of x - mean, and must still meet the accuracy bar.
        if dec_rel > max(2 * orig_rel + 1e-6, DECOMPOSED_BAR):
            raise Failure(f"decompose: {name}: error rel={dec_rel:.3e} vs "
                          f"original rel={orig_rel:.3e}")
        baseline[name] = (max(orig_rel, dec_rel), max(orig_max, dec_max))
    return baseline


def same_values(a, b):
    """Whether `a` and `b` hold the same values, NaN equal to NaN and -0
    unequal to +0."""
    if not np.array_equal(a, b, equal_nan=True):
        return False
    numbers = ~np.isnan(a)
    return np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers]))


def check_optimized(mode, ref, dec32, baseline, opt32):
    """Checks the pipeline's f32 results `opt32` in fp mode `mode` against
    the f64 reference and the baseline of check_decomposed."""
    if sorted(opt32) != sorted(ref):
        raise Failure(f"{mode}: outputs differ: {sorted(opt32)} vs "
                      f"{sorted(ref)}")
    for name in ref:
        if ref[name].shape != opt32[name].shape:
            raise Failure(f"{mode}: {name}: shape {opt32[name].shape} vs "
                          f"{ref[name].shape}")
        base_rel, base_max = baseline[name]
        opt_rel, opt_max = errors(opt32[name], ref[name])
        if opt_rel > 2 * base_rel + 1e-6 or opt_max > 2 * base_max + 1e-6:
            raise Failure(f"{mode}: {name}: optimized error "
                          f"rel={opt_rel:.3e} max={opt_max:.3e} vs "
                          f"original rel={base_rel:.3e} "
                          f"max={base_max:.3e}")
        # Strict rewrites preserve values: the pipeline must not change
        # a single bit of what the decomposed model computes, the sign of a
        # zero included (NaN payloads aside).
        if mode == "strict" and not same_values(dec32[name], opt32[name]):
            raise Failure(f"strict: {name}: the pipeline changed the f32 "
                          f"values of the decomposed model")


def check_model(tools, model_path, modes, work, dims, seed):
    """Checks `model_path` in every fp mode; raises Failure on the first
    mode that fails. Returns {mode: {rewrite label: count}}."""
    data = os.path.join(work, "data")
    orig32 = interpret(tools, model_path, os.path.join(work, "orig32"), "f32",
                       data, dims, seed=seed)
    inputs = input_names(tools, model_path)
    ref = interpret(tools, model_path, os.path.join(work, "ref"), "f64", data,
                    dims, inputs)
    # The decomposed model: the norms, softmax and var as the reductions and
    # elementwise ops that every later pass (and the GPU) computes them with.
    decomposed = os.path.join(work, "decomposed.mlir")
    with open(decomposed, "w") as f:
        f.write(run(tools.sinter_opt + [model_path, "--verify-each",
                                        "--sinter-decompose"]))
    dec32 = interpret(tools, decomposed, os.path.join(work, "dec32"), "f32",
                      data, dims, inputs)
    baseline = check_decomposed(ref, orig32, dec32)
    fired = {}
    for mode in modes:
        optimized = os.path.join(work, f"opt-{mode}.mlir")
        text = run(tools.sinter_opt + [model_path, "--verify-each",
                                       f"--sinter-pipeline=fp-mode={mode}"])
        fired[mode] = rewrites_fired(text)
        with open(optimized, "w") as f:
            f.write(text)
        opt32 = interpret(tools, optimized, os.path.join(work, f"opt-{mode}"),
                          "f32", data, dims, inputs)
        check_optimized(mode, ref, dec32, baseline, opt32)
    return fired


def check_case(tools, case):
    """Runs one case; returns (label, error text or None, model text,
    {mode: {rewrite label: count}})."""
    label, seed, path = case
    with tempfile.TemporaryDirectory() as work:
        text = None
        model_path = os.path.join(work, "model.mlir")
        try:
            if path is None:
                _, text = random_models.generate(seed)
                lowered = text
            else:
                # sinter-opt reads MLIR: lower .sinter files first.
                lowered = run([tools.sinterc, path, "-emit=mlir"])
            with open(model_path, "w") as f:
                f.write(lowered)
            fired = check_model(tools, model_path, tools.modes.split(","),
                                work, tools.dim if path else [], seed)
            return label, None, text, fired
        except (Failure, subprocess.TimeoutExpired) as error:
            return label, str(error), text, {}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sinterc", required=True)
    parser.add_argument("--sinter-opt", dest="sinter_opt", required=True,
                        type=shlex.split,
                        help="the sinter-opt command (may hold arguments)")
    parser.add_argument("--count", type=int, default=300,
                        help="number of random models")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--modes", default="fast,strict")
    parser.add_argument("--dim", action="append", default=[],
                        help="NAME=VALUE for the model files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("models", nargs="*", help="model files to check too")
    tools = parser.parse_args()

    cases = [(f"seed {s}", s, None) for s in
             range(tools.first_seed, tools.first_seed + tools.count)]
    cases += [(path, 0, path) for path in tools.models]
    failures = 0
    # Per mode: rewrite label -> the number of models in which it fired.
    models_with = {mode: {} for mode in tools.modes.split(",")}
    with concurrent.futures.ThreadPoolExecutor(tools.jobs) as pool:
        for label, error, text, fired in pool.map(
                lambda c: check_case(tools, c), cases):
            for mode, counts in fired.items():
                for rewrite in counts:
                    models_with[mode][rewrite] = \
                        models_with[mode].get(rewrite, 0) + 1
            if error is None:
                continue
            failures += 1
            print(f"FAIL {label}: {error}")
            if text:
                print(text)
    # Which rewrites the passing models exercised, in how many models.
    for mode, counts in models_with.items():
        print(f"difftest: rewrites fired ({mode}): " +
              ", ".join(f"{r} in {n}" for r, n in sorted(counts.items())))
    print(f"difftest: {len(cases) - failures} models passed, {failures} "
          f"failed ({tools.count} random from seed {tools.first_seed}, "
          f"{len(tools.models)} files; modes {tools.modes})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
