"""Autograd's Python-visible semantics: flag propagation, grad_fn names, reprs, the engine's
arguments, accumulation, retain_grad, freed graphs, in-place checks and grad modes. The expected
output (semantics.out) is this script's output under real PyTorch (regenerate with
`/tmp/pt/bin/python semantics.py > semantics.out`)."""
import torch


def flags(name, t):
    fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    if fn is not None and t.grad_fn is not None:
        fn = t.grad_fn.name()
    print(f"{name}: requires_grad={t.requires_grad} is_leaf={t.is_leaf} grad_fn={fn}")


def error(label, f):
    try:
        f()
        print(f"{label}: no error")
    except Exception as e:  # noqa: BLE001
        print(f"{label}: {type(e).__name__}: {e}")


w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
flags("w", w)
flags("x", x)
flags("w*x", w * x)
flags("w.sum()", w.sum())
flags("w + 1", w + 1)
flags("2 * w", 2 * w)
flags("w.view(3, 1)", w.view(3, 1))
flags("w[1:]", w[1:])
flags("w.t()", w.unsqueeze(0).t())
flags("cat", torch.cat([w, x]))
flags("w.double()", w.double())
flags("w.float()", w.float())
flags("w > 1", w > 1)
flags("w.argmax()", w.argmax())
flags("w.long()", w.long())
flags("w.detach()", w.detach())
flags("w.exp()", w.exp())
flags("w.relu()", torch.relu(w))
flags("mm", w.view(1, 3).mm(x.view(3, 1)))
flags("w @ x", w @ x)
flags("w.mean()", w.mean())
flags("w.pow(2)", w.pow(2))
flags("w ** 2", w ** 2)
flags("w.softmax(0)", w.softmax(0))
flags("w.tanh()", w.tanh())
print(repr(w))
print(repr(w * 2))
print(repr(w.sum()))
error("int requires_grad", lambda: torch.tensor([1, 2]).requires_grad_())
error("leaf add_", lambda: w.add_(1))
error("leaf view add_", lambda: w[0:2].add_(1))
with torch.no_grad():
    w.add_(0)  # allowed under no_grad
    flags("no_grad w*2", w * 2)
print("version after no_grad add_:", w._version)

# next_functions
y = (w * x).sum()
print(y.grad_fn.name(), [(f.name() if f else None, i) for f, i in y.grad_fn.next_functions])
mul = y.grad_fn.next_functions[0][0]
print(mul.name(), [(f.name() if f else None, i) for f, i in mul.next_functions])

# backward and accumulation
y.backward()
print("w.grad", w.grad)
(w * w).sum().backward()
print("w.grad accumulated", w.grad)
w.grad = None

# retain_graph / freed buffers
z = (w.exp() * x).sum()
z.backward(retain_graph=True)
z.backward()
print("twice with retain", w.grad)
error("third time", lambda: z.backward())
w.grad = None

# gradient argument, non-scalar
v = w * x
error("non-scalar no grad", lambda: v.backward())
v.backward(torch.tensor([1.0, 0.5, 0.25]))
print("vector-Jacobian", w.grad)
w.grad = None

# retain_grad
h = w * 2
h.retain_grad()
print("retains_grad", h.retains_grad)
(h * h).sum().backward()
print("h.grad", h.grad, "w.grad", w.grad)
w.grad = None

# autograd.grad
a = torch.tensor([0.5, -1.0], requires_grad=True)
b = torch.tensor([2.0, 3.0], requires_grad=True)
out = (a * b + a.sin()).sum()
ga, gb = torch.autograd.grad(out, (a, b))
print("grad a", ga, "grad b", gb, "a.grad untouched", a.grad)
c = torch.tensor([1.0], requires_grad=True)
error("unused", lambda: torch.autograd.grad((a * 2).sum(), (a, c)))
print("allow_unused", torch.autograd.grad((a * 2).sum(), (a, c), allow_unused=True))
print("materialize", torch.autograd.grad((a * 2).sum(), (a, c), materialize_grads=True))
error("no grad_fn", lambda: torch.tensor([1.0]).sum().backward())

# higher order
s = torch.tensor([1.5], requires_grad=True)
f = s ** 3
(g1,) = torch.autograd.grad(f.sum(), s, create_graph=True)
flags("g1", g1)
(g2,) = torch.autograd.grad(g1.sum(), s)
print("d/ds s^3", g1, "second", g2)

# backward(inputs=)
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = torch.tensor([3.0, 4.0], requires_grad=True)
(p * q).sum().backward(inputs=[p])
print("inputs=[p]", p.grad, q.grad)

# modified saved tensor
m = torch.tensor([1.0, 2.0], requires_grad=True)
e = m.exp()
r = e * 1
e.mul_(2)
error("modified saved", lambda: r.sum().backward())

# in-place on a non-leaf and through a view
n = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
k = n * 1
k[1:].mul_(10)
flags("k after view mul_", k)
k.sum().backward()
print("n.grad through CopySlices", n.grad)
n.grad = None
k2 = n.clone()
k2.add_(n)
flags("k2 after add_", k2)
k2.sum().backward()
print("n.grad after add_", n.grad)

# grad modes
with torch.no_grad():
    flags("under no_grad", w * 2)
    with torch.enable_grad():
        flags("enable_grad inside no_grad", w * 2)
with torch.set_grad_enabled(False):
    flags("set_grad_enabled(False)", w * 2)


@torch.no_grad()
def decorated(t):
    return t * 2


flags("no_grad decorator", decorated(w))
with torch.inference_mode():
    flags("inference_mode", w * 2)
print("is_grad_enabled", torch.is_grad_enabled())

# detach / data
d = w.detach()
flags("detach", d)
print("shares storage", d.data_ptr() == w.data_ptr())
flags("data", w.data)
