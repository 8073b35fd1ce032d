#!/usr/bin/env python3
# ===- bench/reduction_sweep.py - Reductions and norms of every geometry ----===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
"""The reduction and normalization sweep: single-op models over trailing,
leading, middle, strided and all dims, timed against PyTorch eager and
torch.compile in one run, with accuracy against float64 and the fraction of
the measured copy bandwidth.

Two steps, on two machines:

  python3 bench/reduction_sweep.py prepare OUT   (where sinterc is built)
      writes OUT/<case>/<case>.sinter and its generated .cu/.h, the runtime
      sources and this script;
  python3 OUT/reduction_sweep.py run OUT --out results.json   (on the GPU)
      builds every case with nvcc into a shared library, calls its C API
      through ctypes on PyTorch's stream, and times every contestant with
      CUDA events after a warm-up, the L2 flushed before every run (median);
  python3 bench/reduction_sweep.py report results.json   (anywhere)
      writes results.md beside it: one row per case.
"""

import argparse
import concurrent.futures
import ctypes
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (sinter source body lines, inputs {name: shape}, params {name: shape},
#        torch reference as a Python expression over the inputs and params)
CASES = {
    "sum_last": (["return sum(x, dim=1)"], {"x": [4096, 16384]}, {},
                 "x.sum(dim=1)"),
    "sum_first": (["return sum(x, dim=0)"], {"x": [16384, 4096]}, {},
                  "x.sum(dim=0)"),
    "sum_middle": (["return sum(x, dim=1)"], {"x": [64, 1024, 1024]}, {},
                   "x.sum(dim=1)"),
    "sum_all": (["return sum(x * x)"], {"x": [8192, 8192]}, {},
                "(x * x).sum()"),
    "mean_nchw": (["return mean(x, dim=[0, 2, 3])"],
                  {"x": [64, 256, 64, 64]}, {}, "x.mean(dim=(0, 2, 3))"),
    "max_last": (["return max(x, dim=1)"], {"x": [16384, 4096]}, {},
                 "x.amax(dim=1)"),
    "argmax_first": (["return argmax(x, dim=0)"], {"x": [16384, 4096]}, {},
                     "x.argmax(dim=0)"),
    "argmin_last": (["return argmin(x, dim=1)"], {"x": [4096, 16384]}, {},
                    "x.argmin(dim=1)"),
    "var_middle": (["return var(x, dim=1)"], {"x": [64, 1024, 1024]}, {},
                   "x.var(dim=1)"),
    "softmax_65536": (["return softmax(x, dim=1)"], {"x": [1024, 65536]}, {},
                      "torch.softmax(x, dim=1)"),
    "layer_norm_long": (["return layer_norm(x, [4194304], weight=w, bias=b)"],
                        {"x": [16, 4194304]}, {"w": [4194304], "b": [4194304]},
                        "F.layer_norm(x, (4194304,), w, b)"),
    "rms_norm": (["return rms_norm(x, [1024], weight=w)"], {"x": [65536, 1024]},
                 {"w": [1024]}, "F.rms_norm(x, (1024,), w)"),
    "instance_norm_long": (["return instance_norm(x)"],
                           {"x": [16, 64, 256, 256]}, {},
                           "F.instance_norm(x)"),
    "batch_norm_nc": (["return batch_norm(x, training=true)"],
                      {"x": [65536, 1024]}, {},
                      "F.batch_norm(x, None, None, training=True)"),
    "batch_norm_nchw": (["return batch_norm(x, training=true)"],
                        {"x": [64, 256, 64, 64]}, {},
                        "F.batch_norm(x, None, None, training=True)"),
    "relu_1gib": (["return relu(x)"], {"x": [16384, 16384]}, {},
                  "torch.relu(x)"),
}


def model_source(name, body, inputs, params):
    lines = [f"# Reduction sweep case {name}.", f"model {name} {{"]
    for arg, shape in inputs.items():
        lines.append(f"  input {arg}: f32[{', '.join(map(str, shape))}]")
    for arg, shape in params.items():
        lines.append(f"  param {arg}: f32[{', '.join(map(str, shape))}] = randn()")
    lines += ["  " + line for line in body] + ["}"]
    return "\n".join(lines) + "\n"


def prepare(out, sinterc, root):
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.abspath(__file__), out)
    shutil.copytree(os.path.join(root, "runtime"), os.path.join(out, "runtime"),
                    dirs_exist_ok=True, ignore=shutil.ignore_patterns("test"))
    for name, (body, inputs, params, _) in CASES.items():
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        source = os.path.join(folder, name + ".sinter")
        with open(source, "w") as f:
            f.write(model_source(name, body, inputs, params))
        subprocess.run([sinterc, source, "-o", folder], check=True)
        plan = subprocess.run([sinterc, source, "-emit=fused",
                               "--print-fusion-plan", "-o", os.devnull],
                              check=True, capture_output=True, text=True)
        with open(os.path.join(folder, "plan.txt"), "w") as f:
            f.write(plan.stdout)
    print(f"reduction_sweep: prepared {len(CASES)} cases in {out}")


