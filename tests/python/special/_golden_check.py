"""The golden check shared by `special_vs_pytorch.py` and `stats_vs_pytorch.py`: each case's
outputs (and gradients where the case says so) against PyTorch 2.15's goldens, eagerly and
compiled with the `eager` and `inductor` (dynasm) backends, then the error texts.

Tolerances are PyTorch's own `assert_close` defaults (float64: 1e-7 absolute + 1e-7 relative;
float32: 1e-5 + 1.3e-6); NaN must meet NaN and an infinity the same infinity."""

import json
import os
import sys

import torch
import torch._dynamo
import _special_cases
from _golden_run import run_case

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []
only = sys.argv[1:]
DATA = {}
GOLDENS = {}


def dec(entry):
    data = [float(v) if isinstance(v, str) else v for v in entry["data"]]
    return torch.tensor(data, dtype=getattr(torch, entry["dtype"])).reshape(entry["shape"])


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
    atol, rtol = (1e-7, 1e-7) if want.dtype == torch.float64 else (1e-5, 1.3e-6)
    g, w = got.double(), want.double()
    same_special = (g.isnan() & w.isnan()) | ((g == w) & w.isinf())
    finite = ~w.isnan() & ~w.isinf()
    bad = ~same_special & ~(finite & ((g - w).abs() <= atol + rtol * w.abs()))
    if bool(bad.any()):
        idx = [i for i, v in enumerate(bad.reshape(-1).tolist()) if v][:4]
        gl, wl = g.reshape(-1).tolist(), w.reshape(-1).tolist()
        failures.append(f"{name}: differs from PyTorch at {idx}: got {[gl[i] for i in idx]}, "
                        f"PyTorch {[wl[i] for i in idx]}")


def run(case, backend):
    run_case(case, backend, GOLDENS[case[0]], close, failures, _special_cases)


def check(goldens_file, all_cases, error_cases, extra=()):
    """Runs every case and error case against `goldens_file`; `extra` holds (name, got, key)
    facts compared with `DATA[key]`. Prints the failures and exits non-zero on any."""
    with open(os.path.join(HERE, goldens_file)) as f:
        DATA.update(json.load(f))
    GOLDENS.update(DATA["cases"])
    count = 0
    for case in all_cases():
        if only and case[0] not in only:
            continue
        for backend in ("none", "eager", "inductor"):
            if backend == "inductor" and "double_grad" in case[0]:
                continue  # PyTorch: "torch.compile with aot_autograd does not currently support double backward"
            run(case, backend)
            count += 1
    torch._dynamo.reset()

    for name, fn in error_cases():
        if only and name not in only:
            continue
        want = DATA["errors"][name]
        try:
            fn()
            got = None
        except Exception as e:
            got = [type(e).__name__, str(e)]
        count += 1
        if got != want:
            failures.append(f"error {name}: got {got}, PyTorch {want}")
    for name, got, key in extra:
        count += 1
        if got != DATA[key]:
            failures.append(f"{name}: {got} != PyTorch's {DATA[key]}")
    for line in failures:
        print("FAIL", line)
    print(f"{count} runs, {len(failures)} failures")
    sys.exit(1 if failures else 0)
