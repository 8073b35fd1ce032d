#!/usr/bin/env python3
# ===- irfuzz.py - Random-module fuzzer of the passes and the emitters -----===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
#
# Runs random verifier-valid sinter modules (random_modules.py) through
#   - every pass alone (sinter-opt --verify-each),
#   - the whole pipeline in both fp modes, and the reference interpreter
#     before and after it, compared by the differential test's rules
#     (test/Differential/difftest.py, check_model),
#   - the emitters: sinterc -emit=cuda with --emit-torch and
#     --print-fusion-plan, in the fp mode of the seed's parity,
# (sinter-opt runs over --chunk modules at a time, with --split-input-file,
# and so does the interpreter, with `sinterc run --batch`; a chunk that
# fails runs module by module, to name the seed) and reports every crash (a
# signal, an LLVM stack dump, a sanitizer report), hang (a tool that runs
# past --timeout seconds), verifier failure after a pass, error on a valid
# module, or mismatch. Modules with hostile names (every --hostile-every'th
# seed) go through the passes and the emitters only: their names are not
# file names for the interpreter's .npy files. A few refusals are known and
# owned elsewhere (KNOWN_REFUSALS); they are counted, not failures. A
# failing seed prints its module; rerun it with
# `irfuzz.py ... --first-seed N --count 1`. The last line is the summary.
#
# Python rather than C++ builders: the tools under test run as processes, so
# a crash or a hang is observed from outside with the exact command, and the
# interpreter comparison is difftest.py's own code.
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
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "Differential"))
import difftest  # noqa: E402
import random_modules  # noqa: E402

# Every pass, each run alone on the module (sinter-form-kernels on the
# decomposed module: it asks for decomposition first, rightly).
PASSES = ["sinter-decompose", "sinter-simplify",
          "sinter-simplify=fp-mode=strict", "sinter-hoist-params",
          "sinter-stage-reductions", "sinter-form-kernels"]

# Refusals of the emitter that other work owns: name -> pattern of the
# message. Each is tolerated and counted; anything else is a failure.
KNOWN_REFUSALS = {}

# The name policy (sinter/Support/Names.h): sinterc refuses, at its
# location, a name that is not an identifier. For modules with hostile names
# this is the expected outcome; it is counted like a known refusal.
NAME_POLICY = ("name policy", r"is not an identifier \(\[A-Za-z_\]")

# Output that means a tool crashed even when its exit status looks normal.
CRASH_MARKERS = ["Stack dump", "LLVM ERROR", "PLEASE submit a bug report",
                 "AddressSanitizer", "runtime error:", "Assertion"]


class Finding(Exception):
    pass


def run_tool(cmd, timeout, allowed=()):
    """Runs `cmd`; returns its stdout, or None when it failed with an error
    matching one of `allowed` (the matching pattern's index is not needed).
    Raises Finding on a crash, a hang or any other error."""
    line = " ".join(shlex.quote(c) for c in cmd)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Finding(f"hang: ran past {timeout} s: {line}")
    output = proc.stdout + proc.stderr
    if proc.returncode < 0 or proc.returncode > 1 or any(
            marker in output for marker in CRASH_MARKERS):
        raise Finding(f"crash (exit {proc.returncode}): {line}\n"
                      f"{output[-3000:]}")
    if proc.returncode == 0:
        return proc.stdout
    for pattern in allowed:
        if re.search(pattern, proc.stderr):
            return None
    raise Finding(f"error on a valid module: {line}\n{proc.stderr[-3000:]}")


def split_output(text):
    """The outputs of a --split-input-file run, one per input module."""
    return text.split("\n// -----\n")


def run_batch(tools, paths, args, allowed=()):
    """Runs sinter-opt `args` on each module of `paths`: once over all of
    them (--split-input-file), and module by module only when that fails, to
    name the module. Returns ({path: output}, {path: finding})."""
    if len(paths) > 1:
        joined = paths[0] + ".batch.mlir"
        with open(joined, "w") as f:
            f.write("\n// -----\n".join(open(p).read() for p in paths))
        try:
            output = run_tool(tools.sinter_opt + [joined, "--split-input-file"] +
                              args, tools.timeout * len(paths))
            pieces = split_output(output)
            if len(pieces) == len(paths):
                return dict(zip(paths, pieces)), {}
        except Finding:
            pass
    outputs, findings = {}, {}
    for path in paths:
        try:
            outputs[path] = run_tool(tools.sinter_opt + [path] + args,
                                     tools.timeout, allowed)
        except Finding as finding:
            findings[path] = f"sinter-opt {' '.join(args)}: {finding}"
    return outputs, findings


