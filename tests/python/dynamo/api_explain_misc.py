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

# compile_times and CompileProfiler.
torch._dynamo.reset()
torch.compile(breaks, backend="eager")(x)
times = compile_times()
expect("compile_times names the function", "breaks" in times, True)
prof = CompileProfiler()
torch._dynamo.reset()
torch.compile(breaks, backend=prof)(x)
expect("CompileProfiler graphs", prof.frame_count, 2)
report = prof.report()
expect("CompileProfiler report mentions breaks", "break" in report.lower(), True)
done()
