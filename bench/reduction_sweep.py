#!/usr/bin/env python3
# ===- bench/reduction_sweep.py - Reductions and norms of every geometry ----===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
"""The reduction and normalization sweep: single-op models of every geometry
(softmax, log_softmax, layer/rms/group/instance norm, training batch norm,
sum/mean/max/argmax/var over the last, first, a middle, a strided set and all
dims, rows of 32 to 67M elements and rows of language models' vocabularies)
and every elementwise activation at 1 GiB,
timed against PyTorch eager and torch.compile in one run, with errors
against float64 and the fraction of the measured copy bandwidth.

Three steps, on two machines:

  python3 bench/reduction_sweep.py prepare OUT   (where sinterc is built)
      writes OUT/<case>/<case>.sinter, its generated .cu/.h and fusion plan,
      the runtime sources and this script;
  python3 OUT/reduction_sweep.py run OUT --out results.json   (on the GPU)
      compiles every case's torch.compile graph in worker processes (one
      shared Inductor cache, autotuning choices included: the workers tune
      while others share the GPU) while nvcc builds every case into a shared
      library; then, in one process, calls each case's C API through ctypes
      on PyTorch's stream and times every contestant with CUDA events after a
      warm-up of at least 50 ms, the L2 flushed before every run (--flush:
      by default a 512 MiB read, which writes back whatever the last run
      left dirty and leaves only clean lines of the flush buffer; `write`
      zeroes the buffer instead, as triton's do_bench does, and then every
      timed run also pays for writing back up to the 50 MB of zeros the
      flush left dirty in L2: about 10% of a 256 MiB read; median;
      the contestants take turns twice and the better median counts, so
      that none is timed only in the slow first batch after a case's setup
      that the H100 sometimes shows). Cases run one family
      after another in turns, so that a run stopped by --stop-s (the time
      after which it starts no new case) still covers every family;
  python3 bench/reduction_sweep.py report results.json   (anywhere)
      writes results.md (tables by family, summary) and results.png (the
      chart; needs matplotlib, skipped with a message without it).

`--cases REGEX` restricts prepare and run to matching case names.
"""

import argparse
import concurrent.futures
import ctypes
import glob
import json
import math
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Elements of a reduction or normalization input: 256 MiB of f32.
N = 1 << 26


def case(family, name, body, inputs, expr, params=None):
    """One single-op model: Sinter body lines, input and param shapes, and the
    PyTorch reference as an expression over the inputs and params."""
    return {"family": family, "name": name, "body": body, "inputs": inputs,
            "params": params or {}, "expr": expr}


def shape_name(shape):
    return "x".join(map(str, shape))


