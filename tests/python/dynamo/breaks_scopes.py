"""Graph-break corpus, breaks inside blocks. PyTorch 2.x resumes after a break only where it
can rebuild every enclosing block: grad-mode `with` blocks are re-entered in the resume
function, but a break inside a `for`/`while` loop, a `try` block or a user context manager
skips the whole frame (functions it calls still compile as their own frames). Breaks after such
blocks resume normally. Also frames with closures (cell variables, nested functions)."""
import torch
import torch._dynamo
from _corpus import check, done
from torch._dynamo.testing import CompileCounter


def g(t):
    u = t * 2
    torch._dynamo.graph_break()
    return u + 1


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --- grad-mode blocks: re-entered in the resume function ------------------------------------
def no_grad_break(x):
    with torch.no_grad():
        y = x * 2
        torch._dynamo.graph_break()
        z = y + 1
    return z * 3


def no_grad_break_first(x):
    # The op before the block keeps the first graph non-empty: PyTorch records the grad-mode
    # switches as graph nodes, so a graph of only those would still reach the backend.
    y = x * 2
    with torch.no_grad():
        torch._dynamo.graph_break()
        z = y.sin()
    return z + x


def no_grad_break_in_callee(x):
    with torch.no_grad():
        z = g(x + 1)
    return z * x


def enable_grad_inside_no_grad(x):
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = x * 3
            print("nested grad blocks")
            c = b + a
        d = c * 2
    return d + 1


def set_grad_enabled_block(x):
    with torch.set_grad_enabled(False):
        y = x.exp()
        torch._dynamo.graph_break()
    return y + x


def break_after_no_grad(x):
    with torch.no_grad():
        y = x * 2
    torch._dynamo.graph_break()
    return y + x


def return_inside_no_grad_after_break(x):
    with torch.no_grad():
        y = x * 2
        print("inside the block")
        return y + 1


# --- loops: a break inside skips the frame; before or after a loop it resumes ----------------
def for_range_break(x):
    for i in range(3):
        x = x + i
        torch._dynamo.graph_break()
    return x


def for_over_tensor_break_in_callee(x):
    out = []
    for row in x:
        out.append(g(row))
    return torch.stack(out)


def while_counter_break(x):
    i = 0
    while i < 2:
        x = x * 2
        print("iteration")
        i += 1
    return x + 1


def nested_loop_break(x):
    for i in range(2):
        for j in range(2):
            x = x + i * j
            x.sum().item()
    return x


def break_after_loop(x):
    for i in range(3):
        x = x + i
    torch._dynamo.graph_break()
    return x * 2


def loop_over_dict_then_break(x):
    d = {"a": x, "b": x + 1}
    for k, v in d.items():
        d[k] = v * 2
    print("after the loop")
    return d


def break_before_loop(x):
    y = x + 1
    torch._dynamo.graph_break()
    for i in range(3):
        y = y * 2
    return y


def loop_in_resume_then_break(x):
    torch._dynamo.graph_break()
    for i in range(2):
        x = x - 1
    print("after the loop")
    return x.abs()


# --- try blocks and user context managers: a break inside skips the frame ---------------------
def try_block_break(x):
    y = x + 1
    try:
        torch._dynamo.graph_break()
        z = y * 2
    except ValueError:
        z = y
    return z


def try_finally_break(x):
    y = x * 3
    try:
        print("in try")
    finally:
        y = y + 1
    return y


def break_after_try(x):
    try:
        y = x + 1
    except RuntimeError:
        y = x
    torch._dynamo.graph_break()
    return y * 2


def user_ctx_break(x):
    with Ctx():
        y = x * 2
        torch._dynamo.graph_break()
    return y + 1


def user_ctx_break_in_callee(x):
    with Ctx():
        y = g(x)
    return y + 1


# --- frames with closures ---------------------------------------------------------------------
def cell_var_break(x):
    k = 3

    def add(t):
        return t + k

    y = x + 1
    torch._dynamo.graph_break()
    return y * k


def closure_live_across_break(x):
    k = 3

    def add(t):
        return t + k

    y = add(x)
    torch._dynamo.graph_break()
    return add(y) * k


def nested_fn_live_across_break(x):
    def add(t):
        return t + 3

    y = add(x)
    torch._dynamo.graph_break()
    return add(y)


def lambda_breaks_inside(x):
    g = lambda t: print("in lambda") or t + 1  # noqa: E731
    return g(x) * 2


def nested_fn_breaks_inside(x):
    def helper(t):
        t = t + 1
        torch._dynamo.graph_break()
        return t * 2

    return helper(x) - 1


x = torch.randn(4, 5)
xg = torch.randn(4, 5, requires_grad=True)

check(no_grad_break, xg, graphs=2, breaks=1)
check(no_grad_break_first, xg, graphs=2, breaks=1)
check(no_grad_break_in_callee, xg, graphs=4, breaks=2)
check(enable_grad_inside_no_grad, xg, graphs=2, breaks=1)
check(set_grad_enabled_block, xg, graphs=2, breaks=1)
check(return_inside_no_grad_after_break, xg, graphs=2, breaks=1)
# The with-block's exception handler (after the return, jumping back with
# JUMP_BACKWARD_NO_INTERRUPT) is not a loop: Dynamo resumes after the block.
check(break_after_no_grad, xg, graphs=2, breaks=1)

