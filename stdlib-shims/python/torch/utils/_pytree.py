"""``torch.utils._pytree``: flattening nested containers into leaves and a ``TreeSpec`` that rebuilds
them, as PyTorch 2.15's Python implementation does it. Model code uses it to pass a forward's nested
arguments or outputs through flat lists (gpt-fast's GPTQ, vit-pytorch's video wrapper).

Containers: tuple, list, dict (insertion order), namedtuple, OrderedDict, defaultdict, deque,
``torch.Size``, the ``torch.return_types`` tuples, and types added with ``register_pytree_node``.
Everything else, ``None`` included, is a leaf."""

import collections
from collections import OrderedDict, defaultdict, deque

import torch

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_iter", "tree_all", "tree_any"]


class _Node:
    def __init__(self, flatten_fn, unflatten_fn):
        self.flatten_fn = flatten_fn
        self.unflatten_fn = unflatten_fn


SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Makes ``cls`` a container: ``flatten_fn(x) -> (children, context)``, ``unflatten_fn(children,
    context) -> x``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = _Node(flatten_fn, unflatten_fn)


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_unflatten(values, context):
    return context(*values)


register_pytree_node(tuple, lambda d: (list(d), None), lambda values, context: tuple(values))
register_pytree_node(list, lambda d: (d, None), lambda values, context: list(values))
register_pytree_node(dict, lambda d: (list(d.values()), list(d.keys())),
                     lambda values, context: dict(zip(context, values)))
register_pytree_node(collections.namedtuple, _namedtuple_flatten, _namedtuple_unflatten)
register_pytree_node(OrderedDict, lambda d: (list(d.values()), list(d.keys())),
                     lambda values, context: OrderedDict((k, v) for k, v in zip(context, values)))
register_pytree_node(defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                     lambda values, context: defaultdict(context[0], dict(zip(context[1], values))))
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda values, context: deque(values, maxlen=context))


def _node_type(tree):
    """The registry key of ``tree``'s container type, or None for a leaf."""
    cls = type(tree)
    if cls in SUPPORTED_NODES:
        return cls
    if isinstance(tree, tuple) and hasattr(cls, "_fields"):
        if cls.__module__ == "torch.return_types":
            # structseqs: registered per type in PyTorch (`TreeSpec(max, None, ...)`), built from a sequence
            register_pytree_node(cls, lambda d: (list(d), None), lambda values, context: cls(values))
            return cls
        return collections.namedtuple
    return None


class TreeSpec:
    """A container's type and context and its children's specs; ``LeafSpec`` (shown ``*``) marks a
    leaf."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self._context = context
        self._children = list(children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_children = len(self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type == other.type and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        return id(self)

    def __repr__(self, indent=0):
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        body = ""
        if self.num_children > 0:
            indent += 2
            body += self._children[0].__repr__(indent)
            body += "," if self.num_children > 1 else ""
            body += ",".join("\n" + " " * indent + child.__repr__(indent) for child in self._children[1:])
        return prefix + body + "])"

    def _unflatten(self, leaves):
        children = []
        start = 0
        for spec in self._children:
            end = start + spec.num_leaves
            children.append(spec._unflatten(leaves[start:end]))
            start = end
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def unflatten(self, leaves):
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._unflatten(leaves)


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])
        self.num_nodes = 1
        self.num_leaves = 1

    def __repr__(self, indent=0):
        return "*"

    def _unflatten(self, leaves):
        return leaves[0]


# PyTorch rebuilds a torch.Size as a plain tuple.
register_pytree_node(torch.Size, lambda d: (list(d), None), lambda values, context: tuple(values))


def _flatten(tree, leaves, is_leaf):
    if is_leaf is not None and is_leaf(tree):
        leaves.append(tree)
        return LeafSpec()
    node = _node_type(tree)
    if node is None:
        leaves.append(tree)
        return LeafSpec()
    children, context = SUPPORTED_NODES[node].flatten_fn(tree)
    specs = [_flatten(child, leaves, is_leaf) for child in children]
    return TreeSpec(node, context, specs)


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treespec)``, leaves in depth-first order."""
    leaves = []
    spec = _flatten(tree, leaves, is_leaf)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                        f"{type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    yield from tree_leaves(tree, is_leaf)


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``func`` over the leaves of ``tree`` (and the matching leaves of ``rests``), rebuilt as ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = []
    for r in rests:
        r_leaves, r_spec = tree_flatten(r, is_leaf)
        if r_spec != spec:
            raise ValueError(f"Tree structure mismatch: {r_spec} vs {spec}")
        others.append(r_leaves)
    return spec.unflatten([func(*xs) for xs in zip(leaves, *others)])


def tree_all(pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_leaves(tree, is_leaf))


def tree_any(pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_leaves(tree, is_leaf))
