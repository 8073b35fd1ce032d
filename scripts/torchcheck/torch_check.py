#!/usr/bin/env python3
"""Checks the PyTorch extensions of a `torch-check prepare` folder on a GPU.

Runs on a GPU machine with PyTorch, NumPy and nvcc (no MLIR needed):

  python3 torch_check.py <dir> [--jobs N] [--verbose] [MODEL...]

For the folder <dir> (scripts/torchcheck/prepare.py documents it):
  1. builds every extension with its loader, gen/<model>/<model>_torch.py
     (load(build_directory=<dir>/build/<model>)), several at a time in child
     processes; build logs go to <dir>/logs/;
  2. per model: checks PARAM_NAMES, INPUT_NAMES, OUTPUT_NAMES and DIMS, runs
     Model(*params).forward(*inputs) on cuda:0 and compares every output
     with the f64 interpreter's (relative error norm ||y - ref|| / ||ref||
     at most 1e-5; indices exactly); runs again with the params and inputs
     by keyword and on a side stream (both bitwise equal to the first run);
     checks that a float64 tensor, a CPU tensor, a tensor of the wrong
     shape, one of the wrong rank and a non-contiguous one, given as each
     input and as the first param, raise RuntimeError with the tensor's name
     in the message; that an empty batch (a dim that empties every output
     set to 0) gives empty outputs of the right shapes; and that the model
     still gives the same outputs;
  3. prints one line per model and `N passed, N failed`. Exit status 0 when
     every model passed.
"""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

TOLERANCE = 1e-5


