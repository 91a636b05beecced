"""Records `goldens.json` for `layers_vs_pytorch.py` from real PyTorch: every case's outputs,
gradients (inputs, then parameters) of a fixed weighting of the outputs, and floating buffers
after the forward. Run in the scratch venv from this directory: `/tmp/pt/bin/python _gen_goldens.py`."""

import json
import os

import torch
from _cases import all_cases, buffers_of, build, grads_of, loss_of, outputs_of

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
    module, inputs = build(case)
    result = module(*inputs)
    outs = outputs_of(result)
    loss = loss_of(outs)
    if loss is not None:
        loss.backward()
    goldens[case[0]] = {
        "outs": [enc(t) for t in outs],
        "grads": [enc(g) for g in grads_of(module, inputs)],
        "buffers": [enc(b) for b in buffers_of(module)],
    }
with open(os.path.join(HERE, "goldens.json"), "w") as f:
    f.write(json.dumps({"torch": torch.__version__, "cases": goldens}, separators=(",", ":")))
print(f"recorded {len(goldens)} cases")
