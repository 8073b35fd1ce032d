"""KernelBench level 2 #14: matmul, divide, sum over the features, scale."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = x / 2
        x = torch.sum(x, dim=1, keepdim=True)
        return x * self.scaling_factor


def get_inputs():
    return [torch.randn(1024, 4096)]


def get_init_inputs():
    return [4096, 4096, 1.5]
