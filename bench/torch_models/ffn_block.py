"""Transformer FFN block: pre-norm, linear d -> 4d, gelu, linear 4d -> d, residual."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


def get_inputs():
    return [torch.randn(4096, 1024)]


def get_init_inputs():
    return [1024, 4096]
