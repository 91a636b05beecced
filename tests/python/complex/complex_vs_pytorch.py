"""Complex tensors (issue 29 req 3) against PyTorch 2.15: creation, printing, item/tolist, dtypes and
promotion, arithmetic with real tensors and Python complex numbers, abs/angle/conj/exp/sum/mean,
component views (.real/.imag, view_as_real/view_as_complex and writes through them), polar/complex,
the LLaMA 2 rotary embedding, and PyTorch's error texts for ops without complex kernels. Its stdout
equals `complex_vs_pytorch.out`, recorded by running this script under real PyTorch
(`/tmp/pt/bin/python complex_vs_pytorch.py > complex_vs_pytorch.out`)."""
import io
import warnings

import torch

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


z = torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j])
w = torch.tensor([[2 - 1j, 0.5j, -1.0 + 0j]], dtype=torch.complex128)
r = torch.tensor([1.0, -2.0, 4.0])
i = torch.tensor([1, 2, 3])

# === Creation and printing ===
show("tensor", lambda: z)
show("tensor128", lambda: w)
show("zero-dim", lambda: torch.tensor(1j))
show("mixed list", lambda: torch.tensor([1, 2.5, 3j]))
show("dtype arg", lambda: torch.tensor([1.0, 2.0], dtype=torch.cfloat))
show("zeros", lambda: torch.zeros(2, 2, dtype=torch.cfloat))
show("ones", lambda: torch.ones(3, dtype=torch.cdouble))
show("full", lambda: torch.full((2,), 2.5, dtype=torch.complex64))
show("zeros_like", lambda: torch.zeros_like(z))
show("empty shape", lambda: torch.empty(2, 3, dtype=torch.cfloat).shape)
torch.manual_seed(0)
# The draws differ from PyTorch's generator; their distribution does not: randn's components are
# each N(0, 1/2) (E|z|^2 = 1), rand's uniform in [0, 1).
show("randn stats", lambda: (lambda x: (x.dtype, round(x.real.var().item(), 1), round(x.imag.var().item(), 1),
                                        bool(x.real.mean().abs() < 0.05), round((x.abs() ** 2).mean().item(), 1)))(
    torch.randn(20000, dtype=torch.cfloat)))
show("rand stats", lambda: (lambda x: (x.dtype, round(x.real.mean().item(), 1), round(x.imag.mean().item(), 1),
                                       bool((x.real >= 0).all() and (x.imag < 1).all())))(
    torch.rand(20000, dtype=torch.cdouble)))
show("wide", lambda: torch.tensor([[1.5 + 2j, -3.25 - 1e-3j], [0j, 100 + 0.5j]]))
show("int mode", lambda: torch.tensor([100 + 2j, -3 - 4j]))
show("neg zero", lambda: torch.complex(torch.tensor([1.0, -1.0]), torch.tensor([-0.0, 0.0])))
show("long", lambda: torch.arange(24.0).reshape(12, 2).contiguous().view(torch.complex64).reshape(-1))
show("item", lambda: z[1].item())
show("tolist", lambda: w.tolist())
show("tolist 0d", lambda: torch.tensor(2 - 3j).tolist())
show("complex()", lambda: complex(z[0]))
show("format", lambda: (f"{z[0]}", format(z[1], ".2f")))
show("float of real-valued", lambda: (float(torch.tensor(2 + 0j)), int(torch.tensor(3 + 0j)), bool(torch.tensor(0j)), bool(z[0])))
show("float of complex", lambda: float(z[0]))
show("int of complex", lambda: int(z[0]))
show("is_complex", lambda: (z.is_complex(), torch.is_complex(r), z.dtype.is_complex))
show("itemsize", lambda: (z.element_size(), w.element_size(), z.dtype.itemsize))
show("to_real", lambda: (torch.complex64.to_real(), torch.float64.to_complex()))
torch.set_default_dtype(torch.float64)
show("default f64", lambda: torch.tensor([1j, 2]))
show("default f64 print c64", lambda: torch.tensor([1j], dtype=torch.complex64))
torch.set_default_dtype(torch.float32)

