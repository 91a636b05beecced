# nn.Module semantics: registration, attribute protocol, traversal, state_dict, hooks, modes,
# conversions and reprs. Expected output is what PyTorch 2.6 prints.
import copy

import torch
import torch.nn as nn


def show_error(fn):
    try:
        fn()
    except Exception as e:  # the exact type and message are part of the golden
        print(type(e).__name__ + ":", str(e))
    else:
        print("no error")


print("== registration and attributes")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.scale = nn.Parameter(torch.ones(2))
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.lin(x) * self.scale


net = Net()
print(list(net._parameters), list(net._buffers), list(net._modules), "note" in net.__dict__)
print(type(net.scale).__name__, isinstance(net.scale, torch.Tensor), net.scale.requires_grad)
print(net.steps is net._buffers["steps"], net.lin is net._modules["lin"])
show_error(lambda: net.missing)
show_error(lambda: setattr(net, "scale", torch.zeros(2)))
show_error(lambda: setattr(net, "lin", 3))
show_error(lambda: setattr(net, "steps", 5))
show_error(lambda: net.register_buffer("lin", torch.zeros(1)))
show_error(lambda: net.register_parameter("a.b", None))
show_error(lambda: net.register_parameter("w", torch.ones(1)))
show_error(lambda: net.add_module("x", 5))
net.scale = None  # allowed: a parameter slot may hold None
print("scale" in net._parameters, net.scale)
net.scale = nn.Parameter(torch.full((2,), 2.0))
net.steps = torch.ones(1)  # re-assigning a buffer keeps it a buffer
print(list(net._buffers), net.steps)
net.extra = nn.ReLU()
print(list(net._modules))
del net.extra
print(list(net._modules), hasattr(net, "extra"))
net.note = nn.Parameter(torch.zeros(1))  # a parameter replaces the plain attribute
print("note" in net.__dict__, "note" in net._parameters)
del net.note


class NoInit(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(1))


show_error(NoInit)
show_error(lambda: nn.Module(3))

print("== traversal")
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_buffers()])
print([n for n, _ in net.named_children()], [type(m).__name__ for m in net.modules()])
shared = nn.Linear(2, 2)
tied = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(tied.parameters())), [n for n, _ in tied.named_modules()])
print([n for n, _ in tied.named_parameters(remove_duplicate=False)])
print(next(tied.parameters()) is shared.weight, [n for n, _ in tied.named_parameters(prefix="model")])
print([n for n, _ in net.named_parameters(recurse=False)])
print(net.get_submodule("lin") is net.lin, net.get_parameter("lin.bias") is net.lin.bias)
show_error(lambda: net.get_submodule("lin.foo"))
visited = []
net.apply(lambda m: visited.append(type(m).__name__))
print(visited)

print("== state_dict")
sd = net.state_dict()
print(type(sd).__name__, list(sd.keys()))
print(sd["lin.weight"].requires_grad, type(sd["scale"]).__name__, sd["steps"])
print(sd["lin.weight"].data_ptr() == net.lin.weight.data_ptr())
other = Net()
print(other.load_state_dict(sd))
print(bool((other.lin.weight == net.lin.weight).all()), bool((other.scale == 2).all()))
bad = dict(sd)
bad["lin.extra"] = torch.zeros(1)
del bad["scale"]
show_error(lambda: other.load_state_dict(bad))
print(other.load_state_dict(bad, strict=False))
wrong = dict(sd)
wrong["lin.weight"] = torch.zeros(3, 3)
show_error(lambda: other.load_state_dict(wrong))
show_error(lambda: other.load_state_dict([1, 2]))
keep = net.state_dict(keep_vars=True)
print(keep["scale"] is net.scale)
print(list(nn.BatchNorm1d(2).state_dict()))
old = {k: v for k, v in nn.BatchNorm1d(2).state_dict().items() if k != "num_batches_tracked"}
print(nn.BatchNorm1d(2).load_state_dict(old))
before = net.lin.weight
net.load_state_dict(other.state_dict(), assign=True)
print(net.lin.weight is before, type(net.lin.weight).__name__, net.lin.weight.requires_grad)

print("== hooks")
calls = []
lin = nn.Linear(2, 2)


def pre(m, args):
    calls.append(("pre", type(m).__name__, len(args)))
    return (args[0] * 0,)


def post(m, args, out):
    calls.append(("post", tuple(out.shape)))
    return out + 1


h1 = lin.register_forward_pre_hook(pre)
h2 = lin.register_forward_hook(post)
with torch.no_grad():
    out = lin(torch.ones(1, 2))
