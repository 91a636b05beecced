"""Python side effects, replayed after the graph runs: stores to globals, nonlocals, lists, dicts
and user-object attributes must be visible after the compiled call exactly as after eager."""
import torch
from _corpus import check, check_state, done

COUNTER = 0
LAST = None
HISTORY = []
REGISTRY = {}
SEEN = set()
GW = torch.ones(3)


class State:
    def __init__(self):
        self.steps = 0
        self.last = None
        self.log = []


ST = State()


def reset_globals():
    global COUNTER, LAST, HISTORY, REGISTRY, ST, SEEN, GW
    COUNTER = 0
    LAST = None
    HISTORY = []
    REGISTRY = {}
    ST = State()
    SEEN = {1}
    GW = torch.ones(3)


def snapshot_globals():
    return {
        "COUNTER": COUNTER,
        "LAST": LAST,
        "HISTORY": list(HISTORY),
        "REGISTRY": dict(REGISTRY),
        "ST": (ST.steps, ST.last, list(ST.log)),
        "SEEN": sorted(SEEN),
        "GW": GW.clone(),
    }


def global_int_store(x):
    global COUNTER
    COUNTER = COUNTER + 1
    return x * COUNTER


def global_tensor_store(x):
    global LAST
    LAST = x.sin()
    return LAST + 1


def global_store_then_load(x):
    global COUNTER
    COUNTER = 7
    return x + COUNTER


def global_list_append(x):
    HISTORY.append(x.sum())
    HISTORY.append("tag")
    return x * 2


def global_list_setitem(x):
    HISTORY.append(x)
    HISTORY[0] = x + 100
    return HISTORY[0] - 100


def global_dict_setitem(x):
    REGISTRY["a"] = x.mean()
    REGISTRY["n"] = 3
    return x - REGISTRY["a"]


def global_dict_pop(x):
    REGISTRY["a"] = 1
    REGISTRY["b"] = x
    v = REGISTRY.pop("a")
    return x * v


def global_set_mutation(x):
    SEEN.add(3)
    SEEN.discard(1)
    SEEN.update([4, 5])
    return x + len(SEEN)


def arg_set_mutation(s, x):
    s.add(7)
    s |= {8}
    t = s
    t -= {0}
    return x * len(s)


def global_tensor_inplace(x):
    GW.add_(x[0, :3])
    return GW * 2


def list_then_inplace(x):
    y = x * 2
    out = [y]
    y.add_(1)
    return out


def object_attr_store(x):
    ST.steps = ST.steps + 1
    ST.last = x * 2
    return ST.last + ST.steps


def object_attr_list_append(x):
    ST.log.append(x.max())
    return x


def object_setattr_builtin(x):
    setattr(ST, "steps", 42)
    return x + ST.steps


def nonlocal_in_closure(x):
    total = 0

    def bump(k):
        nonlocal total
        total += k

    bump(2)
    bump(3)
    return x * total


def arg_list_append(xs, x):
    xs.append(x * 2)
    return len(xs)


def arg_list_mutations(xs):
    xs[0] = xs[0] + 1
    xs.insert(1, xs[-1] * 3)
    xs.pop()
    return xs[0]


def arg_dict_mutations(d):
    d["new"] = d["x"] * 2
    del d["x"]
    d.update({"k": 3})
    return d["new"]


def arg_list_clear_extend(xs):
    n = len(xs)
    xs.clear()
    xs.extend([n, n + 1])
    return n


def arg_object_attr(obj, x):
    obj.steps = 5
    obj.last = x + 1
    return x


def arg_tensor_inplace(x):
    x.add_(1)
    x.mul_(2)
    return None


def arg_tensor_setitem(x):
    x[0] = 0.0
    x[:, 1] = x[:, 2] * 2
    return x.sum()


def list_alias_mutation(xs):
    ys = xs
    ys.append(1)
    return len(xs)


def local_list_alias(x):
    a = []
    b = a
    b.append(x)
    return a


def mutate_then_return_container(d, x):
    d["y"] = x * 3
    return d


xt = torch.randn(4, 5)
check_state(global_int_store, (xt,), reset_globals, snapshot_globals)
check_state(global_tensor_store, (xt,), reset_globals, snapshot_globals)
check_state(global_store_then_load, (xt,), reset_globals, snapshot_globals)
check_state(global_list_append, (xt,), reset_globals, snapshot_globals)
check_state(global_list_setitem, (xt,), reset_globals, snapshot_globals)
check_state(global_dict_setitem, (xt,), reset_globals, snapshot_globals)
check_state(global_dict_pop, (xt,), reset_globals, snapshot_globals)
check_state(global_set_mutation, (xt,), reset_globals, snapshot_globals)
check(arg_set_mutation, {0, 1}, xt)
check_state(object_attr_store, (xt,), reset_globals, snapshot_globals)
check_state(object_attr_list_append, (xt,), reset_globals, snapshot_globals)
check_state(object_setattr_builtin, (xt,), reset_globals, snapshot_globals)
check_state(global_tensor_inplace, (xt,), reset_globals, snapshot_globals)
check(list_then_inplace, xt)
check(nonlocal_in_closure, xt)
check(arg_list_append, [xt], xt)
check(arg_list_mutations, [xt, xt * 2, xt * 3])
check(arg_dict_mutations, {"x": xt})
check(arg_list_clear_extend, [1, 2, 3], graphs=0)
check(arg_object_attr, State(), xt)
check(arg_tensor_inplace, xt)
check(arg_tensor_setitem, xt)
check(list_alias_mutation, [1], graphs=0)
check(local_list_alias, xt, graphs=0)
check(mutate_then_return_container, {"x": 1}, xt)
done()
