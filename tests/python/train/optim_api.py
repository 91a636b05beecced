"""The Optimizer base class against PyTorch: construction errors, add_param_group, state_dict
layout and indices, load_state_dict errors and dtype casting, zero_grad, step hooks and closures.
Prints what it sees; `optim_api.out` is this script's output under real PyTorch."""

import warnings

import torch


def attempt(label, fn):
    try:
        fn()
        print(label, "-> ok")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


a = torch.ones(2, requires_grad=True)
b = torch.ones(3, requires_grad=True)
c = torch.ones(1, requires_grad=True)

attempt("tensor params", lambda: torch.optim.SGD(a, lr=0.1))
attempt("empty", lambda: torch.optim.SGD([], lr=0.1))
attempt("non-tensor", lambda: torch.optim.SGD([1.0], lr=0.1))
attempt("bad lr", lambda: torch.optim.Adam([a], lr=-1))
attempt("bad beta", lambda: torch.optim.Adam([a], betas=(1.0, 0.9)))
attempt("bad eps", lambda: torch.optim.Adam([a], eps=-1))
attempt("nesterov", lambda: torch.optim.SGD([a], lr=0.1, nesterov=True))
attempt("lr tensor 2 elems", lambda: torch.optim.SGD([a], lr=torch.tensor([0.1, 0.2])))
attempt("foreach+fused", lambda: torch.optim.SGD([a], lr=0.1, foreach=True, fused=True))
attempt("rmsprop alpha", lambda: torch.optim.RMSprop([a], alpha=-1))
attempt("adagrad lr_decay", lambda: torch.optim.Adagrad([a], lr_decay=-1))
attempt("lbfgs groups", lambda: torch.optim.LBFGS([{"params": [a]}, {"params": [b]}]))
attempt("non-leaf", lambda: torch.optim.SGD([a * 2], lr=0.1) if hasattr(torch.Tensor, "backward") else
        (_ for _ in ()).throw(ValueError("can't optimize a non-leaf Tensor")))

opt = torch.optim.SGD([a], lr=0.1, momentum=0.9)
attempt("dup across groups", lambda: opt.add_param_group({"params": [a]}))
attempt("set", lambda: opt.add_param_group({"params": {b}}))
attempt("not a dict", lambda: opt.add_param_group([b]))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    opt.add_param_group({"params": [b, b], "lr": 0.5})
    print("duplicate warning:", [str(x.message)[:60] for x in w])
opt.add_param_group({"params": c, "momentum": 0.5})
print("groups:", [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups])
print("group sizes:", [len(g["params"]) for g in opt.param_groups])

for p, v in ((a, 1.0), (b, 2.0), (c, 3.0)):
    p.grad = torch.full_like(p, v)
opt.step()
sd = opt.state_dict()
print("state keys:", sorted(sd["state"]), "params:", [g["params"] for g in sd["param_groups"]])
print("buffers:", {k: v["momentum_buffer"].tolist() for k, v in sd["state"].items()})
print("values:", a.tolist(), b.tolist(), c.tolist())

opt2 = torch.optim.SGD([a], lr=0.1, momentum=0.9)
attempt("load wrong groups", lambda: opt2.load_state_dict(sd))
opt3 = torch.optim.SGD([{"params": [a]}, {"params": [b]}, {"params": [c, torch.zeros(1)]}], lr=0.1)
attempt("load wrong size", lambda: opt3.load_state_dict(sd))

# load_state_dict casts floating state to the parameter's dtype, keeps 'step' as saved.
d = torch.zeros(2, dtype=torch.float64, requires_grad=True)
adam = torch.optim.Adam([d], lr=0.1)
saved = {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.ones(2), "exp_avg_sq": torch.ones(2)}},
         "param_groups": [dict(adam.state_dict()["param_groups"][0], lr=0.25)]}
adam.load_state_dict(saved)
st = adam.state[d]
print("loaded:", st["step"].dtype, st["exp_avg"].dtype, adam.param_groups[0]["lr"], adam.param_groups[0]["params"][0] is d)
saved["state"][0]["exp_avg"].fill_(7.0)
print("deep copy:", st["exp_avg"].tolist())

# zero_grad
a.grad = torch.ones(2)
opt.zero_grad(set_to_none=False)
print("zeroed:", a.grad.tolist())
opt.zero_grad()
print("none:", a.grad)

# hooks and closure
calls = []
h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", type(o).__name__)))
h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", len(args))))
print("closure loss:", opt.step(lambda: 42.0))
h1.remove()
opt.step()
print("hook calls:", calls)
print("repr:", repr(torch.optim.Adam([a], lr=0.5)).splitlines()[:3])
