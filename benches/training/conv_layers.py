"""W12's three 3x3 convolutions alone (batch 32): forward, and forward + backward, as medians of
50 calls. Runs under rynamo and under real PyTorch alike; compare them alternating, e.g.

    for i in 1 2; do target/release/rynamo benches/training/conv_layers.py; \
        OMP_NUM_THREADS=2 /tmp/pt/bin/python benches/training/conv_layers.py; done

Prints one line per convolution. Never asserts on time.
"""
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)
# (name, in channels, out channels, height = width, stride), as in train_models.py's CNN
CASES = [("stem", 3, 16, 32, 1), ("conv1", 16, 32, 32, 2), ("conv2", 32, 32, 16, 1)]


def median_ms(f, reps=50):
    for _ in range(5):
        f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


for name, ci, co, hw, stride in CASES:
    # the stem's input is the data (no gradient), as in training
    x = torch.randn(32, ci, hw, hw, requires_grad=name != "stem")
    w = torch.randn(co, ci, 3, 3, requires_grad=True)
    g = torch.randn_like(F.conv2d(x, w, None, stride, 1))

    def forward():
        return F.conv2d(x, w, None, stride, 1)

    def forward_backward():
        F.conv2d(x, w, None, stride, 1).backward(g)
        w.grad = None
        x.grad = None

    print(f"{name:6s} fwd {median_ms(forward):.3f} ms  fwd+bwd {median_ms(forward_backward):.3f} ms")