def row_cases():
    """softmax, log_softmax, layer_norm, rms_norm over rows of 32 .. 67M
    (softmax and log_softmax also over vocabularies' rows)."""
    cases = []
    lengths = [32, 256, 1024, 4096, 16384, 65536, 1 << 20, 1 << 22]
    # Also a language model's logits: rows of BERT's and GPT-2's
    # vocabularies, lengths that float4 groups do not divide (rows not
    # 16-byte aligned).
    for length in lengths + [N, 30522, 50257]:
        shape = [N // length, length]
        tag = shape_name(shape)
        cases.append(case("softmax", f"softmax_{tag}", ["return softmax(x, dim=1)"],
                          {"x": shape}, "torch.softmax(x, dim=1)"))
        cases.append(case("log_softmax", f"log_softmax_{tag}",
                          ["return log_softmax(x, dim=1)"], {"x": shape},
                          "torch.log_softmax(x, dim=1)"))
    # Attention's scaled softmax (the scale stays inside the max, so that
    # the statistics keep one pass), and softmax over the columns.
    for shape in ([N >> 16, 1 << 16], [N >> 20, 1 << 20]):
        tag = shape_name(shape)
        cases.append(case("softmax", f"softmax_scaled_{tag}",
                          ["return softmax(x * 0.125, dim=1)"], {"x": shape},
                          "torch.softmax(x * 0.125, dim=1)"))
    shape = [N >> 12, 1 << 12]
    cases.append(case("softmax", f"softmax_first_{shape_name(shape)}",
                      ["return softmax(x, dim=0)"], {"x": shape},
                      "torch.softmax(x, dim=0)"))
    # logsumexp (a cross-entropy's normalizer) over long rows, few longer
    # rows and the columns.
    for shape, dim in (([N >> 16, 1 << 16], 1), ([N >> 20, 1 << 20], 1),
                       ([N >> 12, 1 << 12], 0)):
        where = "last" if dim == 1 else "first"
        cases.append(case("logsumexp", f"logsumexp_{where}_{shape_name(shape)}",
                          [f"return logsumexp(x, dim={dim})"], {"x": shape},
                          f"torch.logsumexp(x, dim={dim})"))
    for length in lengths:
        shape = [N // length, length]
        tag = shape_name(shape)
        cases.append(case("layer_norm", f"layer_norm_{tag}",
                          [f"return layer_norm(x, [{length}], weight=w, bias=b)"],
                          {"x": shape}, f"F.layer_norm(x, ({length},), w, b)",
                          {"w": [length], "b": [length]}))
        cases.append(case("rms_norm", f"rms_norm_{tag}",
                          [f"return rms_norm(x, [{length}], weight=w)"], {"x": shape},
                          f"F.rms_norm(x, ({length},), w)", {"w": [length]}))
    return cases


# [N, C, H, W] of 2^26 elements, and the groups of group_norm: from many
# short groups (32 elements) to a few long ones (8M).
NCHW = [([64, 256, 64, 64], 32), ([16, 1024, 64, 64], 32), ([256, 256, 32, 32], 32),
        ([1024, 64, 32, 32], 8), ([8, 128, 256, 256], 32), ([2, 32, 1024, 1024], 4),
        ([4096, 256, 8, 8], 64), ([65536, 64, 4, 4], 32)]


def channel_cases():
    """group_norm and instance_norm with affine params over NCHW, and training
    batch_norm with affine params over [N, C] and [N, C, H, W]."""
    cases = []
    for shape, groups in NCHW:
        c = shape[1]
        tag = shape_name(shape)
        cases.append(case("group_norm", f"group_norm_{tag}_g{groups}",
                          [f"return group_norm(x, {groups}, weight=w, bias=b)"],
                          {"x": shape}, f"F.group_norm(x, {groups}, w, b)",
                          {"w": [c], "b": [c]}))
        cases.append(case("instance_norm", f"instance_norm_{tag}",
                          ["return instance_norm(x, weight=w, bias=b)"], {"x": shape},
                          "F.instance_norm(x, weight=w, bias=b)", {"w": [c], "b": [c]}))
    for shape in ([65536, 1024], [1 << 20, 64], [4096, 16384], [262144, 256],
                  [64, 256, 64, 64], [256, 64, 64, 64], [16, 1024, 64, 64],
                  [1024, 64, 32, 32]):
        c = shape[1]
        cases.append(case("batch_norm", f"batch_norm_{shape_name(shape)}",
                          ["return batch_norm(x, weight=w, bias=b, training=true)"],
                          {"x": shape},
                          "F.batch_norm(x, None, None, w, b, training=True)",
                          {"w": [c], "b": [c]}))
    return cases


# (geometry, input shape, Sinter dims, torch dims): last (many short and few
# long rows), first (wide and narrow), middle, strided (NCHW's N, H, W) and
# all dims.
GEOMETRIES = [
    ("last", [4096, 16384], "1", "1"),
    ("last", [262144, 256], "1", "1"),
    ("last", [16, 1 << 22], "1", "1"),
    ("first", [16384, 4096], "0", "0"),
    ("first", [1 << 22, 16], "0", "0"),
    ("middle", [64, 1024, 1024], "1", "1"),
    ("middle", [1024, 64, 1024], "1", "1"),
    ("strided", [64, 256, 64, 64], "[0, 2, 3]", "(0, 2, 3)"),
    ("all", [8192, 8192], "[0, 1]", "(0, 1)"),
]


def reduction_cases():
    """sum, mean, max, argmax, var over each geometry (argmax reduces one dim:
    its strided case is left out, its all-dims case is a 1-D tensor)."""
    cases = []
    ops = {"sum": ("sum", "x.sum(dim={d})"), "mean": ("mean", "x.mean(dim={d})"),
           "max": ("amax", "x.amax(dim={d})"), "argmax": ("argmax", "x.argmax(dim={d})"),
           "var": ("var", "x.var(dim={d})")}
    for family, (builtin, expr) in ops.items():
        for geometry, shape, dims, torch_dims in GEOMETRIES:
            if family == "argmax" and geometry == "strided":
                continue
            if family == "argmax" and geometry == "all":
                shape, dims, torch_dims = [N], "0", "0"
            cases.append(case(family, f"{family}_{geometry}_{shape_name(shape)}",
                              [f"return {builtin}(x, dim={dims})"], {"x": shape},
                              expr.format(d=torch_dims)))
    return cases


# Every elementwise activation of the language, with its PyTorch reference.
ACTIVATIONS = {
    "relu": ("relu(x)", "torch.relu(x)"),
    "relu6": ("relu6(x)", "F.relu6(x)"),
    "leaky_relu": ("leaky_relu(x)", "F.leaky_relu(x)"),
    "elu": ("elu(x)", "F.elu(x)"),
    "selu": ("selu(x)", "F.selu(x)"),
    "gelu": ("gelu(x)", "F.gelu(x)"),
    "gelu_tanh": ("gelu(x, approximate='tanh')", "F.gelu(x, approximate='tanh')"),
    "silu": ("silu(x)", "F.silu(x)"),
    "mish": ("mish(x)", "F.mish(x)"),
    "softplus": ("softplus(x)", "F.softplus(x)"),
    "sigmoid": ("sigmoid(x)", "torch.sigmoid(x)"),
    "logsigmoid": ("logsigmoid(x)", "F.logsigmoid(x)"),
    "tanh": ("tanh(x)", "torch.tanh(x)"),
    "hardtanh": ("hardtanh(x)", "F.hardtanh(x)"),
    "hardsigmoid": ("hardsigmoid(x)", "F.hardsigmoid(x)"),
    "hardswish": ("hardswish(x)", "F.hardswish(x)"),
    "softsign": ("softsign(x)", "F.softsign(x)"),
}


def activation_cases():
    shape = [16384, 16384]  # 1 GiB
    return [case("elementwise", f"{name}_1gib", [f"return {body}"], {"x": shape}, expr)
            for name, (body, expr) in ACTIVATIONS.items()]


def channels_first_layer_norm(name, shape):
    """A HELD_OUT entry: a layer norm over the channels (dim 1) of `shape`,
    without affine, written out from its mean and variance."""
    return (name,
            "(x - mean(x, dim=1, keepdim=true)) / "
            "sqrt(var(x, dim=1, unbiased=false, keepdim=true) + 0.000001)",
            shape,
            "(x - x.mean(dim=1, keepdim=True)) / "
            "torch.sqrt(x.var(dim=1, unbiased=False, keepdim=True) + 1e-6)",
            {})


# Shapes that no other case of the sweep has and no kernel was tuned on:
# hidden sizes, vocabularies, image and channel counts of common models,
# and odd lengths that float4 groups do not divide. Each input is about
# 256 MiB. (name, Sinter body, input shape, PyTorch expression, params)
HELD_OUT = [
    ("softmax_65536x1000", "softmax(x, dim=1)", [65536, 1000], "torch.softmax(x, dim=1)", {}),
    ("softmax_671088x100", "softmax(x, dim=1)", [671088, 100], "torch.softmax(x, dim=1)", {}),
    ("layer_norm_671088x100", "layer_norm(x, [100], weight=w, bias=b)", [671088, 100],
     "F.layer_norm(x, (100,), w, b)", {"w": [100], "b": [100]}),
    ("softmax_20000x3355", "softmax(x, dim=1)", [20000, 3355], "torch.softmax(x, dim=1)", {}),
    ("softmax_5436x12345", "softmax(x, dim=1)", [5436, 12345], "torch.softmax(x, dim=1)", {}),
    ("log_softmax_2048x32000", "log_softmax(x, dim=1)", [2048, 32000], "torch.log_softmax(x, dim=1)", {}),
    ("log_softmax_671x100003", "log_softmax(x, dim=1)", [671, 100003], "torch.log_softmax(x, dim=1)", {}),
    ("logsumexp_448x151936", "logsumexp(x, dim=1)", [448, 151936], "torch.logsumexp(x, dim=1)", {}),
    ("layer_norm_87381x768", "layer_norm(x, [768], weight=w, bias=b)", [87381, 768],
     "F.layer_norm(x, (768,), w, b)", {"w": [768], "b": [768]}),
    ("layer_norm_16380x4097", "layer_norm(x, [4097], weight=w, bias=b)", [16380, 4097],
     "F.layer_norm(x, (4097,), w, b)", {"w": [4097], "b": [4097]}),
    ("layer_norm_3355x20000", "layer_norm(x, [20000], weight=w, bias=b)", [3355, 20000],
     "F.layer_norm(x, (20000,), w, b)", {"w": [20000], "b": [20000]}),
    ("rms_norm_13107x5120", "rms_norm(x, [5120], weight=w)", [13107, 5120],
     "F.rms_norm(x, (5120,), w)", {"w": [5120]}),
    ("rms_norm_32736x2050", "rms_norm(x, [2050], weight=w)", [32736, 2050],
     "F.rms_norm(x, (2050,), w)", {"w": [2050]}),
    ("group_norm_90x320x48x48_g32", "group_norm(x, 32, weight=w, bias=b)", [90, 320, 48, 48],
     "F.group_norm(x, 32, w, b)", {"w": [320], "b": [320]}),
    ("instance_norm_55x96x112x112", "instance_norm(x, weight=w, bias=b)", [55, 96, 112, 112],
     "F.instance_norm(x, weight=w, bias=b)", {"w": [96], "b": [96]}),
    ("batch_norm_340x64x56x56", "batch_norm(x, weight=w, bias=b, training=true)", [340, 64, 56, 56],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [64], "b": [64]}),
    ("batch_norm_223696x300", "batch_norm(x, weight=w, bias=b, training=true)", [223696, 300],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [300], "b": [300]}),
    ("sum_middle_32x3000x700", "sum(x, dim=1)", [32, 3000, 700], "x.sum(dim=1)", {}),
    ("mean_last_9586x7001", "mean(x, dim=1)", [9586, 7001], "x.mean(dim=1)", {}),
    ("max_strided_24x96x170x171", "amax(x, dim=[0, 2, 3])", [24, 96, 170, 171],
     "x.amax(dim=(0, 2, 3))", {}),
    ("var_first_223696x300", "var(x, dim=0)", [223696, 300], "x.var(dim=0)", {}),
    ("argmax_last_671088x100", "argmax(x, dim=1)", [671088, 100], "x.argmax(dim=1)", {}),
    ("argmax_middle_128x1000x524", "argmax(x, dim=1)", [128, 1000, 524], "x.argmax(dim=1)", {}),
    ("sum_all_7919x8461", "sum(x, dim=[0, 1])", [7919, 8461], "x.sum(dim=(0, 1))", {}),
    ("gelu_11111x6007", "gelu(x)", [11111, 6007], "F.gelu(x)", {}),
    # A second set, run once after sweep-12 (device run 17 of 2026-11-27).
    ("softmax_mid_64x1000x1048", "softmax(x, dim=1)", [64, 1000, 1048], "torch.softmax(x, dim=1)", {}),
    ("log_softmax_first_3000x22369", "log_softmax(x, dim=0)", [3000, 22369], "torch.log_softmax(x, dim=0)", {}),
    ("layer_norm2_448x196x768", "layer_norm(x, [196, 768], weight=w, bias=b)", [448, 196, 768],
     "F.layer_norm(x, (196, 768), w, b)", {"w": [196, 768], "b": [196, 768]}),
    ("layer_norm_noaffine_16384x4096", "layer_norm(x, [4096])", [16384, 4096], "F.layer_norm(x, (4096,))", {}),
    ("batch_norm_512x128x28x28", "batch_norm(x, weight=w, bias=b, training=true)", [512, 128, 28, 28],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [128], "b": [128]}),
    ("sum_lead2_4096x64x256", "sum(x, dim=[0, 1])", [4096, 64, 256], "x.sum(dim=(0, 1))", {}),
    ("mean_last2_256x512x512", "mean(x, dim=[1, 2])", [256, 512, 512], "x.mean(dim=(1, 2))", {}),
    ("max_last_16777216x4", "amax(x, dim=1)", [16777216, 4], "x.amax(dim=1)", {}),
    ("mean_last_22369621x3", "mean(x, dim=1)", [22369621, 3], "x.mean(dim=1)", {}),
    ("argmin_first_100000x671", "argmin(x, dim=0)", [100000, 671], "x.argmin(dim=0)", {}),
    ("var_last_1048576x64", "var(x, dim=1)", [1048576, 64], "x.var(dim=1)", {}),
    ("logsumexp_mid_64x3000x349", "logsumexp(x, dim=1)", [64, 3000, 349], "torch.logsumexp(x, dim=1)", {}),
    ("sum_outer_128x1000x524", "sum(x, dim=[0, 2])", [128, 1000, 524], "x.sum(dim=(0, 2))", {}),
    ("softmax_scaled_131072x512", "softmax(x * 0.0883883, dim=1)", [131072, 512], "torch.softmax(x * 0.0883883, dim=1)", {}),
    ("max_all_67108864", "amax(x, dim=0)", [67108864], "x.amax(dim=0)", {}),
    ("silu_12345x5437", "silu(x)", [12345, 5437], "F.silu(x)", {}),
    ("rms_norm_5461x12288", "rms_norm(x, [12288], weight=w)", [5461, 12288], "F.rms_norm(x, (12288,), w)", {"w": [12288]}),
    ("group_norm_64x512x32x32_g1", "group_norm(x, 1, weight=w, bias=b)", [64, 512, 32, 32],
     "F.group_norm(x, 1, w, b)", {"w": [512], "b": [512]}),
    ("instance_norm_1024x3x147x147", "instance_norm(x, weight=w, bias=b)", [1024, 3, 147, 147],
     "F.instance_norm(x, weight=w, bias=b)", {"w": [3], "b": [3]}),
    ("softmax_64x1000003", "softmax(x, dim=1)", [64, 1000003], "torch.softmax(x, dim=1)", {}),
    # A third set (2026-11-27): segmentation heads (softmax, log_softmax and
    # argmax over the classes of NCHW), channels-first layer norm (ConvNeXt),
    # global average pooling over 7x7, CLIP's rows of 77, attention's
    # softmax over the keys' dim of [B, H, S, S]^T, pooling over a sequence.
    ("softmax_classes_32x150x112x112", "softmax(x, dim=1)", [32, 150, 112, 112],
     "torch.softmax(x, dim=1)", {}),
    ("log_softmax_classes_64x21x224x224", "log_softmax(x, dim=1)", [64, 21, 224, 224],
     "torch.log_softmax(x, dim=1)", {}),
    ("argmax_classes_16x150x160x160", "argmax(x, dim=1)", [16, 150, 160, 160],
     "x.argmax(dim=1)", {}),
    channels_first_layer_norm("layer_norm_cf_32x96x160x160", [32, 96, 160, 160]),
    ("mean_hw_640x2048x7x7", "mean(x, dim=[2, 3])", [640, 2048, 7, 7], "x.mean(dim=(2, 3))", {}),
    ("mean_c_64x256x64x64", "mean(x, dim=1)", [64, 256, 64, 64], "x.mean(dim=1)", {}),
    ("softmax_871500x77", "softmax(x, dim=1)", [871500, 77], "torch.softmax(x, dim=1)", {}),
    ("softmax_dim2_32x16x512x256", "softmax(x, dim=2)", [32, 16, 512, 256],
     "torch.softmax(x, dim=2)", {}),
    ("max_seq_64x2048x512", "amax(x, dim=1)", [64, 2048, 512], "x.amax(dim=1)", {}),
    ("batch_norm_4096x2048", "batch_norm(x, weight=w, bias=b, training=true)", [4096, 2048],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [2048], "b": [2048]}),
    ("sum_first_8x8388608", "sum(x, dim=0)", [8, 8388608], "x.sum(dim=0)", {}),
    ("rms_norm_21845x3072", "rms_norm(x, [3072], weight=w)", [21845, 3072],
     "F.rms_norm(x, (3072,), w)", {"w": [3072]}),
    # Rows of 1 MiB: a cluster of 8 slices of 128 KiB, or streamed.
    ("softmax_256x262144", "softmax(x, dim=1)", [256, 262144], "torch.softmax(x, dim=1)", {}),
    ("layer_norm_256x262144", "layer_norm(x, [262144], weight=w, bias=b)", [256, 262144],
     "F.layer_norm(x, (262144,), w, b)", {"w": [262144], "b": [262144]}),
    # A fourth set (2026-11-27, after sweep-13): attention over ViT's 197 tokens and Swin's
    # windows of 49, a mixture of experts' router over 8, classifiers over
    # 10 classes, GPT-2 XL's and Qwen's hidden sizes, channels-last pooling,
    # pooling over 50 tokens, 1-D batch norm over audio frames, greedy
    # decoding's argmax over a vocabulary, CLIP's L2-normalized embeddings,
    # an image batch's per-channel statistics, a whole-tensor variance, and
    # an argmax over 13 classes.
    ("softmax_340000x197", "softmax(x, dim=1)", [340000, 197], "torch.softmax(x, dim=1)", {}),
    ("softmax_1369000x49", "softmax(x, dim=1)", [1369000, 49], "torch.softmax(x, dim=1)", {}),
    ("softmax_8388608x8", "softmax(x, dim=1)", [8388608, 8], "torch.softmax(x, dim=1)", {}),
    ("log_softmax_6710886x10", "log_softmax(x, dim=1)", [6710886, 10],
     "torch.log_softmax(x, dim=1)", {}),
    ("layer_norm_41943x1600", "layer_norm(x, [1600], weight=w, bias=b)", [41943, 1600],
     "F.layer_norm(x, (1600,), w, b)", {"w": [1600], "b": [1600]}),
    ("rms_norm_74898x896", "rms_norm(x, [896], weight=w)", [74898, 896],
     "F.rms_norm(x, (896,), w)", {"w": [896]}),
    ("mean_nhwc_668x7x7x2048", "mean(x, dim=[1, 2])", [668, 7, 7, 2048], "x.mean(dim=(1, 2))", {}),
    ("sum_tokens_1310x50x1024", "sum(x, dim=1)", [1310, 50, 1024], "x.sum(dim=1)", {}),
    ("batch_norm_64x80x13107", "batch_norm(x, weight=w, bias=b, training=true)", [64, 80, 13107],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [80], "b": [80]}),
    ("argmax_vocab_2097x32000", "argmax(x, dim=1)", [2097, 32000], "x.argmax(dim=1)", {}),
    ("l2_normalize_131072x512", "x / sqrt(sum(x * x, dim=1, keepdim=true))", [131072, 512],
     "x / torch.sqrt((x * x).sum(dim=1, keepdim=True))", {}),
    ("mean_image_445x3x224x224", "mean(x, dim=[0, 2, 3])", [445, 3, 224, 224],
     "x.mean(dim=(0, 2, 3))", {}),
    ("var_all_67108864", "var(x, dim=0)", [67108864], "x.var(dim=0)", {}),
    ("min_first_1000x67108", "amin(x, dim=0)", [1000, 67108], "x.amin(dim=0)", {}),
    ("logsumexp_6710886x10", "logsumexp(x, dim=1)", [6710886, 10], "torch.logsumexp(x, dim=1)", {}),
    ("max_len_64x1000x1049", "amax(x, dim=2)", [64, 1000, 1049], "x.amax(dim=2)", {}),
    ("argmax_5162220x13", "argmax(x, dim=1)", [5162220, 13], "x.argmax(dim=1)", {}),
    # Elementwise layers beside them: an affine per channel over 7x7 maps
    # (inference batch norm, squeeze-and-excitation) and a bias per channel
    # of [N, C, L] with odd L.
    ("scale_bias_2560x512x7x7", "x * w + b", [2560, 512, 7, 7], "x * w + b",
     {"w": [512, 1, 1], "b": [512, 1, 1]}),
    ("bias_1d_128x512x1023", "x + b", [128, 512, 1023], "x + b", {"b": [512, 1]}),
    # A fifth set (2026-11-27, run before this session's changes), layers as
    # models fuse them: residual adds into layer and RMS norms (BERT-large,
    # Llama), Whisper's masked attention over 1500 frames, a bias into GELU,
    # SwiGLU's gate, Stable Diffusion's group norm into SiLU, MobileNet's
    # batch norm into ReLU, instance norm over odd maps, an ImageNet argmax,
    # Cityscapes' 19 classes, an ensemble's mean over 3, a logsumexp over a
    # middle dim of 50, variance over rows of 24, pairs, L1 norms of rows,
    # ViT-H's hidden size, Llama-3's vocabulary, an odd 1-D sum, a max over
    # 33 frames and centering the columns. A shape dict names several inputs.
    ("add_layer_norm_65536x1024", "layer_norm(x + r, [1024], weight=w, bias=b)",
     {"x": [65536, 1024], "r": [65536, 1024]}, "F.layer_norm(x + r, (1024,), w, b)",
     {"w": [1024], "b": [1024]}),
    ("add_rms_norm_16384x4096", "rms_norm(x + r, [4096], weight=w)",
     {"x": [16384, 4096], "r": [16384, 4096]}, "F.rms_norm(x + r, (4096,), w)", {"w": [4096]}),
    ("softmax_mask_44739x1500", "softmax(x * 0.125 + m, dim=1)", [44739, 1500],
     "torch.softmax(x * 0.125 + m, dim=1)", {"m": [1500]}),
    ("bias_gelu_21845x3072", "gelu(x + b)", [21845, 3072], "F.gelu(x + b)", {"b": [3072]}),
    ("swiglu_16384x4096", "silu(x) * y", {"x": [16384, 4096], "y": [16384, 4096]},
     "F.silu(x) * y", {}),
    ("group_norm_silu_16x640x80x80_g32", "silu(group_norm(x, 32, weight=w, bias=b))",
     [16, 640, 80, 80], "F.silu(F.group_norm(x, 32, w, b))", {"w": [640], "b": [640]}),
    # Rows a little longer than a warp's 1024 elements (a warp each since
    # 2026-11-28, up to 1536, or 2048 for an argmax; before, 256 threads).
    ("argmax_rows_52428x1280", "argmax(x, dim=1)", [52428, 1280], "x.argmax(dim=1)", {}),
    ("argmax_rows_32768x2048", "argmax(x, dim=1)", [32768, 2048], "x.argmax(dim=1)", {}),
    ("rms_norm_43690x1536", "rms_norm(x, [1536], weight=w)", [43690, 1536],
     "F.rms_norm(x, (1536,), w)", {"w": [1536]}),
    ("layer_norm_43690x1536", "layer_norm(x, [1536], weight=w, bias=b)", [43690, 1536],
     "F.layer_norm(x, (1536,), w, b)", {"w": [1536], "b": [1536]}),
    ("sum_rows_51000x1300", "sum(x, dim=1)", [51000, 1300], "x.sum(dim=1)", {}),
    ("var_rows_44000x1500", "var(x, dim=1)", [44000, 1500], "x.var(dim=1)", {}),
    ("mean_rows_65000x1027", "mean(x, dim=1)", [65000, 1027], "x.mean(dim=1)", {}),
    ("softmax_58000x1152", "softmax(x, dim=1)", [58000, 1152], "torch.softmax(x, dim=1)", {}),
    # Softmax and a channels-first layer norm over few channels (strips of
    # 128 and 64 columns since 2026-11-28; before, 32 or split reductions).
    ("softmax_c48_64x48x128x128", "softmax(x, dim=1)", [64, 48, 128, 128],
     "torch.softmax(x, dim=1)", {}),
    channels_first_layer_norm("layer_norm_cf_c64_32x64x180x180", [32, 64, 180, 180]),
    ("batch_norm_relu_96x24x150x150", "relu(batch_norm(x, weight=w, bias=b, training=true))",
     [96, 24, 150, 150], "torch.relu(F.batch_norm(x, None, None, w, b, training=True))",
     {"w": [24], "b": [24]}),
    ("instance_norm_64x64x127x127", "instance_norm(x, weight=w, bias=b)", [64, 64, 127, 127],
     "F.instance_norm(x, weight=w, bias=b)", {"w": [64], "b": [64]}),
    ("argmax_last_67108x1000", "argmax(x, dim=1)", [67108, 1000], "x.argmax(dim=1)", {}),
    ("softmax_classes_16x19x256x862", "softmax(x, dim=1)", [16, 19, 256, 862],
     "torch.softmax(x, dim=1)", {}),
    ("mean_first_3x22369621", "mean(x, dim=0)", [3, 22369621], "x.mean(dim=0)", {}),
    ("logsumexp_mid_128x50x10485", "logsumexp(x, dim=1)", [128, 50, 10485],
     "torch.logsumexp(x, dim=1)", {}),
    ("var_last_2796202x24", "var(x, dim=1)", [2796202, 24], "x.var(dim=1)", {}),
    ("softmax_33554432x2", "softmax(x, dim=1)", [33554432, 2], "torch.softmax(x, dim=1)", {}),
    ("l1_rows_223696x300", "sum(abs(x), dim=1)", [223696, 300], "x.abs().sum(dim=1)", {}),
    ("layer_norm_52428x1280", "layer_norm(x, [1280], weight=w, bias=b)", [52428, 1280],
     "F.layer_norm(x, (1280,), w, b)", {"w": [1280], "b": [1280]}),
    ("log_softmax_523x128256", "log_softmax(x, dim=1)", [523, 128256],
     "torch.log_softmax(x, dim=1)", {}),
    ("sum_all_67108859", "sum(x, dim=0)", [67108859], "x.sum(dim=0)", {}),
    ("max_frames_256x33x7943", "amax(x, dim=1)", [256, 33, 7943], "x.amax(dim=1)", {}),
    ("center_cols_262144x256", "x - mean(x, dim=0, keepdim=true)", [262144, 256],
     "x - x.mean(dim=0, keepdim=True)", {}),
    # A sixth set (2026-11-27, written after this session's changes and run
    # once, none tuned on): Gemma's RMS norm, ViT's attention softmax over
    # 197 keys, COCO's 81 classes, group and instance norms of other maps,
    # batch norm over [N, 512], short rows of 5 and 6 (a sum, a max, a
    # softmax), few-row column reductions over odd columns (a mean over 5, a
    # variance over 7, an argmin over 2), logsumexp over 64, L2 norms of
    # rows, global average pooling of 14x14 maps, a max over 96 channels,
    # softmax over 8000, layer norm over odd rows of 2049, a sum over an odd
    # middle dim, and an odd tanh-GELU.
    ("rms_norm_32768x2048", "rms_norm(x, [2048], weight=w)", [32768, 2048],
     "F.rms_norm(x, (2048,), w)", {"w": [2048]}),
    ("softmax_attn_128x12x197x197", "softmax(x, dim=3)", [128, 12, 197, 197],
     "torch.softmax(x, dim=3)", {}),
    ("log_softmax_classes_8x81x384x384", "log_softmax(x, dim=1)", [8, 81, 384, 384],
     "torch.log_softmax(x, dim=1)", {}),
    ("group_norm_8x256x128x128_g16", "group_norm(x, 16, weight=w, bias=b)", [8, 256, 128, 128],
     "F.group_norm(x, 16, w, b)", {"w": [256], "b": [256]}),
    ("instance_norm_32x128x96x96", "instance_norm(x)", [32, 128, 96, 96],
     "F.instance_norm(x)", {}),
    ("batch_norm_131072x512", "batch_norm(x, weight=w, bias=b, training=true)", [131072, 512],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [512], "b": [512]}),
    ("sum_rows_13421772x5", "sum(x, dim=1)", [13421772, 5], "x.sum(dim=1)", {}),
    ("max_rows_11184810x6", "amax(x, dim=1)", [11184810, 6], "x.amax(dim=1)", {}),
    ("softmax_rows_11184810x6", "softmax(x, dim=1)", [11184810, 6], "torch.softmax(x, dim=1)", {}),
    ("mean_first_5x13421771", "mean(x, dim=0)", [5, 13421771], "x.mean(dim=0)", {}),
    ("var_first_7x9586981", "var(x, dim=0)", [7, 9586981], "x.var(dim=0)", {}),
    ("argmin_first_2x33554431", "argmin(x, dim=0)", [2, 33554431], "x.argmin(dim=0)", {}),
    ("logsumexp_last_1048576x64", "logsumexp(x, dim=1)", [1048576, 64],
     "torch.logsumexp(x, dim=1)", {}),
    ("l2_rows_524288x128", "sqrt(sum(x * x, dim=1))", [524288, 128],
     "torch.sqrt((x * x).sum(dim=1))", {}),
    ("mean_hw_512x512x14x14", "mean(x, dim=[2, 3])", [512, 512, 14, 14],
     "x.mean(dim=(2, 3))", {}),
    ("amax_channels_64x96x128x128", "amax(x, dim=1)", [64, 96, 128, 128], "x.amax(dim=1)", {}),
    ("softmax_8192x8000", "softmax(x, dim=1)", [8192, 8000], "torch.softmax(x, dim=1)", {}),
    ("layer_norm_30000x2049", "layer_norm(x, [2049], weight=w, bias=b)", [30000, 2049],
     "F.layer_norm(x, (2049,), w, b)", {"w": [2049], "b": [2049]}),
    ("sum_middle_64x999x1001", "sum(x, dim=1)", [64, 999, 1001], "x.sum(dim=1)", {}),
    ("gelu_tanh_33333x2017", "gelu(x, approximate='tanh')", [33333, 2017],
     "F.gelu(x, approximate='tanh')", {}),
    # An eighth set (2026-11-28, written midway through a round and run
    # once, device run 3, with its cluster-thread and column-group rules
    # but before its kept-run, scalar-middle and Welford rules; none tuned
    # on): attention
    # softmax over 255 keys, layer norms over 3200 and over [64, 250], RMS
    # norm over 1000, group norm of 4 channels a group, instance norm over
    # 150 x 150, batch norm over 84 x 84 maps, a mean over an odd middle dim,
    # a variance over 500, an argmin over a middle dim, logsumexp over the
    # first dim of 1333 columns, amax over dims 0 and 2, a sum over 97 x 101
    # maps, log_softmax over 12000, softmax over 200 classes and over the
    # first dim, a mean over the first dim of 67108 columns, and amax over a
    # middle dim whose kept run is 4 (0.67x torch.compile, 0.65 of copy:
    # since then a block a run) with, beside it (added after that run),
    # middle dims with kept runs of 16, 8, 2 and 32.
    ("softmax_heads_64x16x128x255", "softmax(x, dim=3)", [64, 16, 128, 255],
     "torch.softmax(x, dim=3)", {}),
    ("layer_norm_20971x3200", "layer_norm(x, [3200], weight=w, bias=b)", [20971, 3200],
     "F.layer_norm(x, (3200,), w, b)", {"w": [3200], "b": [3200]}),
    ("rms_norm_67108x1000", "rms_norm(x, [1000], weight=w)", [67108, 1000],
     "F.rms_norm(x, (1000,), w)", {"w": [1000]}),
    ("group_norm_16x96x112x112_g24", "group_norm(x, 24, weight=w, bias=b)", [16, 96, 112, 112],
     "F.group_norm(x, 24, w, b)", {"w": [96], "b": [96]}),
    ("instance_norm_48x64x150x150", "instance_norm(x)", [48, 64, 150, 150],
     "F.instance_norm(x)", {}),
    ("batch_norm_32x192x84x84", "batch_norm(x, weight=w, bias=b, training=true)", [32, 192, 84, 84],
     "F.batch_norm(x, None, None, w, b, training=True)", {"w": [192], "b": [192]}),
    ("mean_middle_256x333x777", "mean(x, dim=1)", [256, 333, 777], "x.mean(dim=1)", {}),
    ("var_rows_131072x500", "var(x, dim=1)", [131072, 500], "x.var(dim=1)", {}),
    ("argmin_middle_64x4000x263", "argmin(x, dim=1)", [64, 4000, 263], "x.argmin(dim=1)", {}),
    ("logsumexp_first_50000x1333", "logsumexp(x, dim=0)", [50000, 1333],
     "torch.logsumexp(x, dim=0)", {}),
    ("amax_outer_64x512x2048", "amax(x, dim=[0, 2])", [64, 512, 2048], "x.amax(dim=(0, 2))", {}),
    ("sum_hw_128x64x97x101", "sum(x, dim=[2, 3])", [128, 64, 97, 101], "x.sum(dim=(2, 3))", {}),
    ("log_softmax_5592x12000", "log_softmax(x, dim=1)", [5592, 12000], "torch.log_softmax(x, dim=1)", {}),
    ("softmax_classes_16x200x128x160", "softmax(x, dim=1)", [16, 200, 128, 160],
     "torch.softmax(x, dim=1)", {}),
    ("layer_norm2_4096x64x250", "layer_norm(x, [64, 250])", [4096, 64, 250],
     "F.layer_norm(x, (64, 250))", {}),
    ("softmax_first_3000x22000", "softmax(x, dim=0)", [3000, 22000], "torch.softmax(x, dim=0)", {}),
    ("amax_middle_4096x4096x4", "amax(x, dim=1)", [4096, 4096, 4], "x.amax(dim=1)", {}),
    ("mean_middle_2048x2048x16", "mean(x, dim=1)", [2048, 2048, 16], "x.mean(dim=1)", {}),
    ("sum_middle_1024x8192x8", "sum(x, dim=1)", [1024, 8192, 8], "x.sum(dim=1)", {}),
    ("amax_middle_262144x128x2", "amax(x, dim=1)", [262144, 128, 2], "x.amax(dim=1)", {}),
    ("var_middle_8192x256x32", "var(x, dim=1)", [8192, 256, 32], "x.var(dim=1)", {}),
    ("mean_first_1000x67108", "mean(x, dim=0)", [1000, 67108], "x.mean(dim=0)", {}),
    # A ninth set (2026-11-28, written at the start of a session and run
    # before any change of it; none tuned on), layers as models write them:
    # F.normalize of rows, a masked attention softmax, a residual layer norm
    # into GELU, columns standardized by hand, NHWC global max pooling, means
    # over two apart dims and over dims [0, 1], a logsumexp of a whole matrix,
    # softmax over rows of 3, Swin's and Llama-13B's norms, a mean over 4096
    # tokens, Stable Diffusion's group norm, a min over the
    # first of 3, a Frobenius norm, column L1 norms, a product over rows of
    # 64, a tempered log_softmax, softmax over the first of 3 dims, rows
    # centered, a batch norm over [N, C, L] and an affine instance norm.
    ("normalize_rows_262144x256", "normalize(x, dim=1)", [262144, 256],
     "F.normalize(x, dim=1)", {}),
    ("attn_mask_softmax_16x16x512x512", "softmax(x * 0.125 + m, dim=3)", [16, 16, 512, 512],
     "torch.softmax(x * 0.125 + m, dim=3)", {"m": [512, 512]}),
    ("add_layer_norm_gelu_16384x2048", "gelu(layer_norm(x + r, [2048], weight=w, bias=b))",
     {"x": [16384, 2048], "r": [16384, 2048]}, "F.gelu(F.layer_norm(x + r, (2048,), w, b))",
     {"w": [2048], "b": [2048]}),
    ("standardize_cols_65536x1024", "(x - mean(x, dim=0)) / sqrt(var(x, dim=0) + 1e-5)",
     [65536, 1024], "(x - x.mean(dim=0)) / torch.sqrt(x.var(dim=0) + 1e-5)", {}),
    ("amax_nhwc_64x56x56x334", "amax(x, dim=[1, 2])", [64, 56, 56, 334],
     "x.amax(dim=(1, 2))", {}),
    ("mean_13_64x128x64x128", "mean(x, dim=[1, 3])", [64, 128, 64, 128],
     "x.mean(dim=(1, 3))", {}),
    ("var_01_256x512x512", "var(x, dim=[0, 1])", [256, 512, 512], "x.var(dim=(0, 1))", {}),
    ("logsumexp_all_8192x8192", "logsumexp(x, dim=[0, 1])", [8192, 8192],
     "torch.logsumexp(x, dim=(0, 1))", {}),
    ("softmax_rows_22369621x3", "softmax(x, dim=1)", [22369621, 3],
     "torch.softmax(x, dim=1)", {}),
    ("layer_norm_699050x96", "layer_norm(x, [96], weight=w, bias=b)", [699050, 96],
     "F.layer_norm(x, (96,), w, b)", {"w": [96], "b": [96]}),
    ("rms_norm_eps_13107x5120", "rms_norm(x, [5120], weight=w, eps=1e-6)", [13107, 5120],
     "F.rms_norm(x, (5120,), w, eps=1e-6)", {"w": [5120]}),
    ("mean_tokens_64x4096x256", "mean(x, dim=1)", [64, 4096, 256], "x.mean(dim=1)", {}),
    ("group_norm_32x320x64x64_g32", "group_norm(x, 32, weight=w, bias=b)", [32, 320, 64, 64],
     "F.group_norm(x, 32, w, b)", {"w": [320], "b": [320]}),
    ("amin_first_3x22369621", "amin(x, dim=0)", [3, 22369621], "x.amin(dim=0)", {}),
    ("norm_all_8192x8192", "norm(x)", [8192, 8192], "torch.norm(x)", {}),
    ("l1_cols_16384x4096", "norm(x, p=1, dim=0)", [16384, 4096], "torch.norm(x, p=1, dim=0)", {}),
    ("prod_rows_1048576x64", "prod(x, dim=1)", [1048576, 64], "x.prod(dim=1)", {}),
    ("log_softmax_temp_4096x16384", "log_softmax(x / 0.7, dim=1)", [4096, 16384],
     "torch.log_softmax(x / 0.7, dim=1)", {}),
    ("softmax_dim0_64x1024x1024", "softmax(x, dim=0)", [64, 1024, 1024],
     "torch.softmax(x, dim=0)", {}),
    ("center_rows_16384x4096", "x - mean(x, dim=1, keepdim=True)", [16384, 4096],
     "x - x.mean(dim=1, keepdim=True)", {}),
    ("batch_norm_ncl_64x256x4096", "batch_norm(x, weight=w, bias=b, training=true)",
     [64, 256, 4096], "F.batch_norm(x, None, None, w, b, training=True)",
     {"w": [256], "b": [256]}),
    ("instance_norm_affine_16x64x256x256", "instance_norm(x, weight=w, bias=b)",
     [16, 64, 256, 256], "F.instance_norm(x, weight=w, bias=b)", {"w": [64], "b": [64]}),
    # A tenth set (2026-11-28), written with the column teams of
    # sinter-plan-kernels (tuned on, unlike the sets above): reductions
    # over a middle dim whose kept innermost dim is short, as complex
    # values stored as pairs, RGB and RGBA images in NHWC, and the channels
    # of small feature maps make them.
    ("amax_middle_262144x64x4", "amax(x, dim=1)", [262144, 64, 4], "x.amax(dim=1)", {}),
    ("sum_middle_2097152x16x2", "sum(x, dim=1)", [2097152, 16, 2], "x.sum(dim=1)", {}),
    ("mean_middle_1048576x32x2", "mean(x, dim=1)", [1048576, 32, 2], "x.mean(dim=1)", {}),
    ("sum_middle_524288x16x8", "sum(x, dim=1)", [524288, 16, 8], "x.sum(dim=1)", {}),
    ("amax_middle_262144x16x16", "amax(x, dim=1)", [262144, 16, 16], "x.amax(dim=1)", {}),
    ("sum_complex_131072x256x2", "sum(x, dim=1)", [131072, 256, 2], "x.sum(dim=1)", {}),
    ("var_middle_262144x128x2", "var(x, dim=1)", [262144, 128, 2], "x.var(dim=1)", {}),
    ("argmax_middle_262144x128x2", "argmax(x, dim=1)", [262144, 128, 2],
     "x.argmax(dim=1)", {}),
    ("mean_nhwc_rgb_256x256x256x3", "mean(x, dim=[1, 2])", [256, 256, 256, 3],
     "x.mean(dim=(1, 2))", {}),
    ("sum_middle_65536x341x3", "sum(x, dim=1)", [65536, 341, 3], "x.sum(dim=1)", {}),
    ("mean_nhwc_rgba_256x256x256x4", "mean(x, dim=[1, 2])", [256, 256, 256, 4],
     "x.mean(dim=(1, 2))", {}),
]


