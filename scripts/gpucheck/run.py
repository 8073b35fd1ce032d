#!/usr/bin/env python3
"""Builds and checks the generated models of a `gpu-check prepare` folder.

Runs on a GPU machine with nvcc (no MLIR needed). For the folder <dir>:
  1. builds the runtime (<dir>/runtime/src/*.cu) into a static library;
  2. builds every case's generated code with its driver
     (nvcc -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings: sm_90a
     for the runtime's 3xTF32 GEMM), in parallel;
  3. runs every case at every size it was prepared for, and once (at the
     smallest size above 1, in quick mode) under compute-sanitizer memcheck;
     builds and runs the runtime's 3xTF32 GEMM test (<dir>/runtime/test:
     accuracy against float64 and SGEMM, inf/NaN in X and W giving the same
     infinities and NaNs as SGEMM, determinism), also under memcheck;
  4. prints one table row per case and size: max abs error and relative
     error norm against the f64 interpreter, the same with every buffer off
     16-byte alignment, determinism (two runs bitwise equal), the API error
     checks, the mean time of a forward call and the bandwidth that moving
     every input, param and output once would need in that time (a floor on
     what the kernels achieved; compute-bound GEMMs read low), and the
     sanitizer's verdict.
Exits with status 1 when anything failed. Build logs and driver output go to
<dir>/logs/.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

NVCC_FLAGS = ["-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-O3",
              "-Werror", "all-warnings",
              "-Xcompiler", "-Wall,-Wextra"]


def find_tool(name):
    path = shutil.which(name) or os.path.join("/usr/local/cuda/bin", name)
    if not os.path.exists(path):
        sys.exit("gpu-check: %s not found" % name)
    return path


def build_runtime(folder, nvcc, logs, jobs):
    """Compiles the runtime's sources in parallel into a static library."""
    sources = sorted(glob.glob(os.path.join(folder, "runtime", "src", "*.cu")))
    build = os.path.join(folder, "build")
    os.makedirs(build, exist_ok=True)

    def compile_one(source):
        obj = os.path.join(build, os.path.basename(source) + ".o")
        command = [nvcc] + NVCC_FLAGS + ["-I", os.path.join(folder, "runtime", "include"),
                                         "-c", source, "-o", obj]
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        return obj, result

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        compiled = list(pool.map(compile_one, sources))
    for _, result in compiled:
        if result.returncode != 0:
            open(os.path.join(logs, "runtime.log"), "w").write(result.stdout)
            sys.exit("gpu-check: the runtime does not build:\n" + result.stdout)
    library = os.path.join(build, "libsinter_rt.a")
    subprocess.run(["ar", "rcs", library] + [obj for obj, _ in compiled], check=True)
    return library


def build_case(folder, case, nvcc, library, logs):
    model = os.path.basename(case)
    binary = os.path.join(case, "driver")
    command = [nvcc] + NVCC_FLAGS + [
        "-I", os.path.join(case, "gen"), "-I", os.path.join(folder, "runtime", "include"),
        "-I", os.path.join(folder, "tools"),
        os.path.join(case, "gen", model + ".cu"), os.path.join(case, "driver.cpp"),
        library, "-lcublasLt", "-lcublas", "-o", binary]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    open(os.path.join(logs, model + ".build.log"), "w").write(
        " ".join(command) + "\n" + result.stdout)
    return model, result.returncode == 0, result.stdout


