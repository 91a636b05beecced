"""F.interpolate traces whole in every mode (PyTorch 2.15: one graph, no break, for each case
below), and the compiled result equals eager. Before: every call broke the graph on a lookup in
a module-level dict of torch.nn's interpolate (the U-Net workload M4 ran as several graphs)."""
import torch
import torch.nn.functional as F

CASES = [
    ((1, 2, 5), dict(scale_factor=2, mode="nearest")),
    ((1, 2, 5), dict(size=8, mode="linear", align_corners=False)),
    ((1, 2, 4, 4), dict(scale_factor=2, mode="bilinear", align_corners=True)),
    ((1, 2, 4, 4), dict(size=(7, 5), mode="bilinear", align_corners=False)),
    ((1, 2, 4, 4), dict(scale_factor=2, mode="bicubic", align_corners=False)),
    ((1, 2, 6, 6), dict(size=(3, 4), mode="area")),
    ((1, 2, 4, 4), dict(scale_factor=1.5, mode="nearest-exact")),
    ((1, 1, 3, 3, 3), dict(scale_factor=2, mode="trilinear", align_corners=False)),
]

failures = []
for shape, kw in CASES:
    def f(x, kw=kw):
        return F.interpolate(x, **kw) * 2 + 1

    x = torch.linspace(-1, 1, steps=torch.Size(shape).numel()).reshape(shape)
    torch._dynamo.reset()
    e = torch._dynamo.explain(f)(x)
    got = (e.graph_count, e.graph_break_count)
    if got != (1, 0):
        failures.append(f"{kw}: {got[0]} graphs, {got[1]} breaks: {[r.reason[:120] for r in e.break_reasons]}")
    torch._dynamo.reset()
    out, ref = torch.compile(f)(x), f(x)
    if not torch.allclose(out, ref, rtol=1.3e-6, atol=1e-5):
        failures.append(f"{kw}: compiled differs from eager by {(out - ref).abs().max().item()}")
for msg in failures:
    print("FAIL", msg)
assert not failures
print("ok", len(CASES))
