"""Custom autograd.Function (both forward styles, the ctx API, once_differentiable), tensor and
node hooks, torch.autograd.functional, gradcheck / gradgradcheck and anomaly mode. The expected
output (functions_hooks.out) is this script's output under real PyTorch 2.15."""
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


def show(label, v):
    if isinstance(v, torch.Tensor):
        v = v.detach()
        print(label, [round(float(x), 5) for x in v.reshape(-1)], tuple(v.shape))
    elif isinstance(v, (tuple, list)):
        print(label, "(")
        for i, x in enumerate(v):
            show(f"  [{i}]", x)
        print("  )")
    else:
        print(label, v)


def error(label, f):
    try:
        f()
        print(f"{label}: no error")
    except Exception as e:  # noqa: BLE001
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")


class Cube(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        print("  needs_input_grad", ctx.needs_input_grad)
        return g * 3 * x ** 2 * ctx.k, None


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = Cube.apply(x, 2.0)
print("grad_fn", y.grad_fn.name(), y.requires_grad)
y.sum().backward()
show("cube grad", x.grad)
x.grad = None


class MulAdd(Function):
    @staticmethod
    def forward(a, b):
        return a * b + a

    @staticmethod
    def setup_context(ctx, inputs, output):
        a, b = inputs
        ctx.save_for_backward(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * (b + 1), g * a


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
out = MulAdd.apply(a, b)
print("setup_context grad_fn", out.grad_fn.name())
out.sum().backward()
show("a.grad", a.grad)
show("b.grad", b.grad)
# double backward through a differentiable custom backward
a2 = torch.tensor([1.5], requires_grad=True)
(g,) = torch.autograd.grad(Cube.apply(a2, 1.0).sum(), a2, create_graph=True)
show("first", g)
(gg,) = torch.autograd.grad(g.sum(), a2)
show("second", gg)


class Twice(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable
        return x * 2, (x > 0)

    @staticmethod
    def backward(ctx, g, _):
        return g * 2


t = torch.tensor([1.0, -1.0], requires_grad=True)
p, mask = Twice.apply(t)
print("bool output requires_grad", mask.requires_grad, "float", p.requires_grad)


class NonDiff(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.sort()[0]
        idx = x.argsort()
        ctx.mark_non_differentiable(idx)
        return y, idx.float()

    @staticmethod
    def backward(ctx, g, gi):
        print("  grad for non-differentiable output", gi)
        return g


nd_v, nd_i = NonDiff.apply(t)
print("marked non-differentiable", nd_i.requires_grad, nd_v.requires_grad)
nd_v.sum().backward()
show("t.grad", t.grad)


class InplaceDouble(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


base = torch.tensor([1.0, 2.0], requires_grad=True)
inner = base.clone()
res = InplaceDouble.apply(inner)
print("dirty output is input", res is inner, res.grad_fn.name())
res.sum().backward()
show("dirty grad", base.grad)


class NoMat(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        print("  g2 is None:", g2 is None)
        return g1


nm = torch.tensor([1.0], requires_grad=True)
o1, o2 = NoMat.apply(nm)
o1.sum().backward()


class Once(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.exp()


o = torch.tensor([0.5], requires_grad=True)
(go,) = torch.autograd.grad(Once.apply(o).sum(), o, create_graph=True)
show("once grad", go)
print("once grad requires_grad", go.requires_grad)
error("differentiate twice", lambda: torch.autograd.grad(go.sum(), o))


class BadCount(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g, g


bc = torch.tensor([1.0], requires_grad=True)
error("wrong grad count", lambda: BadCount.apply(bc).sum().backward())


class SavedModified(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x


sm_in = torch.tensor([1.0, 2.0], requires_grad=True)
sm = sm_in * 1
sm_out = SavedModified.apply(sm)
sm.add_(1)
error("saved tensor modified", lambda: sm_out.sum().backward())
error("forward not implemented", lambda: Function.apply(torch.ones(1)))

# --- hooks
h = torch.tensor([1.0, 2.0], requires_grad=True)
mid = h * 3
mid.register_hook(lambda g: g * 10)
h.register_hook(lambda g: print("  leaf hook sees", g.tolist()))
handle = h.register_hook(lambda g: g + 1)
(mid * mid).sum().backward()
show("hooked h.grad", h.grad)
handle.remove()
h.grad = None
(h * 1).sum().backward()
show("after remove", h.grad)
h.grad = None
seen = []
h.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
(h * 2).sum().backward()
print("post accumulate saw", seen)
error("hook on no-grad tensor", lambda: torch.ones(1).register_hook(lambda g: g))
n = torch.tensor([2.0], requires_grad=True)
m2 = n * n
m2.grad_fn.register_hook(lambda gi, go: print("  node post hook", [x.tolist() for x in gi if x is not None], [x.tolist() for x in go]))
m2.grad_fn.register_prehook(lambda go: (go[0] * 2,))
m2.sum().backward()
show("prehook doubled", n.grad)

# --- functional
import torch.autograd.functional as AF


def fn(x, y):
    return (x * y).sin(), x.exp().sum()


jx = torch.tensor([0.1, 0.2])
jy = torch.tensor([0.3, 0.4])
show("jacobian", AF.jacobian(fn, (jx, jy)))
show("hessian", AF.hessian(lambda v: (v ** 3).sum(), torch.tensor([1.0, 2.0])))
show("vjp", AF.vjp(lambda v: v ** 2, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 1.0])))
show("jvp", AF.jvp(lambda v: v ** 2, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.5])))
show("hvp", AF.hvp(lambda v: (v ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))
show("vhp", AF.vhp(lambda v: (v ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))

# --- gradcheck
inp = (torch.tensor([[0.3, -0.2], [0.1, 0.7]], dtype=torch.float64, requires_grad=True),
       torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True))
print("gradcheck", torch.autograd.gradcheck(lambda a, b: (a @ b).tanh() * b, inp))
print("gradgradcheck", torch.autograd.gradgradcheck(lambda a, b: (a @ b).tanh() * b, inp))


class WrongGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


print("wrong gradient caught:", not torch.autograd.gradcheck(
    WrongGrad.apply, (torch.tensor([1.0], dtype=torch.float64, requires_grad=True),),
    raise_exception=False))

# --- anomaly mode
import warnings


class NanGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        an = torch.tensor([1.0], requires_grad=True)
        error("nan under anomaly", lambda: NanGrad.apply(an).sum().backward())
print("anomaly off again", torch.is_anomaly_enabled() if hasattr(torch, "is_anomaly_enabled") else None)
