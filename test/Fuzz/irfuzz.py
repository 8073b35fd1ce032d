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
# and module by module when that fails) and reports every crash (a signal, an LLVM stack dump, a sanitizer
# report), hang (a tool that runs past --timeout seconds), verifier failure
# after a pass, error on a valid module, or mismatch. Modules with hostile
# names (every --hostile-every'th seed) go through the passes and the
# emitters only: their names are not file names for the interpreter's .npy
# files. A few refusals are known and owned elsewhere (KNOWN_REFUSALS); they
# are counted, not failures. A failing seed prints its module; rerun it with
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

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "Differential"))
import difftest  # noqa: E402
import random_modules  # noqa: E402

# Every pass, each run alone on the module (sinter-form-kernels on the
# decomposed module: it asks for decomposition first, rightly).
PASSES = ["sinter-decompose", "sinter-simplify",
          "sinter-simplify=fp-mode=strict", "sinter-hoist-params",
          "sinter-form-kernels"]

# Refusals of the emitter that other work owns: name -> pattern of the
# message. Each is tolerated and counted; anything else is a failure.
KNOWN_REFUSALS = {
    # Issue 15 (constant model outputs emitted as a fill).
    "constant result": r"a model result is a constant",
    # Issue 13 (every reduction geometry on the GPU): the row and column
    # reduction emitters' refusals of geometries they do not handle yet.
    "reduction geometry": r"CUDA emitter: (\w+ over leading dims is not "
    r"supported|a row_reduction kernel reduces trailing dims only|argmax/argmin"
    r" over segments of a row|the reductions and outputs of a row_reduction "
    r"kernel do not share rows|too many row segments)",
}

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


def interpret(tools, path, work, name, precision, seed=None, inputs=None):
    return difftest.interpret(tools, path, os.path.join(work, name),
                              precision, os.path.join(work, "data"), [],
                              inputs, seed)


def check_numerics(tools, case, decomposed, optimized):
    """The differential test's comparison (difftest.py) of the module of
    `case` before and after the pipeline."""
    work, path, seed = case["work"], case["path"], case["seed"]
    inputs = difftest.parse_input_names(case["text"])
    orig32 = interpret(tools, path, work, "orig32", "f32", seed=seed)
    ref = interpret(tools, path, work, "ref", "f64", inputs=inputs)
    dec32 = interpret(tools, decomposed, work, "dec32", "f32", inputs=inputs)
    baseline = difftest.check_decomposed(ref, orig32, dec32)
    for mode, opt_path in optimized.items():
        opt32 = interpret(tools, opt_path, work, f"opt-{mode}", "f32",
                          inputs=inputs)
        difftest.check_optimized(mode, ref, dec32, baseline, opt32)


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
            _, text = random_modules.generate(seed, hostile=hostile,
                                              pending=tools.pending_names)
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
        for c in live:
            try:
                if not c["hostile"]:
                    check_numerics(tools, c, c["decomposed"], c["optimized"])
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
    parser.add_argument("--pending-names", action="store_true",
                        help="also the hostile names that hang sinterc "
                        "until issue 19's reliability work lands")
    parser.add_argument("--chunk", type=int, default=10,
                        help="modules per sinter-opt run (--split-input-file)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    tools = parser.parse_args()
    tools.modes = "fast,strict"

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