def build(folder, jobs):
    """Builds the runtime once and every case into lib<case>.so."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    include = os.path.join(folder, "runtime", "include")
    flags = ["-std=c++17", "-O3", "-arch=sm_90", "-Xcompiler", "-fPIC",
             "-I", include]
    objects = []
    commands = []
    for source in sorted(glob.glob(os.path.join(folder, "runtime", "src", "*.cu"))):
        obj = source[:-3] + ".o"
        objects.append(obj)
        commands.append([nvcc] + flags + ["-c", source, "-o", obj])
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for result in pool.map(lambda c: subprocess.run(c, capture_output=True, text=True), commands):
            if result.returncode:
                sys.exit(result.stdout + result.stderr)

    def build_case(name):
        case = os.path.join(folder, name)
        lib = os.path.join(case, f"lib{name}.so")
        result = subprocess.run(
            [nvcc] + flags + ["-shared", "-I", case, os.path.join(case, name + ".cu")] +
            objects + ["-lcublas", "-lcublasLt", "-o", lib], capture_output=True, text=True)
        return name, result
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, result in pool.map(build_case, CASES):
            if result.returncode:
                sys.exit(f"{name}: nvcc failed\n{result.stdout}{result.stderr}")


def run(folder, out_path, reps, budget_s):
    import torch
    import torch.nn.functional as F  # noqa: F401 (used by the references)

    torch.backends.cuda.matmul.allow_tf32 = False
    start = time.time()
    device = torch.device("cuda")
    stream = torch.cuda.current_stream()
    flush = torch.empty(512 * 1024 * 1024 // 4, device=device)

    def time_fn(fn):
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            flush.zero_()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        times.sort()
        return times[len(times) // 2]

    # The copy bandwidth: read + write of 1 GiB, device to device.
    src = torch.randn(256 * 1024 * 1024, device=device)
    dst = torch.empty_like(src)
    copy_ms = time_fn(lambda: dst.copy_(src))
    copy_bw = 2 * src.numel() * 4 / (copy_ms * 1e-3)
    del src, dst

    def rel_err(value, ref):
        if value.dtype == torch.int64:
            return float((value != ref).double().mean())
        diff = (value.double() - ref).flatten()
        return float(diff.norm() / ref.flatten().norm().clamp_min(1e-300))

    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "copy_bandwidth_GBps": copy_bw / 1e9, "reps": reps, "cases": []}
    for name, (_, inputs, params, expr) in CASES.items():
        case = os.path.join(folder, name)
        lib = ctypes.CDLL(os.path.join(case, f"lib{name}.so"))
        gen = torch.Generator(device=device).manual_seed(0)
        tensors = {k: torch.randn(s, device=device, generator=gen) for k, s in inputs.items()}
        weights = {k: torch.randn(s, device=device, generator=gen) for k, s in params.items()}
        names = list(inputs) + list(params)
        values = list(tensors.values()) + list(weights.values())
        fn = eval(f"lambda {', '.join(names)}: {expr}", {"torch": torch, "F": F})
        reference = fn(*values)
        ref64 = fn(*[v.double() for v in values])
        out = torch.empty_like(reference)

        class Params(ctypes.Structure):
            _fields_ = [(k, ctypes.c_void_p) for k in params] or [("unused", ctypes.c_void_p)]
        handle = ctypes.c_void_p()
        p = Params(*[weights[k].data_ptr() for k in params])
        s = ctypes.c_void_p(stream.cuda_stream)
        status = lib[f"{name}_create"](ctypes.byref(handle), ctypes.byref(p), s)
        assert status == 0, f"{name}_create: status {status}"
        forward = lib[f"{name}_forward"]
        args = [handle] + [ctypes.c_void_p(t.data_ptr()) for t in tensors.values()] + \
               [ctypes.c_void_p(out.data_ptr()), s]

        def sinter():
            status = forward(*args)
            assert status == 0, f"{name}_forward: status {status}"

        sinter()
        torch.cuda.synchronize()
        row = {"case": name, "inputs": {k: list(v) for k, v in inputs.items()}}
        row["sinter_ms"] = time_fn(sinter)
        row["sinter_rel_err"] = rel_err(out, ref64)
        row["eager_ms"] = time_fn(lambda: fn(*values))
        row["eager_rel_err"] = rel_err(fn(*values), ref64)
        if time.time() - start < budget_s:
            # A fresh compiler per case: the cases share one lambda site,
            # whose recompile limit would send later cases to eager.
            torch._dynamo.reset()
            compiled = torch.compile(fn)
            row["compile_ms"] = time_fn(lambda: compiled(*values))
            row["compile_rel_err"] = rel_err(compiled(*values), ref64)
        moved = sum(t.numel() * 4 for t in tensors.values()) + \
            sum(t.numel() * 4 for t in weights.values()) + out.numel() * out.element_size()
        row["min_bytes"] = moved
        row["sinter_fraction_of_copy"] = moved / (row["sinter_ms"] * 1e-3) / copy_bw
        with open(os.path.join(case, "plan.txt")) as f:
            row["plan"] = f.read()
        results["cases"].append(row)
        lib[f"{name}_destroy"](handle)
        print(json.dumps({k: v for k, v in row.items() if k != "plan"}), flush=True)
        del tensors, weights, out, reference, ref64
        torch.cuda.empty_cache()
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


def report(path):
    with open(path) as f:
        results = json.load(f)
    lines = [f"Device: {results['device']}, PyTorch {results['torch']}; "
             f"measured copy bandwidth {results['copy_bandwidth_GBps']:.0f} GB/s; "
             f"medians of {results['reps']} runs, L2 flushed before each.", "",
             "| case | input | Sinter ms | eager ms | compile ms | x eager | x compile "
             "| Sinter GB/s / copy | rel err Sinter | rel err eager | strategy |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    speedups = []
    for row in results["cases"]:
        compile_ms = row.get("compile_ms")
        x_compile = compile_ms / row["sinter_ms"] if compile_ms else None
        if x_compile:
            speedups.append(x_compile)
        strategy = [line.split()[2] for line in row["plan"].splitlines()
                    if line[:1] == "k" and line[1:2].isdigit()]
        shape = "x".join(map(str, row["inputs"]["x"]))
        lines.append(
            f"| {row['case']} | {shape} | {row['sinter_ms']:.3f} | {row['eager_ms']:.3f} | "
            + (f"{compile_ms:.3f}" if compile_ms else "-") + " | "
            + f"{row['eager_ms'] / row['sinter_ms']:.2f}x | "
            + (f"{x_compile:.2f}x" if x_compile else "-") + " | "
            + f"{row['sinter_fraction_of_copy']:.2f} | {row['sinter_rel_err']:.1e} | "
            + f"{row['eager_rel_err']:.1e} | {', '.join(strategy)} |")
    if speedups:
        geomean = 1.0
        for value in speedups:
            geomean *= value
        geomean **= 1.0 / len(speedups)
        lines += ["", f"Geometric mean over torch.compile: {geomean:.2f}x "
                  f"({len(speedups)} cases)."]
    with open(os.path.splitext(path)[0] + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["prepare", "run", "report"])
    parser.add_argument("folder")
    parser.add_argument("--sinterc", default=os.path.join(HERE, "..", "build", "bin", "sinterc"))
    parser.add_argument("--out", default="reduction_sweep.json")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--budget-s", type=float, default=400,
                        help="skip torch.compile once the run is this old")
    parser.add_argument("--cases", default="",
                        help="comma-separated case names (default: all)")
    args = parser.parse_args()
    if args.cases:
        wanted = args.cases.split(",")
        unknown = sorted(set(wanted) - set(CASES))
        if unknown:
            parser.error("unknown cases: " + ", ".join(unknown))
        for name in list(CASES):
            if name not in wanted:
                del CASES[name]
    if args.command == "prepare":
        prepare(args.folder, args.sinterc, os.path.join(HERE, ".."))
    elif args.command == "report":
        report(args.folder)
    else:
        build(args.folder, args.jobs)
        run(args.folder, args.out, args.reps, args.budget_s)


if __name__ == "__main__":
    main()
