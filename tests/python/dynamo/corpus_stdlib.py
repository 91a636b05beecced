"""Standard-library helpers Dynamo traces: `operator`, `functools.partial`, `itertools` basics,
`math` on constants, dataclass and namedtuple attributes, and f-strings on constants."""
import dataclasses
import functools
import itertools
import math
import operator
from collections import namedtuple

import torch
from _corpus import check, done

Point = namedtuple("Point", ["x", "y"])


@dataclasses.dataclass
class Config:
    hidden: int = 4
    scale: float = 0.5
    act: str = "relu"


CONF = Config()
PT = Point(2.0, -1.0)


def operator_on_tensors(x, y):
    return operator.add(x, y), operator.mul(x, 2), operator.neg(y), operator.truediv(x, y)


def operator_on_consts(x):
    k = operator.add(2, 3) * operator.mul(2, 2) - operator.floordiv(9, 2)
    return x * k


def operator_getitem(xs):
    return operator.getitem(xs, 1) + operator.itemgetter(0)(xs)


def operator_attrgetter(x):
    return x * operator.attrgetter("scale")(CONF)


def operator_compare(x):
    if operator.lt(1, 2) and operator.eq("a", "a"):
        return x + 1
    return x


def scaled(t, k, shift=0.0):
    return t * k + shift


def partial_call(x):
    f = functools.partial(scaled, k=2.0)
    return f(x) + f(x, shift=1.0)


PARTIAL = functools.partial(scaled, k=3.0, shift=-1.0)


def partial_global(x):
    return PARTIAL(x)


def partial_of_torch_op(x, y):
    add2 = functools.partial(torch.add, alpha=2)
    return add2(x, y)


def functools_reduce(xs):
    return functools.reduce(operator.add, xs)


def itertools_product(x):
    acc = x
    for a, b in itertools.product([1, 2], [3, 4]):
        acc = acc + a * b
    return acc


def itertools_chain(xs, ys):
    return [t * 2 for t in itertools.chain(xs, ys)]


def itertools_accumulate_consts(x):
    sizes = list(itertools.accumulate([1, 2, 3]))
    return x * sizes[-1]


def itertools_count_zip(xs):
    return [t * i for i, t in zip(itertools.count(1), xs)]


def partial_with_tensor_arg(x, y):
    f = functools.partial(torch.add, y)
    g = functools.partial(f, alpha=3)
    return g(x), f.func is torch.add, len(g.args)


def operator_getters(xs, d):
    first_two = operator.itemgetter(0, 1)(xs)
    return first_two[0] + first_two[1] * operator.itemgetter("w")(d)


def itertools_tensors(xs):
    pairs = [a @ b.t() for a, b in itertools.product(xs, repeat=2)]
    sl = list(itertools.islice(xs, 1, None))
    combos = [a - b for a, b in itertools.combinations(xs, 2)]
    return pairs, sl, combos, list(itertools.repeat(xs[0], 2))


def math_consts(x):
    return x * math.pi + math.sqrt(4.0) + math.floor(2.7) + math.log(math.e)


def math_on_shapes(x):
    n = math.prod(x.shape)
    return x.reshape(n) / math.sqrt(n)


def dataclass_attrs(x):
    y = x * CONF.scale
    if CONF.act == "relu":
        y = y.relu()
    return y.reshape(-1, CONF.hidden // 2)


def dataclass_arg(cfg, x):
    return x * cfg.scale + cfg.hidden


def dataclass_fields_consts(x):
    names = [f.name for f in dataclasses.fields(CONF)]
    return x * len(names)


def dataclass_construct(x):
    cfg = Config(hidden=2)
    return x * cfg.scale + cfg.hidden


def namedtuple_attrs(x):
    return x * PT.x + PT.y


def namedtuple_arg(p):
    return p.x * p.y, p[0] - p[1]


def namedtuple_unpack(p):
    a, b = p
    return a + b


def namedtuple_build(x):
    p = Point(x, x * 2)
    return p.y - p.x


def namedtuple_return(x):
    return Point(x + 1, x - 1)


def fstring_const(x, name="w"):
    key = f"{name}_{3}"
    d = {"w_3": 2.0}
    return x * d[key]


def fstring_format_spec(x):
    s = f"{3.14159:.2f}|{7:03d}|{'ab'!r}"
    if s == "3.14|007|'ab'":
        return x + 1
    return x - 1


def str_format_method(x):
    s = "{}-{}".format("a", 2)
    return x * len(s)


def fstring_of_shape(x):
    s = f"{x.shape[0]}x{x.shape[1]}"
    return x * len(s)


x, y = torch.randn(4, 6), torch.randn(4, 6)


def import_inside(x):
    import math

    return x * math.pi


def from_import_inside(x):
    from math import sqrt, tau

    return x.mul(sqrt(2.0)) + tau


def import_submodule_inside(x):
    import torch.nn.functional as F
    from torch.nn import functional

    return F.relu(x) + functional.relu(-x)

check(operator_on_tensors, x, y)
check(operator_on_consts, x)
check(operator_getitem, [x, y])
check(operator_attrgetter, x)
check(operator_compare, x)
check(partial_call, x)
check(partial_global, x)
check(partial_of_torch_op, x, y)
check(functools_reduce, [x, y, x])
check(itertools_product, x)
check(itertools_chain, [x], (y, x))
check(itertools_accumulate_consts, x)
# itertools.count is a generator polyfill Dynamo runs lazily (as PyTorch's).
check(itertools_count_zip, [x, y])
check(partial_with_tensor_arg, x, y)
check(operator_getters, [x, y], {"w": 2.0})
check(itertools_tensors, [x, y, x * 2])
check(math_consts, x)
check(math_on_shapes, x)
check(dataclass_attrs, x)
check(dataclass_arg, Config(hidden=2, scale=3.0), x)
check(dataclass_fields_consts, x)
# A dataclass instance made inside the compiled region is traced (`__init__` inlined).
check(dataclass_construct, x)
check(namedtuple_attrs, x)
check(namedtuple_arg, Point(x, y))
check(namedtuple_unpack, Point(x, y))
check(namedtuple_build, x)
check(namedtuple_return, x)
check(fstring_const, x)
check(fstring_format_spec, x)
check(str_format_method, x)
check(fstring_of_shape, x)
check(import_inside, x)
check(from_import_inside, x)
check(import_submodule_inside, x)
done()
