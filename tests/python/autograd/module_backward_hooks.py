"""Module.register_full_backward_hook / register_full_backward_pre_hook: what the hooks see and
how their return values replace gradients. The expected output is PyTorch 2.15's."""
import torch
import torch.nn as nn


def r(t):
    return None if t is None else [round(float(v), 4) for v in t.detach().reshape(-1)]


lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]]))
    lin.bias.copy_(torch.tensor([0.05, -0.05]))
seen = []
h1 = lin.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", [r(g) for g in go])))
h2 = lin.register_full_backward_hook(
    lambda m, gi, go: seen.append(("post", [r(g) for g in gi], [r(g) for g in go])))
x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
(lin(x) * torch.tensor([[2.0, -1.0]])).sum().backward()
print(seen)
print("x.grad", r(x.grad), "w.grad", r(lin.weight.grad))

# a hook replacing grad_input, and a pre-hook replacing grad_output
seen.clear()
h1.remove()
h2.remove()
lin.zero_grad()
x.grad = None
lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 1,))
lin(x).sum().backward()
print("replaced x.grad", r(x.grad), "w.grad", r(lin.weight.grad))

# input that does not require grad: grad_input is (None,)
relu = nn.ReLU()
relu.register_full_backward_hook(lambda m, gi, go: seen.append(("relu", [r(g) for g in gi], [r(g) for g in go])))
w = torch.tensor([1.0, -1.0], requires_grad=True)
relu(torch.tensor([0.5, -0.5]) * w).sum().backward()
print(seen)
