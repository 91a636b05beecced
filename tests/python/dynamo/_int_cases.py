"""Int arguments of compiled functions (issue 28, automatic dynamic for ints): the functions,
the call sequences and a seeded generator of more, shared by `dynamic_int_inputs.py` (Rynamo)
and `_int_record.py` (real PyTorch records the compile counts it pins). Each function takes a
tensor `x` of shape `(r, 4)` and an int `n`; results are tensors, ints or tuples of them."""
import math
import random

import torch

# Call sequences: the values of `n` (and the rows of `x`).
SEQUENCES = {
    "grow": [(3, 2), (3, 3), (3, 4), (3, 5), (3, 7), (3, 9)],
    "mixed": [(3, 2), (3, 3), (3, 1), (3, 0), (3, 4), (3, -3), (3, 6)],
    "both": [(2, 2), (3, 3), (4, 4), (5, 6)],
}
MODES = {"auto": None, "true": True}


def functions():
    """The hand-written uses of an int argument, by name."""

    def mul(x, n):
        return x * n

    def arith(x, n):
        return (x + n) - 2 * n + n // 2 - n % 3

    def pow_(x, n):
        return x ** (n % 3)

    def arange(x, n):
        return torch.arange(abs(n) + 1) + x.sum()

    def full(x, n):
        return torch.full((2,), n) + x.sum()

    def new_zeros(x, n):
        return x.new_zeros(n % 4 + 1, 2) + 1

    def slice_(x, n):
        return x[:, : n % 5] + 1

    def branch(x, n):
        return x + 1 if n > 4 else x - 1

    def equal(x, n):
        return x + 1 if n == 3 else x - 1

    def index_list(x, n):
        return x * [1, 2, 3, 4, 5, 6, 7, 8, 9, 10][n % 10]

    def loop(x, n):
        for _ in range(n % 4):
            x = x * 2
        return x

    def returned(x, n):
        return x + n, n, n * 2 + 1

    def with_size(x, n):
        return x.new_ones(x.shape[0] + abs(n))

    def size_ret(x, n):
        return x.sum(1), x.shape[0] - n

    def two_ints(x, n):
        return x * n + (n + 1)

    def tensor_of(x, n):
        return x + torch.tensor(n)

    def truediv(x, n):
        return x * (n / 2)

    def view(x, n):
        k = n % 3 + 1
        return x.reshape(-1)[: 2 * k].reshape(k, -1) * n

    # SymFloats: float arithmetic on the int stays symbolic (PyTorch's SymFloat).
    def half_add(x, n):
        return x + n / 2, torch.add(x, -(n / 4))

    def ratio(x, n):
        return x.double() * (n / (abs(n) + 1))

    def float_mixed(x, n):
        return x * (n / 2 * 1.5 + float(n) - 0.25) + n * 0.5

    def float_ret(x, n):
        return x * 2, n / 4, float(n) + 0.5, -(n / 3)

    def float_sqrt(x, n):
        return x * math.sqrt(abs(n) / 2)

    def float_int(x, n):
        return x * math.floor(n / 3) + int(n / 2), math.ceil(n / 4)

    def float_cmp(x, n):
        return x + 1 if n / 2 > 1.2 else x - n / 3

    # `max` / `min` of ints (PyTorch's `torch.sym_max` / `sym_min`).
    def max_min(x, n):
        return x * max(n, 2) + min(n, x.shape[0]), x.new_ones(max(n, 2) - min(n, 1))

    return {f.__name__: f for f in [
        mul, arith, pow_, arange, full, new_zeros, slice_, branch, equal, index_list, loop,
        returned, with_size, size_ret, two_ints, tensor_of, truediv, view, half_add, ratio,
        float_mixed, float_ret, float_sqrt, float_int, float_cmp, max_min,
    ]}


# Generated: random expressions mixing `n`, `x.shape[0]` and constants, used as a tensor
# operand, as a size and as a returned int.
def _expr(rng, depth):
    r = rng.random()
    if depth == 0 or r < 0.25:
        r = rng.random()
        return "n" if r < 0.6 else "x.shape[0]" if r < 0.8 else str(rng.randint(1, 5))
    op = rng.choice(["+", "-", "*", "//", "%"])
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    if op in ("//", "%"):
        b = str(rng.randint(1, 4))
    return f"({a} {op} {b})"


def generated(count=16, seed=28):
    """Functions using a random expression over `n` (and `x.shape[0]`) as a tensor operand, a
    size (Python's `%` by a positive int keeps it in range) or a returned int, with sources."""
    rng = random.Random(seed)
    out = {}
    for i in range(count):
        e = _expr(rng, 3)
        kind = ["operand", "size", "ret", "compare"][i % 4]
        body = {
            "operand": f"return x * {e} + {e}",
            "size": f"return x.new_ones({e} % 6 + 1) * n",
            "ret": f"return x + n, {e}",
            "compare": f"return x + 1 if {e} > 4 else x - n",
        }[kind]
        src = f"def gen{i}(x, n):\n    {body}\n"
        scope = {"torch": torch}
        exec(compile(src, f"<gen{i}>", "exec"), scope)
        out[f"gen{i}"] = (scope[f"gen{i}"], src)
    return out


def run(fn, mode, seq, backend, compare):
    """Compiles `fn` with a counting backend in `mode`, calls it for each `(rows, n)` of `seq`,
    `compare(label, eager, compiled)` on every result; the compile count."""
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(fn, backend=cnt, dynamic=MODES[mode])
    gen = torch.Generator().manual_seed(1)
    for rows, n in seq:
        x = torch.randn(rows, 4, generator=gen)
        want, got = fn(x, n), opt(x, n)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        compare(f"{fn.__name__}/{mode}/n={n}", want, got)
    return cnt.frame_count


def all_cases():
    cases = dict(functions())
    cases.update({k: f for k, (f, _) in generated().items()})
    return cases