def import_bridge(folder, model):
    """Imports gen/<model>/<model>_torch.py, the loader --emit-torch wrote."""
    path = os.path.join(folder, "gen", model, model + "_torch.py")
    spec = importlib.util.spec_from_file_location(model + "_torch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_extension(folder, model, verbose=False):
    build = os.path.join(folder, "build", model)
    os.makedirs(build, exist_ok=True)
    return import_bridge(folder, model).load(build_directory=build, verbose=verbose)


def build_all(folder, models, jobs, verbose):
    """Builds every extension in a child process each; returns
    {model: (seconds, error text or None)}."""
    logs = os.path.join(folder, "logs")
    os.makedirs(logs, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("MAX_JOBS", str(max(1, (os.cpu_count() or 2) // jobs)))

    def build(model):
        command = [sys.executable, os.path.abspath(__file__), folder, model,
                   "--build-only"] + (["--verbose"] if verbose else [])
        log = os.path.join(logs, model + ".build.log")
        start = time.monotonic()
        with open(log, "w") as out:
            rc = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        seconds = time.monotonic() - start
        error = None if rc == 0 else "build failed (%s): %s" % (
            log, open(log).read()[-2000:])
        return model, (seconds, error)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(build, models))


def build_draw(folder):
    """Compiles draw.cpp (the generator of `sinterc run`); returns its path."""
    from torch.utils.cpp_extension import CUDA_HOME
    nvcc = shutil.which("nvcc") or os.path.join(CUDA_HOME or "/usr/local/cuda", "bin", "nvcc")
    gens = sorted(os.listdir(os.path.join(folder, "gen")))
    include = os.path.join(folder, "gen", gens[0], "sinter_rt", "include")
    binary = os.path.join(folder, "build", "draw")
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    subprocess.run([nvcc, "-std=c++17", "-O2", "-I", folder, "-I", include,
                    os.path.join(folder, "draw.cpp"), "-o", binary], check=True)
    return binary


def read_tensor(case_dir, case, entry, draw):
    """An input or param as a float32 NumPy array."""
    if "file" in entry:
        return np.load(os.path.join(case_dir, entry["file"]))
    count = int(np.prod(entry["shape"]))
    args = ",".join(repr(float(a)) for a in entry["args"]) or "-"
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "values.f32")
        checksum = subprocess.run(
            [draw, str(case["seed"]), entry["name"], entry["hint"], args, str(count), path],
            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        if checksum != entry["checksum"]:
            raise RuntimeError("%s drawn here differs from the one sinterc run saved "
                               "(checksum %s, expected %s)"
                               % (entry["name"], checksum, entry["checksum"]))
        return np.fromfile(path, dtype="<f4").reshape(entry["shape"])


def bad_variants(tensor, entry):
    """The tensors that the extension must reject in place of `tensor`."""
    import torch
    shape = list(tensor.shape)
    static = [i for i, symbolic in enumerate(entry["symbolic"]) if not symbolic]
    if static:
        wrong = list(shape)
        wrong[static[-1]] += 1
        wrong_shape = torch.zeros(wrong, dtype=torch.float32, device=tensor.device)
    else:
        wrong_shape = tensor.unsqueeze(0)
    strided = torch.empty(shape + [2], dtype=torch.float32, device=tensor.device)[..., 0]
    strided.copy_(tensor)
    variants = {"dtype": tensor.double(), "device": tensor.cpu(), "shape": wrong_shape,
                "rank": tensor.unsqueeze(0)}
    if not strided.is_contiguous():
        variants["contiguity"] = strided
    return variants


def expect_error(call, name, what, failures):
    """Runs call(); records a failure unless it raises RuntimeError naming
    `name`."""
    try:
        call()
    except RuntimeError as error:
        if "'%s'" % name not in str(error):
            failures.append("%s: the error does not name '%s': %s"
                            % (what, name, str(error).splitlines()[0][:200]))
        return
    except Exception as error:  # noqa: BLE001 - reported as a failure
        failures.append("%s: raised %s, not RuntimeError: %s"
                        % (what, type(error).__name__, str(error)[:200]))
        return
    failures.append("%s: accepted" % what)


def as_tuple(outputs):
    return outputs if isinstance(outputs, tuple) else (outputs,)


def check_case(ext, case_dir, case, draw):
    """Returns (worst relative error norm, worst max abs error, error checks
    made, the dim set to 0 for the empty batch or None, failures)."""
    import torch
    failures = []
    device = torch.device("cuda", 0)
    params = [torch.from_numpy(read_tensor(case_dir, case, e, draw)).to(device)
              for e in case["params"]]
    inputs = [torch.from_numpy(read_tensor(case_dir, case, e, draw)).to(device)
              for e in case["inputs"]]
    param_names = [e["name"] for e in case["params"]]
    input_names = [e["name"] for e in case["inputs"]]
    output_names = [e["name"] for e in case["outputs"]]
    for attribute, expected in (("PARAM_NAMES", param_names),
                                ("INPUT_NAMES", input_names),
                                ("OUTPUT_NAMES", output_names),
                                ("DIMS", sorted(case["dims"]))):
        value = getattr(ext, attribute, None)
        if not isinstance(value, tuple) or list(value) != expected:
            failures.append("%s is %r, expected %r" % (attribute, value, tuple(expected)))

    model = ext.Model(*params)
    outputs = model.forward(*inputs)
    torch.cuda.synchronize()
    if len(case["outputs"]) == 1 and not isinstance(outputs, torch.Tensor):
        failures.append("forward returned %s for one output, not a tensor"
                        % type(outputs).__name__)
    if len(case["outputs"]) > 1 and not isinstance(outputs, tuple):
        failures.append("forward returned %s for %d outputs, not a tuple"
                        % (type(outputs).__name__, len(case["outputs"])))
    outputs = as_tuple(outputs)
    worst_rel, worst_abs = 0.0, 0.0
    for entry, output in zip(case["outputs"], outputs):
        ref = np.load(os.path.join(case_dir, entry["file"]))
        got = output.cpu().numpy()
        if list(got.shape) != entry["shape"]:
            failures.append("%s: shape %s, expected %s" % (entry["name"], list(got.shape),
                                                           entry["shape"]))
            continue
        if entry["dtype"] == "i64":
            if output.dtype != torch.int64:
                failures.append("%s: dtype %s, expected int64" % (entry["name"], output.dtype))
            wrong = int(np.sum(got != ref))
            if wrong:
                failures.append("%s: %d of %d indices differ" % (entry["name"], wrong, got.size))
            continue
        if output.dtype != torch.float32:
            failures.append("%s: dtype %s, expected float32" % (entry["name"], output.dtype))
        diff = got.astype(np.float64) - ref
        norm = float(np.linalg.norm(ref))
        rel = float(np.linalg.norm(diff)) / norm if norm > 0 else float(np.linalg.norm(diff))
        worst_rel = max(worst_rel, rel)
        worst_abs = max(worst_abs, float(np.max(np.abs(diff))) if diff.size else 0.0)
        if not rel <= TOLERANCE:
            failures.append("%s: relative error norm %.3g > %g" % (entry["name"], rel, TOLERANCE))

    # By keyword, and on a side stream: the same bits.
    by_name = ext.Model(**dict(zip(param_names, params)))
    again = as_tuple(by_name.forward(**dict(zip(input_names, inputs))))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        on_stream = as_tuple(model.forward(*inputs))
    stream.synchronize()
    torch.cuda.synchronize()
    for label, results in (("by keyword", again), ("on a side stream", on_stream)):
        for name, a, b in zip(output_names, outputs, results):
            if not torch.equal(a, b):
                failures.append("%s: %s differs from the first run" % (name, label))
    del by_name

    # Error paths: each input, then the first param.
    checks = 0
    for index, entry in enumerate(case["inputs"]):
        for label, bad in bad_variants(inputs[index], entry).items():
            arguments = list(inputs)
            arguments[index] = bad
            expect_error(lambda: model.forward(*arguments), entry["name"],
                         "input '%s' with the wrong %s" % (entry["name"], label), failures)
            checks += 1
    if case["params"]:
        entry = case["params"][0]
        for label, bad in bad_variants(params[0], entry).items():
            arguments = [bad] + params[1:]
            expect_error(lambda: ext.Model(*arguments), entry["name"],
                         "param '%s' with the wrong %s" % (entry["name"], label), failures)
            checks += 1
    # An empty batch: a dim that empties every output set to 0 gives empty
    # outputs of the right shapes (the C API returns before any launch).
    emptying = [d for d in case.get("emptying", [])
                if not any(d in e["sizes"] for e in case["params"])]
    if emptying:
        values = dict(case["dims"], **{emptying[0]: 0})
        shape_of = lambda entry: [int(eval(size, {"__builtins__": {}}, values))
                                  for size in entry["sizes"]]
        empty = [torch.zeros(shape_of(e), dtype=torch.float32, device=device)
                 for e in case["inputs"]]
        results = as_tuple(model.forward(*empty))
        torch.cuda.synchronize()
        for entry, result in zip(case["outputs"], results):
            if list(result.shape) != shape_of(entry) or result.numel() != 0:
                failures.append("%s with %s = 0: shape %s, expected %s" % (
                    entry["name"], emptying[0], list(result.shape), shape_of(entry)))
        checks += 1
    # The model still works after the rejected calls.
    torch.cuda.synchronize()
    final = as_tuple(model.forward(*inputs))
    for name, a, b in zip(output_names, outputs, final):
        if not torch.equal(a, b):
            failures.append("%s differs after the rejected calls" % name)
    del model
    torch.cuda.synchronize()
    return worst_rel, worst_abs, checks, emptying[0] if emptying else None, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("models", nargs="*", help="models to check (default: all)")
    parser.add_argument("--jobs", type=int, default=0,
                        help="extensions built at a time (default: cores / 2, at most 8)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    if args.build_only:
        for model in args.models:
            load_extension(folder, model, args.verbose)
        return 0

    models = args.models or sorted(os.listdir(os.path.join(folder, "cases")))
    jobs = args.jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
    print("torch-check: building %d extensions (%d at a time; logs in %s)"
          % (len(models), jobs, os.path.join(folder, "logs")), flush=True)
    built = build_all(folder, models, jobs, args.verbose)
    cases = {m: json.load(open(os.path.join(folder, "cases", m, "case.json"))) for m in models}
    draw = None
    if any("file" not in e for c in cases.values() for e in c["params"] + c["inputs"]):
        draw = build_draw(folder)

    passed = failed = 0
    for model in models:
        seconds, error = built[model]
        if error:
            print("FAIL  %-28s build: %s" % (model, error.strip().splitlines()[-1][:200]),
                  flush=True)
            failed += 1
            continue
        try:
            ext = load_extension(folder, model)
            rel, abs_err, checks, empty_dim, failures = check_case(
                ext, os.path.join(folder, "cases", model), cases[model], draw)
        except Exception:  # noqa: BLE001 - one model's crash fails only it
            print("FAIL  %-28s %s" % (model, traceback.format_exc().strip().splitlines()[-1]),
                  flush=True)
            traceback.print_exc()
            failed += 1
            continue
        status = "PASS" if not failures else "FAIL"
        print("%s  %-28s rel err %.2e  max abs %.2e  error checks %d  empty %s  "
              "build %.0f s%s"
              % (status, model, rel, abs_err, checks,
                 "%s=0" % empty_dim if empty_dim else "-", seconds,
                 "".join("\n      - " + f for f in failures)), flush=True)
        passed += not failures
        failed += bool(failures)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
