"""`torch.amp.GradScaler` on the CPU and `torch.autocast`'s disabled form: scaled losses and
gradients, unscaling, skipped steps on inf/NaN gradients, backoff and growth of the scale over a
training run, the state dict, the disabled scaler (the default `device="cuda"` on a CPU-only build
warns and disables itself) and every misuse error. Stdout equals `grad_scaler.out`, recorded under
PyTorch 2.15."""

import warnings

import torch


def show(label, fn):
    try:
        r = fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {e}")
    else:
        print(f"{label}: {r}")


def fmt(t):
    return [round(v, 4) for v in t.detach().reshape(-1).tolist()]  # float32 sums may differ in the last bit


p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
opt = torch.optim.SGD([p], lr=0.1, momentum=0.5)
s = torch.amp.GradScaler("cpu", init_scale=8.0, growth_factor=2.0, backoff_factor=0.25, growth_interval=2)
print("fresh:", s.get_scale(), s.is_enabled(), s.state_dict())
# A run where steps 2 and 5 see an overflowing gradient: those steps are skipped, the scale backs off,
# two clean steps in a row grow it.
for step in range(7):
    opt.zero_grad()
    loss = (p * p * torch.tensor([1.0, 2.0, 3.0])).sum()
    scaled = s.scale(loss)
    scaled.backward()
    if step in (2, 5):
        with torch.no_grad():
            p.grad[1] = float("inf") if step == 2 else float("nan")
    grad_scaled = fmt(p.grad)
    result = s.step(opt)
    s.update()
    print(f"step {step}: loss {round(loss.item(), 6)} scaled {round(scaled.item(), 4)} grad {grad_scaled} "
          f"-> params {fmt(p)} step returned {result} scale {s.get_scale()} tracker {s.state_dict()['_growth_tracker']}")

opt.zero_grad()
s.scale((p * 3).sum()).backward()
s.unscale_(opt)
print("unscaled grad:", fmt(p.grad))
show("unscale twice", lambda: s.unscale_(opt))
s.step(opt)
show("step twice", lambda: s.step(opt))
show("unscale after step", lambda: s.unscale_(opt))
s.update()
show("closure", lambda: s.step(opt, closure=lambda: 0))
show("scale list", lambda: [fmt(x) if isinstance(x, torch.Tensor) else [fmt(y) for y in x]
                            for x in s.scale([torch.ones(1), (torch.ones(2), torch.ones(1) * 3)])])
show("scale int", lambda: s.scale(3))
show("scale dtype", lambda: s.scale(torch.ones(2, dtype=torch.float64)).dtype)
fresh = torch.amp.GradScaler("cpu")
show("unscale before scale", lambda: fresh.unscale_(opt))
show("step before scale", lambda: fresh.step(opt))
show("update before scale", lambda: fresh.update())
show("growth factor", lambda: torch.amp.GradScaler("cpu", growth_factor=1.0))
show("backoff factor", lambda: torch.amp.GradScaler("cpu", backoff_factor=1.0))
s.update(32.0)
print("update(32.0):", s.get_scale())
s.update(torch.tensor(4.0))
print("update(tensor):", s.get_scale(), type(s.get_scale()).__name__)
print("getters:", s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval())
s.set_growth_factor(3.0)
s.set_backoff_factor(0.125)
s.set_growth_interval(4)
print("state_dict:", s.state_dict())
s2 = torch.amp.GradScaler("cpu")
s2.load_state_dict(s.state_dict())
print("loaded:", s2.get_scale(), s2.state_dict())
show("load empty", lambda: torch.amp.GradScaler("cpu").load_state_dict({}))

h = torch.nn.Parameter(torch.ones(2, dtype=torch.float16))
oh = torch.optim.SGD([h], lr=0.1)
sh = torch.amp.GradScaler("cpu")
sh.scale((h.float() * 2).sum()).backward()
show("fp16 gradients", lambda: sh.unscale_(oh))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    d = torch.amp.GradScaler()
print("default device on CPU:", [str(w.message) for w in caught], d.is_enabled(), d.get_scale(), d.state_dict())
loss = (p * 2).sum()
print("disabled scale is identity:", d.scale(loss) is loss)
opt.zero_grad()
loss.backward()
before = fmt(p)
d.step(opt)
d.update()
print("disabled step runs the optimizer:", before != fmt(p), fmt(p))
off = torch.amp.GradScaler("cpu", enabled=False)
print("disabled:", off.get_scale(), off.state_dict(), off.is_enabled())

with torch.autocast("cpu", enabled=False):
    print("autocast(enabled=False):", (torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
with torch.amp.autocast("cpu", enabled=False):
    print("amp.autocast(enabled=False):", torch.nn.functional.linear(torch.ones(1, 2), torch.ones(3, 2)).dtype)
print("is_autocast_enabled:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
show("autocast device type", lambda: torch.autocast(torch.device("cpu")))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = torch.cpu.amp.GradScaler(init_scale=8.0)
print("torch.cpu.amp.GradScaler:", legacy.get_scale(), legacy.is_enabled(), [str(w.message) for w in caught])
