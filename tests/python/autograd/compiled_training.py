"""Compiled training (AOTAutograd): a train step's forward compiled with each backend gives
eager's losses and gradients; the inductor (dynasm) and aot_eager backends run one compiled
backward node per region, the eager backend records op by op as PyTorch's does; a graph break
inside the forward splits the backward too; a region under no_grad records nothing."""
import torch
import torch.nn as nn


def make(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Sigmoid(), nn.Linear(16, 3))


def loss_fn(model, x, y):
    out = model(x)
    return ((out - y) ** 2).mean() + out.abs().sum() * 1e-3


def loss_with_break(model, x, y):
    h = model[0](x).tanh()
    torch._dynamo.graph_break()
    out = model[4](model[3](model[2](h)))
    return ((out - y) ** 2).mean()


failures = []
for backend, expect_node in (("eager", "AddBackward0"), ("aot_eager", "CompiledFunctionBackward"),
                             ("inductor", "CompiledFunctionBackward")):
    for fn in (loss_fn, loss_with_break):
        torch._dynamo.reset()
        eager_m, comp_m = make(0), make(0)
        compiled = torch.compile(fn, backend=backend)
        torch.manual_seed(1)
        x, y = torch.randn(12, 6), torch.randn(12, 3)
        for step in range(20):
            le = fn(eager_m, x, y)
            lc = compiled(comp_m, x, y)
            if fn is loss_fn and step == 0 and lc.grad_fn.name() != expect_node:
                failures.append(f"{backend}: grad_fn {lc.grad_fn.name()}, expected {expect_node}")
            le.backward()
            lc.backward()
            if abs(le.item() - lc.item()) > 1e-5 * abs(le.item()):
                failures.append(f"{backend} {fn.__name__} step {step}: loss {lc.item()} vs {le.item()}")
            with torch.no_grad():
                for pe, pc in zip(eager_m.parameters(), comp_m.parameters()):
                    if not torch.allclose(pe.grad, pc.grad, rtol=1e-5, atol=1e-7):
                        failures.append(f"{backend} {fn.__name__} step {step}: gradient differs")
                        break
                    pe -= 0.05 * pe.grad
                    pc -= 0.05 * pc.grad
                    pe.grad = None
                    pc.grad = None
        for pe, pc in zip(eager_m.parameters(), comp_m.parameters()):
            if not torch.allclose(pe, pc, rtol=1e-5, atol=1e-6):
                failures.append(f"{backend} {fn.__name__}: final parameters differ")

# Under no_grad the compiled region records nothing (a separate, forward-only entry).
m = make(0)
f = torch.compile(loss_fn, backend="inductor")
with torch.no_grad():
    out = f(m, torch.randn(2, 6), torch.randn(2, 3))
if out.requires_grad:
    failures.append("no_grad region recorded history")
# Double backward through a compiled region is refused as PyTorch refuses it.
w = torch.tensor([1.0, 2.0], requires_grad=True)
g = torch.compile(lambda t: (t.sin() * t).sum(), backend="inductor")
(d,) = torch.autograd.grad(g(w), w, create_graph=True)
try:
    torch.autograd.grad(d.sum(), w)
    failures.append("double backward through a compiled region did not raise")
except RuntimeError as e:
    if "does not currently support double backward" not in str(e):
        failures.append(f"double backward error: {e}")

# backward() inside the compiled region is a graph break (GB0020, as PyTorch's GB0123); the
# forward before it is compiled for training, the gradients equal eager's.
def train_step(model, x, y):
    loss = loss_fn(model, x, y)
    loss.backward()
    return loss


torch._dynamo.reset()
m_e, m_s = make(4), make(4)
xs, ys = torch.randn(7, 6), torch.randn(7, 3)
explained = torch._dynamo.explain(train_step)(m_s, xs, ys)
reasons = [r.reason.splitlines()[0] for r in explained.break_reasons]
if reasons != ["Unsupported Tensor.backward() call"]:
    failures.append(f"backward() in the region: breaks {reasons}")
for p in m_s.parameters():
    p.grad = None
torch.compile(train_step, backend="inductor")(m_s, xs, ys)
train_step(m_e, xs, ys)
for pe, ps in zip(m_e.parameters(), m_s.parameters()):
    if not torch.allclose(pe.grad, ps.grad, rtol=1e-5, atol=1e-7):
        failures.append("train step with backward() inside: gradients differ")

# aot_autograd: user forward/backward compilers receive the partitioned FX graphs.
from torch._dynamo.backends.common import aot_autograd

calls = []


def fw_compiler(gm, example_inputs):
    calls.append(("fw", len(example_inputs)))
    return gm.forward


def bw_compiler(gm, example_inputs):
    calls.append(("bw", len(example_inputs)))
    return gm.forward


torch._dynamo.reset()
user_backend = aot_autograd(fw_compiler=fw_compiler, bw_compiler=bw_compiler)
m_e, m_u = make(3), make(3)
xu, yu = torch.randn(5, 6), torch.randn(5, 3)
lu = torch.compile(loss_fn, backend=user_backend)(m_u, xu, yu)
le = loss_fn(m_e, xu, yu)
lu.backward()
le.backward()
if [c[0] for c in calls] != ["fw", "bw"]:
    failures.append(f"aot_autograd compilers called {calls}")
for pe, pu in zip(m_e.parameters(), m_u.parameters()):
    if not torch.allclose(pe.grad, pu.grad, rtol=1e-5, atol=1e-7):
        failures.append("aot_autograd gradients differ from eager")

if failures:
    print("\n".join(failures))
    raise SystemExit(1)
print("compiled training matches eager on eager, aot_eager and inductor")
