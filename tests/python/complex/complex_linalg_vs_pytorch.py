"""Complex matrix products, scans and fills (issue 29 req 3) against PyTorch 2.15: `@`, matmul's
1-D/2-D/batched-broadcast cases, mm, bmm, mv, dot, vdot, addmm, baddbmm, einsum, tensordot,
inner, addmv, addbmm, multi_dot; cumsum/cumprod/prod with dim, keepdim and dtype=; torch.full,
full_like, new_full, fill_ and torch.tensor with complex values, and their errors; softmax's
error; gradients in PyTorch's conjugate convention (printed for complex leaves, and gradcheck in
complex128 through real views); the same functions compiled on the `eager` and `inductor`
backends against eager, with PyTorch's graph counts. Inputs are small dyadic rationals, so every
product and sum is exact and the printed values do not depend on summation order. Stdout equals
`complex_linalg_vs_pytorch.out`, recorded with `/tmp/pt/bin/python complex_linalg_vs_pytorch.py`."""
import warnings

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend

warnings.simplefilter("ignore")


def show(label, fn):
    try:
        v = fn()
    except Exception as e:  # noqa: BLE001 - the error text is part of the contract
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    if isinstance(v, torch.Tensor):
        print(f"{label}: {v.dtype} {list(v.shape)}\n{v!r}")
    else:
        print(f"{label}: {v!r}")


def cz(shape, seed, dtype=torch.complex64):
    """Deterministic complex values with components in {-2, -1.5, ..., 2} + i{-0.75, ..., 0.75}."""
    n = 1
    for s in shape:
        n *= s
    k = torch.arange(n, dtype=torch.float64)
    re = ((k * 7 + seed) % 9 - 4) * 0.5
    im = ((k * 5 + 3 * seed) % 7 - 3) * 0.25
    return torch.complex(re, im).reshape(shape).to(dtype)


for dt in (torch.complex64, torch.complex128):
    print(f"=== {dt} ===")
    a, b = cz((2, 3), 1, dt), cz((3, 4), 2, dt)
    v3, w3 = cz((3,), 3, dt), cz((3,), 4, dt)
    show("a @ b", lambda: a @ b)
    show("matmul transposed", lambda: torch.matmul(b.t(), a.t()))
    show("matmul conj view", lambda: a.conj() @ b)
    show("matmul batched broadcast", lambda: torch.matmul(cz((2, 1, 2, 3), 5, dt), cz((3, 3, 2), 6, dt)))
    show("matmul 1d @ 2d", lambda: torch.matmul(v3, b))
    show("matmul 2d @ 1d", lambda: torch.matmul(a, v3))
    show("matmul 1d @ 1d", lambda: torch.matmul(v3, w3))
    show("matmul 1d @ 3d", lambda: torch.matmul(v3, cz((2, 3, 2), 7, dt)))
    show("mm", lambda: torch.mm(a, b))
    show("bmm", lambda: torch.bmm(cz((2, 2, 3), 8, dt), cz((2, 3, 2), 9, dt)))
    show("mv", lambda: torch.mv(a, v3))
    show("dot", lambda: torch.dot(v3, w3))
    show("vdot", lambda: torch.vdot(v3, w3))
    show("addmm", lambda: torch.addmm(cz((2, 4), 10, dt), a, b, beta=0.5, alpha=2))
    show("addmm beta 0", lambda: torch.addmm(torch.full((2, 4), float("nan"), dtype=dt), a, b, beta=0))
    show("baddbmm", lambda: torch.baddbmm(cz((2, 2, 2), 11, dt), cz((2, 2, 3), 12, dt), cz((2, 3, 2), 13, dt),
                                          alpha=-1))
    show("einsum ij,jk->ik", lambda: torch.einsum("ij,jk->ik", a, b))
    show("einsum bij,bjk->bik", lambda: torch.einsum("bij,bjk->bik", cz((2, 2, 3), 14, dt), cz((2, 3, 2), 15, dt)))
    show("einsum ii->", lambda: torch.einsum("ii->", cz((3, 3), 16, dt)))
    show("einsum i,j->ij", lambda: torch.einsum("i,j->ij", v3, w3))
    show("einsum ij,jk,k->i", lambda: torch.einsum("ij,jk,k->i", a, b, cz((4,), 17, dt)))
    show("tensordot", lambda: torch.tensordot(cz((2, 3, 2), 18, dt), cz((3, 2, 2), 19, dt), dims=2))
    show("inner", lambda: torch.inner(a, cz((4, 3), 20, dt)))
    show("addmv", lambda: torch.addmv(cz((2,), 21, dt), a, v3, beta=2))
    show("addbmm", lambda: torch.addbmm(cz((2, 2), 22, dt), cz((2, 2, 3), 23, dt), cz((2, 3, 2), 24, dt)))
    show("multi_dot", lambda: torch.linalg.multi_dot([a, b, cz((4, 2), 25, dt)]))
    show("a @ b (k = 0)", lambda: torch.zeros(2, 0, dtype=dt) @ torch.zeros(0, 3, dtype=dt))

    c = cz((2, 4), 26, dt)
    show("cumsum 0", lambda: torch.cumsum(c, 0))
    show("cumsum -1", lambda: c.cumsum(-1))
    show("cumprod 1", lambda: torch.cumprod(c, 1))
    show("cumprod 0 dtype", lambda: c.cumprod(0, dtype=torch.complex128))
    show("prod", lambda: c.prod())
    show("prod 1", lambda: torch.prod(c, 1))
    show("prod 0 keepdim", lambda: c.prod(0, keepdim=True))
    show("prod dtype", lambda: torch.prod(c, 1, dtype=torch.complex128))
    show("prod 0-d", lambda: torch.prod(c[0, 1]))
    show("prod empty", lambda: torch.prod(torch.zeros(2, 0, dtype=dt), 1))

