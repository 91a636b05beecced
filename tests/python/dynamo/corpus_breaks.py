"""Graph breaks: what Dynamo cannot trace runs in Python between graphs, with the same graph
counts as PyTorch. Unsupported constructs must break (or skip the frame), never miscompute."""
import torch
import torch._dynamo
from _corpus import check, check_state, done

LOG = []
EFFECTS = []
PROBES = []
G = 0


class Box:
    a = 0


BOX = Box()


@torch._dynamo.disable
def probe(*things):
    """Runs between the graphs: records what it sees of the Python state."""
    PROBES.append([list(t) if isinstance(t, list) else t for t in things])


def effects_visible_at_break(x):
    global G
    EFFECTS.append(1)
    BOX.a = 5
    G = 7
    x.add_(1)
    y = x * 2
    probe(EFFECTS, BOX.a, G, x.clone(), y.clone())
    EFFECTS.append(2)
    return y + BOX.a + G


def reset_effects():
    global G
    EFFECTS.clear()
    PROBES.clear()
    BOX.a = 0
    G = 0


def snapshot_effects():
    return {"effects": list(EFFECTS), "probes": [list(p) for p in PROBES], "a": BOX.a, "G": G}


def print_middle(x):
    y = x * 2
    print("value", y.shape)
    return y + 1


def print_first(x):
    print("start")
    return x.sin()


def print_last(x):
    y = x.cos()
    print("end")
    return y


def explicit_graph_break(x):
    y = x + 1
    torch._dynamo.graph_break()
    return y * 2


def two_breaks(x):
    y = x + 1
    torch._dynamo.graph_break()
    y = y * 2
    torch._dynamo.graph_break()
    return y - 3


def item_break(x):
    s = x.sum().item()
    return x * s


def tolist_break(x):
    vals = x[0].tolist()
    return x + len(vals)


def data_dependent_if(x):
    if x.mean() > 0:
        return x.relu()
    return x.neg()


def data_dependent_while(x):
    n = 0
    while (x > 0).any() and n < 3:
        x = x - 1
        n += 1
    return x


@torch._dynamo.disable
def not_traced(t):
    return t * 3


def call_disabled(x):
    y = x + 1
    z = not_traced(y)
    return z - 1


def break_in_inlined_call(x):
    def helper(t):
        t = t + 1
        print("inside")
        return t * 2

    return helper(x) - 1


def break_inside_loop(x):
    for i in range(3):
        x = x + i
        print(i)
    return x


def break_with_live_locals(x, k):
    a = x * k
    b = [a, k]
    print("break")
    return a + b[0] + b[1]


def break_with_stack_values(x):
    return x.sin() + float(x.sum()) + x.cos()


def str_of_shape_folds(x):
    y = x + 1
    s = str(y.shape)
    return y * len(s)


def break_then_mutation(x):
    y = x * 2
    LOG.append(1)
    print("after append")
    LOG.append(2)
    return y


def nested_breaks(x):
    def inner(t):
        torch._dynamo.graph_break()
        return t + 1

    def outer(t):
        return inner(t * 2) * 3

    return outer(x)


def break_with_frozenset_constant(x, mode="a"):
    y = x + 1
    print("break")
    if mode in {"a", "b"}:
        return y * 2
    return y


def tensor_in_fstring(x):
    s = f"{x.sum()}"
    return x + 1, len(s) > 0


def no_tensor_ops(x):
    return x


def only_metadata(x):
    return x.shape[0] * x.dim() + x.numel()


def constant_result(x):
    return 3 + 4


def input_passthrough_mutation(xs):
    xs.append(5)
    return xs


x = torch.randn(4, 5)
check(print_middle, x, graphs=2)
check(print_first, x, graphs=1, breaks=1)
check(print_last, x, graphs=1, breaks=1)
check(explicit_graph_break, x, graphs=2)
check(two_breaks, x, graphs=3)
check(item_break, x, graphs=2)
check(tolist_break, x, graphs=2)
check(data_dependent_if, x, graphs=2)
check(data_dependent_if, -x.abs() - 1, graphs=2)
check(data_dependent_while, x.abs() + 0.5, graphs=0)
check(call_disabled, x, graphs=2)
check(break_in_inlined_call, x, graphs=3)
check(break_inside_loop, x, graphs=0)
check(break_with_live_locals, x, 3, graphs=2)
check(break_with_stack_values, x, graphs=2)
check(str_of_shape_folds, x, graphs=1)
check(break_with_frozenset_constant, x, graphs=2)
check(tensor_in_fstring, x, graphs=2, breaks=1)
check(no_tensor_ops, x, graphs=0)
check(only_metadata, x, graphs=0)
check(constant_result, x, graphs=0)
check(input_passthrough_mutation, [1], graphs=0)
LOG.clear()
# Appending to a global list guards its length (as in PyTorch), so the second call recompiles.
check(break_then_mutation, x, graphs=2)
if LOG != [1, 2, 1, 2, 1, 2, 1, 2]:
    raise SystemExit(f"side effects around a break ran {LOG}")
check(nested_breaks, x, graphs=3)
# Side effects traced before a break are replayed before the unsupported call runs.
check_state(effects_visible_at_break, (x,), reset_effects, snapshot_effects, graphs=2)
done()
