#!/usr/bin/env python3
"""Times Sinter's generated models against PyTorch on a GPU (issue 6).

Runs on the GPU machine, from the folder that bench/prepare.sh writes
(PyTorch, Triton, nvcc and ninja needed; no MLIR, no network):

  python3 run.py [--models a,b] [--reps 30] [--skip-autotune] [--out results.json]

For every example (bench/models.py) at its full default dims:
  1. builds the Sinter PyTorch extension (gen/<model>/<model>_torch.py,
     load() into --build-dir; all models in parallel first; cached: a second
     run only re-imports);
  2. draws the params and inputs on the GPU with a fixed seed per example;
     every contestant gets the same tensors;
  3. computes the float64 reference (upcast params and inputs; TF32 is off
     everywhere) and each contestant's relative error norm and max abs error;
  4. times each contestant with CUDA events around the forward call only,
     after warm-up, with an L2 flush (a 512 MiB read) before every
     repetition, and keeps every repetition (median, p10, p90):
       eager, torch.compile (default mode), torch.compile(mode=
       "max-autotune-no-cudagraphs"), Sinter's forward (steady state) and
       Sinter's @prepare (the Model constructor, synchronized);
  5. measures the limit in the same run: the cuBLAS fp32 GEMMs of the same
     shapes alone (plus one write of the output) for GEMM-rooted examples,
     minimal bytes over the measured device-to-device copy bandwidth for
     memory-bound ones;
  6. writes everything to --out (merged with what the file already holds,
     so that several calls can each run a part) after every contestant, and
     prints a compact table with the issue's targets last.

By default each example runs in its own Python process (a CUDA error that
poisons the context then costs one example, not the run); --no-isolate runs
them in this process. Failures are caught and reported per contestant.
The whole run is kept under --budget-s seconds: torch.compile modes are
skipped when too little time is left, and one compile may take at most
--compile-timeout-s.

--device cpu and --scale N exist to test this script without a GPU (with a
mock extension; see bench/test_bench.py): real generated code is built for
the .sinter dims.
"""

import argparse
import contextlib
import datetime
import gc
import importlib.util
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import models  # noqa: E402
import summary  # noqa: E402

STARTED = time.monotonic()
FLUSH_BYTES = 512 << 20      # the L2 flush: H100's L2 is 50 MB
COPY_BYTES = 1 << 30         # the bandwidth probe: 1 GiB copied
ALL_CONTESTANTS = ["eager", "sinter", "limit", "compile", "autotune"]
COMPILE_MODES = {"compile": None, "autotune": "max-autotune-no-cudagraphs"}
# Time to keep in hand before starting a compile mode (seconds).
MIN_LEFT = {"compile": 45, "autotune": 120}


def log(msg=""):
    print(msg, flush=True)


def elapsed():
    return time.monotonic() - STARTED


