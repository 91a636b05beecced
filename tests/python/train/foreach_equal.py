"""The multi-tensor optimizer path (issue 25.1): `torch._fused_adam_`, `_fused_adamw_`,
`_fused_sgd_` and `_fused_adagrad_` update every parameter of a group in one call, and must be
bitwise equal to the single-tensor path (`foreach=False`). For every hyper-parameter combination
and every float dtype, the same parameters and gradients go through N steps on both paths, and
parameters and every state tensor must be `torch.equal`. The op must really run: it is counted
(one call per group per step, two for SGD's first step with momentum mixing fresh and existing
buffers). Parameters the op cannot take (a non-contiguous one) fall back to the single-tensor
path within the same step."""

import itertools
import warnings

import torch

warnings.filterwarnings("ignore", message="optimizer contains a parameter group with duplicate parameters")

STEPS = 3
SHAPES = [(37,), (16, 33), (5,), (301,)]
BIG = (70001,)  # spans three of the kernel's chunks (float32 runs only, to keep the test short)
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
failures = []
calls = {}


def counting(name):
    real = getattr(torch, name)

    def wrapper(*args, **kwargs):
        calls[name] = calls.get(name, 0) + 1
        return real(*args, **kwargs)

    return wrapper


for _name in ("_fused_adam_", "_fused_adamw_", "_fused_sgd_", "_fused_adagrad_"):
    setattr(torch, _name, counting(_name))


def make_params(dtype, transposed=False):
    g = torch.Generator().manual_seed(1234)
    shapes = SHAPES + [BIG] if dtype == torch.float32 else SHAPES
    ps = [torch.randn(s, generator=g).to(dtype) for s in shapes]
    if transposed:
        # A non-contiguous parameter: the op refuses it, the single-tensor path takes it.
        ps.append(torch.randn(7, 9, generator=g).to(dtype).t())
    return [p.requires_grad_(True) for p in ps]


def grads_for(params, step, dtype):
    g = torch.Generator().manual_seed(99 + step)
    out = []
    for k, p in enumerate(params):
        if step == 1 and k == 2:
            out.append(None)  # a parameter without a gradient this step is skipped
            continue
        out.append(torch.randn(p.shape, generator=g).to(dtype).mul(0.5 + k))
    return out


def run(cls, kwargs, dtype, transposed=False, grouped=False):
    params = make_params(dtype, transposed)
    if grouped:
        groups = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs.get("lr", 0.01) * 0.5}]
        opt = cls(groups, **kwargs)
    else:
        opt = cls(params, **kwargs)
    for s in range(STEPS):
        for p, g in zip(params, grads_for(params, s, dtype)):
            p.grad = None if g is None else g.clone()
        opt.step()
    return params, opt


BITS = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
        torch.bfloat16: torch.int16}


def same(a, b):
    """Bitwise equality (NaNs at the same places, signed zeros alike)."""
    if isinstance(a, torch.Tensor):
        if not (isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape):
            return False
        a, b = a.detach().contiguous(), b.detach().contiguous()
        if a.dtype in BITS:
            return torch.equal(a.view(BITS[a.dtype]), b.view(BITS[b.dtype]))
        return torch.equal(a, b)
    return a == b


def compare(label, cls, kwargs, dtype, mode, transposed=False, grouped=False, expect_calls=None):
    want_p, want_opt = run(cls, dict(kwargs, foreach=False), dtype, transposed, grouped)
    calls.clear()
    got_p, got_opt = run(cls, dict(kwargs, **mode), dtype, transposed, grouped)
    n = sum(calls.values())
    if expect_calls is not None and n != expect_calls:
        failures.append(f"{label}: the multi-tensor op ran {n} times, expected {expect_calls}")
    for i, (g, w) in enumerate(zip(got_p, want_p)):
        if not same(g, w):
            d = float((g.detach().double() - w.detach().double()).abs().max())
            failures.append(f"{label}: parameter {i} differs (max abs {d:.3e})")
            return
        gs, ws = got_opt.state[g], want_opt.state[w]
        if sorted(gs) != sorted(ws):
            failures.append(f"{label}: parameter {i} state keys {sorted(gs)} vs {sorted(ws)}")
            return
        for k in ws:
            if not same(gs[k], ws[k]):
                failures.append(f"{label}: state {k!r} of parameter {i} differs: {gs[k]} vs {ws[k]}")
                return


MODES = [("foreach", dict(foreach=True)), ("fused", dict(fused=True)), ("default", {})]
count = 0

# Adam and AdamW: amsgrad x weight decay x maximize x dtype x mode.
for cls, amsgrad, wd, maximize in itertools.product((torch.optim.Adam, torch.optim.AdamW), (False, True),
                                                     (0.0, 0.1), (False, True)):
    kwargs = dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=wd, amsgrad=amsgrad, maximize=maximize)
    for dtype in DTYPES:
        for mname, mode in MODES:
            label = f"{cls.__name__}(amsgrad={amsgrad}, wd={wd}, maximize={maximize}) {dtype} {mname}"
            compare(label, cls, kwargs, dtype, mode, expect_calls=STEPS)
            count += 1
