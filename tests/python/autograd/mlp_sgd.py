"""Issue 24's done-means check: a 2-layer MLP regression trained with hand-written SGD
(`p -= lr * p.grad` under no_grad, `p.grad = None`) follows PyTorch's loss trajectory to 1e-5
relative over 50 steps, from the same deterministic initial weights. The golden trajectory was
recorded by running this script under real PyTorch: `/tmp/pt/bin/python mlp_sgd.py --record`."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "mlp_sgd.golden.json")


def init(rows, cols, phase):
    # Deterministic, irregular values without any RNG (both libraries compute the same f32s).
    i = torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)
    return (torch.sin(i * 0.7 + phase) * 0.5).contiguous()


def train():
    torch.set_default_dtype(torch.float32)
    x = init(32, 4, 0.3)
    y = (x[:, :1] * 2.0 - x[:, 1:2] + torch.cos(x[:, 2:3] * 3.0)).contiguous()
    w1 = init(4, 16, 1.1).requires_grad_()
    b1 = torch.zeros(16, requires_grad=True)
    w2 = init(16, 1, 2.3).requires_grad_()
    b2 = torch.zeros(1, requires_grad=True)
    params = [w1, b1, w2, b2]
    lr = 0.05
    losses = []
    for _ in range(50):
        h = torch.tanh(x @ w1 + b1)
        pred = h @ w2 + b2
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        losses.append(loss.item())
    return losses, [p.detach().reshape(-1).tolist() for p in params]


losses, final = train()
if "--record" in sys.argv:
    with open(GOLDEN, "w") as f:
        json.dump({"losses": losses, "final_params": final}, f)
    print("recorded", len(losses), "losses")
    sys.exit(0)

with open(GOLDEN) as f:
    golden = json.load(f)
bad = []
for i, (a, b) in enumerate(zip(losses, golden["losses"])):
    if abs(a - b) > 1e-5 * abs(b):
        bad.append(f"step {i}: rynamo {a!r} PyTorch {b!r}")
for k, (pa, pb) in enumerate(zip(final, golden["final_params"])):
    for j, (a, b) in enumerate(zip(pa, pb)):
        if abs(a - b) > 1e-5 * max(abs(b), 1e-3):
            bad.append(f"param {k}[{j}]: rynamo {a!r} PyTorch {b!r}")
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
print(f"50 steps match PyTorch to 1e-5: loss {losses[0]:.6f} -> {losses[-1]:.6f}")