# -- arguments ----------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="",
                   help="comma-separated examples (default: all of them)")
    p.add_argument("--contestants", default=",".join(ALL_CONTESTANTS),
                   help="comma-separated subset of %s" % ",".join(ALL_CONTESTANTS))
    p.add_argument("--skip-autotune", action="store_true",
                   help="leave out torch.compile max-autotune (slow to compile)")
    p.add_argument("--reps", type=int, default=30, help="timed repetitions")
    p.add_argument("--warmup", type=int, default=5, help="untimed calls first")
    p.add_argument("--prepare-reps", type=int, default=10,
                   help="timed constructions of the Sinter Model (@prepare)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results.json",
                   help="results JSON; merged with an existing file")
    p.add_argument("--fresh", action="store_true",
                   help="overwrite --out instead of merging into it")
    p.add_argument("--gen-dir", default=os.path.join(HERE, "gen"),
                   help="where prepare.sh put the generated models")
    p.add_argument("--build-dir", default=os.path.join(HERE, "build"),
                   help="where the extensions are built (cached across runs)")
    p.add_argument("--cuda-cflags", default="",
                   help="extra nvcc flags for the extensions (space-separated)")
    p.add_argument("--build-jobs", type=int, default=0,
                   help="extensions built at once (default: cores / 2, at most 8)")
    p.add_argument("--budget-s", type=float, default=480,
                   help="wall-clock budget of the whole run (seconds)")
    p.add_argument("--compile-timeout-s", type=float, default=240,
                   help="most seconds one torch.compile may take")
    p.add_argument("--no-isolate", action="store_true",
                   help="run every example in this process")
    p.add_argument("--verbose", action="store_true",
                   help="show the extension builds' output")
    p.add_argument("--list", action="store_true", help="list the examples and exit")
    # For testing this script without a GPU (mock extension) or as a child.
    p.add_argument("--device", default="cuda", help=argparse.SUPPRESS)
    p.add_argument("--scale", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m] or list(models.NAMES)
    for m in args.models:
        models.get(m)  # unknown names fail here, before any work
    args.contestants = [c for c in args.contestants.split(",") if c]
    for c in args.contestants:
        if c not in ALL_CONTESTANTS:
            p.error("unknown contestant %r" % c)
    if args.skip_autotune and "autotune" in args.contestants:
        args.contestants.remove("autotune")
    if args.reps < 3:
        p.error("--reps must be at least 3")
    return args


# -- device and timing ----------------------------------------------------------

class HostEvent:
    """A stand-in for torch.cuda.Event on the CPU (tests only)."""

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


