"""Built-in layers compiled directly (`torch.compile(nn.Sequential(...))`, `Module.compile()`):
their `forward` in the frozen `torch.nn` package is traced as in Dynamo (one graph each), and
results equal eager."""
import torch
import torch.nn as nn
from torch._dynamo.testing import CompileCounter

failures = []


def check(name, module, *inputs, graphs=1, ops=None):
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(module, backend=cnt)
    for _ in range(2):
        got, want = opt(*inputs), module(*inputs)
        if not torch.allclose(got, want, rtol=1e-5, atol=1e-6):
            failures.append(f"{name}: compiled != eager")
    if cnt.frame_count != graphs:
        failures.append(f"{name}: {cnt.frame_count} graphs, expected {graphs}")
    if ops is not None and cnt.op_count != ops:
        failures.append(f"{name}: {cnt.op_count} ops, expected {ops}")


torch.manual_seed(0)
x = torch.randn(3, 8)
check("Linear", nn.Linear(8, 4), x, ops=1)
check("Sequential", nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.LayerNorm(4)), x, ops=4)
check("Conv2d", nn.Conv2d(3, 4, 3, padding=1), torch.randn(2, 3, 6, 6), ops=1)
check("TransformerEncoderLayer eval", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(),
      torch.randn(2, 5, 8))

lin = nn.Linear(4, 4)
cnt = CompileCounter()
lin.compile(backend=cnt)
y = torch.randn(2, 4)
if not torch.allclose(lin(y), lin.forward(y)) or cnt.frame_count != 1:
    failures.append(f"Module.compile: {cnt.frame_count} graphs")

for f in failures:
    print("FAIL", f)
if failures:
    raise SystemExit(1)
print("ok")
