# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""`TORCH_LOGS=recompiles` / `recompiles_verbose` in PyTorch's layout
(`guards.get_and_maybe_log_recompilation_reasons`): one reason per cache entry, most recently used
first; a resume function is reported at the line of its break (its `co_firstlineno`)."""
import re

import torch
import torch._dynamo
import torch._logging

from _harness import done, expect, fd2_text


def logged(fn):
    """What `fn()` writes to the process's stderr (the logs bypass `sys.stderr`), message part of
    each log line only."""
    text = fd2_text(fn)
    return [re.sub(r"^.*?\] \[\d+/\d+\] \[__recompiles(_verbose)?\] ", "", line) for line in text.splitlines()]


def f(x, n):
    y = x.sin() * n
    torch._dynamo.graph_break()
    return y + 1


HERE = __file__
DEF_LINE = f.__code__.co_firstlineno
BREAK_LINE = DEF_LINE + 2


def run_calls():
    cf = torch.compile(f, backend="eager")
    cf(torch.ones(3), 2)
    cf(torch.ones(4), 2)
    cf(torch.ones(4), 3)


torch._dynamo.reset()
torch._logging.set_logs(recompiles=True)
lines = logged(run_calls)
expect(
    "recompiles",
    lines,
    [
        f"Recompiling function f in {HERE}:{DEF_LINE}",
        "    triggered by the following guard failure(s):",
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4",
        f"Recompiling function torch_dynamo_resume_in_f_at_{BREAK_LINE} in {HERE}:{BREAK_LINE}",
        "    triggered by the following guard failure(s):",
        "    - 1/0: tensor 'y' size mismatch at index 0. expected 3, actual 4",
        f"Recompiling function f in {HERE}:{DEF_LINE}",
        "    triggered by the following guard failure(s):",
        "    - 0/1: n == 2",
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4",
    ],
)

torch._dynamo.reset()
torch._logging.set_logs(recompiles_verbose=True)
lines = logged(run_calls)
expect(
    "recompiles_verbose, last record",
    lines[-7:],
    [
        f"Recompiling function f in {HERE}:{DEF_LINE}",
        "    triggered by the following guard failure(s):",
        "    guard 0 failures:",
        "    - 0/1: n == 2",
        "",
        "    guard 1 failures:",
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4",
    ],
)
torch._logging.set_logs()
done()