class Device:
    """The CUDA device (or the CPU when testing): sync, events, L2 flush."""

    def __init__(self, kind):
        import torch
        self.kind = kind
        self.torch_device = torch.device(kind)
        self.flush_buffer = None

    def sync(self):
        if self.kind == "cuda":
            import torch
            torch.cuda.synchronize()

    def event(self):
        if self.kind == "cuda":
            import torch
            return torch.cuda.Event(enable_timing=True)
        return HostEvent()

    def flush(self):
        """Evicts the L2 cache by reading a buffer much larger than it, as
        bench/reduction_sweep.py does: a write would leave dirty lines that
        the timed run writes back (about 10% of a 256 MiB read)."""
        import torch
        if self.flush_buffer is None:
            size = FLUSH_BYTES if self.kind == "cuda" else (1 << 20)
            self.flush_buffer = torch.empty(size // 4, dtype=torch.float32,
                                            device=self.torch_device).normal_()
            self.flush_sum = torch.zeros((), device=self.torch_device)
        torch.sum(self.flush_buffer, dim=0, out=self.flush_sum)

    def empty_cache(self):
        gc.collect()
        if self.kind == "cuda":
            import torch
            torch.cuda.empty_cache()


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks (as numpy's default)."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def stats(times):
    s = sorted(times)
    return {"times_ms": list(times), "reps": len(times),
            "median_ms": percentile(s, 50), "p10_ms": percentile(s, 10),
            "p90_ms": percentile(s, 90), "min_ms": s[0] if s else None}


def time_fn(dev, fn, reps, warmup):
    """Times fn() with events around the call only; L2 flushed before each."""
    for _ in range(warmup):
        fn()
    dev.sync()
    pairs = [(dev.event(), dev.event()) for _ in range(reps)]
    for start, end in pairs:
        dev.flush()             # outside the timed region
        start.record()
        fn()
        end.record()
    dev.sync()
    return stats([start.elapsed_time(end) for start, end in pairs])


def measure_copy_bandwidth(dev, reps=20):
    """Device-to-device copy bandwidth in GB/s: (bytes read + written) / time."""
    import torch
    nbytes = COPY_BYTES if dev.kind == "cuda" else (64 << 20)
    src = torch.randn(nbytes // 4, device=dev.torch_device)
    dst = torch.empty_like(src)
    result = time_fn(dev, lambda: dst.copy_(src), reps, warmup=3)
    result["bytes_copied"] = nbytes
    result["bandwidth_gbs"] = 2.0 * nbytes / (result["median_ms"] * 1e-3) / 1e9
    return result  # the caller empties the cache once src and dst are gone


@contextlib.contextmanager
def deadline(seconds, what):
    """Raises TimeoutError in the main thread after `seconds` (SIGALRM)."""
    if not seconds or seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum, frame):
        raise TimeoutError("%s took longer than %d s" % (what, seconds))

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- accuracy -------------------------------------------------------------------

def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def accuracy(outs, refs):
    """Relative error norm and max abs error of each output against float64.

    rel_err = ||out - ref|| / ||ref|| over all elements; an output with a
    NaN or inf gets rel_err = inf. The example's figures are the worst over
    its outputs.
    """
    import torch
    outs = as_tuple(outs)
    if len(outs) != len(refs):
        raise ValueError("%d outputs, the reference has %d" % (len(outs), len(refs)))
    per = []
    for o, r in zip(outs, refs):
        item = {"shape": list(o.shape), "dtype": str(o.dtype).replace("torch.", "")}
        if tuple(o.shape) != tuple(r.shape):
            if o.numel() != r.numel():
                raise ValueError("output shape %s, the reference has %s"
                                 % (list(o.shape), list(r.shape)))
            item["shape_mismatch"] = [list(o.shape), list(r.shape)]
            o = o.reshape(r.shape)
        finite = bool(torch.isfinite(o).all().item())
        diff = o.to(torch.float64) - r
        if finite:
            num = torch.linalg.vector_norm(diff).item()
            den = torch.linalg.vector_norm(r).item()
            item["rel_err"] = num / den if den > 0 else num
            item["max_abs"] = diff.abs().max().item()
        else:
            item["rel_err"] = float("inf")
            item["max_abs"] = float("inf")
            item["nonfinite"] = int((~torch.isfinite(o)).sum().item())
        item["finite"] = finite
        item["ref_norm"] = torch.linalg.vector_norm(r).item()
        per.append(item)
        del diff
    return {"rel_err": max(p["rel_err"] for p in per),
            "max_abs": max(p["max_abs"] for p in per),
            "finite": all(p["finite"] for p in per),
            "per_output": per}


def acc_text(acc):
    if not acc:
        return ""
    return "rel err %.2e  max abs %.2e%s" % (
        acc["rel_err"], acc["max_abs"], "" if acc["finite"] else "  NON-FINITE")


# -- the Sinter extension ------------------------------------------------------

def import_bridge(name, gen_dir):
    """Imports gen/<name>/<name>_torch.py (the bridge that --emit-torch writes)."""
    path = os.path.join(gen_dir, name, name + "_torch.py")
    if not os.path.exists(path):
        raise FileNotFoundError("%s is missing (run bench/prepare.sh)" % path)
    spec = importlib.util.spec_from_file_location(name + "_torch_bridge", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_extension(name, args):
    """Builds (or re-imports) the extension of `name`; returns ext."""
    bridge = import_bridge(name, args.gen_dir)
    build = os.path.join(os.path.abspath(args.build_dir), name)
    os.makedirs(build, exist_ok=True)
    flags = args.cuda_cflags.split() or None
    return bridge.load(build_directory=build, verbose=args.verbose,
                       extra_cuda_cflags=flags)


def build_all(names, args):
    """Builds every extension in parallel child processes; returns
    {name: {"build_s": seconds, "error": text or None}}."""
    import concurrent.futures
    jobs = args.build_jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
    env = dict(os.environ)
    env.setdefault("MAX_JOBS", str(max(1, (os.cpu_count() or 2) // jobs)))
    logs = os.path.join(os.path.abspath(args.build_dir), "logs")
    os.makedirs(logs, exist_ok=True)

    def build(name):
        command = [sys.executable, os.path.abspath(__file__), "--build-only",
                   "--models", name, "--gen-dir", args.gen_dir,
                   "--build-dir", args.build_dir, "--cuda-cflags", args.cuda_cflags,
                   "--device", args.device]
        if args.verbose:
            command.append("--verbose")
        t0 = time.monotonic()
        with open(os.path.join(logs, name + ".log"), "w") as out:
            rc = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        seconds = time.monotonic() - t0
        error = None
        if rc != 0:
            text = open(os.path.join(logs, name + ".log")).read()
            error = "build failed (rc %d): %s" % (rc, text[-1500:])
        return name, {"build_s": seconds, "error": error}

    log("building %d Sinter extensions (%d at a time, logs in %s) ..."
        % (len(names), jobs, logs))
    t0 = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, result in pool.map(build, names):
            results[name] = result
            log("  %-28s %s" % (name, ("%.1f s" % result["build_s"]) if not result["error"]
                                else "FAILED (%s)" % os.path.join(logs, name + ".log")))
    log("  all built in %.1f s" % (time.monotonic() - t0))
    return results


def make_sinter_model(ext, ex, params):
    """ext.Model(...) with the params by position, or by name when the
    extension declares them in another order."""
    expected = [n for n, _, _ in ex.params]
    names = list(getattr(ext, "PARAM_NAMES", expected))
    if names == expected:
        return lambda: ext.Model(*params)
    if sorted(names) != sorted(expected):
        raise ValueError("the extension's params %s are not the model's %s"
                         % (names, expected))
    by_name = dict(zip(expected, params))
    return lambda: ext.Model(**by_name)


def order_inputs(ext, ex, inputs):
    expected = [n for n, _ in ex.inputs]
    names = list(getattr(ext, "INPUT_NAMES", expected))
    if names == expected:
        return list(inputs)
    if sorted(names) != sorted(expected):
        raise ValueError("the extension's inputs %s are not the model's %s"
                         % (names, expected))
    by_name = dict(zip(expected, inputs))
    return [by_name[n] for n in names]


def time_prepare(dev, construct, reps):
    """Times the Model constructor (@prepare) by the host clock, synchronized
    before and after; the first (cold) construction is reported apart."""
    host, device = [], []
    model = None
    for _ in range(reps + 1):
        model = None  # frees the previous Model's prepared buffers
        dev.flush()
        dev.sync()
        start, end = dev.event(), dev.event()
        t0 = time.perf_counter()
        start.record()
        model = construct()
        end.record()
        dev.sync()
        host.append((time.perf_counter() - t0) * 1e3)
        device.append(start.elapsed_time(end))
    result = stats(host[1:])
    result["cold_ms"] = host[0]
    result["device_ms"] = stats(device[1:])
    return model, result


def poisoned_forward(dev, forward, ref_outs):
    """Calls forward() right after freeing NaN-filled blocks of the outputs'
    sizes, so that the caching allocator likely hands them to the outputs:
    an element the extension does not write then reads NaN. Returns the
    outputs and, per output, whether it landed on a poisoned block."""
    import torch
    poison = [torch.full(r.shape, float("nan"), dtype=torch.float32,
                         device=dev.torch_device) for r in ref_outs]
    pointers = {p.data_ptr() for p in poison}
    del poison
    outs = as_tuple(forward())
    dev.sync()
    return outs, [o.data_ptr() in pointers for o in outs]


# -- one example ------------------------------------------------------------------

class Recorder:
    """Holds the results document and writes it after every contestant."""

    def __init__(self, path, fresh, env):
        self.path = path
        self.doc = {"schema": 1, "runs": [], "models": {}}
        if os.path.exists(path) and not fresh:
            with open(path) as f:
                self.doc = json.load(f)
        self.run_index = len(self.doc["runs"])
        self.doc["runs"].append(env)
        self.save()

    def model(self, name):
        return self.doc["models"].setdefault(name, {"contestants": {}})

    def put(self, name, contestant, result):
        """Stores one contestant's result ("limit" goes to the entry's limit)."""
        result["run"] = self.run_index
        if contestant == "limit":
            self.model(name)["limit"] = result
        else:
            self.model(name)["contestants"][contestant] = result
        self.save()

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.doc, f, indent=1)
        os.replace(tmp, self.path)


def error_text(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text[-2000:]


def run_example(name, args, dev, rec, bandwidth, build_info):
    import torch
    ex = models.get(name)
    dims = ex.resolved_dims(args.scale)
    entry = rec.model(name)
    entry.update({
        "purpose": ex.purpose, "dims": dims, "scale": args.scale,
        "inputs": [[n, list(s)] for n, s in ex.input_shapes(dims)],
        "params": [[n, list(s), list(h)] for n, s, h in ex.param_shapes(dims)],
        "gemm_shapes": [list(g) for g in ex.gemm_shapes(dims)],
        "gemm_flops": ex.gemm_flops(dims),
        "output_bytes": ex.output_bytes(dims),
        "min_bytes": ex.minimal_bytes(dims),
        "limit_kind": ex.limit, "limit_note": ex.limit_note,
        "seed": ex.seed(args.seed),
    })
    entry.pop("error", None)
    rec.save()
    log("\n== %s  %s  dims %s" % (name, ex.purpose, dims))

    gen = torch.Generator(device=dev.torch_device)
    gen.manual_seed(ex.seed(args.seed))
    params = ex.make_params(dims, gen, dev.torch_device)
    inputs = ex.make_inputs(dims, gen, dev.torch_device)

    # The float64 reference, then the upcast copies are dropped.
    t0 = time.monotonic()
    refs = ex.run([t.double() for t in inputs], [p.double() for p in params])
    dev.sync()
    log("  f64 reference in %.1f s" % (time.monotonic() - t0))
    dev.empty_cache()

    def eager():
        return ex.forward(*inputs, *params)

    def run_contestant(cname, body):
        """Runs body() -> result dict; records errors without stopping."""
        try:
            result = body()
        except Exception as exc:  # noqa: BLE001 - reported per contestant
            traceback.print_exc(limit=4)
            result = {"error": error_text(exc)}
            log("  %-10s FAILED: %s" % (cname, result["error"].splitlines()[0][:200]))
        rec.put(name, cname, result)
        dev.empty_cache()
        return result

    # Eager PyTorch.
    if "eager" in args.contestants:
        def body():
            acc = accuracy(eager(), refs)
            r = time_fn(dev, eager, args.reps, args.warmup)
            r["accuracy"] = acc
            log("  %-10s %8.4f ms (p10 %.4f, p90 %.4f)  %s" % (
                "eager", r["median_ms"], r["p10_ms"], r["p90_ms"], acc_text(acc)))
            return r
        run_contestant("eager", body)

    # Sinter: build/load, @prepare, poisoned accuracy, steady-state forward.
    if "sinter" in args.contestants:
        def body():
            info = build_info.get(name, {})
            if info.get("error"):
                raise RuntimeError(info["error"])
            t0 = time.monotonic()
            ext = load_extension(name, args)
            load_s = time.monotonic() - t0
            construct = make_sinter_model(ext, ex, params)
            ordered = order_inputs(ext, ex, inputs)
            model, prep = time_prepare(dev, construct, args.prepare_reps)
            forward = lambda: model.forward(*ordered)  # noqa: E731
            outs, landed = poisoned_forward(dev, forward, refs)
            acc = accuracy(outs, refs)
            again = as_tuple(forward())
            deterministic = all(torch.equal(a, b) for a, b in zip(outs, again))
            del outs, again
            r = time_fn(dev, forward, args.reps, args.warmup)
            r.update({"accuracy": acc, "prepare": prep, "build_s": info.get("build_s"),
                      "load_s": load_s, "poison_landed": landed,
                      "deterministic": deterministic,
                      "param_names": list(getattr(ext, "PARAM_NAMES", [])),
                      "input_names": list(getattr(ext, "INPUT_NAMES", [])),
                      "output_names": list(getattr(ext, "OUTPUT_NAMES", []))})
            log("  %-10s %8.4f ms (p10 %.4f, p90 %.4f)  %s" % (
                "sinter", r["median_ms"], r["p10_ms"], r["p90_ms"], acc_text(acc)))
            log("  %-10s %8.4f ms median (cold %.3f ms)  forward+prepare %.4f ms;"
                "  build %s s, load %.1f s; poison landed %s; deterministic %s" % (
                    "@prepare", prep["median_ms"], prep["cold_ms"],
                    r["median_ms"] + prep["median_ms"],
                    "%.1f" % info["build_s"] if info.get("build_s") else "?",
                    load_s, landed, deterministic))
            del model
            return r
        run_contestant("sinter", body)

    # The limit: the GEMMs alone (cuBLAS fp32) or minimal bytes over copy BW.
    if "limit" in args.contestants:
        def body():
            gemm_ms, per_gemm = None, []
            for m, n, k in ex.gemm_shapes(dims):
                a = torch.randn(m, k, generator=gen, device=dev.torch_device)
                b = torch.randn(n, k, generator=gen, device=dev.torch_device)
                r = time_fn(dev, lambda: torch.nn.functional.linear(a, b),
                            args.reps, args.warmup)
                r["shape_mnk"] = [m, n, k]
                r["tflops"] = 2.0 * m * n * k / (r["median_ms"] * 1e-3) / 1e12
                per_gemm.append(r)
                del a, b
            if per_gemm:
                gemm_ms = sum(r["median_ms"] for r in per_gemm)
            bw = bandwidth["bandwidth_gbs"]
            write_ms = ex.output_bytes(dims) / (bw * 1e9) * 1e3
            if ex.limit == "gemm":
                limit_ms = gemm_ms + write_ms
            else:
                limit_ms = ex.minimal_bytes(dims) / (bw * 1e9) * 1e3
            result = {"kind": ex.limit, "gemm_ms": gemm_ms, "per_gemm": per_gemm,
                      "write_ms": write_ms, "bandwidth_gbs": bw,
                      "min_bytes": ex.minimal_bytes(dims), "limit_ms": limit_ms,
                      "note": ex.limit_note}
            log("  %-10s %8.4f ms  (%s%s)" % (
                "limit", limit_ms, ex.limit,
                "; GEMMs alone %.4f ms, %s TFLOP/s" % (
                    gemm_ms, ", ".join("%.1f" % r["tflops"] for r in per_gemm))
                if per_gemm else "; %.1f MB at %.0f GB/s" % (
                    ex.minimal_bytes(dims) / 1e6, bw)))
            sinter_ms = summary.median_ms(entry, "sinter")
            if sinter_ms:
                log("  %-10s Sinter at %.2f of the limit%s" % (
                    "", limit_ms / sinter_ms,
                    ", %.0f GB/s" % (ex.minimal_bytes(dims) / (sinter_ms * 1e-3) / 1e9)
                    if ex.limit == "memory" else ""))
            return result
        run_contestant("limit", body)

    # torch.compile, default mode and max-autotune-no-cudagraphs.
    for cname in ("compile", "autotune"):
        if cname not in args.contestants:
            continue
        mode = COMPILE_MODES[cname]
        left = args.budget_s - elapsed()
        if left < MIN_LEFT[cname]:
            rec.put(name, cname, {"error": "skipped: %.0f s left of --budget-s %.0f"
                                  % (left, args.budget_s), "skipped": True})
            log("  %-10s skipped (%.0f s left of the budget)" % (cname, left))
            continue

        def body():
            torch._dynamo.reset()
            fn = torch.compile(ex.forward, mode=mode, dynamic=False)
            limit_s = min(args.compile_timeout_s, left - 15)
            t0 = time.monotonic()
            with deadline(limit_s, "torch.compile(mode=%s)" % mode):
                first = fn(*inputs, *params)
                dev.sync()
            compile_s = time.monotonic() - t0
            acc = accuracy(first, refs)
            del first
            r = time_fn(dev, lambda: fn(*inputs, *params), args.reps, args.warmup)
            r.update({"accuracy": acc, "compile_s": compile_s, "mode": mode or "default"})
            log("  %-10s %8.4f ms (p10 %.4f, p90 %.4f)  %s  compiled in %.1f s" % (
                cname, r["median_ms"], r["p10_ms"], r["p90_ms"], acc_text(acc),
                compile_s))
            return r
        run_contestant(cname, body)
        torch._dynamo.reset()

    # Targets as measured so far (all runs merged), for the record.
    entry["derived"] = summary.derive(entry)
    entry["targets"] = summary.targets(name, entry)
    rec.save()
    # The tensors go with this frame; the caller empties the allocator's cache.


# -- environment ----------------------------------------------------------------

def command_output(command):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return "unavailable (%s)" % exc


def set_precision():
    """fp32 means fp32: no TF32 in matmuls or convolutions, anywhere."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def environment(args, dev):
    import torch
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "argv": sys.argv[1:],
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "device_kind": dev.kind,
        "models": args.models,
        "contestants": args.contestants,
        "reps": args.reps, "warmup": args.warmup, "scale": args.scale,
        "flush_bytes": FLUSH_BYTES, "flush": "read",
        "allow_tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
        "allow_tf32_cudnn": torch.backends.cudnn.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "fp32_precision_matmul": str(getattr(torch.backends.cuda.matmul,
                                             "fp32_precision", "n/a")),
    }
    try:
        import triton
        env["triton"] = triton.__version__
    except ImportError:
        env["triton"] = None
    if dev.kind == "cuda":
        props = torch.cuda.get_device_properties(0)
        env.update({
            "gpu": torch.cuda.get_device_name(0),
            "capability": "%d.%d" % torch.cuda.get_device_capability(0),
            "sm_count": props.multi_processor_count,
            "gpu_memory_gib": props.total_memory / 2 ** 30,
            "nvidia_smi": command_output([
                "nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,"
                "clocks.mem,power.limit,temperature.gpu", "--format=csv,noheader"]),
            "nvcc": command_output(["nvcc", "--version"]).splitlines()[-1:],
        })
        first = env["nvidia_smi"].splitlines()[0] if env["nvidia_smi"] else ""
        env["driver"] = first.split(",")[1].strip() if first.count(",") >= 1 else first
    else:
        env["gpu"] = "cpu (test)"
    manifest = os.path.join(os.path.dirname(os.path.abspath(args.gen_dir)), "manifest.json")
    if os.path.exists(manifest):
        with open(manifest) as f:
            env["sinter"] = json.load(f)
    return env


# -- main -------------------------------------------------------------------------

def child_command(args, name, left):
    """This script, for one example, appending to the same results file."""
    command = [sys.executable, os.path.abspath(__file__), "--child", "--no-isolate",
               "--models", name, "--contestants", ",".join(args.contestants),
               "--reps", str(args.reps), "--warmup", str(args.warmup),
               "--prepare-reps", str(args.prepare_reps), "--seed", str(args.seed),
               "--out", args.out, "--gen-dir", args.gen_dir,
               "--build-dir", args.build_dir, "--cuda-cflags", args.cuda_cflags,
               "--budget-s", "%.0f" % left,
               "--compile-timeout-s", str(args.compile_timeout_s),
               "--device", args.device, "--scale", str(args.scale)]
    if args.verbose:
        command.append("--verbose")
    return command


def print_summary(path):
    with open(path) as f:
        doc = json.load(f)
    gpus = sorted({r.get("gpu", "?") for r in doc["runs"]})
    last = doc["runs"][-1]
    log("\n" + "=" * 100)
    log("Sinter benchmark: %s  driver %s  torch %s (CUDA %s)  %s" % (
        " / ".join(gpus), last.get("driver", "?"), last.get("torch"),
        last.get("torch_cuda"), last.get("date")))
    if len(gpus) > 1:
        log("WARNING: the results merge runs on different GPUs: %s" % gpus)
    bws = [r.get("copy_bandwidth_gbs") for r in doc["runs"] if r.get("copy_bandwidth_gbs")]
    if bws:
        log("D2D copy bandwidth (read+write) %.0f..%.0f GB/s over %d runs; ms = median of"
            " %s reps, L2 flushed; TF32 off" % (min(bws), max(bws), len(bws),
                                                 last.get("reps")))
    order = [n for n in models.NAMES if n in doc["models"]]
    for line in summary.failure_lines(doc["models"], order):
        log(line)
    for line in summary.table_lines(doc["models"], order):
        log(line)
    log("targets (issue 6; x torch.compile = vs the faster compile mode measured):")
    for line in summary.target_lines(doc["models"], order):
        log(line)
    log("results: %s  (this call took %.0f s)" % (os.path.abspath(path), elapsed()))


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for ex in models.EXAMPLES:
            log("%-28s %-7s %s" % (ex.name, ex.limit, ex.purpose))
        return 0
    args.gen_dir = os.path.abspath(args.gen_dir)
    args.build_dir = os.path.abspath(args.build_dir)
    args.out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)

    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        log("run.py: no CUDA device")
        return 2
    if args.device == "cuda" and "TORCH_CUDA_ARCH_LIST" not in os.environ:
        os.environ["TORCH_CUDA_ARCH_LIST"] = "%d.%d" % torch.cuda.get_device_capability(0)

    if args.build_only:  # a child of build_all(): build one extension, exit
        load_extension(args.models[0], args)
        return 0

    set_precision()
    dev = Device(args.device)
    want_sinter = "sinter" in args.contestants
    build_info = {}
    if want_sinter and not args.child:
        build_info = build_all(args.models, args)

    if not args.no_isolate and not args.child:
        # One process per example; each merges its results into --out.
        env = environment(args, dev)
        env["role"] = "parent"
        Recorder(args.out, args.fresh, env)
        for name in args.models:
            left = args.budget_s - elapsed()
            command = child_command(args, name, left)
            # The child learns how the build went through the environment.
            rc = subprocess.call(command, env=dict(
                os.environ, SINTER_BENCH_BUILD=json.dumps(build_info.get(name, {}))))
            if rc != 0:
                log("  %s: the example's process exited with status %d" % (name, rc))
                with open(args.out) as f:
                    doc = json.load(f)
                doc["models"].setdefault(name, {"contestants": {}})["error"] = (
                    "process exited with status %d" % rc)
                with open(args.out, "w") as f:
                    json.dump(doc, f, indent=1)
        print_summary(args.out)
        return 0

    env = environment(args, dev)
    bandwidth = measure_copy_bandwidth(dev)
    env["copy_bandwidth_gbs"] = bandwidth["bandwidth_gbs"]
    env["copy_bandwidth"] = bandwidth
    rec = Recorder(args.out, args.fresh and not args.child, env)
    if not args.child:
        log("%s, torch %s; TF32 off; D2D copy %.0f GB/s" % (
            env.get("gpu"), env["torch"], bandwidth["bandwidth_gbs"]))
    if args.child and os.environ.get("SINTER_BENCH_BUILD"):
        build_info = {args.models[0]: json.loads(os.environ["SINTER_BENCH_BUILD"])}
    dev.empty_cache()
    for name in args.models:
        try:
            run_example(name, args, dev, rec, bandwidth, build_info)
        except Exception as exc:  # noqa: BLE001 - one example must not stop the rest
            traceback.print_exc()
            rec.model(name)["error"] = error_text(exc)
            rec.save()
        dev.empty_cache()
    if not args.child:
        print_summary(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