def check_emitters(tools, path, work, seed, hostile=False):
    """sinterc -emit=cuda --emit-torch; returns the known refusal met (with
    `hostile` names, also the name policy's), or None."""
    mode = "fast" if seed % 2 == 0 else "strict"
    out = os.path.join(work, "gen")
    cmd = [tools.sinterc, path, "-o", out, "--emit-torch",
           f"--fp-mode={mode}", "--print-fusion-plan"]
    try:
        run_tool(cmd, tools.timeout)
    except Finding as finding:
        refusals = dict(KNOWN_REFUSALS, **dict([NAME_POLICY] if hostile else []))
        for refusal, pattern in refusals.items():
            if str(finding).startswith("error") and re.search(
                    pattern, str(finding)):
                return refusal
        raise
    return None


def interpreter_args(case, path, name, precision, seed=None):
    """The arguments of one `sinterc run` of `path` for `case`, writing its
    outputs to <work>/<name>: with `seed`, drawing the inputs and saving
    them to <work>/data; otherwise reading them from there."""
    data = os.path.join(case["work"], "data")
    args = [path, f"--precision={precision}",
            f"--out-dir={os.path.join(case['work'], name)}"]
    if seed is not None:
        return args + [f"--seed={seed}", f"--save-inputs={data}"]
    args.append(f"--params-dir={data}")
    inputs = difftest.parse_input_names(case["text"])
    if inputs:
        args += ["--inputs"] + [os.path.join(data, n + ".npy")
                                for n in inputs]
    return args


def run_interpreter(tools, runs):
    """Runs the interpreter once for each (case, arguments) of `runs`: all
    in one process (`sinterc run --batch`), and run by run only when that
    process crashes, to name the case. Returns {seed: finding} for the
    cases whose run failed."""
    if not runs:
        return {}
    work = os.path.dirname(runs[0][0]["work"])
    commands = os.path.join(work, f"batch-{runs[0][0]['seed']}.txt")
    with open(commands, "w") as f:
        f.write("".join(" ".join(shlex.quote(a) for a in args) + "\n"
                        for _, args in runs))
    cmd = [tools.sinterc, "run", f"--batch={commands}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              errors="replace",
                              timeout=tools.timeout * len(runs))
        output = proc.stdout + proc.stderr
        crashed = proc.returncode < 0 or proc.returncode > 1 or any(
            marker in output for marker in CRASH_MARKERS)
    except subprocess.TimeoutExpired:
        crashed = True
    findings = {}
    if crashed:
        for case, args in runs:
            try:
                run_tool([tools.sinterc, "run"] + args, tools.timeout)
            except Finding as finding:
                findings.setdefault(case["seed"], f"interpreter: {finding}")
        return findings
    # Each run's stderr lies between its frame lines.
    for index, (case, args) in enumerate(runs):
        frame = f"sinterc run: batch line {index + 1}"
        error = proc.stderr.split(frame + "\n", 1)[-1].split(frame + " exit",
                                                               1)
        status = proc.stdout.split(frame + " exit ", 1)[-1].split("\n", 1)[0]
        if status != "0":
            line = " ".join(shlex.quote(a) for a in ["sinterc", "run"] + args)
            findings.setdefault(case["seed"], "interpreter: error on a valid "
                                f"module: {line}\n{error[0][-3000:]}")
    return findings


def load_outputs(case, name):
    out = os.path.join(case["work"], name)
    return {f[:-4]: np.load(os.path.join(out, f))
            for f in sorted(os.listdir(out)) if f.endswith(".npy")}


def check_numerics(case):
    """The differential test's comparison (difftest.py) of the interpreter's
    results of `case` before and after the pipeline."""
    ref, orig32, dec32 = (load_outputs(case, name)
                          for name in ("ref", "orig32", "dec32"))
    baseline = difftest.check_decomposed(ref, orig32, dec32)
    for mode in case["optimized"]:
        difftest.check_optimized(mode, ref, dec32, baseline,
                                 load_outputs(case, f"opt-{mode}"))


def write_stage(case, name, text):
    path = os.path.join(case["work"], name + ".mlir")
    with open(path, "w") as f:
        f.write(text)
    return path


