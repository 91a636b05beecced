"""explain on the FAQ's toy example; assume_constant_result, substitute_in_graph, forbid_in_graph,
error_on_graph_break; compile_times and CompileProfiler."""
import torch
import torch._dynamo
import torch._dynamo.config
from torch._dynamo.testing import CompileCounter
from torch._dynamo.utils import CompileProfiler, compile_times

from _harness import check, done, expect


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


# explain: 3 graphs, 2 breaks (print, the data-dependent jump), reasons with user stacks.
a, b = torch.randn(10), -torch.ones(10)
explanation = torch._dynamo.explain(toy_example)(a, b)
expect("graph_count", explanation.graph_count, 3)
expect("graph_break_count", explanation.graph_break_count, 2)
expect("break_reasons", len(explanation.break_reasons), 2)
expect("ops of graph 1", len(explanation.ops_per_graph[0]), 3)
expect("op_count", explanation.op_count, sum(len(o) for o in explanation.ops_per_graph))
first = explanation.break_reasons[0]
expect("first reason names print", "print" in first.reason, True)
expect("user stack names the file", any("api_explain_misc.py" in str(f) for f in first.user_stack), True)
text = str(explanation)
for part in ("Graph Count: 3", "Graph Break Count: 2", "Break Reasons:", "Ops per Graph:", "Out Guards:"):
    expect(f"str contains {part!r}", part in text, True)
check(toy_example, a, b, graphs=3)

# assume_constant_result: called while tracing, its result baked in (no break).
calls = []


@torch._dynamo.assume_constant_result
def get_scale():
    calls.append(1)
    return 3.0


def uses_constant(x):
    return x * get_scale()


cnt = CompileCounter()
opt = torch.compile(uses_constant, backend=cnt, fullgraph=True)
x = torch.randn(4)
expect("assume_constant_result value", bool((opt(x) == x * 3.0).all()), True)
expect("assume_constant_result graphs", cnt.frame_count, 1)


# substitute_in_graph: the polyfill is traced in place of the original.
def native_clip(t, lo, hi):
    return t.clamp(lo, hi)


@torch._dynamo.substitute_in_graph(native_clip)
def clip_polyfill(t, lo, hi):
    return torch.minimum(torch.maximum(t, torch.full_like(t, lo)), torch.full_like(t, hi))


def uses_clip(x):
    return native_clip(x, -0.5, 0.5) + 1


check(uses_clip, x)

# forbid_in_graph: tracing a call is an error, not a break.


@torch._dynamo.forbid_in_graph
def forbidden(t):
    return t + 1


def calls_forbidden(x):
    return forbidden(x) * 2


try:
    torch.compile(calls_forbidden, backend="eager")(x)
    expect("forbid_in_graph raises", False, True)
except AssertionError as e:
    expect("forbid_in_graph message", str(e).startswith("Attempt to trace forbidden callable"), True)

# error_on_graph_break: a break raises Unsupported like fullgraph=True.
def breaks(x):
    y = x + 1
    torch._dynamo.graph_break()
    return y * 2


torch._dynamo.reset()
torch._dynamo.config.error_on_graph_break = True
try:
    torch.compile(breaks, backend="eager")(x)
    expect("error_on_graph_break raises", False, True)
except torch._dynamo.exc.Unsupported:
    pass
finally:
    torch._dynamo.config.error_on_graph_break = False

# error_on_graph_break used while tracing: a break inside the block raises (nothing compiles),
# in the compiled frame or in an inlined callee, also through the decorator form; `False` inside
# overrides a global `True`; outside the block breaks are ordinary.
Unsupported = torch._dynamo.exc.Unsupported


def break_in_block(x):
    x = x + 1
    with torch._dynamo.error_on_graph_break(True):
        torch._dynamo.graph_break()
    return x + 2


def print_in_block(x):
    with torch._dynamo.error_on_graph_break(True):
        print("unreachable")
    return x


def block_in_callee(x):
    with torch._dynamo.error_on_graph_break(True):
        torch._dynamo.graph_break()
    return x


def calls_block_in_callee(x):
    return block_in_callee(x + 1) * 2


@torch._dynamo.error_on_graph_break(True)
def decorated_callee(x):
    torch._dynamo.graph_break()
    return x


def calls_decorated_callee(x):
    return decorated_callee(x + 1) * 2


for fn in (break_in_block, print_in_block, calls_block_in_callee, calls_decorated_callee):
    torch._dynamo.reset()
    cnt = CompileCounter()
    try:
        torch.compile(fn, backend=cnt)(x)
        expect(f"{fn.__name__} raises Unsupported", False, True)
    except Unsupported:
        expect(f"{fn.__name__} compiles nothing", cnt.frame_count, 0)
    expect(f"{fn.__name__} leaves the config", torch._dynamo.config.error_on_graph_break, False)


def break_after_block(x):
    with torch._dynamo.error_on_graph_break(True):
        y = x + 1
    torch._dynamo.graph_break()
    return y * 2


check(break_after_block, x, graphs=2)


