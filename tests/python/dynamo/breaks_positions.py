# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""Graph-break corpus, break positions: the first, last and middle op of a frame, several
breaks in one frame, each kind of breaking construct, data-dependent branches (both outcomes),
and recompiles after a break. Counts follow PyTorch 2.x: a break splits the frame into the graph
before it and a resume function traced as a new frame; a side with no tensor ops makes no graph;
each frame whose trace stops at a break adds one break."""
import torch
import torch._dynamo
from _corpus import check, check_calls, done


@torch._dynamo.disable
def opaque(t):
    return t * 3


# --- first op ---------------------------------------------------------------------------------
def first_graph_break(x):
    torch._dynamo.graph_break()
    return x.cos() + 1


def first_item(x):
    s = x.max().item()
    return x - s


def first_tolist(x):
    vals = x.tolist()
    return x * len(vals)


def first_disabled(x):
    y = opaque(x)
    return y.exp()


def first_print_then_nothing(x):
    print("only a print")
    return x


# --- last op ----------------------------------------------------------------------------------
def last_graph_break(x):
    y = x.sin() * 2
    torch._dynamo.graph_break()
    return y


def last_item(x):
    y = x.abs() + 1
    return y.sum().item()


def last_tolist(x):
    return (x * 2).tolist()


def last_disabled(x):
    return opaque(x.tanh())


def last_print_returns_none(x):
    y = x + 1
    print("done")


# --- middle op --------------------------------------------------------------------------------
def middle_graph_break(x):
    y = x.relu()
    torch._dynamo.graph_break()
    return y.sigmoid()


def middle_item_used(x):
    m = x.mean().item()
    y = x - m
    return y * y


def middle_disabled(x):
    y = x + 2
    z = opaque(y)
    return z.sum(0)


def middle_float_of_tensor(x):
    y = x * 3
    f = float(y[0, 0])
    return y + f


def middle_int_of_tensor(x):
    y = (x > 0).sum()
    n = int(y)
    return x[: n % 4 + 1] * 2


def middle_bool_of_tensor(x):
    flag = bool(x.sum() > 100)
    return x + 1 if flag else x - 1


# --- several breaks in one frame --------------------------------------------------------------
def three_breaks(x):
    a = x + 1
    torch._dynamo.graph_break()
    b = a * 2
    print("second")
    c = b - 3
    s = c.sum().item()
    return c / (abs(s) + 1)


def breaks_back_to_back(x):
    y = x.sin()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    return y.cos()


def breaks_with_empty_middle(x):
    y = x * 2
    print("a")
    n = 3
    print("b")
    return y + n


def break_kinds_mixed(x):
    y = opaque(x + 1)
    v = y.sum().item()
    z = y.tolist()
    return y * v + len(z)


# --- data-dependent branches: both outcomes ---------------------------------------------------
def if_sum_positive(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def if_else_then_common_tail(x):
    y = x + 1
    if y.max() > 1.5:
        y = y * 10
    else:
        y = y / 10
    return y.exp()


def if_tail_without_ops(x):
    y = x.sin()
    if y.mean() > 0:
        return y
    return x


def if_on_item(x):
    if x.sum().item() > 0:
        return x.abs()
    return x.neg()


def if_any(x):
    y = x * 2
    if (y > 3).any():
        y = y.clamp(max=3)
    return y + 1


def if_nested_two_levels(x):
    if x[0].sum() > 0:
        if x[1].sum() > 0:
            return x * 1
        return x * 2
    return x * 3


def ternary_on_tensor(x):
    y = x + 1
    z = y * 2 if y.sum() > 0 else y * 3
    return z - 1


x = torch.randn(4, 5)
pos = torch.rand(4, 5) + 0.1
neg = -torch.rand(4, 5) - 0.1

check(first_graph_break, x, graphs=1, breaks=1)
check(first_item, x, graphs=2, breaks=1)
check(first_tolist, x, graphs=1, breaks=1)
check(first_disabled, x, graphs=1, breaks=1)
check(first_print_then_nothing, x, graphs=0, breaks=1)

check(last_graph_break, x, graphs=1, breaks=1)
check(last_item, x, graphs=1, breaks=1)
check(last_tolist, x, graphs=1, breaks=1)
check(last_disabled, x, graphs=1, breaks=1)
check(last_print_returns_none, x, graphs=1, breaks=1)

check(middle_graph_break, x, graphs=2, breaks=1)
check(middle_item_used, x, graphs=2, breaks=1)
check(middle_disabled, x, graphs=2, breaks=1)
check(middle_float_of_tensor, x, graphs=2, breaks=1)
check(middle_int_of_tensor, x, graphs=2, breaks=1)
check(middle_bool_of_tensor, x, graphs=2, breaks=1)

check(three_breaks, x, graphs=4, breaks=3)
check(breaks_back_to_back, x, graphs=2, breaks=2)
check(breaks_with_empty_middle, x, graphs=2, breaks=2)
check(break_kinds_mixed, x, graphs=3, breaks=3)

check(if_sum_positive, pos, graphs=2, breaks=1)
check(if_sum_positive, neg, graphs=2, breaks=1)
check(if_else_then_common_tail, pos + 1, graphs=2, breaks=1)
check(if_else_then_common_tail, neg, graphs=2, breaks=1)
check(if_tail_without_ops, pos, graphs=1, breaks=1)
check(if_tail_without_ops, neg, graphs=1, breaks=1)
check(if_on_item, pos, graphs=2, breaks=1)
check(if_on_item, neg, graphs=2, breaks=1)
check(if_any, pos * 5, graphs=2, breaks=1)
check(if_any, neg, graphs=2, breaks=1)
check(if_nested_two_levels, pos, graphs=3, breaks=2)
check(if_nested_two_levels, torch.stack([pos[0], neg[0], pos[1], pos[2]]), graphs=3, breaks=2)
check(if_nested_two_levels, neg, graphs=2, breaks=1)
check(ternary_on_tensor, pos, graphs=2, breaks=1)
check(ternary_on_tensor, neg, graphs=2, breaks=1)
# One compiled function, both branch outcomes: the root graph is reused, each tail compiles once.
check_calls(if_sum_positive, [(pos,), (neg,), (pos,), (neg,)], graphs=3)
check_calls(if_else_then_common_tail, [(pos + 1,), (neg,), (neg,)], graphs=3)

# --- recompiles after a break: a new shape recompiles the frame and its resume function -------
check_calls(middle_graph_break, [(x,), (x,), (torch.randn(2, 3),)], graphs=4)
check_calls(three_breaks, [(x,), (torch.randn(6),)], graphs=8)
check_calls(first_graph_break, [(x,), (x.double(),)], graphs=2)
done()
