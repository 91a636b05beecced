"""`memory_format=`: `contiguous`, `clone`, `to`, `empty`/`*_like` and `nn.Module.to` with
`torch.channels_last`/`channels_last_3d`/`contiguous_format`/`preserve_format`, and
`is_contiguous(memory_format=)`; values unchanged, strides as PyTorch's, gradients flowing through
the re-layout, eagerly and compiled. Stdout equals `memory_format.out`, recorded under PyTorch 2.15."""

import torch
import torch._dynamo
import torch.nn as nn


def show(label, fn):
    try:
        r = fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {e}")
    else:
        print(f"{label}: {r}")


x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
cl = x.contiguous(memory_format=torch.channels_last)
print("channels_last strides:", cl.stride(), "values equal:", bool((cl == x).all()))
for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d, torch.preserve_format):
    print(fmt, "x:", x.is_contiguous(memory_format=fmt), "cl:", cl.is_contiguous(memory_format=fmt))
print("is_contiguous():", cl.is_contiguous())
print("already channels_last returns self:", cl.contiguous(memory_format=torch.channels_last) is cl)
print("back to contiguous:", cl.contiguous().stride(), cl.contiguous(memory_format=torch.contiguous_format).stride())
print("clone:", cl.clone().stride(), cl.clone(memory_format=torch.contiguous_format).stride(),
      x.clone(memory_format=torch.channels_last).stride())
print("to:", x.to(memory_format=torch.channels_last).stride(), x.to(torch.float64, memory_format=torch.channels_last).stride(),
      x.to(torch.float64, memory_format=torch.channels_last).dtype)
print("empty:", torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride())
print("like:", torch.empty_like(x, memory_format=torch.channels_last).stride(),
      torch.zeros_like(cl).stride(), torch.ones_like(cl, memory_format=torch.contiguous_format).stride())
one_c = torch.ones(2, 1, 3, 3)
print("size-1 channel:", one_c.is_contiguous(memory_format=torch.channels_last),
      one_c.contiguous(memory_format=torch.channels_last).stride())
x5 = torch.arange(2 * 3 * 2 * 2 * 2, dtype=torch.float32).reshape(2, 3, 2, 2, 2)
c5 = x5.contiguous(memory_format=torch.channels_last_3d)
print("channels_last_3d:", c5.stride(), c5.is_contiguous(memory_format=torch.channels_last_3d), bool((c5 == x5).all()))
show("rank 3 channels_last", lambda: torch.ones(2, 3, 4).contiguous(memory_format=torch.channels_last))
show("rank 4 channels_last_3d", lambda: x.contiguous(memory_format=torch.channels_last_3d))
print("rank 3 is_contiguous(channels_last):", torch.ones(2, 3, 4).is_contiguous(memory_format=torch.channels_last))

# Gradients flow through the re-layout.
a = x.clone().requires_grad_()
b = a.contiguous(memory_format=torch.channels_last)
(b * torch.arange(5.0)).sum().backward()
print("grad through channels_last:", a.grad[1, 2, 3].tolist(), a.grad.shape)

# nn.Module.to(memory_format=) converts 4-D parameters only.
conv = nn.Conv2d(3, 4, 3)
with torch.no_grad():
    conv.weight.copy_(torch.linspace(-1, 1, conv.weight.numel()).reshape(conv.weight.shape))
    conv.bias.fill_(0.1)
ref = conv(x)
conv = conv.to(memory_format=torch.channels_last)
print("module to:", conv.weight.stride(), conv.bias.stride(), conv.weight.is_contiguous(memory_format=torch.channels_last))
out = conv(x.to(memory_format=torch.channels_last))
print("conv on channels_last equals contiguous:", bool(torch.allclose(out, ref, atol=1e-5)), list(out.shape))


def f(t):
    return (t.contiguous(memory_format=torch.channels_last) * 2).sum(dim=(2, 3))


torch._dynamo.reset()
print("compiled equals eager:", bool((torch.compile(f, backend="eager")(x) == f(x)).all()),
      bool((torch.compile(f, backend="inductor" if torch.__version__.endswith("rynamo") else "eager")(x) == f(x)).all()))
