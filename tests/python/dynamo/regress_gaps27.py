"""Issue 27's last gaps, each pinned to what real PyTorch 2.15 does (the same file runs there:
`/tmp/pt/bin/python tests/python/dynamo/regress_gaps27.py`; the counts below are its own):

- a 0-d integer tensor built from a literal indexes by its value, in the graph (PyTorch's
  FakeTensor keeps such a tensor's `constant`), as a view of the indexed tensor;
- calls that return their receiver (`x.to(x.device)`, `cpu()`, `contiguous()`, `float()` of a
  float tensor) are calls of the graph: a frame with nothing else compiles one graph, and the
  result is the input object itself;
- `nn.Module`s are guarded by type, not identity: another instance of the class reuses the
  entry when what the trace read from it is the same (its attributes, parameters' metadata,
  children, hooks), and recompiles otherwise;
- `torch.nn` modules without parameters built in the region (`nn.ReLU()`) are values of the
  trace; one that leaves it is built anew per call, as eager does; one with parameters breaks
  (as PyTorch does) and draws the same random initial values as eager;
- `inspect.signature(f)` of a Python function is a constant of the trace, guarded on what it
  reads (code, defaults, keyword defaults, annotations), so changing a default recompiles."""
import inspect

import torch
import torch._dynamo
import torch.nn as nn
from torch._dynamo.testing import CompileCounter

try:
    import _rynamo_dynamo  # noqa: F401 - only Rynamo has it

    RYNAMO = True
except ImportError:
    RYNAMO = False

B = torch.arange(24.0).reshape(2, 3, 4)
failures = []


def compiled(fn, *args, graphs):
    """Runs `fn` compiled (twice) and eagerly; values equal, graph count `graphs`."""
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    for _ in range(2):
        want, got = fn(*[a.clone() for a in args]), opt(*[a.clone() for a in args])
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        if len(want) != len(got) or not all(
            (w == g).all() if isinstance(w, torch.Tensor) else w == g for w, g in zip(want, got)
        ):
            failures.append(f"{fn.__name__}: compiled {got} != eager {want}")
    if cnt.frame_count != graphs:
        failures.append(f"{fn.__name__}: {cnt.frame_count} graphs, PyTorch makes {graphs}")
    return opt


# --- 0-d integer tensors as indices ---------------------------------------------------------
def literal_index(x):
    return x[torch.tensor(1)], x[:, torch.tensor(2)], x[torch.tensor(-1)]


def literal_index_dtype(x):
    return x[torch.tensor(1, dtype=torch.int32)], x[..., torch.tensor(3, dtype=torch.int8)]


def literal_index_is_view(x):
    y = x[torch.tensor(1)]
    y.mul_(2)
    return y, x


compiled(literal_index, B, graphs=1)
compiled(literal_index_dtype, B, graphs=1)
compiled(literal_index_is_view, B, graphs=1)


def literal_index_out_of_range(x):
    return x[torch.tensor(5)]


torch._dynamo.reset()
try:
    torch.compile(literal_index_out_of_range, backend="eager")(B)
    failures.append("x[torch.tensor(5)] did not raise")
except IndexError as e:
    if not str(e).startswith("index 5 is out of bounds for dimension 0 with size 2"):
        failures.append(f"x[torch.tensor(5)] raised {e}")


def updated_literal_index(x):
    # An in-place update makes the tensor's value unknown to the trace: Rynamo breaks there
    # (PyTorch's FakeTensor recomputes the constant); the result is eager's either way.
    t = torch.tensor(0)
    t.add_(1)
    return x[t]


compiled(updated_literal_index, B, graphs=1 if RYNAMO else 1)


# --- calls that return their receiver -------------------------------------------------------
def to_own_device(x):
    return x.to(x.device)


def cpu_of_cpu(x):
    return x.cpu()


def contiguous_of_contiguous(x):
    return x.contiguous()


def float_of_float(x):
    return x.float()


def to_own_device_name(x):
    return x.to("cpu"), x.shape


for fn in (to_own_device, cpu_of_cpu, contiguous_of_contiguous, float_of_float, to_own_device_name):
    opt = compiled(fn, B, graphs=1)
    r = opt(B)
    if (r[0] if isinstance(r, tuple) else r) is not B:
        failures.append(f"{fn.__name__}: not the input object")


def only_size(x):
    return x.size()


compiled(only_size, B, graphs=0)


# --- nn.Module guards -----------------------------------------------------------------------
def call_module(m, x):
    return m(x)


def module_calls(label, calls, graphs):
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(call_module, backend=cnt)
    for m, x in calls:
        want, got = m(x), opt(m, x)
        if not torch.equal(want, got):
            failures.append(f"{label}: compiled {got} != eager {want}")
    if cnt.frame_count != graphs:
        failures.append(f"{label}: {cnt.frame_count} graphs, PyTorch makes {graphs}")


class Scaled(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) * self.k


torch.manual_seed(0)
x = torch.randn(2, 3)
a, b = nn.Linear(3, 2), nn.Linear(3, 2)
module_calls("two instances of a class", [(a, x), (b, x), (a, x)], 1)
module_calls("bias=None", [(a, x), (nn.Linear(3, 2, bias=False), x)], 2)
s1 = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
s2 = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3))
module_calls("children", [(s1, x), (s2, x)], 2)
module_calls("training flag", [(nn.Dropout(0.5).eval(), x), (nn.Dropout(0.5).eval(), x)], 1)
module_calls("user attributes", [(Scaled(2), x), (Scaled(2), x), (Scaled(3), x)], 2)
module_calls("parameter shapes", [(nn.Linear(3, 2), x), (nn.Linear(3, 4), x)], 2)
hooked = nn.Linear(3, 2)
hooked.register_forward_hook(lambda m, i, o: o * 2)
# PyTorch skips hook guards (`config.skip_nnmodule_hook_guards`) and returns the unhooked
# value here; Rynamo guards the hook dicts and recompiles, so the value is eager's.
if RYNAMO:
    module_calls("a hook on the second instance", [(a, x), (hooked, x)], 2)


