"""Memory-format propagation against PyTorch 2.15: pointwise ops over inputs in several layouts
(row-major, channels-last, channels-last-3d, other permutations, sliced) and broadcast shapes, and
convolution, batch norm, pooling and upsampling of channels-last inputs. Each case compares the
result's strides, its `is_contiguous(memory_format=...)` answers, dtype, shape and values, eagerly and
compiled (dynasm and eager backends), and for the conv/bn stack the gradients' values and strides.
Goldens: `channels_last_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python tests/python/layout/channels_last_vs_pytorch.py --record`."""
import json
import os
import sys

import torch
import torch.nn.functional as F

CL, CL3 = torch.channels_last, torch.channels_last_3d
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "channels_last_pt.json")
RECORD = "--record" in sys.argv
BACKENDS = ("none",) if RECORD else ("none", "inductor", "eager")


def data(*shape):
    """Distinct float32 values, the same on both sides (no sampler involved)."""
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n, dtype=torch.float32) * 7 % n - n / 2) / 8 + 1 / 64).reshape(shape)


def layouts(shape):
    """Named tensors of `shape` with the same values in different layouts."""
    base = data(*shape)
    out = {"rowmajor": base}
    if len(shape) == 4:
        out["cl"] = base.contiguous(memory_format=CL)
        out["nhcw"] = base.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3)
        out["nchw_t"] = base.transpose(2, 3).contiguous().transpose(2, 3)
        out["cl_sliced"] = data(shape[0], shape[1], shape[2], shape[3] * 2).contiguous(memory_format=CL)[..., ::2]
    if len(shape) == 5:
        out["cl3d"] = base.contiguous(memory_format=CL3)
        out["ndhcw"] = base.permute(0, 2, 3, 1, 4).contiguous().permute(0, 3, 1, 2, 4)
    return out


def describe(t):
    flags = [t.is_contiguous(), t.is_contiguous(memory_format=CL) if t.dim() == 4 else None,
             t.is_contiguous(memory_format=CL3) if t.dim() == 5 else None]
    return {"shape": list(t.shape), "dtype": str(t.dtype), "stride": list(t.stride()), "flags": flags,
            "values": digest(t)}


def digest(t):
    """The values in logical order, or for a tensor of more than 32 elements three sums that see
    every value and its position: plain, position-weighted, and of magnitudes."""
    v = t.detach().double().flatten()
    if v.numel() > 32:
        w = torch.arange(v.numel(), dtype=torch.float64) % 13 + 1
        v = torch.stack([v.sum(), (v * w).sum(), v.abs().sum()])
    return [float(f"{x:.9g}") for x in v.tolist()]


failures, golden, runs = [], ({} if RECORD else json.load(open(PATH))), [0]


