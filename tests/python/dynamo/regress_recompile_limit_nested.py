"""Once a frame hits the recompile limit it runs unchanged, and the frames it calls only run
cached code (Dynamo's RUN_ONLY strategy, applied recursively): a module's `forward` is not
compiled as a frame of its own under a `__call__` that hit the limit. Counts recorded on real
PyTorch 2.15 with this file."""
import warnings

import torch
import torch._dynamo
import torch.nn as nn
from torch._dynamo.testing import CompileCounter

warnings.simplefilter("ignore")


class Scale(nn.Module):
    def forward(self, x, n):
        return x * n


torch._dynamo.reset()
cnt = CompileCounter()
m = torch.compile(Scale(), backend=cnt, dynamic=False)
for i in range(12):
    assert m(torch.ones(2), i).tolist() == [float(i)] * 2
assert cnt.frame_count == 8, cnt.frame_count  # PyTorch: 8 (the limit), not 8 + forward's


def inner(x, n):
    return x + n


def outer(x, n):
    print("break", end="\r")
    return inner(x, n) * 2


torch._dynamo.reset()
cnt = CompileCounter()
f = torch.compile(outer, backend=cnt, dynamic=False)
for i in range(12):
    assert f(torch.ones(2), i).tolist() == [2.0 * (1 + i)] * 2
print()
print("frames", cnt.frame_count)
assert cnt.frame_count == 8, cnt.frame_count
print("ok")
