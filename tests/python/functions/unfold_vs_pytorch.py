"""`Tensor.unfold(dimension, size, step)` against PyTorch 2.15: shapes, strides, values, that it is a
view (writes show through), gradients, compiled (fullgraph) and the error texts. Its stdout equals
`unfold_vs_pytorch.out`, recorded under real PyTorch (`/tmp/pt/bin/python unfold_vs_pytorch.py >
unfold_vs_pytorch.out`)."""
import torch

x = torch.arange(24.0).reshape(2, 3, 4)
for dim, size, step in [(2, 2, 1), (2, 3, 2), (1, 3, 1), (0, 1, 1), (-1, 4, 3), (2, 0, 2)]:
    u = x.unfold(dim, size, step)
    print(dim, size, step, list(u.shape), u.stride(), u.flatten().tolist()[:12])
t = x.transpose(1, 2).unfold(1, 2, 2)
print("transposed", list(t.shape), t.stride(), t.flatten().tolist()[:8])
o = x[1, 1:].unfold(1, 2, 1)
print("offset view", list(o.shape), o.stride(), o.storage_offset(), o.flatten().tolist())
s = torch.tensor(5.0).unfold(0, 1, 1)
print("0-d", list(s.shape), s.tolist())

y = torch.zeros(6)
y.unfold(0, 2, 2)[1, 0] = 7.0
print("view", y.tolist())

w = torch.arange(6.0, requires_grad=True)
(w.unfold(0, 3, 1) ** 2).sum().backward()
print("grad", w.grad.tolist())


@torch.compile(fullgraph=True)
def windows(a):
    return a.unfold(-1, 3, 2).mean(-1)


print("compiled", windows(torch.arange(10.0)).tolist())
print("compiled offset", windows(torch.arange(12.0)[2:]).tolist())
for bad in (lambda: x.unfold(2, 5, 1), lambda: x.unfold(2, 2, 0), lambda: x.unfold(3, 1, 1)):
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
