"""Autograd semantics of the nn ops that PyTorch records specially (checked against PyTorch 2.15's
behaviour, noted beside each check): dropout saves its mask, ops that never require grad,
refusals with PyTorch's messages, batch norm run twice before backward, double backward
through conv and layer norm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

failures = []


def check(what, cond):
    if not cond:
        failures.append(what)


def raises(what, fn, text):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        check(f"{what}: message {e!r}", text in str(e))
        return
    failures.append(f"{what}: did not raise")


# dropout in training is `x * mask` (MulBackward0 on CPU); the mask is saved, so the gradient is
# out / x exactly even after the generator moved on
x = (torch.arange(1, 201, dtype=torch.float32) / 50.0).reshape(10, 20).requires_grad_()
y = F.dropout(x, 0.3)
check("dropout grad_fn", y.grad_fn.name() == "MulBackward0")
torch.randn(100)
y.backward(torch.ones_like(y))
check("dropout mask reused", torch.allclose(x.grad, y.detach() / x.detach(), rtol=1e-6, atol=0))
check("dropout grad is 0 or 1/(1-p)", bool(((x.grad == 0) | ((x.grad - 1 / 0.7).abs() < 1e-6)).all()))
kept = int((y != 0).sum())
check(f"dropout keeps some ({kept})", 0 < kept < 200)
z = F.dropout(x, 0.3, training=False)
check("eval dropout is the identity", torch.equal(z, x))

# never differentiable: PyTorch gives requires_grad=False
for name, t in [
    ("zeros_like", torch.zeros_like(x)),
    ("ones_like", torch.ones_like(x)),
    ("full_like", torch.full_like(x, 2.0)),
    ("rand_like", torch.rand_like(x)),
    ("new_zeros", x.new_zeros(3)),
    ("view(dtype)", x.view(torch.int32)),
]:
    check(f"{name} does not require grad", not t.requires_grad)

# refusals
w = torch.ones(4, requires_grad=True)
logits = torch.randn(3, 4, requires_grad=True)
target = torch.tensor([0, 3, 1])
msg = "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'"
raises("nll_loss weight requires grad", lambda: F.nll_loss(logits, target, weight=w), msg)
raises("cross_entropy weight requires grad", lambda: F.cross_entropy(logits, target, weight=w), msg)
s = logits.scatter(1, torch.tensor([[0], [1], [2]]), 2.0, reduce="multiply")
raises("scatter reduce", lambda: s.sum().backward(), "derivative for aten::scatter is not implemented")

# names PyTorch gives these nodes
names = {
    "cross_entropy": F.cross_entropy(logits, target).grad_fn.name(),
    "max_pool2d": F.max_pool2d(torch.randn(1, 1, 4, 4, requires_grad=True), 2).grad_fn.name(),
    "nll_loss 2d": F.nll_loss(torch.randn(2, 3, 4, requires_grad=True), torch.zeros(2, 4, dtype=torch.long)).grad_fn.name(),
    "l1_loss": F.l1_loss(logits, torch.zeros(3, 4)).grad_fn.name(),
}
want = {
    "cross_entropy": "NllLossBackward0",
    "max_pool2d": "MaxPool2DWithIndicesBackward0",
    "nll_loss 2d": "NllLoss2DBackward0",
    "l1_loss": "MeanBackward0",
}
for k in want:
    check(f"{k} grad_fn {names[k]}", names[k] == want[k])

# a batch-norm module run twice before backward (its running stats change in between): fine in
# PyTorch, the statistics are not saved
bn = nn.BatchNorm1d(3)
inp = torch.randn(6, 3, requires_grad=True)
(bn(inp) * 2 + bn(inp)).sum().backward()
check("batch norm twice: input grad", inp.grad is not None and inp.grad.shape == (6, 3))
check("batch norm twice: running mean moved twice", bn.num_batches_tracked.item() == 2)

# in-place relu after batch norm (ResNet's pattern) does not trip the version check
conv = nn.Conv2d(2, 3, 3, padding=1)
bn2 = nn.BatchNorm2d(3)
out = F.relu(bn2(conv(torch.randn(2, 2, 5, 5))), inplace=True).sum()
out.backward()
check("conv -> bn -> relu_ backward", conv.weight.grad is not None)

# double backward: the gradient of a gradient through conv and layer norm
xx = torch.randn(1, 2, 5, 5, dtype=torch.float64, requires_grad=True)
ww = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
(gx,) = torch.autograd.grad((F.conv2d(xx, ww, padding=1) ** 2).sum(), xx, create_graph=True)
(gw,) = torch.autograd.grad(gx.sum(), ww)
check("conv double backward", gw.shape == ww.shape and float(gw.abs().sum()) > 0)
ln_in = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
(g1,) = torch.autograd.grad((F.layer_norm(ln_in, (6,)) ** 3).sum(), ln_in, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), ln_in)
check("layer norm double backward", g2.shape == ln_in.shape and float(g2.abs().sum()) > 0)

if failures:
    print("\n".join(failures))
    raise SystemExit(1)
print("nn autograd semantics match PyTorch")
