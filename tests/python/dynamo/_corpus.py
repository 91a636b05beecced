"""Corpus helpers on top of `_harness.check`: checks of Python state a call leaves behind
(globals, lists, dicts, object attributes must match eager after the call), and a tally of the
graph breaks and recompiles each corpus file exercises (printed by `done()`)."""
import _rynamo_dynamo as _C
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

import _harness
from _harness import clone, same

_stats = {"functions": 0, "breaks": 0, "recompiles": 0}


def _tally():
    _stats["breaks"] += len(_C.break_records())
    for g in _C.graph_records():
        if not g["compile_id"].endswith("/0"):
            _stats["recompiles"] += 1


def check(fn, *args, graphs=1, breaks=None, **kwargs):
    """`_harness.check`, counted. With `breaks=`, also the number of graph breaks Dynamo
    reported while compiling (pins down constructs that are graph breaks today). A function
    expected to make one graph is expected to have no breaks unless `breaks=` says otherwise."""
    _stats["functions"] += 1
    if breaks is None and graphs == 1:
        breaks = 0
    _harness.check(fn, *args, graphs=graphs, **kwargs)
    if breaks is not None:
        seen = len(_C.break_records())
        if seen != breaks:
            reasons = [r.splitlines()[0] for r, _s, _c in _C.break_records()]
            _harness._failures.append(f"{fn.__name__}: expected {breaks} graph break(s), got {seen}: {reasons}")
    _tally()


def check_state(fn, args, reset, snapshot, graphs=1, calls=2):
    """Runs `fn(*args)` eagerly and compiled, each after `reset()`, and compares both the result
    and `snapshot()` (the Python state the call left behind) on every call."""
    _stats["functions"] += 1
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    name = fn.__name__
    try:
        for i in range(calls):
            reset()
            expected = fn(*clone(args))
            want = snapshot()
            reset()
            got = opt(*clone(args))
            have = snapshot()
            if not same(expected, got):
                _harness._failures.append(f"{name}: compiled {got!r} != eager {expected!r}")
                return
            if not same(want, have):
                _harness._failures.append(
                    f"{name}: state after call {i} differs: compiled {have!r}, eager {want!r}"
                )
                return
        if cnt.frame_count != graphs:
            _harness._failures.append(f"{name}: expected {graphs} graph(s), got {cnt.frame_count}")
    except Exception as e:
        import traceback

        _harness._failures.append(f"{name}: raised {type(e).__name__}: {e}\n{traceback.format_exc()}")
    _tally()


def check_calls(fn, calls, graphs):
    """Compiles `fn` once and calls it with each argument tuple in `calls` in turn (so guards
    decide between cached entries and recompiles); every result must equal eager, and the total
    number of graphs must be `graphs`."""
    _stats["functions"] += 1
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    name = fn.__name__
    try:
        for i, args in enumerate(calls):
            expected = fn(*clone(args))
            got = opt(*clone(args))
            if not same(expected, got):
                _harness._failures.append(
                    f"{name}: call {i}: compiled {got!r} != eager {expected!r}"
                )
                return
        if cnt.frame_count != graphs:
            _harness._failures.append(f"{name}: expected {graphs} graph(s), got {cnt.frame_count}")
    except Exception as e:
        import traceback

        _harness._failures.append(f"{name}: raised {type(e).__name__}: {e}\n{traceback.format_exc()}")
    _tally()


def done():
    """Prints the tally, then reports failures like `_harness.done()`."""
    s = _stats
    print(f"{s['functions']} functions, {s['breaks']} graph breaks, {s['recompiles']} recompiles")
    _harness.done()
