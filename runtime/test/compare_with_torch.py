#!/usr/bin/env python3
# ===- compare_with_torch.py - Device math functions against PyTorch -----=== #
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===---------------------------------------------------------------------=== #
#
# Reads the file written by `sinter-rt-gpu-test --dump-math FILE` (the inputs
# and outputs of every math function of sinter/rt_device.cuh), runs PyTorch's
# own CUDA kernel for each function on the same fp32 inputs, and prints how
# many outputs differ and by how many units in the last place. Exits non-zero
# when an output differs by more than --max-ulp (0: bitwise equal).
#
#   compare_with_torch.py FILE [--max-ulp N]
#
# ===---------------------------------------------------------------------=== #

import argparse
import struct
import sys

import torch
import torch.nn.functional as F

# The names sinter-rt-gpu-test writes, and PyTorch's definition of each.
TORCH_FUNCTIONS = {
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "mish": F.mish,
    "softplus": F.softplus,
    "softplus_beta2_threshold5": lambda x: F.softplus(x, beta=2.0,
                                                      threshold=5.0),
    "elu": F.elu,
    "elu_alpha0.5": lambda x: F.elu(x, alpha=0.5),
    "selu": F.selu,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "softsign": F.softsign,
    "sign": torch.sign,
    "leaky_relu": F.leaky_relu,
    "leaky_relu_0.2": lambda x: F.leaky_relu(x, 0.2),
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "hardtanh": F.hardtanh,
    "hardtanh_-2_3": lambda x: F.hardtanh(x, -2.0, 3.0),
}


def floats(data, offset, count):
    """The `count` float32 values at `offset` in `data`."""
    chunk = bytearray(data[offset : offset + 4 * count])
    return torch.frombuffer(chunk, dtype=torch.float32)


def read_dump(path):
    """Yields (name, inputs, outputs) for each function in the dump."""
    with open(path, "rb") as f:
        data = f.read()
    offset = 0
    while offset < len(data):
        (name_length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        name = data[offset : offset + name_length].decode()
        offset += name_length
        (count,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        inputs = floats(data, offset, count)
        offset += 4 * count
        outputs = floats(data, offset, count)
        offset += 4 * count
        yield name, inputs, outputs


def ordered_bits(values):
    """Float bits mapped to integers that are ordered like the floats, so that
    their difference counts units in the last place."""
    bits = values.view(torch.int32).to(torch.int64)
    return torch.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def compare(name, inputs, ours):
    theirs = TORCH_FUNCTIONS[name](inputs.cuda()).cpu()
    both_nan = torch.isnan(ours) & torch.isnan(theirs)
    ulps = (ordered_bits(ours) - ordered_bits(theirs)).abs()
    ulps = torch.where(both_nan, torch.zeros_like(ulps), ulps)
    # A NaN on one side only is a mismatch of any size.
    one_nan = torch.isnan(ours) ^ torch.isnan(theirs)
    ulps = torch.where(one_nan, torch.full_like(ulps, 2**31), ulps)
    differing = int((ulps != 0).sum())
    worst = int(ulps.max())
    where = ""
    if worst:
        i = int(ulps.argmax())
        where = (f"  worst at x = {inputs[i].item()!r}: ours "
                 f"{ours[i].item()!r}, torch {theirs[i].item()!r}")
    print(f"{name:28s} {differing:6d} of {inputs.numel()} differ, "
          f"max {worst} ulp{where}")
    return worst


def main():
    parser = argparse.ArgumentParser(
        description="Compare rt_device.cuh's math functions with PyTorch.")
    parser.add_argument("dump")
    parser.add_argument("--max-ulp", type=int, default=0)
    args = parser.parse_args()
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    names = set()
    worst = 0
    for name, inputs, outputs in read_dump(args.dump):
        names.add(name)
        worst = max(worst, compare(name, inputs, outputs))
    missing = set(TORCH_FUNCTIONS) - names
    if missing:
        print(f"missing from the dump: {sorted(missing)}")
        return 1
    ok = worst <= args.max_ulp
    print(f"{'PASSED' if ok else 'FAILED'}: max difference {worst} ulp "
          f"(allowed {args.max_ulp})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
