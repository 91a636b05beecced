"""Writes checkpoints with Rynamo for `_interop_check.py` to load in real PyTorch (a manual
check; CI has no PyTorch): `rynamo _interop_write.py DIR && python _interop_check.py DIR`."""

import sys
from collections import OrderedDict

import torch
from safetensors.torch import save_file

out = sys.argv[1]
big = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 4
data = OrderedDict()
for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool):
    data[str(d)] = (torch.arange(6) % 3 == 1).to(d) if d == torch.bool else torch.arange(6).reshape(2, 3).to(d)
data["big"] = big
data["view"] = big[1:3, ::2]
data["t"] = big.t()
data["param"] = torch.nn.Parameter(torch.ones(3))
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
for p in model.parameters():
    p.grad = torch.ones_like(p)
opt.step()
data["model"] = model.state_dict()
data["optim"] = opt.state_dict()
data["nested"] = {"list": [torch.zeros(1), 2, "s"], "tuple": (1.5, None)}
torch.save(data, f"{out}/rynamo_checkpoint.pt")
save_file({"weight": big, "ids": torch.tensor([3, 1, 2])}, f"{out}/rynamo.safetensors", metadata={"by": "rynamo"})
print("written")
