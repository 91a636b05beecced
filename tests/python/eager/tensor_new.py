"""The legacy constructor ``Tensor.new``: sizes, torch.Size, list/tuple data (a tuple is data, not a
size), another tensor (an alias), empty, device=, and the errors. Uninitialised results
print only their shape and dtype. Stdout equals PyTorch 2.15's (recorded with /tmp/pt)."""
import torch

for dtype in (torch.float64, torch.int32, torch.bfloat16, torch.bool):
    x = torch.ones(2, dtype=dtype)
    print(dtype, x.new().shape, x.new(2, 3).shape, x.new(2, 3).dtype, x.new(torch.Size([4])).shape)
    print(x.new([1, 0]), x.new((3,)), x.new([[1, 0]]).dtype, x.new([]).shape, x.new(0).shape)
x = torch.ones(2, dtype=torch.float64)
print(x.new(x) is x, x.new(2, device="cpu").shape)
w = torch.nn.Linear(3, 2).weight
a = w.new(w)
print(a.requires_grad, a.data_ptr() == w.data_ptr(), a.grad_fn is not None)
print(w.new(4).dtype, type(w.new(4)).__name__, w.new(4).requires_grad)
for args in [("a",), (2.5,), ([1, 2], 3)]:
    try:
        x.new(*args)
    except TypeError as e:
        print("TypeError", str(e).splitlines()[0])
try:
    x.new(2, dtype=torch.float32)
except TypeError as e:
    print("TypeError", str(e).splitlines()[0])
