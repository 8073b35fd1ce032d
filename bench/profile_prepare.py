#!/usr/bin/env python3
# ===- bench/profile_prepare.py - Where a model's creation spends its time ---===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
"""Profiles the creation of a Sinter model (its @prepare) with torch.profiler.

On the H100, from the repository root with .carry/bench carried (after
bench/prepare.sh here):

    python3 .carry/bench/profile_prepare.py --model gemm_divide_sum_scaling

Builds (or re-imports) the model's extension, creates it a few times to warm
up, then creates and destroys it --reps times under torch.profiler, with a
synchronization after each creation, and prints the CUDA kernels and CUDA API
calls by total time: the prepare kernels against what allocation and
synchronization add (bench/results/*-h100.md, "Why the missed targets are
missed").
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402
import run as bench  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--model", required=True, choices=models.NAMES)
    parser.add_argument("--gen-dir", default=os.path.join(HERE, "gen"))
    parser.add_argument("--build-dir", default="build-bench")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()

    import torch
    from torch.profiler import ProfilerActivity, profile

    ex = models.get(args.model)
    dims = ex.resolved_dims(1)
    generator = torch.Generator(device="cuda")
    generator.manual_seed(ex.seed(0))
    params = ex.make_params(dims, generator, "cuda")
    bridge = bench.import_bridge(args.model, args.gen_dir)
    ext = bridge.load(build_directory=os.path.join(
        os.path.abspath(args.build_dir), args.model))
    for _ in range(3):
        ext.Model(*params)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU,
                             ProfilerActivity.CUDA]) as prof:
        for _ in range(args.reps):
            model = ext.Model(*params)
            torch.cuda.synchronize()
            del model
    print("%s: %d creations (and destructions)" % (args.model, args.reps))
    print(prof.key_averages().table(sort_by="self_cpu_time_total",
                                    row_limit=16, max_name_column_width=60))
    return 0


if __name__ == "__main__":
    sys.exit(main())
