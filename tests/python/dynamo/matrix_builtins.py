"""Semantics matrix: builtins (issue 27 requirements 1 and 2). See `_matrix.py`."""
import abc
import collections.abc

import torch
from _matrix import entry, run

X = torch.arange(6.0).reshape(2, 3)
V = torch.arange(4.0)


def double(v):
    return v * 2


def is_even(v):
    return v % 2 == 0


class Box:
    kind = "box"

    def __init__(self, v):
        self.v = v

    def __call__(self, t):
        return t + self.v


class Plain:
    def __init__(self):
        self.a = 1


class Base:
    def scale(self):
        return 2


class Child(Base):
    def scale(self):
        return super().scale() + 1


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...


class Square(Shape):
    def area(self):
        return 4


BOX = Box(3)


@entry(X)
def map_lambda(x):
    return list(map(lambda v: v + 1, [1, 2, 3])), x + 1


@entry(X)
def map_builtin(x):
    return list(map(abs, [-1, 2, -3])), list(map(str, (1, 2))), x + 1


@entry(X)
def map_user_fn_tensors(x):
    return list(map(double, [x, x + 1]))


@entry(X)
def map_two_iterables(x):
    return list(map(lambda a, b: a * b, [x, x], [1, 2]))


@entry(X)
def filter_lambda(x):
    return list(filter(lambda v: v > 1, [0, 1, 2, 3])), x + 1


@entry(X)
def filter_user_fn(x):
    return [x * v for v in filter(is_even, range(6))]


@entry(X)
def filter_none(x):
    return list(filter(None, [0, 1, "", "a", None])), x + 1


@entry(X)
def zip_strict(x):
    return [a * b for a, b in zip([x, x], [1, 2], strict=True)]


@entry(X)
def enumerate_start(x):
    return [x * i for i, _ in enumerate("ab", start=3)]


@entry(X)
def reversed_list(x):
    return [x + v for v in reversed([1, 2, 3])], list(reversed(range(3)))


@entry(X)
def sorted_key(x):
    return sorted(["bb", "a", "ccc"], key=len), x + 1


@entry(X)
def sorted_key_reverse(x):
    return sorted([3, 1, 2], key=lambda v: -v, reverse=True), x + 1


@entry(X)
def min_max_key(x):
    return min([3, -5, 2], key=abs), max(["a", "bbb"], key=len), x + 1


@entry(X)
def min_max_default(x):
    return min([], default=7), max((), default=None), x + 1


@entry(torch.tensor(2.0), torch.tensor(3.0))
def max_of_tensors(x, y):
    return max(x, y), min(x, y)


@entry(X)
def sum_start(x):
    return sum([1, 2, 3], start=10), sum([x, x], start=x), sum([[1], [2]], [])


@entry(X)
def any_all_generators(x):
    return any(v > 2 for v in [1, 2, 3]), all(v > 0 for v in [1, 2, 3]), x + 1


@entry(X)
def iter_next_default(x):
    it = iter([x, x + 1])
    a = next(it)
    b = next(it)
    c = next(it, None)
    return a, b, c


@entry(X)
def next_on_generator(x):
    g = (x * i for i in range(3))
    next(g)
    return next(g), next(g, "done"), next(g, "done")


@entry(X)
def callable_checks(x):
    return callable(BOX), callable(Plain()), callable(len), callable(3), callable(Box), x + 1


@entry(X)
def isinstance_tuple(x):
    return isinstance(3, (str, int)), isinstance(x, (int, torch.Tensor)), x + 1


@entry(X)
def isinstance_abc(x):
    return (
        isinstance([], collections.abc.Sequence),
        isinstance({}, collections.abc.Mapping),
        isinstance(Square(), Shape),
        x + 1,
    )


@entry(X)
def issubclass_checks(x):
    return issubclass(Child, Base), issubclass(bool, (str, int)), issubclass(Square, Shape), x + 1


@entry(X)
def id_of_objects(x):
    return id(BOX) == id(BOX), id(x) == id(x), x + 1


@entry(X)
def hash_consts(x):
    return hash(3) == hash(3.0), hash("a") == hash("a"), hash((1, 2)) == hash((1, 2)), x + 1


@entry(X)
def numeric_builtins(x):
    return divmod(7, 3), round(2.675, 2), round(3.5), pow(2, 10), pow(3, 2, 5), abs(-4.5), x + 1


@entry(X)
def chr_ord(x):
    return chr(65), ord("a"), x * ord("b")


@entry(X)
def conversions_on_consts(x):
    return bool(0), int("12"), int(3.9), float("1.5"), str(12), x + 1


@entry(X)
def format_and_fstrings(x):
    n = 3
    return format(3.14159, ".2f"), f"{n:03d}-{'a'!r}-{2.5:.1f}", f"{n}" * 2, x + 1


@entry(X)
def repr_of_consts(x):
    return repr(3), repr("a"), repr((1, "b")), repr(None), x + 1


@entry(X)
def getattr_setattr_user(x):
    p = Plain()
    setattr(p, "b", 2)
    return getattr(p, "a") + getattr(p, "b") + getattr(p, "c", 10), x + 1


@entry(X)
def delattr_hasattr_user(x):
    p = Plain()
    p.b = 5
    delattr(p, "b")
    return hasattr(p, "a"), hasattr(p, "b"), x + 1


@entry(X)
def super_call(x):
    return x * Child().scale()


@entry(X)
def type_and_class(x):
    b = Box(1)
    return type(b) is Box, b.__class__ is Box, type(b).__name__, b.__class__.__name__, x + 1


@entry(X)
def slice_objects(x):
    s = slice(0, 2)
    t = slice(None, None, -1)
    return x[:, s], [1, 2, 3][t], s.start, s.stop, s.step


@entry(X)
def len_and_range(x):
    return len(range(2, 10, 3)), list(range(5))[1:3], x * len(x)


run(__file__, known={})