def held_out_cases():
    """The held-out family: HELD_OUT's shapes."""
    return [case("held_out", name, [f"return {body}"],
                 shape if isinstance(shape, dict) else {"x": shape}, expr, params)
            for name, body, shape, expr, params in HELD_OUT]


def all_cases(pattern=None):
    """Every case, the families taking turns (one case of each, then the
    next of each, ...)."""
    cases = (row_cases() + channel_cases() + reduction_cases() + activation_cases() +
             held_out_cases())
    # A name is a case's folder and its row in the results: one case each
    # (a ninth-set case once shared a name, and its folder, with another).
    names = [c["name"] for c in cases]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise SystemExit(f"reduction_sweep: case names used twice: {', '.join(repeated)}")
    cases = [c for c in cases if not pattern or re.search(pattern, c["name"])]
    families = {}
    for c in cases:
        families.setdefault(c["family"], []).append(c)
    turns = []
    for i in range(max((len(f) for f in families.values()), default=0)):
        turns += [f[i] for f in families.values() if i < len(f)]
    return turns


def model_source(c):
    lines = [f"# Reduction sweep case {c['name']} ({c['family']}).",
             f"model {c['name']} {{"]
    for arg, shape in c["inputs"].items():
        lines.append(f"  input {arg}: f32[{', '.join(map(str, shape))}]")
    for arg, shape in c["params"].items():
        lines.append(f"  param {arg}: f32[{', '.join(map(str, shape))}] = randn()")
    lines += ["  " + line for line in c["body"]] + ["}"]
    return "\n".join(lines) + "\n"


