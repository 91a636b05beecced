"""Builtins on trackable values: isinstance, len, getattr, hasattr, type, min, max, abs, sum,
any, all, sorted, range, enumerate, zip (plus int/float/bool/str/round on constants)."""
import torch
from _corpus import check, done


class Cfg:
    def __init__(self):
        self.alpha = 0.5
        self.layers = 3


CFG = Cfg()


def isinstance_tensor(x, y):
    a = isinstance(x, torch.Tensor)
    b = isinstance(y, (list, tuple))
    c = isinstance(3, int) and not isinstance(3.0, int)
    return x * (a + b + c)


def isinstance_containers(xs, d):
    if isinstance(xs, list) and isinstance(d, dict):
        return xs[0] + d["k"]
    return xs[0]


def len_of_things(xs, d, x):
    return x * (len(xs) + len(d) + len(x) + len("abcd") + len(range(7)))


def getattr_obj(x):
    return x * getattr(CFG, "alpha") + getattr(CFG, "missing", 2.0)


def getattr_tensor_method(x):
    f = getattr(x, "sin")
    return f()


def hasattr_checks(x):
    k = 0
    if hasattr(CFG, "alpha"):
        k += 1
    if not hasattr(CFG, "beta"):
        k += 10
    return x + k


def type_checks(x, n):
    if type(n) is int and type(x) is torch.Tensor:
        return x + n
    return x


def type_of_list(xs):
    t = type(xs)
    return t([v * 2 for v in xs])


def min_max_consts(x):
    return x * min(3, 1, 2) + max([4, 9, 2]) + min(2.5, CFG.layers)


def min_max_shapes(x, y):
    big = max(x.shape[0], y.shape[0])
    n = min(x.shape[0], y.shape[0])
    m = min(x.size(1), y.size(1))
    return x[:n, :m] + y[:n, :m] * big


def abs_builtin(x):
    return abs(x) + abs(-3)


def sum_builtin(xs):
    return sum(xs), sum([1, 2, 3]), sum(xs, torch.ones(4, 5))


def any_all_consts(x, flags):
    if any(flags) and not all(flags):
        return x + 1
    return x - 1


def any_all_generator_consts(x):
    ks = [1, 2, 3]
    if all(k > 0 for k in ks) and any(k == 2 for k in ks):
        return x * 2
    return x


def sorted_builtin(d, x):
    acc = x
    for k in sorted(d, reverse=True):
        acc = acc * d[k]
    return acc, sorted([3, 1, 2])


def sorted_key(x):
    names = ["ccc", "a", "bb"]
    return [x * len(n) for n in sorted(names, key=len)]


def range_builtin(x):
    r = range(2, 10, 3)
    return x * len(r) + r[1] + sum(r)


def enumerate_zip(xs):
    pairs = list(zip(range(len(xs)), xs))
    return [t * i for i, t in pairs], list(enumerate([10, 20]))


def int_float_bool_str(x):
    n = int("3") + int(2.7)
    f = float(2) + float("0.5")
    b = bool(0) or bool([1])
    s = str(12) + repr("a")
    return x * n + f + b + len(s)


def round_divmod_pow(x):
    q, r = divmod(17, 5)
    return x * round(2.567, 1) + q - r + pow(2, 3)


def callable_check(x):
    if callable(torch.sin) and not callable(3):
        return torch.sin(x)
    return x


def chr_ord(x):
    return x * (ord("a") - ord(chr(96)))


def sum_with_start(xs):
    return sum(xs, torch.ones(4, 5)), sum([0.1] * 10, 1.0), sum((1, 2), start=10)


def min_max_key_default(xs, x):
    longest = max(xs, key=len)
    shortest = min(*xs, key=len)
    return x * len(longest) - len(shortest) + min([], default=7)


def dict_zip(x):
    d = dict(zip(["a", "b"], [x, x * 2]))
    return d["b"] - d["a"]


def type_name(x):
    return x + len(type(x).__name__)


def max_of_list_of_ints_from_shape(x):
    return x.reshape(-1)[: max(list(x.shape))]


x, y = torch.randn(4, 5), torch.randn(3, 6)
check(isinstance_tensor, x, [1])
check(isinstance_containers, [x], {"k": x})
check(len_of_things, [1, 2], {"a": 1}, x)
check(getattr_obj, x)
check(getattr_tensor_method, x)
check(hasattr_checks, x)
check(type_checks, x, 3)
check(type_checks, x, 3.0, graphs=0)
check(type_of_list, [x, x])
check(min_max_consts, x)
check(min_max_shapes, x, y)
check(abs_builtin, x)
check(sum_builtin, [x, x * 2])
check(any_all_consts, x, [True, False])
check(any_all_consts, x, [True, True])
check(any_all_generator_consts, x)
check(sorted_builtin, {"b": 2.0, "a": 3.0}, x)
check(sorted_key, x)
check(range_builtin, x)
check(enumerate_zip, [x, x + 1])
check(int_float_bool_str, x)
check(round_divmod_pow, x)
check(callable_check, x)
check(chr_ord, x)
check(sum_with_start, [x, x * 2])
check(min_max_key_default, ["ab", "c", "def"], x)
check(dict_zip, x)
check(type_name, x)
check(max_of_list_of_ints_from_shape, x)
done()
