"""W10: eager training steps without an optimizer (forward, loss, backward), written as a user
would, runnable under rynamo and under real PyTorch alike. Prints one JSON line: the median step
time and the process's peak RSS after the steps.

    python w10.py mlp --steps 30        (or cnn)
"""
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 512)
    )
    x = torch.randn(128, 512)
    y = torch.randn(128, 512)

    def step():
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for p in model.parameters():
            p.grad = None
        return loss

    return step


def cnn():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 10),
    )
    x = torch.randn(32, 3, 32, 32)
    y = torch.randint(0, 10, (32,))

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        for p in model.parameters():
            p.grad = None
        return loss

    return step


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    workloads = {"mlp": mlp, "cnn": cnn}
    which = sys.argv[1] if len(sys.argv) > 1 else None
    if which not in workloads:
        sys.exit(f"usage: w10.py {{{'|'.join(workloads)}}} [--steps N]")
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 30
    if steps < 0:
        sys.exit("--steps must be >= 0")
    step = workloads[which]()
    for _ in range(3):
        step()
    rss_start = peak_rss_mb()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(json.dumps({
        "workload": which,
        # No timed steps (`--steps 0`: warm-up and memory only): no median.
        "median_ms": times[len(times) // 2] * 1e3 if times else None,
        "rss_after_warmup_mb": rss_start,
        "peak_rss_mb": peak_rss_mb(),
    }))


main()
