"""Correctness corpus: exceptions raised and handled inside compiled code. As in PyTorch 2.x
(3.11+ exception tables), `raise` inside a `try` whose handler is in the traced frames stays in
the graph: no break; an exception that leaves the compiled frame is an "Observed exception"
break and the frame runs eagerly, raising the same exception."""
import torch
import torch._dynamo
from _corpus import check, done
import _harness


class ConfigError(Exception):
    pass


class StrictConfigError(ConfigError):
    pass


def caught_same_frame(x):
    try:
        raise ValueError("bad")
    except ValueError:
        y = x + 1
    return y * 2


def raiser(t, kind):
    if kind == "key":
        raise KeyError("k")
    if kind == "cfg":
        raise StrictConfigError("strict", 3)
    return t.sin()


def caught_from_callee(x):
    try:
        y = raiser(x, "key")
    except KeyError:
        y = x - 1
    return y.cos()


def no_raise_in_try(x):
    try:
        y = raiser(x, "none")
    except KeyError:
        y = x - 1
    return y


def second_clause_tuple(x):
    try:
        raiser(x, "key")
    except (TypeError, IndexError):
        return x * 10
    except (ValueError, LookupError):  # KeyError is a LookupError
        return x * 20
    return x


def user_exception_hierarchy(x):
    try:
        raiser(x, "cfg")
    except ConfigError as e:
        code = e.args[1]
        return x * code, type(e).__name__, isinstance(e, StrictConfigError)
    return x


def message_of_exception(x):
    try:
        raise RuntimeError("shape mismatch in layer 3")
    except RuntimeError as e:
        msg = f"caught: {e}"
        n = len(str(e))
    return x + n, msg


def finally_runs(x):
    y = x
    try:
        try:
            raise ValueError
        finally:
            y = y * 3
    except ValueError:
        y = y + 1
    return y


def reraise_to_outer(x):
    log = []
    try:
        try:
            raise IndexError("inner")
        except IndexError:
            log.append("inner")
            raise
    except IndexError as e:
        log.append("outer " + str(e))
    return x.relu(), log


def raise_from(x):
    try:
        try:
            raise KeyError("a")
        except KeyError as e:
            raise ValueError("b") from e
    except ValueError as e:
        return x * 2, e.args
    return x


def raise_in_no_grad_caught(x):
    try:
        with torch.no_grad():
            y = x * 2
            raise ValueError("stop")
    except ValueError:
        inside = torch.is_grad_enabled()
    return y + 1, inside, torch.is_grad_enabled()


def exception_in_loop(x):
    total = x
    for k in range(4):
        try:
            if k % 2:
                raise ValueError(k)
            total = total + k
        except ValueError as e:
            total = total * e.args[0]
    return total


def lookup_with_default(x, table):
    try:
        k = table["scale"]
    except KeyError:
        k = 1.0
    try:
        b = table["bias"]
    except KeyError as e:
        b = len(e.args[0])
    return x * k + b


def index_fallback(x):
    items = [x, x + 1]
    try:
        third = items[2]
    except IndexError as e:
        third = x * len(str(e))
    try:
        items.pop(5)
    except IndexError:
        pass
    return third


def returns_exception(x):
    return x + 1, ValueError("made", 2)


def missing_attribute_caught(x):
    # AttributeError from a tensor is an exception the trace raises, so `except` catches it.
    try:
        tag = x.tag
    except AttributeError as e:
        tag = str(e)
    return x + 1, tag


x = torch.randn(4, 3)
xg = torch.randn(4, 3, requires_grad=True)
check(caught_same_frame, x)
check(caught_from_callee, x)
check(no_raise_in_try, x)
check(second_clause_tuple, x)
check(user_exception_hierarchy, x)
check(message_of_exception, x)
check(finally_runs, x)
check(reraise_to_outer, x)
check(raise_from, x)
check(raise_in_no_grad_caught, xg)
check(exception_in_loop, x)
check(lookup_with_default, x, {"scale": 2.0})
check(index_fallback, x)
check(missing_attribute_caught, x)


def same_exception(a, b):
    return type(a) is type(b) and a.args == b.args


# Exceptions do not compare equal by value: compare the rebuilt one by type and args.
torch._dynamo.reset()
r_eager = returns_exception(x)
r_comp = torch.compile(returns_exception, backend="eager")(x)
assert torch.equal(r_eager[0], r_comp[0]) and same_exception(r_eager[1], r_comp[1]), r_comp


def uncaught(x):
    y = x * 2
    if y.dim() == 2:
        raise StrictConfigError("no 2-d inputs", y.shape[0])
    return y


def uncaught_key_error(x, table):
    return x * table["missing"]


def uncaught_in_callee(x):
    y = x.sin()
    return raiser(y, "key")


def always_raises(x):
    # A helper that always raises: its code ends with the `raise` (no instruction after it to
    # resume at).
    y = x * 2
    raise ValueError("bad input", y.shape[0])


def calls_always_raises(x):
    y = x + 1
    return always_raises(y)


def missing_attribute(x):
    return x.foo


# An exception that leaves the compiled frame: the same exception as eager, raised by the real
# code (PyTorch: "Observed exception", the frame runs eagerly). Nothing else is printed: the
# suite fails a script whose run logs a frame-handler failure or a panic on stderr.
cases = (
    (uncaught, (x,)),
    (uncaught_in_callee, (x,)),
    (uncaught_key_error, (x, {"k": 1})),
    (always_raises, (x,)),
    (calls_always_raises, (x,)),
    (missing_attribute, (x,)),
)
for fn, args in cases:
    torch._dynamo.reset()
    try:
        fn(*args)
        raise AssertionError("eager did not raise")
    except (StrictConfigError, KeyError, ValueError, AttributeError) as e:
        want = e
    for call in range(2):
        try:
            torch.compile(fn, backend="eager")(*args)
            raise AssertionError("compiled did not raise")
        except (StrictConfigError, KeyError, ValueError, AttributeError) as e:
            assert same_exception(want, e), (want, e)

# Under fullgraph=True the exception is Dynamo's "Observed exception" instead.
for fn in (always_raises, missing_attribute):
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend="eager", fullgraph=True)(x)
        raise AssertionError("compiled did not raise")
    except torch._dynamo.exc.Unsupported as e:
        assert str(e).startswith("Observed exception"), str(e)

done()
