"""The model zoo (`_zoo.py`: LSTM language model, U-Net with transposed convolutions, style-transfer
network, GPT with `generate()`, LLaMA-style model with complex rotary embeddings) against PyTorch 2.15's goldens (`goldens.json`, from `_gen_goldens.py`):
eval-mode outputs, then 3 SGD steps of training (losses and final parameters), each eagerly and with
`torch.compile` on the `eager` and `inductor` (dynasm) backends. GPT's `generate()` samples with
`torch.multinomial`: greedy (`top_k=1`) generation equals PyTorch's tokens, and full sampling under
`torch.manual_seed` draws the same tokens eagerly and compiled (Rynamo's RNG stream is its own, so
sampled tokens are not compared with PyTorch's). The LLaMA-style forward compiles to as many graphs,
with as many breaks, as under PyTorch (`torch._dynamo.explain`).

Outputs and losses agree within 1e-4 absolute plus 1e-4 relative, parameters after training within
1e-4 plus 1e-3 relative (float32 sums in a different order through backward and 3 momentum steps)."""

import json
import os
import sys

import torch
import torch._dynamo
from _zoo import GPT, MODELS, init_params, outputs, tokens, train

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens.json")) as f:
    GOLDENS = json.load(f)["cases"]

failures = []


def dec(entry):
    return torch.tensor(entry["data"], dtype=getattr(torch, entry["dtype"])).reshape(entry["shape"])


def close(name, got, want, atol=1e-4, rtol=1e-4):
    got = got.detach()
    if list(got.shape) != list(want.shape) or got.dtype != want.dtype:
        failures.append(f"{name}: {got.dtype}{list(got.shape)} != PyTorch's {want.dtype}{list(want.shape)}")
        return
    if not want.is_floating_point():
        if not bool((got == want).all()):
            failures.append(f"{name}: {got.tolist()} != PyTorch's {want.tolist()}")
        return
    g, w = got.double(), want.double()
    bad = (g - w).abs() > atol + rtol * w.abs()
    if bool(bad.any()):
        err = float(((g - w).abs() / (atol + rtol * w.abs())).max())
        failures.append(f"{name}: differs from PyTorch (worst error {err:.1f}x the tolerance)")


def compiled(model, backend):
    return model if backend == "none" else torch.compile(model, backend=backend)


runs = 0
for name, make in MODELS.items():
    gold = GOLDENS[name]
    for backend in ("none", "eager", "inductor"):
        tag = f"{name}[{backend}]"
        torch._dynamo.reset()
        try:
            model, inputs, loss_fn = make()
            model.eval()
            with torch.no_grad():
                outs = outputs(compiled(model, backend)(*inputs()))
            for k, (o, e) in enumerate(zip(outs, gold["outs"])):
                close(f"{tag} output {k}", o, dec(e))
            if len(outs) != len(gold["outs"]):
                failures.append(f"{tag}: {len(outs)} outputs, PyTorch has {len(gold['outs'])}")
            torch._dynamo.reset()
            model, inputs, loss_fn = make()
            losses, params = train(name, model, inputs, loss_fn, compiled(model, backend))
            close(f"{tag} losses", torch.stack(losses), torch.tensor(gold["losses"]))
            for k, (p, e) in enumerate(zip(params, gold["params"])):
                close(f"{tag} trained parameter {k}", p, dec(e), rtol=1e-3)
        except Exception as e:  # a crash fails this model/backend only
            failures.append(f"{tag}: raised {type(e).__name__}: {e}")
        runs += 1

torch._dynamo.reset()
model, inputs, _ = MODELS["llama"]()
explained = torch._dynamo.explain(model)(*inputs())
counts = [explained.graph_count, explained.graph_break_count]
if counts != GOLDENS["llama_explain"]:
    failures.append(f"llama explain: graphs, breaks {counts} != PyTorch's {GOLDENS['llama_explain']}")
runs += 1

prompt = tokens((2, 3), 20, 2)
for backend in ("none", "eager", "inductor"):
    torch._dynamo.reset()
    gpt = init_params(GPT()).eval()
    step = compiled(gpt, backend)
    greedy = gpt.generate(prompt, 7, top_k=1, step=step)
    close(f"gpt greedy generate[{backend}]", greedy, dec(GOLDENS["gpt_greedy"]))
    torch.manual_seed(1234)
    sampled = gpt.generate(prompt, 7, temperature=0.8, step=step)
    if backend == "none":
        reference = sampled
        seen = sampled[:, 3:].reshape(-1).tolist()
        # Sampling, not argmax: tokens other than the greedy ones are drawn at temperature 0.8.
        if sampled.equal(greedy) or len(set(seen)) < 3:
            failures.append(f"gpt sampled generate: {sampled.tolist()} looks deterministic")
    elif not sampled.equal(reference):
        failures.append(f"gpt sampled generate[{backend}]: {sampled.tolist()} != eager's {reference.tolist()}")
    runs += 1
torch._dynamo.reset()

for line in failures:
    print("FAIL", line)
print(f"{runs} runs, {len(failures)} failures")
sys.exit(1 if failures else 0)
