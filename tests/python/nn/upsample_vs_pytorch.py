"""F.interpolate(mode="bilinear"/"linear"/"trilinear") (the native upsample_bilinear2d,
upsample_linear1d and upsample_trilinear3d and their backward ops) against PyTorch 2.15.

Checked: outputs and input gradients of up- and downsampling by size= and scale_factor=,
align_corners True and False, non-square and size-1 outputs, recompute_scale_factor, f32 and
f64, channels-last inputs (layout kept), the node names (single and double backward), compiled
equal to eager, and the errors. Stdout equals PyTorch's (recorded with /tmp/pt's python running
this file); values are compared with PyTorch's in `upsample_goldens.json` (written by
`/tmp/pt/bin/python upsample_vs_pytorch.py --record` with OMP_NUM_THREADS=2 on an AVX-512 CPU).

Bit for bit where PyTorch's channels-last vector kernel runs (C a multiple of 16, and a
contiguous input's output H + W <= 128, or a channels-last input), whose summation order the
native kernel reproduces (`rynamo_tensor::ops::upsample`), and for every gradient (ATen's
scatter order), and for the 1-D and 3-D ops on contiguous inputs (ATen's generic kernel, whose
order they reproduce) but the 1-D bf16 and 3-D f64 outputs. Elsewhere ATen sums in another order:
within rtol 1e-6 and atol 1e-6 of the tensor's largest magnitude (a last-bit difference; 2**-8
for the 1-D bf16 output).
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upsample_goldens.json")
RECORD = "--record" in sys.argv
goldens = {} if RECORD else json.load(open(GOLDENS))


def matches(key, t, exact):
    """Whether `t` equals PyTorch's `key` (records it under --record). F32 values are stored with
    9 significant digits, which give back the same f32."""
    t = t.detach().flatten()
    digits = "%.17g" if t.dtype == torch.float64 else "%.9g"
    if RECORD:
        goldens[key] = [float(digits % v) for v in t.double().tolist()]
    want = torch.tensor(goldens[key], dtype=torch.float64).to(t.dtype)
    if want.shape != t.shape:
        return False
    if exact:
        return torch.equal(t, want)
    scale = max(1.0, want.abs().max().item())
    tol = 1e-6 if t.dtype in (torch.float32, torch.float64) else 2.0 ** -8
    return bool(((t.double() - want.double()).abs() <= tol * scale + tol * want.double().abs()).all())


def data(shape, seed, dtype=torch.float32):
    """Deterministic values in [-1, 1) with full mantissas (k / 97), the same bits in both
    runtimes."""
    n = 1
    for d in shape:
        n *= d
    k = torch.arange(n, dtype=torch.float64) * (31 + 2 * seed) + seed
    return (torch.remainder(k, 97) / 97 * 2 - 1).to(dtype).reshape(shape)


# (name, input shape, interpolate kwargs, channels_last, dtype, bitwise)
CASES = [
    ("x2_align", (1, 16, 3, 4), dict(scale_factor=2, align_corners=True), False, torch.float32, True),
    ("x2", (1, 16, 3, 4), dict(scale_factor=2, align_corners=False), False, torch.float32, True),
    ("size_nonsquare", (1, 16, 3, 5), dict(size=(7, 4)), False, torch.float32, True),
    ("size_nonsquare_align", (1, 16, 3, 5), dict(size=(7, 4), align_corners=True), False, torch.float32, True),
    ("x1.7", (1, 16, 5, 6), dict(scale_factor=1.7), False, torch.float32, True),
    ("x1.7_recompute", (1, 16, 5, 6), dict(scale_factor=1.7, recompute_scale_factor=True), False, torch.float32,
     True),
    ("xhalf", (1, 16, 6, 6), dict(scale_factor=0.5), False, torch.float32, True),
    ("x(0.4,2.5)_align", (1, 16, 5, 4), dict(scale_factor=(0.4, 2.5), align_corners=True), False, torch.float32,
     True),
    ("size1", (1, 16, 4, 5), dict(size=(1, 1)), False, torch.float32, True),
    ("size1_align", (1, 16, 4, 5), dict(size=(1, 1), align_corners=True), False, torch.float32, True),
    ("same_size", (1, 16, 4, 5), dict(size=(4, 5)), False, torch.float32, True),
    ("channels_last", (2, 16, 3, 4), dict(size=(5, 7)), True, torch.float32, True),
    ("channels_last_c20", (1, 20, 3, 4), dict(scale_factor=2, align_corners=True), True, torch.float32, False),
    ("f64", (1, 16, 3, 3), dict(scale_factor=2), False, torch.float64, True),
    ("bf16", (1, 16, 3, 4), dict(scale_factor=2), False, torch.bfloat16, True),
    ("f16_channels_last", (1, 16, 3, 4), dict(size=(5, 7)), True, torch.float16, True),
    ("f64_size", (2, 3, 5, 7), dict(size=(9, 11), align_corners=True), False, torch.float64, False),
    ("c3", (2, 3, 5, 7), dict(size=(9, 11)), False, torch.float32, False),
    ("generic_kernel", (1, 1, 6, 8), dict(size=(30, 100)), False, torch.float32, False),
    ("1d_x2", (2, 3, 7), dict(scale_factor=2), False, torch.float32, True),
    ("1d_size_align", (1, 16, 7), dict(size=11, align_corners=True), False, torch.float32, True),
    ("1d_x1.7", (1, 4, 5), dict(scale_factor=1.7), False, torch.float32, True),
    ("1d_down", (1, 4, 9), dict(size=4), False, torch.float32, True),
    ("1d_long", (1, 2, 40), dict(size=90), False, torch.float32, True),
    ("1d_size1", (1, 2, 6), dict(size=1), False, torch.float32, True),
    ("1d_f64", (1, 3, 6), dict(scale_factor=2.5, align_corners=True), False, torch.float64, True),
    # ATen's 1-D kernel rounds bf16 differently (its weights are stored in bf16): within one bf16 ulp
    ("1d_bf16", (1, 3, 6), dict(size=13), False, torch.bfloat16, False),
    ("3d_x2", (1, 3, 2, 3, 4), dict(scale_factor=2), False, torch.float32, True),
    ("3d_size_align", (2, 2, 3, 4, 5), dict(size=(5, 7, 9), align_corners=True), False, torch.float32, True),
    ("3d_mixed", (1, 2, 4, 3, 6), dict(size=(2, 3, 11)), False, torch.float32, True),
    ("3d_x1.5", (1, 2, 3, 4, 4), dict(scale_factor=(1.5, 0.5, 2.5)), False, torch.float32, True),
    # f64 through ATen's 3-D kernel differs in the last bit (not investigated: f32 and 1-D f64 match)
    ("3d_f64", (1, 2, 2, 3, 3), dict(size=(3, 5, 4)), False, torch.float64, False),
    # ATen's channels-last kernel sums the eight products: the layout is kept, the values differ
    ("3d_channels_last", (1, 16, 2, 3, 4), dict(size=(3, 5, 7)), "3d", torch.float32, False),
]

all_ok = True
for seed, (name, shape, kw, cl, dtype, exact) in enumerate(CASES):
    x = data(shape, seed, dtype)
    if cl:
        x = x.contiguous(memory_format=torch.channels_last_3d if cl == "3d" else torch.channels_last)
    x.requires_grad_()
    y = F.interpolate(x, mode=("linear", "bilinear", "trilinear")[x.dim() - 3], **kw)
    wgt = data(tuple(y.shape), seed + 100, dtype)
    (y * wgt).sum().backward()
    out_ok = matches(name + " out", y, exact)
    grad_ok = matches(name + " grad", x.grad, True)
    all_ok = all_ok and out_ok and grad_ok
    cl_format = torch.channels_last_3d if y.dim() == 5 else torch.channels_last
    print(name, list(y.shape), y.dtype, y.grad_fn.name(), y.is_contiguous(),
          y.dim() > 3 and y.is_contiguous(memory_format=cl_format), out_ok, grad_ok)
print("all match:", all_ok)

# double backward: the backward's own node, and its gradient is the forward
for mode, shape, size in (("bilinear", (1, 2, 3, 4), (5, 6)), ("linear", (1, 2, 4), 7),
                          ("trilinear", (1, 1, 2, 3, 2), (3, 4, 5))):
    x = data(shape, 50, torch.float64).requires_grad_()
    y = F.interpolate(x, size=size, mode=mode)
    g = data(tuple(y.shape), 51, torch.float64).requires_grad_()
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    print(gx.grad_fn.name())
    v = data(shape, 52, torch.float64)
    (gg,) = torch.autograd.grad(gx, g, v)
    print("double backward is the forward:", torch.equal(gg, F.interpolate(v, size=size, mode=mode)))


# compiled equals eager, one graph
def up(t):
    return F.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True) * 2


x = data((1, 16, 8, 8), 60)
print("compiled == eager:", torch.equal(torch.compile(up, backend="eager")(x), up(x)))

# errors
for f in (lambda: F.interpolate(torch.ones(1, 1, 0, 3), size=(2, 2), mode="bilinear"),
          lambda: F.interpolate(torch.ones(1, 1, 3, 3), size=(0, 2), mode="bilinear"),
          lambda: F.interpolate(torch.ones(1, 1, 3), size=2, mode="bilinear"),
          lambda: F.interpolate(torch.ones(1, 1, 0), size=2, mode="linear"),
          lambda: F.interpolate(torch.ones(1, 1, 2, 0, 2), size=2, mode="trilinear")):
    try:
        f()
        print("no error")
    except (RuntimeError, ValueError, NotImplementedError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
print(F.interpolate(torch.ones(0, 2, 3, 3), size=(4, 5), mode="bilinear").shape)

if RECORD:
    with open(GOLDENS, "w") as f:
        json.dump(goldens, f)
