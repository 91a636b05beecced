"""Graph-break corpus, breaks inside called functions (PyTorch 2.x without nested graph
breaks): a break inside an inlined callee becomes a break at the call site in the caller's
frame; the callee then runs as its own frame and is compiled (and broken) on its own, and the
caller continues in a resume function. Each frame whose trace stops at a break adds one break."""
import torch
import torch._dynamo
from _corpus import check, check_calls, done


# --- one level --------------------------------------------------------------------------------
def brk_first(t):
    print("callee first")
    return t * 2


def brk_middle(t):
    u = t + 1
    torch._dynamo.graph_break()
    return u * 2


def brk_last(t):
    u = t.cos()
    torch._dynamo.graph_break()
    return u


def brk_item(t):
    return t * t.sum().item()


def no_break(t):
    return t.sin() + 1


def call_first(x):
    y = x + 1
    z = brk_first(y)
    return z - 1


def call_middle(x):
    y = x + 1
    z = brk_middle(y)
    return z - 1


def call_last(x):
    y = x + 1
    z = brk_last(y)
    return z - 1


def call_as_first_op(x):
    z = brk_middle(x)
    return z.exp()


def call_as_last_op(x):
    y = x.sin()
    return brk_middle(y)


def call_item_callee(x):
    return brk_item(x + 1) * 3


def call_two_breaking_callees(x):
    a = brk_middle(x)
    b = brk_last(a)
    return a + b


def call_same_callee_twice(x):
    a = brk_middle(x)
    b = brk_middle(a + 1)
    return b


def call_clean_then_breaking(x):
    a = no_break(x)
    b = brk_middle(a)
    return no_break(b)


def call_kwargs(x):
    return brk_scaled(x, scale=3) + 1


def brk_scaled(t, scale=1):
    u = t * scale
    print("scaled")
    return u + scale


# --- two and three levels ---------------------------------------------------------------------
def mid2(t):
    u = t * 2
    v = brk_middle(u)
    return v + 3


def deep3(t):
    u = t - 1
    v = mid2(u)
    return v * 4


def call_depth2(x):
    y = x + 1
    z = mid2(y)
    return z.sum(0)


def call_depth3(x):
    y = x + 1
    z = deep3(y)
    return z.sum(0)


def mid2_no_ops_around(t):
    return brk_middle(t)


def call_depth2_passthrough(x):
    return mid2_no_ops_around(x * 2) + 1


def mid2_break_first(t):
    torch._dynamo.graph_break()
    return no_break(t)


def call_depth2_break_at_callee_entry(x):
    y = x.abs()
    return mid2_break_first(y) * 2


# --- breaks on a branch inside a callee -------------------------------------------------------
def branchy(t):
    if t.sum() > 0:
        return t + 100
    return t - 100


def call_branchy(x):
    y = x * 2
    z = branchy(y)
    return z / 2


# --- methods of plain classes -----------------------------------------------------------------
class Scaler:
    def __init__(self, k):
        self.k = k

    def forward(self, t):
        u = t * self.k
        torch._dynamo.graph_break()
        return u + self.k

    def twice(self, t):
        return self.forward(self.forward(t))

    def __call__(self, t):
        return self.forward(t) - 1

    @staticmethod
    def static_brk(t):
        print("static")
        return t + 5

    @classmethod
    def class_brk(cls, t):
        torch._dynamo.graph_break()
        return t * 7


S = Scaler(3)


def method_break(x):
    y = x + 1
    return S.forward(y) * 2


def method_break_nested(x):
    return S.twice(x + 1)


def dunder_call_break(x):
    return S(x) + 1


def static_method_break(x):
    return Scaler.static_brk(x * 2)


def class_method_break(x):
    return Scaler.class_brk(x - 1) + 1


def method_on_arg(x, s):
    return s.forward(x).sum()


def bound_method_local(x):
    f = S.forward
    y = f(x)
    return y * 2


def method_of_local_instance(x):
    s = Scaler(2)
    y = s.forward(x)
    return y + s.k


x = torch.randn(4, 5)
pos = torch.rand(4, 5) + 0.1

check(call_first, x, graphs=3, breaks=2)
check(call_middle, x, graphs=4, breaks=2)
check(call_last, x, graphs=3, breaks=2)
check(call_as_first_op, x, graphs=3, breaks=2)
check(call_as_last_op, x, graphs=3, breaks=2)
check(call_item_callee, x, graphs=4, breaks=2)
check(call_two_breaking_callees, x, graphs=4, breaks=4)
# The second call of `brk_middle` hits its cached entries: one break (at the call site), no compile.
check(call_same_callee_twice, x, graphs=3, breaks=3)
check(call_clean_then_breaking, x, graphs=4, breaks=2)
check(call_kwargs, x, graphs=3, breaks=2)

check(call_depth2, x, graphs=6, breaks=3)
check(call_depth3, x, graphs=8, breaks=4)
check(call_depth2_passthrough, x, graphs=4, breaks=3)
check(call_depth2_break_at_callee_entry, x, graphs=3, breaks=2)

check(call_branchy, pos, graphs=4, breaks=2)
check(call_branchy, -pos, graphs=4, breaks=2)

check(method_break, x, graphs=4, breaks=2)
# The outer `forward` call reuses the entry the inner one compiled.
check(method_break_nested, x, graphs=3, breaks=4)
check(dunder_call_break, x, graphs=4, breaks=3)
check(static_method_break, x, graphs=2, breaks=2)
check(class_method_break, x, graphs=3, breaks=2)
check(method_on_arg, x, Scaler(5), graphs=3, breaks=2)
check(bound_method_local, x, graphs=3, breaks=2)
# `Scaler(2)` is traced (a new user object, rebuilt at the break).
check(method_of_local_instance, x, graphs=3, breaks=2)
# A new shape recompiles the caller, the callee and both resume functions.
check_calls(call_middle, [(x,), (torch.randn(3),)], graphs=8)
done()