# Adam with decoupled_weight_decay=True is AdamW's op.
compare("Adam(decoupled_weight_decay)", torch.optim.Adam, dict(lr=0.02, weight_decay=0.05,
        decoupled_weight_decay=True), torch.float32, dict(fused=True), expect_calls=STEPS)

# SGD: momentum x dampening x nesterov x weight decay x maximize.
for momentum, dampening, nesterov, wd, maximize in itertools.product((0.0, 0.9), (0.0, 0.1), (False, True),
                                                                       (0.0, 0.01), (False, True)):
    if nesterov and (momentum == 0 or dampening != 0):
        continue
    kwargs = dict(lr=0.05, momentum=momentum, dampening=dampening, nesterov=nesterov, weight_decay=wd,
                  maximize=maximize)
    # Step 1 leaves parameter 2 without a gradient; with momentum, step 0 creates every buffer
    # (one call) and later steps find them (one call): one call per step either way.
    for dtype in DTYPES:
        for mname, mode in MODES:
            label = f"SGD({kwargs}) {dtype} {mname}"
            compare(label, torch.optim.SGD, kwargs, dtype, mode, expect_calls=STEPS)
            count += 1

# Adagrad: lr decay x weight decay x maximize x initial accumulator.
for lr_decay, wd, maximize, init in itertools.product((0.0, 0.01), (0.0, 0.1), (False, True), (0.0, 0.1)):
    kwargs = dict(lr=0.05, lr_decay=lr_decay, weight_decay=wd, maximize=maximize,
                  initial_accumulator_value=init)
    for dtype in DTYPES:
        for mname, mode in MODES:
            compare(f"Adagrad({kwargs}) {dtype} {mname}", torch.optim.Adagrad, kwargs, dtype, mode,
                    expect_calls=STEPS)
            count += 1

# Two groups: one call per group per step. A non-contiguous parameter falls back per parameter.
compare("Adam grouped", torch.optim.Adam, dict(lr=0.01, amsgrad=True), torch.float32, dict(fused=True),
        grouped=True, expect_calls=2 * STEPS)
compare("SGD grouped", torch.optim.SGD, dict(lr=0.01, momentum=0.9), torch.float32, dict(foreach=True),
        grouped=True, expect_calls=2 * STEPS)
compare("Adam transposed", torch.optim.AdamW, dict(lr=0.01), torch.float32, dict(fused=True),
        transposed=True, expect_calls=STEPS)
compare("Adagrad transposed", torch.optim.Adagrad, dict(lr=0.01), torch.float32, {}, transposed=True,
        expect_calls=STEPS)

# A parameter listed twice in a group (PyTorch warns) is updated twice, in order: the group takes
# the single-tensor path, and the op itself refuses lists sharing memory.
for cls, kw in ((torch.optim.Adam, dict(lr=0.01)), (torch.optim.SGD, dict(lr=0.1, momentum=0.9))):
    outs = []
    for mode in (dict(foreach=False), dict(fused=True)):
        p = torch.linspace(-1, 1, 6).requires_grad_(True)
        o = cls([p, p], **kw, **mode)
        for s in range(3):
            p.grad = torch.linspace(0.5, -0.25, 6) * (s + 1)
            o.step()
        outs.append(p.detach().clone())
    if not torch.equal(outs[0], outs[1]):
        failures.append(f"{cls.__name__} with a duplicated parameter: {outs[1]} vs {outs[0]}")
p, g, st = torch.ones(3), torch.ones(3), torch.tensor(1.0)
try:
    torch._fused_adagrad_([p, p], [g, g.clone()], [torch.zeros(3), torch.zeros(3)], [st, st.clone()], lr=0.1,
                          lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False)
    failures.append("_fused_adagrad_ with a parameter listed twice: no error")
except RuntimeError as e:
    if "share memory" not in str(e):
        failures.append(f"_fused_adagrad_ with a parameter listed twice: {e}")

# A fresh parameter joining a momentum SGD group after the first step: its buffer is created in a
# second `is_first_step` call of that step.
params = make_params(torch.float32)
ref = [p.detach().clone().requires_grad_(True) for p in params]
opts = [torch.optim.SGD(params[:2], lr=0.1, momentum=0.9, foreach=True),
        torch.optim.SGD(ref[:2], lr=0.1, momentum=0.9, foreach=False)]
calls.clear()
for s in range(3):
    if s == 1:
        opts[0].add_param_group({"params": params[2:]})
        opts[1].add_param_group({"params": ref[2:]})
    for ps in (params, ref):
        for p, g in zip(ps, grads_for(ps, 0, torch.float32)):
            p.grad = g.clone()
    for o in opts:
        o.step()
