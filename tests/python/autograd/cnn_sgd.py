"""A training-shaped program: a small CNN (conv -> batch norm -> relu -> max pool -> conv with
groups and padding -> relu -> adaptive avg pool -> linear -> cross entropy with label smoothing)
and a layer-normed MLP head (linear -> layer norm -> gelu -> linear -> mse), trained with
hand-written SGD with momentum for 12 steps from deterministic weights. The loss trajectories
and final parameters follow PyTorch's to 1e-4 relative (float32; sums are ordered differently,
and 12 steps of training amplify the last bits a little).

Record the golden (never in CI): `/tmp/pt/bin/python cnn_sgd.py --record`."""
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "cnn_sgd.golden.json")


def tensor(shape, phase, scale=0.5):
    n = 1
    for s in shape:
        n *= s
    v = [math.sin(i * 0.37 + phase) * scale for i in range(n)]
    return torch.tensor(v, dtype=torch.float32).reshape(shape)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 6, 3, padding=1, groups=2)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.ln = nn.LayerNorm(8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(F.gelu(self.ln(self.fc1(x))))


def init(model, phase):
    with torch.no_grad():
        for k, (name, p) in enumerate(model.named_parameters()):
            if name.startswith("bn") or name.startswith("ln"):
                continue  # ones / zeros, as constructed
            p.copy_(tensor(list(p.shape), phase + 0.9 * k, 0.4))


def train(model, batch, loss_fn, steps=12, lr=0.1, momentum=0.9):
    params = list(model.parameters())
    bufs = [torch.zeros_like(p) for p in params]
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(batch))
        loss.backward()
        with torch.no_grad():
            for p, b in zip(params, bufs):
                b.mul_(momentum).add_(p.grad)
                p.sub_(lr * b)
                p.grad = None
        losses.append(loss.item())
    return losses, [p.detach().reshape(-1).tolist() for p in params]


def run():
    torch.set_default_dtype(torch.float32)
    net = Net()
    init(net, 0.5)
    x = tensor([6, 2, 8, 8], 1.7, 1.0)
    y = torch.tensor([0, 2, 1, 1, 0, 2])
    cnn = train(net, x, lambda out: F.cross_entropy(out, y, label_smoothing=0.1))
    head = Head()
    init(head, 2.5)
    z = tensor([10, 6], 3.1, 1.0)
    target = tensor([10, 2], 4.2, 1.0)
    mlp = train(head, z, lambda out: F.mse_loss(out, target), lr=0.05)
    return {"cnn": cnn, "mlp": mlp, "running_mean": net.bn.running_mean.tolist()}


result = run()
if "--record" in sys.argv:
    with open(GOLDEN, "w") as f:
        json.dump(result, f)
    print("recorded")
    sys.exit(0)

with open(GOLDEN) as f:
    golden = json.load(f)
bad = []
for key in ("cnn", "mlp"):
    losses, params = result[key]
    glosses, gparams = golden[key]
    for i, (a, b) in enumerate(zip(losses, glosses)):
        if abs(a - b) > 1e-4 * abs(b):
            bad.append(f"{key} step {i}: rynamo {a!r} PyTorch {b!r}")
    for k, (pa, pb) in enumerate(zip(params, gparams)):
        for j, (a, b) in enumerate(zip(pa, pb)):
            if abs(a - b) > 1e-4 * max(abs(b), 1e-2):
                bad.append(f"{key} param {k}[{j}]: rynamo {a!r} PyTorch {b!r}")
                break
for j, (a, b) in enumerate(zip(result["running_mean"], golden["running_mean"])):
    if abs(a - b) > 1e-4 * max(abs(b), 1e-2):
        bad.append(f"running_mean[{j}]: rynamo {a!r} PyTorch {b!r}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("cnn and mlp trajectories match PyTorch's over 12 steps")
