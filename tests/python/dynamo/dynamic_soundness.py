# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""Dynamic shapes stay sound: whatever the trace read of a dynamic size is specialised (guarded
as a constant), ops whose output count depends on sizes pin them, and a graph left dynamic is
re-instantiated for each call's shapes. Every compiled result is compared with eager, on the
eager backend and on the dynasm JIT (`inductor`); compile counts pin what is specialised."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

from _harness import done, expect

failures = []


def run(fn, sizes, make, dynamic, backend):
    """Compiles `fn`, calls it on `make(n)` for each size, compares with eager; the compile
    count."""
    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(fn, backend=cnt, dynamic=dynamic)
    for n in sizes:
        args = make(n)
        want, got = fn(*args), opt(*args)
        want = want if isinstance(want, (tuple, list)) else [want]
        got = got if isinstance(got, (tuple, list)) else [got]
        ok = len(want) == len(got) and all(
            w.shape == g.shape and torch.allclose(w, g, atol=1e-5, rtol=1e-5) for w, g in zip(want, got)
        )
        if not ok:
            failures.append(f"{fn.__name__} n={n} {backend}: compiled {got} != eager {want}")
    return cnt.frame_count


def rows(n):
    torch.manual_seed(n)
    return (torch.randn(n, 4),)


def branch_on_size(x):
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def split_pairs(x):
    return x.split(2)


def computed_view(x):
    return x.view(x.size(0) * 2, 2).sum(1)


def iterate_rows(x):
    acc = torch.zeros(4)
    for row in x:
        acc = acc + row
    return acc


def mean_by_numel(x):
    return x.sum() / x.numel()


def len_scale(x):
    return x * len(x)


def broadcast_add(x):
    b = torch.ones(1, 4)
    return (b + x).relu()


SIZES = [3, 5, 3, 6, 7, 2]
for backend in ("eager", "inductor"):
    for dynamic in (True, None):
        tag = f"{backend} dynamic={dynamic}"
        # A size whose value decides the number of outputs or iterations is a constant of the
        # entry: one compile per distinct size (3, 5, 6, 7, 2), never a stale result.
        expect(f"{tag} split_pairs", run(split_pairs, SIZES, rows, dynamic, backend), 5)
        expect(f"{tag} iterate_rows", run(iterate_rows, SIZES, rows, dynamic, backend), 5)
        # Sizes used in arithmetic and op arguments stay symbolic (SymInt trackers); a branch
        # on a size is guarded (`L['x'].size()[0] > 4`), so 3 and 2 share the second entry.
        # PyTorch 2.15's counts for these sizes (dynamic_symint.py pins more cases).
        expect(f"{tag} branch_on_size", run(branch_on_size, SIZES, rows, dynamic, backend), 2 if dynamic else 3)
        expect(f"{tag} computed_view", run(computed_view, SIZES, rows, dynamic, backend), 1 if dynamic else 2)
        expect(f"{tag} mean_by_numel", run(mean_by_numel, SIZES, rows, dynamic, backend), 1 if dynamic else 2)
        expect(f"{tag} len_scale", run(len_scale, SIZES, rows, dynamic, backend), 1 if dynamic else 2)
        # Ops that take their sizes from the tensors stay dynamic.
        expect(f"{tag} broadcast_add", run(broadcast_add, SIZES, rows, dynamic, backend), 1 if dynamic else 2)


def clamped_width(x):
    y = x[:, :20]
    return y.reshape(-1, y.shape[1]) * y.shape[1]


def columns(n):
    torch.manual_seed(n)
    return (torch.randn(3, n),)


# A computed size the trace used as a constant (`x[:, :20]` is 20 wide at 30 columns, 10 wide at
# 10) is a guard: where the inputs' shapes change it, the frame recompiles instead of raising or
# running with the stale constant (the meta rules evaluate it per call, `shape_check.rs`).
# PyTorch 2.15 compiles 2 times with dynamic=True and 3 by default (its trace at 10 columns
# guards `s1 < 20`); Rynamo's default-mode entry at 10 columns serves 25 and 40 as well.
WIDTHS = [30, 10, 25, 40, 5, 12]
for backend in ("eager", "inductor"):
    expect(f"{backend} clamped_width dynamic", run(clamped_width, WIDTHS, columns, True, backend), 2)
    n = run(clamped_width, WIDTHS, columns, None, backend)
    expect(f"{backend} clamped_width automatic <= PyTorch's 3", 2 <= n <= 3, True)


# A user backend that runs the FX code: a slice bound computed from a size (`y[:b]`) keeps the
# size node alive until that use (the FX code generator counts a slice's bounds as uses).
def fx_slice(x, y):
    b = x.size(0)
    return x.view(b, -1).sum(1) + y[:b]


torch._dynamo.reset()
opt = torch.compile(fx_slice, backend=lambda gm, ex: gm.forward, dynamic=True)
for n in (4, 6, 3):
    x, y = torch.randn(n, 3), torch.randn(10)
    expect(f"fx slice bound n={n}", torch.allclose(opt(x, y), fx_slice(x, y)), True)


