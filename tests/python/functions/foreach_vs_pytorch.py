"""`torch._foreach_*` (as EMA updates and hand-written optimizers call them) against PyTorch 2.15:
values, the in-place forms' effect on their list, list-length and scalar-tensor errors. Its stdout
equals `foreach_vs_pytorch.out`, recorded under real PyTorch
(`/tmp/pt/bin/python foreach_vs_pytorch.py > foreach_vs_pytorch.out`)."""
import torch


def fresh():
    return [torch.arange(1.0, 5.0) / 4, torch.tensor([[0.5, -1.5], [2.0, 3.0]], dtype=torch.float64)]


def show6(name, out):
    # Transcendentals: PyTorch's vectorised exp/erf and Rynamo's may differ in the last bit.
    print(name, type(out).__name__, [[f"{v:.6g}" for v in t.flatten().tolist()] for t in out])


def show(name, out):
    if isinstance(out, (list, tuple)):
        print(name, type(out).__name__, [t.dtype for t in out], [t.tolist() for t in out])
    else:
        print(name, out)


xs = fresh()
for name in ("abs", "neg", "sqrt", "sign", "reciprocal", "round", "trunc", "frac"):
    show(name, getattr(torch, f"_foreach_{name}")([t.abs() + 0.25 for t in xs]))
for name in ("exp", "sigmoid", "erf", "log", "tanh"):
    show6(name, getattr(torch, f"_foreach_{name}")([t.abs() + 0.25 for t in xs]))
show("add scalar", torch._foreach_add(xs, 1.5))
show("add list", torch._foreach_add(xs, xs, alpha=2))
show("sub scalars", torch._foreach_sub(xs, [1.0, 2.0]))
show("mul tensor", torch._foreach_mul(xs, torch.tensor(3.0)))
show("div", torch._foreach_div(xs, [x + 2 for x in xs]))
show("maximum", torch._foreach_maximum(xs, 0.5))
show("minimum list", torch._foreach_minimum(xs, [x * 0 + 1 for x in xs]))
show("pow", torch._foreach_pow(xs, 2))
show("pow scalar base", torch._foreach_pow(2.0, xs))
show("clamp_min", torch._foreach_clamp_min(xs, 0.3))
show("addcdiv", torch._foreach_addcdiv(xs, xs, [x + 3 for x in xs], 0.5))
show("addcmul scalars", torch._foreach_addcmul(xs, xs, xs, [2.0, 3.0]))
show("lerp", torch._foreach_lerp(xs, [x * 0 for x in xs], 0.25))
show("norm", torch._foreach_norm(xs))
show("norm 1", torch._foreach_norm(xs, 1))
show("max", torch._foreach_max(xs))

# An EMA update as timm's ModelEmaV3 writes it.
ema, params = fresh(), [t * 2 for t in fresh()]
torch._foreach_mul_(ema, 0.9)
out = torch._foreach_add_(ema, params, alpha=0.1)
show("ema", ema)
print("in-place returns its list", out is ema)
torch._foreach_addcdiv_(ema, params, [p + 4 for p in params], value=-0.5)
torch._foreach_sqrt_(torch._foreach_abs_(ema))
torch._foreach_lerp_(ema, params, 0.5)
show("in-place chain", ema)
torch._foreach_zero_(ema)
torch._foreach_copy_(ema, params)
show("zero then copy", ema)

# The same update compiled as one graph (fullgraph=True).
ema, params = fresh(), [t * 2 for t in fresh()]


@torch.compile(fullgraph=True)
def update(ema, params):
    torch._foreach_mul_(ema, 0.9)
    torch._foreach_add_(ema, params, alpha=0.1)
    return torch._foreach_norm(ema)


show("compiled norms", update(ema, params))
show("compiled ema", ema)

for bad in (lambda: torch._foreach_add(xs, [torch.ones(1)]), lambda: torch._foreach_add([], 1),
            lambda: torch._foreach_add(xs, [1.0]),
            lambda: torch._foreach_add(xs, torch.ones(2), alpha=2)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
