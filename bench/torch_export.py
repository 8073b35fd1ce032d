"""sinter.compile on PyTorch modules: accuracy against float64 and speed
against eager and torch.compile, on a GPU.

Two steps, as for bench/run.py (the GPU machine has no MLIR):

    python3 bench/torch_export.py prepare OUT     # here: export + sinterc
    python3 OUT/torch_export.py run OUT           # on the GPU (PyTorch, nvcc)

`prepare` builds each module of bench/torch_models/*.py (KernelBench
layout) and runs `sinter.generate` on it (the .sinter model and the
generated CUDA and extension sources, OUT/sources/<model>-<hash>/), and
copies itself, the models and the sinter package into OUT. `run` builds
the extensions (several at once), then per model: `sinter.compile(module,
inputs, sources=...)` (no export, no sinterc), checks the outputs of
eager float32 and of Sinter against the module in float64 on the GPU at
the full batch and at a batch of 3, checks that changing a param leaves
the compiled module as it was until `refresh()`, and times eager,
Sinter and torch.compile (CUDA events after warm-up, median of --reps
runs, L2 flushed before each). torch.compile is skipped for the models
left when --budget-s seconds have passed. Writes OUT/results.json and
prints a table.
"""

import argparse
import concurrent.futures
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The sinter package: beside this file in a prepared folder, else the
# source tree's.
for _path in (os.path.join(HERE, "python"), os.path.join(HERE, "..", "python")):
    if os.path.isdir(os.path.join(_path, "sinter")):
        sys.path.insert(0, _path)
        break


def model_files(root):
    return sorted(glob.glob(os.path.join(root, "torch_models", "*.py")))


def load(path):
    from sinter.__main__ import load_problem
    import torch
    torch.manual_seed(0)
    return load_problem(path, "Model")


def prepare(out):
    import sinter
    os.makedirs(out, exist_ok=True)
    index = {}
    for path in model_files(HERE):
        name = os.path.splitext(os.path.basename(path))[0]
        module, inputs = load(path)
        folder = sinter.generate(module, tuple(inputs),
                                 cache_dir=os.path.join(out, "sources"),
                                 name=name)
        index[name] = os.path.basename(folder)
        print(f"prepare: {name} -> {os.path.relpath(folder, out)}")
    shutil.copytree(os.path.join(HERE, "torch_models"),
                    os.path.join(out, "torch_models"), dirs_exist_ok=True)
    shutil.copytree(os.path.join(HERE, "..", "python", "sinter"),
                    os.path.join(out, "python", "sinter"), dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.abspath(__file__), out)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=2, sort_keys=True)


def build(folder):
    """Builds one extension (a subprocess of `run`)."""
    with open(os.path.join(folder, "sinter.json")) as f:
        model = json.load(f)["model"]
    spec_path = os.path.join(folder, "gen", f"{model}_torch.py")
    import importlib.util
    spec = importlib.util.spec_from_file_location("loader", spec_path)
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    loader.load(build_directory=os.path.join(folder, "build"))


def rel_error(got, want):
    import torch
    got, want = got.double(), want.double()
    return (torch.linalg.vector_norm(got - want) /
            torch.linalg.vector_norm(want)).item()


