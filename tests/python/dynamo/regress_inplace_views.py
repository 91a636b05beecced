"""Eager in-place view methods and `torch.is_floating_point(input=)` (issue 27 requirement 5), with
the values real PyTorch 2.15 gives (recorded by running this file's cases under /tmp/pt): the
tensor object itself takes the new layout, writes through it reach the viewed storage, autograd
rebases a non-leaf and refuses a leaf that requires grad."""
import torch

# The object itself is returned, with the view's shape and strides.
y = torch.arange(6.0).reshape(2, 3).clone()
r = y.transpose_(0, 1)
assert r is y and tuple(y.shape) == (3, 2) and y.stride() == (1, 3) and not y.is_contiguous()
assert y.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]

z = torch.ones(2, 1, 3)
assert tuple(z.squeeze_().shape) == (2, 3)
z = torch.ones(2, 1, 3)
assert tuple(z.squeeze_(1).shape) == (2, 3)
assert tuple(z.swapdims_(0, 1).shape) == (3, 2)
assert tuple(z.swapaxes_(0, 1).shape) == (2, 3)
u = torch.ones(3)
assert u.unsqueeze_(-1) is u and tuple(u.shape) == (3, 1)
assert tuple(torch.ones(2, 3).t_().shape) == (3, 2)

s = torch.arange(6.0)
assert s.as_strided_((2, 2), (1, 2)).tolist() == [[0.0, 2.0], [1.0, 3.0]] and tuple(s.shape) == (2, 2)

# Writes through the reshaped view reach its base.
q = torch.arange(6.0).reshape(2, 3)
v = q.view(6)
v.unsqueeze_(0)
v[0, 0] = 100.0
assert q[0, 0].item() == 100.0 and tuple(v.shape) == (1, 6)

# Autograd: a leaf that requires grad is refused (allowed under no_grad); a non-leaf is rebased.
w = torch.ones(3, requires_grad=True)
try:
    w.unsqueeze_(0)
    raise AssertionError("expected RuntimeError")
except RuntimeError as e:
    assert str(e) == "a leaf Variable that requires grad is being used in an in-place operation.", e
with torch.no_grad():
    w.unsqueeze_(0)
assert tuple(w.shape) == (1, 3) and w.is_leaf and w.requires_grad
a = torch.ones(2, 3, requires_grad=True)
b = a * 2
b.t_()
assert tuple(b.shape) == (3, 2) and b.grad_fn is not None
(b * torch.arange(6.0).reshape(3, 2)).sum().backward()
assert a.grad.tolist() == [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]]

# Bad dims raise PyTorch's error; nothing changes.
e1 = torch.ones(2)
try:
    e1.unsqueeze_(5)
    raise AssertionError("expected IndexError")
except IndexError as e:
    assert str(e) == "Dimension out of range (expected to be in range of [-2, 1], but got 5)", e
assert tuple(e1.shape) == (2,)

# `input=` by keyword.
x = torch.arange(6.0).reshape(2, 3)
assert torch.is_floating_point(input=x) and not torch.is_floating_point(input=x.long())
assert torch.numel(input=x) == 6
for fn in (torch.numel, torch.is_floating_point):
    for call, where in ((lambda: fn(3), " (position 1)"), (lambda: fn(input=3), "")):
        try:
            call()
            raise AssertionError("expected TypeError")
        except TypeError as e:
            assert str(e) == f"{fn.__name__}(): argument 'input'{where} must be Tensor, not int", e
print("ok")
