"""Loads `_interop_write.py`'s files in real PyTorch and the safetensors package, and checks them."""

import sys

import torch
from safetensors.torch import load_file

d = torch.load(f"{sys.argv[1]}/rynamo_checkpoint.pt")
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
           torch.int8, torch.uint8, torch.bool):
    t = d[str(dt)]
    want = (torch.arange(6) % 3 == 1).to(dt) if dt == torch.bool else torch.arange(6).reshape(2, 3).to(dt)
    assert t.dtype == dt and torch.equal(t, want), (dt, t)
big = d["big"]
assert torch.equal(d["view"], big[1:3, ::2]) and d["t"].stride() == (1, 6)
big[1, 0] = -1
assert float(d["view"][0, 0]) == -1 and float(d["t"][0, 1]) == -1, "views do not share storage"
assert type(d["param"]) is torch.nn.Parameter
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
model.load_state_dict(d["model"])
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
opt.load_state_dict(d["optim"])
assert float(opt.state[model[0].weight]["step"]) == 1.0
assert d["nested"]["tuple"] == (1.5, None) and d["nested"]["list"][1:] == [2, "s"]
st = load_file(f"{sys.argv[1]}/rynamo.safetensors")
assert torch.equal(st["weight"], torch.arange(24, dtype=torch.float32).reshape(4, 6) / 4)
assert st["ids"].tolist() == [3, 1, 2]
print(f"PyTorch {torch.__version__} loaded Rynamo's checkpoint and safetensors file: OK")
