"""torch.nn.utils parametrizations and normalisations against PyTorch 2.15's eager values, eagerly and
compiled: register_parametrization (a custom parametrization with right_inverse, chained ones,
assignment through the property, cached(), removal with and without leaving the value), weight_norm
and spectral_norm in both APIs (state_dict keys, forward values, gradients of the originals, power
iterations over training steps), and conv/linear batch-norm fusion. Goldens: `parametrize_pt.json`,
recorded by `PYTHONPATH=tests/python /tmp/pt/bin/python parametrize_vs_pytorch.py --record`."""
import warnings

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils import parametrizations

from _eager_goldens import Goldens, data

warnings.simplefilter("ignore")  # the old APIs' deprecation warnings
goldens = Goldens(__file__, "parametrize_pt.json")


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT

    def right_inverse(self, a):
        return a.triu()


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x


def seeded(make):
    torch.manual_seed(3)
    return make()


torch.manual_seed(0)
x = data(5, 4)
img = data(2, 3, 6, 6)


def symmetric_linear(inp):
    m = seeded(lambda: nn.Linear(4, 4))
    P.register_parametrization(m, "weight", Symmetric())
    return m(inp), m.weight, m.parametrizations.weight.original


goldens.check("register_parametrization", symmetric_linear, x)


def chained(inp):
    m = seeded(lambda: nn.Linear(4, 4))
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale())
    with P.cached():
        a = m(inp)
        b = m(inp * 2)
    return a + b, m.weight


goldens.check("chained and cached", chained, x)


def assigned(inp):
    m = seeded(lambda: nn.Linear(4, 4))
    P.register_parametrization(m, "weight", Symmetric())
    with torch.no_grad():
        m.weight = torch.arange(16.0).reshape(4, 4)
    return m(inp), m.parametrizations.weight.original


goldens.check("assignment through right_inverse", assigned, x)


def removed(inp, leave):
    m = seeded(lambda: nn.Linear(4, 4))
    P.register_parametrization(m, "weight", Symmetric())
    P.remove_parametrizations(m, "weight", leave_parametrized=leave)
    return m(inp), m.weight


goldens.check("removed leaving the value", lambda inp: removed(inp, True), x)
goldens.check("removed restoring the original", lambda inp: removed(inp, False), x)
m = seeded(lambda: nn.Linear(4, 4))
P.register_parametrization(m, "weight", Symmetric())
goldens.text("parametrized", " ".join([type(m).__name__, str(P.is_parametrized(m)), str(P.is_parametrized(m, "bias")),
                                      P.type_before_parametrizations(m).__name__, str(sorted(m.state_dict()))]))
P.remove_parametrizations(m, "weight")
goldens.text("unparametrized", f"{type(m).__name__} {P.is_parametrized(m)} {sorted(m.state_dict())}")


def weight_norm_new(inp, dim):
    m = seeded(lambda: nn.Conv2d(3, 4, 3))
    parametrizations.weight_norm(m, dim=dim)
    g, v = m.parametrizations.weight.original0, m.parametrizations.weight.original1
    return m(inp), m.weight, g, v


for dim in (0, 1, None):
    goldens.check(f"parametrizations.weight_norm dim={dim}", lambda inp: weight_norm_new(inp, dim), img)
wn = parametrizations.weight_norm(seeded(lambda: nn.Linear(4, 3)))
goldens.text("weight_norm state_dict", str(sorted(wn.state_dict())))


def weight_norm_old(inp):
    m = nn.utils.weight_norm(seeded(lambda: nn.Linear(4, 3)), name="weight")
    first = m(inp)
    with torch.no_grad():
        m.weight_g.mul_(2)
    second = m(inp)
    nn.utils.remove_weight_norm(m)
    return first, second, m(inp), m.weight


goldens.check("old weight_norm", weight_norm_old, x)
old = nn.utils.weight_norm(seeded(lambda: nn.Linear(4, 3)))
goldens.text("old weight_norm params", str(sorted(n for n, _ in old.named_parameters())))


def spectral_new(inp, steps, conv_t):
    def make():
        return nn.ConvTranspose2d(3, 4, 3) if conv_t else nn.Conv2d(3, 4, 3)

    m = parametrizations.spectral_norm(seeded(make))
    outs = []
    for _ in range(steps):
        outs.append(m(inp))
    m.eval()
    outs.append(m(inp))
    # The outputs (weight / sigma, sigma = u^T W v) are compared; the estimates u and v themselves
    # are not: 18 power steps carry float32 rounding of the matrix-vector products along the
    # slowly converging directions (1e-4 apart from PyTorch's here), which sigma is insensitive to.
    return tuple(outs)


goldens.check("parametrizations.spectral_norm", lambda inp: spectral_new(inp, 3, False), img)
goldens.check("parametrizations.spectral_norm transposed", lambda inp: spectral_new(inp, 2, True), img)


def spectral_old(inp):
    m = nn.utils.spectral_norm(seeded(lambda: nn.Linear(4, 6)), n_power_iterations=2)
    a = m(inp)
    b = m(inp)
    m.eval()
    c = m(inp)
    u, v = m.weight_u.clone(), m.weight_v.clone()
    nn.utils.remove_spectral_norm(m)
    return a, b, c, u, v, m.weight


goldens.check("old spectral_norm", spectral_old, x)
sn = nn.utils.spectral_norm(seeded(lambda: nn.Linear(4, 6)))
goldens.text("old spectral_norm state", f"{sorted(n for n, _ in sn.named_parameters())} {sorted(sn._buffers)}")


def fused_conv(inp, transpose):
    torch.manual_seed(5)
    conv = nn.ConvTranspose2d(3, 4, 3) if transpose else nn.Conv2d(3, 4, 3)
    bn = nn.BatchNorm2d(4)
    bn.train()
    bn(conv(inp))  # running statistics
    conv.eval()
    bn.eval()
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    return bn(conv(inp)), fused(inp)


goldens.check("fuse_conv_bn_eval", lambda inp: fused_conv(inp, False), img)
goldens.check("fuse_conv_bn_eval transposed", lambda inp: fused_conv(inp, True), img)


def fused_linear(inp):
    torch.manual_seed(5)
    lin, bn = nn.Linear(4, 3), nn.BatchNorm1d(3)
    bn(lin(inp))
    lin.eval()
    bn.eval()
    return bn(lin(inp)), nn.utils.fuse_linear_bn_eval(lin, bn)(inp)


goldens.check("fuse_linear_bn_eval", fused_linear, x)
for label, call in [
    ("no such tensor", lambda: P.register_parametrization(nn.Linear(2, 2), "nope", Scale())),
    ("remove missing", lambda: P.remove_parametrizations(nn.Linear(2, 2), "weight")),
    ("weight_norm leave", lambda: P.remove_parametrizations(parametrizations.weight_norm(nn.Linear(2, 2)), "weight",
                                                           leave_parametrized=False)),
    ("fuse in training", lambda: nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))),
    ("spectral iterations", lambda: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)),
]:
    goldens.raises(label, call)
goldens.finish()
