"""Self-referential containers (a list or dict that holds itself) in compiled code, as arguments
and made by the trace: `len`, indexing, identity, `repr` (`[1, [...]]`) and comparisons give
eager's answers in one graph. Guards re-check the cycle: a list of the same shape without one
recompiles. (`_harness.check` clones and compares recursively, so these cases compare by hand.)"""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import done, expect


def cyclic_list():
    l = [1]
    l.append(l)
    return l


def cyclic_dict():
    d = {"a": 2}
    d["me"] = d
    return d


def plain(v):
    """A value with tensors as lists, comparable with `==` (no cycles through tensors)."""
    if isinstance(v, torch.Tensor):
        return ("tensor", v.tolist())
    if isinstance(v, tuple):
        return tuple(plain(i) for i in v)
    return v


def compare(name, fn, make_args, graphs=1):
    """Runs `fn` eagerly and compiled on fresh arguments from `make_args()`; compares results
    (containers by `repr`, which prints a cycle as `[...]`) and the arguments after the call."""
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    for call in range(2):
        args_e, args_c = make_args(), make_args()
        want = fn(*args_e)
        got = opt(*args_c)
        expect(f"{name} call {call}", repr(plain(got)), repr(plain(want)))
        expect(f"{name} call {call} arguments", repr(args_c), repr(args_e))
    expect(f"{name} graphs", cnt.frame_count, graphs)


x = torch.arange(3.0)


# Inputs: wrapping an argument that holds itself must register it before its items (it used to
# wrap forever).
def len_of_input(t, l):
    return t + len(l)


def read_through_cycle(t, l):
    return t + l[1][1][1][0], l[1] is l, len(l[1][1])


def dict_through_cycle(t, d):
    return t * d["me"]["me"]["a"], len(d["me"])


compare("len_of_input", len_of_input, lambda: (x, cyclic_list()))
compare("read_through_cycle", read_through_cycle, lambda: (x, cyclic_list()))
compare("dict_through_cycle", dict_through_cycle, lambda: (x, cyclic_dict()))


# Constant folding (`len`, `repr`, `str`, `bool`, `==`, `in`) on lists that hold themselves (it
# used to copy them recursively, forever, and crash).
def append_self_then_len(t, l):
    l.append(l)
    return t + len(l)


def append_self_then_repr(t, l):
    l.append(l)
    return t * 2, repr(l), str(l), bool(l)


def compare_with_itself(t, l):
    return t + 1, l == l, l in l, l in [l], 1 in l, l != l


def made_in_trace(t):
    m = [t.sum(), 3]
    m.append(m)
    return t * len(m), m[2] is m, len(m[2][2])


def dict_stores_itself(t, d):
    d["self"] = d
    return t + len(d), repr(d)


compare("append_self_then_len", append_self_then_len, lambda: (x, [1]))
compare("append_self_then_repr", append_self_then_repr, lambda: (x, [1]))
compare("compare_with_itself", compare_with_itself, lambda: (x, cyclic_list()))
compare("made_in_trace", made_in_trace, lambda: (x,))
compare("dict_stores_itself", dict_stores_itself, lambda: (x, {"a": 1}))

# The list the compiled call mutated holds itself afterwards, as after the eager call.
l = [1]
torch.compile(append_self_then_len, backend="eager")(x, l)
expect("mutated list holds itself", l[1] is l, True)
expect("mutated list repr", repr(l), "[1, [...]]")


# Guards: the cycle is an alias guard (`L['l'][1] is L['l']`), so an acyclic list of the same
# length and types takes a new entry instead of reusing the cyclic one's.
def second_item_head(t, l):
    return t + l[1][0]


torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(second_item_head, backend=cnt)
cyc = cyclic_list()
for args in ((x, cyc), (x, [5, [7]]), (x, cyc)):
    expect("second_item_head", opt(*args).tolist(), second_item_head(*args).tolist())
expect("second_item_head graphs", cnt.frame_count, 2)

done()
