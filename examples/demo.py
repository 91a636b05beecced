"""The Rynamo demo: PyTorch-style code compiled with `torch.compile` on the default backend.

Run with `scripts/demo`. It compiles two functions as a PyTorch user would write them (no Rynamo
imports), checks the compiled results against eager on the same inputs, and prints the speed-up
of the default backend (`"inductor"`, which is Rynamo's dynasm JIT) over eager, measured now.
Then it trains a small model twice from the same initial weights, eagerly and with
`torch.compile(model)` (AOTAutograd: a compiled forward and backward per step), and checks that
both follow the same loss curve.
"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def mlp_block(x, w1, b1, w2, b2, gamma, beta):
    """A transformer-style feed-forward block: linear, GELU, linear, residual, layer norm."""
    h = F.gelu(x @ w1 + b1, approximate="tanh")
    y = x + (h @ w2 + b2)
    return F.layer_norm(y, (y.shape[-1],), gamma, beta)


def activations(x):
    """A chain of pointwise ops: eager runs one kernel (and one buffer) per op, the JIT fuses them."""
    a = torch.sin(x) * torch.exp(-x * x)
    b = torch.tanh(x * 0.5) + torch.sigmoid(x)
    return (a + b * 0.25).clamp(-1.0, 1.0) * 2.0 - 0.5


def median_ms(fn, args, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def compare(name, fn, args, reps):
    compiled = torch.compile(fn)
    expected = fn(*args)
    got = compiled(*args)  # compiles on the first call
    diff = (got - expected).abs().max().item()
    ok = torch.allclose(got, expected, rtol=1e-4, atol=1e-5)
    eager_ms = median_ms(fn, args, reps)
    compiled_ms = median_ms(compiled, args, reps)
    print(
        f"{name:<12} eager {eager_ms:8.3f} ms   compiled {compiled_ms:8.3f} ms   "
        f"speed-up {eager_ms / compiled_ms:5.2f}x   max |diff| {diff:.2e}   "
        f"{'matches eager' if ok else 'MISMATCH'}"
    )
    return ok


def make_model(d_in, hidden, d_out):
    torch.manual_seed(1)
    return torch.nn.Sequential(
        torch.nn.Linear(d_in, hidden), torch.nn.GELU(approximate="tanh"),
        torch.nn.Linear(hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, d_out),
    )


def train(model, x, y, steps, lr=0.05):
    losses = []
    start = time.perf_counter()
    for _ in range(steps):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
                p.grad = None
        losses.append(loss.item())
    return losses, (time.perf_counter() - start) / steps * 1e3


def training():
    """Eager training against compiled training (forward and backward compiled)."""
    d_in, hidden, d_out, rows, steps = 64, 256, 8, 512, 30
    torch.manual_seed(2)
    x = torch.randn(rows, d_in)
    y = torch.sin(x[:, :d_out] * 2.0) + x[:, d_out:2 * d_out] * 0.5
    eager_losses, eager_ms = train(make_model(d_in, hidden, d_out), x, y, steps)
    model = make_model(d_in, hidden, d_out)
    compiled = torch.compile(model)
    compiled_losses, compiled_ms = train(compiled, x, y, steps)
    worst = max(abs(a - b) / abs(a) for a, b in zip(eager_losses, compiled_losses))
    ok = worst < 1e-4
    print(
        f"{'training':<12} eager {eager_ms:8.3f} ms/step   compiled {compiled_ms:8.3f} ms/step   "
        f"loss {eager_losses[0]:.4f} -> {eager_losses[-1]:.4f} (compiled {compiled_losses[-1]:.4f}, "
        f"max rel diff {worst:.1e})   {'matches eager' if ok else 'MISMATCH'}"
    )
    return ok


def main():
    torch.manual_seed(0)
    print(f"rynamo {sys.version.split()[0]}: torch.compile(backend='inductor') -> dynasm JIT")
    d, hidden, rows = 128, 512, 256
    x = torch.randn(rows, d)
    w1 = torch.randn(d, hidden) * d ** -0.5
    b1 = torch.zeros(hidden)
    w2 = torch.randn(hidden, d) * hidden ** -0.5
    b2 = torch.zeros(d)
    gamma, beta = torch.ones(d), torch.zeros(d)
    ok = compare("mlp_block", mlp_block, (x, w1, b1, w2, b2, gamma, beta), reps=20)
    ok &= compare("activations", activations, (torch.randn(1 << 20),), reps=20)
    ok &= training()
    explanation = torch._dynamo.explain(activations)(torch.randn(8))
    print(
        f"activations: {explanation.graph_count} graph, {explanation.graph_break_count} breaks, "
        f"{len(explanation.ops_per_graph[0])} ops captured"
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
