"""torch.fft against PyTorch 2.15's eager values: every transform (fft, ifft, rfft, irfft, hfft, ihfft and
their 2-D and n-D forms) on non-power-of-two lengths (7, 12, 30, 97) and n-D inputs, float32/float64/
complex64/complex128/int64 inputs, each `norm=` mode, `n`/`s` padding and trimming, negative and explicit
dims; the gradients of the results (through `view_as_real`), float64 `gradcheck` of every function;
fftfreq/rfftfreq/fftshift/ifftshift; PyTorch's error texts; and an FNet-style mixing block compiled
into one graph. Each case runs eagerly and compiled on both backends (`_eager_goldens`).

Goldens: `fft_pt.json`, recorded by `PYTHONPATH=tests/python /tmp/pt/bin/python
tests/python/fft/fft_vs_pytorch.py --record`.

Tolerances: a DFT's rounding error is bounded relative to the norm of the whole output, not per
element (an output component near zero carries an absolute error of about eps * |y|), so a tensor
is compared with rtol and atol both scaled by the tensor's largest magnitude: 1e-5 for float32
(the harness's rtol; float32's eps is 1.2e-7, times log2(n) and the summation's growth) and 1e-12
for float64 (eps 2.2e-16 with the same headroom)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn"))

import torch  # noqa: E402
import torch.fft as fft  # noqa: E402

from _eager_goldens import Goldens  # noqa: E402


class FftGoldens(Goldens):
    def _compare(self, tag, got, want):
        if len(got) != len(want):
            self.failures.append(f"{tag}: {len(got)} tensors, PyTorch has {len(want)}")
            return
        for i, (t, w) in enumerate(zip(got, want)):
            if list(t.shape) != w["shape"] or str(t.dtype) != w["dtype"]:
                self.failures.append(f"{tag} tensor {i}: {t.dtype}{list(t.shape)}, PyTorch {w['dtype']}{w['shape']}")
                continue
            ref = torch.tensor(w["values"], dtype=t.dtype).reshape(w["shape"])
            if not t.is_floating_point():
                if not torch.equal(t, ref):
                    self.failures.append(f"{tag} tensor {i}: values differ")
                continue
            tol = 1e-12 if t.dtype == torch.float64 else 1e-5
            scale = max(1.0, ref.abs().max().item()) if ref.numel() else 1.0
            err = (t.double() - ref.double()).abs().max().item() if ref.numel() else 0.0
            if err > tol * scale:
                self.failures.append(f"{tag} tensor {i}: max abs diff {err:.3g} (allowed {tol * scale:.3g})")


goldens = FftGoldens(__file__, "fft_pt.json")


def signal(*shape, dtype=torch.float64, phase=0.0):
    """Bounded, distinct values computed the same way on both sides (no sampler)."""
    n = 1
    for s in shape:
        n *= s
    k = torch.arange(n, dtype=torch.float64)
    return (torch.sin(k * 0.731 + phase) + 0.25 * torch.cos(k * 2.17)).reshape(shape).to(dtype)


def pair(*shape, dtype=torch.float64):
    """Components of a complex signal of `shape` (a real [..., 2] tensor: the harness differentiates
    real inputs; `view_as_complex` inside the case makes it complex)."""
    return signal(*shape, 2, dtype=dtype, phase=0.4)


def R(y):
    """A complex result as real components (the harness compares and differentiates real outputs;
    `view_as_real` refuses PyTorch's lazily conjugated results, `real`/`imag` read them)."""
    return torch.stack([y.real, y.imag], -1) if y.is_complex() else y


C = torch.view_as_complex

NORMS = (None, "backward", "ortho", "forward")

# === One-dimensional transforms ===
for dtype in (torch.float64, torch.float32):
    tag = str(dtype).split(".")[1]
    for n in (7, 12, 30, 97):
        x, z = signal(n, dtype=dtype), pair(n, dtype=dtype)
        for name in ("fft", "ifft", "rfft", "ihfft"):
            f = getattr(fft, name)
            goldens.check(f"{name} real {tag} {n}", lambda a, f=f: R(f(a)), x)
        for name in ("fft", "ifft"):
            f = getattr(fft, name)
            goldens.check(f"{name} complex {tag} {n}", lambda a, f=f: R(f(C(a))), z)
        h = pair(n // 2 + 1, dtype=dtype)
        for name in ("irfft", "hfft"):
            f = getattr(fft, name)
            goldens.check(f"{name} {tag} {n}", lambda a, f=f, n=n: R(f(C(a), n=n)), h)
            goldens.check(f"{name} {tag} default n from {n // 2 + 1}", lambda a, f=f: R(f(C(a))), h)

x7, z12, h5 = signal(7), pair(12), pair(5)
for norm in NORMS:
    for name in ("fft", "ifft", "rfft", "ihfft"):
        f = getattr(fft, name)
        goldens.check(f"{name} norm={norm}", lambda a, f=f, norm=norm: R(f(a, norm=norm)), x7)
        goldens.check(f"{name} norm={norm} n=10", lambda a, f=f, norm=norm: R(f(a, n=10, norm=norm)), x7)
    for name in ("fft", "ifft"):
        f = getattr(fft, name)
        goldens.check(f"{name} complex norm={norm} n=5", lambda a, f=f, norm=norm: R(f(C(a), n=5, norm=norm)), z12)
    for name in ("irfft", "hfft"):
        f = getattr(fft, name)
        for n in (4, 9, 13):
            goldens.check(f"{name} norm={norm} n={n}", lambda a, f=f, norm=norm, n=n: R(f(C(a), n=n, norm=norm)), h5)

m = signal(3, 5, 4)
mz = pair(3, 5, 4)
for dim in (0, 1, -2, -1):
    goldens.check(f"fft dim={dim}", lambda a, dim=dim: R(fft.fft(a, dim=dim)), m)
    goldens.check(f"rfft dim={dim} n=6", lambda a, dim=dim: R(fft.rfft(a, n=6, dim=dim)), m)
    goldens.check(f"ifft complex dim={dim} n=3", lambda a, dim=dim: R(fft.ifft(C(a), n=3, dim=dim)), mz)
    goldens.check(f"irfft dim={dim}", lambda a, dim=dim: R(fft.irfft(C(a), dim=dim)), mz)
goldens.check("fft of a transposed input", lambda a: R(fft.fft(a.transpose(0, 2), dim=1)), m)
goldens.check("rfft of a sliced input", lambda a: R(fft.rfft(a[:, 1::2], dim=1)), m)
goldens.check("fft int64 input", lambda: R(fft.fft(torch.arange(6))))
goldens.check("rfft int64 input", lambda: R(fft.rfft(torch.tensor([3, 1, 4, 1, 5]))))
goldens.check("fft complex64", lambda a: R(fft.fft(C(a))), pair(30, dtype=torch.float32))
goldens.check("fft length 1", lambda a: R(fft.fft(a)), signal(1))

# === Two- and n-dimensional transforms ===
for dtype in (torch.float64, torch.float32):
    tag = str(dtype).split(".")[1]
    x = signal(2, 7, 12, dtype=dtype)
    z = pair(2, 7, 12, dtype=dtype)
    for name in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn"):
        f = getattr(fft, name)
        goldens.check(f"{name} {tag}", lambda a, f=f: R(f(a)), x)
    for name in ("fft2", "ifft2", "fftn", "ifftn"):
        f = getattr(fft, name)
        goldens.check(f"{name} complex {tag}", lambda a, f=f: R(f(C(a))), z)
    for name in ("irfft2", "irfftn"):
        f = getattr(fft, name)
        goldens.check(f"{name} {tag}", lambda a, f=f: R(f(C(a))), z)
for norm in NORMS:
    for name in ("fftn", "ifftn", "rfftn", "fft2", "rfft2"):
        f = getattr(fft, name)
        goldens.check(f"{name} s norm={norm}", lambda a, f=f, norm=norm: R(f(a, s=(5, 9), norm=norm)), signal(3, 6, 7))
    for name in ("irfftn", "irfft2"):
        f = getattr(fft, name)
        goldens.check(f"{name} s norm={norm}", lambda a, f=f, norm=norm: R(f(C(a), s=(4, 9), norm=norm)), pair(3, 6, 4))
for norm in NORMS:
    for name in ("hfftn", "hfft2"):
        f = getattr(fft, name)
        goldens.check(f"{name} norm={norm}", lambda a, f=f, norm=norm: R(f(C(a), norm=norm)), pair(3, 5, 4))
        goldens.check(f"{name} s norm={norm}", lambda a, f=f, norm=norm: R(f(C(a), s=(4, 7), norm=norm)), pair(3, 5, 4))
    for name in ("ihfftn", "ihfft2"):
        f = getattr(fft, name)
        goldens.check(f"{name} norm={norm}", lambda a, f=f, norm=norm: R(f(a, norm=norm)), signal(3, 5, 7))
        goldens.check(f"{name} s norm={norm}", lambda a, f=f, norm=norm: R(f(a, s=(4, 6), norm=norm)), signal(3, 5, 7))
goldens.check("hfftn one dim", lambda a: R(fft.hfftn(C(a), dim=(0,))), pair(4, 3))
goldens.check("ihfftn one dim", lambda a: R(fft.ihfftn(a, dim=0)), signal(5, 3))
goldens.check("hfftn float32", lambda a: R(fft.hfftn(C(a))), pair(2, 6, 5, dtype=torch.float32))
goldens.check("ihfftn float32 3 dims", lambda a: R(fft.ihfftn(a)), signal(2, 6, 5, dtype=torch.float32))
goldens.check("fftn dim=(0, 2)", lambda a: R(fft.fftn(a, dim=(0, 2))), signal(3, 4, 5))
goldens.check("fftn dim=(-1, 0) s=(6, -1)", lambda a: R(fft.fftn(a, s=(6, -1), dim=(-1, 0))), signal(3, 4, 5))
goldens.check("rfftn dim=(2, 0)", lambda a: R(fft.rfftn(a, dim=(2, 0))), signal(3, 4, 5))
goldens.check("irfftn dim=(2, 0) s=(-1, 7)", lambda a: R(fft.irfftn(C(a), s=(-1, 7), dim=(2, 0))), pair(3, 4, 5))
goldens.check("irfftn s=(5,) last dim", lambda a: R(fft.irfftn(C(a), s=(5,))), pair(3, 4, 5))
goldens.check("fftn empty dim", lambda a: R(fft.fftn(a, dim=())), signal(3, 4))
goldens.check("fftn 0-d", lambda a: R(fft.fftn(a)), torch.tensor(2.5, dtype=torch.float64))
goldens.check("fftn int dim", lambda a: R(fft.fftn(a, dim=1)), signal(3, 4))
goldens.check("fftn int64", lambda: R(fft.fftn(torch.arange(12).reshape(3, 4))))
goldens.check("fftn 4-D", lambda a: R(fft.fftn(a, dim=(1, 2, 3))), signal(2, 3, 4, 5))

# === Round trips ===
goldens.check("ifft(fft(x))", lambda a: R(fft.ifft(fft.fft(C(a)))), pair(97))
goldens.check("irfft(rfft(x), n)", lambda a: fft.irfft(fft.rfft(a), n=97), signal(97))
goldens.check("irfftn(rfftn(x), s)", lambda a: fft.irfftn(fft.rfftn(a), s=a.shape), signal(6, 7))

# === Helpers ===
for n in (0, 1, 4, 5, 12):
    goldens.check(f"fftfreq {n}", lambda n=n: fft.fftfreq(n))
    goldens.check(f"rfftfreq {n}", lambda n=n: fft.rfftfreq(n, 0.1))
goldens.check("fftfreq d float64", lambda: fft.fftfreq(7, d=0.3, dtype=torch.float64))
goldens.check("rfftfreq float64", lambda: fft.rfftfreq(9, 2.5, dtype=torch.float64))
goldens.check("fftshift", lambda: fft.fftshift(torch.arange(10).reshape(2, 5)))
goldens.check("ifftshift", lambda: fft.ifftshift(torch.arange(10).reshape(2, 5)))
goldens.check("fftshift dim", lambda a: fft.fftshift(a, dim=-1), signal(3, 7))
goldens.check("ifftshift dims", lambda a: fft.ifftshift(a, dim=(0, 1)), signal(3, 7))
goldens.check("fftshift(fftfreq)", lambda: fft.fftshift(fft.fftfreq(9)))
goldens.check("fftshift complex", lambda a: R(fft.fftshift(fft.fft(C(a)))), pair(6))

# === Errors ===
xe = torch.ones(5)
ERRORS = {
    "n=0": lambda: fft.fft(xe, n=0),
    "n=-1": lambda: fft.fft(xe, n=-1),
    "n float": lambda: fft.fft(xe, n=3.0),
    "bad norm": lambda: fft.fft(xe, norm="bad"),
    "norm case": lambda: fft.rfft(xe, norm="Forward"),
    "dim out of range": lambda: fft.fft(xe, dim=1),
    "dim below range": lambda: fft.ifft(xe, dim=-2),
    "0-d": lambda: fft.fft(torch.tensor(1.0)),
    "empty": lambda: fft.fft(torch.ones(0)),
    "rfft complex": lambda: fft.rfft(torch.ones(4, dtype=torch.complex64)),
    "ihfft complex": lambda: fft.ihfft(torch.ones(4, dtype=torch.complex128)),
    "irfft n=0": lambda: fft.irfft(xe, n=0),
    "irfft of one entry": lambda: fft.irfft(torch.ones(1)),
    "hfft of one entry": lambda: fft.hfft(torch.ones(1)),
    "half": lambda: fft.fft(torch.ones(4).half()),
    "bfloat16": lambda: fft.rfft(torch.ones(4, dtype=torch.bfloat16)),
    "duplicate dims": lambda: fft.fft2(torch.ones(3, 4), dim=(0, 0)),
    "duplicate wrapped dims": lambda: fft.fftn(torch.ones(3, 4), dim=(0, -2)),
    "s and dim lengths": lambda: fft.fftn(torch.ones(3, 4), s=(2,), dim=(0, 1)),
    "s too long": lambda: fft.fftn(torch.ones(3, 4), s=(2, 3, 4)),
    "s zero": lambda: fft.fftn(torch.ones(3, 4), s=(0, 3)),
    "s -2": lambda: fft.fft2(torch.ones(3, 4), s=(-2, 3)),
    "fft2 of 1-d": lambda: fft.fft2(torch.ones(3)),
    "rfftn no axes": lambda: fft.rfftn(torch.ones(3, 4), dim=()),
    "irfftn no axes": lambda: fft.irfftn(torch.ones(3, 4), dim=()),
    "rfft2 complex": lambda: fft.rfft2(torch.ones(3, 4, dtype=torch.complex64)),
    "ihfftn complex": lambda: fft.ihfftn(torch.ones(3, 4, dtype=torch.complex64)),
    "ihfft2 complex": lambda: fft.ihfft2(torch.ones(3, 4, dtype=torch.complex64)),
    "ihfftn no axes": lambda: fft.ihfftn(torch.ones(3, 4), dim=()),
    "hfftn no axes": lambda: fft.hfftn(torch.ones(3, 4), dim=()),
    "hfft2 one entry": lambda: fft.hfft2(torch.ones(3, 1)),
    "fftfreq int dtype": lambda: fft.fftfreq(5, dtype=torch.int64),
    "fftfreq complex dtype": lambda: fft.fftfreq(4, dtype=torch.complex64),
    "fftfreq negative": lambda: fft.fftfreq(-1),
}
for label, call in ERRORS.items():
    goldens.raises(label, call)

# === gradcheck (float64, through the component views) ===
GRADCHECKS = {
    "fft real n=5": (lambda a: R(fft.fft(a, n=5)), signal(7)),
    "fft complex n=9 ortho": (lambda a: R(fft.fft(C(a), n=9, norm="ortho")), pair(7)),
    "ifft complex forward": (lambda a: R(fft.ifft(C(a), norm="forward")), pair(6)),
    "ifft real n=4": (lambda a: R(fft.ifft(a, n=4)), signal(7)),
    "rfft n=8": (lambda a: R(fft.rfft(a, n=8)), signal(6)),
    "rfft odd ortho": (lambda a: R(fft.rfft(a, norm="ortho")), signal(7)),
    "irfft even": (lambda a: fft.irfft(C(a)), pair(5)),
    "irfft n=9 forward": (lambda a: fft.irfft(C(a), n=9, norm="forward"), pair(4)),
    "irfft n=3 trims": (lambda a: fft.irfft(C(a), n=3), pair(5)),
    "hfft n=7": (lambda a: fft.hfft(C(a), n=7), pair(4)),
    "hfft ortho": (lambda a: fft.hfft(C(a), norm="ortho"), pair(4)),
    "ihfft n=6": (lambda a: R(fft.ihfft(a, n=6)), signal(5)),
    "fft2 complex s": (lambda a: R(fft.fft2(C(a), s=(3, 5))), pair(2, 4)),
    "ifft2 real ortho": (lambda a: R(fft.ifft2(a, norm="ortho")), signal(3, 4)),
    "fftn dims": (lambda a: R(fft.fftn(a, dim=(0, 2))), signal(2, 3, 3)),
    "ifftn complex s": (lambda a: R(fft.ifftn(C(a), s=(2, 2))), pair(3, 3)),
    "rfft2 s": (lambda a: R(fft.rfft2(a, s=(3, 6))), signal(2, 5)),
    "rfftn forward": (lambda a: R(fft.rfftn(a, norm="forward")), signal(3, 5)),
    "irfft2": (lambda a: fft.irfft2(C(a)), pair(3, 3)),
    "irfftn s odd": (lambda a: fft.irfftn(C(a), s=(2, 5)), pair(3, 3)),
    "fftshift": (lambda a: fft.fftshift(a), signal(3, 4)),
    "hfft2 s": (lambda a: fft.hfft2(C(a), s=(3, 5)), pair(2, 3)),
    "hfftn ortho": (lambda a: fft.hfftn(C(a), norm="ortho"), pair(2, 2, 3)),
    "ihfft2 s": (lambda a: R(fft.ihfft2(a, s=(3, 4))), signal(2, 5)),
    "ihfftn forward": (lambda a: R(fft.ihfftn(a, norm="forward")), signal(2, 3, 3)),
    "ifftshift complex": (lambda a: R(fft.ifftshift(C(a), dim=0)), pair(5, 2)),
}
for label, (f, a) in GRADCHECKS.items():
    goldens.raises(f"gradcheck {label}", lambda f=f, a=a: torch.autograd.gradcheck(
        f, (a.detach().clone().requires_grad_(),)) or None)


# === An FNet-style mixing block, compiled ===
class FNetMixing(torch.nn.Module):
    """FNet's token mixing: the real part of a 2-D DFT over (sequence, hidden), then a residual
    and a LayerNorm."""

    def __init__(self, hidden):
        super().__init__()
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, x):
        return self.norm(x + torch.fft.fft2(x).real)


mix = FNetMixing(12)
goldens.check("FNet mixing block", lambda a: mix(a), signal(2, 7, 12, dtype=torch.float32))

if not goldens.recording:
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    xin = signal(2, 7, 12, dtype=torch.float32)
    got = torch.compile(mix, backend=counting)(xin)
    assert len(graphs) == 1, f"{len(graphs)} graphs"
    torch.testing.assert_close(got, mix(xin), rtol=0, atol=0)
    print("FNet mixing block: 1 graph, equal to eager")

goldens.finish()
