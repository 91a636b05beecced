"""Graph-break corpus, live locals across a break: every kind of value a frame can hold when it
breaks (int, float, str, None, containers, tensors, lists of tensors, user objects, closure
cells, functions, modules, dtypes, sizes) must reach the resume function intact. Counts follow
PyTorch 2.x: the graph before the break, one resume graph after it, one break. (Closure cells
and nested functions live across a break are in `breaks_scopes.py`.)"""
import math

import torch
import torch._dynamo
from _corpus import check, done


class Holder:
    def __init__(self, scale):
        self.scale = scale
        self.items = [1, 2]


def helper_fn(t):
    return t * 4 - 1


def live_int(x):
    n = x.shape[0] + 2
    y = x * n
    torch._dynamo.graph_break()
    return y + n


def live_float(x):
    s = 2.5
    y = x * s
    print("brk")
    return y / s


def live_str(x, mode="scale"):
    tag = mode + "_v1"
    y = x + 1
    torch._dynamo.graph_break()
    if tag.startswith("scale"):
        return y * 2
    return y


def live_none(x):
    bias = None
    y = x.sin()
    torch._dynamo.graph_break()
    return y if bias is None else y + bias


def live_bool(x):
    flag = x.dim() == 2
    y = x.cos()
    torch._dynamo.graph_break()
    return y + 1 if flag else y - 1


def live_tuple(x):
    t = (2, 3.5, "s")
    y = x * t[0]
    torch._dynamo.graph_break()
    return y + t[1] + len(t[2])


def live_list_of_ints(x):
    ks = [1, 2, 3]
    y = x + ks[0]
    torch._dynamo.graph_break()
    return y * ks[2] + len(ks)


def live_dict_mixed(x):
    cfg = {"w": 3, "t": x + 1, "name": "a"}
    torch._dynamo.graph_break()
    return cfg["t"] * cfg["w"]


def live_set(x):
    s = {1, 2, 5}
    y = x - 1
    torch._dynamo.graph_break()
    return y * (2 if 5 in s else 3) + len(s)


def live_tensor_and_arg(x):
    y = x.exp()
    z = y * x
    torch._dynamo.graph_break()
    return z + y + x


def live_list_of_tensors(x):
    ts = [x + i for i in range(3)]
    torch._dynamo.graph_break()
    return torch.stack(ts).sum(0)


def live_tuple_of_tensors(x):
    pair = (x.sin(), x.cos())
    torch._dynamo.graph_break()
    return pair[0] * pair[1]


def live_nested_containers(x):
    box = [(1, x * 2), {"k": [x + 3]}]
    torch._dynamo.graph_break()
    return box[0][1] + box[1]["k"][0] * box[0][0]


def live_user_object(x, h):
    y = x * h.scale
    torch._dynamo.graph_break()
    return y + h.scale + len(h.items)


def live_function(x):
    fn = helper_fn
    act = torch.relu
    y = act(x)
    torch._dynamo.graph_break()
    return fn(y) + act(y)


def live_module(x):
    m = math
    y = x * m.pi
    torch._dynamo.graph_break()
    return y + m.e


def live_dtype(x):
    dt = torch.float64
    y = x + 1
    torch._dynamo.graph_break()
    return y.to(dt) * 2


def live_dtype_of_input(x):
    dt = x.dtype
    y = (x > 0).to(torch.int32)
    torch._dynamo.graph_break()
    return y.to(dt) + x


def live_size(x):
    sz = x.shape
    y = x.reshape(-1)
    torch._dynamo.graph_break()
    return y.reshape(sz) + torch.zeros(sz)


def live_range_and_slice(x):
    r = range(1, 3)
    sl = slice(0, 2)
    y = x[sl] * 2
    torch._dynamo.graph_break()
    return y + sum(r)


def live_varargs(*args):
    y = args[0] * args[1]
    torch._dynamo.graph_break()
    return y + len(args)


def live_kwargs(x, **kw):
    y = x * kw["a"]
    torch._dynamo.graph_break()
    return y + kw["b"]


def live_reassigned_arg(x):
    x = x * 2
    x = x + 1
    torch._dynamo.graph_break()
    return x.sum(1)


def only_some_locals_live(x):
    dead = x * 100
    keep = x + 1
    unused = [dead, 1]
    torch._dynamo.graph_break()
    return keep * 2


def deleted_local_before_break(x):
    y = x + 1
    z = y * 2
    del y
    print("deleted")
    return z


def live_many_kinds_at_once(x):
    n, f, s, none = 2, 0.5, "ab", None
    ts = [x, x * 2]
    d = {"w": x.sum()}
    dt, sz = x.dtype, x.shape
    torch._dynamo.graph_break()
    out = ts[1] * n + f + len(s) + d["w"]
    return out.to(dt).reshape(sz), none


x = torch.randn(4, 5)

check(live_int, x, graphs=2, breaks=1)
check(live_float, x, graphs=2, breaks=1)
check(live_str, x, graphs=2, breaks=1)
check(live_none, x, graphs=1, breaks=1)
check(live_bool, x, graphs=2, breaks=1)
check(live_tuple, x, graphs=2, breaks=1)
check(live_list_of_ints, x, graphs=2, breaks=1)
check(live_dict_mixed, x, graphs=2, breaks=1)
check(live_set, x, graphs=2, breaks=1)
check(live_tensor_and_arg, x, graphs=2, breaks=1)
check(live_list_of_tensors, x, graphs=2, breaks=1)
check(live_tuple_of_tensors, x, graphs=2, breaks=1)
check(live_nested_containers, x, graphs=2, breaks=1)
check(live_user_object, x, Holder(3), graphs=2, breaks=1)
check(live_function, x, graphs=2, breaks=1)
check(live_module, x, graphs=2, breaks=1)
check(live_dtype, x, graphs=2, breaks=1)
check(live_dtype_of_input, x, graphs=2, breaks=1)
check(live_size, x, graphs=2, breaks=1)
check(live_range_and_slice, x, graphs=2, breaks=1)
check(live_varargs, x, 3, graphs=2, breaks=1)
check(live_kwargs, x, a=2, b=5, graphs=2, breaks=1)
check(live_reassigned_arg, x, graphs=2, breaks=1)
check(only_some_locals_live, x, graphs=2, breaks=1)
check(deleted_local_before_break, x, graphs=1, breaks=1)
check(live_many_kinds_at_once, x, graphs=2, breaks=1)
done()
