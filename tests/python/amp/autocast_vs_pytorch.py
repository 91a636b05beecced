"""CPU autocast (issue 29 req 3) against PyTorch 2.15: the state API (`is_autocast_enabled`,
`get_autocast_dtype`, nesting, the cache flag, `torch.cpu.amp`, the decorator form, errors and the
unsupported-dtype warning), each op's result dtype under PyTorch's CPU lists (lower precision,
fp32, promote, and ops with no policy), values, and a small model's forward and backward (result,
loss and gradient dtypes and values), eager and compiled with the `eager` and `inductor` backends.
Inputs are small dyadic rationals, so products and sums are exact in bfloat16 and float16 and the
values printed do not depend on summation order; results that round (softmax, normalisation,
attention, the model) print their dtype and whether they are within the reduced dtype's tolerance
of the same computation in float32, and PyTorch's run records that they are. Its stdout equals `autocast_vs_pytorch.out`, recorded
by running this script under real PyTorch (`/tmp/pt/bin/python autocast_vs_pytorch.py >
autocast_vs_pytorch.out`)."""
import warnings

import torch
import torch._dynamo
import torch._dynamo.testing
import torch.nn.functional as F

warnings.simplefilter("ignore")
_DEBUG = False


def show(label, fn):
    try:
        v = fn()
    except Exception as e:  # noqa: BLE001 - the error text is part of the contract
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    if isinstance(v, torch.Tensor):
        print(f"{label}: {v.dtype}\n{v!r}")
    elif isinstance(v, (tuple, list)) and v and all(isinstance(t, torch.Tensor) for t in v):
        print(f"{label}: {[t.dtype for t in v]}")
        for t in v:
            print(repr(t))
    else:
        print(f"{label}: {v!r}")


# === State ===
show("defaults", lambda: (torch.is_autocast_enabled(), torch.is_autocast_enabled("cpu"),
                          torch.get_autocast_dtype("cpu"), torch.get_autocast_dtype("cuda"),
                          torch.is_autocast_cache_enabled(), torch.amp.is_autocast_available("cpu")))