# Mismatched dynamic sizes raise as eager does (the entry is re-instantiated per shape; its
# meta rules reject the shapes) rather than computing anything.
def add(x, y):
    return x + y


torch._dynamo.reset()
opt = torch.compile(add, backend="inductor", dynamic=True)
opt(torch.ones(3, 2), torch.ones(3, 2))
try:
    opt(torch.ones(4, 2), torch.ones(5, 2))
    expect("mismatched sizes raise", "no error", "RuntimeError")
except RuntimeError:
    pass

def eq_branch(x):
    if x.size(0) == 3:
        return x * 2
    return x + 1


# mark_dynamic: a trace that specialises the dimension (a size found equal to a constant is that
# constant) raises PyTorch's error; maybe_mark_dynamic does not, and a dimension that stays
# dynamic serves every size in its range.
x = torch.randn(3, 4)
torch._dynamo.mark_dynamic(x, 0)
try:
    torch.compile(eq_branch, backend="eager")(x)
    expect("mark_dynamic violation", "no error", "ConstraintViolationError")
except ConstraintViolationError as e:
    expect(
        "violation text",
        str(e).splitlines()[:2],
        [
            "Constraints violated (L['x'].size()[0])! For more information, run with TORCH_LOGS=\"+dynamic\".",
            "  - You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (3). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.",
        ],
    )
torch._dynamo.reset()
torch._dynamo.config.allow_ignore_mark_dynamic = True
expect("allow_ignore_mark_dynamic specialises quietly", torch.compile(eq_branch, backend="eager")(x).shape, (3, 4))
torch._dynamo.config.allow_ignore_mark_dynamic = False
torch._dynamo.reset()
x = torch.randn(3, 4)
torch._dynamo.maybe_mark_dynamic(x, 0)
expect("maybe_mark_dynamic specialises quietly", torch.compile(eq_branch, backend="eager")(x).shape, (3, 4))
# A size used symbolically does not specialise a mark_dynamic dimension.
torch._dynamo.reset()
x = torch.randn(3, 4)
torch._dynamo.mark_dynamic(x, 0)
expect("mark_dynamic symbolic view", torch.compile(computed_view, backend="eager")(x).shape, (6,))

torch._dynamo.reset()
cnt = CompileCounterWithBackend("eager")
opt = torch.compile(broadcast_add, backend=cnt)
for n in (3, 4, 9, 10, 11):
    x = torch.randn(n, 4)
    torch._dynamo.mark_dynamic(x, 0, min=2, max=10)
    expect(f"mark_dynamic range n={n}", torch.allclose(opt(x), broadcast_add(x)), True)
# 3, 4, 9 and 10 are in range; 11 fails `2 <= L['x'].size()[0] <= 10` and recompiles.
expect("mark_dynamic range compiles", cnt.frame_count, 2)

# mark_static wins over dynamic=True.
torch._dynamo.reset()
cnt = CompileCounterWithBackend("eager")
opt = torch.compile(broadcast_add, backend=cnt, dynamic=True)
for n in (3, 4, 5):
    x = torch.randn(n, 4)
    torch._dynamo.mark_static(x, 0)
    opt(x)
expect("mark_static compiles", cnt.frame_count, 3)

# dynamic=False never makes a dimension dynamic; config.automatic_dynamic_shapes=False neither.
torch._dynamo.reset()
cnt = CompileCounterWithBackend("eager")
torch._dynamo.config.automatic_dynamic_shapes = False
opt = torch.compile(broadcast_add, backend=cnt)
for n in (3, 4, 5):
    opt(torch.randn(n, 4))
torch._dynamo.config.automatic_dynamic_shapes = True
expect("automatic_dynamic_shapes=False compiles", cnt.frame_count, 3)

# Parameters stay static (force_parameter_static_shapes); the input's batch is dynamic, and
# training through a dynamic entry gives eager's gradients.
for backend in ("eager", "inductor", "aot_eager"):
    torch._dynamo.reset()
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    ref = torch.nn.Linear(4, 3)
    ref.load_state_dict(lin.state_dict())
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(lambda x: torch.tanh(lin(x)).sum(), backend=cnt, dynamic=True)
    for n in (2, 5, 3, 7):
        x = torch.randn(n, 4, requires_grad=True)
        x2 = x.detach().clone().requires_grad_(True)
        opt(x).backward()
        torch.tanh(ref(x2)).sum().backward()
        expect(f"{backend} n={n} input grad", torch.allclose(x.grad, x2.grad, atol=1e-6), True)
        expect(f"{backend} n={n} weight grad", torch.allclose(lin.weight.grad, ref.weight.grad, atol=1e-5), True)
    expect(f"{backend} training compiles", cnt.frame_count, 1)

expect("results equal eager", failures, [])
done()
