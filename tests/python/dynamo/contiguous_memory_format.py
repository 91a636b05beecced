"""`x.contiguous(memory_format=...)`, `x.to(memory_format=...)` and `x.clone(memory_format=...)`
inside `torch.compile`: channels-last and channels-last-3d
layouts are traced (one graph under `fullgraph=True`), with PyTorch's values and strides, including
size-1 dims, an input already in the format (returned as it is) and gradients through the
relayout; `contiguous_format` undoes it. A format whose rank does not fit raises PyTorch's error
from the compiled function too. Strides recorded under PyTorch 2.15 with this program, which runs
unchanged there."""
import torch
from torch._dynamo.testing import CompileCounter

CL, CL3 = torch.channels_last, torch.channels_last_3d


def relayout(x, fmt):
    y = x.contiguous(memory_format=fmt)
    return y * 2 + 1


cases = [
    ((2, 3, 4, 5), CL, (60, 1, 15, 3)),
    ((2, 1, 4, 5), CL, (20, 20, 5, 1)),  # already channels-last (C = 1): itself
    ((1, 3, 1, 5), CL, (15, 1, 15, 3)),
    ((2, 3, 2, 4, 5), CL3, (120, 1, 60, 15, 3)),
]
for shape, fmt, strides in cases:
    x = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    torch._dynamo.reset()
    cnt = CompileCounter()
    f = torch.compile(relayout, backend=cnt, fullgraph=True)
    for compiled in (f, torch.compile(relayout, fullgraph=True)):
        y = compiled(x, fmt)
        assert y.stride() == strides, (shape, y.stride())
        assert y.is_contiguous(memory_format=fmt)
        assert torch.equal(y, x * 2 + 1)
    assert cnt.frame_count == 1, cnt.frame_count
    # Already in the format: the same values and layout.
    xl = x.contiguous(memory_format=fmt)
    y = f(xl, fmt)
    assert y.stride() == strides and torch.equal(y, x * 2 + 1)
    # And back to row-major.
    back = torch.compile(lambda t: t.contiguous(memory_format=torch.contiguous_format) + 0, fullgraph=True)(xl)
    assert back.stride() == x.stride() and torch.equal(back, x)

# Gradients through the relayout equal eager's.
w = torch.randn(2, 3, 4, 5, requires_grad=True)
g_eager = torch.autograd.grad((relayout(w, CL) * torch.arange(5.0)).sum(), w)[0]
g_comp = torch.autograd.grad((torch.compile(relayout)(w, CL) * torch.arange(5.0)).sum(), w)[0]
assert torch.equal(g_comp, g_eager), (g_comp - g_eager).abs().max()

# A rank that does not fit the format: PyTorch's error, compiled or not.
for fn in (relayout, torch.compile(relayout)):
    try:
        fn(torch.ones(2, 3, 4), CL)
        raise AssertionError("no error")
    except RuntimeError as e:
        assert "required rank 4 tensor to use channels_last format" in str(e), e
print("ok")

# `to(memory_format=)` and `clone(memory_format=)`, alone and with a dtype conversion.
def to_cl(x):
    return x.to(memory_format=CL) + 1, x.to(torch.float64, memory_format=CL), x.clone(memory_format=CL)


x = torch.arange(120.0).reshape(2, 3, 4, 5)
for src in (x, x.contiguous(memory_format=CL), x.transpose(2, 3)):
    torch._dynamo.reset()
    cnt = CompileCounter()
    got = torch.compile(to_cl, backend=cnt, fullgraph=True)(src)
    want = to_cl(src)
    assert cnt.frame_count == 1, cnt.frame_count
    for g, w in zip(got, want):
        assert g.stride() == w.stride() and g.dtype == w.dtype and torch.equal(g, w), (g.stride(), w.stride())
    got = torch.compile(to_cl, fullgraph=True)(src)
    for g, w in zip(got, want):
        assert g.stride() == w.stride() and g.dtype == w.dtype and torch.equal(g, w), (g.stride(), w.stride())
    c = torch.compile(lambda t: t.clone(memory_format=CL))(src)
    assert c.data_ptr() != src.data_ptr(), "clone must copy"
    assert c.stride() == src.clone(memory_format=CL).stride() and torch.equal(c, src)
for fn in (lambda t: t.to(memory_format=CL), torch.compile(lambda t: t.to(memory_format=CL))):
    try:
        fn(torch.ones(2, 3, 4))
        raise AssertionError("no error")
    except RuntimeError as e:
        assert "required rank 4 tensor to use channels_last format" in str(e), e
print("to/clone ok")