def nesting():
    seen = []
    with torch.autocast("cpu"):
        seen.append((torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
        with torch.autocast("cpu", dtype=torch.float16):
            seen.append((torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
            with torch.autocast("cpu", enabled=False):
                seen.append((torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
            seen.append(torch.is_autocast_enabled("cpu"))
        seen.append(torch.get_autocast_dtype("cpu"))
        with torch.autocast("cpu", cache_enabled=False):
            seen.append(torch.is_autocast_cache_enabled())
    seen.append((torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_cache_enabled()))
    return seen


show("nesting", nesting)
show("nesting counter", lambda: (torch.autocast_increment_nesting(), torch.autocast_increment_nesting(),
                                 torch.autocast_decrement_nesting(), torch.autocast_decrement_nesting()))


def set_get():
    torch.set_autocast_enabled("cpu", True)
    torch.set_autocast_dtype("cpu", torch.float16)
    r = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"),
         torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
    torch.set_autocast_enabled("cpu", False)
    torch.set_autocast_dtype("cpu", torch.bfloat16)
    return r


show("set/get", set_get)
show("float64 region", lambda: (lambda c: (c._enabled, c.fast_dtype))(torch.autocast("cpu", dtype=torch.float64)))


def unsupported_dtype_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.autocast("cpu", dtype=torch.float64)
        torch.autocast("cpu", dtype=torch.float32)
    return [str(x.message) for x in w]


show("warning", unsupported_dtype_warning)
show("bad device type", lambda: torch.autocast(3))
show("unknown device", lambda: torch.autocast("xyz"))


def cpu_amp():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.cpu.amp.autocast():
            d = torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype
    return d, [(x.category.__name__, str(x.message)) for x in w]


show("torch.cpu.amp", cpu_amp)


@torch.autocast("cpu")
def decorated(x):
    return torch.mm(x, x), torch.is_autocast_enabled("cpu")


show("decorator", lambda: (decorated(torch.ones(2, 2))[0].dtype, decorated(torch.ones(2, 2))[1],
                           torch.is_autocast_enabled("cpu")))


def raised_inside():
    try:
        with torch.autocast("cpu"):
            raise ValueError("x")
    except ValueError:
        pass
    return torch.is_autocast_enabled("cpu"), torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype


show("exception restores", raised_inside)

# === Ops ===
a = (torch.arange(16.0).reshape(4, 4) - 6) / 4
b = (torch.arange(16.0).reshape(4, 4).t() % 5 - 2) / 2
v = torch.arange(4.0) / 2
img = (torch.arange(2 * 3 * 5 * 5.0).reshape(2, 3, 5, 5) % 7 - 3) / 4
k = (torch.arange(4 * 3 * 2 * 2.0).reshape(4, 3, 2, 2) % 3 - 1) / 2
seq = (torch.arange(2 * 5 * 3.0).reshape(2, 5, 3) % 5 - 2) / 4
tgt = torch.tensor([0, 3, 1, 2])
OPS = [
    ("mm", lambda: torch.mm(a, b)),
    ("matmul", lambda: torch.matmul(a, b)),
    ("@", lambda: a @ b),
    ("Tensor.mm", lambda: a.mm(b)),
    ("bmm", lambda: torch.bmm(a[None], b[None])),
    ("baddbmm", lambda: torch.baddbmm(a[None], a[None], b[None])),
    ("addmm", lambda: torch.addmm(v, a, b)),
    ("addbmm", lambda: torch.addbmm(a, a[None], b[None])),
    ("linear", lambda: F.linear(a, b, v)),
    ("conv1d", lambda: F.conv1d(seq.transpose(1, 2), k[:, :, 0, :])),
    ("conv2d", lambda: F.conv2d(img, k, padding=1)),
    ("conv2d same", lambda: F.conv2d(img, k[:, :, :1, :1], padding="same")),
    ("conv3d", lambda: F.conv3d(img[None], k[:2, :, None, :, :])),
    ("conv_transpose2d", lambda: F.conv_transpose2d(img, k.transpose(0, 1), stride=2)),
    ("prelu", lambda: F.prelu(img, torch.tensor([0.25]))),
    ("einsum contract", lambda: torch.einsum("ij,jk->ik", a, b)),
    ("einsum batch", lambda: torch.einsum("ij,ij->ij", a + 0.125, b + 0.25)),
    ("einsum dot", lambda: torch.einsum("i,i->", v, v)),
    ("vecdot", lambda: torch.linalg.vecdot(a, b)),
    ("mv (no policy)", lambda: torch.mv(a, v)),
    ("dot (no policy)", lambda: torch.dot(v, v)),
    ("prod", lambda: torch.mm(a, b).prod(0)),
    ("mse_loss", lambda: F.mse_loss(torch.mm(a, b), a)),
    ("l1_loss", lambda: F.l1_loss(torch.mm(a, b), a)),
    ("smooth_l1_loss", lambda: F.smooth_l1_loss(torch.mm(a, b), a)),
    ("cross_entropy", lambda: F.cross_entropy(torch.mm(a, b), tgt)),
    ("nll_loss", lambda: F.nll_loss(torch.mm(a, b), tgt)),
    ("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(torch.mm(a, b), (b > 0).float())),
    ("kl_div", lambda: F.kl_div(torch.mm(a, b) / 8, (a.abs() + 1) / 8, reduction="sum")),
    ("cdist", lambda: torch.cdist(torch.mm(a, b), a)),
    ("trace", lambda: torch.trace(torch.mm(a, b))),
    ("linalg.inv", lambda: torch.linalg.inv(torch.mm(a, b) + 8 * torch.eye(4))),
    ("reflect pad", lambda: F.pad(torch.mm(a, b)[None], (1, 1), mode="reflect")),
    ("replicate pad", lambda: F.pad(torch.mm(a, b)[None, None], (1, 1, 1, 1), mode="replicate")),
    ("constant pad", lambda: F.pad(torch.mm(a, b), (1, 1))),
    ("polar", lambda: torch.polar(torch.mm(a, b).abs(), torch.zeros(4, 4))),
    ("view_as_complex", lambda: torch.view_as_complex(torch.mm(a, b).reshape(4, 2, 2))),
    ("cat mixed", lambda: torch.cat([torch.mm(a, b), a])),
    ("cat low", lambda: torch.cat([torch.mm(a, b), torch.mm(b, a)])),
    ("cat float64", lambda: torch.cat([torch.mm(a, b), a.double()])),
    ("stack", lambda: torch.stack([torch.mm(a, b), a])),
    ("index_copy", lambda: torch.mm(a, b).index_copy(0, torch.tensor([1]), a[:1])),
    ("add (no policy)", lambda: torch.mm(a, b) + a),
    ("relu (no policy)", lambda: F.relu(torch.mm(a, b))),
    ("sum (no policy)", lambda: torch.mm(a, b).sum()),
    ("float64 mm", lambda: torch.mm(a.double(), b.double())),
    ("float16 in bfloat16 region", lambda: torch.mm(a.half(), b.half())),
    ("int mm", lambda: torch.mm(a.int(), b.int())),
    ("inplace F.relu", lambda: F.relu(torch.mm(a, b).float(), inplace=True)),
]
# Rounded results: the dtype, then closeness to float32 (no autocast) at the region dtype's tolerance.
INEXACT = [
    ("sdpa", lambda: F.scaled_dot_product_attention(seq, seq, seq)),
    ("softmax (no policy)", lambda: torch.softmax(torch.mm(a, b), -1)),
    ("layer_norm (no policy)", lambda: F.layer_norm(torch.mm(a, b), (4,))),
    ("einsum dot of operands", lambda: torch.einsum("ij,ij->i", a, b)),
]
TOL = {torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2), torch.float16: dict(rtol=1e-3, atol=1e-3)}


def show_close(label, fn, dtype):
    with torch.autocast("cpu", enabled=False):
        ref = fn()
    got = fn()
    print(f"{label}: {got.dtype} close to float32: {torch.allclose(got.float(), ref, **TOL[dtype])}")


for dtype in (torch.bfloat16, torch.float16):
    print(f"=== {dtype} region ===")
    with torch.autocast("cpu", dtype=dtype):
        for label, fn in OPS:
            show(label, fn)
        for label, fn in INEXACT:
            show_close(label, fn, dtype)


# === A model forward and backward ===
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc1 = torch.nn.Linear(4 * 5 * 5, 8)
        self.fc2 = torch.nn.Linear(8, 4)
        with torch.no_grad():
            for i, p in enumerate(self.parameters()):
                p.copy_(((torch.arange(p.numel()) * (i + 3)) % 9 - 4).reshape(p.shape) / 16)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = F.relu(self.fc1(h.flatten(1)))
        return self.fc2(h)


def train_step(model, x, target):
    with torch.autocast("cpu"):
        out = model(x)
        loss = F.cross_entropy(out, target)
    loss.backward()
    return out, loss


def fp32_step(model, x, target):
    out = model(x)
    loss = F.cross_entropy(out, target)
    loss.backward()
    return out, loss


def show_step(label, model, step):
    """The dtypes of a step under autocast, and its closeness to the same step in float32."""
    target = torch.tensor([1, 3])
    out, loss = step(model, img, target)
    ref = Net()
    ref_out, ref_loss = fp32_step(ref, img, target)
    tol = dict(rtol=2e-2, atol=2e-2)
    print(f"{label}: out {out.dtype} loss {loss.dtype}, close to float32: "
          f"{torch.allclose(out.float(), ref_out, **tol)} {torch.allclose(loss, ref_loss, **tol)}")
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        rel = ((p.grad - q.grad).norm() / q.grad.norm()).item()
        # Reduced precision shows (rel > 1e-4) but stays small (< 0.05).
        print(f"  {name}.grad {p.grad.dtype} relative error to float32 in (1e-4, 0.05): {1e-4 < rel < 0.05}")
        if _DEBUG:
            print(rel)


show_step("model eager", Net(), train_step)


# === Compiled ===
def region_outside(x, y):
    return torch.mm(x, y) + 1, F.mse_loss(torch.mm(x, y), y), torch.cat([torch.mm(x, y), y])


def region_inside(x, y):
    z = x * 2
    with torch.autocast("cpu"):
        w = torch.mm(z, y)
        s = torch.softmax(w, -1)
    return w + 1, s, torch.mm(z, y)


def nested_regions(x, y):
    with torch.autocast("cpu", dtype=torch.float16):
        p = torch.mm(x, y)
        with torch.autocast("cpu", enabled=False):
            q = torch.mm(x, y)
            with torch.autocast("cpu"):
                r = torch.cat([torch.mm(x, y), q])
        s = F.l1_loss(p, y)
    return p, q, r, s, torch.mm(x, y)


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    cnt = torch._dynamo.testing.CompileCounterWithBackend(backend)
    f = torch.compile(region_outside, backend=cnt)
    with torch.autocast("cpu"):
        r = f(a, b)
    show(f"{backend} region outside", lambda: r)
    r = f(a, b)
    print(f"{backend} no region: {[t.dtype for t in r]}, graphs {cnt.frame_count}")
    with torch.autocast("cpu", dtype=torch.float16):
        r = f(a, b)
    print(f"{backend} float16 region: {[t.dtype for t in r]}, graphs {cnt.frame_count}")
    cnt = torch._dynamo.testing.CompileCounterWithBackend(backend)
    r = torch.compile(region_inside, backend=cnt)(a, b)
    e = region_inside(a, b)
    print(f"{backend} region inside: {[t.dtype for t in r]}, equal to eager: {torch.equal(r[0], e[0])} "
          f"{torch.allclose(r[1].float(), e[1].float(), **TOL[torch.bfloat16])} {torch.equal(r[2], e[2])}, "
          f"graphs {cnt.frame_count}, state after {torch.is_autocast_enabled('cpu')}")
    cnt = torch._dynamo.testing.CompileCounterWithBackend(backend)
    r = torch.compile(decorated, backend=cnt)(a)
    print(f"{backend} decorated: {r[0].dtype} {r[1]}, equal to eager: {torch.equal(r[0], decorated(a)[0])}, "
          f"graphs {cnt.frame_count}")
    cnt = torch._dynamo.testing.CompileCounterWithBackend(backend)
    r = torch.compile(nested_regions, backend=cnt)(a, b)
    print(f"{backend} nested regions: {[t.dtype for t in r]}, equal to eager: "
          f"{all(torch.equal(x, y) for x, y in zip(r, nested_regions(a, b)))}, graphs {cnt.frame_count}")
    torch._dynamo.reset()
    show_step(f"model {backend}", torch.compile(Net(), backend=backend), train_step)
