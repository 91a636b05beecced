"""The aliases and compositions of `torch/_refs_compose.py` against PyTorch 2.15: values, dtypes,
shapes, gradients and error texts. Its stdout equals `compose_vs_pytorch.out`, recorded by running
this script under real PyTorch (`/tmp/pt/bin/python compose_vs_pytorch.py > compose_vs_pytorch.out`).
Each function also runs under torch.compile (whole graph where PyTorch's is, compared with eager)."""
import torch

from _show import det, show


x = det(5, phase=0.3)
m = det(3, 4, phase=0.1)
ints = torch.tensor([3, -2, 7, 0])

# aliases
show("fix", torch.fix, x * 3)
show("positive/negative/absolute", lambda t: (torch.positive(t), torch.negative(t), t.absolute()), x, grad=True)
show("positive bool", torch.positive, torch.tensor([True]), compiled=False)
show("arc*", lambda t: (torch.arccos(t / 2), torch.arcsin(t / 2), t.arctan()), x, grad=True)
show("multiply/subtract/divide", lambda a, b: (torch.multiply(a, b), torch.subtract(a, b, alpha=2),
                                               a.divide(b, rounding_mode="floor"), torch.divide(ints, 2)),
     m, m.flip(0) + 2)
show("comparisons", lambda a, b: (torch.greater(a, b), a.greater_equal(b), torch.less(a, 0.1), a.less_equal(b),
                                  torch.not_equal(a, b)), m, m.t().reshape(3, 4))
show("ravel/msort", lambda a: (a.t().ravel(), torch.msort(a), a.msort()), m, grad=True)
show("isreal/is_same_size/narrow_copy", lambda a: (torch.isreal(a), a.is_same_size(a.t()), a.narrow_copy(1, 1, 2)), m)

# products
a3, b3 = det(2, 3, 4, phase=0.2), det(4, 3, 5, phase=0.4)
show("tensordot int", lambda a, b: torch.tensordot(a, b.transpose(0, 1), dims=2), a3, b3, grad=True)
show("tensordot lists", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [1, 0])), a3, b3, grad=True)
show("tensordot mismatch", lambda a, b: torch.tensordot(a, b, dims=([0], [0])), a3, b3, compiled=False)
show("addmv", lambda i, mt, v: (torch.addmv(i, mt, v), i.addmv(mt, v, beta=0.5, alpha=2)), det(3), m, det(4, phase=2),
     grad=True)
show("addmv beta=0 ignores nan", lambda mt, v: torch.addmv(torch.full((3,), float("nan"), dtype=torch.float64), mt, v,
                                                         beta=0), m, det(4))
show("addr", lambda i, u, v: torch.addr(i, u, v, beta=2, alpha=-1), m, det(3, phase=1), det(4, phase=2), grad=True)
show("addbmm", lambda i, p, q: torch.addbmm(i, p, q), det(3, 5), det(2, 3, 4, phase=3), det(2, 4, 5, phase=4),
     grad=True)
show("chain_matmul", lambda p, q, r: torch.chain_matmul(p, q, r), det(2, 3), det(3, 4), det(4, 2), grad=True)

# building
show("block_diag", lambda p, q, r: torch.block_diag(p, q, r), det(2, 2), det(3, phase=1), torch.tensor(7.0,
                                                                                                        dtype=torch.float64),
     grad=True)
show("block_diag promotes", lambda p: torch.block_diag(p, ints.reshape(2, 2)), torch.ones(1, 2))
show("block_diag 3d", lambda p: torch.block_diag(p), det(1, 2, 2), compiled=False)
show("cartesian_prod", lambda p, q: torch.cartesian_prod(p, q), det(3), det(2, phase=1), grad=True)
show("combinations", lambda p: (torch.combinations(p), torch.combinations(p, 3), torch.combinations(p[:3],
                                                                                                   with_replacement=True)),
     det(4), grad=True)
show("combinations r=0", lambda p: torch.combinations(p, 0), det(4), compiled=False)
show("vander", lambda p: (torch.vander(p), torch.vander(p, 4, increasing=True)), det(3))  # PyTorch 2.15 cannot differentiate it
show("vander ints", lambda p: torch.vander(p, 3), ints)
show("diagflat", lambda p: (torch.diagflat(p), p.diagflat(1), torch.diagflat(p, -2)), det(2, 2), grad=True)
show("diag_embed", lambda p: (torch.diag_embed(p), p.diag_embed(1), torch.diag_embed(p, -1, 0, 2),
                              torch.diag_embed(p, 0, -1, -2)), det(2, 3), grad=True)
show("diag_embed inf", lambda p: torch.diag_embed(p), torch.tensor([float("inf"), 1.0]))
show("ldexp", lambda p, e: (torch.ldexp(p, e), p.ldexp(e)), det(4), torch.tensor([0, 1, -2, 3]))

# calculus
y = det(3, 6, phase=0.5)
show("trapezoid", lambda t: (torch.trapezoid(t), torch.trapezoid(t, dx=0.5, dim=0), torch.trapz(t)), y, grad=True)
show("trapezoid x", lambda t, s: (torch.trapezoid(t, s), torch.trapezoid(t, s.expand(3, 6))),
     y, torch.tensor([0.0, 0.5, 1.5, 2.0, 3.5, 4.0], dtype=torch.float64), grad=True)
show("cumulative_trapezoid", lambda t, s: (torch.cumulative_trapezoid(t), torch.cumulative_trapezoid(t, s),
                                           torch.cumulative_trapezoid(t, dx=2.0, dim=0)),
     y, torch.tensor([0.0, 0.5, 1.5, 2.0, 3.5, 4.0], dtype=torch.float64), grad=True)

# norms and counting
show("renorm", lambda t: (torch.renorm(t, 2, 0, 1.0), t.renorm(1, 1, 0.5)), m * 3, grad=True)
show("dist", lambda p, q: (torch.dist(p, q), p.dist(q, 1), torch.dist(p, q, float("inf"))), m, m.flip(1), grad=True)
show("cdist", lambda p, q: (torch.cdist(p, q), torch.cdist(p, q, p=1), torch.cdist(p, q, p=0.5)),
     det(2, 3, 4), det(2, 5, 4, phase=1), grad=True)
show("cdist columns", lambda p, q: torch.cdist(p, q), det(3, 4), det(3, 5), compiled=False)
show("histc", lambda t: (torch.histc(t, bins=4), torch.histc(t, 5, -1, 1), t.histc(3, 0, 0.5)),
     det(20, dtype=torch.float32), compiled=False)
show("histc int", lambda t: torch.histc(t), ints, compiled=False)

# scatters into copies
show("select_scatter", lambda i, s: torch.select_scatter(i, s, 0, 1), m, det(4, phase=5), grad=True)
show("slice_scatter", lambda i, s: (torch.slice_scatter(i, s, 1, 0, 4, 2), i.slice_scatter(s[:, :1], 1, 3)),
     m, det(3, 2, phase=5), grad=True)
show("diagonal_scatter", lambda i, s: torch.diagonal_scatter(i, s, 1), m, det(3, phase=6), grad=True)