# === Promotion ===
for label, fn in [
    ("c64+c128", lambda: z + w),
    ("c64*f32", lambda: z * r),
    ("c64*f64", lambda: z * r.double()),
    ("c64+i64", lambda: z + i),
    ("f32*1j", lambda: r * 1j),
    ("f64*1j", lambda: r.double() * 1j),
    ("i64*1j", lambda: i * 1j),
    ("1j*f32", lambda: 1j * r),
    ("c64+2", lambda: z + 2),
    ("c64*2.5", lambda: z * 2.5),
    ("c64/(1+1j)", lambda: z / (1 + 1j)),
    ("2-c64", lambda: 2 - z),
    ("f32 0-dim*1j", lambda: torch.tensor(2.0) * 1j),
    ("promote_types", lambda: (torch.promote_types(torch.float64, torch.complex64), torch.promote_types(torch.int8, torch.complex128))),
]:
    show(label, fn)

# === Arithmetic and functions ===
show("add", lambda: z + z)
show("add alpha", lambda: torch.add(z, z, alpha=2))
show("sub", lambda: z - w)
show("mul", lambda: z * w)
show("div", lambda: z / w)
show("div zero", lambda: z / torch.zeros(3, dtype=torch.cfloat))
show("neg", lambda: -z)
show("abs", lambda: z.abs())
show("abs128", lambda: torch.abs(w))
show("angle", lambda: z.angle())
show("angle real", lambda: torch.tensor([-1.0, 2.0, 0.0]).angle())
show("conj", lambda: z.conj())
show("exp", lambda: z.exp())
show("sum", lambda: z.sum())
show("sum dim", lambda: torch.stack([z, z * 2]).sum(0))
show("sum keepdim", lambda: torch.stack([z, z * 2]).sum(1, keepdim=True))
show("mean", lambda: z.mean())
show("mean dim", lambda: torch.stack([z, z * 2]).mean(-1))
show("eq", lambda: z == torch.tensor([1 + 2j, 3 + 1j, -0.5 + 0.25j]))
show("ne", lambda: z != z)
show("allclose", lambda: (torch.allclose(z, z + 1e-9), torch.allclose(z, z + 1j)))
show("assert_close equal", lambda: torch.testing.assert_close(z, z.clone()))
show("assert_close", lambda: torch.testing.assert_close(z, z + 1e-3j))
show("assert_close c128", lambda: torch.testing.assert_close(w, w + 1e-6))
show("assert_close 0-dim", lambda: torch.testing.assert_close(z[0], z[0] + 1e-3))
show("equal", lambda: (torch.equal(z, z.clone()), torch.equal(z, z.conj())))
show("iadd", lambda: z.clone().add_(1j))
show("fill_ complex", lambda: torch.zeros(2, dtype=torch.cfloat).fill_(1 - 2j))
show("setitem complex", lambda: (lambda y: (y.__setitem__(0, 5 - 5j), y)[1])(z.clone()))
show("imul", lambda: z.clone().mul_(z))
show("isfinite", lambda: (z / 0).isfinite())

# === Conversions ===
show("to c128", lambda: z.to(torch.complex128))
show("to f32", lambda: z.to(torch.float32))
show("float()", lambda: z.float())
show("long()", lambda: z.long())
show("bool()", lambda: torch.tensor([0j, 1j, 1 + 0j]).bool())
show("real to complex", lambda: r.to(torch.cfloat))
show("type_as", lambda: r.type_as(z))
show("int to complex", lambda: i.to(torch.cdouble))

# === Views ===
show("real", lambda: z.real)
show("imag", lambda: z.imag)
show("real strides", lambda: (z.real.stride(), z.real.storage_offset(), z.imag.storage_offset()))
show("real of real", lambda: r.real)


def write_through():
    y = z.clone()
    y.real.mul_(10)
    y.imag[0] = 7
    y.imag = torch.tensor([1.0, 2.0, 3.0])
    y.real = 5
    return y


show("write through real/imag", write_through)
show("view_as_real", lambda: torch.view_as_real(z))
show("view_as_real strides", lambda: torch.view_as_real(w.t()).stride())
show("view_as_complex", lambda: torch.view_as_complex(torch.arange(8.0).reshape(2, 2, 2)))


def vac_write():
    x = torch.zeros(2, 2)
    torch.view_as_complex(x)[1] = 3 - 4j
    return x


show("view_as_complex writes", vac_write)
show("vac strided", lambda: torch.view_as_complex(torch.arange(12.0).reshape(3, 4)[:, :2]))
show("reshape", lambda: torch.stack([z, w[0].to(torch.cfloat)]).reshape(3, 2))
show("view", lambda: torch.stack([z, z]).view(-1))
show("flatten", lambda: torch.stack([z, z]).flatten())
show("transpose", lambda: torch.stack([z, 2 * z]).t())
show("permute contiguous", lambda: torch.stack([z, 2 * z]).permute(1, 0).contiguous())
show("unsqueeze expand", lambda: z.unsqueeze(0).expand(2, 3))
show("cat", lambda: torch.cat([z, z.conj()]))
show("index", lambda: (z[1], z[[0, 2]], z[z.abs() > 1]))
show("clone", lambda: z.clone())
show("sgn", lambda: torch.sgn(torch.tensor([3 + 4j, 0j, -2j])))


