"""The Python-semantics matrix (issue 27): one small program per Python callable users write in
compiled code, run compiled and eagerly; results must be equal and the number of graphs must be
real PyTorch's.

Each `matrix_*.py` file declares its programs with `@entry(args...)` and calls `run(__file__)`.
The same file runs under real PyTorch to record its graph counts:

    PYTHONPATH=tests/python /tmp/pt/bin/python tests/python/dynamo/matrix_builtins.py --record

writes `matrix_pt.json` beside it (one record per program: PyTorch's graph count and whether
`fullgraph=True` compiles it). Under Rynamo (CI: no torch there), a program PyTorch traces in one
graph runs with `fullgraph=True`; the others count graphs. A program listed in the file's
`KNOWN` dict (name -> (Rynamo's graph count, why)) is a known gap: it must still equal eager, and
its count must stay what `KNOWN` says, so closing a gap means deleting its line. A program in
`py312` (name -> (graphs, fullgraph, why)) is one where PyTorch's behaviour depends on the Python
version: the pins are recorded on CPython 3.11, Rynamo follows the Python its stdlib is (RustPython,
3.12+ semantics), and the entry states what PyTorch does there. The summary line gives how many
programs trace as PyTorch does."""
import json
import os
import sys

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import clone, same

_entries = []
_last_error = [""]
_GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix_pt.json")


def entry(*args, **kwargs):
    """Declares `fn(*args, **kwargs)` as one matrix program (arguments are cloned per call)."""

    def deco(fn):
        _entries.append((fn, args, kwargs))
        return fn

    return deco


def _call(fn, args, kwargs):
    a, k = clone(args), clone(kwargs)
    torch.manual_seed(0)  # programs that build modules or draw random numbers
    try:
        return ("ok", fn(*a, **k), a, k)
    except Exception as e:  # noqa: BLE001 - an exception is a result to compare
        _last_error[0] = str(e).splitlines()[0] if str(e) else ""
        return ("raised", type(e).__name__, a, k)


def _record(tag):
    """Under real PyTorch: graph counts and whether fullgraph=True traces each program."""
    data = {}
    if os.path.exists(_GOLDEN):
        with open(_GOLDEN) as f:
            data = json.load(f)
    for fn, args, kwargs in _entries:
        name = f"{tag}.{fn.__name__}"
        full = True
        torch._dynamo.reset()
        try:
            torch.compile(fn, backend="eager", fullgraph=True)(*clone(args), **clone(kwargs))
        except Exception:  # noqa: BLE001 - Unsupported, or the program's own error
            full = False
        torch._dynamo.reset()
        cnt = CompileCounter()
        opt = torch.compile(fn, backend=cnt)
        want = _call(fn, args, kwargs)
        got = _call(opt, args, kwargs)
        _call(opt, args, kwargs)
        if not same(want[:2], got[:2]):
            print(f"PyTorch itself differs on {name}: {got[:2]!r} vs {want[:2]!r}")
        data[name] = {"graphs": cnt.frame_count, "fullgraph": full}
    with open(_GOLDEN, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"recorded {len(_entries)} programs of {tag}")


def _breaks():
    """Graph breaks Rynamo recorded since the last reset."""
    import _rynamo_dynamo

    return _rynamo_dynamo.break_records()


def run(path, known=None, py312=None):
    """Runs every declared program (or records PyTorch's counts with `--record`)."""
    tag = os.path.splitext(os.path.basename(path))[0]
    known = known or {}
    py312 = py312 or {}
    if "--record" in sys.argv:
        _record(tag)
        return
    with open(_GOLDEN) as f:
        golden = json.load(f)
    failures, as_pytorch, total, unbroken, pt_unbroken = [], 0, 0, 0, 0
    for fn, args, kwargs in _entries:
        total += 1
        name = f"{tag}.{fn.__name__}"
        pt = golden.get(name)
        if fn.__name__ in py312:
            graphs, fullgraph, _why = py312[fn.__name__]
            pt = {"graphs": graphs, "fullgraph": fullgraph}
        if pt is None:
            failures.append(f"{name}: no PyTorch record (run with --record under PyTorch)")
            continue
        gap = known.get(fn.__name__)
        full = pt["fullgraph"] and gap is None
        want_graphs = gap[0] if gap else pt["graphs"]
        torch._dynamo.reset()
        cnt = CompileCounter()
        opt = torch.compile(fn, backend=cnt, fullgraph=full)
        try:
            for _ in range(2):
                want = _call(fn, args, kwargs)
                got = _call(opt, args, kwargs)
                if got[0] == "raised" and want[0] != "raised":
                    raise RuntimeError(f"compiled raised {got[1]}: {_last_error[0]}")
                if not same(want[:2], got[:2]):
                    raise RuntimeError(f"compiled {got[1]!r} != eager {want[1]!r}")
                if not same(want[2], got[2]) or not same(want[3], got[3]):
                    raise RuntimeError(f"arguments mutated differently: {got[2]!r} vs {want[2]!r}")
        except Exception as e:  # noqa: BLE001 - reported per program
            failures.append(f"{name}: {type(e).__name__}: {e}")
            continue
        unbroken += not _breaks()
        pt_unbroken += pt["fullgraph"]
        if cnt.frame_count != want_graphs:
            what = f"KNOWN says {gap[0]} ({gap[1]})" if gap else f"PyTorch makes {pt['graphs']}"
            failures.append(f"{name}: {cnt.frame_count} graph(s), {what}")
            continue
        if gap is None:
            as_pytorch += 1
        elif gap[0] == pt["graphs"] and pt["fullgraph"] and not _breaks():
            failures.append(f"{name}: listed in KNOWN but traces as PyTorch does; delete the line")
    print(
        f"matrix {tag}: {as_pytorch}/{total} programs trace as PyTorch does, {len(known)} known gaps,"
        f" {len(py312)} pinned to PyTorch on Python 3.12+"
    )
    print(f"matrix {tag}: {unbroken}/{total} trace without a graph break (PyTorch: {pt_unbroken})")
    for f in failures:
        print("FAIL", f)
    if failures:
        raise SystemExit(1)
    print("ok")
