"""`torch.linalg` (faer-backed factorizations and the compositions over them), the `torch`/`Tensor`
linalg aliases and `torch.special` against PyTorch 2.15's goldens (`goldens.json`, recorded by
`_gen_goldens.py` under real PyTorch): outputs and, where the case says so, the gradients of every
float input. Each case runs eagerly and compiled with the `eager` and `inductor` (dynasm) backends.

Float64 values agree within 1e-9 absolute plus 1e-9 relative; float32 ones within 1e-5 plus 1e-5
(factorizations run in f64 here, in f32 in LAPACK); integer outputs (ranks) exactly."""

import json
import os
import sys

import torch
import torch._dynamo
import _cases
from _cases import all_cases
from _golden_run import run_case

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens.json")) as f:
    GOLDENS = json.load(f)["cases"]

failures = []
only = sys.argv[1:]


def dec(entry):
    return torch.tensor(entry["data"], dtype=getattr(torch, entry["dtype"])).reshape(entry["shape"])


def close(name, got, entry):
    want = dec(entry)
    got = got.detach()
    if list(got.shape) != list(want.shape) or got.dtype != want.dtype:
        failures.append(f"{name}: {got.dtype}{list(got.shape)} != PyTorch's {want.dtype}{list(want.shape)}")
        return
    if not want.is_floating_point():
        if not bool((got == want).all()):
            failures.append(f"{name}: {got.tolist()} != PyTorch's {want.tolist()}")
        return
    tol = 1e-9 if want.dtype == torch.float64 else 1e-5
    g, w = got.double(), want.double()
    same_special = (g.isnan() & w.isnan()) | ((g == w) & w.isinf())
    bad = ((g - w).abs() > tol + tol * w.abs()) & ~same_special
    if bool(bad.any()):
        err = float(((g - w).abs() / (tol + tol * w.abs()))[bad].max())
        failures.append(f"{name}: differs from PyTorch (worst error {err:.1f}x the tolerance)")


def run(case, backend):
    run_case(case, backend, GOLDENS[case[0]], close, failures, _cases)


count = 0
for case in all_cases():
    if only and case[0] not in only:
        continue
    for backend in ("none", "eager", "inductor"):
        run(case, backend)
        count += 1
torch._dynamo.reset()
for line in failures:
    print("FAIL", line)
print(f"{count} runs, {len(failures)} failures")
sys.exit(1 if failures else 0)
