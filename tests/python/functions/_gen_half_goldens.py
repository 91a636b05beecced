"""Records `half_goldens.json` for `half_vs_pytorch.py` under real PyTorch:
`/tmp/pt/bin/python _gen_half_goldens.py` from this directory."""

import json
import os

import torch
from _half_cases import cases

out = {}
for dt in (torch.bfloat16, torch.float16):
    for name, fn in cases(dt).items():
        with torch.no_grad():
            r = fn()
        out[f"{name} {dt}"] = {"dtype": str(r.dtype), "shape": list(r.shape), "data": r.float().reshape(-1).tolist()}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "half_goldens.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": out}, f, separators=(",", ":"))
print(len(out), "cases")
