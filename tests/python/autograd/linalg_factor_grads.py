"""Gradients of torch.linalg.qr and torch.linalg.svd, against PyTorch 2.15's output
(linalg_factor_grads.out, written by running this script under PyTorch). Losses are invariant
under the factorizations' sign choices (Q R, U Vh, singular values, |entries| of Q), which
differ between LAPACK and faer; torch.autograd.gradcheck checks the rest in float64."""
import torch


def rounded(t):
    return [round(float(x), 5) for x in t.reshape(-1)]


def inp(*shape, seed):
    """Deterministic, well-conditioned values with no RNG (generators differ across runtimes)."""
    n = torch.Size(shape).numel()
    k = torch.arange(n, dtype=torch.float64)
    return (torch.sin(k * 1.7 + seed) + 0.3 * torch.cos(k * k * 0.37 + 2 * seed)).reshape(shape)


for shape in [(4, 3), (3, 3), (3, 5), (2, 4, 2)]:
    a = inp(*shape, seed=1).requires_grad_()
    q, r = torch.linalg.qr(a)
    print("qr", shape, q.grad_fn.name())
    w = inp(*r.shape, seed=2)
    ((q @ r) * inp(*a.shape, seed=3)).sum().backward(retain_graph=True)
    print("  QR grad", rounded(a.grad))
    a.grad = None
    (q.abs().sum() + (r.diagonal(dim1=-2, dim2=-1).abs() * w.diagonal(dim1=-2, dim2=-1)).sum()).backward()
    print("  |Q|, |diag R| grad", rounded(a.grad))
    print("  gradcheck", torch.autograd.gradcheck(lambda x: torch.linalg.qr(x), (a.detach().requires_grad_(),)))

for shape, full in [((4, 3), False), ((3, 5), False), ((4, 2), True), ((2, 5), True), ((2, 3, 3), False)]:
    a = inp(*shape, seed=4).requires_grad_()
    u, s, vh = torch.linalg.svd(a, full_matrices=full)
    print("svd", shape, full, u.grad_fn.name())
    k = s.shape[-1]
    uvh = u[..., :, :k] @ vh[..., :k, :]
    ((uvh * inp(*uvh.shape, seed=5)).sum() + (s * inp(*s.shape, seed=6)).sum()).backward()
    print("  U Vh, S grad", rounded(a.grad))
    a.grad = None
    torch.linalg.svdvals(a).pow(2).sum().backward()
    print("  svdvals grad (= 2A)", rounded(a.grad))

a = inp(4, 3, seed=7).requires_grad_()
for mode in ["r", "complete"]:
    q, r = torch.linalg.qr(a, mode=mode)
    try:
        r.sum().backward()
        print(mode, "ok")
    except RuntimeError as e:
        print(mode, "RuntimeError:", e)
