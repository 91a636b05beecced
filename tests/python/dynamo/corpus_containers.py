"""Building and unpacking tuples, lists, dicts, sets and slices, with tensors and constants as
items; containers returned from the compiled frame keep their Python types."""
import torch
import torch._dynamo
import _harness
from _corpus import check, done


def build_tuple(x):
    return (x, x + 1, 3)


def build_list(x):
    return [x * 2, x.sin(), "tag"]


def build_dict(x):
    return {"sum": x.sum(), "max": x.amax(), "n": x.numel()}


def build_nested(x):
    return {"pair": (x, x * 2), "list": [x.cos(), [x.exp()]]}


def unpack_tuple(pair):
    a, b = pair
    return a * b


def unpack_list(xs):
    a, b, c = xs
    return a + b - c


def unpack_star(xs):
    first, *rest = xs
    return first * len(rest) + rest[-1]


def unpack_star_middle(xs):
    a, *mid, b = xs
    return a + b + len(mid)


def unpack_nested(x):
    (a, b), c = (x, x + 1), x * 2
    return a + b + c


def unpack_dict_items(d):
    out = []
    for k, v in d.items():
        out.append(v * len(k))
    return out


def tuple_concat(x):
    t = (x,) + (x + 1, x + 2)
    return t * 2


def list_concat(x):
    a = [x] + [x * 2]
    a += [x * 3]
    return a


def list_slice(xs):
    return xs[1:], xs[::-1], xs[:2]


def tuple_slice(x):
    t = (x, x + 1, x + 2, x + 3)
    return t[1:3], t[::2]


def slice_object(x):
    s = slice(1, 3)
    return x[s], x[:, s]


def dict_comprehension_build(x):
    return {f"k{i}": x * i for i in range(3)}


def dict_from_pairs(x):
    d = dict([("a", x), ("b", x + 1)])
    return d["a"] + d["b"]


def dict_from_kwargs(x):
    d = dict(a=x, b=2)
    return d["a"] * d["b"]


def dict_merge_operator(x):
    a = {"x": x}
    b = {**a, "y": x * 2}
    return b


def set_membership_const(x):
    modes = {"a", "b", "c"}
    if "b" in modes:
        return x + len(modes)
    return x


def frozenset_const(x):
    s = frozenset([1, 2, 3])
    return x * len(s)


def set_of_ints_build(x):
    s = {1, 2, 2, 3}
    return x * len(s)


def set_algebra(x):
    a = {1, 2, 3}
    b = set([3, 4])
    a.add(9)
    a.discard(1)
    u, i, d = a | b, a & b, a - b
    return x * len(u) + len(i) - len(d), sorted(u), 9 in a


def set_returned(x):
    s = {k * 2 for k in range(3)}
    s |= {7}
    return x + 1, s, frozenset(s)


def set_alias_after_break(x):
    s = {1}
    t = s
    torch._dynamo.graph_break()
    t.add(2)
    return x * len(s)


MODES = {"train", "eval"}


def global_set_membership(x, mode):
    if mode in MODES and len(MODES) == 2:
        return x + 1
    return x


def list_to_tuple(x):
    return tuple([x, x * 2])


def tuple_to_list(x):
    return list((x, x + 1))


def copies_keep_items(x, l, t, d):
    # Copying a container copies references: the items are the argument's own objects, so `is`
    # between them holds, as in eager (mutable items included).
    return (
        x + 1,
        tuple(l)[0] is l[0],
        list(t)[1] is t[1],
        dict(d)["k"] is d["k"],
        [*l][0] is l[0],
        (*t,)[0] is t[0],
        tuple(l)[1] is l[0],
    )


def copy_returned(x, l):
    return x + 1, tuple(l), list(l), [*l]


def tuple_returned(x, t):
    # `tuple(t)` of a tuple is `t`; an argument returned is the caller's object.
    return x + 1, tuple(t), t


def starred_call_build(x):
    parts = [x, x + 1]
    return torch.stack([*parts, x * 3])


def list_index_assign(x):
    xs = [x, x, x]
    xs[1] = x * 5
    xs[-1] = xs[1] + 1
    return xs


def list_delete(x):
    xs = [x, x + 1, x + 2]
    del xs[0]
    return xs


def dict_delete(x):
    d = {"a": x, "b": x + 1}
    del d["a"]
    return d


def tuple_return_of_shapes(x):
    return x.shape, x.size(1), tuple(x.shape)


def empty_containers(x):
    return [], {}, (), x + 1


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(build_tuple, x)
check(build_list, x)
check(build_dict, x)
check(build_nested, x)
check(unpack_tuple, (x, y))
check(unpack_list, [x, y, x])
check(unpack_star, [x, y, x * 3])
check(unpack_star_middle, (x, y, x, y))
check(unpack_nested, x)
check(unpack_dict_items, {"ab": x, "cde": y})
check(tuple_concat, x)
check(list_concat, x)
check(list_slice, [x, y, x + y], graphs=0)
check(tuple_slice, x)
check(slice_object, x)
check(dict_comprehension_build, x)
check(dict_from_pairs, x)
check(dict_from_kwargs, x)
check(dict_merge_operator, x)
check(set_membership_const, x)
check(frozenset_const, x)
check(set_of_ints_build, x)
check(set_algebra, x)
check(set_returned, x)
check(set_alias_after_break, x, breaks=1)
check(global_set_membership, x, "eval")
check(global_set_membership, x, "test", graphs=0)
check(list_to_tuple, x)
check(tuple_to_list, x)
check(copies_keep_items, x, [[1], [2]], ([3], {"a": 4}), {"k": [5]})
# A copy that is returned holds the argument's items themselves.
nested = [[1], [2]]
torch._dynamo.reset()
_, as_tuple, as_list, unpacked = torch.compile(copy_returned, backend="eager")(x, nested)
for name, c in (("tuple", as_tuple), ("list", as_list), ("unpacked", unpacked)):
    if not (c[0] is nested[0] and c[1] is nested[1]):
        _harness._failures.append(f"copy_returned: {name}(l) holds copies of l's items")
pair = ([1], [2])
_, as_tuple, same_tuple = torch.compile(tuple_returned, backend="eager")(x, pair)
if not (as_tuple is pair and same_tuple is pair):
    _harness._failures.append("tuple_returned: the argument tuple came back as a copy")
check(starred_call_build, x)
check(list_index_assign, x)
check(list_delete, x)
check(dict_delete, x)
check(tuple_return_of_shapes, x, graphs=0)
check(empty_containers, x)
done()
