"""Modules that sinter.export must refuse, each with a clear message.

Prints `== <case>` and the error's message for each; exits 1 if any
module is exported instead of refused, or fails with another error.
"""

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import sinter


class Cumsum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1) * 2


class StridedSlice(nn.Module):
    def forward(self, x):
        return x[:, ::2] * 2


class TrainDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5, training=True)


class ArgmaxAll(nn.Module):
    def forward(self, x):
        return torch.argmax(x)


class Float64(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4).double()

    def forward(self, x):
        return self.fc(x)


class LayerNormStats(nn.Module):
    def forward(self, x):
        out, mean, rstd = torch.ops.aten.native_layer_norm(x, [8], None,
                                                           None, 1e-5)
        return out + mean


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class LogicalAnd(nn.Module):
    def forward(self, x):
        return torch.where(torch.logical_and(x > 0, x < 1), x, 0.0)


class NanFill(nn.Module):
    def forward(self, x):
        return x.masked_fill(x > 0, float("nan"))


class RoundDecimals(nn.Module):
    def forward(self, x):
        return torch.round(x, decimals=1)


class Pad(nn.Module):
    def forward(self, x):
        return F.pad(x, (1, 1))


CASES = [Cumsum, StridedSlice, TrainDropout, ArgmaxAll, Float64, LayerNormStats,
         DataDependent, LogicalAnd, NanFill, RoundDecimals, Pad]

status = 0
for case in CASES:
    print(f"== {case.__name__}")
    x = torch.randn(4, 8, dtype=torch.float64 if case is Float64 else None)
    try:
        sinter.export(case(), (x,),
                      dynamic_shapes=({0: sinter.Dim("B")},))
        print("exported (wrong)")
        status = 1
    except sinter.ExportError as error:
        print(error)
sys.exit(status)