def save_load():
    b = io.BytesIO()
    torch.save({"z": z, "w": w, "zt": torch.stack([z, z]).t()}, b)
    d = torch.load(io.BytesIO(b.getvalue()))
    return d["z"], d["w"], d["zt"].stride(), torch.equal(d["zt"], torch.stack([z, z]).t())


show("save/load", save_load)
show("flip roll repeat tile", lambda: (z.flip(0), z.roll(1), z.repeat(2), torch.tile(z, (2, 1))))
show("where", lambda: torch.where(torch.tensor([True, False, True]), z, w[0]))
show("where scalar", lambda: torch.where(torch.tensor([True, False, True]), z, 1j))
show("masked_fill", lambda: z.masked_fill(torch.tensor([True, False, False]), 2 - 1j))
show("masked_fill_", lambda: z.clone().masked_fill_(torch.tensor([False, True, False]), 0.5))
show("pow", lambda: (z ** 2, z ** 3, z ** -1, z ** 0.5, z ** 2.5, 2 ** z, z ** z))
show("pow zero base", lambda: (torch.tensor([0j, 1 + 0j]) ** 1.5).abs())
show("polar", lambda: torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, 0.5])))
show("complex", lambda: torch.complex(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([3.0, 4.0], dtype=torch.float64)))

# === Errors ===
for label, fn in [
    ("lt", lambda: z < z),
    ("gt scalar", lambda: z > 1),
    ("relu", lambda: torch.relu(z)),
    ("clamp", lambda: z.clamp(0, 1)),
    ("amax", lambda: z.amax()),
    ("maximum", lambda: torch.maximum(z, z)),
    ("floor", lambda: z.floor()),
    ("trunc", lambda: z.trunc()),
    ("sign", lambda: z.sign()),
    ("argmax", lambda: z.argmax()),
    ("remainder", lambda: z % 2),
    ("floor_divide", lambda: z // 2),
    ("atan2", lambda: torch.atan2(z, z)),
    ("bitwise_and", lambda: z & z),
    ("invert", lambda: ~z),
    ("gelu", lambda: torch.nn.functional.gelu(z)),
    ("erf", lambda: torch.erf(z)),
    ("view_as_real of real", lambda: torch.view_as_real(r)),
    ("view_as_complex last dim", lambda: torch.view_as_complex(torch.zeros(3, 3))),
    ("view_as_complex stride", lambda: torch.view_as_complex(torch.zeros(2, 3).t())),
    ("view_as_complex offset", lambda: torch.view_as_complex(torch.zeros(7)[1:].reshape(3, 2))),
    ("view_as_complex int", lambda: torch.view_as_complex(torch.zeros(3, 2, dtype=torch.int32))),
    ("imag of real", lambda: r.imag),
    ("polar int", lambda: torch.polar(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))),
    ("polar mixed", lambda: torch.polar(torch.ones(2), torch.ones(2, dtype=torch.float64))),
    ("complex mixed", lambda: torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))),
    ("item of many", lambda: z.item()),
    ("max", lambda: z.max()),
]:
    show(label, fn)


# === LLaMA 2's rotary embedding (llama/model.py), eagerly ===
def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


bsz, seqlen, heads, head_dim = 2, 5, 3, 8
n = bsz * seqlen * heads * head_dim
xq = torch.sin(torch.arange(n, dtype=torch.float32) * 0.37).reshape(bsz, seqlen, heads, head_dim)
xk = torch.cos(torch.arange(n, dtype=torch.float32) * 0.11).reshape(bsz, seqlen, heads, head_dim)
freqs_cis = precompute_freqs_cis(head_dim, seqlen * 2)[:seqlen]
show("freqs_cis", lambda: freqs_cis)
q, k = apply_rotary_emb(xq, xk, freqs_cis)
show("rotary q", lambda: q[1, 4])
show("rotary k", lambda: k[0, 2])
show("rotary sums", lambda: (round(q.sum().item(), 4), round(k.abs().sum().item(), 4), q.dtype, list(q.shape)))
