"""Gradients through complex tensors (issue 29 req 3) against PyTorch 2.15 and finite differences:
PyTorch's convention (the gradient of a real loss w.r.t. z = x + iy is dL/dx + i dL/dy) for
view_as_complex, view_as_real, complex mul, polar, real/imag, abs, conj, complex(), and the LLaMA 2
rotary path (gradients w.r.t. the real inputs xq, xk and the frequencies). Stdout equals
`complex_grad_vs_pytorch.out`, recorded with `/tmp/pt/bin/python complex_grad_vs_pytorch.py`.
Ops whose complex gradient Rynamo does not have raise instead of returning a wrong one."""
import torch


def num(x):
    # `+ 0.0` turns -0.0 into 0.0: the sign of a zero gradient is not part of the contract.
    return round(x, 4) + 0.0


def fmt(t):
    if t is None:
        return "None"
    if t.is_complex():
        return f"{t.dtype} " + str([(num(z.real), num(z.imag)) for z in t.detach().reshape(-1).tolist()])
    return f"{t.dtype} " + str([num(x) for x in t.detach().reshape(-1).tolist()])


def grads(label, f, *xs):
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    try:
        loss = f(*xs)
        loss.backward()
    except Exception as e:  # noqa: BLE001 - the error text is part of the contract
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    print(f"{label}: loss {round(loss.item(), 4)}")
    for x in xs:
        print("  grad", fmt(x.grad))


def fd_check(label, f, *xs, eps=1e-6):
    """Central differences of real loss f over real float64 inputs vs autograd."""
    xs = [x.detach().double().clone().requires_grad_(True) for x in xs]
    f(*xs).backward()
    worst = 0.0
    for x in xs:
        flat = x.detach().reshape(-1)
        for k in range(flat.numel()):
            up = [y.detach().clone() for y in xs]
            dn = [y.detach().clone() for y in xs]
            i = [j for j, y in enumerate(xs) if y is x][0]
            up[i].reshape(-1)[k] += eps
            dn[i].reshape(-1)[k] -= eps
            num = (f(*up).item() - f(*dn).item()) / (2 * eps)
            worst = max(worst, abs(num - x.grad.reshape(-1)[k].item()))
    print(f"{label}: finite differences {'agree' if worst < 1e-5 else f'DIFFER by {worst:.3g}'}")


a = torch.tensor([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])
b = torch.tensor([[1.0, 2.0], [-0.5, 0.5], [0.3, -0.2]])
r = torch.tensor([1.0, 2.0, 0.5])
th = torch.tensor([0.3, -1.2, 2.0])


def mul_loss(x, y):
    z = torch.view_as_complex(x) * torch.view_as_complex(y)
    return (torch.view_as_real(z) * torch.tensor([1.0, -2.0])).sum()


cases = [
    ("view_as_complex -> real part sum", lambda x: torch.view_as_complex(x).real.sum(), a),
    ("view_as_complex -> imag weighted", lambda x: (torch.view_as_complex(x).imag * r).sum(), a),
    ("complex mul", mul_loss, a, b),
    ("abs", lambda x: torch.view_as_complex(x).abs().sum(), a),
    ("conj", lambda x: (torch.view_as_complex(x).conj().imag * r).sum(), a),
    ("polar", lambda m, p: (torch.view_as_real(torch.polar(m, p)) * torch.tensor([0.7, -1.3])).sum(), r, th),
    ("complex()", lambda x, y: (torch.view_as_real(torch.complex(x, y) * (1 - 2j))).sum(), r, th),
    ("mul by constant complex", lambda x: torch.view_as_real(torch.view_as_complex(x) * (2 + 3j)).pow(2).sum(), a),
    ("sum of complex then abs", lambda x: torch.view_as_complex(x).sum().abs(), a),
]
for c in cases:
    grads(*c)
for c in cases:
    fd_check(c[0], *c[1:])

grads("exp", lambda x: torch.view_as_complex(x).exp().real.sum(), a)
fd_check("exp", lambda x: torch.view_as_complex(x).exp().imag.sum(), a)


# === LLaMA 2 rotary embedding: gradients w.r.t. xq, xk and the frequencies ===
def rotary(xq, xk, freqs, compute=torch.float32):
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    xq_ = torch.view_as_complex(xq.to(compute).reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.to(compute).reshape(*xk.shape[:-1], -1, 2))
    shape = [d if i == 1 or i == xq_.ndim - 1 else 1 for i, d in enumerate(xq_.shape)]
    freqs_cis = freqs_cis.view(*shape)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


bsz, seqlen, heads, head_dim = 1, 3, 2, 4
n = bsz * seqlen * heads * head_dim
xq = torch.sin(torch.arange(n, dtype=torch.float32) * 0.37).reshape(bsz, seqlen, heads, head_dim)
xk = torch.cos(torch.arange(n, dtype=torch.float32) * 0.11).reshape(bsz, seqlen, heads, head_dim)
freqs = torch.outer(torch.arange(seqlen, dtype=torch.float32),
                    1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim)))
w = torch.linspace(-1.0, 1.0, n).reshape(bsz, seqlen, heads, head_dim)


def rotary_loss(q, k, f, compute=torch.float32):
    qo, ko = rotary(q, k, f, compute)
    return (qo * w.to(qo.dtype)).sum() + (ko * ko).sum()


grads("rotary", rotary_loss, xq, xk, freqs)
# Finite differences in float64 throughout (LLaMA's `.float()` would round the perturbations).
fd_check("rotary", lambda q, k, f: rotary_loss(q, k, f, torch.float64), xq, xk, freqs)