def sanitizer_verdict(sanitizer, command, log):
    """Runs command under compute-sanitizer memcheck: 'clean' or 'ERRORS'."""
    result = subprocess.run([sanitizer, "--tool", "memcheck", "--error-exitcode", "99"]
                            + command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    open(log, "w").write(result.stdout)
    summary = re.search(r"ERROR SUMMARY: (\d+) error", result.stdout)
    clean = result.returncode == 0 and summary and summary.group(1) == "0"
    return "clean" if clean else "ERRORS"


def runtime_test_rows(folder, nvcc, library, sanitizer, logs):
    """Builds and runs the runtime's 3xTF32 GEMM test, also under memcheck:
    its table rows and whether it failed."""
    source = os.path.join(folder, "runtime", "test", "tf32x3_gpu_test.cu")
    name = "runtime 3xtf32 test"
    if not os.path.exists(source):
        return [(name, "-") + ("-",) * 7 + ("skipped: not prepared",)], False
    binary = os.path.join(folder, "build", "tf32x3_gpu_test")
    command = [nvcc] + NVCC_FLAGS + ["-I", os.path.join(folder, "runtime", "include"),
                                     source, library, "-lcublasLt", "-lcublas",
                                     "-o", binary]
    build = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    open(os.path.join(logs, "tf32x3_gpu_test.build.log"), "w").write(
        " ".join(command) + "\n" + build.stdout)
    if build.returncode != 0:
        print("gpu-check: the runtime's 3xTF32 test does not build:\n" + build.stdout[-3000:])
        return [(name, "-") + ("-",) * 7 + ("BUILD FAILED",)], True
    result = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    open(os.path.join(logs, "tf32x3_gpu_test.log"), "w").write(result.stdout)
    print(result.stdout, end="", flush=True)
    checks = re.search(r"(\d+) of (\d+) checks failed", result.stdout)
    status = ("PASS" if result.returncode == 0 and checks else
              "FAIL (%s of %s checks)" % checks.groups() if checks else "CRASH")
    rows = [(name, "-") + ("-",) * 7 + (status,)]
    failed = status != "PASS"
    if sanitizer:
        sanitized = sanitizer_verdict(sanitizer, [binary],
                                      os.path.join(logs, "tf32x3_gpu_test.memcheck.log"))
        rows.append((name, "memcheck", "", "", "", "", "", "", "", sanitized))
        failed |= sanitized != "clean"
    return rows, failed


def parse_result(text):
    match = re.search(r"^RESULT \S+ \S+ (.*)$", text, re.M)
    return dict(kv.split("=", 1) for kv in match.group(1).split()) if match else None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default="gpucheck")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--no-sanitizer", action="store_true")
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    logs = os.path.join(folder, "logs")
    os.makedirs(logs, exist_ok=True)
    nvcc = find_tool("nvcc")
    sanitizer = None if args.no_sanitizer else find_tool("compute-sanitizer")

    library = build_runtime(folder, nvcc, logs, args.jobs)
    cases = sorted(glob.glob(os.path.join(folder, "cases", "*")))
    built = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for model, ok, log in pool.map(
                lambda case: build_case(folder, case, nvcc, library, logs), cases):
            built[model] = ok
            if not ok:
                print("gpu-check: %s does not build:\n%s" % (model, log[-3000:]))

    rows, failed = [], False

    def add(row):
        rows.append(row)
        print("  ".join(str(v) for v in row if v != ""), flush=True)

    for case in cases:
        model = os.path.basename(case)
        sizes = sorted(glob.glob(os.path.join(case, "B*")),
                       key=lambda d: int(os.path.basename(d)[1:]))
        sanitized = "-"
        if built[model] and sanitizer:
            runnable = [d for d in sizes if not os.path.exists(os.path.join(d, "skip.txt"))]
            target = next((d for d in runnable if int(os.path.basename(d)[1:]) > 1),
                          runnable[0])
            sanitized = "%s (%s)" % (sanitizer_verdict(
                sanitizer, [os.path.join(case, "driver"), target, "--quick"],
                os.path.join(logs, model + ".memcheck.log")), os.path.basename(target))
            failed |= not sanitized.startswith("clean")
        for size in sizes:
            label = os.path.basename(size)
            skip = os.path.join(size, "skip.txt")
            if os.path.exists(skip):
                reason = open(skip).read().strip()
                add((model, label, "-", "-", "-", "-", "-", "-", "-",
                             "skipped: " + reason[:60]))
                continue
            if not built[model]:
                add((model, label, "-", "-", "-", "-", "-", "-", "-", "BUILD FAILED"))
                failed = True
                continue
            result = subprocess.run([os.path.join(case, "driver"), size],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
            open(os.path.join(logs, "%s.%s.log" % (model, label)), "w").write(result.stdout)
            fields = parse_result(result.stdout)
            if not fields:
                add((model, label, "-", "-", "-", "-", "-", "-", "-",
                             "CRASH: " + result.stdout.strip().splitlines()[-1][:60]
                             if result.stdout.strip() else "CRASH"))
                failed = True
                continue
            status = fields["status"]
            failed |= status != "PASS" or result.returncode != 0
            add((model, label, fields["max_abs"], fields["rel_norm"],
                         fields["offset_rel_norm"], fields["deterministic"],
                         fields["api"], fields["time_us"], fields["min_GBps"], status))
        add((model, "memcheck", "", "", "", "", "", "", "", sanitized))

    runtime_rows, runtime_failed = runtime_test_rows(folder, nvcc, library, sanitizer, logs)
    for row in runtime_rows:
        add(row)
    failed |= runtime_failed

    header = ("example", "dims", "max abs err", "rel err norm", "rel (unaligned)",
              "determ.", "api", "time us", "GB/s min", "result")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip()
    print(line(header))
    print(line(tuple("-" * w for w in widths)))
    for row in rows:
        print(line(row))
    print("gpu-check: %s" % ("FAILED" if failed else "all passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