check(for_range_break, x, graphs=0, breaks=1)
check(for_over_tensor_break_in_callee, x, graphs=2, breaks=2)
check(while_counter_break, x, graphs=0, breaks=1)
check(nested_loop_break, x, graphs=0, breaks=1)
check(break_after_loop, x, graphs=2, breaks=1)
check(loop_over_dict_then_break, x, graphs=1, breaks=1)
check(break_before_loop, x, graphs=2, breaks=1)
check(loop_in_resume_then_break, x, graphs=2, breaks=2)

check(try_block_break, x, graphs=0, breaks=1)
check(try_finally_break, x, graphs=0, breaks=1)
check(break_after_try, x, graphs=2, breaks=1)
# `Ctx()` is traced; the frame is skipped at the unsupported context manager.
check(user_ctx_break, x, graphs=0, breaks=1)
check(user_ctx_break_in_callee, x, graphs=2, breaks=2)

# Cell variables reach the resume function as its closure; nested functions live at the break
# are rebuilt over the same cells.
check(cell_var_break, x, graphs=2, breaks=1)
check(closure_live_across_break, x, graphs=2, breaks=1)
check(nested_fn_live_across_break, x, graphs=2, breaks=1)
check(nested_fn_breaks_inside, x, graphs=3, breaks=2)
check(lambda_breaks_inside, x, graphs=2, breaks=2)


def nonlocal_after_break(x):
    k = 1

    def read(t):
        return t * k

    y = read(x)
    torch._dynamo.graph_break()
    k = 2  # assigned after the break: the resume function shares the cell with `read`
    return read(y)


def nonlocal_writer_live(x):
    k = 1

    def bump():
        nonlocal k
        k += 1
        return k

    y = x * bump()
    torch._dynamo.graph_break()
    return y * bump(), k


def nonlocal_counter_read_after(x):
    n = 0

    def inc():
        nonlocal n
        n += 1

    inc()
    y = x * n
    torch._dynamo.graph_break()
    inc()
    inc()
    return y + n  # the resume function reads the cell its nested function wrote


def nonlocal_writer_first_op_break(x):
    k = 1

    def bump():
        nonlocal k
        k += 10

    torch._dynamo.graph_break()
    bump()
    return x + k


def param_captured_then_assigned(x):
    def g():
        return x * 2

    y = g()
    torch._dynamo.graph_break()
    x = x + 1  # a parameter that is also a cell: the resume function writes the shared cell
    return g() + y


def nested_closure_over_outer_cell(x):
    s = 3

    def middle(t):
        k = t + s

        def inner():
            return k * s  # one cell of `middle`'s own, one of `outer`'s

        a = inner()
        torch._dynamo.graph_break()
        k = k - 1
        return inner() + a

    return middle(x)


def nonlocal_accumulator_two_breaks(x):
    acc = x

    def add(v):
        nonlocal acc
        acc = acc + v

    add(1)
    torch._dynamo.graph_break()
    add(2)
    torch._dynamo.graph_break()
    add(3)
    return acc


# The resume function takes the frame's cells as its closure (as PyTorch's does), so nested
# functions rebuilt from the trace, the resume function and `nonlocal` writes share one cell.
check(nonlocal_after_break, x, graphs=2, breaks=1)
check(nonlocal_writer_live, x, graphs=2, breaks=1)
check(nonlocal_counter_read_after, x, graphs=2, breaks=1)
check(param_captured_then_assigned, x, graphs=2, breaks=1)
# `middle` is inlined, breaks, and is compiled as its own frame (nothing traced before the call
# in the outer frame): 2 graphs; `inner` is rebuilt over `middle`'s cell and the real outer cell.
check(nested_closure_over_outer_cell, x, graphs=2, breaks=2)
check(nonlocal_accumulator_two_breaks, x, graphs=3, breaks=2)
# Nothing is traced before the break: no graph for it, as in PyTorch.
check(nonlocal_writer_first_op_break, x, graphs=1, breaks=1)


def make_accumulator():
    total = 0

    def acc(t):
        nonlocal total
        total += 1
        return t * total

    return acc


# A compiled closure that writes its own free variable: the store is replayed into the real
# cell after the graph; `total` is a constant of each graph, so every new value recompiles (as
# in PyTorch, which specialises closure ints).
torch._dynamo.reset()
cnt = CompileCounter()
eager_acc, compiled_acc = make_accumulator(), torch.compile(make_accumulator(), backend=cnt)
for _ in range(3):
    want, got = eager_acc(x), compiled_acc(x)
    assert torch.equal(want, got), (want, got)
assert eager_acc.__closure__[0].cell_contents == 3
assert compiled_acc._torchdynamo_orig_callable.__closure__[0].cell_contents == 3
assert cnt.frame_count == 3, cnt.frame_count
done()
