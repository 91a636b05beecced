"""Grad-mode managers inside compiled code: `with torch.no_grad()` / `enable_grad()` /
`set_grad_enabled()` blocks and the decorator forms are traced (is_grad_enabled() folds to the
mode in effect), a graph break inside a block resumes inside it (the resume function re-enters
the block and restores the outer mode on exit), and the grad mode after the call is what eager
leaves (the harness checks it)."""
import torch
import torch._dynamo

from _harness import check, done

x = torch.randn(6)


def block(x):
    with torch.no_grad():
        y = x * 2
        inside = torch.is_grad_enabled()
    return y + 1, inside, torch.is_grad_enabled()


def nested(x):
    with torch.no_grad():
        a = x.sin()
        with torch.enable_grad():
            b = x.cos()
            on = torch.is_grad_enabled()
        off = torch.is_grad_enabled()
    return a + b, on, off


def set_mode_call(x):
    # A plain call switches the mode for the rest of the frame (and after it).
    torch.set_grad_enabled(False)
    return x + 1, torch.is_grad_enabled()


def set_mode_block(x, flag):
    with torch.set_grad_enabled(flag):
        y = x - 1
        m = torch.is_grad_enabled()
    return y, m


@torch.no_grad()
def decorated(x):
    return x * 5, torch.is_grad_enabled()


@torch.enable_grad
def decorated_bare(x):
    return x * 7, torch.is_grad_enabled()


def calls_decorated(x):
    a, m = decorated(x)
    b, n = decorated_bare(x)
    return a + b, m, n, torch.is_grad_enabled()


def break_in_block(x):
    with torch.no_grad():
        y = x * 2
        print("inside no_grad:", torch.is_grad_enabled())
        y = y + 1
        inside = torch.is_grad_enabled()
    return y * 3, inside, torch.is_grad_enabled()


def break_in_nested_blocks(x):
    with torch.enable_grad():
        with torch.no_grad():
            y = x.sin()
            torch._dynamo.graph_break()
            y = y.cos()
            inner = torch.is_grad_enabled()
        outer = torch.is_grad_enabled()
    return y, inner, outer


def break_with_pending_value(x):
    with torch.no_grad():
        # The break happens with the block's __exit__ and x * 2 on the stack.
        y = x * 2 + torch._dynamo.graph_break() if False else x * 2
        torch._dynamo.graph_break()
        z = y + 1
    return z


def manual_switch(x):
    torch._C._set_grad_enabled(False)
    y = x + 1
    torch._C._set_grad_enabled(True)
    return y, torch.is_grad_enabled()


for grad in (True, False):
    torch.set_grad_enabled(grad)
    check(block, x, graphs=1)
    check(nested, x, graphs=1)
    check(set_mode_block, x, True, graphs=1)
    check(set_mode_block, x, False, graphs=1)
    check(calls_decorated, x, graphs=1)
    check(break_in_block, x, graphs=2)
    check(break_in_nested_blocks, x, graphs=2)
    check(break_with_pending_value, x, graphs=2)
    check(manual_switch, x, graphs=1)
torch.set_grad_enabled(True)
check(set_mode_call, x, graphs=1)
torch.set_grad_enabled(True)

# A manager whose __enter__/__exit__ are Python functions is traced through them (as PyTorch
# does: one graph with fullgraph=True).
class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


manager = Ctx()


def generic_with(x):
    with manager:
        y = x + 1
    return y


check(generic_with, x, graphs=1)
torch._dynamo.reset()
torch.compile(generic_with, backend="eager", fullgraph=True)(x)

# A manager implemented natively (a lock) is not modelled: a graph break with its own code; the
# frame runs eagerly.
import threading

lock = threading.Lock()


def native_with(x):
    with lock:
        y = x + 1
    return y


torch._dynamo.reset()
try:
    torch.compile(native_with, backend="eager", fullgraph=True)(x)
    raise AssertionError("fullgraph=True must raise")
except torch._dynamo.exc.Unsupported as e:
    assert "Unsupported context manager" in str(e) and "GB0015" in str(e), str(e)
check(native_with, x, graphs=0)


def inference_block(x):
    with torch.inference_mode():
        y = x * 2
        inside = torch.is_grad_enabled()
    return y + 1, inside, torch.is_grad_enabled()


def inference_block_with_break(x):
    with torch.inference_mode():
        y = x * 2
        torch._dynamo.graph_break()
    return y + 1


def inference_flags_across_break(x):
    before = torch.is_inference_mode_enabled()
    with torch.inference_mode():
        y = x * 2
        inside = (torch.is_inference_mode_enabled(), torch.is_grad_enabled())
        torch._dynamo.graph_break()
        z = y + 1
        still = (torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    after = (torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    return z * 3, before, inside, still, after


def nested_inference_in_no_grad(x):
    with torch.no_grad():
        with torch.inference_mode():
            y = x.sin()
            torch._dynamo.graph_break()
            y = y + 1
        z = y * 2
    return z, torch.is_inference_mode_enabled(), torch.is_grad_enabled()


xg = torch.randn(6, requires_grad=True)
check(inference_block, xg)
# A break inside an inference_mode block resumes inside the block, as in PyTorch: the resume
# function gets a manager whose `prev` is the (inference, grad) pair before the block.
check(inference_block_with_break, xg, graphs=2)
check(inference_flags_across_break, xg, graphs=2)
check(nested_inference_in_no_grad, xg, graphs=2)
assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
done()