def prepare(out, sinterc, root, pattern):
    cases = all_cases(pattern)
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.abspath(__file__), out)
    shutil.copytree(os.path.join(root, "runtime"), os.path.join(out, "runtime"),
                    dirs_exist_ok=True, ignore=shutil.ignore_patterns("test"))

    def generate(c):
        folder = os.path.join(out, c["name"])
        os.makedirs(folder, exist_ok=True)
        source = os.path.join(folder, c["name"] + ".sinter")
        with open(source, "w") as f:
            f.write(model_source(c))
        subprocess.run([sinterc, source, "-o", folder], check=True)
        plan = subprocess.run([sinterc, source, "-emit=fused", "--print-fusion-plan",
                               "-o", os.devnull], check=True, capture_output=True,
                              text=True)
        with open(os.path.join(folder, "plan.txt"), "w") as f:
            f.write(plan.stdout)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(generate, cases))
    print(f"reduction_sweep: prepared {len(cases)} cases in {out}")


def build(folder, cases, jobs):
    """Builds the runtime once and every case into lib<case>.so."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    include = os.path.join(folder, "runtime", "include")
    flags = ["-std=c++17", "-O3", "-arch=sm_90", "-Xcompiler", "-fPIC", "-I", include]
    sources = sorted(glob.glob(os.path.join(folder, "runtime", "src", "*.cu")))
    objects = [s[:-3] + ".o" for s in sources]

    def compile_runtime(source):
        return subprocess.run([nvcc] + flags + ["-c", source, "-o", source[:-3] + ".o"],
                              capture_output=True, text=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for result in pool.map(compile_runtime, sources):
            if result.returncode:
                sys.exit(result.stdout + result.stderr)

    def build_case(c):
        name = c["name"]
        path = os.path.join(folder, name)
        result = subprocess.run(
            [nvcc] + flags + ["-shared", "-I", path, os.path.join(path, name + ".cu")] +
            objects + ["-lcublas", "-lcublasLt", "-o", os.path.join(path, f"lib{name}.so")],
            capture_output=True, text=True)
        return name, result
    failed = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, result in pool.map(build_case, cases):
            if result.returncode:
                failed[name] = (result.stdout + result.stderr)[-2000:]
                print(f"{name}: nvcc failed\n{failed[name]}", flush=True)
    return failed


def torch_function(c):
    import torch
    import torch.nn.functional as F
    names = list(c["inputs"]) + list(c["params"])
    return eval(f"lambda {', '.join(names)}: {c['expr']}", {"torch": torch, "F": F})


def make_values(c, device):
    import torch
    gen = torch.Generator(device=device).manual_seed(0)
    shapes = list(c["inputs"].values()) + list(c["params"].values())
    return [torch.randn(s, device=device, generator=gen) for s in shapes]


def precompile(cases):
    """Runs in a worker process: torch.compile of each case, once, filling the
    shared Inductor cache."""
    import torch
    for c in cases:
        torch._dynamo.reset()
        values = make_values(c, torch.device("cuda"))
        try:
            torch.compile(torch_function(c))(*values)
        except Exception as error:  # the timing process reports it
            print(f"{c['name']}: precompile failed: {error}", flush=True)
        del values
        torch.cuda.empty_cache()
    torch.cuda.synchronize()


def run(folder, cases, out_path, reps, workers, budget_s, stop_s, flush_mode="read"):
    start = time.time()
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(folder, "inductor-cache"))
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        compiles = [pool.submit(precompile, cases[i::workers]) for i in range(workers)]
        failed_builds = build(folder, cases, os.cpu_count() or 8)
        for future in compiles:
            future.result()
    print(f"reduction_sweep: built and precompiled {len(cases)} cases in "
          f"{time.time() - start:.0f} s", flush=True)

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.device("cuda")
    stream = torch.cuda.current_stream()
    flush = torch.empty(512 * 1024 * 1024 // 4, device=device)
    flush_sum = torch.zeros((), device=device)
    if flush_mode == "read":
        flush.normal_()

    def flush_l2():
        if flush_mode == "read":
            torch.sum(flush, dim=0, out=flush_sum)
        else:
            flush.zero_()

    def time_fn(fn, count):
        # Back-to-back runs for at least 50 ms first: a contestant timed right
        # after a case's setup (library load, float64 reference) otherwise
        # ran a whole batch up to 16% slow on the H100, one case in three.
        deadline = time.perf_counter() + 0.05
        runs = 0
        while runs < 3 or time.perf_counter() < deadline:
            fn()
            torch.cuda.synchronize()
            runs += 1
        times = []
        for _ in range(count):
            flush_l2()
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
    copy_bw = 2 * src.numel() * 4 / (time_fn(lambda: dst.copy_(src), reps) * 1e-3)
    del src, dst

    def rel_err(value, ref):
        if value.dtype == torch.int64:
            return float((value != ref).double().mean())
        diff = (value.double() - ref).flatten()
        return float(diff.norm() / ref.flatten().norm().clamp_min(1e-300))

    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "copy_bandwidth_GBps": copy_bw / 1e9, "reps": reps, "flush": flush_mode,
               "cases": []}
    skipped = []
    for c in cases:
        name = c["name"]
        if time.time() - start > stop_s:
            skipped.append(name)
            continue
        row = {"case": name, "family": c["family"], "inputs": c["inputs"],
               "params": c["params"]}
        with open(os.path.join(folder, name, "plan.txt")) as f:
            row["plan"] = f.read()
        values = make_values(c, device)
        fn = torch_function(c)
        reference = fn(*values)
        ref64 = fn(*[v.double() for v in values])
        moved = sum(v.numel() * 4 for v in values) + \
            reference.numel() * reference.element_size()
        row["min_bytes"] = moved
        # Fewer repetitions where one run moves 1 GiB or more.
        count = reps if moved < (1 << 30) else max(5, reps // 2)
        row["reps"] = count
        contestants = {}
        if name in failed_builds:
            row["sinter_error"] = failed_builds[name]
        else:
            lib = ctypes.CDLL(os.path.join(folder, name, f"lib{name}.so"))
            out = torch.empty_like(reference)
            params = c["params"]

            class Params(ctypes.Structure):
                _fields_ = [(k, ctypes.c_void_p) for k in params] or \
                    [("unused", ctypes.c_void_p)]
            handle = ctypes.c_void_p()
            weights = values[len(c["inputs"]):]
            p = Params(*[w.data_ptr() for w in weights])
            s = ctypes.c_void_p(stream.cuda_stream)
            status = lib[f"{name}_create"](ctypes.byref(handle), ctypes.byref(p), s)
            assert status == 0, f"{name}_create: status {status}"
            forward = lib[f"{name}_forward"]
            args = [handle] + [ctypes.c_void_p(v.data_ptr())
                               for v in values[:len(c["inputs"])]] + \
                [ctypes.c_void_p(out.data_ptr()), s]

            def sinter():
                status = forward(*args)
                assert status == 0, f"{name}_forward: status {status}"
            sinter()
            torch.cuda.synchronize()
            row["sinter_rel_err"] = rel_err(out, ref64)
            contestants["sinter"] = sinter
        contestants["eager"] = lambda: fn(*values)
        row["eager_rel_err"] = rel_err(fn(*values), ref64)
        if time.time() - start < budget_s:
            # A fresh compiler per case: the cases share one lambda site,
            # whose recompile limit would send later cases to eager.
            torch._dynamo.reset()
            try:
                compiled = torch.compile(fn)
                row["compile_rel_err"] = rel_err(compiled(*values), ref64)
                contestants["compile"] = lambda: compiled(*values)
            except Exception as error:
                row["compile_error"] = str(error)[-500:]
        # Each contestant in turn, twice; the better median counts.
        for _ in range(2):
            for key, contestant in contestants.items():
                ms = time_fn(contestant, count)
                row[f"{key}_ms"] = min(row.get(f"{key}_ms", ms), ms)
        if "sinter" in contestants:
            row["sinter_fraction_of_copy"] = moved / (row["sinter_ms"] * 1e-3) / copy_bw
            lib[f"{name}_destroy"](handle)
            del out
        results["cases"].append(row)
        results["seconds"] = time.time() - start
        results["not_run"] = [x["name"] for x in cases[cases.index(c) + 1:]]
        # Written after every case: a run cut short keeps what it measured.
        with open(out_path, "w") as f:
            json.dump(results, f, indent=1)
        print(json.dumps({k: v for k, v in row.items() if k != "plan"}), flush=True)
        del values, reference, ref64
        torch.cuda.empty_cache()
    if skipped:
        print(f"reduction_sweep: --stop-s reached, {len(skipped)} cases not run: "
              f"{', '.join(skipped)}", flush=True)


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def strategy(plan):
    """The strategies of the fusion plan's kernels, and their launches."""
    kernels = [line.split() for line in plan.splitlines()
               if line[:1] == "k" and line[1:2].isdigit()]
    launches = sum(int(k[3]) for k in kernels if len(k) > 3 and k[3].isdigit())
    return ", ".join(k[2] for k in kernels), launches


