"""Semantics matrix: methods of Python values, containers and identity (issue 27 requirements 1
and 3). See `_matrix.py`."""
import functools
from collections import namedtuple

import torch
from _matrix import entry, run

X = torch.arange(6.0).reshape(2, 3)

Pair = namedtuple("Pair", ["a", "b"])


class Error1(Exception):
    pass


def scaled(t, k, shift=0.0):
    return t * k + shift


PART = functools.partial(scaled, k=2.0)


@entry(X)
def int_methods(x):
    n = 37
    return n.bit_length(), n.as_integer_ratio(), n.conjugate(), (-5).__abs__(), x + 1


@entry(X)
def float_methods(x):
    f = 2.5
    return f.is_integer(), 3.0.is_integer(), f.as_integer_ratio(), f.conjugate(), f.hex(), x + 1


@entry(X)
def str_methods(x):
    s = " Hello, World "
    return (
        s.strip().lower(),
        s.split(","),
        "-".join(["a", "b"]),
        s.replace("l", "L"),
        s.startswith(" H"),
        "abc".upper().center(7, "*"),
        "a1".isalnum(),
        "x={}".format(3),
        "%d-%s" % (4, "z"),
        x + 1,
    )


@entry(X)
def int_to_bytes(x):
    return (37).to_bytes(2, "big"), x + 1


@entry(X)
def tuple_concat_repeat(x):
    t = (1, 2) + (3,)
    return t, t * 2, 2 * (0,), x + len(t)


@entry(X)
def list_concat_repeat(x):
    a = [1, 2] + [3]
    b = [0] * 3
    a += [4]
    b *= 2
    return a, b, x + 1


@entry(X)
def list_of_tensors_concat(x):
    return [x] + [x + 1], [x] * 2


@entry(X)
def list_slice_assign(x):
    a = [1, 2, 3, 4, 5]
    a[1:3] = [9, 9, 9]
    a[::2] = [0, 0, 0]
    return a, x + 1


@entry(X)
def list_slice_delete(x):
    a = [x, x + 1, x + 2, x + 3]
    del a[1:3]
    b = [1, 2, 3, 4, 5, 6]
    del b[::2]
    del b[0]
    return a, b


@entry(X)
def is_on_classes_and_none(x):
    c = Pair
    return c is Pair, c is not None, None is None, c == None, int is int, x + 1  # noqa: E711


@entry(X)
def is_on_exceptions(x):
    e = ValueError
    return e is ValueError, e is not TypeError, Error1 is Error1, issubclass(Error1, Exception), x + 1


@entry(X)
def dict_keys_view_live(x):
    d = {"a": 1}
    ks = d.keys()
    vs = d.values()
    its = d.items()
    d["b"] = 2
    return list(ks), list(vs), list(its), len(ks), x + 1


@entry(X)
def dict_views_contains(x):
    d = {"a": 1, "b": 2}
    return "a" in d.keys(), 2 in d.values(), ("b", 2) in d.items(), "z" in d.keys(), x + 1


@entry(X)
def dict_keys_set_ops(x):
    d = {"a": 1, "b": 2}
    e = {"b": 0, "c": 0}
    return sorted(d.keys() & e.keys()), sorted(d.keys() | e.keys()), sorted(d.keys() - e.keys()), x + 1


@entry(X)
def dict_views_of_tensors(x):
    d = {"p": x, "q": x + 1}
    vals = d.values()
    d["r"] = x * 2
    return [v.sum() for v in vals], list(d.items())[2][1]


@entry(X)
def hasattr_partial(x):
    return (
        hasattr(PART, "func"),
        hasattr(PART, "args"),
        hasattr(PART, "keywords"),
        hasattr(PART, "__call__"),
        hasattr(PART, "nope"),
        x + 1,
    )


@entry(X)
def partial_attributes(x):
    p = functools.partial(scaled, x, shift=1.0)
    return p.func is scaled, p.args[0] is x, p.keywords, p(3.0)


@entry(X)
def hasattr_namedtuple(x):
    p = Pair(1, 2)
    return hasattr(p, "a"), hasattr(p, "c"), hasattr(p, "_fields"), hasattr(p, "_replace"), x + 1


@entry(X)
def tensor_flags(x):
    return x.is_sparse, x.is_quantized, x.is_complex(), x.is_floating_point(), x + 1


@entry(X)
def set_methods(x):
    s = {1, 2}
    s.add(3)
    s.discard(1)
    t = s | {7}
    return sorted(s), sorted(t), s.issubset({2, 3, 4}), x + len(s)


@entry(X)
def tuple_methods(x):
    t = (1, 2, 2, 3)
    return t.count(2), t.index(3), t[1:], x + 1


@entry(X)
def list_methods(x):
    a = [3, 1, 2]
    a.sort()
    a.append(5)
    a.insert(0, 9)
    a.remove(1)
    return a, a.index(5), a.count(9), x + 1


@entry(X)
def list_sort_key_tensors(x):
    a = [x + 2, x, x + 1]
    a.sort(key=lambda t: t.shape[0])
    return a


@entry(X)
def dict_methods(x):
    d = {"a": x}
    d.update(b=x + 1)
    d.setdefault("c", x + 2)
    k = d.popitem()
    return list(d), k[0], d.get("z", 0), dict.fromkeys(["u", "v"], 0)


@entry(X)
def nested_containers(x):
    d = {"a": [1, 2], "b": (3, {"c": 4})}
    d["a"].append(3)
    return d, x + 1


@entry(X)
def size_built_in_frame(x):
    s = torch.Size([x.shape[1], x.shape[0]])
    return x.reshape(s) * 2, s, torch.Size()


class _PlainBase:
    """No base but object: `super().__init__()` reaches `object.__init__`."""

    def __init__(self, k):
        self.k = k
        super().__init__()


@entry(X)
def super_init_reaches_object(x):
    o = _PlainBase(3)
    return x * o.k


class _Lazy:
    """A non-data descriptor written in Python (as torch.distributions' lazy_property)."""

    def __init__(self, fn):
        self.fn = fn

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        setattr(instance, self.fn.__name__, value)
        return value


class _Holder:
    def __init__(self, v):
        self.v = v

    @_Lazy
    def doubled(self):
        return self.v * 2


@entry(X)
def python_descriptor_on_new_object(x):
    h = _Holder(x)
    first = h.doubled + 1
    return first, h.doubled  # the second read finds the value __get__ stored


run(__file__, known={})