def set_attr_on_module(m, x):
    m.scale = 2.0
    return x * m.scale


# Whether `scale` is a registered name decides where a store goes: guarded per instance.
torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(set_attr_on_module, backend=cnt)
plain, buffered = nn.Module(), nn.Module()
buffered.register_buffer("scale", torch.ones(1))
for m in (plain, nn.Module()):
    opt(m, x)
try:
    opt(buffered, x)
    failures.append("storing a float over a buffer did not raise")
except TypeError as e:
    if "cannot assign 'float' as buffer 'scale'" not in str(e):
        failures.append(f"buffer store raised {e}")
if plain.scale != 2.0 or cnt.frame_count != 1:
    failures.append(f"module store: {plain.scale}, {cnt.frame_count} graphs")

# --- nn.Modules built in the region ---------------------------------------------------------
X = torch.arange(6.0).reshape(2, 3)


def built_activations(x):
    act = nn.ReLU()
    drop = nn.Dropout(0.0)
    return drop(act(x - 2))


def built_with_kwargs(x):
    return nn.GELU(approximate="tanh")(x), nn.Flatten(0)(x), nn.Hardtanh(-1.0, 1.0)(x)


def built_then_break(x):
    m = nn.Hardtanh(-1.0, 2.0)
    y = m(x)
    torch._dynamo.graph_break()
    return m(y) + 1


def built_in_eval_mode(x):
    m = nn.Dropout(0.5)
    m.eval()
    return m(x)


def built_with_parameters(x):
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    return lin(x), torch.rand(2)


for fn in (built_activations, built_with_kwargs):
    torch._dynamo.reset()
    torch.compile(fn, backend="eager", fullgraph=True)(X)
    compiled(fn, X, graphs=1)
compiled(built_then_break, X, graphs=2)
compiled(built_in_eval_mode, X, graphs=1)
compiled(built_with_parameters, X, graphs=1)


def built_and_returned(x):
    m = nn.LeakyReLU(0.3)
    return m(x), m, [m]


torch._dynamo.reset()
opt = torch.compile(built_and_returned, backend="eager", fullgraph=True)
r1, r2 = opt(X), opt(X)
if not (r1[1] is r1[2][0] and r1[1] is not r2[1] and isinstance(r1[1], nn.LeakyReLU)):
    failures.append("a returned module is not a fresh module per call")
if r1[1].negative_slope != 0.3 or not r1[1].training or not torch.equal(r1[0], built_and_returned(X)[0]):
    failures.append(f"the returned module differs: {r1[1]!r}")


def built_with_keywords_and_returned(x):
    m = nn.Softmax(dim=-1)
    return m(x), m


def child_of_built_container(x):
    s = nn.Sequential(nn.ReLU())
    return s[0](x), s[0]


# A module built with keyword arguments is rebuilt from them when it leaves (1 graph, as
# PyTorch). A container's child cannot be rebuilt alone: Rynamo breaks on returning it (1 graph
# after restarting at the break, as PyTorch's 1).
for fn, graphs in ((built_with_keywords_and_returned, 1), (child_of_built_container, 1)):
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    r1, r2 = opt(X), opt(X)
    if r1[1] is r2[1] or not torch.equal(r1[0], fn(X)[0]) or repr(r1[1]) != repr(fn(X)[1]):
        failures.append(f"{fn.__name__}: {r1!r}")
    if cnt.frame_count != graphs:
        failures.append(f"{fn.__name__}: {cnt.frame_count} graphs, want {graphs}")


# --- inspect.signature ----------------------------------------------------------------------
def sig_target(a, b=2, *, c=3):
    return a


def annotated(a: int, b=2):
    return a


def signature_parameters(x):
    sig = inspect.signature(sig_target)
    return list(sig.parameters), sig.parameters["b"].default, x + 1


def signature_kinds_and_text(x):
    sig = inspect.signature(sig_target)
    p = sig.parameters["c"]
    return p.kind == inspect.Parameter.KEYWORD_ONLY, p.name, str(sig), len(sig.parameters), x + 1


def signature_annotated(x):
    return list(inspect.signature(annotated).parameters), x + 1


def signature_bind(x):
    return inspect.signature(sig_target).bind(1, 2).arguments, x + 1


for fn in (signature_parameters, signature_kinds_and_text, signature_annotated, signature_bind):
    torch._dynamo.reset()
    torch.compile(fn, backend="eager", fullgraph=True)(B)
    compiled(fn, B, graphs=1)

torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(signature_parameters, backend=cnt)
opt(B)
sig_target.__defaults__ = (5,)
if opt(B)[1] != 5 or cnt.frame_count != 2:
    failures.append(f"a changed default: {opt(B)[1]}, {cnt.frame_count} graphs (PyTorch: 5, 2)")
# Keyword defaults live in a dict that changes in place.
torch._dynamo.reset()
opt = torch.compile(signature_kinds_and_text, backend="eager")
first = opt(B)[2]
sig_target.__kwdefaults__["c"] = 7
if (first, opt(B)[2]) != ("(a, b=5, *, c=3)", "(a, b=5, *, c=7)"):
    failures.append(f"a keyword default changed in place: {first}, then {opt(B)[2]}")

for f in failures:
    print("FAIL", f)
if failures:
    raise SystemExit(1)
print("ok")
