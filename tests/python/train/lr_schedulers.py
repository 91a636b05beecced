"""Every scheduler against 10 epochs recorded from real PyTorch (`_optim_goldens.py`): the last
rates, every param group's hyper-parameters (lr, initial_lr, momentum or betas cycled by the
cyclic schedules), the `state_dict` keys, and a `state_dict` round trip that resumes the schedule
where it stopped."""

import math
import warnings

import torch
from _optim_cases import PLATEAU_METRICS, STEPS, scheduler_optimizer, schedulers
from _optim_goldens import GOLDENS

S = torch.optim.lr_scheduler
failures = []


def close(a, b):
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        # Python float arithmetic; math.cos may differ in the last bit between libms.
        return isinstance(b, (int, float)) and abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def groups(opt):
    return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]


def check_rows(name, got_rows, want_rows):
    for epoch, (got, want) in enumerate(zip(got_rows, want_rows)):
        if not close(got["last_lr"], want["last_lr"]):
            failures.append(f"{name} epoch {epoch}: last_lr {got['last_lr']} != {want['last_lr']}")
        for i, (g, w) in enumerate(zip(got["groups"], want["groups"])):
            if list(g) != list(w) or not all(close(g[k], w[k]) for k in w):
                failures.append(f"{name} epoch {epoch} group {i}: {g} != {w}")


builders = schedulers() + [("plateau", None)]
for name, build in builders:
    want = GOLDENS["sched"][name]

    def make(opt, build=build):
        if build is None:
            return S.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1)
        return build(opt)

    def advance(opt, sched, epoch, build=build):
        opt.step()
        if build is None:
            sched.step(PLATEAU_METRICS[epoch])
        else:
            sched.step()

    opt = scheduler_optimizer(name)
    sched = make(opt)
    rows = [{"last_lr": sched.get_last_lr(), "groups": groups(opt)}]
    for epoch in range(STEPS):
        advance(opt, sched, epoch)
        rows.append({"last_lr": sched.get_last_lr(), "groups": groups(opt)})
    check_rows(name, rows, want["rows"])
    sd = sched.state_dict()
    keys = sorted(k for k in sd if not k.startswith("_scale_fn"))
    if keys != want["state_keys"] or sd.get("last_epoch") != want["last_epoch"]:
        failures.append(f"{name}: state_dict keys {keys} != {want['state_keys']}")

    # Resume: stop after 4 epochs, save both state_dicts, rebuild and continue.
    opt = scheduler_optimizer(name)
    sched = make(opt)
    for epoch in range(4):
        advance(opt, sched, epoch)
    opt_sd, sched_sd = opt.state_dict(), sched.state_dict()
    opt2 = scheduler_optimizer(name)
    sched2 = make(opt2)
    opt2.load_state_dict(opt_sd)
    sched2.load_state_dict(sched_sd)
    rows = [None] * 5
    for epoch in range(4, STEPS):
        advance(opt2, sched2, epoch)
        rows.append({"last_lr": sched2.get_last_lr(), "groups": groups(opt2)})
    check_rows(name + " (resumed)", rows[5:], want["rows"][5:])

# The warnings PyTorch gives.
p = torch.zeros(2)
opt = torch.optim.SGD([p], lr=0.1)
sched = S.StepLR(opt, 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sched.step()
    sched.get_lr()
messages = [str(w.message) for w in caught]
if not any(m.startswith("Detected call of `lr_scheduler.step()` before `optimizer.step()`") for m in messages):
    failures.append(f"no step-order warning: {messages}")
if not any(m.startswith("To get the last learning rate computed by the scheduler") for m in messages):
    failures.append(f"no get_lr warning: {messages}")

# Errors PyTorch raises.
for fn, exc, text in [
    (lambda: S.StepLR(torch.optim.SGD([torch.zeros(1)], lr=0.1), 2, last_epoch=3), KeyError,
     "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0."),
    (lambda: S.ConstantLR(opt, factor=2.0), ValueError, "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda: S.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda: S.ReduceLROnPlateau(opt, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda: S.OneCycleLR(opt, max_lr=1.0), ValueError, "You must define either total_steps OR (epochs AND steps_per_epoch)"),
    (lambda: S.SequentialLR(opt, [S.StepLR(opt, 2)], milestones=[1]), ValueError, "Sequential Schedulers expects"),
]:
    try:
        fn()
        failures.append(f"no {exc.__name__} for {text}")
    except exc as e:
        msg = e.args[0] if e.args else ""
        if not msg.startswith(text):
            failures.append(f"{exc.__name__} message {msg!r} does not start with {text!r}")

if failures:
    print("\n".join(failures[:30]))
    raise SystemExit(f"{len(failures)} mismatches")
print(f"{len(builders)} schedulers match PyTorch over {STEPS} epochs, resumed from state_dict too")
