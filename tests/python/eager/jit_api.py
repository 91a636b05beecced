"""`torch.jit` as model code uses it outside TorchScript (timm, torchvision): `ignore`, `unused`,
`export`, `Final`, `is_scripting`, `is_tracing`, `annotate`, `Attribute` behave as in PyTorch 2.15's
eager mode, also inside torch.compile; so does `torch.fx.wrap`. Its stdout equals `jit_api.out`, recorded under real PyTorch
(`/tmp/pt/bin/python jit_api.py > jit_api.out`); the TorchScript entry points are checked apart
(they raise here, they script in PyTorch): `robust/torchscript_unsupported.py`."""
from typing import List

import torch
import torch.nn as nn


@torch.fx.wrap
def halve(x):
    return x / 2


torch.fx.wrap("len")


class Block(nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = 0.5
        self.names = torch.jit.Attribute([], List[str])

    @torch.jit.ignore
    def no_weight_decay(self):
        return {"fc.bias"}

    @torch.jit.ignore(drop=True)
    def dropped(self, x):
        return x * 3

    @torch.jit.unused
    def unused(self, x):
        return x - 1

    @torch.jit.export
    def exported(self, x):
        return x + 1

    def forward(self, x):
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            return x
        y = torch.jit.annotate(torch.Tensor, self.fc(x)) * self.scale
        return halve(self.dropped(self.unused(self.exported(y))))


torch.manual_seed(0)
m = Block()
x = torch.arange(8.0).reshape(2, 4) / 8
eager = m(x)
print("eager", [round(v, 5) for v in eager.flatten().tolist()])
print("no_weight_decay", sorted(m.no_weight_decay()), "names", m.names)
print("is_scripting", torch.jit.is_scripting(), "is_tracing", torch.jit.is_tracing())
compiled = torch.compile(m, fullgraph=True)(x)
print("compiled equal", torch.equal(compiled, eager))
try:
    torch.fx.wrap(3)
except RuntimeError as e:
    print("RuntimeError", e)