def outputs_of(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def time_ms(fn, reps):
    """Median ms of `fn` over `reps` runs, CUDA events, L2 flushed."""
    import torch
    flush = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def check_and_time(name, folder, options, deadline):
    import torch
    import sinter
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    module, inputs = load(os.path.join(HERE, "torch_models", f"{name}.py"))
    module = module.cuda()
    inputs = [x.cuda() for x in inputs]
    compiled = sinter.compile(module, tuple(inputs), sources=folder)
    reference = copy.deepcopy(module).double()
    row = {"model": name, "batch": inputs[0].shape[0]}
    worst = {"eager": 0.0, "sinter": 0.0}
    with torch.no_grad():
        for batch in (inputs[0].shape[0], 3):
            xs = [x[:batch].contiguous() for x in inputs]
            want = outputs_of(reference(*[x.double() for x in xs]))
            for label, fn in (("eager", module), ("sinter", compiled)):
                got = outputs_of(fn(*xs))
                for g, w in zip(got, want):
                    worst[label] = max(worst[label], rel_error(g, w))
        row["rel_err_eager"] = worst["eager"]
        row["rel_err_sinter"] = worst["sinter"]
        row["accurate"] = worst["sinter"] <= max(2 * worst["eager"], 1e-5)

        # Params: a snapshot at creation; refresh() reads them again.
        before = outputs_of(compiled(*inputs))
        parameter = next(module.parameters())
        parameter.mul_(1.5)
        after = outputs_of(compiled(*inputs))
        unchanged = all(torch.equal(a, b) for a, b in zip(before, after))
        compiled.refresh()
        want = outputs_of(copy.deepcopy(module).double()(
            *[x.double() for x in inputs]))
        refreshed = max(rel_error(g, w) for g, w in
                        zip(outputs_of(compiled(*inputs)), want))
        row["params_snapshot"] = unchanged and refreshed <= max(
            4 * worst["eager"], 1e-5)

        row["eager_ms"] = time_ms(lambda: module(*inputs), options.reps)
        row["sinter_ms"] = time_ms(lambda: compiled(*inputs), options.reps)
        if time.time() < deadline:
            fast = torch.compile(module)
            row["compile_ms"] = time_ms(lambda: fast(*inputs), options.reps)
        else:
            row["compile_ms"] = None
    return row


def run(out, options):
    import torch
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    names = [n for n in sorted(index) if not options.models or
             n in options.models]
    folders = {n: os.path.join(out, "sources", index[n]) for n in names}
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        jobs = {n: pool.submit(subprocess.run, [
            sys.executable, os.path.abspath(__file__), "build", folders[n]],
            capture_output=True, text=True) for n in names}
    for n, job in jobs.items():
        result = job.result()
        if result.returncode != 0:
            print(f"build of {n} failed:\n{result.stderr[-3000:]}")
    print(f"built {len(names)} extensions in {time.time() - start:.0f} s",
          flush=True)
    deadline = start + options.budget_s
    rows = []
    for n in names:
        try:
            rows.append(check_and_time(n, folders[n], options, deadline))
        except Exception as error:  # reported per model
            rows.append({"model": n, "error": f"{type(error).__name__}: "
                                              f"{error}"[:2000]})
        print(json.dumps(rows[-1]), flush=True)
    device = torch.cuda.get_device_name()
    result = {"device": device, "torch": torch.__version__,
              "command": " ".join(sys.argv), "reps": options.reps,
              "rows": rows}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(table(result))


def table(result):
    lines = [f"{result['device']}, PyTorch {result['torch']}, TF32 off; ms "
             f"are medians of {result['reps']} runs, L2 flushed",
             "",
             "| model | B | eager ms | torch.compile ms | Sinter ms | x eager"
             " | x compile | rel err eager | rel err Sinter | params "
             "snapshot |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
             "| :---: |"]
    for row in result["rows"]:
        if "error" in row:
            lines.append(f"| {row['model']} | error: {row['error'][:200]} |")
            continue
        compile_ms = row["compile_ms"]
        lines.append(
            f"| {row['model']} | {row['batch']} | {row['eager_ms']:.3f} | "
            + (f"{compile_ms:.3f}" if compile_ms else "skipped") +
            f" | {row['sinter_ms']:.3f} | "
            f"{row['eager_ms'] / row['sinter_ms']:.2f}x | " +
            (f"{compile_ms / row['sinter_ms']:.2f}x" if compile_ms else "-")
            + f" | {row['rel_err_eager']:.1e} | {row['rel_err_sinter']:.1e}"
            f" | {'yes' if row['params_snapshot'] else 'NO'} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare")
    p.add_argument("out")
    r = commands.add_parser("run")
    r.add_argument("out")
    r.add_argument("--reps", type=int, default=30)
    r.add_argument("--jobs", type=int, default=11)
    r.add_argument("--budget-s", type=float, default=400)
    r.add_argument("models", nargs="*")
    b = commands.add_parser("build")
    b.add_argument("folder")
    t = commands.add_parser("table")
    t.add_argument("results")
    options = parser.parse_args()
    if options.command == "prepare":
        prepare(options.out)
    elif options.command == "run":
        run(options.out, options)
    elif options.command == "build":
        build(options.folder)
    else:
        with open(options.results) as f:
            print(table(json.load(f)))


if __name__ == "__main__":
    main()
