"""CPU autocast leftovers (issue 29 req 3) against PyTorch 2.15: `einsum` of three or more operands
(contracted left to right, as a plain `pip install torch` without opt_einsum does: each pair is a
lower-precision `bmm` when it contracts a dimension, else a promoting `mul`), and the fp32-list ops
Rynamo writes in Python (`max_pool3d` without indices, `avg_pool3d`, `lp_pool3d`, the max unpools,
`triplet_margin_loss`, the fourteen listed `torch.fft` transforms), with their neighbours that
PyTorch does not list (`max_pool3d(return_indices=True)`, `triplet_margin_with_distance_loss`,
`gaussian_nll_loss`, `multilabel_soft_margin_loss`, `fftshift`); eager and compiled on the `eager` and `inductor` backends. Inputs are small dyadic
rationals, so the einsum values print exactly; the fp32 ops print their dtype and whether they
equal the float32 computation of the bfloat16-rounded inputs. Stdout equals
`autocast_einsum_fp32_vs_pytorch.out`, recorded with
`/tmp/pt/bin/python autocast_einsum_fp32_vs_pytorch.py`."""
import warnings

import torch
import torch._dynamo
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounterWithBackend

warnings.simplefilter("ignore")


def dy(shape, seed):
    """Multiples of 0.25 in [-1, 1]."""
    n = 1
    for s in shape:
        n *= s
    k = torch.arange(n, dtype=torch.float32)
    return (((k * 5 + seed) % 9) - 4).reshape(shape) * 0.25


def show(label, fn):
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            v = fn()
    except Exception as e:  # noqa: BLE001 - the error text is part of the contract
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    print(f"{label}: {v.dtype} {list(v.shape)}\n{v!r}")


print("opt_einsum available:", torch.backends.opt_einsum.is_available(), torch.backends.opt_einsum.enabled)
a, b, c = dy((2, 3), 1), dy((3, 4), 2), dy((4, 5), 3)
einsums = [
    ("ij,jk,kl->il", (a, b, c)),
    ("ij,jk,kl", (a, b, c)),
    ("ij,k,l->ijkl", (a, dy((3,), 4), dy((2,), 5))),
    ("ij,jk,l->ikl", (a, b, dy((2,), 6))),
    ("i,j,ij->", (dy((2,), 7), dy((3,), 8), a)),
    ("ij,ij,jk->ik", (a, a, b)),
    ("...ij,jk,kl->...il", (dy((2, 2, 3), 9), b, c)),
    ("bij,bjk,bkl->bil", (dy((2, 2, 3), 10), dy((2, 3, 4), 11), dy((2, 4, 2), 12))),
    ("ii,ij,j->", (dy((3, 3), 13), b, dy((4,), 14))),
    ("ab,cd,bd->ac", (a, dy((4, 5), 15), dy((3, 5), 16))),
    ("ij,jk,kl,lm->im", (a, b, c, dy((5, 2), 17))),
    ("ij,j1,jk->ik".replace("1", "l"), (a, dy((3, 1), 18), b)),
    ("ij,jk,kl->il bf16 operand", (a.bfloat16(), b, c)),
]
for eq, ops in einsums:
    show(f"einsum {eq}", lambda: torch.einsum(eq.split(" ")[0], *ops))
show("einsum list form", lambda: torch.einsum("ij,jk,kl->il", [a, b, c]))
show("einsum two operands", lambda: torch.einsum("ij,jk->ik", a, b))
show("einsum sublist", lambda: torch.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3]))
show("einsum bad equation", lambda: torch.einsum("ij,jk->ik", a, b, c))
show("einsum outside autocast", lambda: torch.einsum("ij,jk,kl->il", a, b, c).float())


