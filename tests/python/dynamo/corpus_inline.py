"""Inlining: user functions (module-level, from other call depths, recursive to a fixed depth),
methods of user classes (instance, class and static methods, properties, inheritance and
`super()`, `__call__`), and functions reached through containers."""
import torch
from _corpus import check, done


def square(t):
    return t * t


def norm2(t):
    return square(t).sum(-1, keepdim=True).sqrt()


def normalize(x):
    return x / norm2(x)


def deep(t, n):
    return t if n == 0 else deep(t * 0.5, n - 1) + 1


def inline_deep(x):
    return deep(x, 5)


def returns_tuple(t):
    return t.max(dim=1), t.min(dim=0)


def inline_tuple_result(x):
    (mx, imx), (mn, imn) = returns_tuple(x)
    return mx + mn.sum(), imx, imn


def multiple_returns(t, k):
    if k == 0:
        return t
    if k == 1:
        return t + 1
    return t - 1


def inline_multiple_returns(x):
    return multiple_returns(x, 0), multiple_returns(x, 1), multiple_returns(x, 7)


class Base:
    scale = 2.0

    def __init__(self, bias):
        self.bias = bias

    def forward(self, x):
        return x * self.scale + self.bias

    def __call__(self, x):
        return self.forward(x)

    @property
    def doubled_bias(self):
        return self.bias * 2

    @staticmethod
    def act(t):
        return t.relu()

    @classmethod
    def factor(cls):
        return cls.scale * 10


class Derived(Base):
    scale = 3.0

    def forward(self, x):
        return self.act(super().forward(x)) - 1


B = Base(0.5)
D = Derived(-0.25)


def method_inline(x):
    return B.forward(x)


def dunder_call_inline(x):
    return B(x) + D(x)


def property_inline(x):
    return x + B.doubled_bias + D.doubled_bias


def staticmethod_via_instance(x):
    return B.act(x - 0.5)


def classmethod_via_instance(x):
    return x * D.factor() + Base.factor()


def inherited_override(x):
    return D.forward(x)


def object_from_arg(obj, x):
    return obj(x)


def tensor_attr_obj(x):
    class Box:
        pass

    return x


class WithTensor:
    def __init__(self):
        self.w = torch.randn(5, 3)
        self.b = torch.randn(3)

    def apply(self, x):
        return x @ self.w + self.b


W = WithTensor()


def method_with_tensor_attrs(x):
    return W.apply(x).tanh()


FUNCS = [square, norm2]
FUNC_TABLE = {"sq": square, "neg": lambda t: -t}


def call_from_list(x):
    return [f(x) for f in FUNCS]


def call_from_dict(x):
    return FUNC_TABLE["sq"](x) + FUNC_TABLE["neg"](x)


def higher_order(f, x):
    return f(f(x))


def apply_n(x, fn, n=3):
    for _ in range(n):
        x = fn(x)
    return x


def inline_higher_order(x):
    return apply_n(x, torch.sin) + apply_n(x, square, 2)


x = torch.randn(4, 5)
check(normalize, x)
check(inline_deep, x)
check(inline_tuple_result, x)
check(inline_multiple_returns, x)
check(method_inline, x)
check(dunder_call_inline, x)
check(property_inline, x)
check(staticmethod_via_instance, x)
check(classmethod_via_instance, x)
check(inherited_override, x)
check(object_from_arg, Derived(1.0), x)
check(object_from_arg, Base(2.0), x)
check(tensor_attr_obj, x, graphs=0)
check(method_with_tensor_attrs, x)
check(call_from_list, x)
check(call_from_dict, x)
check(higher_order, square, x)
check(higher_order, torch.cos, x)
check(inline_higher_order, x)
done()