print("=== real inputs, complex dtype= ===")
r = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
show("cumsum dtype", lambda: torch.cumsum(r, 1, dtype=torch.complex64))
show("cumprod dtype", lambda: torch.cumprod(r, 0, dtype=torch.complex128))
show("prod dtype", lambda: torch.prod(r, dtype=torch.complex64))
show("cumsum int dtype", lambda: torch.cumsum(torch.tensor([1, 2, 3]), 0, dtype=torch.complex64))

print("=== fills ===")
show("full", lambda: torch.full((2,), 1 + 2j))
show("full 2-d", lambda: torch.full((2, 3), -0.5j))
show("full complex128", lambda: torch.full((2,), 1 + 2j, dtype=torch.complex128))
show("full float32", lambda: torch.full((2,), 1 + 2j, dtype=torch.float32))
show("full float64", lambda: torch.full((3,), 1 + 2j, dtype=torch.float64))
show("full int64", lambda: torch.full((2,), 1 + 2j, dtype=torch.int64))
show("full int32", lambda: torch.full((2,), 1 + 2j, dtype=torch.int32))
show("full bfloat16", lambda: torch.full((2,), 1 + 2j, dtype=torch.bfloat16))
show("full float16 one element", lambda: torch.full((1,), 1 + 2j, dtype=torch.float16))
show("full bool", lambda: torch.full((2,), 1 + 2j, dtype=torch.bool))
show("full zero imaginary float32", lambda: torch.full((2,), 3 + 0j, dtype=torch.float32))
show("full requires_grad", lambda: torch.full((2, 2), 1.5 - 2.5j, dtype=torch.complex128, requires_grad=True))
show("full_like complex", lambda: torch.full_like(torch.zeros(2, dtype=torch.complex128), 1 + 2j))
show("full_like real", lambda: torch.full_like(torch.zeros(2), 1 + 2j))
show("full_like real zero imaginary", lambda: torch.full_like(torch.zeros(2, dtype=torch.int64), 3 + 0j))
show("full_like dtype", lambda: torch.full_like(torch.zeros(2), 2j, dtype=torch.complex64))
show("new_full complex", lambda: torch.zeros(2, dtype=torch.complex128).new_full((3,), 2j))
show("new_full real", lambda: torch.zeros(2).new_full((3,), 2j))
show("new_full dtype", lambda: torch.zeros(2).new_full((3,), 2j, dtype=torch.complex64))
show("fill_ complex", lambda: torch.zeros(2, dtype=torch.complex64).fill_(1 - 1j))
show("fill_ complex tensor", lambda: torch.zeros(2, dtype=torch.complex64).fill_(torch.tensor(2j)))
show("fill_ real", lambda: torch.zeros(2).fill_(1 + 2j))
show("fill_ real zero imaginary", lambda: torch.zeros(2).fill_(2 + 0j))
show("fill_ int zero imaginary", lambda: torch.zeros(2, dtype=torch.int64).fill_(2 + 0j))
show("tensor scalar", lambda: torch.tensor(1 + 2j))
show("tensor list", lambda: torch.tensor([1 + 2j, 3]))
show("tensor complex128", lambda: torch.tensor(1 + 2j, dtype=torch.complex128))
show("tensor float32", lambda: torch.tensor(1 + 2j, dtype=torch.float32))
show("tensor list float64", lambda: torch.tensor([1, 2j], dtype=torch.float64))
show("tensor int64", lambda: torch.tensor(1 + 0j, dtype=torch.int64))
show("tensor bool", lambda: torch.tensor([1 + 0j, 0j, 2j], dtype=torch.bool))
show("as_tensor", lambda: torch.as_tensor(2j))
torch.set_default_dtype(torch.float64)
show("full default float64", lambda: torch.full((2,), 1 + 2j))
show("tensor default float64", lambda: torch.tensor(1 + 2j))
torch.set_default_dtype(torch.float32)
show("full default float32 again", lambda: torch.full((2,), 1 + 2j))

