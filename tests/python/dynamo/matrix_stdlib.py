"""Semantics matrix: the standard library (issue 27 requirement 4). See `_matrix.py`."""
import collections
import contextlib
import dataclasses
import enum
import functools
import inspect
import itertools
import math
import operator
import typing

import torch
from _matrix import entry, run

X = torch.arange(6.0).reshape(2, 3)

Point = collections.namedtuple("Point", ["x", "y"], defaults=[0])


Outer = collections.namedtuple("Outer", ["inner"])


class Span(typing.NamedTuple):
    lo: int
    hi: int = 10

    @staticmethod
    def unit():
        return 1

    @classmethod
    def empty(cls):
        return cls(0, 0)

    def width(self):
        return self.hi - self.lo


class Color(enum.Enum):
    RED = 1
    GREEN = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: float = 0.5


@dataclasses.dataclass
class Mutable:
    a: int
    b: list = dataclasses.field(default_factory=list)


@functools.total_ordering
class Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n

    def __lt__(self, other):
        return self.n < other.n


class Lazy:
    def __init__(self, k):
        self.k = k

    @functools.cached_property
    def twice(self):
        return self.k * 2


@functools.lru_cache(maxsize=None)
def cached_sq(n):
    return n * n


@functools.cache
def cached_tensor_fn(t):
    return t * 3


def logged(fn):
    @functools.wraps(fn)
    def inner(*a):
        return fn(*a) + 1

    return inner


@logged
def add_one(t):
    """doc"""
    return t + 1


@contextlib.contextmanager
def scaled_ctx(box):
    box.append("enter")
    yield 2
    box.append("exit")


def sig_target(a, b=2, *rest, c, **kw):
    return a


@entry(X)
def deque_ops(x):
    d = collections.deque([1, 2, 3], maxlen=4)
    d.append(4)
    d.append(5)
    d.appendleft(0)
    d.rotate(1)
    d.extendleft([7, 8])
    a = d.popleft()
    b = d.pop()
    return list(d), a, b, d.maxlen, x + len(d)


@entry(X)
def deque_of_tensors(x):
    d = collections.deque()
    d.append(x)
    d.appendleft(x + 1)
    return d.pop() + d.popleft()


@entry(X)
def ordered_dict_ops(x):
    d = collections.OrderedDict(a=1, b=2, c=3)
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    k = d.popitem(last=False)
    return list(d.items()), k, x + 1


@entry(X)
def defaultdict_factories(x):
    d = collections.defaultdict(list)
    d["a"].append(x)
    e = collections.defaultdict(lambda: 5)
    e["z"] += 1
    f = collections.defaultdict(int)
    f.setdefault("k", 3)
    f["m"] += 2
    return d["a"][0] + 1, dict(e), dict(f)


@entry(X)
def counter_ops(x):
    c = collections.Counter("abracadabra")
    c.update("aa")
    return c.most_common(2), c["a"], c["zz"], x + 1


@entry(X)
def namedtuple_features(x):
    p = Point(1)
    q = p._replace(y=5)
    return p, q, q._asdict(), Point._fields, Point._make([3, 4]), x + p.x


@entry(X)
def namedtuple_static_methods(x):
    s = Span(3)
    return s, s.width(), Span.unit(), s.unit(), Span.empty(), s._replace(hi=5).width(), x * s.hi


@entry(X)
def operator_more(x):
    o = Outer(Point(2, 3))
    return (
        operator.attrgetter("inner.y", "inner.x")(o),
        operator.itemgetter(0, -1)([x, x + 1, x + 2]),
        operator.is_(None, None),
        operator.truediv(x, 2),
        operator.mod(7, 3),
        operator.and_(6, 3),
        operator.lshift(1, 4),
        operator.countOf([1, 2, 1], 1),
        operator.indexOf([1, 2, 3], 2),
    )


@entry(X)
def partial_nested(x):
    f = functools.partial(torch.add, alpha=2)
    g = functools.partial(f, x)
    return g(x), g.func is torch.add, g.args, g.keywords


@entry(X)
def reduce_ops(x):
    return functools.reduce(operator.mul, [1, 2, 3, 4]), functools.reduce(torch.add, [x, x, x], x)


@entry(X)
def lru_cache_fn(x):
    return x * cached_sq(3)


@entry(X)
def cache_on_tensors(x):
    return cached_tensor_fn(x)


@entry(X)
def wraps_fn(x):
    return add_one(x), add_one.__name__, add_one.__doc__


@entry(X)
def cached_property_attr(x):
    o = Lazy(3)
    return x * o.twice, o.twice


@entry(X)
def total_ordering_cmp(x):
    a, b = Version(1), Version(2)
    return a < b, a >= b, b > a, a <= a, x + 1


