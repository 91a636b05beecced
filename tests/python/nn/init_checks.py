# torch.nn.init: gains, fans, distributions (statistics over large tensors), reproducibility with
# torch.manual_seed, and PyTorch's default parameter initialisation of the layers.
import math

import torch
import torch.nn as nn
from torch.nn import init

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def close(a, b, tol):
    return abs(a - b) <= tol


# Gains and fans.
expect(init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1, "linear gain")
expect(init.calculate_gain("sigmoid") == 1, "sigmoid gain")
expect(init.calculate_gain("tanh") == 5.0 / 3, "tanh gain")
expect(init.calculate_gain("relu") == math.sqrt(2.0), "relu gain")
expect(init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2)), "leaky_relu gain")
expect(init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04), "leaky_relu(0.2) gain")
expect(init.calculate_gain("selu") == 0.75, "selu gain")
for bad, msg in ((lambda: init.calculate_gain("swish"), "Unsupported nonlinearity swish"),
                 (lambda: init.calculate_gain("leaky_relu", "x"), "negative_slope x not a valid number"),
                 (lambda: init._calculate_fan_in_and_fan_out(torch.empty(3)),
                  "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
                 (lambda: init.kaiming_uniform_(torch.empty(2, 2), mode="fan_avg"),
                  "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']")):
    try:
        bad()
        failures.append("no error: " + msg)
    except ValueError as e:
        expect(str(e) == msg, f"message {e!r} != {msg!r}")
expect(init._calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 2)) == (30, 80), "conv fans")
expect(init._calculate_fan_in_and_fan_out(torch.empty(7, 4)) == (4, 7), "linear fans")


def stats(t):
    t = t.to(torch.float64).reshape(-1)
    mean = float(t.mean())
    return mean, float(((t - mean) ** 2).mean().sqrt()), float(t.min()), float(t.max())


N = (400, 250)  # 100k samples: the standard error of the mean is ~0.3% of std
t = init.uniform_(torch.empty(N), -2.0, 3.0)
mean, std, lo, hi = stats(t)
expect(lo >= -2.0 and hi < 3.0 and close(mean, 0.5, 0.03) and close(std, 5 / math.sqrt(12), 0.02), "uniform_")
t = init.normal_(torch.empty(N), 1.5, 0.5)
mean, std, _, _ = stats(t)
expect(close(mean, 1.5, 0.01) and close(std, 0.5, 0.01), f"normal_ {mean} {std}")
t = init.trunc_normal_(torch.empty(N), 0.0, 1.0, -0.5, 1.0)
mean, std, lo, hi = stats(t)
# N(0,1) truncated to [-0.5, 1]: mean = (phi(-0.5) - phi(1)) / Z, Z = Phi(1) - Phi(-0.5).
phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
Phi = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
Z = Phi(1.0) - Phi(-0.5)
tmean = (phi(-0.5) - phi(1.0)) / Z
tvar = 1 + (-0.5 * phi(-0.5) - 1.0 * phi(1.0)) / Z - tmean ** 2
expect(lo >= -0.5 and hi <= 1.0 and close(mean, tmean, 0.01) and close(std, math.sqrt(tvar), 0.01),
       f"trunc_normal_ {mean} {std} vs {tmean} {math.sqrt(tvar)}")
w = torch.empty(300, 200)
bound = math.sqrt(6.0 / 500)
mean, std, lo, hi = stats(init.xavier_uniform_(w))
expect(-bound <= lo and hi <= bound and close(std, bound / math.sqrt(3), 0.01 * bound), "xavier_uniform_")
mean, std, _, _ = stats(init.xavier_normal_(w, gain=2.0))
expect(close(std, 2.0 * math.sqrt(2.0 / 500), 0.01), "xavier_normal_")
mean, std, lo, hi = stats(init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"))
kb = math.sqrt(2.0) * math.sqrt(3.0 / 300)
expect(-kb <= lo and hi <= kb and close(std, kb / math.sqrt(3), 0.01 * kb), "kaiming_uniform_")
mean, std, _, _ = stats(init.kaiming_normal_(w, nonlinearity="relu"))
expect(close(std, math.sqrt(2.0 / 200), 0.01 * math.sqrt(2.0 / 200)), "kaiming_normal_")
expect(bool((init.constant_(torch.empty(3, 2), 0.25) == 0.25).all()), "constant_")
expect(bool((init.ones_(torch.empty(3)) == 1).all()) and bool((init.zeros_(torch.ones(3)) == 0).all()), "ones_/zeros_")
expect(bool((init.eye_(torch.empty(2, 3)) == torch.eye(2, 3)).all()), "eye_")
d = init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
expect(float(d.sum()) == 4 and float(d[0, 0, 1, 1]) == 1 and float(d[2, 0, 1, 1]) == 1, "dirac_")
p = nn.Parameter(torch.empty(3, 3))
expect(init.kaiming_uniform_(p) is p and isinstance(p, nn.Parameter), "init returns its argument")
g = torch.Generator().manual_seed(5)
a = init.normal_(torch.empty(4), generator=g)
g.manual_seed(5)
expect(bool((init.normal_(torch.empty(4), generator=g) == a).all()), "generator=")

# Layer defaults, as PyTorch draws them.
torch.manual_seed(7)
lin = nn.Linear(50, 40)
b = 1 / math.sqrt(50)
expect(float(lin.weight.abs().max()) <= b and float(lin.bias.abs().max()) <= b, "Linear init bound")
expect(close(stats(lin.weight)[1], b / math.sqrt(3), 0.03 * b), "Linear weight spread")
conv = nn.Conv2d(4, 6, 3)
b = 1 / math.sqrt(36)
expect(float(conv.weight.abs().max()) <= b and float(conv.bias.abs().max()) <= b, "Conv2d init bound")
emb = nn.Embedding(500, 64, padding_idx=3)
mean, std, _, _ = stats(emb.weight)
expect(close(mean, 0, 0.02) and close(std, 1, 0.02) and float(emb.weight[3].abs().sum()) == 0, "Embedding init")
for m in (nn.LayerNorm(5), nn.BatchNorm2d(5), nn.GroupNorm(1, 5)):
    expect(bool((m.weight == 1).all()) and bool((m.bias == 0).all()), type(m).__name__ + " init")
mha = nn.MultiheadAttention(16, 4)
xb = math.sqrt(6.0 / (48 + 16))
expect(float(mha.in_proj_weight.abs().max()) <= xb, "MHA in_proj xavier")
expect(float(mha.in_proj_bias.abs().sum()) == 0 and float(mha.out_proj.bias.abs().sum()) == 0, "MHA biases")

# Reproducibility: the same seed builds the same model; a different one does not.
torch.manual_seed(123)
m1 = nn.Sequential(nn.Linear(3, 4), nn.Conv1d(2, 2, 3), nn.Embedding(5, 2))
torch.manual_seed(123)
m2 = nn.Sequential(nn.Linear(3, 4), nn.Conv1d(2, 2, 3), nn.Embedding(5, 2))
m3 = nn.Sequential(nn.Linear(3, 4), nn.Conv1d(2, 2, 3), nn.Embedding(5, 2))
same = all(bool((a == b).all()) for a, b in zip(m1.parameters(), m2.parameters()))
differ = any(bool((a != b).any()) for a, b in zip(m1.parameters(), m3.parameters()))
expect(same and differ, "manual_seed reproducibility")

if failures:
    for f in failures:
        print("FAIL", f)
    raise SystemExit(1)
print("ok")
