"""Linear, then group norm over 32 groups."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n_in, n_out, groups):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.norm = nn.GroupNorm(groups, n_out)

    def forward(self, x):
        return self.norm(self.fc(x))


def get_inputs():
    return [torch.randn(4096, 1024)]


def get_init_inputs():
    return [1024, 2048, 32]
