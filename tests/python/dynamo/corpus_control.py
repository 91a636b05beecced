"""Branches on trace-time values (folded: only the taken side is traced, guarded by the value
it depends on), comprehensions, closures and nested functions."""
import torch
from _corpus import check, check_calls, done

USE_BIAS = True
MODE = "train"


def branch_on_arg(x, flag):
    if flag:
        return x + 1
    return x - 1


def branch_on_int_arg(x, n):
    if n > 2:
        return x * n
    elif n == 2:
        return x + n
    return x


def branch_on_global(x):
    if USE_BIAS:
        x = x + 0.5
    if MODE == "eval":
        return x * 0
    return x * 2


def branch_on_shape(x):
    if x.shape[0] > 3:
        return x.sum(0)
    return x.sum(1)


def branch_on_dtype(x):
    if x.dtype == torch.float32:
        return x * 2
    return x + 1


def branch_on_ndim(x):
    if x.dim() == 2 and x.numel() > 10:
        return x.t()
    return x


def branch_isinstance(x, y):
    if isinstance(y, torch.Tensor):
        return x + y
    if isinstance(y, (int, float)):
        return x * y
    return x


def ternary(x, k):
    return x * 2 if k > 0 else x / 2


def bool_ops_short_circuit(x, a, b):
    if a and not b:
        return x + 1
    if a or b:
        return x - 1
    return x


def or_default(x, scale=None):
    scale = scale or 3.0
    return x * scale


def list_comprehension(xs):
    return [t * 2 for t in xs]


def list_comprehension_filter(x):
    return [x * i for i in range(6) if i % 2 == 1]


def nested_comprehension(x):
    return [[x + i + j for j in range(2)] for i in range(2)]


def dict_comprehension(xs):
    return {i: t.sum() for i, t in enumerate(xs)}


def generator_to_sum(xs):
    return sum(t.mean() for t in xs)


def generator_to_tuple(x):
    return tuple(x * i for i in range(3))


def squares(t, n):
    for i in range(n):
        yield t * i


def user_generator_loop(x):
    acc = x
    for v in squares(x, 3):
        acc = acc + v
    return acc


def delegate(t):
    yield t + 1
    yield t * 2
    return t.sum()


def delegating(t):
    total = yield from delegate(t)
    yield total
    yield from [t - 1, t - 2]
    yield from (t.cos(),)


def yield_from_generators(x):
    return [y.sin() for y in delegating(x)]


def generator_next_and_rest(x):
    g = squares(x, 4)
    first = next(g)
    rest = list(g)
    return first, rest


TRACE = []


def noisy(k):
    TRACE.append(k)
    return k > 1


def any_short_circuits(x):
    if any(noisy(k) for k in [1, 2, 3]):
        return x + 1
    return x


def generator_interleaves_with_loop(x):
    state = [0]

    def gen():
        for _ in range(3):
            yield state[0]

    out = x
    for v in gen():
        state[0] = v + 1
        out = out + v
    return out


def closure_counter(x):
    total = x

    def add(v):
        nonlocal total
        total = total + v

    add(x)
    add(1.0)
    return total


def closure_factory(x):
    def make(k):
        def f(t):
            return t * k

        return f

    double, triple = make(2), make(3)
    return double(x) + triple(x)


def closure_reads_later_binding(x):
    fns = [lambda t, i=i: t + i for i in range(3)]
    return [f(x) for f in fns]


def nested_def_defaults(x):
    def inner(t, scale=2.0, *, shift=1.0):
        return t * scale + shift

    return inner(x), inner(x, 3.0, shift=0.0)


def early_return(x, n):
    for i in range(n):
        if i == 2:
            return x * i
        x = x + 1
    return x


def assert_const(x):
    assert x.dim() == 2, "needs 2-d"
    return x + 1


def try_no_raise(x):
    try:
        y = x + 1
    finally:
        pass
    return y


def with_no_grad(x):
    with torch.no_grad():
        y = x * 2
    return y + 1


def grad_mode_queries(x):
    a = torch.is_grad_enabled()
    with torch.no_grad():
        b = torch.is_grad_enabled()
        with torch.enable_grad():
            c = torch.is_grad_enabled()
        y = x * 2
    return y, a, b, c, torch.is_grad_enabled()


@torch.no_grad()
def decorated_no_grad(t):
    return t.sin(), torch.is_grad_enabled()


def calls_decorated(x):
    return decorated_no_grad(x + 1)


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(branch_on_arg, x, True)
check(branch_on_arg, x, False)
check(branch_on_int_arg, x, 3)
check(branch_on_int_arg, x, 2)
check(branch_on_int_arg, x, 1, graphs=0)
check(branch_on_global, x)
check(branch_on_shape, x)
check(branch_on_shape, torch.randn(2, 5))
check(branch_on_dtype, x)
check(branch_on_dtype, torch.randint(0, 5, (3,)))
check(branch_on_ndim, x)
check(branch_on_ndim, torch.randn(3), graphs=0)
check(branch_isinstance, x, y)
check(branch_isinstance, x, 2.5)
check(ternary, x, 1)
check(ternary, x, -1)
check(bool_ops_short_circuit, x, True, False)
check(bool_ops_short_circuit, x, False, True)
check(bool_ops_short_circuit, x, False, False, graphs=0)
check(or_default, x)
check(or_default, x, 0.5)
check(list_comprehension, [x, y])
check(list_comprehension_filter, x)
check(nested_comprehension, x)
check(dict_comprehension, [x, y])
check(generator_to_sum, [x, y])
check(generator_to_tuple, x)
check(user_generator_loop, x)
check(generator_next_and_rest, x)
TRACE.clear()
# The global list's length is guarded, so the second call recompiles (as in PyTorch).
check(any_short_circuits, x, graphs=2)
if TRACE != [1, 2, 1, 2, 1, 2, 1, 2]:
    print("FAIL any() over a generator resumed it a wrong number of times:", TRACE)
check(generator_interleaves_with_loop, x)
check(closure_counter, x)
check(closure_factory, x)
check(closure_reads_later_binding, x)
check(nested_def_defaults, x)
check(early_return, x, 5)
check(early_return, x, 2)
check(assert_const, x)
check(try_no_raise, x)
check(with_no_grad, x)
check(yield_from_generators, x)
check(grad_mode_queries, x)
check(calls_decorated, x)
# A branch on an argument: a new value of the flag recompiles, a seen one reuses its entry.
check_calls(branch_on_arg, [(x, True), (x, False), (x, True), (y, False)], graphs=2)
# The int is static on the first compile and dynamic after it changed; with
# assume_static_by_default=False (RYNAMO_DYNAMIC_SHAPES=1) it is dynamic from the start (PyTorch 2.15: 2 and 1).
check_calls(branch_on_int_arg, [(x, 3), (x, 4), (x, 3)], graphs=2 if torch._dynamo.config.assume_static_by_default else 1)
done()
