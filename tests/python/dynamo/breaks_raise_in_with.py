"""A graph break inside a `with` block whose unsupported instruction raises: the block's
`__exit__` still runs, as in eager (Dynamo wraps that instruction in a handler that exits the
re-entered managers and re-raises). Before, the compiled frame left grad mode off after
`with torch.no_grad()` and `config.error_on_graph_break` at the block's value."""
import torch
import torch._dynamo

from _harness import expect, done

x = torch.randn(5)


@torch._dynamo.disable
def maybe_fail(t, fail):
    # Not traceable (disabled): the compiled frame breaks at this call and runs it in Python.
    if fail:
        raise ValueError("boom")
    return t + 1


def in_no_grad(x, fail):
    with torch.no_grad():
        y = x * 2
        y = maybe_fail(y, fail)
        z = y - 1
    return z


def in_nested(x, fail):
    with torch.enable_grad():
        with torch.no_grad():
            y = x.sin()
            y = maybe_fail(y, fail)
        w = y.cos()
    return w


def in_set_grad_enabled(x, fail):
    with torch.set_grad_enabled(False):
        y = maybe_fail(x + 1, fail)
    return y * 2


def with_pending_stack(x, fail):
    with torch.no_grad():
        # The break happens with `x * 3` waiting on the stack below the call.
        y = x * 3 + maybe_fail(x, fail)
    return y


def in_inference_mode(x, fail):
    with torch.inference_mode():
        y = maybe_fail(x * 2, fail)
    return y


def handled_outside(x, fail):
    # The exception leaves the block and is caught by the caller's try: Dynamo skips frames
    # with try blocks around a break, but the callee's compiled frame must restore the mode.
    try:
        return in_no_grad(x, fail)
    except ValueError:
        return torch.is_grad_enabled()


def try_around_with(x, fail):
    # The try block around the with block catches the exception: no resume function can own
    # the handler, so the frame runs eagerly (before, only the innermost block was looked at,
    # and the exception escaped the compiled frame past the except clause).
    try:
        with torch.no_grad():
            y = maybe_fail(x * 2, fail)
    except ValueError:
        y = x - 1
    return y, torch.is_grad_enabled()


def break_in_except(x, fail):
    try:
        raise KeyError("k")
    except KeyError:
        y = maybe_fail(x, fail)
    return y


def outcome(fn, *args):
    """(result or exception text, grad mode, inference mode) after calling fn."""
    try:
        r = fn(*args)
    except Exception as e:
        r = f"{type(e).__name__}: {e}"
    state = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    torch.set_grad_enabled(True)
    return r, state


def same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return a == b


for fn in (in_no_grad, in_nested, in_set_grad_enabled, with_pending_stack, in_inference_mode,
           handled_outside, try_around_with, break_in_except):
    for grad in (True, False):
        torch._dynamo.reset()
        opt = torch.compile(fn, backend="eager")
        # The passing call compiles (and breaks); the failing calls run the cached code.
        for fail in (False, True, True, False):
            torch.set_grad_enabled(grad)
            want, want_state = outcome(fn, x, fail)
            torch.set_grad_enabled(grad)
            got, got_state = outcome(opt, x, fail)
            name = f"{fn.__name__}(grad={grad}, fail={fail})"
            if not same(got, want):
                expect(name, got, want)
            expect(name + " modes after", got_state, want_state)

# error_on_graph_break(False) around a break: the config is restored when the
# instruction at the break raises.
config = torch._dynamo.config


def relaxed_block(x, fail):
    with torch._dynamo.error_on_graph_break(False):
        y = maybe_fail(x * 2, fail)
    return y + 1


torch._dynamo.reset()
opt = torch.compile(relaxed_block, backend="eager")
before = config.error_on_graph_break
expect("relaxed_block ok", same(opt(x, False), relaxed_block(x, False)), True)
try:
    opt(x, True)
    expect("relaxed_block raises", "no exception", "ValueError")
except ValueError as e:
    expect("relaxed_block message", str(e), "boom")
expect("error_on_graph_break after the raise", config.error_on_graph_break, before)
done()
