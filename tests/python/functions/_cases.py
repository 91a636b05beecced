"""The cases of `functions_vs_pytorch.py` (shared with `_gen_goldens.py`, which runs them under real
PyTorch): `torch.linalg`, the `torch` / `Tensor` linalg aliases and `torch.special`, on fixed inputs.

A case is `(name, fn, inputs, grad)`: `fn(*inputs)` returns a tensor or a tuple of tensors; with
`grad`, the float inputs require grad and the gradients of a fixed weighting of the float outputs
are compared too. Factors that are unique only up to signs (eigenvectors, singular vectors) enter
through sign-invariant products (projections `u uᵀ`, `u vᵀ`, reconstructions)."""

import math

import torch


def det(shape, phase, scale=1.0, dtype=torch.float64):
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    # The quadratic phase keeps the matrices at full rank (a linear one alone gives rank 2).
    return ((torch.sin(i * 0.61 + phase) + 0.5 * torch.cos(i * i * 0.13 + phase)) * scale).to(dtype).reshape(shape)


def well(n, phase=0.0, batch=(), dtype=torch.float64):
    """Diagonally dominant (invertible, well conditioned) matrices."""
    return (det(batch + (n, n), phase, 0.5) + 3.0 * torch.eye(n, dtype=torch.float64)).to(dtype)


