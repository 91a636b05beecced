"""Records `goldens.json` for `functions_vs_pytorch.py` from real PyTorch: each case's outputs and,
for cases with `grad`, the gradients of its float inputs under `loss_of`. Run in the scratch venv
from this directory: `/tmp/pt/bin/python _gen_goldens.py`."""

import json
import os

import torch
from _cases import all_cases, float_tensors, loss_of, prepared

HERE = os.path.dirname(os.path.abspath(__file__))


def enc(t):
    if t is None:
        return None
    t = t.detach()
    if t.dtype == torch.float32:
        data = [float("%.9g" % v) for v in t.reshape(-1).tolist()]
    elif t.is_floating_point():
        data = [float("%.17g" % v) for v in t.reshape(-1).tolist()]
    else:
        data = [int(v) for v in t.reshape(-1).tolist()]
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "data": data}


goldens = {}
for case in all_cases():
    name, fn, _, grad = case
    inputs = prepared(case)
    outs = float_tensors(fn(*inputs))
    grads = []
    if grad:
        loss_of(outs).backward()
        grads = [enc(x.grad) for x in inputs if x.is_floating_point()]
    goldens[name] = {"outs": [enc(o) for o in outs], "grads": grads}
with open(os.path.join(HERE, "goldens.json"), "w") as f:
    f.write(json.dumps({"torch": torch.__version__, "cases": goldens}, separators=(",", ":")))
print(f"recorded {len(goldens)} cases")
