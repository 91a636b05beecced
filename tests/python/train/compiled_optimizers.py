"""`optimizer.step()` under torch.compile (issue 26.5): Dynamo traces the whole step of every
optimizer (state created by `_init_group` at trace time, `state[p]` read through the real dict,
the step counter kept as a tensor), with no graph break, on the `eager`, `aot_eager` and
`inductor` backends. Each compiled trajectory (10 steps, the gradients of `_optim_cases`) must
match eager Rynamo's within 1e-5 relative: the traced bias corrections are float32 tensor math
where eager uses Python floats, as in PyTorch. Compile counts are pinned: one graph, or two for
optimizers that create state inside the step (SGD's momentum buffer on the first step, as in
PyTorch 2.15, whose `len(self.state[...]) != 0` guard also recompiles once)."""

import torch
from _optim_cases import OPTIMIZERS, STEPS, initial_params, make_optimizer, set_grads
from torch._dynamo.testing import CompileCounterWithBackend

RTOL = 1e-5
BACKENDS = ["eager", "aot_eager", "inductor"]
# Cases whose first step creates state inside `step` (not in `_init_group`): one recompile.
TWO_GRAPHS = {"sgd_momentum", "sgd_nesterov", "sgd_maximize"}
# Adafactor reads `step_t.item()` and `norm().item()` in its loop: PyTorch 2.15 compiles no graph
# (the loop's frame runs eagerly after the break), and neither does Rynamo.
NO_GRAPHS = {"adafactor", "adafactor_wd_max"}
failures = []


def trajectory(cls_name, kwargs, grouped, backend=None):
    params = [p.clone().requires_grad_(True) for p in initial_params()]
    opt = make_optimizer(cls_name, params, kwargs, grouped)

    def step():
        opt.step()

    counter = None
    if backend is not None:
        counter = CompileCounterWithBackend(backend)
        step = torch.compile(step, backend=counter)
    out = []
    for s in range(STEPS):
        set_grads(params, s)
        step()
        out.append([p.detach().clone() for p in params])
    return out, counter


def rel_err(got, want):
    scale = float(want.abs().max())
    diff = float((got - want).abs().max())
    return diff / scale if scale > 0 else diff


worst = 0.0
for name, cls_name, kwargs, grouped in OPTIMIZERS:
    want, _ = trajectory(cls_name, kwargs, grouped)
    for backend in BACKENDS:
        torch._dynamo.reset()
        got, counter = trajectory(cls_name, kwargs, grouped, backend)
        for s, (g_step, w_step) in enumerate(zip(got, want)):
            err = max(rel_err(g, w) for g, w in zip(g_step, w_step))
            worst = max(worst, err)
            if not err <= RTOL:
                failures.append(f"{name}/{backend}: step {s} differs from eager by {err:.2e} relative")
                break
        graphs = 2 if name in TWO_GRAPHS else 0 if name in NO_GRAPHS else 1
        if counter.frame_count != graphs:
            failures.append(f"{name}/{backend}: {counter.frame_count} graphs compiled, expected {graphs}")

# foreach=True / fused=True: eager runs the multi-tensor ops (`torch._fused_*_`); a traced step runs
# the single-tensor ops (the backend fuses them). Compiled must still match eager, with the same
# compile counts.
MULTI_TENSOR = ["sgd_momentum", "sgd_nesterov", "adam_amsgrad_wd", "adam_groups", "adamw_amsgrad_max",
                "adagrad_decay"]
for name, cls_name, kwargs, grouped in OPTIMIZERS:
    if name not in MULTI_TENSOR:
        continue
    for mode in (dict(foreach=True), dict(fused=True)):
        mkwargs = dict(kwargs, **mode)
        want, _ = trajectory(cls_name, mkwargs, grouped)
        for backend in BACKENDS:
            torch._dynamo.reset()
            got, counter = trajectory(cls_name, mkwargs, grouped, backend)
            for s, (g_step, w_step) in enumerate(zip(got, want)):
                err = max(rel_err(g, w) for g, w in zip(g_step, w_step))
                worst = max(worst, err)
                if not err <= RTOL:
                    failures.append(f"{name} {mode}/{backend}: step {s} differs from eager by {err:.2e}")
                    break
            graphs = 2 if name in TWO_GRAPHS else 1
            if counter.frame_count != graphs:
                failures.append(f"{name} {mode}/{backend}: {counter.frame_count} graphs, expected {graphs}")

# No graph break anywhere in a step once the state exists (explain runs the step once more).
for name, cls_name, kwargs, grouped in OPTIMIZERS:
    if name in NO_GRAPHS:
        continue
    torch._dynamo.reset()
    params = [p.clone().requires_grad_(True) for p in initial_params()]
    opt = make_optimizer(cls_name, params, kwargs, grouped)
    set_grads(params, 0)
    opt.step()
    set_grads(params, 1)
    explanation = torch._dynamo.explain(lambda: opt.step())()
    if explanation.graph_break_count != 0 or explanation.graph_count != 1:
        failures.append(f"{name}: explain found {explanation.graph_count} graphs and "
                        f"{explanation.graph_break_count} breaks: {explanation.break_reasons}")

# A whole train step in one compiled function: forward and loss, backward() (a graph break, as
# PyTorch's default), step() and zero_grad() (`p.grad = None` replayed on the real parameters)
# traced in the resumed graph. Losses and parameters as eager's.
def make_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


x, y = torch.randn(16, 8), torch.randn(16, 4)


def train_step(model, opt):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss


model, opt = make_model()
eager_losses = [train_step(model, opt).item() for _ in range(8)]
for backend in BACKENDS:
    torch._dynamo.reset()
    model_c, opt_c = make_model()
    counter = CompileCounterWithBackend(backend)
    step_c = torch.compile(train_step, backend=counter)
    losses = [step_c(model_c, opt_c).item() for _ in range(8)]
    err = max(abs(a - b) / abs(b) for a, b in zip(losses, eager_losses))
    perr = max(rel_err(a.detach(), b.detach()) for a, b in zip(model_c.parameters(), model.parameters()))
    if not (err <= RTOL and perr <= RTOL):
        failures.append(f"train step/{backend}: losses differ by {err:.2e}, parameters by {perr:.2e}")
    if counter.frame_count != 2 or any(p.grad is not None for p in model_c.parameters()):
        failures.append(f"train step/{backend}: {counter.frame_count} graphs (expected 2: before and "
                        f"after backward), grads after zero_grad: {[p.grad for p in model_c.parameters()]}")
torch._dynamo.reset()
model_c, opt_c = make_model()
explanation = torch._dynamo.explain(train_step)(model_c, opt_c)
if explanation.graph_break_count != 1:
    failures.append(f"train step: {explanation.graph_break_count} breaks, expected 1 (backward): "
                    f"{explanation.break_reasons}")

# `p.grad` is one object while it is the same gradient (Dynamo's aliasing guards rely on it).
p = torch.nn.Parameter(torch.ones(3))
(p * 2).sum().backward()
g = p.grad
if not (g is p.grad and p.grad is p.grad):
    failures.append("p.grad is not p.grad")
q = torch.zeros(3)
p.grad = q
if p.grad is not q:
    failures.append("p.grad = q; p.grad is not q")

print(f"{len(OPTIMIZERS)} optimizer configurations (+{len(MULTI_TENSOR)} with foreach=True and fused=True) x "
      f"{len(BACKENDS)} backends, worst relative "
      f"difference {worst:.1e}")
if failures:
    raise SystemExit("FAIL\n" + "\n".join(failures))
print("ok")
