"""Records `special_goldens.json` for `special_vs_pytorch.py` from real PyTorch: each case's
outputs, the gradients of its float inputs for cases with `grad`, and each error case's exception
type and message. Run in the scratch venv from this directory:
`/tmp/pt/bin/python _gen_special_goldens.py`."""

import json
import os

import torch
from _special_cases import all_cases, error_cases, float_tensors, loss_of, prepared

HERE = os.path.dirname(os.path.abspath(__file__))


def num(v):
    # JSON has no inf/nan: strings for those.
    return v if v == v and v not in (float("inf"), float("-inf")) else repr(v)


def enc(t):
    t = t.detach()
    if t.dtype == torch.float32:
        data = [num(float("%.9g" % v)) for v in t.reshape(-1).tolist()]
    elif t.is_floating_point():
        data = [num(float("%.17g" % v)) for v in t.reshape(-1).tolist()]
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
errors = {}
for name, fn in error_cases():
    try:
        fn()
        errors[name] = None
    except Exception as e:
        errors[name] = [type(e).__name__, str(e)]
with open(os.path.join(HERE, "special_goldens.json"), "w") as f:
    f.write(json.dumps({"torch": torch.__version__, "cases": goldens, "errors": errors},
                       separators=(",", ":")))
print(f"recorded {len(goldens)} cases, {len(errors)} errors")
