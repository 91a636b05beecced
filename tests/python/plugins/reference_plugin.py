"""The reference plugin, loaded from Python: compile with its backend, results equal eager, and it
is listed among the backends. A missing plugin is a clear error, not a crash. Training regions:
the forward and backward graphs go to the plugin when it declares RYNAMO_CAP_BACKWARD_GRAPHS,
else the backward graph runs on the host's fallback (a note in the plugin log says so), and the
gradients equal eager's either way."""
import os
import subprocess
import sys

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
TRAIN = """
import os, torch, torch.nn as nn
name = torch._dynamo.load_plugin(os.environ["RYNAMO_TEST_PLUGIN"])
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
x = torch.randn(4, 8)
out = torch.compile(m, backend=name)(x)
assert out.grad_fn.name() == "CompiledFunctionBackward", out.grad_fn.name()
(out ** 2).sum().backward()
got = [p.grad.clone() for p in m.parameters()]
m.zero_grad()
(m(x) ** 2).sum().backward()
assert all(torch.allclose(a, p.grad, rtol=1e-6, atol=1e-7) for a, p in zip(got, m.parameters()))
print("grads equal")
"""
NOTE = "does not declare RYNAMO_CAP_BACKWARD_GRAPHS"
for withheld in (False, True):
    env = dict(os.environ, RYNAMO_PLUGIN_LOG="1")
    env.pop("RYNAMO_REFERENCE_NO_BACKWARD", None)
    if withheld:
        env["RYNAMO_REFERENCE_NO_BACKWARD"] = "1"
    r = subprocess.run([sys.executable, "-c", TRAIN], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "grads equal" in r.stdout, (withheld, r.stdout, r.stderr[-2000:])
    assert (NOTE in r.stderr) == withheld, (withheld, r.stderr[-2000:])
print("ok")
