"""Lazy modules against PyTorch 2.15's eager values: LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d and LazyBatchNorm1d/2d infer their input size at the first call, draw their
weights then (a seed gives PyTorch's weights) and become the ordinary class; outputs and gradients
eagerly, and compiled after the first call. Reprs before and after, state_dict keys, the error for a
wrong input rank. Goldens: `lazy_modules_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python lazy_modules_vs_pytorch.py --record`."""
import torch
import torch.nn as nn

from _eager_goldens import Goldens, data

goldens = Goldens(__file__, "lazy_modules_pt.json")
torch.manual_seed(0)
cases = [
    ("LazyLinear", lambda: nn.LazyLinear(3), data(4, 5)),
    ("LazyLinear no bias", lambda: nn.LazyLinear(2, bias=False), data(2, 3, 4)),
    ("LazyConv1d", lambda: nn.LazyConv1d(4, 3, padding=1), data(2, 3, 8)),
    ("LazyConv2d", lambda: nn.LazyConv2d(4, 3, stride=2, groups=2), data(2, 4, 7, 7)),
    ("LazyConv2d unbatched", lambda: nn.LazyConv2d(2, (2, 3), bias=False), data(3, 5, 6)),
    ("LazyConv3d", lambda: nn.LazyConv3d(2, 2), data(1, 2, 4, 4, 4)),
    ("LazyConvTranspose1d", lambda: nn.LazyConvTranspose1d(3, 3, stride=2), data(2, 2, 5)),
    ("LazyConvTranspose2d", lambda: nn.LazyConvTranspose2d(2, 3, output_padding=0, groups=1), data(1, 3, 4, 4)),
    ("LazyBatchNorm1d", lambda: nn.LazyBatchNorm1d(), data(6, 3)),
    ("LazyBatchNorm2d", lambda: nn.LazyBatchNorm2d(momentum=0.3), data(2, 3, 4, 4)),
]
for label, make, x in cases:
    torch.manual_seed(7)
    m = make()
    before = repr(m)
    out = m(x)
    after = repr(m)
    goldens.text(f"{label} repr", f"{before} -> {after} {type(m).__name__} {sorted(m.state_dict())}")
    goldens.check(f"{label} params", lambda: tuple(t.detach().clone() for t in m.state_dict().values()
                                                   if t.is_floating_point()))
    goldens.check(label, lambda inp: m(inp), x)

for label, call in [
    ("conv rank", lambda: nn.LazyConv2d(2, 3)(torch.zeros(2, 3))),
    ("linear params before call", lambda: nn.LazyLinear(2).weight.shape),
]:
    goldens.raises(label, call)
goldens.finish()
