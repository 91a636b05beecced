"""Loads and stores: fast locals, globals, closure cells (deref), attributes and subscripts."""
import torch
from _corpus import check, done

SCALE = 2.5
OFFSET = 3
WEIGHT = torch.randn(4, 5)
TABLE = {"a": 1.5, "b": -2.0}
SEQ = [1, 2, 3]


class Holder:
    def __init__(self):
        self.w = torch.randn(4, 5)
        self.k = 3
        self.name = "h"
        self.inner = Inner()


class Inner:
    def __init__(self):
        self.b = torch.randn(5)
        self.items = [1.0, 2.0]


H = Holder()


def fast_locals(x):
    a = x + 1
    b = a * 2
    a = b - x
    return a, b


def fast_swap(x, y):
    x, y = y, x
    return x - y


def fast_del(x):
    t = x.sin()
    u = t + 1
    del t
    return u


def global_const(x):
    return x * SCALE + OFFSET


def global_tensor(x):
    return x + WEIGHT


def global_dict(x):
    return x * TABLE["a"] + TABLE["b"]


def global_list_index(x):
    return x * SEQ[1] + SEQ[-1]


def builtin_name(x):
    return x + len(SEQ)


def deref_param(x):
    def inner():
        return x * 2

    return inner()


def deref_local(x):
    k = 3.0

    def inner(y):
        return y + k

    return inner(x)


def deref_tensor(x):
    t = x.cos()

    def inner():
        return t * t

    return inner() + 1


def make_adder(n):
    def add(x):
        return x + n

    return add


ADD5 = make_adder(5)


def free_var_of_global(x):
    return ADD5(x)


def deref_two_levels(x):
    a = 2

    def outer():
        b = 3

        def innermost():
            return x * a + b

        return innermost()

    return outer()


def attr_tensor(x):
    return x @ H.w.t()


def attr_int(x):
    return x * H.k


def attr_nested(x):
    return x + H.inner.b


def attr_nested_list(x):
    return x * H.inner.items[1]


def attr_of_arg(h, x):
    return x + h.w * h.k


def subscript_tensor_arg(xs):
    return xs[0] + xs[1]


def subscript_dict_arg(d):
    return d["x"] * d["y"]


def subscript_nested(d):
    return d["pair"][0] - d["pair"][1]


def subscript_negative(xs):
    return xs[-1] * xs[-2]


def aug_subscript(x):
    d = {"k": 1, "t": x}
    d["k"] += 2
    d["t"] *= 3
    xs = [x, 1]
    xs[1] -= 5
    return d, xs


def walrus(x):
    if (n := x.shape[0]) > 2:
        return x * n
    return x


def same_tensor_twice(x):
    y = x + 1
    return y, y, x


def attr_str_const(x):
    if H.name == "h":
        return x + 1
    return x - 1


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(fast_locals, x)
check(fast_swap, x, y)
check(fast_del, x)
check(global_const, x)
check(global_tensor, x)
check(global_dict, x)
check(global_list_index, x)
check(builtin_name, x)
check(deref_param, x)
check(deref_local, x)
check(deref_tensor, x)
check(free_var_of_global, x)
check(deref_two_levels, x)
check(attr_tensor, torch.randn(3, 5))
check(attr_int, x)
check(attr_nested, x)
check(attr_nested_list, x)
check(attr_of_arg, Holder(), x)
check(subscript_tensor_arg, [x, y])
check(subscript_tensor_arg, (x, y))
check(subscript_dict_arg, {"x": x, "y": y})
check(subscript_nested, {"pair": (x, y)})
check(subscript_negative, [x, y, x * 2])
check(aug_subscript, x)
check(walrus, x)
check(same_tensor_twice, x)
check(attr_str_const, x)
done()
