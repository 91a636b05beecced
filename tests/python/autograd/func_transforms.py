"""torch.func transforms eagerly and under torch.compile (the FAQ's examples), against PyTorch
2.15's output (func_transforms.out)."""
import torch
import torch.nn as nn
from torch.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
                        stack_module_state, vjp, vmap)


def show(label, v):
    if isinstance(v, torch.Tensor):
        print(label, [round(float(x), 4) for x in v.detach().reshape(-1)], tuple(v.shape),
              v.requires_grad)
    elif isinstance(v, (tuple, list)):
        print(label, "[")
        for i, x in enumerate(v):
            show(f"  {i}", x)
        print("  ]")
    elif isinstance(v, dict):
        for k in sorted(v):
            show(f"{label}.{k}", v[k])
    else:
        print(label, v)


x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
y = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
show("grad", grad(lambda t: (t.sin() * t).sum())(x))
show("grad argnums", grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(x, y))
show("grad_and_value", grad_and_value(lambda t: (t ** 2).sum())(x))
show("grad has_aux", grad(lambda t: ((t ** 3).sum(), t.mean()), has_aux=True)(x))
show("nested grad", grad(grad(lambda s: s ** 4))(torch.tensor(1.5)))
out, fn = vjp(lambda a: a.tanh() * 2, x)
show("vjp out", out)
show("vjp", fn(torch.ones_like(out)))
show("jvp", jvp(lambda a: a.exp() * a, (x,), (y,)))
v = torch.tensor([0.3, -0.2])
show("jacrev", jacrev(lambda a: a.sin() * a.sum())(v))
show("jacfwd", jacfwd(lambda a: a.sin() * a.sum())(v))
show("hessian", hessian(lambda a: (a ** 3).sum() + (a[0] * a[1]).exp())(v))
show("vmap", vmap(lambda r: r.sum() * r)(x))
show("vmap in_dims", vmap(lambda a, b: a * b, in_dims=(1, None))(x, torch.tensor(2.0)))
show("vmap out_dims", vmap(lambda r: r * 2, out_dims=1)(x))
show("nested vmap", vmap(vmap(lambda s: s * s))(x))
show("vmap grad", vmap(grad(lambda r: (r ** 2).sum()))(x))

torch.manual_seed(0)
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]]))
    lin.bias.copy_(torch.tensor([0.0, 1.0]))
params = {"weight": torch.ones(2, 3), "bias": torch.zeros(2)}
show("functional_call", functional_call(lin, params, (x,)))
show("original kept", lin.weight)
models = [nn.Linear(3, 2) for _ in range(3)]
for i, m in enumerate(models):
    with torch.no_grad():
        m.weight.fill_(i)
        m.bias.fill_(-i)
p, b = stack_module_state(models)
show("stacked", p)
ens = vmap(lambda pp, xx: functional_call(models[0], pp, (xx,)), in_dims=(0, None))(p, x)
show("ensemble", ens)

# The FAQ's compiled examples: grad and vmap inside torch.compile.
torch._dynamo.config.capture_func_transforms = True
show("compiled grad", torch.compile(lambda t: torch.func.grad(lambda u: u.sin().sum())(t))(x))
show("compiled vmap", torch.compile(lambda t: torch.vmap(lambda u: u.sum(1))(t))(
    torch.arange(27.0).reshape(3, 3, 3)))
show("grad kwargs", torch.compile(lambda a, b: torch.func.grad(lambda p, q: (p + q).sum())(a, q=b))(x, y))
