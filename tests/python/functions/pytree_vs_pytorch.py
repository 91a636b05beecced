"""torch.utils._pytree as model code uses it (gpt-fast's GPTQ flattens `(args, kwargs)`, vit-pytorch's
video wrapper a forward's outputs): tree_flatten's leaves and TreeSpec repr for tuples, lists,
dicts, namedtuples, OrderedDict, defaultdict, deque, torch.Size and torch.return_types, None as a
leaf; tree_unflatten round trips and its errors; tree_map (with several trees and is_leaf),
tree_leaves, tree_structure, register_pytree_node; and flatten/unflatten inside a compiled function.
The .out is PyTorch 2.15's output."""
from collections import OrderedDict, defaultdict, deque, namedtuple

import torch
import torch.utils._pytree as pytree
from torch.utils._pytree import tree_flatten, tree_unflatten

Point = namedtuple("Point", "x y")
trees = {
    "leaf": 3,
    "none": None,
    "args kwargs": ((torch.ones(2), 2), {"mask": None, "scale": 0.5}),
    "nested": [1, (2, [3, {"b": 4, "a": 5}]), []],
    "namedtuple": Point(1, [2, 3]),
    "ordered": OrderedDict(b=1, a=(2, 3)),
    "defaultdict": defaultdict(list, {"k": [1, 2]}),
    "deque": deque([1, 2], maxlen=4),
    "size": torch.Size([2, 3]),
    "return type": torch.max(torch.tensor([[1.0, 3.0], [2.0, 0.0]]), 1),
}
for name, tree in trees.items():
    leaves, spec = tree_flatten(tree)
    back = tree_unflatten(leaves, spec)
    print(name, len(leaves), spec.num_leaves, spec.num_nodes, type(back).__name__)
    print(" ", spec)
    print("  round trip", repr(back) == repr(tree))

leaves, spec = tree_flatten(trees["nested"])
print("map", pytree.tree_map(lambda v: v * 10, trees["nested"]))
print("map two", pytree.tree_map(lambda a, b: a + b, (1, [2]), (10, [20])))
print("is_leaf", tree_flatten([(1, 2), (3,)], is_leaf=lambda t: isinstance(t, tuple))[0])
print("leaves", pytree.tree_leaves({"a": [1, 2], "b": (3,)}), pytree.tree_structure([1, (2,)]))
print("equal specs", tree_flatten([1, (2,)])[1] == tree_flatten([5, (6,)])[1],
      tree_flatten([1, (2,)])[1] == tree_flatten([1, [2]])[1])
try:
    tree_unflatten([1, 2], spec)
except ValueError as e:
    print("ValueError", e)
try:
    tree_unflatten([1], "spec")
except TypeError as e:
    print("TypeError", e)


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


pytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], "pair"), lambda values, context: Pair(*values))
leaves, spec = tree_flatten([Pair(1, (2, 3)), 4])
print("registered", leaves, spec)
print("rebuilt", tree_unflatten([7, 8, 9, 10], spec)[0].b)


def f(args, kwargs):
    flat, spec = tree_flatten((args, kwargs))
    flat = [t * 2 if isinstance(t, torch.Tensor) else t for t in flat]
    (x, n), kw = tree_unflatten(flat, spec)
    return x * n * kw["scale"]


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    print("compiled", backend, torch.compile(f, backend=backend)((torch.arange(3.0), 2), {"scale": 0.5}))
