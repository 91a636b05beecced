"""Where a compiled module's parameters, buffers and submodules are read from.

Dynamo sources an attribute that `nn.Module.__getattr__` resolves through its registries as
`L['self']._modules['fc']._parameters['weight']` (graph inputs `L_self_modules_fc_parameters_
weight_`), so guards and every call's inputs read plain dicts. This pins the names PyTorch gives
the graph inputs, and that the dict sources stay sound when the module changes between calls:
a new parameter object or submodule of the same type is read (no recompile, as PyTorch), a
submodule of another type or a parameter set to None recompiles, and a class overriding
`__getattr__` keeps its own lookup. Also `nn.Module.__getattr__` itself (native in Rynamo).
The .out is recorded from PyTorch 2.15."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Captured:
    """A backend that records each graph's input names and runs it."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        self.graphs.append(sorted(names))
        return gm.forward


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.seq = nn.Sequential(nn.Linear(4, 4, bias=False), nn.ReLU())
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        return self.seq(self.fc(x)) * self.scale


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.head = nn.Linear(4, 7, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):
        return self.head(self.emb(idx))


def check(label, model, *args, names=True):
    cap = Captured()
    f = torch.compile(model, backend=cap)
    got = f(*args)
    want = model(*args)
    print(label, "equal:", torch.equal(got, want), "graphs:", len(cap.graphs))
    for g in cap.graphs if names else ():
        print("  inputs:", g)
    return f, cap


x = torch.randn(3, 4)
block = Block()
f, cap = check("block", block, x)

# A new Parameter object in place of the old one: read through _parameters, no recompile.
with torch.no_grad():
    block.fc.weight = nn.Parameter(torch.randn(4, 4))
print("new parameter equal:", torch.equal(f(x), block(x)), "graphs:", len(cap.graphs))

# A new submodule of the same type: read through _modules, no recompile.
block.fc = nn.Linear(4, 4)
print("new submodule equal:", torch.equal(f(x), block(x)), "graphs:", len(cap.graphs))

# A submodule of another type: its TYPE_MATCH fails, recompiles.
block.fc = nn.Identity()
print("other type equal:", torch.equal(f(x), block(x)), "graphs:", len(cap.graphs))
print("  inputs:", cap.graphs[-1])

# A buffer replaced by another tensor.
block.scale = torch.full((4,), 2.0)
print("new buffer equal:", torch.equal(f(x), block(x)), "graphs:", len(cap.graphs))

# A parameter set to None: the graph changes (no bias), recompiles.
lin = nn.Linear(4, 2)
g, lcap = check("linear", lin, x)
lin.bias = None
print("bias None equal:", torch.equal(g(x), lin(x)), "graphs:", len(lcap.graphs))
print("  inputs:", lcap.graphs[-1])

# One parameter reached through two modules (tied embedding and head).
check("tied", Tied(), torch.tensor([[1, 2, 3], [6, 0, 5]]))


class Overriding(nn.Module):
    """A `__getattr__` of its own in front of nn.Module's (as some model libraries write)."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 4)

    def __getattr__(self, name):
        # `proj` is another name for `inner`: the trace must keep this lookup.
        return super().__getattr__("inner" if name == "proj" else name)

    def forward(self, x):
        return F.relu(self.proj(x))


ov = Overriding()
# Not its input names: PyTorch inlines the override, reading `L['self'].__dict__['_modules']`;
# Rynamo reads `L['self'].proj` through it.
h, ocap = check("overriding", ov, x, names=False)
ov.inner = nn.Linear(4, 4)
print("overriding new inner equal:", torch.equal(h(x), ov(x)), "graphs:", len(ocap.graphs))

# nn.Module.__getattr__ itself.
lin2 = nn.Linear(2, 2, bias=False)
print("bias:", lin2.bias, "weight:", tuple(lin2.weight.shape))
for obj, name in ((lin2, "nope"), (block, "fc2")):
    try:
        getattr(obj, name)
    except AttributeError as e:
        print("AttributeError:", e)
print("hasattr:", hasattr(block, "seq"), hasattr(block, "zzz"), getattr(block, "zzz", 7))
m = nn.Module.__new__(nn.Module)  # before __init__: no registries yet
try:
    m.weight
except AttributeError as e:
    print("uninitialised:", e)
