"""The ops added through their definitions alone (issue 23): torch.logit / Tensor.logit /
logit_, nan_to_num_, torch.erfinv, torch.xlogy and the torch.special aliases (expit, logit,
erfinv, xlogy): values, dtypes, in-place identity, grad_fn names and gradients. The expected
output (special_ops.out) is this script's output under real PyTorch (regenerate with
`/tmp/pt/bin/python special_ops.py > special_ops.out`)."""
import torch
import torch.special as sp

torch.set_printoptions(precision=6)
u = torch.tensor([0.0, 0.05, 0.3, 0.5, 0.9, 1.0, -0.5, 1.5, float("nan")])
print("logit", torch.logit(u))
print("logit eps", torch.logit(u, eps=0.1), u.logit(0.25), sp.logit(u, eps=0.0))
print("logit f64", torch.logit(u.double(), 1e-6))
print("logit int", torch.logit(torch.tensor([0, 1]), eps=0.25))
print("logit f16", torch.logit(torch.tensor([0.25, 0.5], dtype=torch.float16)))
v = u.clone()
r = v.logit_(eps=0.2)
print("logit_", v, r is v)
w = torch.tensor([0.25, 0.75])
print("torch.logit_", torch.logit_(w), w)
try:
    torch.tensor([1, 2]).logit_()
except RuntimeError as e:
    print("logit_ int:", e)

print("erfinv", torch.erfinv(torch.tensor([-1.0, -0.999, -0.5, 0.0, 1e-6, 0.3, 0.7, 0.9999, 1.0, 1.5])))
print("erfinv f64", sp.erfinv(torch.tensor([0.1, 0.5, 0.99], dtype=torch.float64)))
print("erfinv int", torch.tensor([0, 1, -1]).erfinv())

a = torch.tensor([0.0, 0.0, 1.0, 2.0, -1.5, 0.0])
b = torch.tensor([0.0, float("nan"), float("nan"), 3.0, 0.25, -1.0])
print("xlogy", torch.xlogy(a, b), sp.xlogy(a, b), a.xlogy(b))
print("xlogy scalars", torch.xlogy(2, b), torch.xlogy(a, 3), torch.xlogy(torch.tensor([1, 2]), 2))
print("xlogy dtypes", torch.xlogy(torch.tensor([1]), torch.tensor([2])).dtype,
      torch.xlogy(torch.tensor([1.0], dtype=torch.float64), torch.tensor([2])).dtype)
print("expit", sp.expit(torch.tensor([-2.0, 0.0, 3.0])))

n = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
m = n.clone()
print("nan_to_num_", m.nan_to_num_(), m, m.nan_to_num_() is m)
k = n.clone()
torch.nan_to_num_(k, nan=1.5, posinf=2.0, neginf=-3.0)
print("torch.nan_to_num_", k)

x = torch.tensor([0.2, 0.5, 0.7], requires_grad=True)
y = torch.logit(x)
print("grad_fn", y.grad_fn.name(), torch.erfinv(x).grad_fn.name(), torch.xlogy(x, x).grad_fn.name())
y.sum().backward()
print("dlogit", x.grad)
x.grad = None
torch.logit(x, eps=0.3).sum().backward()
print("dlogit eps", x.grad)
x.grad = None
torch.erfinv(x).sum().backward()
print("derfinv", x.grad)
p = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
q = torch.tensor([0.5, 2.0, 0.0], requires_grad=True)
torch.xlogy(p, q).sum().backward()
print("dxlogy", p.grad, q.grad)
t = torch.tensor([0.3, 0.6], requires_grad=True).clone()
t.logit_()
print("logit_ grad_fn", t.grad_fn.name())
s = torch.tensor([float("nan"), 2.0], requires_grad=True).clone()
s.nan_to_num_()
print("nan_to_num_ grad_fn", s.grad_fn.name())