def fp32_check(label, fn, *xs):
    """`fn` of bfloat16 inputs under autocast: its dtype, and whether it equals `fn` of the same
    values in float32 without autocast."""
    bs = [x.bfloat16() if x.is_floating_point() else x for x in xs]
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            got = fn(*bs)
    except Exception as e:  # noqa: BLE001
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    want = fn(*[x.float() if x.is_floating_point() else x for x in bs])
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    same = all(torch.allclose(g.to(w.dtype), w, rtol=1e-2, atol=1e-2) for g, w in zip(got_t, want_t))
    print(f"{label}: {[g.dtype for g in got_t]} close to float32: {same}")


x5, x4, x3 = dy((1, 2, 4, 4, 4), 1), dy((1, 2, 4, 4), 2), dy((1, 2, 8), 3)
o2, i2 = F.max_pool2d(x4, 2, return_indices=True)
o1, i1 = F.max_pool1d(x3, 2, return_indices=True)
o3, i3 = F.max_pool3d(x5, 2, return_indices=True)
m = dy((3, 4), 4)
v8, m48 = dy((8,), 5), dy((4, 8), 6)
fp32_check("max_pool3d", lambda x: F.max_pool3d(x, 2), x5)
fp32_check("max_pool3d indices", lambda x: F.max_pool3d(x, 2, return_indices=True), x5)
fp32_check("avg_pool3d", lambda x: F.avg_pool3d(x, 2), x5)
fp32_check("lp_pool3d", lambda x: F.lp_pool3d(x, 2, 2), x5)
fp32_check("max_unpool1d", lambda x: F.max_unpool1d(x, i1, 2), o1)
fp32_check("max_unpool2d", lambda x: F.max_unpool2d(x, i2, 2), o2)
fp32_check("max_unpool3d", lambda x: F.max_unpool3d(x, i3, 2), o3)
fp32_check("triplet_margin_loss", lambda x: F.triplet_margin_loss(x, x + 1, x - 1), m)
fp32_check("triplet_margin_with_distance_loss", lambda x: F.triplet_margin_with_distance_loss(x, x + 1, x - 1), m)
fp32_check("gaussian_nll_loss (not listed)", lambda x: F.gaussian_nll_loss(x, x + 1, x * x + 0.5), m)
fp32_check("multilabel_soft_margin_loss (not listed)", lambda x: F.multilabel_soft_margin_loss(x, (x > 0).to(x.dtype)), m)
fp32_check("nn.MaxPool3d", lambda x: torch.nn.MaxPool3d(2)(x), x5)
fp32_check("nn.AvgPool3d", lambda x: torch.nn.AvgPool3d(2)(x), x5)
for name in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]:
    fp32_check(f"fft.{name}", getattr(torch.fft, name), v8)
for name in ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn"]:
    fp32_check(f"fft.{name}", getattr(torch.fft, name), m48)
fp32_check("fft.fft complex input", lambda x: torch.fft.fft(x.float().to(torch.complex64)), v8)
fp32_check("fft.fft float64 input", lambda x: torch.fft.fft(x.double()), v8)
fp32_check("fft.fftshift", torch.fft.fftshift, v8)


# === Compiled ===

# (The 3-D pools are left out: Rynamo's Dynamo does not trace their channels-last `contiguous`
# call yet, with or without autocast.)
def region(a, b, c, v, m):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        e3 = torch.einsum("ij,jk,kl->il", a, b, c)
        e4 = torch.einsum("ij,k,l->ijkl", a, b[:, 0], c[:2, 0])
        f = torch.fft.rfft(v)
        g = torch.fft.ifft2(m)
        t = F.triplet_margin_loss(m, m + 1, m - 1)
    return e3, e4, f, g, t


args = (a, b, c, v8, m48)
want = region(*args)
for backend in ["eager", "inductor"]:
    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    got = torch.compile(region, backend=counter)(*args)
    same = all(torch.allclose(g, w) and g.dtype == w.dtype for g, w in zip(got, want))
    print(f"{backend} region: {[g.dtype for g in got]}, compiled == eager: {same}, graphs: {counter.frame_count}")