def planned_bytes(plan):
    """The bytes that the chosen strategies move, as the fusion plan's total
    line states them (every pass over an input counted), or None."""
    for line in plan.splitlines():
        fields = line.split()
        if fields[:1] == ["total"] and len(fields) > 1 and fields[1].isdigit():
            return int(fields[1])
    return None


def derive(row, copy_bw=None):
    compile_ms = row.get("compile_ms")
    sinter_ms = row.get("sinter_ms")
    d = {"x_compile": compile_ms / sinter_ms if compile_ms and sinter_ms else None,
         "x_eager": row["eager_ms"] / sinter_ms if sinter_ms else None,
         "fraction": row.get("sinter_fraction_of_copy")}
    # The same fraction over the bytes the plan moves: a two-pass softmax
    # reads its input twice, so it reaches at most 2/3 of the copy bandwidth
    # over the minimum bytes however fast its kernel runs.
    planned = planned_bytes(row.get("plan", ""))
    d["planned_fraction"] = (planned / (sinter_ms * 1e-3) / (copy_bw * 1e9)
                             if planned and sinter_ms and copy_bw else None)
    err, eager_err = row.get("sinter_rel_err"), row.get("eager_rel_err")
    # Equal errors count as no larger (argmax: both exact; sums: 1% slack for
    # the float64 reference's own rounding).
    d["err_ok"] = None if err is None else err <= eager_err * 1.01 + 1e-12
    return d