if calls.get("_fused_sgd_") != 1 + 2 + 2:
    failures.append(f"SGD param group added later: {calls} (expected 5 `_fused_sgd_` calls)")
if not all(torch.equal(a, b) for a, b in zip(params, ref)):
    failures.append("SGD param group added later: parameters differ from foreach=False")

# The op itself: returns None, checks its lists, leaves version counters bumped.
p, g = torch.ones(3), torch.full((3,), 0.5)
m, v, st = torch.zeros(3), torch.zeros(3), torch.tensor(1.0)
v0 = p._version
r = torch._fused_adam_([p], [g], [m], [v], [], [st], lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0,
                       eps=1e-8, amsgrad=False, maximize=False)
if r is not None or p._version == v0 or torch.equal(p, torch.ones(3)):
    failures.append(f"_fused_adam_: returned {r!r}, version {v0} -> {p._version}, p {p}")
for bad, args in [("lengths", ([p], [g], [m, m], [v], [], [st])),
                  ("shape", ([p], [torch.ones(4)], [m], [v], [], [st])),
                  ("dtype", ([p], [g.double()], [m], [v], [], [st])),
                  ("non-float", ([torch.ones(3, dtype=torch.int64)], [g], [m], [v], [], [st])),
                  ("amsgrad without max_exp_avg_sqs", ([p], [g], [m], [v], [], [st]))]:
    before = p.clone()
    try:
        torch._fused_adam_(*args, lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                           amsgrad=bad.startswith("amsgrad"), maximize=False)
        failures.append(f"_fused_adam_ with a bad {bad}: no error")
    except RuntimeError as e:
        if "_fused_adam_" not in str(e):
            failures.append(f"_fused_adam_ with a bad {bad}: unclear error {e}")
    if not torch.equal(p, before):
        failures.append(f"_fused_adam_ with a bad {bad}: wrote the parameter before failing")

# found_inf = 1 skips the update; grad_scale unscales the gradients (written back unscaled).
p, g, buf = torch.ones(3), torch.full((3,), 4.0), torch.zeros(3)
torch._fused_sgd_([p], [g], [buf], weight_decay=0.0, momentum=0.0, lr=0.5, dampening=0.0, nesterov=False,
                  maximize=False, is_first_step=False, found_inf=torch.tensor(1.0))
if not torch.equal(p, torch.ones(3)):
    failures.append(f"_fused_sgd_ with found_inf=1 updated the parameter: {p}")
torch._fused_sgd_([p], [g], [], weight_decay=0.0, momentum=0.0, lr=0.5, dampening=0.0, nesterov=False,
                  maximize=False, is_first_step=False, grad_scale=torch.tensor(2.0))
if not (torch.equal(g, torch.full((3,), 2.0)) and torch.equal(p, torch.zeros(3))):
    failures.append(f"_fused_sgd_ with grad_scale=2: grad {g}, param {p}")

# fused=True with foreach=True or differentiable=True: PyTorch's errors at construction.
for kw, msg in [(dict(fused=True, foreach=True), "`fused` and `foreach` cannot be `True` together."),
                (dict(fused=True, differentiable=True), "`fused` does not support `differentiable`")]:
    try:
        torch.optim.Adam([torch.ones(2, requires_grad=True)], **kw)
        failures.append(f"Adam({kw}): no error")
    except RuntimeError as e:
        if str(e) != msg:
            failures.append(f"Adam({kw}): {e}")

# Called directly inside a compiled function, the op is a graph break (it writes its list
# arguments, which Dynamo's trackers cannot follow) and the result is eager's.
torch._dynamo.reset()


def direct(ps, gs):
    torch._fused_sgd_(ps, gs, [], weight_decay=0.0, momentum=0.0, lr=0.25, dampening=0.0, nesterov=False,
                      maximize=False, is_first_step=False)
    return ps[0] * 2


pc, pe = [torch.ones(4)], [torch.ones(4)]
ge = [torch.arange(4.0)]
out_c = torch.compile(direct, backend="eager")(pc, ge)
out_e = direct(pe, ge)
if not (torch.equal(out_c, out_e) and torch.equal(pc[0], pe[0])):
    failures.append(f"compiled direct call: {out_c} vs {out_e}, {pc} vs {pe}")
expl = torch._dynamo.explain(direct)([torch.ones(4)], ge)
if not any("writes into its tensor-list arguments" in r.reason for r in expl.break_reasons):
    failures.append(f"compiled direct call: expected a graph break, got {expl.break_reasons}")

if failures:
    for f in failures:
        print("FAIL", f)
    raise SystemExit(f"{len(failures)} failures")
print(f"ok: {count} optimizer configurations bitwise equal to foreach=False (+ grouped, fallback, op checks)")
