# A uint8 index tensor is a mask (PyTorch's deprecated byte masks), not integer positions: reading
# it as positions gave a silently different result. stdout equals PyTorch 2.15's
# (byte_mask_index.out, recorded with `/tmp/pt/bin/python byte_mask_index.py`).
import warnings

import torch

x = torch.arange(12.0).reshape(3, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(x[torch.tensor([1, 0, 1], dtype=torch.uint8)])
    print(x[torch.tensor(1, dtype=torch.uint8)].shape, x[torch.tensor(0, dtype=torch.uint8)].shape)
    print(x[:, torch.tensor([0, 1, 1, 0], dtype=torch.uint8)])
    print(x[torch.tensor([[1, 0, 0, 1]] * 3, dtype=torch.uint8)])
    y = x.clone()
    y[torch.tensor([0, 1, 0], dtype=torch.uint8)] = torch.tensor([-1.0, -2.0, -3.0, -4.0])
    print(y)
    try:
        y[torch.tensor([0, 1, 0], dtype=torch.uint8)] = -1.0
    except RuntimeError as e:
        print("RuntimeError:", e)
    try:
        x[torch.tensor([1, 0], dtype=torch.uint8)]
    except IndexError as e:
        print("IndexError:", e)
print(sorted({str(w.message).split(' (Triggered')[0] for w in caught}))
# bool masks and integer indices are unchanged
print(x[torch.tensor([True, False, True])].shape, x[torch.tensor([1, 0, 1])].shape)
