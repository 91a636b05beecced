"""`len()` and `bool()` of what `torch.compile(module)` returns follow the module's own length, as
PyTorch 2.15's OptimizedModule (values and the error text recorded on it with this file)."""
import torch
import torch.nn as nn

assert len(torch.compile(nn.Sequential(nn.ReLU(), nn.ReLU()), backend="eager")) == 2
assert not torch.compile(nn.Sequential(), backend="eager")
assert torch.compile(nn.Sequential(nn.ReLU()), backend="eager")
assert not torch.compile(nn.ModuleList(), backend="eager")
for op in (len, bool):
    try:
        op(torch.compile(nn.Linear(2, 2), backend="eager"))
        raise AssertionError("expected TypeError")
    except TypeError as e:
        assert str(e) == "Linear does not support len()", e
print("ok")
