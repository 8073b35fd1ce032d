"""Small PyTorch modules that cover every ATen op sinter.export supports.

CASES: (name, make module, input sizes with "B" for the batch). Each
module is exported with dim 0 of every input symbolic (B), run by the
interpreter at two batch sizes and compared with PyTorch in float64
(check_export.py). Modules are in eval mode unless they say train().
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Fn(nn.Module):
    """forward(x) = fn(self, x); params made by `init(self)`."""

    def __init__(self, fn, init=None):
        super().__init__()
        self.fn = fn
        if init:
            init(self)

    def forward(self, x):
        return self.fn(self, x)


class Fn2(Fn):
    """forward(x, y) = fn(self, x, y)."""

    def forward(self, x, y):
        return self.fn(self, x, y)


def linear(n_in, n_out, bias=True):
    def init(m):
        m.fc = nn.Linear(n_in, n_out, bias=bias)
    return init


def params(**shapes):
    def init(m):
        for key, shape in shapes.items():
            setattr(m, key, nn.Parameter(torch.randn(*shape)))
    return init


class MLP(nn.Module):
    """Transformer FFN block: pre-norm, up, gelu, down, residual."""

    def __init__(self, d=16, hidden=32):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class SwiGLU(nn.Module):
    def __init__(self, d=16, hidden=24):
        super().__init__()
        self.gate = nn.Linear(d, hidden, bias=False)
        self.up = nn.Linear(d, hidden, bias=False)
        self.down = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Blocks(nn.Module):
    """Nested modules: state_dict keys with dots and indices."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(12, 16), nn.ReLU(),
                                    nn.Linear(16, 8), nn.Tanh())
        self.norm = nn.BatchNorm1d(8)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 8))

    def forward(self, x):
        return self.norm(self.layers(x)) * self.scale


def bn_train(features):
    m = nn.Sequential(nn.Linear(12, features), nn.BatchNorm1d(features))
    return m.train()


def bn_eval(features):
    m = nn.Sequential(nn.Linear(12, features), nn.BatchNorm1d(features))
    with torch.no_grad():
        m[1].running_mean.uniform_(-0.5, 0.5)
        m[1].running_var.uniform_(0.5, 2.0)
        m[1].weight.uniform_(0.5, 1.5)
        m[1].bias.uniform_(-0.5, 0.5)
    return m.eval()


class InputNamedInput(nn.Module):
    """An argument named like a .sinter keyword."""

    def forward(self, input):
        return input * 2


