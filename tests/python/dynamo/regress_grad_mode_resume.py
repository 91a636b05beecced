"""A graph break inside `with torch.no_grad()`: the resumed frame starts with grad off and leaves the
block, and the ops after it must record autograd history, as eager. Rynamo ran the resumed graph
under the mode at its call, so `x * 2` after the block did not require grad. Also a region entered
under no_grad that switches grad on, and a break inside `enable_grad` under an outer no_grad.
Stdout equals PyTorch 2.15's (recorded with /tmp/pt's python running this file)."""
import torch


class Holder:
    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, val):
        self._v = val


holder = Holder()


def break_in_no_grad(x):
    with torch.no_grad():
        torch._dynamo.graph_break()
        y = x * 3
    return x * 2, y


def store_to_property_in_no_grad(x):
    with torch.no_grad():
        holder.v = 1
    return (x * 2).sin()


def switch_inside(x):
    with torch.no_grad():
        y = x + 1
        with torch.enable_grad():
            z = x * 2
    return y, z


def break_in_enable_grad(x):
    with torch.enable_grad():
        torch._dynamo.graph_break()
        y = x * 2
    return y, x + 1


x = torch.tensor([0.5, 1.5], requires_grad=True)
for backend in ("eager", "aot_eager", "inductor"):
    for fn, under_no_grad in [(break_in_no_grad, False), (store_to_property_in_no_grad, False),
                              (switch_inside, False), (break_in_enable_grad, True)]:
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend=backend)
        if under_no_grad:
            with torch.no_grad():
                outs = compiled(x)
        else:
            outs = compiled(x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        flags = [t.requires_grad for t in outs]
        grads = []
        for t in outs:
            if t.requires_grad:
                (g,) = torch.autograd.grad(t.sum(), x)
                grads.append([round(v, 6) for v in g.tolist()])
        print(backend, fn.__name__, flags, grads, torch.is_grad_enabled())
