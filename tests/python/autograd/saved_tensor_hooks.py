"""saved_tensors_hooks, save_on_cpu and disable_saved_tensors_hooks; the expected output is PyTorch 2.15's."""
import torch
from torch.autograd.graph import saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks
packed = []
def pack(t):
    packed.append(tuple(t.shape))
    return t * 1
def unpack(t):
    return t * 1
x = torch.tensor([1.0, 2.0], requires_grad=True)
with saved_tensors_hooks(pack, unpack):
    y = (x.exp() * x).sum()
print(packed)
y.backward()
print(x.grad)
x.grad = None
with save_on_cpu():
    z = (x.sin() * x).sum()
z.backward()
print(x.grad)
with disable_saved_tensors_hooks("no hooks here"):
    try:
        with saved_tensors_hooks(pack, unpack):
            pass
    except RuntimeError as e:
        print("refused:", e)
def bad_pack(t):
    t.add_(1)
    return t
a = torch.tensor([1.0], requires_grad=True) * 1
try:
    with saved_tensors_hooks(bad_pack, unpack):
        b = a.exp()
except RuntimeError as e:
    print(str(e)[:60])
