"""In-place view methods traced by Dynamo (issue 27 requirement 5: `unsqueeze_` and friends).
The object keeps its identity and takes the new layout for every alias, inside the region and
after it (the caller's tensor has the new shape and strides). Graph counts are real PyTorch
2.15's (this file runs unchanged under /tmp/pt/bin/python). With grad mode on, a tensor that
requires grad breaks instead (Rynamo does not model the leaf check or the history rebase).
A frame tensor's re-layout is applied to the caller's object after the graph and is no graph call
of its own, as in Dynamo: `under_no_grad` makes no graph, `across_a_break` one."""
import torch

from _harness import check, done, expect


def on_clones(x):
    y = x.clone()
    y.unsqueeze_(0)
    z = x.clone()
    z.t_()
    return y, z, y.shape, z.stride()


def alias_sees_it(x):
    y = x
    x.unsqueeze_(0)
    return y.shape, x + 1


def chain_then_data(x):
    a = x * 2
    b = a
    a.transpose_(0, 1)
    c = b + 1
    a.squeeze_()
    return a, b, c, a.shape, b.is_contiguous()


def list_item_and_write(x):
    y = x * 1
    items = [y]
    y.transpose_(0, 1)
    y.add_(1)
    return items[0].shape, items[0], y.stride()


def input_then_inplace_data(x):
    x.swapdims_(0, 1)
    x.mul_(3)
    return x.sum(1)


def input_as_strided(x):
    x.as_strided_((3,), (2,))
    return x + 0


def across_a_break(x):
    y = x
    x.unsqueeze_(0)
    print("", end="")
    z = y.squeeze_(0).t_()
    return z is x, y.shape, x * 2


def under_no_grad(x):
    with torch.no_grad():
        x.unsqueeze_(1)
    return x.shape


def returns_self(x):
    y = x.clone()
    return y.swapaxes_(0, 1) is y, y


m23 = torch.arange(6.0).reshape(2, 3)
for backend in ("eager", None):
    kw = {} if backend is None else {"backend": backend}
    check(on_clones, m23)
    check(alias_sees_it, m23)
    check(chain_then_data, torch.arange(3.0).reshape(1, 3, 1))
    check(list_item_and_write, m23)
    check(input_then_inplace_data, m23)
    check(input_as_strided, torch.arange(6.0))
    check(across_a_break, m23)
    check(under_no_grad, torch.ones(2, requires_grad=True), graphs=0)
    check(returns_self, m23)

# The caller's object after the region: same object, the eager layout, data written through.
for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    x = torch.arange(6.0).reshape(2, 3)
    got = torch.compile(input_then_inplace_data, backend=backend)(x)
    expect(f"{backend}: shape after the region", tuple(x.shape), (3, 2))
    expect(f"{backend}: strides after the region", x.stride(), (1, 3))
    expect(f"{backend}: data after the region", x.tolist(), [[0.0, 9.0], [3.0, 12.0], [6.0, 15.0]])
    expect(f"{backend}: result", got.tolist(), [9.0, 15.0, 21.0])
    torch._dynamo.reset()
    x = torch.arange(6.0).reshape(2, 3)
    y = x
    torch.compile(across_a_break, backend=backend)(x)
    expect(f"{backend}: alias outside the region", (y is x, tuple(y.shape)), (True, (3, 2)))


# Sizes after a re-layout under dynamic shapes: the object's sizes are the view's (an input's
# dimensions no longer line up with its own), so a compiled call never reads a stale size.
def dyn_size_after_unsqueeze(x):
    x.unsqueeze_(0)
    n = x.size(2)
    return x * n, x.shape


def dyn_transposed_input(x):
    x.t_()
    return x.reshape(x.size(0), -1).sum(1), x.numel()


def dyn_clone_relaid(x):
    y = x.clone().unsqueeze_(1)
    return y.expand(-1, 3, -1).shape, y.size(), y * y.size(0)


for fn in (dyn_size_after_unsqueeze, dyn_transposed_input, dyn_clone_relaid):
    for dynamic in (None, True):
        torch._dynamo.reset()
        opt = torch.compile(fn, backend="eager", dynamic=dynamic)
        for n in (3, 4, 5):
            a = torch.arange(2.0 * n).reshape(2, n)
            b = a.clone()
            want, got = fn(a), opt(b)
            expect(f"{fn.__name__} dynamic={dynamic} n={n}", str(got), str(want))
            expect(f"{fn.__name__} dynamic={dynamic} n={n}: layout", (b.shape, b.stride()), (a.shape, a.stride()))

done()