def check_chunk(tools, seeds):
    """Runs the modules of `seeds`; returns [(seed, finding or None, known
    refusal or None, module text)]."""
    results = {}
    with tempfile.TemporaryDirectory() as root:
        cases = []
        for seed in seeds:
            hostile = tools.hostile_every > 0 and \
                seed % tools.hostile_every == 0
            _, text = random_modules.generate(seed, hostile=hostile)
            work = os.path.join(root, str(seed))
            os.makedirs(work)
            case = {"seed": seed, "text": text, "work": work,
                    "hostile": hostile}
            case["path"] = write_stage(case, "model", text)
            cases.append(case)
        failed = {}

        def batch(stage_cases, args, source="path"):
            paths = [c[source] for c in stage_cases]
            outputs, findings = run_batch(tools, paths, args)
            for c in stage_cases:
                if c[source] in findings:
                    failed.setdefault(c["seed"], findings[c[source]])
            return {c["seed"]: outputs.get(c[source]) for c in stage_cases}

        # Every pass alone: form-kernels on the decomposed module (on the
        # original it rightly asks for decomposition first).
        live = cases
        for name in PASSES:
            source = "path"
            if name == "sinter-form-kernels":
                source = "decomposed"
            outputs = batch(live, ["--verify-each", f"--{name}"], source)
            live = [c for c in live if c["seed"] not in failed]
            if name == "sinter-decompose":
                for c in live:
                    c["decomposed"] = write_stage(c, "decomposed",
                                                  outputs[c["seed"]])
        # The pipeline in both fp modes.
        for mode in ("fast", "strict"):
            outputs = batch(live, ["--verify-each",
                                   f"--sinter-pipeline=fp-mode={mode}"])
            live = [c for c in live if c["seed"] not in failed]
            for c in live:
                c.setdefault("optimized", {})[mode] = write_stage(
                    c, f"opt-{mode}", outputs[c["seed"]])
        # The interpreter before and after the pipeline, in two batches: the
        # first draws the inputs that the second reads. Modules with
        # hostile names go to the emitters only.
        numeric = [c for c in live if not c["hostile"]]
        failed.update(run_interpreter(tools, [
            (c, interpreter_args(c, c["path"], "orig32", "f32", c["seed"]))
            for c in numeric]))
        numeric = [c for c in numeric if c["seed"] not in failed]
        failed.update(run_interpreter(tools, [
            (c, interpreter_args(c, path, name, precision))
            for c in numeric
            for name, path, precision in
            [("ref", c["path"], "f64"), ("dec32", c["decomposed"], "f32")] +
            [(f"opt-{mode}", path, "f32")
             for mode, path in c["optimized"].items()]]))
        live = [c for c in live if c["seed"] not in failed]
        for c in live:
            try:
                if not c["hostile"]:
                    check_numerics(c)
                results[c["seed"]] = check_emitters(tools, c["path"],
                                                    c["work"], c["seed"],
                                                    c["hostile"])
            except (Finding, difftest.Failure) as error:
                failed[c["seed"]] = str(error)
            except subprocess.TimeoutExpired as error:
                failed[c["seed"]] = f"hang: {error}"
        return [(c["seed"], failed.get(c["seed"]), results.get(c["seed"]),
                 c["text"]) for c in cases]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sinterc", required=True)
    parser.add_argument("--sinter-opt", dest="sinter_opt", required=True,
                        type=shlex.split)
    parser.add_argument("--count", type=int, default=100,
                        help="number of modules (seeds)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=0,
                        help="stop starting new cases after this many "
                        "seconds (0: no limit); the summary counts the cases "
                        "that ran")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds one tool may run before it hangs")
    parser.add_argument("--hostile-every", type=int, default=10,
                        help="every Nth seed gets hostile names (0: none)")
    parser.add_argument("--chunk", type=int, default=10,
                        help="modules per sinter-opt run (--split-input-file)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    tools = parser.parse_args()

    start = time.monotonic()
    seeds = iter(range(tools.first_seed, tools.first_seed + tools.count))
    ran = failures = 0
    refusals = {}
    with concurrent.futures.ThreadPoolExecutor(tools.jobs) as pool:
        pending = set()
        while True:
            while len(pending) < 2 * tools.jobs:
                if tools.seconds and time.monotonic() - start > tools.seconds:
                    break
                chunk = [s for _, s in zip(range(tools.chunk), seeds)]
                if not chunk:
                    break
                pending.add(pool.submit(check_chunk, tools, chunk))
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                for seed, error, refusal, text in future.result():
                    ran += 1
                    if refusal:
                        refusals.setdefault(refusal, []).append(seed)
                    if error is None:
                        continue
                    failures += 1
                    print(f"FAIL seed {seed}: {error}\n{text}", flush=True)
    for refusal, seeds_refused in sorted(refusals.items()):
        shown = " ".join(map(str, sorted(seeds_refused)[:20]))
        print(f"known refusal '{refusal}': {len(seeds_refused)} modules "
              f"(seeds {shown}{' ...' if len(seeds_refused) > 20 else ''})")
    print(f"irfuzz: {ran - failures} modules passed, {failures} failed "
          f"(seeds {tools.first_seed}..{tools.first_seed + ran - 1}, "
          f"{time.monotonic() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
