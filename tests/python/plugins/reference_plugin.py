"""The reference plugin, loaded from Python: compile with its backend, results equal eager, and it
is listed among the backends. A missing plugin is a clear error, not a crash."""
import os

import torch
import torch._dynamo

path = os.environ["RYNAMO_TEST_PLUGIN"]
name = torch._dynamo.load_plugin(path)
assert name in torch._dynamo.list_backends(), (name, torch._dynamo.list_backends())
assert torch._dynamo.load_plugin(path) == name  # loading twice is fine


def mlp(x, w1, b1, w2):
    h = torch.relu(x @ w1 + b1)
    return (h @ w2).softmax(dim=-1)


torch.manual_seed(0)
x, w1, b1, w2 = torch.randn(4, 8), torch.randn(8, 16), torch.randn(16), torch.randn(16, 3)
opt = torch.compile(mlp, backend=name)
got = opt(x, w1, b1, w2)
exp = mlp(x, w1, b1, w2)
assert got.shape == exp.shape and bool((got == exp).all()), (got, exp)

try:
    torch._dynamo.load_plugin("/nonexistent/libnothing.so")
except RuntimeError as e:
    assert "libnothing.so" in str(e), str(e)
else:
    raise AssertionError("loading a missing plugin did not raise")
print("ok")