print(calls, bool((out == lin.bias + 1).all()))
print(len(lin._forward_pre_hooks), len(lin._forward_hooks))
h1.remove()
h2.remove()
h2.remove()  # removing twice is harmless
print(len(lin._forward_pre_hooks), len(lin._forward_hooks))
order = []
lin.register_forward_hook(lambda m, a, o: order.append("second"))
lin.register_forward_hook(lambda m, a, o: order.append("first"), prepend=True)
lin.register_forward_pre_hook(lambda m, a, kw: order.append(("kw", sorted(kw))), with_kwargs=True)
lin.register_forward_hook(lambda m, a, kw, o: order.append(("post kw", len(a))), with_kwargs=True)
lin(torch.ones(2))
print(order)
bad_hook = nn.Identity()
bad_hook.register_forward_pre_hook(lambda m, a, kw: 3, with_kwargs=True)
show_error(lambda: bad_hook(1))
from torch.nn.modules import module as module_mod


def global_hooks():
    # `_global_hooks_active` is Rynamo's summary flag (what Dynamo reads); PyTorch has only the dicts.
    active = bool(module_mod._global_forward_hooks) or bool(module_mod._global_forward_pre_hooks)
    assert getattr(module_mod, "_global_hooks_active", active) == active
    return active


print(global_hooks())
seen = []
with nn.modules.module.register_module_forward_hook(lambda m, a, o: seen.append(type(m).__name__)):
    print(global_hooks())
    nn.Sequential(nn.Identity(), nn.ReLU())(torch.ones(1))
print(seen, global_hooks())
print(nn.Identity()(torch.ones(1)).shape)

print("== modes and conversions")
model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.BatchNorm1d(2))
print(model.training, [m.training for m in model])
print(model.eval() is model, [m.training for m in model])
model.train()
print([m.training for m in model])
show_error(lambda: model.train("yes"))
p = model[0].weight
model.double()
print(p is model[0].weight, p.dtype, model[2].running_mean.dtype, model[2].num_batches_tracked.dtype)
model.to(torch.float16)
print(p.dtype, model[0].bias.dtype)
model.float().to("cpu")
print(p.dtype, p.device, model.to(torch.device("cpu"), torch.float64)[0].weight.dtype)
show_error(lambda: model.to(torch.int32))
model.half()
print(model[2].weight.dtype)
model.requires_grad_(False)
print([q.requires_grad for q in model.parameters()])
model.requires_grad_()
lin = model[0]
lin.weight.grad = torch.ones(2, 2, dtype=lin.weight.dtype)
model.zero_grad()
print(lin.weight.grad)
lin.weight.grad = torch.ones(2, 2, dtype=torch.float16)
model.zero_grad(set_to_none=False)
print(lin.weight.grad)

print("== containers")
seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print(len(seq), type(seq[0]).__name__, type(seq[-1]).__name__)
print(seq[1:])
seq.append(nn.Softmax(dim=-1))
print([type(m).__name__ for m in seq], list(seq._modules))
del seq[1]
print(list(seq._modules), [type(m).__name__ for m in seq])
show_error(lambda: seq[7])
named = nn.Sequential(__import__("collections").OrderedDict([("conv", nn.Conv2d(1, 2, 3)), ("act", nn.ReLU())]))
print(named)
print(named.conv is named[0])
layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
layers.append(nn.ReLU())
layers.insert(0, nn.Tanh())
print(layers)
print(len(layers), type(layers[-1]).__name__, [n for n, _ in layers.named_parameters()][:2])
print(nn.ModuleList())
heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "box": nn.Linear(4, 4)})
heads["extra"] = nn.Identity()
print(list(heads), "box" in heads, len(heads), type(heads.pop("extra")).__name__)
print(heads)
plist = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
print(plist)
print(isinstance(plist[1], nn.Parameter), [n for n, _ in plist.named_parameters()])
pdict = nn.ParameterDict({"a": nn.Parameter(torch.ones(1)), "b": torch.zeros(2, 2, dtype=torch.float64)})
print(pdict)

print("== parameter and repr")
w = nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(w)
print(repr(nn.Parameter(torch.zeros(2), requires_grad=False)))
print(nn.Parameter().shape, (w * 2).__class__.__name__, isinstance(w, nn.Parameter))
show_error(lambda: nn.Parameter(torch.tensor([1, 2])))
c = copy.deepcopy(w)
print(type(c).__name__, c.requires_grad, c.data_ptr() != w.data_ptr())


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(1, 1)

    def extra_repr(self):
        return "alpha=1,\nbeta=2"


print(WithExtra())
print(nn.Module())
deep = copy.deepcopy(net)
print(type(deep).__name__, deep.lin.weight is not net.lin.weight, bool((deep.lin.weight == net.lin.weight).all()))
print(net)
print(nn.TransformerEncoderLayer(8, 2, 16))
print(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()), 2, enable_nested_tensor=False))
