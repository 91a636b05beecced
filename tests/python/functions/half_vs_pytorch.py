"""bfloat16 and float16 end to end: layers, ops and a small conv/norm/attention model in reduced
precision against PyTorch 2.15's goldens (`half_goldens.json`, from `_gen_half_goldens.py`), eagerly
and compiled (`eager`, `inductor`). Tolerances are `torch.testing.assert_close`'s defaults for the dtype
(bfloat16: rtol 1.6e-2, float16: rtol 1e-3; atol 1e-5): one unit in the last place, where PyTorch's and
Rynamo's float32 accumulations round to different neighbours."""

import json
import os
import sys

import torch
import torch._dynamo
from _half_cases import cases

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "half_goldens.json")) as f:
    GOLDENS = json.load(f)["cases"]
TOL = {torch.bfloat16: (1.6e-2, 1e-5), torch.float16: (1e-3, 1e-5)}
# Known divergences (measured 2026-11-28; each is a bug to fix, listed so the rest stays checked).
# A listed case that starts matching fails the run, so the list cannot go stale.
KNOWN = {
    # The dynasm backend's layer_norm in half precision differs where eager matches (not traced yet;
    # likely intermediates rounded to the half dtype).
    "layer_norm torch.bfloat16 [inductor]": "JIT layer_norm in half precision",
    "layer_norm torch.float16 [inductor]": "JIT layer_norm in half precision",
    "tiny_model torch.bfloat16 [inductor]": "JIT layer_norm in half precision",
    "tiny_model torch.float16 [inductor]": "JIT layer_norm in half precision",
    # PyTorch's CPU flash-attention kernel rounds differently from a float32 computation cast once
    # (Rynamo's fused attention): up to 7 bfloat16 ulps on 1 of 24 elements.
    "sdpa torch.bfloat16 [none]": "attention rounding", "sdpa torch.bfloat16 [eager]": "attention rounding",
    "sdpa torch.bfloat16 [inductor]": "attention rounding", "sdpa torch.float16 [none]": "attention rounding",
    "sdpa torch.float16 [eager]": "attention rounding", "sdpa torch.float16 [inductor]": "attention rounding",
    "tiny_model torch.float16 [none]": "attention rounding", "tiny_model torch.float16 [eager]": "attention rounding",
    # bfloat16 LSTM: 2 of 12 outputs off by up to 3x the tolerance (not traced yet; Rynamo's cell is a
    # composition that rounds each intermediate to bfloat16, the likely cause).
    "lstm torch.bfloat16 [none]": "LSTM gates rounded", "lstm torch.bfloat16 [eager]": "LSTM gates rounded",
    "lstm torch.bfloat16 [inductor]": "LSTM gates rounded",
    # float16 transposed convolution: 8 of 1156 outputs off by up to 3x (not traced yet; the likely cause
    # is the composition over conv rounding partial results to float16).
    "conv_transpose2d torch.float16 [none]": "partial sums rounded",
    "conv_transpose2d torch.float16 [eager]": "partial sums rounded",
    "conv_transpose2d torch.float16 [inductor]": "partial sums rounded",
}
known_seen = set()
failures = []
runs = 0
for dt in (torch.bfloat16, torch.float16):
    rtol, atol = TOL[dt]
    for name, fn in cases(dt).items():
        gold = GOLDENS[f"{name} {dt}"]
        want = torch.tensor(gold["data"], dtype=torch.float64).reshape(gold["shape"])
        for backend in ("none", "eager", "inductor"):
            tag = f"{name} {dt} [{backend}]"
            torch._dynamo.reset()
            try:
                with torch.no_grad():
                    r = fn() if backend == "none" else torch.compile(fn, backend=backend)()
            except Exception as e:
                failures.append(f"{tag}: raised {type(e).__name__}: {e}")
                continue
            runs += 1
            if str(r.dtype) != gold["dtype"] or list(r.shape) != gold["shape"]:
                failures.append(f"{tag}: {r.dtype}{list(r.shape)} != PyTorch's {gold['dtype']}{gold['shape']}")
                continue
            got = r.double()
            bad = (got - want).abs() > atol + rtol * want.abs()
            if bool(bad.any()):
                err = float(((got - want).abs() / (atol + rtol * want.abs())).max())
                line = f"{tag}: differs from PyTorch (worst {err:.2f}x the tolerance, {int(bad.sum())} of {bad.numel()} elements)"
                if tag in KNOWN:
                    known_seen.add(tag)
                    print(f"KNOWN ({KNOWN[tag]})", line)
                else:
                    failures.append(line)
            elif tag in KNOWN:
                failures.append(f"{tag}: listed in KNOWN but now matches PyTorch: remove it from the list")
torch._dynamo.reset()
for line in failures:
    print("FAIL", line)
print(f"{runs} runs, {len(failures)} failures")
sys.exit(1 if failures else 0)
