"""Which tensors inference mode makes inference tensors (PyTorch 2.15): only those allocated inside
it. A normal tensor written in place inside it (a KV cache, as LLaMA's reference model fills
`cache_k[:b, pos:pos + n] = xk` under `@torch.inference_mode()`) and views of normal tensors stay
normal, so they can be written in place afterwards; inference tensors cannot. The .out is PyTorch's
output, eager and compiled."""
import torch


def report(label, **ts):
    print(label, " ".join(f"{k}={v.is_inference()}" for k, v in ts.items()))


def inplace_outside(label, t):
    try:
        t.add_(1)
        print(label, "in-place outside: ok")
    except RuntimeError as e:
        print(label, "in-place outside:", str(e).split(".")[0])


normal = torch.zeros(2, 3)
with torch.inference_mode():
    new = torch.ones(1, 3)
    made = torch.tensor([1.0, 2.0])
    normal[:1] = new
    normal.mul_(2)
    view = normal[1:]
    tview = normal.t()
    same = normal.to(new)
    result = normal + new
    clone = normal.clone()
    inf_view = new[0]
    report("inside", normal=normal, new=new, made=made, view=view, tview=tview, result=result, clone=clone,
           inf_view=inf_view)
    print("to returns self", same is normal)
report("after", normal=normal, view=view, new=new)
inplace_outside("normal", normal)
inplace_outside("new", new)
inplace_outside("result", result)
print(normal)


class Cache(torch.nn.Module):
    """LLaMA's attention cache pattern: a plain attribute tensor, filled under inference mode."""

    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(2, 4)

    @torch.inference_mode()
    def forward(self, x, pos):
        self.cache = self.cache.to(x)
        self.cache[:, pos:pos + x.shape[1]] = x
        return self.cache[:, :pos + x.shape[1]].sum(1)


# Compiled with the eager backend: PyTorch 2.15's inductor fails on this module ("Cannot set
# version_counter for inference tensor" in AOT's functionalization).
for backend in (None, "eager"):
    torch._dynamo.reset()
    m = Cache()
    f = torch.compile(m, backend=backend) if backend else m
    print(backend or "not compiled", f(torch.ones(2, 2), 0), f(torch.full((2, 1), 3.0), 2))
    report("cache", cache=m.cache)
    m.cache.zero_()
    print("zeroed", m.cache.sum().item())


# What inference mode makes of views, copies and factories (PyTorch 2.15's is_inference()).
grad_leaf = torch.ones(2, 2, requires_grad=True)
plain = torch.zeros(3)
with torch.inference_mode():
    made = {"detach": grad_leaf.detach(), "data": grad_leaf.data, "tensor": torch.tensor([1.0]),
            "new_zeros": plain.new_zeros(2), "to double": plain.to(torch.float64), "view_as": plain.view_as(plain),
            "reshape": plain.reshape(3, 1), "[0]": plain[0], "unbind": plain.unbind()[0],
            "expand": plain.expand(2, 3), "contiguous": plain.contiguous(), "add_": plain.add_(1),
            "zeros_like": torch.zeros_like(plain), "arange": torch.arange(3), "split": plain.split(1)[0],
            "diagonal": torch.eye(2).diagonal(), "T": grad_leaf.T, "index": plain[[0, 1]], "float()": plain.float(),
            "narrow": plain.narrow(0, 0, 1), "squeeze": plain.unsqueeze(0).squeeze(0)}
print(" ".join(f"{k}={v.is_inference()}" for k, v in made.items()))
print("plain", plain.is_inference(), plain)