class AtenOverloads(nn.Module):
    """ATen overloads called directly: the core forms of what the exporter
    keeps whole (native_layer_norm for layer_norm, _softmax, ...), and the
    scalar overloads."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12))
        self.m = nn.Parameter(torch.randn(12, 5))

    def forward(self, x):
        a = torch.ops.aten
        h = (a.add.Scalar(x, 1.5) + a.mul.Scalar(x, 2.0) +
             a.sub.Scalar(x, 0.5) + a.div.Scalar(x, 4.0))
        h = (h + a._to_copy.default(x, dtype=torch.float32) +
             a.alias.default(x) + a.prod.default(x * 0.1 + 1) +
             a.full.default([12], 2.0) + a.scalar_tensor.default(0.5))
        return (a.mm.default(h, self.m), a._softmax.default(h, 1, False),
                a._log_softmax.default(h, 1, False),
                a.native_layer_norm.default(h, [12], self.w, None, 1e-5)[0],
                a.native_group_norm.default(h, None, self.w, x.shape[0], 12,
                                            1, 3, 1e-5)[0],
                a.std.correction(h, [1], correction=0),
                a._native_batch_norm_legit.no_stats(h, self.w, None, True,
                                                    0.1, 1e-5)[0])


X = [("B", 12)]
CASES = [
    # elementwise, binary (tensor and scalar operands)
    ("add_sub", lambda: Fn2(lambda m, x, y: x + y - 2.5 + (x - y) * 3,), [
        ("B", 12), ("B", 12)]),
    ("add_alpha", lambda: Fn2(lambda m, x, y: torch.add(x, y, alpha=0.5) -
                             torch.sub(x, y, alpha=2)), [("B", 12), (12,)]),
    ("rsub", lambda: Fn(lambda m, x: 1.0 - x), X),
    ("mul_div", lambda: Fn(lambda m, x: x * m.w / (m.w.abs() + 1) / 4.0,
                           params(w=(12,))), X),
    ("pow_scalar", lambda: Fn(lambda m, x: torch.pow(x.abs() + 0.5, 1.5) +
                              x ** 2), X),
    ("pow_tensor", lambda: Fn(lambda m, x: torch.pow(x.abs() + 0.5, m.e),
                              params(e=(12,))), X),
    ("maximum_minimum", lambda: Fn2(
        lambda m, x, y: torch.maximum(x, y) + torch.minimum(x, m.w),
        params(w=(12,))), [("B", 12), ("B", 12)]),
    # comparisons (0/1 masks), where, slices, split, chunk and cat
    ("compare_where", lambda: Fn2(
        lambda m, x, y: torch.where(x > 0, x, 0.1 * x) +
        torch.where(x <= y, y, m.w) + (x >= 0.5) * x + (x < m.w).float() +
        (x == x) + (x != y) * 2.0, params(w=(12,))), [("B", 12), ("B", 12)]),
    ("slice_cat_split", lambda: Fn(
        lambda m, x: (lambda g, u: torch.cat(
            [F.silu(g) * u, x[:, 2:6], x[..., -3:]], dim=1))(
                *m.fc(x).chunk(2, dim=-1)) + 0,
        linear(12, 16, bias=False)), X),
    ("split_sizes", lambda: Fn(
        lambda m, x: (lambda a, b: torch.cat([b, a * 2], 1))(
            *torch.split(x, [5, 7], dim=1)) + x.narrow(1, 1, 12 - 1)[:, :1]),
     X),
    # elementwise, unary
    ("neg_abs", lambda: Fn(lambda m, x: -x + x.abs()), X),
    ("exp_log", lambda: Fn(lambda m, x: torch.exp(x) + torch.log(x.abs() +
                                                                 1e-3)), X),
    ("sqrt_rsqrt", lambda: Fn(lambda m, x: torch.sqrt(x.abs()) +
                              torch.rsqrt(x.abs() + 0.1)), X),
    ("reciprocal_square", lambda: Fn(lambda m, x: 1 / (x.abs() + 1) +
                                     torch.square(x)), X),
    ("log1p_expm1_erf_sign", lambda: Fn(lambda m, x: torch.log1p(x.abs()) +
                                        torch.expm1(x) + torch.erf(x) +
                                        torch.sign(x)), X),
    ("trig_log2_exp2", lambda: Fn(lambda m, x: torch.sin(x) * torch.cos(x)
                                  + torch.exp2(x) - torch.log2(x.abs() + 1)
                                  + torch.log10(x.abs() + 2)), X),
    # rounding (fake quantization): halfway cases to even, as torch.round
    ("round_floor_ceil_trunc", lambda: Fn(lambda m, x: (
        torch.round(x * 2) / 2, torch.floor(x), torch.ceil(x),
        torch.trunc(x * 3))), X),
    ("relu_sigmoid_tanh", lambda: Fn(lambda m, x: torch.relu(x) +
                                     torch.sigmoid(x) * torch.tanh(x)), X),
    ("leaky_relu", lambda: Fn(lambda m, x: F.leaky_relu(x, 0.2) +
                              F.leaky_relu(x)), X),
    ("gelu_erf", lambda: Fn(lambda m, x: F.gelu(x)), X),
    ("gelu_tanh", lambda: Fn(lambda m, x: F.gelu(x, approximate="tanh")), X),
    ("silu_mish", lambda: Fn(lambda m, x: F.silu(x) + F.mish(x)), X),
    ("softplus", lambda: Fn(lambda m, x: F.softplus(x) +
                            F.softplus(x * 8, beta=2.0, threshold=5.0)), X),
    ("logsigmoid", lambda: Fn(lambda m, x: F.logsigmoid(x * 30)), X),
    ("elu_selu", lambda: Fn(lambda m, x: F.elu(x) + F.elu(x, alpha=0.5) +
                            F.selu(x)), X),
    ("celu_scaled_elu", lambda: Fn(lambda m, x: torch.ops.aten.elu(
        x, 1.0, 2.0)), X),
    ("hardtanh_relu6", lambda: Fn(lambda m, x: F.hardtanh(x * 3) +
                                  F.hardtanh(x, -0.5, 0.25) +
                                  F.relu6(x * 4)), X),
    ("hardsigmoid_hardswish", lambda: Fn(lambda m, x: F.hardsigmoid(x * 4) +
                                         F.hardswish(x * 4)), X),
    ("softsign", lambda: Fn(lambda m, x: F.softsign(x)), X),
    ("clamp", lambda: Fn(lambda m, x: torch.clamp(x, -0.5, 0.5) +
                         x.clamp(min=0.1) + x.clamp(max=-0.1) +
                         torch.clamp_min(x, 0.2)), X),
    ("clamp_tensor", lambda: Fn(lambda m, x: torch.clamp(x, m.lo, m.hi),
                                params(lo=(12,), hi=(12,))), X),
    ("full_like_constant", lambda: Fn(
        lambda m, x: x * torch.full_like(x, 3.0) + torch.ones_like(x) +
        torch.tensor(0.5)), X),
    # linear algebra
    ("linear", lambda: Fn(lambda m, x: m.fc(x), linear(12, 20)), X),
    ("linear_no_bias", lambda: Fn(lambda m, x: m.fc(x),
                                  linear(12, 20, bias=False)), X),
    ("mm_param", lambda: Fn(lambda m, x: x @ m.w, params(w=(12, 7))), X),
    ("mm_transposed", lambda: Fn(lambda m, x: x @ m.w.t() + m.w.sum(1),
                                 params(w=(9, 12))), X),
    ("matmul_rank3", lambda: Fn(lambda m, x: (x @ m.w, m.fc(x)), lambda m: (
        params(w=(6, 5))(m), linear(6, 7)(m))), [("B", 3, 6)]),
    ("bmm", lambda: Fn2(lambda m, x, y: torch.bmm(x, y)), [("B", 4, 6),
                                                         ("B", 6, 5)]),
    # rank-4 operands: the decomposition expands each to its own shape
    # and views it as rank 3 for bmm
    ("matmul_rank4", lambda: Fn2(lambda m, q, k: torch.softmax(
        q @ k.transpose(-2, -1) / 2, -1) @ k), [("B", 2, 3, 4),
                                                ("B", 2, 3, 4)]),
    ("addmm_scaled", lambda: Fn(lambda m, x: torch.addmm(
        m.b, x, m.w, beta=0.5, alpha=2.0), params(b=(7,), w=(12, 7))), X),
    # reductions
    ("sum_mean", lambda: Fn(lambda m, x: x.sum(1, keepdim=True) +
                            x.mean(-1, keepdim=True) + x.sum() + x.mean()),
     X),
    ("amax_amin_max_min", lambda: Fn(lambda m, x: torch.amax(x, 1) +
                                     torch.amin(x, 1) + x.max(1).values +
                                     x.min(dim=1).values + x.max() +
                                     x.min()), X),
    ("argmax_argmin", lambda: Fn(lambda m, x: (torch.argmax(x, 1),
                                               torch.argmin(x, -1),
                                               x.max(1).indices)), X),
    ("prod", lambda: Fn(lambda m, x: (x * 0.2 + 1).prod(1, keepdim=True)),
     X),
    ("logsumexp", lambda: Fn(lambda m, x: torch.logsumexp(x, 1)), X),
    ("var_std", lambda: Fn(lambda m, x: x.var(1) + x.var(1, unbiased=False) +
                           x.std(1) + torch.var(x, 1, correction=0)), X),
    ("var_mean", lambda: Fn(lambda m, x: (
        *torch.var_mean(x, 1),
        (x - torch.var_mean(x, 1, keepdim=True)[1]) /
        torch.sqrt(torch.var_mean(x, 1, correction=0, keepdim=True)[0] + 1e-5))),
     X),
    ("sum_rank3", lambda: Fn(lambda m, x: x.sum([1, 2]) + x.mean(2).sum(1)),
     [("B", 3, 5)]),
    # a mask's -inf fill (math.inf in .sinter) before a softmax
    ("masked_fill_softmax", lambda: Fn2(lambda m, x, y: torch.softmax(
        x.masked_fill(y > 1.5, float("-inf")) * 2, -1)), [("B", 12),
                                                          ("B", 12)]),
    ("softmax", lambda: Fn(lambda m, x: F.softmax(x, -1) +
                           torch.softmax(x * 2, 1)), X),
    ("log_softmax", lambda: Fn(lambda m, x: F.log_softmax(x, 1)), X),
    # normalization
    ("layer_norm", lambda: nn.LayerNorm(12), X),
    ("layer_norm_no_affine", lambda: nn.LayerNorm(12,
                                                  elementwise_affine=False),
     X),
    ("group_norm", lambda: nn.Sequential(nn.Linear(12, 16),
                                         nn.GroupNorm(4, 16)), X),
    ("group_norm_rank3", lambda: nn.GroupNorm(2, 4), [("B", 4, 6)]),
    ("batch_norm_eval", lambda: bn_eval(10), X),
    ("batch_norm_train", lambda: bn_train(10), X),
    ("instance_norm", lambda: nn.InstanceNorm1d(4, affine=True),
     [("B", 4, 6)]),
    # shapes and identities
    ("view_flatten", lambda: Fn(lambda m, x: x.view(x.shape[0], 3, 4).sum(1)
                                + x.reshape(-1, 2, 6).flatten(1).mean(1,
                                                                      True)),
     X),
    ("unsqueeze_squeeze", lambda: Fn(
        lambda m, x: (x.unsqueeze(1) * m.w.unsqueeze(0).unsqueeze(0))
        .squeeze(1) + x.sum(1, keepdim=True).squeeze(-1).unsqueeze(-1),
        params(w=(12,))), X),
    ("permute_transpose", lambda: Fn(lambda m, x: x.permute(0, 2, 1).sum(2)
                                     + x.transpose(1, 2).mean(1).sum(1,
                                                                     True)
                                     + x.permute(2, 0, 1).sum(0).sum(1,
                                                                     True)),
     [("B", 3, 5)]),
    ("expand", lambda: Fn(lambda m, x: x.sum(1, keepdim=True).expand(-1, 12)
                          * x + m.w.expand(x.shape[0], 12),
                          params(w=(12,))), X),
    ("clone_dropout", lambda: Fn(lambda m, x: F.dropout(x.clone(), 0.5,
                                                        training=False)
                                 .contiguous() * 2), X),
    ("pool1d_kernel_stride", lambda: Fn(
        lambda m, x: F.max_pool1d(x, 3, 3).sum(2) +
        F.avg_pool1d(x, 2).mean(2)), [("B", 2, 12)]),
    # blocks
    ("mlp_block", MLP, [("B", 16)]),
    ("swiglu", SwiGLU, [("B", 16)]),
    ("nested_buffers", Blocks, X),
    ("softmax_head", lambda: nn.Sequential(nn.Linear(12, 10),
                                           nn.Softmax(dim=-1)), X),
    ("two_outputs", lambda: Fn(lambda m, x: (m.fc(x).relu(),
                                             m.fc(x).sum(1)), linear(12, 6)),
     X),
    ("input_named_input", InputNamedInput, X),
    ("aten_overloads", AtenOverloads, X),
]