def compare(tag, got, want):
    if len(got) != len(want):
        failures.append(f"{tag}: {len(got)} tensors, PyTorch {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        for key in ("shape", "dtype", "stride", "flags"):
            if g[key] != w[key]:
                failures.append(f"{tag} tensor {i}: {key} {g[key]}, PyTorch {w[key]}")
        a = torch.tensor(g["values"], dtype=torch.float64)
        b = torch.tensor(w["values"], dtype=torch.float64)
        if a.shape != b.shape or not torch.allclose(a, b, rtol=1e-5, atol=1e-4, equal_nan=True):
            failures.append(f"{tag} tensor {i}: values differ")


def check(label, fn, *inputs, grad=False):
    for backend in BACKENDS:
        torch._dynamo.reset()
        f = fn if backend == "none" else torch.compile(fn, backend=backend)
        xs = [x.detach().clone(memory_format=torch.preserve_format).requires_grad_(grad) for x in inputs]
        try:
            out = f(*xs)
            outs = list(out) if isinstance(out, tuple) else [out]
            if grad:
                sum((o * torch.arange(o.numel()).reshape(o.shape)).sum() for o in outs).backward()
                outs += [x.grad for x in xs]
            got = {"error": None, "tensors": [describe(o) for o in outs]}
        except Exception as e:
            got = {"error": f"{type(e).__name__}: {str(e).splitlines()[0]}", "tensors": []}
        if RECORD:
            golden[label] = got
            continue
        runs[0] += 1
        want = golden[label]
        if got["error"] != want["error"]:
            failures.append(f"{label} [{backend}]: raised {got['error']}, PyTorch {want['error']}")
        else:
            compare(f"{label} [{backend}]", got["tensors"], want["tensors"])


UNARY = {"relu": torch.relu, "neg": torch.neg, "exp": torch.exp, "sigmoid": torch.sigmoid, "abs": torch.abs,
         "gelu": F.gelu, "silu": F.silu, "clamp": lambda x: x.clamp(-1.0, 1.0), "mul2": lambda x: x * 2,
         "add1": lambda x: x + 1, "square": lambda x: x ** 2, "gt0": lambda x: x > 0, "to64": lambda x: x.double()}
BINARY = {"add": torch.add, "mul": torch.mul, "sub": torch.sub, "div": torch.div, "maximum": torch.maximum,
          "atan2": torch.atan2, "lt": torch.lt, "where": lambda a, b: torch.where(a > 0, a, b),
          "lerp": lambda a, b: torch.lerp(a, b, 0.25), "addcmul": lambda a, b: torch.addcmul(a, a, b)}

for shape in [(2, 3, 4, 5), (2, 3, 2, 3, 4)]:
    xs = layouts(shape)
    for lname, x in xs.items():
        for oname, op in UNARY.items():
            check(f"{oname} {lname}{list(shape)}", op, x)
    others = dict(xs)
    others.update({f"bcast{list(s)}": data(*s) for s in [(shape[-1],), (shape[1],) + (1,) * (len(shape) - 2),
                                                         (1,) + tuple(shape[1:]), (shape[-2], 1)]})
    if len(shape) == 4:
        others["bcast_cl[1, 3, 4, 5]"] = data(1, *shape[1:]).contiguous(memory_format=CL)
        others["cl[2, 3, 1, 1]"] = data(shape[0], shape[1], 1, 1).contiguous(memory_format=CL)
    others["zero-dim"] = torch.tensor(1.5)
    for aname, a in xs.items():
        for bname, b in others.items():
            for oname in ("add", "mul", "lt") if aname != bname else ():
                check(f"{oname} {aname}{list(shape)} {bname}", BINARY[oname], a, b)
                check(f"{oname} {bname} {aname}{list(shape)}", BINARY[oname], b, a)
    for oname, op in BINARY.items():
        check(f"{oname} cl rowmajor{list(shape)}", op, xs.get("cl", xs.get("cl3d")), xs["rowmajor"])
        check(f"{oname} cl cl{list(shape)}", op, xs.get("cl", xs.get("cl3d")), xs.get("cl", xs.get("cl3d")))

# Convolution, normalisation, pooling and upsampling pick the layout from their input's format.
x = data(2, 3, 6, 6).contiguous(memory_format=CL)
w = data(4, 3, 3, 3) / 50
for lname, inp in (("cl", x), ("rowmajor", x.contiguous())):
    check(f"conv2d {lname}", lambda i, k: F.conv2d(i, k, padding=1), inp, w)
    check(f"conv2d cl weight {lname}", lambda i, k: F.conv2d(i, k), inp, w.contiguous(memory_format=CL))
    check(f"batch_norm {lname}", lambda i: F.batch_norm(i, None, None, training=True), inp)
    check(f"max_pool2d {lname}", lambda i: F.max_pool2d(i, 2), inp)
    check(f"avg_pool2d {lname}", lambda i: F.avg_pool2d(i, 2), inp)
    check(f"adaptive_avg_pool2d {lname}", lambda i: F.adaptive_avg_pool2d(i, 1), inp)
    check(f"interpolate nearest {lname}", lambda i: F.interpolate(i, scale_factor=2), inp)
    check(f"interpolate bilinear {lname}", lambda i: F.interpolate(i, scale_factor=2, mode="bilinear"), inp)
bn_w, bn_b = data(4) / 10 + 1, data(4) / 10


def stack(i, k, g, b):
    return torch.relu(F.batch_norm(F.conv2d(i, k, padding=1), None, None, g, b, training=True)) + 1


check("conv bn relu stack cl grads", stack, x, w.contiguous(memory_format=CL), bn_w, bn_b, grad=True)
check("conv bn relu stack rowmajor grads", stack, x.contiguous(), w, bn_w, bn_b, grad=True)
x3 = data(2, 3, 3, 4, 4).contiguous(memory_format=CL3)
check("conv3d cl3d", lambda i, k: F.conv3d(i, k), x3, data(2, 3, 2, 2, 2) / 50)
check("max_pool3d cl3d", lambda i: F.max_pool3d(i, 2), x3)
# A broadcast mismatch names the innermost dim that differs (ATen's infer_size).
check("add mismatch", torch.add, data(2, 3, 2, 3), data(2, 3, 3, 2))

if RECORD:
    with open(PATH, "w") as fh:
        json.dump(golden, fh)
    print("recorded", len(golden), "cases")
else:
    print(f"{runs[0]} runs (eager and 2 compiled backends) checked against PyTorch 2.15")
    if failures:
        print("\n".join(failures[:60]))
        raise AssertionError(f"{len(failures)} differences from PyTorch")
