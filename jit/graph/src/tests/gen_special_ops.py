# Generates special_ops_golden.txt: PyTorch's erfinv, logit and xlogy on f64 and f32 inputs
# (the oracle for special_ops.rs). Run with PyTorch installed:
#   python jit/graph/src/tests/gen_special_ops.py > jit/graph/src/tests/special_ops_golden.txt
import torch

ys = [0.0, -0.0, 1e-300, 1e-20, 1e-8, 0.001, 0.1, 0.25, 0.4999, 0.5, 0.5001, 0.7, 0.9, 0.99,
      0.999999, 1 - 1e-12, 1 - 2**-52, -0.3, -0.9999, 1.0, -1.0, 1.5, float("nan")]
print("# erfinv dtype x result (hex bits)")
for dt, bits in ((torch.float64, 64), (torch.float32, 32)):
    t = torch.tensor(ys, dtype=dt)
    r = torch.erfinv(t)
    for x, v in zip(t.tolist(), r.tolist()):
        print(f"erfinv {bits} {x!r} {v!r}")
xs = [0.0, 1e-9, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0, -0.5, 2.0, float("nan")]
for eps in (None, 0.1, 0.0):
    for dt, bits in ((torch.float64, 64), (torch.float32, 32)):
        t = torch.tensor(xs, dtype=dt)
        r = torch.logit(t, eps=eps)
        for x, v in zip(t.tolist(), r.tolist()):
            print(f"logit{'' if eps is None else '_' + repr(eps)} {bits} {x!r} {v!r}")
pairs = [(0.0, 0.0), (0.0, -1.0), (0.0, float("nan")), (1.0, float("nan")), (2.0, 3.0),
         (-1.5, 0.25), (1e-30, 1e30), (3.0, 0.0), (0.5, float("inf")), (float("inf"), 1.0)]
for dt, bits in ((torch.float64, 64), (torch.float32, 32)):
    a = torch.tensor([p[0] for p in pairs], dtype=dt)
    b = torch.tensor([p[1] for p in pairs], dtype=dt)
    r = torch.xlogy(a, b)
    for x, y, v in zip(a.tolist(), b.tolist(), r.tolist()):
        print(f"xlogy {bits} {x!r} {y!r} {v!r}")
