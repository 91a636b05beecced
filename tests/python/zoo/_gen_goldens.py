"""Records `goldens.json` for `zoo_vs_pytorch.py` under real PyTorch: each model's eval-mode outputs,
its losses and parameters over `STEPS` SGD steps, GPT's greedy (`top_k=1`) generation, and the graphs
and breaks `torch._dynamo.explain` counts for the LLaMA-style forward. Run from
this directory in the scratch venv: `/tmp/pt/bin/python _gen_goldens.py`."""

import json
import os

import torch
import torch._dynamo
from _zoo import MODELS, GPT, init_params, outputs, tokens, train

HERE = os.path.dirname(os.path.abspath(__file__))


def enc(t):
    t = t.detach()
    if t.is_floating_point():
        data = [float("%.9g" % v) for v in t.reshape(-1).tolist()]
    else:
        data = [int(v) for v in t.reshape(-1).tolist()]
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "data": data}


goldens = {}
for name, make in MODELS.items():
    model, inputs, loss_fn = make()
    model.eval()
    with torch.no_grad():
        outs = outputs(model(*inputs()))
    model, inputs, loss_fn = make()
    losses, params = train(name, model, inputs, loss_fn, model)
    goldens[name] = {"outs": [enc(o) for o in outs], "losses": [float(x) for x in losses],
                     "params": [enc(p) for p in params]}
# Graphs and breaks of the LLaMA-style forward under torch.compile, as torch._dynamo.explain counts them.
model, inputs, _ = MODELS["llama"]()
explained = torch._dynamo.explain(model)(*inputs())
goldens["llama_explain"] = [explained.graph_count, explained.graph_break_count]
gpt = init_params(GPT()).eval()
goldens["gpt_greedy"] = enc(gpt.generate(tokens((2, 3), 20, 2), 7, top_k=1))
with open(os.path.join(HERE, "goldens.json"), "w") as f:
    f.write(json.dumps({"torch": torch.__version__, "cases": goldens}, separators=(",", ":")))
print(f"recorded {len(goldens)} cases")
