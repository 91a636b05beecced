"""Issue 30: a Rust panic in any layer under a Python call (an eager kernel, a JIT pass, a compiled
kernel launch, the autograd engine, the plugin host, a conversion such as tolist/item/repr) becomes a Python RuntimeError naming the
place; the process never aborts, the program catches the error and goes on, and once the fault is
gone the same code gives eager's results. A panic in Dynamo's frame conversion keeps the frame
hook's invariant (`interpreter/tests/eval_frame.rs`): the frame runs unchanged, so the result is
eager's, and stderr names the frame and the panic.

Each layer runs in a child `rynamo` (a panic prints Rust's message and backtrace on stderr, which
the suite forbids in its own scripts), armed with the test-only `torch._C._test_inject_panic`."""
import os
import subprocess
import sys

CHILD = r'''
import os, sys
import torch
import torch._dynamo

layer, name = sys.argv[1], sys.argv[2]

def f(x, w):
    return torch.relu(x @ w + 1.0).sin() * 2.0

def training(x, w):
    y = f(x, w).sum()
    y.backward()
    return w.grad

backend = "inductor"
if layer == "plugin":
    backend = torch._dynamo.load_plugin(os.environ["RYNAMO_TEST_PLUGIN"])

x = torch.arange(12.0).reshape(3, 4) / 7.0
w = torch.linspace(-1.0, 1.0, 8).reshape(4, 2)

def attempt():
    torch._dynamo.reset()
    if layer == "kernel":
        return f(x, w)
    if layer == "autograd":
        return training(x, w.clone().requires_grad_(True))
    if layer == "convert":
        y = f(x, w)
        if name == "Tensor.tolist":
            return torch.tensor(y.tolist())
        if name == "Tensor.item":
            return y * (y.sum().item() * 0.0 + 1.0)
        repr(y)
        return y
    return torch.compile(f, backend=backend)(x, w)

torch._C._test_inject_panic(layer, name)
try:
    attempt()
except RuntimeError as e:
    print("caught:", type(e).__name__, repr(str(e)))
else:
    print("no error")
torch._C._test_inject_panic(None)
got = attempt()
want = training(x, w.clone().requires_grad_(True)) if layer == "autograd" else f(x, w)
print("after:", bool(torch.allclose(got, want)))
'''

CASES = [
    # layer, name, what the message must name
    ("kernel", "sin", "the kernel of sin"),
    ("pass", "*", "pass"),
    ("jit", "*", "kernel"),
    ("autograd", "*", "Backward"),
    # conversions that run kernels outside the dispatcher (`ops::guarded`)
    ("convert", "Tensor.tolist", "Tensor.tolist"),
    ("convert", "Tensor.item", "Tensor.item"),
    ("convert", "Tensor.__repr__", "Tensor.__repr__"),
]
if os.environ.get("RYNAMO_TEST_PLUGIN"):
    CASES.append(("plugin", "*", "plugin"))
else:
    print("skip plugin layer: RYNAMO_TEST_PLUGIN unset", file=sys.stderr)

for layer, name, names in CASES:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, layer, name], capture_output=True, text=True, timeout=600
    )
    out = r.stdout
    assert r.returncode == 0, (layer, r.returncode, out, r.stderr[-3000:])
    caught = [l for l in out.splitlines() if l.startswith("caught:")]
    assert caught, (layer, out, r.stderr[-3000:])
    msg = caught[0]
    assert "internal error (Rust panic)" in msg and f"injected panic in {layer}" in msg, (layer, msg)
    assert names in msg, (layer, names, msg)
    assert "after: True" in out, (layer, out)
    print(layer, "ok")

# Dynamo: the call returns eager's result; the failure is reported once on stderr.
r = subprocess.run(
    [sys.executable, "-c", CHILD, "dynamo", "f"], capture_output=True, text=True, timeout=600
)
assert r.returncode == 0 and r.stdout == "no error\nafter: True\n", (r.stdout, r.stderr[-3000:])
assert "[rynamo] frame handler failed on f (<string>:8); running it unchanged." in r.stderr
assert "panic: injected panic in dynamo f" in r.stderr, r.stderr[-3000:]
print("dynamo ok")

# An unknown layer is a clear error, not a silent no-op.
import torch

try:
    torch._C._test_inject_panic("nolayer", "x")
except ValueError as e:
    assert "kernel" in str(e), str(e)
else:
    raise AssertionError("unknown layer accepted")
print("ok")
