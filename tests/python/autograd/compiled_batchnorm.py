"""Compiled training of a CNN with BatchNorm (training mode): the forward updates running
statistics and `num_batches_tracked.add_(1)` (an in-place counter update the joint graph keeps in
its forward), and the backward is compiled too (one CompiledFunctionBackward node). Losses,
parameters and buffers after 5 SGD steps equal eager's on the inductor and aot_eager backends, and
on a Python `aot_autograd` backend whose compilers run the FX GraphModules they are given (their
backward graph calls the convolution/pooling backward ops)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.backends.common import aot_autograd


def make():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


x, y = torch.randn(6, 3, 8, 8), torch.randint(0, 4, (6,))


def run(backend):
    model, opt = make()
    fwd = model if backend is None else torch.compile(model, backend=backend)
    losses = []
    for _ in range(5):
        loss = F.cross_entropy(fwd(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses, model.state_dict()


def rel(a, b):
    return float((a.double() - b.double()).abs().max() / (b.double().abs().max() + 1e-12))


want_losses, want_state = run(None)
compiled_graphs = []


def fx_compiler(kind):
    def compile_graph(gm, example_inputs):
        compiled_graphs.append((kind, [str(n.target) for n in gm.graph.nodes]))
        return gm.forward

    return compile_graph


python_aot = aot_autograd(fw_compiler=fx_compiler("forward"), bw_compiler=fx_compiler("backward"))
failures = []
for backend in ["inductor", "aot_eager", python_aot]:
    torch._dynamo.reset()
    losses, state = run(backend)
    name = backend if isinstance(backend, str) else "aot_autograd(Python compilers)"
    node = torch.compile(make()[0], backend=backend)(x).grad_fn.name()
    if node != "CompiledFunctionBackward":
        failures.append(f"{name}: the model's output has grad_fn {node}, not a compiled backward")
    if max(abs(a - b) / abs(b) for a, b in zip(losses, want_losses)) > 1e-5:
        failures.append(f"{name}: losses {losses} vs {want_losses}")
    for k, v in want_state.items():
        if v.dtype == torch.int64:
            if not torch.equal(state[k], v):
                failures.append(f"{name}: {k} {state[k]} vs {v}")
        elif rel(state[k], v) > 1e-5:
            failures.append(f"{name}: {k} differs by {rel(state[k], v):.2e}")
kinds = [k for k, _ in compiled_graphs]
if "backward" not in kinds:
    failures.append(f"the Python bw_compiler was never called ({kinds})")
elif not any("backward" in t for k, ts in compiled_graphs if k == "backward" for t in ts):
    failures.append("the Python backward graph calls no backward op")
if failures:
    raise SystemExit("FAIL\n" + "\n".join(failures))
print("ok: num_batches_tracked", int(want_state["1.num_batches_tracked"]))