def false_in_block(x):
    y = x + 1
    with torch._dynamo.error_on_graph_break(False):
        torch._dynamo.graph_break()
    return y * 2


torch._dynamo.config.error_on_graph_break = True
try:
    expect("False inside overrides True", bool((torch.compile(false_in_block, backend="eager")(x) == false_in_block(x)).all()), True)
finally:
    torch._dynamo.config.error_on_graph_break = False


# A break inside an error_on_graph_break(False) block is an ordinary graph break (Dynamo's
# ErrorOnGraphBreakVariable is a ContextWrappingVariable): the code before it compiles, and the
# rest of the block runs in a resume function with the block's setting, restored on exit. Also
# when the global setting is True: the block's False holds for the resumed part only.
def break_inside_false_block(x):
    y = x + 1
    with torch._dynamo.error_on_graph_break(False):
        z = y * 2
        torch._dynamo.graph_break()
        w = z - 1
    return w.sin()


check(break_inside_false_block, x, graphs=2)
expect("block restores the config", torch._dynamo.config.error_on_graph_break, False)
torch._dynamo.config.error_on_graph_break = True
try:
    torch._dynamo.reset()
    cnt = CompileCounter()
    got = torch.compile(break_inside_false_block, backend=cnt)(x)
    expect("break inside False under global True", bool((got == break_inside_false_block(x)).all()), True)
    expect("break inside False under global True: graphs", cnt.frame_count, 2)
    expect("block restores the global True", torch._dynamo.config.error_on_graph_break, True)
except Unsupported as e:
    expect("break inside False under global True raised", str(e).splitlines()[0], None)
finally:
    torch._dynamo.config.error_on_graph_break = False

# Hitting the recompile limit with fullgraph=True (or config.fail_on_recompile_limit_hit) raises
# FailOnRecompileLimitHit, PyTorch's class, so `except FailOnRecompileLimitHit` catches it.
import warnings

from torch._dynamo.exc import FailOnRecompileLimitHit


def scaled(x, n):
    return x * n


def hit_limit(**kwargs):
    torch._dynamo.reset()
    # dynamic=False: each new n is a recompile (automatic dynamic would make n a SymInt).
    opt = torch.compile(scaled, backend="eager", dynamic=False, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for n in range(10):
                opt(x, n)
        except FailOnRecompileLimitHit as e:
            return str(e)
    return None


torch._dynamo.config.recompile_limit = 2
try:
    msg = hit_limit(fullgraph=True)
    expect("fullgraph limit raises FailOnRecompileLimitHit", msg is not None, True)
    # PyTorch 2.15's texts (torch/_dynamo/convert_frame.py).
    expect("fullgraph limit message", msg, "Hard failure due to fullgraph=True")
    expect("default limit falls back to eager", hit_limit(), None)
    torch._dynamo.config.fail_on_recompile_limit_hit = True
    msg = hit_limit()
    expect("fail_on_recompile_limit_hit message", msg, "Hard failure due to fail_on_recompile_limit_hit")
finally:
    torch._dynamo.config.recompile_limit = 8
    torch._dynamo.config.fail_on_recompile_limit_hit = False

# compile_times and CompileProfiler.
torch._dynamo.reset()
torch.compile(breaks, backend="eager")(x)
times = compile_times()
phases = compile_times(repr="csv")[0]
expect("compile_times: Dynamo's phases, as PyTorch names them", phases[:3],
       ["_compile.compile_inner", "bytecode_tracing", "OutputGraph.call_user_compiler"])
expect("compile_times: one value per compiled frame", times.count("\n_compile.compile_inner, ") == 1
       and len(times.split("\n_compile.compile_inner, ")[1].split("\n")[0].split(", ")) == 2, True)
# A training region splits out AOT autograd: its joint graph, partition and the two compiles.
torch._dynamo.reset()
lin = torch.nn.Linear(3, 2)
torch.compile(lambda t: lin(t).sum(), backend="aot_eager")(torch.randn(4, 3)).backward()
names, secs = compile_times(repr="csv", aggregate=True)
expect("compile_times: AOT phases", [n for n in names if "aot" in n or "compiler" in n or "partition" in n],
       ["OutputGraph.call_user_compiler", "create_aot_dispatcher_function", "aot_trace_joint_graph",
        "min_cut_rematerialization_partition", "compile_fx.<locals>.fw_compiler_base",
        "compile_fx.<locals>.bw_compiler"])
t = dict(zip(names, map(float, secs)))
expect("compile_times: AOT time is inside the backend call, inside the frame compile",
       t["create_aot_dispatcher_function"] <= t["OutputGraph.call_user_compiler"] <= t["_compile.compile_inner"], True)
torch._dynamo.reset()
expect("compile_times after reset", compile_times(repr="csv"), ([], []))
prof = CompileProfiler()
torch._dynamo.reset()
torch.compile(breaks, backend=prof)(x)
expect("CompileProfiler graphs", prof.frame_count, 2)
report = prof.report()
expect("CompileProfiler report mentions breaks", "break" in report.lower(), True)
done()
