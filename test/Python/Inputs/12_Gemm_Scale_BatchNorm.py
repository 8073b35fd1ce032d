import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A model that performs a GEMM, scales the result, and applies batch
    normalization (in the layout of a KernelBench level-2 problem).
    """

    def __init__(self, in_features, out_features, scale_shape, eps=1e-5,
                 momentum=0.1):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, momentum=momentum)

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.scale
        x = self.bn(x)
        return x


class Head(nn.Module):
    """A second class, exported with --class Head."""

    def __init__(self, in_features, out_features, scale_shape):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.softmax(self.proj(x), dim=-1)


batch_size = 16
in_features = 32
out_features = 24
scale_shape = (out_features,)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scale_shape]