def flush_text(mode):
    """How a results file's runs flushed the L2, in words."""
    if mode == "read":
        return ("by reading 512 MiB, which leaves no dirty line for the timed "
                "run to write back")
    return "by writing 512 MiB of zeros, up to 50 MB of them left dirty in L2"


def report(path):
    with open(path) as f:
        results = json.load(f)
    rows = results["cases"]
    families = []
    for row in rows:
        if row["family"] not in families:
            families.append(row["family"])
    lines = [f"# Reduction sweep: {results['device']}", "",
             f"PyTorch {results['torch']}; measured copy bandwidth "
             f"{results['copy_bandwidth_GBps']:.0f} GB/s; the better of two medians of "
             f"{results['reps']} runs (half as many for cases moving 1 GiB or more; "
             "contestants in turn, each warmed up for 50 ms), L2 flushed before "
             f"each ({flush_text(results.get('flush', 'write'))}); errors are ‖out − ref‖ / ‖ref‖ against float64 (argmax: the "
             "fraction of wrong indices). Command: `python3 bench/reduction_sweep.py "
             "prepare .carry/sweep` here, `python3 .carry/sweep/reduction_sweep.py run "
             ".carry/sweep --out $OUT/sweep.json` on the GPU"
             + (f" ({results['seconds']:.0f} s)" if results.get("seconds") else "")
             + ".", ""]

    # The summary: one line per family.
    lines += ["## Summary", "",
              "| family | cases | geomean × compile | min × compile | ≥ 0.95x compile "
              "| ≥ 0.90 of copy (≥ 64 MiB) | ≥ 0.90 of copy, planned bytes "
              "| error ≤ eager's |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    everything = []
    copy_bw = results["copy_bandwidth_GBps"]
    for family in families + ["all"]:
        members = [r for r in rows if family in ("all", r["family"])]
        derived = [derive(r, copy_bw) for r in members]
        speedups = [d["x_compile"] for d in derived if d["x_compile"]]
        big = [d for r, d in zip(members, derived)
               if r["min_bytes"] >= 64 << 20 and d["fraction"] is not None]
        errs = [d["err_ok"] for d in derived if d["err_ok"] is not None]
        g = geomean(speedups)
        cells = [family if family != "all" else "**all**", str(len(members)),
                 f"{g:.2f}x" if g else "–",
                 f"{min(speedups):.2f}x" if speedups else "–",
                 f"{sum(s >= 0.95 for s in speedups)}/{len(speedups)}",
                 f"{sum(d['fraction'] >= 0.9 for d in big)}/{len(big)}",
                 f"{sum((d['planned_fraction'] or 0) >= 0.9 for d in big)}/{len(big)}",
                 f"{sum(errs)}/{len(errs)}"]
        lines.append("| " + " | ".join(cells) + " |")
        if family == "all":
            everything = speedups
    lines += ["", f"Geometric mean over torch.compile: {geomean(everything) or 0:.2f}x "
              f"({len(everything)} cases). \"Of copy\" divides the minimum bytes (inputs "
              "read once, outputs written once) by the time and the measured copy "
              "bandwidth; \"planned bytes\" divides instead the bytes that the fusion "
              "plan's strategies move (`--print-fusion-plan`: every pass over an input "
              "counted), which separates a slow kernel from an algorithm that must "
              "read its input twice.", ""]
    if results.get("not_run"):
        lines += [f"Not run (the run's --stop-s came first): "
                  f"{', '.join(results['not_run'])}.", ""]

    for family in families:
        lines += [f"## {family}", "",
                  "| case | input | Sinter ms | eager ms | compile ms | × eager "
                  "| × compile | of copy | of copy, planned | err Sinter | err eager "
                  "| err compile | kernels (launches) |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
                  "| ---: | ---: | --- |"]
        for row in (r for r in rows if r["family"] == family):
            d = derive(row, copy_bw)
            kernels, launches = strategy(row["plan"])

            def ms(key):
                return f"{row[key]:.3f}" if row.get(key) else "failed"

            def err(key):
                return f"{row[key]:.1e}" if row.get(key) is not None else "–"

            def fmt(value, pattern):
                return pattern.format(value) if value else "–"
            mark = "" if d["err_ok"] in (None, True) else " ⚠"
            cells = [row["case"], shape_name(next(iter(row["inputs"].values()))),
                     ms("sinter_ms"), ms("eager_ms"), ms("compile_ms"),
                     fmt(d["x_eager"], "{:.2f}x"), fmt(d["x_compile"], "{:.2f}x"),
                     fmt(d["fraction"], "{:.2f}"),
                     fmt(d["planned_fraction"], "{:.2f}"), err("sinter_rel_err") + mark,
                     err("eager_rel_err"), err("compile_rel_err"),
                     f"{kernels} ({launches})"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["⚠: Sinter's error is larger than eager's.", ""]
    base = os.path.splitext(path)[0]
    png = base + ".png"
    if chart(results, png):
        lines += [f"![speedup over torch.compile and fraction of the copy bandwidth]"
                  f"({os.path.basename(png)})", ""]
    with open(base + ".md", "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[:len(families) + 12]))
    print(f"reduction_sweep: wrote {base}.md")


def chart(results, path):
    """Speedup over torch.compile per case (log axis) and fraction of the copy
    bandwidth, grouped by family. Returns False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("reduction_sweep: matplotlib is not installed (python3 -m pip install "
              "matplotlib): no chart written", file=sys.stderr)
        return False
    families = list(dict.fromkeys(r["family"] for r in results["cases"]))
    rows = sorted(results["cases"], key=lambda r: families.index(r["family"]))
    derived = [derive(r) for r in rows]
    colors = {f: plt.cm.tab20(i % 20) for i, f in enumerate(families)}
    xs = range(len(rows))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(12, 0.16 * len(rows) + 2), 9),
                                      sharex=True)
    top.bar(xs, [d["x_compile"] or 0 for d in derived],
            color=[colors[r["family"]] for r in rows])
    top.set_yscale("log")
    top.axhline(1.0, color="black", linewidth=0.8)
    top.axhline(0.95, color="gray", linewidth=0.8, linestyle="--")
    top.set_ylabel("Sinter speedup over torch.compile (×, log)")
    top.set_title(f"Reduction sweep, {results['device']}, PyTorch {results['torch']}: "
                  f"geomean {geomean([d['x_compile'] for d in derived]) or 0:.2f}x")
    from matplotlib.patches import Patch
    top.legend(handles=[Patch(color=colors[f], label=f) for f in families],
               fontsize=7, ncol=4)
    bottom.bar(xs, [d["fraction"] or 0 for d in derived],
               color=[colors[r["family"]] for r in rows])
    bottom.axhline(0.9, color="gray", linewidth=0.8, linestyle="--")
    bottom.set_ylabel("fraction of copy bandwidth")
    bottom.set_ylim(0, 1.1)
    bottom.set_xticks(list(xs))
    bottom.set_xticklabels([r["case"] for r in rows], rotation=90, fontsize=5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["prepare", "run", "report", "list"])
    parser.add_argument("folder", nargs="?", default=".")
    parser.add_argument("--sinterc", default=os.path.join(HERE, "..", "build", "bin", "sinterc"))
    parser.add_argument("--out", default="reduction_sweep.json")
    parser.add_argument("--cases", default=None, help="only the cases matching this regex")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--workers", type=int, default=8,
                        help="processes that precompile torch.compile graphs")
    parser.add_argument("--budget-s", type=float, default=480,
                        help="skip torch.compile once the run is this old")
    parser.add_argument("--flush", choices=["read", "write"], default="read",
                        help="how the L2 is flushed before each timed run: a 512 MiB "
                        "read (default) or a 512 MiB write")
    parser.add_argument("--stop-s", type=float, default=1e9,
                        help="start no new case once the run is this old")
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.folder, args.sinterc, os.path.join(HERE, ".."), args.cases)
    elif args.command == "report":
        report(args.folder)
    elif args.command == "list":
        for c in all_cases(args.cases):
            print(c["family"], c["name"], c["inputs"], c["expr"])
    else:
        cases = [c for c in all_cases(args.cases)
                 if os.path.isdir(os.path.join(args.folder, c["name"]))]
        run(args.folder, cases, args.out, args.reps, args.workers, args.budget_s,
            args.stop_s, args.flush)


if __name__ == "__main__":
    main()
