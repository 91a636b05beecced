"""The ops added through their definitions alone, under Dynamo: each traces into one graph that
matches eager exactly (counting backend), and the inductor (dynasm JIT) backend runs them fused
with eager's results: f64 bitwise, f32 within torch.testing's default tolerances (the JIT's and
eager's vector logs are each within 2 ulp of the true log, not bitwise each other's)."""
import torch
import torch.special as sp

from _harness import check, done, expect

u = torch.tensor([0.0, 0.05, 0.3, 0.5, 0.9, 1.0, -0.5, 1.5, float("nan")] * 3)
a = torch.tensor([0.0, 0.0, 1.0, 2.0, -1.5, 0.0] * 4)
b = torch.tensor([0.0, float("nan"), float("nan"), 3.0, 0.25, -1.0] * 4)


def logits(x):
    return torch.logit(x), x.logit(eps=0.1), sp.logit(x, 0.25), sp.expit(x) * 2


def in_place(x):
    y = x * 1.0
    y.logit_(eps=0.2)
    z = x.clone()
    z.nan_to_num_(posinf=5.0)
    return y, z


def specials(x, y):
    return torch.xlogy(x, y) + sp.erfinv(y.clamp(-1, 1)), sp.xlogy(2.0, y), x.xlogy(3)


check(logits, u)
check(in_place, u)
check(specials, a, b)
check(specials, a.double(), b.double())


def fused(x, y):
    return torch.xlogy(torch.logit(x, eps=0.05) + 1, y) * torch.erfinv(x * 0.5)


x = torch.rand(64, 33)
y = torch.rand(64, 33) * 4
for dt, rtol, atol in ((torch.float64, 0.0, 0.0), (torch.float32, 1.3e-6, 1e-5)):
    torch._dynamo.reset()
    xs, ys = x.to(dt), y.to(dt)
    want = fused(xs, ys)
    got = torch.compile(fused, backend="inductor")(xs, ys)
    expect(f"inductor {dt}", torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True), True)
done()
