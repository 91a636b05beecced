"""Calls with positional, keyword, `*args` and `**kwargs` arguments, defaults, keyword-only
parameters, and method calls (tensor methods, user methods, container methods)."""
import torch
from _corpus import check, done


def helper(a, b, scale=1.0, *, shift=0.0):
    return a * scale + b + shift


def positional(x, y):
    return helper(x, y, 2.0)


def keywords(x, y):
    return helper(b=y, a=x, shift=1.5)


def keyword_only(x, y):
    return helper(x, y, shift=-1.0, scale=0.5)


def star_args(x, y):
    args = (x, y, 3.0)
    return helper(*args)


def star_kwargs(x, y):
    kw = {"scale": 2.0, "shift": 0.5}
    return helper(x, y, **kw)


def star_both(x, y):
    args = [x]
    kw = {"b": y, "shift": 2.0}
    return helper(*args, **kw)


def varargs_callee(*xs):
    acc = xs[0]
    for t in xs[1:]:
        acc = acc + t
    return acc


def call_varargs(x, y):
    return varargs_callee(x, y, x * 2)


def varkw_callee(x, **opts):
    out = x
    for k in sorted(opts):
        out = out * opts[k]
    return out


def call_varkw(x):
    return varkw_callee(x, alpha=2.0, beta=0.5)


def default_from_call(x, n=3):
    return x * n


def call_defaults(x):
    return default_from_call(x) + default_from_call(x, n=5)


def tensor_method_kwargs(x):
    return x.sum(dim=1, keepdim=True), x.mean(dim=0), x.transpose(0, 1)


def torch_fn_kwargs(x, y):
    return torch.add(x, y, alpha=2), torch.cat([x, y], dim=1)


def method_chain(x):
    return x.abs().sqrt().clamp(min=0.1, max=1.5).sum(1)


class Calc:
    def __init__(self, k):
        self.k = k

    def scale(self, x, extra=0.0):
        return x * self.k + extra

    def twice(self, x):
        return self.scale(self.scale(x))

    @staticmethod
    def static_add(x, y):
        return x + y

    @classmethod
    def make_and_apply(cls, x):
        return x * 3


CALC = Calc(2.0)


def user_method(x):
    return CALC.scale(x, extra=1.0)


def user_method_self_call(x):
    return CALC.twice(x)


def static_method(x, y):
    return Calc.static_add(x, y) + CALC.static_add(x, 1)


def class_method(x):
    return Calc.make_and_apply(x)


def method_of_arg(c, x):
    return c.scale(x)


def bound_method_in_variable(x):
    f = CALC.scale
    return f(x) + f(x, extra=2.0)


def list_methods(x):
    acc = []
    acc.append(x)
    acc.extend([x + 1, x + 2])
    acc.insert(0, x * 0)
    last = acc.pop()
    return last + acc[0] + len(acc)


def dict_methods(x):
    d = {"a": x}
    d.update({"b": x * 2})
    v = d.get("c", 3.0)
    d.setdefault("a", x * 100)
    return d["a"] + d["b"] * v + len(d)


def str_methods(x, mode="Mean"):
    if mode.lower() == "mean":
        return x.mean()
    return x.sum()


def kwargs_from_dict(x, **kw):
    return x * kw.get("scale", 1) + len(kw)


def str_method_chain(x, name="Conv_Layer"):
    parts = name.lower().split("_")
    return x + len(parts[0]) + parts.index("layer") + parts.count("conv")


def lambda_call(x):
    f = lambda t, k=2: t * k  # noqa: E731
    return f(x) + f(x, 3)


def kwargs_passthrough(x, **kw):
    return helper(x, x, **kw)


def args_passthrough(*args):
    return helper(*args)


def recursive_depth(x, n):
    if n == 0:
        return x
    return recursive_depth(x + 1, n - 1)


def call_recursive(x):
    return recursive_depth(x, 4)


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(positional, x, y)
check(keywords, x, y)
check(keyword_only, x, y)
check(star_args, x, y)
check(star_kwargs, x, y)
check(star_both, x, y)
check(call_varargs, x, y)
check(call_varkw, x)
check(call_defaults, x)
check(tensor_method_kwargs, x)
check(torch_fn_kwargs, x, y)
check(method_chain, x)
check(user_method, x)
check(user_method_self_call, x)
check(static_method, x, y)
check(class_method, x)
check(method_of_arg, Calc(3.0), x)
check(bound_method_in_variable, x)
check(list_methods, x)
check(dict_methods, x)
check(str_methods, x)
check(str_methods, x, "sum")
check(kwargs_from_dict, x, scale=2.0)
check(str_method_chain, x)
check(lambda_call, x)
check(kwargs_passthrough, x, scale=3.0, shift=1.0)
check(args_passthrough, x, y, 4.0)
check(call_recursive, x)
done()
