"""KernelBench-style linear, relu, divide by a constant."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n_in, n_out, divisor):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.divisor = divisor

    def forward(self, x):
        return torch.relu(self.fc(x)) / self.divisor


def get_inputs():
    return [torch.randn(4096, 2048)]


def get_init_inputs():
    return [2048, 2048, 2.0]
