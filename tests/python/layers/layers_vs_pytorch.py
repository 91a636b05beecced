"""Every new layer (recurrent, transposed and 3-D convolutions, instance and local response norm,
padding, shuffles, fold/unfold, bilinear, adaptive and fractional pools, interpolate's modes) against
PyTorch 2.15's goldens (`goldens.json`, recorded by `_gen_goldens.py` under real PyTorch): outputs,
the gradients of every float input and parameter, and the floating buffers after the forward.
Each case runs eagerly and compiled with the `eager`, `aot_eager` and `inductor` (dynasm) backends,
from the same deterministic parameters and inputs (`_cases.py`).

Values agree within 1e-5 absolute plus 1e-5 relative (summation order differs between the libraries);
integer outputs (indices, lengths) exactly."""

import json
import os
import sys

import torch
import torch._dynamo
from _cases import all_cases, buffers_of, build, grads_of, loss_of, outputs_of

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens.json")) as f:
    GOLDENS = json.load(f)["cases"]

failures = []
only = sys.argv[1:]


def dec(entry):
    dtype = getattr(torch, entry["dtype"])
    return torch.tensor(entry["data"], dtype=dtype).reshape(entry["shape"])


def close(name, got, entry):
    if entry is None or got is None:
        if (entry is None) != (got is None):
            failures.append(f"{name}: got {'None' if got is None else 'a tensor'}, PyTorch has "
                            f"{'None' if entry is None else 'a tensor'}")
        return
    want = dec(entry)
    got = got.detach()
    if list(got.shape) != list(want.shape) or got.dtype != want.dtype:
        failures.append(f"{name}: {got.dtype}{list(got.shape)} != PyTorch's {want.dtype}{list(want.shape)}")
        return
    if not want.is_floating_point():
        if not bool((got == want).all()):
            failures.append(f"{name}: {got.tolist()} != PyTorch's {want.tolist()}")
        return
    g, w = got.double(), want.double()
    bad = ((g - w).abs() > 1e-5 + 1e-5 * w.abs()) & ~(g.isnan() & w.isnan())
    if bool(bad.any()):
        err = float(((g - w).abs() / (1e-5 + 1e-5 * w.abs())).max())
        failures.append(f"{name}: differs from PyTorch (worst error {err:.1f}x the tolerance)")


def run(case, backend):
    name = case[0]
    tag = f"{name}[{backend}]"
    module, inputs = build(case)
    fn = module if backend == "none" else torch.compile(module, backend=backend)
    torch._dynamo.reset()
    try:
        result = fn(*inputs)
    except Exception as e:  # a crash fails this case only
        failures.append(f"{tag}: forward raised {type(e).__name__}: {e}")
        return
    gold = GOLDENS[name]
    outs = outputs_of(result)
    if len(outs) != len(gold["outs"]):
        failures.append(f"{tag}: {len(outs)} outputs, PyTorch has {len(gold['outs'])}")
        return
    for k, (t, e) in enumerate(zip(outs, gold["outs"])):
        close(f"{tag} output {k}", t, e)
    for k, (b, e) in enumerate(zip(buffers_of(module), gold["buffers"])):
        close(f"{tag} buffer {k}", b, e)
    loss = loss_of(outs)
    if loss is None:
        return
    try:
        loss.backward()
    except Exception as e:
        failures.append(f"{tag}: backward raised {type(e).__name__}: {e}")
        return
    grads = grads_of(module, inputs)
    if len(grads) != len(gold["grads"]):
        failures.append(f"{tag}: {len(grads)} gradients, PyTorch has {len(gold['grads'])}")
        return
    for k, (g, e) in enumerate(zip(grads, gold["grads"])):
        close(f"{tag} grad {k}", g, e)


cases = [c for c in all_cases() if not only or c[0] in only]
for case in cases:
    for backend in ("none", "eager", "aot_eager", "inductor"):
        run(case, backend)

if failures:
    print("\n".join(failures))
    raise SystemExit(f"{len(failures)} failures")
print(f"layers_vs_pytorch: {len(cases)} cases x 4 modes match PyTorch")