print("=== softmax ===")
zc = cz((2, 3), 27)
show("softmax", lambda: torch.softmax(zc, 0))
show("F.softmax", lambda: torch.nn.functional.softmax(zc, dim=1))
show("log_softmax", lambda: torch.log_softmax(zc, 0))
show("method softmax", lambda: zc.softmax(-1))


# === Gradients (PyTorch's convention: dL/dx + i dL/dy) ===

def num(x):
    return round(x, 4) + 0.0


def fmt(t):
    if t is None:
        return "None"
    if t.is_complex():
        return f"{t.dtype} " + str([(num(z.real), num(z.imag)) for z in t.detach().reshape(-1).tolist()])
    return f"{t.dtype} " + str([num(x) for x in t.detach().reshape(-1).tolist()])


def linear_loss(out):
    """A real loss linear in both components of `out`, with exact weights."""
    if out.is_complex():
        out = torch.view_as_real(out)
    n = out.numel()
    w = ((torch.arange(n, dtype=torch.float64) % 5) - 2).reshape(out.shape).to(out.dtype) * 0.5
    return (out * w).sum()


def grads(label, f, *xs):
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    try:
        loss = linear_loss(f(*xs))
        loss.backward()
    except Exception as e:  # noqa: BLE001
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    print(f"{label}: loss {num(loss.item())}")
    for x in xs:
        print("  grad", fmt(x.grad))


print("=== gradients ===")
a, b = cz((2, 3), 1), cz((3, 4), 2)
v3, w3 = cz((3,), 3), cz((3,), 4)
grads("matmul", lambda x, y: x @ y, a, b)
grads("matmul broadcast", torch.matmul, cz((2, 1, 2, 3), 5), cz((3, 3, 2), 6))
grads("matmul 1d @ 2d", torch.matmul, v3, b)
grads("matmul 2d @ 1d", torch.matmul, a, v3)
grads("matmul 1d @ 1d", torch.matmul, v3, w3)
grads("mm", torch.mm, a, b)
grads("bmm", torch.bmm, cz((2, 2, 3), 8), cz((2, 3, 2), 9))
grads("mv", torch.mv, a, v3)
grads("dot", torch.dot, v3, w3)
grads("vdot", torch.vdot, v3, w3)
grads("addmm", lambda s, x, y: torch.addmm(s, x, y, beta=0.5, alpha=2), cz((2, 4), 10), a, b)
grads("baddbmm", lambda s, x, y: torch.baddbmm(s, x, y, alpha=-1), cz((2, 2, 2), 11), cz((2, 2, 3), 12),
      cz((2, 3, 2), 13))
grads("einsum ij,jk->ik", lambda x, y: torch.einsum("ij,jk->ik", x, y), a, b)
grads("einsum ii->i", lambda x: torch.einsum("ii->i", x), cz((3, 3), 16))
grads("einsum ij,jk,k->i", lambda x, y, z: torch.einsum("ij,jk,k->i", x, y, z), a, b, cz((4,), 17))
grads("cumsum", lambda x: torch.cumsum(x, 1), cz((2, 4), 26))
grads("cumprod", lambda x: torch.cumprod(x, 1), cz((2, 4), 26))
grads("cumprod with a zero", lambda x: torch.cumprod(x, 0), torch.tensor([1 + 1j, 0j, 2 - 1j, 0.5j]))
grads("prod", lambda x: x.prod(), cz((2, 3), 28))
grads("prod dim", lambda x: x.prod(0), cz((2, 3), 28))
grads("prod keepdim", lambda x: x.prod(1, keepdim=True), cz((2, 3), 28))
grads("angle", torch.angle, torch.tensor([1 + 1j, -2 + 0.5j, 0j, -1 - 0j, 0.5j]))
grads("angle real", torch.angle, torch.tensor([1.0, -2.0, 0.0]))
grads("cumsum real to complex", lambda x: torch.cumsum(x, 0, dtype=torch.complex64), torch.tensor([1.0, -2.0, 3.0]))


