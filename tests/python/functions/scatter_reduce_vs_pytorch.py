"""`scatter_reduce` / `Tensor.scatter_reduce_` against PyTorch 2.15: every reduction with and
without `include_self`, duplicate and missing indices, NaN, integer and float32 dtypes, a source
larger than the index, gradients (sum, mean, amax, amin; ties share the gradient), error texts,
and torch.compile; gather/scatter/scatter_add with int32 indexes and `index_put`. Its stdout
equals `scatter_reduce_vs_pytorch.out`, recorded under real PyTorch (`/tmp/pt/bin/python scatter_reduce_vs_pytorch.py > scatter_reduce_vs_pytorch.out`)."""
import torch

from _show import det, show

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]

x = det(4, 5, phase=0.2)
src = det(3, 6, phase=0.7)
index = torch.tensor([[0, 2, 2, 4, 0, 1], [3, 3, 3, 0, 1, 1], [4, 0, 0, 0, 2, 2]])
for reduce in REDUCTIONS:
    for include_self in (True, False):
        differentiable = reduce != "prod"
        show(f"dim1 {reduce} include_self={include_self}",
             lambda a, s, r=reduce, inc=include_self: a.scatter_reduce(1, index[:, :5], s, r, include_self=inc),
             x, src[:, :5], grad=differentiable)
show("src larger than index", lambda a, s: a.scatter_reduce(1, index[:, :4], s, "sum"), x, src)

# dim 0, ties for amax/amin (equal values share the gradient), a repeated self value
tied = torch.tensor([[1.0, 2.0], [3.0, 3.0], [3.0, 0.5]], dtype=torch.float64)
base = torch.tensor([[3.0, 0.0], [1.0, 2.0]], dtype=torch.float64)
ti = torch.tensor([[0, 1], [0, 1], [0, 1]])
for reduce in ("amax", "amin", "mean", "sum"):
    for include_self in (True, False):
        show(f"ties {reduce} include_self={include_self}",
             lambda b, s, r=reduce, inc=include_self: torch.scatter_reduce(b, 0, ti, s, r, include_self=inc),
             base, tied, grad=True)

# NaN wins amax/amin; integer means floor; float32 accumulation; bool
nan_src = torch.tensor([1.0, float("nan"), 3.0, -1.0])
show("nan amax", lambda s: torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1, 1]), s, "amax"), nan_src)
show("nan amin no self", lambda s: torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1, 1]), s, "amin",
                                                                   include_self=False), nan_src)
xi = torch.tensor([1, 2, 3, 4])
si = torch.tensor([5, 6, 7, 8, -1])
ii = torch.tensor([0, 0, 2, 2, 1])
for reduce in REDUCTIONS:
    show(f"int64 {reduce}", lambda a, s, r=reduce: (a.scatter_reduce(0, ii, s, r),
                                                    a.scatter_reduce(0, ii, s, r, include_self=False)), xi, si)
f32 = det(1000, phase=0.3, dtype=torch.float32) * 1000
show("float32 sum order", lambda s: torch.zeros(3).scatter_reduce(0, torch.arange(1000) % 3, s, "sum"), f32)
show("float32 mean", lambda s: torch.ones(3).scatter_reduce(0, torch.arange(1000) % 3, s, "mean"), f32)
show("bool amax/amin", lambda: (torch.tensor([False, True]).scatter_reduce(0, torch.tensor([0, 0, 1]),
                                                                           torch.tensor([True, False, False]), "amax"),
                                torch.tensor([False, True]).scatter_reduce(0, torch.tensor([0, 0, 1]),
                                                                           torch.tensor([True, False, False]), "amin")))

# in place, empty index, 0-d
def inplace(a, s):
    y = a.clone()
    r = y.scatter_reduce_(1, index[:2, :3], s, "mean", include_self=False)
    return y, r is y


show("scatter_reduce_", inplace, x, src, compiled=False)
show("empty index", lambda a, s: a.scatter_reduce(1, torch.zeros(4, 0, dtype=torch.long), s, "sum"), x, src)
show("0-d", lambda: torch.tensor(2.0).scatter_reduce(0, torch.tensor(0), torch.tensor(5.0), "prod"))

# errors
show("bad reduce", lambda a, s: a.scatter_reduce(1, index[:, :5], s, "max"), x, src, compiled=False)
show("dtype mismatch", lambda a, s: a.scatter_reduce(1, index[:, :5], s.float(), "sum"), x, src, compiled=False)
show("out of bounds", lambda a, s: a.scatter_reduce(1, index[:, :5] + 3, s, "sum"), x, src, compiled=False)
show("int32 index", lambda a, s: a.scatter_reduce(1, index[:, :5].int(), s, "sum"), x, src, compiled=False)
show("index too big", lambda a, s: a.scatter_reduce(0, torch.zeros(5, 5, dtype=torch.long), s, "sum"), x, src,
     compiled=False)

# gather/scatter/scatter_add take int32 indexes too (PyTorch 2.15); other integer dtypes raise
i32 = index[:, :5].int()
show("gather int32", lambda a: torch.gather(a, 1, i32 % 5), x, grad=True)
show("scatter int32", lambda a, s: a.scatter(1, i32, s), x, src[:, :5], grad=True)
show("scatter_add int32", lambda a, s: a.scatter_add(1, i32, s), x, src[:, :5], grad=True)
show("scatter_ value int32", lambda a: a.clone().scatter_(1, i32, 2.5, reduce="add"), x)
show("gather int16", lambda a: torch.gather(a, 1, i32.short()), x, compiled=False)
show("scatter_add int16", lambda a, s: a.scatter_add(1, i32.short(), s), x, src[:, :5], compiled=False)

# index_put (out of place) next to index_put_, with accumulate and int32 positions
rows = torch.tensor([0, 2, 0], dtype=torch.int32)
show("index_put", lambda a, v: a.index_put((rows,), v), x, src[0, :5], grad=True)
show("index_put accumulate", lambda a, v: torch.index_put(a, (rows,), v, accumulate=True), x, src[0, :5],
     grad=True)
