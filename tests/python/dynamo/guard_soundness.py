"""Guard soundness: each case changes something the compiled code depended on between calls.
Every call must give the eager result (by recompiling, or because the cached code is still
right); a silent stale result is the bug class these tests pin down (reported against PyTorch)."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import same

_failures = []


def expect(name, got, want, what="result"):
    if not same(got, want):
        _failures.append(f"{name}: {what}: compiled {got!r}, eager {want!r}")


def fresh(args):
    """Copies the tensors in `args` (one copy per distinct tensor, so aliasing is kept)."""
    memo = {}

    def go(v):
        if isinstance(v, torch.Tensor):
            if id(v) not in memo:
                memo[id(v)] = v.clone().requires_grad_(v.requires_grad)
            return memo[id(v)]
        if isinstance(v, (list, tuple)):
            return type(v)(go(i) for i in v)
        if isinstance(v, dict):
            return {k: go(i) for k, i in v.items()}
        return v

    return go(args)


def run(name, fn, calls, frames=None):
    """Compiles `fn` and calls it after each `change()` in `calls` (a list of
    `(change, args)`), comparing with an eager call made under the same state."""
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    for i, (change, args) in enumerate(calls):
        if change is not None:
            change()
        try:
            want = fn(*fresh(args))
            got = opt(*fresh(args))
        except Exception as e:  # noqa: BLE001 - a crash is this case's failure
            _failures.append(f"{name}: call {i} raised {type(e).__name__}: {e}")
            return cnt
        expect(f"{name} (call {i})", got, want)
    if frames is not None and cnt.frame_count != frames:
        _failures.append(f"{name}: expected {frames} graph(s), got {cnt.frame_count}")
    return cnt


x = torch.randn(3, 4)


# 1. A rebound global function.
def helper(t):
    return t + 1


def uses_helper(t):
    return helper(t) * 2


def rebind_helper():
    global helper

    def helper(t):  # noqa: F811 - the rebinding is the point
        return t - 1


run("rebound global function", uses_helper, [(None, (x,)), (None, (x,)), (rebind_helper, (x,))], frames=2)


# A rebound global that is a closure from the same factory: same code, different cell contents.
def make_scale(k):
    def scale(t):
        return t * k

    return scale


scaler = make_scale(2.0)


def uses_scaler(t):
    return scaler(t) + 1


def rebind_scaler():
    global scaler
    scaler = make_scale(5.0)


run("rebound closure, same code", uses_scaler, [(None, (x,)), (rebind_scaler, (x,))], frames=2)


# A method rebound on the class.
class Model:
    def __init__(self):
        self.alpha = 2.0
        self.enabled = True
        self.w = torch.randn(4, 4)

    def act(self, t):
        return t.relu()

    def forward(self, t):
        if self.enabled:
            t = t * self.alpha
        return self.act(t) @ self.w


m = Model()


def call_model(t):
    return m.forward(t)


def rebind_method():
    Model.act = lambda self, t: t.tanh()


run("method rebound on the class", call_model, [(None, (x,)), (rebind_method, (x,))], frames=2)


# 2. A changed attribute of a user object read in the function.
def set_alpha():
    m.alpha = 3.0


def set_enabled():
    m.enabled = False


def set_weight():
    m.w = torch.randn(4, 4)


def set_weight_shape():
    m.w = torch.randn(4, 2)


run(
    "changed object attributes",
    call_model,
    [(None, (x,)), (set_alpha, (x,)), (set_enabled, (x,)), (set_weight, (x,)), (set_weight_shape, (x,))],
)


def replace_object():
    global m
    m = Model()
    m.alpha = -1.0


run("replaced global object", call_model, [(None, (x,)), (replace_object, (x,))])


# 3. A changed requires_grad.
def rg_fn(t):
    return t * 2, t.requires_grad


xr = torch.randn(3, 4)
cnt = run("requires_grad flag", rg_fn, [(None, (xr,)), (lambda: xr.requires_grad_(True), (xr,))], frames=2)


# 4. A replaced __code__.
def body(t):
    return t + 10


def other_body(t):
    return t - 10


def uses_body(t):
    return body(t) * 1


def replace_code():
    body.__code__ = other_body.__code__


run("replaced __code__", uses_body, [(None, (x,)), (replace_code, (x,))], frames=2)


# Defaults changed in place.
def with_default(t, k=2.0):
    return t * k


def uses_default(t):
    return with_default(t)


def change_defaults():
    with_default.__defaults__ = (7.0,)


run("changed __defaults__", uses_default, [(None, (x,)), (change_defaults, (x,))], frames=2)


# 5. A mutated global int or bool config.
NUM_LAYERS = 2
USE_RELU = True
EPS = 1e-5
MODE = "a"
SIZES = (2, 3)
STEPS = range(2)


def configured(t):
    for _ in range(NUM_LAYERS):
        t = t * 2
    if USE_RELU:
        t = t.relu()
    if MODE == "b":
        t = -t
    for s in STEPS:
        t = t + s
    return t + EPS + SIZES[1]


def set_layers():
    global NUM_LAYERS
    NUM_LAYERS = 3


def set_relu():
    global USE_RELU
    USE_RELU = False


def set_eps():
    global EPS
    EPS = 1e-3


def set_mode():
    global MODE
    MODE = "b"


def set_sizes():
    global SIZES
    SIZES = (2, 9)


def set_steps():
    global STEPS
    STEPS = range(5)


run(
    "mutated global config",
    configured,
    [(None, (x,)), (set_layers, (x,)), (set_relu, (x,)), (set_eps, (x,)), (set_mode, (x,)),
     (set_sizes, (x,)), (set_steps, (x,))],
    frames=7,
)


# A config object's attribute (a class-level default, then an instance override).
class Cfg:
    scale = 1.0


cfg = Cfg()


def reads_cfg(t):
    return t * cfg.scale


def class_attr_change():
    Cfg.scale = 2.0


def instance_attr_change():
    cfg.scale = 4.0


run("config attribute", reads_cfg, [(None, (x,)), (class_attr_change, (x,)), (instance_attr_change, (x,))], frames=3)


# 6. The same tensor passed twice (aliasing) vs two different tensors.
def add_inplace(a, b):
    a.add_(1)
    return a + b


def alias_case():
    a, b = torch.ones(3), torch.ones(3)
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(add_inplace, backend=cnt)
    for first_alias in (False, True):
        for same in ([False, True] if not first_alias else [True, False]):
            a1 = torch.ones(3)
            b1 = a1 if same else torch.ones(3)
            a2 = torch.ones(3)
            b2 = a2 if same else torch.ones(3)
            want = add_inplace(a1, b1)
            got = opt(a2, b2)
            expect(f"aliasing (same={same}, first_alias={first_alias})", got, want)
            expect(f"aliasing mutated input (same={same})", a2, a1, "argument after call")
        torch._dynamo.reset()
        opt = torch.compile(add_inplace, backend=cnt)


alias_case()


def alias_read_after_write(a, b):
    a.mul_(2)
    return b * 3


run(
    "aliased inputs, read after write",
    alias_read_after_write,
    [(None, (torch.ones(2), torch.ones(2))), (None, ((lambda t: (t, t))(torch.ones(2)))),
     (None, (torch.ones(2), torch.ones(2)))],
)


def identity_test(a, b):
    if a is b:
        return a * 2
    return a - b


t_same = torch.randn(3)
run(
    "identity of two tensor arguments",
    identity_test,
    [(None, (torch.randn(3), torch.randn(3))), (None, (t_same, t_same)), (None, (torch.randn(3), torch.randn(3)))],
    frames=2,
)


# 7. A dict mutated between calls (keys and values).
opts = {"scale": 2.0, "shift": 1.0}


def reads_dict(t):
    out = t * opts["scale"]
    for k in opts:
        if k == "extra":
            out = out + 100
    return out + opts["shift"]


def change_value():
    opts["scale"] = 5.0


def add_key():
    opts["extra"] = True


def remove_key():
    del opts["extra"]
    opts["shift"] = -1.0


def reorder_keys():
    v = opts.pop("scale")
    opts["scale"] = v


run("mutated dict", reads_dict, [(None, (x,)), (change_value, (x,)), (add_key, (x,)), (remove_key, (x,)), (reorder_keys, (x,))])


def dict_arg(d, t):
    return t * len(d) + d.get("k", 0)


run("dict argument", dict_arg, [(None, ({"a": 1}, x)), (None, ({"a": 1, "k": 5}, x)), (None, ({"k": 2}, x))])


# 8. A list that changes length (and contents).
layers = [1.0, 2.0]


def reads_list(t):
    for w in layers:
        t = t * w
    return t + len(layers)


def grow():
    layers.append(3.0)


def shrink():
    layers.pop(0)


def replace_item():
    layers[0] = -1.0


run("list length and items", reads_list, [(None, (x,)), (grow, (x,)), (shrink, (x,)), (replace_item, (x,))], frames=4)


def list_arg(xs):
    return sum(xs) * len(xs)


run("list argument", list_arg, [(None, ([x, x],)), (None, ([x, x, x],)), (None, ([x],))], frames=3)


# Tensor metadata: dtype, shape, strides.
def meta(t):
    return t * 2 + t.shape[0]


# Static shapes: 4 compiles; with every dimension dynamic (RYNAMO_DYNAMIC_SHAPES=1, as
# dynamic=True) `t.shape[0]` is a SymInt and 5 rows reuse the first entry: 3, as PyTorch 2.15.
run(
    "tensor dtype/shape/stride",
    meta,
    [(None, (x,)), (None, (x.double(),)), (None, (torch.randn(5, 4),)), (None, (x.t(),))],
    frames=4 if torch._dynamo.config.assume_static_by_default else 3,
)


# Grad mode.
def grad_mode_fn(t):
    return t * 2, torch.is_grad_enabled()


def grad_mode_case():
    torch._dynamo.reset()
    opt = torch.compile(grad_mode_fn, backend=CompileCounter())
    want = grad_mode_fn(x)
    got = opt(x)
    expect("grad mode (enabled)", got[1], want[1])
    with torch.no_grad():
        want = grad_mode_fn(x)
        got = opt(x)
    expect("grad mode (disabled)", got[1], want[1])


grad_mode_case()


# The default dtype (GLOBAL_STATE): factory calls and Python floats in the graph take it.
def default_dtype_fn(t):
    return torch.ones(3) * t, torch.tensor([1.5]), torch.get_default_dtype()


run(
    "default dtype",
    default_dtype_fn,
    [
        (None, (torch.arange(3),)),
        (lambda: torch.set_default_dtype(torch.float64), (torch.arange(3),)),
        (lambda: torch.set_default_dtype(torch.float32), (torch.arange(3),)),
    ],
    frames=2,
)

if _failures:
    for f in _failures:
        print("FAIL", f)
    raise SystemExit(1)
print("ok")