@entry(X)
def chain_ops(x):
    return list(itertools.chain([x], [x + 1])), list(itertools.chain.from_iterable([[1], [2, 3]]))


@entry(X)
def islice_iter(x):
    it = iter([x, x + 1, x + 2, x + 3])
    return list(itertools.islice(it, 1, 3)), next(it)


@entry(X)
def product_perm_comb(x):
    return (
        list(itertools.product([1, 2], "ab")),
        list(itertools.permutations([1, 2, 3], 2)),
        list(itertools.combinations([1, 2, 3], 2)),
        list(itertools.combinations_with_replacement([1, 2], 2)),
        x + 1,
    )


@entry(X)
def accumulate_groupby(x):
    acc = list(itertools.accumulate([1, 2, 3, 4], operator.mul))
    groups = [(k, len(list(g))) for k, g in itertools.groupby("aabbbc")]
    return acc, groups, x + 1


@entry(X)
def pairwise_starmap(x):
    return list(itertools.pairwise([1, 2, 3])), list(itertools.starmap(pow, [(2, 3), (3, 2)])), x + 1


@entry(X)
def takewhile_dropwhile(x):
    return (
        list(itertools.takewhile(lambda v: v < 3, [1, 2, 3, 1])),
        list(itertools.dropwhile(lambda v: v < 3, [1, 2, 3, 1])),
        x + 1,
    )


@entry(X)
def zip_longest_repeat(x):
    return list(itertools.zip_longest([1, 2, 3], "ab", fillvalue=0)), list(itertools.repeat(x, 2))


@entry(X)
def cycle_count_tee(x):
    c = itertools.cycle([1, 2])
    firsts = [next(c) for _ in range(5)]
    n = itertools.count(10, 2)
    a, b = itertools.tee([x, x + 1])
    return firsts, next(n), next(n), list(a), list(b)


@entry(X)
def operator_module(x):
    return (
        operator.add(x, 1),
        operator.sub(5, 2),
        operator.pow(2, 3),
        operator.neg(x),
        operator.truth([]),
        operator.contains([1, 2], 2),
        operator.index(3),
        operator.length_hint([1, 2]),
    )


@entry(X)
def operator_getters(x):
    d = {"a": x, "b": x + 1}
    return (
        operator.itemgetter("a", "b")(d),
        operator.attrgetter("shape")(x),
        operator.methodcaller("sum", 0)(x),
        operator.methodcaller("split", ",")("a,b"),
    )


@entry(X)
def operator_inplace(x):
    a = [1]
    a = operator.iadd(a, [2])
    return a, operator.imul(3, 4), operator.iadd(x, 1)


@entry(X)
def math_on_consts(x):
    return (
        math.sqrt(16.0),
        math.floor(2.7),
        math.ceil(2.1),
        math.log(math.e),
        math.isclose(0.1 + 0.2, 0.3),
        math.gcd(12, 18),
        math.prod([1, 2, 3]),
        math.comb(5, 2),
        math.isfinite(math.inf),
        x * math.pi,
    )


@entry(X)
def dataclass_features(x):
    f = Frozen(1)
    g = dataclasses.replace(f, b=2.0)
    m = Mutable(3)
    m.b.append(1)
    names = [fl.name for fl in dataclasses.fields(f)]
    return f, g, names, dataclasses.asdict(m), x * g.b


@entry(X)
def frozen_dataclass_set(x):
    f = Frozen(1)
    try:
        f.a = 3
    except dataclasses.FrozenInstanceError:
        return x + 1
    return x


@entry(X)
def enum_members(x):
    c = Color.RED
    return c is Color.RED, c.name, c.value, Color(2), Color["GREEN"], x * c.value


@entry(X)
def nullcontext_use(x):
    with contextlib.nullcontext(5) as v:
        y = x + v
    return y


@entry(X)
def contextmanager_fn(x):
    box = []
    with scaled_ctx(box) as k:
        y = x * k
    return y, box


@entry(X)
def signature_basics(x):
    sig = inspect.signature(sig_target)
    return list(sig.parameters), sig.parameters["b"].default, x + 1


run(
    __file__,
    py312={
        # CPython 3.12 dropped cached_property's RLock (functools docs, "Changed in version
        # 3.12"); PyTorch's Dynamo has no rule of its own for cached_property and inlines its
        # `__get__`. On 3.11 (where matrix_pt.json was recorded) the RLock makes Dynamo skip the
        # frame: 0 graphs. On 3.12+ `__get__` is plain Python Dynamo traces (read `__dict__`,
        # call the function, store the value): 1 graph, fullgraph. Rynamo's functools is 3.12+'s.
        "cached_property_attr": (1, True, "CPython 3.12+ cached_property has no lock"),
    },
)
