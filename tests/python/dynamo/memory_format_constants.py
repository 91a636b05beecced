"""`torch.channels_last`, `torch.channels_last_3d`, `torch.contiguous_format` and
`torch.preserve_format` are trace-time constants, as in PyTorch: `x.is_contiguous(memory_format=...)`
folds from the guarded strides in one graph (`fullgraph=True`), whether the format is read from
`torch` or from a global, and a different format object recompiles (the format is guarded by
identity). Expected values and counts recorded under PyTorch 2.15 with the same program."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

FMT = torch.channels_last_3d


def layout_flags(x):
    # A tensor op as well, so that each compile is a graph the counter sees.
    return (x.is_contiguous(memory_format=torch.channels_last) * 100
            + x.is_contiguous(memory_format=torch.contiguous_format) * 10
            + x.is_contiguous(memory_format=torch.preserve_format)) + x.sum() * 0


def global_format(x):
    return x.sum() * 0 + x.is_contiguous(FMT)


def by_argument(x, fmt):
    return x.sum() * 0 + x.is_contiguous(memory_format=fmt)


torch._dynamo.reset()
cnt = CompileCounter()
f = torch.compile(layout_flags, backend=cnt, fullgraph=True)
nchw = torch.ones(2, 3, 4, 5)
nhwc = nchw.contiguous(memory_format=torch.channels_last)
assert f(nchw).item() == layout_flags(nchw).item() == 11, f(nchw)
assert f(nhwc).item() == layout_flags(nhwc).item() == 100, f(nhwc)
assert cnt.frame_count == 2, cnt.frame_count  # the strides changed: a recompile, as PyTorch

cnt = CompileCounter()
g = torch.compile(global_format, backend=cnt, fullgraph=True)
x5 = torch.ones(2, 3, 2, 2, 2).contiguous(memory_format=torch.channels_last_3d)
assert g(x5).item() == 1 and g(x5.contiguous()).item() == 0
assert cnt.frame_count == 2, cnt.frame_count

cnt = CompileCounter()
h = torch.compile(by_argument, backend=cnt, fullgraph=True)
assert h(nhwc, torch.channels_last).item() == 1
assert h(nhwc, torch.channels_last).item() == 1
assert cnt.frame_count == 1, cnt.frame_count
assert h(nhwc, torch.contiguous_format).item() == 0  # another format object: recompiles
assert cnt.frame_count == 2, cnt.frame_count
print("memory formats fold as constants")