def gradcheck(label, f, *zs):
    """gradcheck of `f` over complex128 inputs, through their real views (a map between real
    spaces, so every partial derivative of the complex formulas is checked)."""
    reals = [torch.view_as_real(z.to(torch.complex128)).detach().clone().requires_grad_(True) for z in zs]

    def g(*rs):
        out = f(*[torch.view_as_complex(r) for r in rs])
        return torch.view_as_real(out) if out.is_complex() else out

    try:
        ok = torch.autograd.gradcheck(g, reals)
    except Exception as e:  # noqa: BLE001
        print(f"gradcheck {label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    print(f"gradcheck {label}: {ok}")


print("=== gradcheck (complex128) ===")
gradcheck("matmul", torch.matmul, a, b)
gradcheck("matmul broadcast", torch.matmul, cz((2, 1, 2, 3), 5), cz((3, 3, 2), 6))
gradcheck("matmul 1d @ 2d", torch.matmul, v3, b)
gradcheck("matmul 1d @ 1d", torch.matmul, v3, w3)
gradcheck("mm", torch.mm, a, b)
gradcheck("bmm", torch.bmm, cz((2, 2, 3), 8), cz((2, 3, 2), 9))
gradcheck("mv", torch.mv, a, v3)
gradcheck("dot", torch.dot, v3, w3)
gradcheck("vdot", torch.vdot, v3, w3)
gradcheck("addmm", lambda s, x, y: torch.addmm(s, x, y, beta=0.5, alpha=2), cz((2, 4), 10), a, b)
gradcheck("baddbmm", lambda s, x, y: torch.baddbmm(s, x, y, alpha=-1), cz((2, 2, 2), 11), cz((2, 2, 3), 12),
          cz((2, 3, 2), 13))
gradcheck("einsum ij,jk->ik", lambda x, y: torch.einsum("ij,jk->ik", x, y), a, b)
gradcheck("einsum ii->i", lambda x: torch.einsum("ii->i", x), cz((3, 3), 16))
gradcheck("einsum bij,bkj->bik", lambda x, y: torch.einsum("bij,bkj->bik", x, y), cz((2, 2, 3), 14),
          cz((2, 2, 3), 15))
gradcheck("cumsum", lambda x: torch.cumsum(x, 1), cz((2, 4), 26))
gradcheck("cumprod", lambda x: torch.cumprod(x, 1), cz((2, 4), 26))
gradcheck("cumprod with a zero", lambda x: torch.cumprod(x, 0), torch.tensor([1 + 1j, 0j, 2 - 1j, 0.5j]))
gradcheck("prod", lambda x: x.prod(), cz((2, 3), 28))
gradcheck("prod dim", lambda x: x.prod(1), cz((2, 3), 28))
gradcheck("angle", torch.angle, torch.tensor([1 + 1j, -2 + 0.5j, 0.25 - 3j, 0.5j]))


# === Compiled ===

def products(a, b, c, v):
    x = a @ b
    y = torch.einsum("ij,jk->ik", x, c)
    z = torch.addmm(y, a, b @ c, beta=0.5, alpha=2.0)
    s = torch.cumsum(z, 1) + torch.cumprod(z, 0)
    p = z.prod(1, keepdim=True)
    return s * p, torch.mv(a, v), torch.dot(v, v), torch.bmm(x[None], c[None])


def fills(z):
    f = torch.full((2, 3), 1 + 2j)
    g = torch.full_like(z, -0.5j)
    return z * f + g, torch.zeros(3, dtype=torch.complex64).fill_(2 - 1j)


def angles(z):
    return torch.angle(z) * 2


inputs = {
    "products": (cz((2, 3), 1), cz((3, 4), 2), cz((4, 2), 29), cz((3,), 3)),
    "fills": (cz((2, 3), 30),),
    "angles": (torch.tensor([1 + 1j, -2 + 0.5j, 0.25 - 3j, 0.5j]),),
}
for backend in ["eager", "inductor"]:
    for fn in [products, fills, angles]:
        args = inputs[fn.__name__]
        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        compiled = torch.compile(fn, backend=counter)
        want, got = fn(*args), compiled(*args)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        same = all(torch.allclose(x, y, rtol=1e-5, atol=1e-5) and x.dtype == y.dtype and x.shape == y.shape
                   for x, y in zip(want, got))
        print(f"{backend} {fn.__name__}: compiled == eager: {same}, graphs: {counter.frame_count}")

        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        compiled = torch.compile(fn, backend=counter)
        all_grads = []
        for f in [fn, compiled]:
            xs = [x.detach().clone().requires_grad_(True) for x in args]
            out = f(*xs)
            out = out if isinstance(out, tuple) else (out,)
            sum(linear_loss(o) for o in out if o.requires_grad).backward()
            all_grads.append([x.grad for x in xs])
        same = all((x is None and y is None) or torch.allclose(x, y, rtol=1e-4, atol=1e-4)
                   for x, y in zip(*all_grads))
        print(f"{backend} {fn.__name__} backward: compiled == eager: {same}, graphs: {counter.frame_count}")