def spd(n, phase=0.0, batch=(), dtype=torch.float64):
    a = det(batch + (n, n), phase)
    return (a @ a.transpose(-2, -1) + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def sym(a):
    return (a + a.transpose(-2, -1)) / 2


def proj(v, k):
    """`v[..., :k] v[..., :k]ᵀ`: invariant under column sign flips."""
    return v[..., :k] @ v[..., :k].transpose(-2, -1)


def svd_parts(a):
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return s, u[..., :1] @ vh[..., :1, :], (u * s.unsqueeze(-2)) @ vh


def eigh_parts(a, uplo="L"):
    l, q = torch.linalg.eigh(sym(a), UPLO=uplo)
    return l, proj(q, 1), proj(q, 2)


def all_cases():
    c = []
    f32 = torch.float32
    m34 = det((3, 4), 0.2)
    b234 = det((2, 3, 4), 0.7)
    v = det((7,), 0.4)
    for dt in (torch.float64, f32):
        tag = "f64" if dt == torch.float64 else "f32"
        for ord_ in (2, 1, 0, 3, 0.5, -1, math.inf, -math.inf):
            c.append((f"vector_norm_{ord_}_{tag}", lambda x, o=ord_: torch.linalg.vector_norm(x, o), [v.to(dt)],
                      ord_ not in (0, math.inf, -math.inf)))
        c.append((f"vector_norm_dim_{tag}", lambda x: torch.linalg.vector_norm(x, 2, dim=(0, 2), keepdim=True),
                  [b234.to(dt)], True))
        for ord_ in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
            c.append((f"matrix_norm_{ord_}_{tag}", lambda x, o=ord_: torch.linalg.matrix_norm(x, o), [b234.to(dt)],
                      ord_ in ("fro", 1, -1)))
        c.append((f"matrix_norm_dims_{tag}", lambda x: torch.linalg.matrix_norm(x, 1, dim=(0, 2), keepdim=True),
                  [b234.to(dt)], True))
        c.append((f"norm_default_{tag}", lambda x: torch.linalg.norm(x), [b234.to(dt)], True))
        c.append((f"norm_vec_dim_{tag}", lambda x: torch.linalg.norm(x, 3, dim=1), [b234.to(dt)], True))
        c.append((f"norm_matrix_{tag}", lambda x: torch.linalg.norm(x, math.inf), [m34.to(dt)], True))
        c.append((f"torch_norm_{tag}", lambda x: (torch.norm(x), torch.norm(x, dim=1), x.norm(p=1)), [m34.to(dt)],
                  True))
        c.append((f"inv_{tag}", lambda a: torch.linalg.inv(a), [well(4, 0.1, (2,), dt)], True))
        c.append((f"inverse_alias_{tag}", lambda a: (torch.inverse(a), a.inverse()), [well(3, 0.3, (), dt)], True))
        c.append((f"solve_{tag}", lambda a, b: torch.linalg.solve(a, b), [well(3, 0.2, (2,), dt), det((2, 3, 2), 1.0)
                                                                           .to(dt)], True))
        c.append((f"solve_vector_{tag}", lambda a, b: torch.linalg.solve(a, b), [well(3, 0.5, (), dt),
                                                                                  det((3,), 0.9).to(dt)], True))
        c.append((f"solve_broadcast_{tag}", lambda a, b: torch.linalg.solve(a, b),
                  [well(3, 0.5, (), dt), det((4, 3, 2), 0.9).to(dt)], True))
        c.append((f"solve_right_{tag}", lambda a, b: torch.linalg.solve(a, b, left=False),
                  [well(3, 0.8, (), dt), det((2, 3), 0.4).to(dt)], True))
        neg = well(3, 0.4, (2,), dt)
        neg = torch.stack([neg[0], -neg[1]])
        c.append((f"det_{tag}", lambda a: (torch.linalg.det(a), torch.det(a), a.det()), [neg], True))
        c.append((f"slogdet_{tag}", lambda a: tuple(torch.linalg.slogdet(a)) + (torch.logdet(a),), [neg], True))
        c.append((f"cholesky_{tag}", lambda a: torch.linalg.cholesky(sym(a)), [spd(4, 0.3, (2,), dt)], True))
        c.append((f"cholesky_upper_{tag}", lambda a: torch.linalg.cholesky(sym(a), upper=True), [spd(3, 0.6, (), dt)],
                  True))
        # Gradients wherever PyTorch defines them (not through mode="r", nor "complete" on tall input).
        for mode in ("reduced", "complete", "r"):
            c.append((f"qr_{mode}_tall_{tag}", lambda a, m=mode: tuple(torch.linalg.qr(a, mode=m)),
                      [det((5, 3), 0.3).to(dt)], mode == "reduced"))
            c.append((f"qr_{mode}_wide_{tag}", lambda a, m=mode: tuple(torch.linalg.qr(a, mode=m)),
                      [det((2, 3, 4), 0.8).to(dt)], mode != "r"))
        c.append((f"svd_tall_{tag}", svd_parts, [det((5, 3), 0.3).to(dt)], True))
        c.append((f"svd_wide_{tag}", svd_parts, [det((2, 3, 4), 0.6).to(dt)], True))
        c.append((f"svdvals_{tag}", lambda a: torch.linalg.svdvals(a), [det((4, 4), 0.1).to(dt)], True))
        c.append((f"eigh_{tag}", eigh_parts, [spd(4, 0.2, (2,), dt)], True))
        c.append((f"eigh_upper_{tag}", lambda a: eigh_parts(a, "U"), [det((3, 3), 0.9).to(dt)], True))
        c.append((f"eigvalsh_{tag}", lambda a: torch.linalg.eigvalsh(sym(a)), [det((4, 4), 0.5).to(dt)], True))
        c.append((f"pinv_{tag}", lambda a: torch.linalg.pinv(a), [det((2, 4, 3), 0.2).to(dt)], False))
        c.append((f"pinv_hermitian_{tag}", lambda a: torch.linalg.pinv(sym(a), hermitian=True),
                  [spd(3, 0.4, (), dt)], False))
        c.append((f"matrix_rank_{tag}", lambda a: (torch.linalg.matrix_rank(a),
                                                   torch.linalg.matrix_rank(a[:, :1] * a[:1, :]),
                                                   torch.linalg.matrix_rank(sym(a), hermitian=True)),
                  [det((4, 4), 0.3).to(dt)], False))
        for drv in ("gelsy", "gelsd", "gels", "gelss"):
            c.append((f"lstsq_tall_{drv}_{tag}", lambda a, b, d=drv: tuple(torch.linalg.lstsq(a, b, driver=d)),
                      [det((2, 5, 3), 0.3).to(dt), det((2, 5, 2), 0.6).to(dt)], False))
        c.append((f"lstsq_wide_{tag}", lambda a, b: tuple(torch.linalg.lstsq(a, b)),
                  [det((3, 5), 0.1).to(dt), det((3, 2), 0.5).to(dt)], False))
        c.append((f"lstsq_vector_{tag}", lambda a, b: tuple(torch.linalg.lstsq(a, b, driver="gelsd")),
                  [det((5, 3), 0.2).to(dt), det((5,), 0.5).to(dt)], False))
        c.append((f"lstsq_rank_deficient_{tag}", lambda a, b: tuple(torch.linalg.lstsq(a[:, :1] * a[:1, :3], b)),
                  [det((4, 4), 0.2).to(dt), det((4, 2), 0.5).to(dt)], False))
        for n in (0, 1, 2, 3, 5, -1, -2):
            c.append((f"matrix_power_{n}_{tag}", lambda a, n=n: (torch.linalg.matrix_power(a, n),
                                                                  torch.matrix_power(a, n)),
                      [well(3, 0.2, (2,), dt)], True))
        c.append((f"multi_dot_{tag}", lambda a, b, d: torch.linalg.multi_dot([a, b, d]),
                  [det((2, 3), 0.1).to(dt), det((3, 4), 0.2).to(dt), det((4, 2), 0.3).to(dt)], True))
        c.append((f"vecdot_{tag}", lambda a, b: torch.linalg.vecdot(a, b), [b234.to(dt), det((4,), 0.2).to(dt)],
                  True))
        c.append((f"linalg_diagonal_{tag}", lambda a: torch.linalg.diagonal(a, offset=1), [det((2, 3, 3), 0.2).to(dt)],
                  False))
        c.append((f"linalg_matmul_{tag}", lambda a: torch.linalg.matmul(a, a), [det((2, 3, 3), 0.2).to(dt)], True))
        # torch.special and torch.logit
        p = torch.tensor([0.0, 1e-3, 0.2, 0.5, 0.9, 1.0], dtype=dt)
        x = torch.tensor([-3.0, -0.5, 0.0, 0.25, 1.5, 4.0], dtype=dt)
        c.append((f"logit_{tag}", lambda p: (torch.logit(p), torch.logit(p, 1e-2), p.logit(0.25),
                                              torch.special.logit(p, eps=1e-3)), [p], False))
        c.append((f"logit_grad_{tag}", lambda p: (torch.logit(p), torch.special.logit(p, 0.3)),
                  [p[1:5].clone()], True))
        c.append((f"entr_{tag}", lambda x: torch.special.entr(x), [torch.cat([x, p])], False))
        c.append((f"entr_grad_{tag}", lambda x: torch.special.entr(x), [p[1:5].clone()], True))
        c.append((f"ndtr_{tag}", lambda x: torch.special.ndtr(x), [x], True))
        c.append((f"xlog1py_{tag}", lambda a, b: torch.special.xlog1py(a, b),
                  [torch.tensor([0.0, 0.0, 1.0, 2.0, -1.5, 3.0], dtype=dt), x.abs()], True))
        c.append((f"special_aliases_{tag}", lambda x: (torch.special.expit(x), torch.special.erf(x),
                                                        torch.special.exp2(x), torch.special.expm1(x),
                                                        torch.special.log1p(x.abs()), torch.special.sinc(x),
                                                        torch.special.xlogy(x.abs(), x.abs() + 1),
                                                        torch.special.round(x * 3.3, decimals=1),
                                                        torch.special.logsumexp(x, 0),
                                                        torch.special.softmax(x, 0),
                                                        torch.special.log_softmax(x, 0)), [x], True))
    return c


def float_tensors(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if isinstance(o, torch.Tensor)]


def loss_of(outs):
    """A fixed weighting of the float outputs (one weight per element)."""
    total = None
    for k, o in enumerate(outs):
        if not o.is_floating_point() or not o.requires_grad:
            continue
        w = det(tuple(o.shape), 0.3 + k, 1.0, o.dtype)
        term = (o * w).sum()
        total = term if total is None else total + term
    return total


def prepared(case):
    """Fresh copies of the case's inputs; float ones require grad when the case checks gradients."""
    _, _, inputs, grad = case
    out = []
    for x in inputs:
        x = x.detach().clone()
        if grad and x.is_floating_point():
            x.requires_grad_(True)
        out.append(x)
    return out
