"""The printing harness of the `*_vs_pytorch.py` scripts whose stdout is compared with PyTorch's
(`compose_vs_pytorch.py`, `scatter_reduce_vs_pytorch.py`): deterministic inputs, values printed
rounded, gradients of a fixed weighted sum, and compiled == eager."""
import torch


def det(*shape, phase=0.0, dtype=torch.float64):
    n = torch.Size(shape).numel()
    i = torch.arange(n, dtype=torch.float64)
    return (torch.sin(i * 0.61 + phase) + 0.5 * torch.cos(i * i * 0.13 + phase)).to(dtype).reshape(shape)


def fmt(v):
    if isinstance(v, torch.Tensor):
        vals = [round(float(x), 5) if v.is_floating_point() else int(x) for x in v.detach().reshape(-1)]
        return f"{str(v.dtype)[6:]}{list(v.shape)} {vals}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt(x) for x in v) + ")"
    return repr(v)


def show(label, fn, *inputs, grad=False, compiled=True):
    inputs = [x.detach().clone().requires_grad_(grad and x.is_floating_point()) if isinstance(x, torch.Tensor)
              else x for x in inputs]
    try:
        out = fn(*inputs)
    except Exception as e:  # noqa: BLE001 - the error text is part of the contract
        print(f"{label}: {type(e).__name__}: {e}")
        return
    print(f"{label}: {fmt(out)}")
    if grad:
        outs = out if isinstance(out, tuple) else (out,)
        loss = sum((o * det(*o.shape, phase=1.0, dtype=o.dtype)).sum() for o in outs)
        leaves = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
        print("  grads:", fmt(tuple(torch.autograd.grad(loss, leaves))))
    if compiled:
        torch._dynamo.reset()
        plain = [x.detach() if isinstance(x, torch.Tensor) else x for x in inputs]
        got, want = torch.compile(fn)(*plain), fn(*plain)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        same = all(torch.allclose(g, w, rtol=1.3e-6, atol=1e-5, equal_nan=True) and g.dtype == w.dtype
                   if isinstance(w, torch.Tensor) else g == w for g, w in zip(got, want))
        print("  compiled equal:", same)
