"""F.bilinear and nn.Bilinear against PyTorch 2.15: values (exact inputs, so the printed sums are
the same bits), shapes for 1-D and batched inputs, gradients, torch.compile on the eager and
default backends, and ATen's errors in its order. Stdout equals PyTorch's (recorded with /tmp/pt's
python running this file)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def exact(*shape, k=1):
    """Multiples of 1/4 in [-2, 2]: products and short sums are exact in float32."""
    n = 1
    for d in shape:
        n *= d
    return ((torch.arange(n) * (7 + 2 * k) + k) % 17 - 8).float().reshape(shape) / 4


w, b = exact(2, 4, 5, k=3), exact(2, k=4)
cases = [(exact(3, 4, k=1), exact(3, 5, k=2)), (exact(4, k=5), exact(5, k=6)),
         (exact(2, 3, 4, k=7), exact(2, 3, 5, k=8))]
for backend in (None, "eager", "inductor"):
    fn = F.bilinear if backend is None else torch.compile(F.bilinear, backend=backend)
    for x1, x2 in cases:
        for bias in (b, None):
            print(backend, list(x1.shape), bias is not None, fn(x1, x2, w, bias).tolist())

# gradients of every input
x1, x2 = exact(3, 4, k=1).requires_grad_(), exact(3, 5, k=2).requires_grad_()
wg, bg = w.clone().requires_grad_(), b.clone().requires_grad_()
(F.bilinear(x1, x2, wg, bg) * exact(3, 2, k=9)).sum().backward()
for name, t in [("x1", x1), ("x2", x2), ("weight", wg), ("bias", bg)]:
    print("grad", name, t.grad.tolist())

# the module
torch.manual_seed(0)
m = nn.Bilinear(4, 5, 2)
print(m, [list(p.shape) for p in m.parameters()], nn.Bilinear(4, 5, 2, bias=False).bias)
with torch.no_grad():
    m.weight.copy_(w)
    m.bias.copy_(b)
print("module", m(*cases[0]).tolist(), torch.compile(m)(*cases[0]).tolist())

x1, x2 = cases[0]
for label, call in [
    ("batch", lambda: F.bilinear(exact(3, 4), exact(2, 5), w)),
    ("in1", lambda: F.bilinear(exact(3, 3), x2, w)),
    ("in2", lambda: F.bilinear(x1, exact(3, 6), w)),
    ("bias", lambda: F.bilinear(x1, x2, w, exact(3))),
    ("ranks differ", lambda: F.bilinear(exact(2, 3, 4), x2, w)),
    ("dtype", lambda: F.bilinear(x1.double(), x2, w)),
    ("dtype bias", lambda: F.bilinear(x1, x2, w, b.double())),
    ("dtype and size", lambda: F.bilinear(x1.double(), exact(3, 6), w)),
]:
    try:
        print(label, "no error", call().shape)
    except Exception as e:
        print(label, type(e).__name__, e)
