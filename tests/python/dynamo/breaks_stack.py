"""Graph-break corpus, breaks with values pending on the Python stack (`a + f(x)`, `[x, f(x)]`,
`g(x, f(x))`, method receivers): the graph before the break produces the pending values, the
resume function receives them as its leading arguments. Also comprehensions: since Python 3.12
a list/dict/set comprehension is inlined into its frame, so a break inside one is a break in a
loop and PyTorch 2.x skips the whole frame (its callees still compile on their own)."""
import torch
import torch._dynamo
from _corpus import check, done


def f(t):
    print("f breaks first")
    return t * 2


def f_pair(t):
    u = t + 1
    torch._dynamo.graph_break()
    return u, u * 2


def f_int(t):
    return int(t.numel() + t.sum().item() * 0)


class Acc:
    def __init__(self):
        self.bias = 1.5

    def combine(self, a, b):
        return a * b + self.bias


ACC = Acc()


# --- pending stack values ---------------------------------------------------------------------
def binop_pending_local(x):
    a = x.sin()
    return a + f(x)


def binop_pending_expr(x):
    return x.cos() * f(x)


def binop_pending_right(x):
    return f(x) - x.exp()


def list_display_pending(x):
    return [x + 1, f(x), x - 1]


def tuple_display_pending(x):
    return (x.exp(), f(x), x.abs())


def dict_display_pending(x):
    return {"a": x + 1, "b": f(x)}


def call_args_pending(x):
    return torch.add(x.cos(), f(x))


def call_kwarg_pending(x):
    return torch.add(x.cos(), f(x), alpha=2)


def nested_call_pending(x):
    return torch.mul(x + 1, torch.sub(x * 3, f(x)))


def tensor_method_receiver(x):
    return (x * 2).add(f(x))


def user_method_receiver(x):
    return ACC.combine(x.sin(), f(x))


def subscript_receiver_pending(x):
    xs = [x + 1, x + 2]
    return xs[1] + f(x)


def deep_expression_pending(x):
    return x * (1 + f(x + 2)) - x


def two_breaks_in_one_expression(x):
    return x.sin() + f(x) + f(x + 1)


def pending_with_item(x):
    y = x + 1
    return y * y.sum().item() + y


def pending_int_from_break(x):
    return x.reshape(-1)[: f_int(x) - 3] * 2


def unpack_from_breaking_callee(x):
    a, b = f_pair(x.abs())
    return a * b


def pending_in_comparison(x):
    y = x + 1
    return bool((y > f(x)).all())


def cat_list_pending(x):
    return torch.cat([x, f(x), x * 2])


def return_pending_only(x):
    return x.sum(), f(x)


def star_args_pending(x):
    return torch.add(*[x + 1, f(x)])


def star_kwargs_pending(x):
    return torch.add(x, **{"other": f(x), "alpha": 3})


def walrus_of_breaking_call(x):
    if (y := f(x)).dim() == 2:
        return y + 1
    return y


def fstring_pending(x):
    y = x + 1
    return f"{y.shape}-{f(x).shape}", y


def slice_bound_pending(x):
    y = x * 2
    return y[f(x).shape[0] - 3 :]


def star_unpack_after_break(x):
    a, *rest = [x, f(x), x + 1]
    return a + rest[1]


# --- comprehensions -----------------------------------------------------------------------------
def listcomp_break(x):
    ys = [f(t) for t in x]
    return torch.stack(ys) + 1


def listcomp_print(x):
    ys = [print(i) or x * i for i in range(3)]
    return ys[0] + ys[2]


def dictcomp_break(x):
    d = {i: f(x[i]) for i in range(2)}
    return d[0] + d[1]


def setcomp_break(x):
    s = {t.sum().item() for t in x}
    return x + len(s)


def listcomp_before_break(x):
    ys = [t * 2 for t in x]
    torch._dynamo.graph_break()
    return torch.stack(ys) + x


def listcomp_after_break(x):
    y = x + 1
    torch._dynamo.graph_break()
    zs = [t.sum() for t in y]
    return torch.stack(zs)


def listcomp_in_breaking_callee_result(x):
    return torch.stack([t + 1 for t in f(x)]).sum(0)


def comprehension_in_callee(t):
    return [u.item() for u in t[:2, 0]]


def call_comprehension_callee(x):
    y = x * 2
    vals = comprehension_in_callee(y)
    return y + vals[0] + vals[1]


x = torch.randn(4, 5)

check(binop_pending_local, x, graphs=3, breaks=2)
check(binop_pending_expr, x, graphs=3, breaks=2)
check(binop_pending_right, x, graphs=2, breaks=2)
check(list_display_pending, x, graphs=3, breaks=2)
check(tuple_display_pending, x, graphs=3, breaks=2)
check(dict_display_pending, x, graphs=2, breaks=2)
check(call_args_pending, x, graphs=3, breaks=2)
check(call_kwarg_pending, x, graphs=3, breaks=2)
check(nested_call_pending, x, graphs=3, breaks=2)
check(tensor_method_receiver, x, graphs=3, breaks=2)
check(user_method_receiver, x, graphs=3, breaks=2)
check(subscript_receiver_pending, x, graphs=3, breaks=2)
check(deep_expression_pending, x, graphs=3, breaks=2)
check(two_breaks_in_one_expression, x, graphs=4, breaks=3)
check(pending_with_item, x, graphs=2, breaks=1)
check(pending_int_from_break, x, graphs=3, breaks=2)
check(unpack_from_breaking_callee, x, graphs=4, breaks=2)
# `bool()` of the comparison breaks again in the resume function.
check(pending_in_comparison, x, graphs=3, breaks=3)
check(cat_list_pending, x, graphs=2, breaks=2)
check(return_pending_only, x, graphs=2, breaks=2)
check(star_args_pending, x, graphs=3, breaks=2)
check(star_kwargs_pending, x, graphs=2, breaks=2)
check(walrus_of_breaking_call, x, graphs=2, breaks=2)
check(fstring_pending, x, graphs=2, breaks=2)
check(slice_bound_pending, x, graphs=3, breaks=2)
check(star_unpack_after_break, x, graphs=2, breaks=2)

check(listcomp_break, x, graphs=1, breaks=2)
check(listcomp_print, x, graphs=0, breaks=1)
check(dictcomp_break, x, graphs=1, breaks=2)
check(setcomp_break, x, graphs=0, breaks=1)
check(listcomp_before_break, x, graphs=2, breaks=1)
check(listcomp_after_break, x, graphs=2, breaks=1)
check(listcomp_in_breaking_callee_result, x, graphs=2, breaks=2)
check(call_comprehension_callee, x, graphs=2, breaks=2)
done()
