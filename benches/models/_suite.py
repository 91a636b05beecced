"""Shared driver of the model suite (`benches/models/*.py`).

Every model file defines `build(small=False) -> (step, args)`: `step` is the function a user
would hand to `torch.compile` (a module's forward or a training-style step with its logging and
branches), `args` its inputs. `main()` in each file calls `check_model(build)`.

- `check_model`: compiles `step` with the default backend and compares two compiled calls (the
  compile and a cache hit) with eager on small inputs, with `torch.allclose`. Exits non-zero on a
  mismatch; prints `ok <name> graphs=<n>` otherwise.
- `coverage_row`: the capture-coverage row of one model (graph_calls, captured_ops, total_ops,
  pct_ops, pct_time, graphs), printed as one JSON line by `coverage.py`.
"""
import math
import time

import _rynamo_dynamo
import torch

RTOL = 1e-4
ATOL = 1e-5


def _flatten(out):
    """Tensors and Python numbers in a result, in order (nested tuples, lists, dicts)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flatten(o)]
    if isinstance(out, dict):
        return [x for k in sorted(out) for x in _flatten(out[k])]
    return [out]


def _assert_close(name, got, ref):
    got, ref = _flatten(got), _flatten(ref)
    if len(got) != len(ref):
        raise AssertionError(f"{name}: {len(got)} outputs compiled, {len(ref)} eager")
    for i, (g, r) in enumerate(zip(got, ref)):
        if isinstance(r, torch.Tensor):
            if not isinstance(g, torch.Tensor) or g.shape != r.shape or g.dtype != r.dtype:
                raise AssertionError(f"{name}: output {i}: {g!r} is not like {r!r}")
            if not torch.allclose(g, r, rtol=RTOL, atol=ATOL):
                err = (g.float() - r.float()).abs().max().item()
                raise AssertionError(f"{name}: output {i} differs from eager (max abs error {err})")
        elif isinstance(r, float):
            if not math.isclose(g, r, rel_tol=RTOL, abs_tol=ATOL):
                raise AssertionError(f"{name}: output {i}: {g} compiled, {r} eager")
        elif g != r:
            raise AssertionError(f"{name}: output {i}: {g!r} compiled, {r!r} eager")


def _fresh(build, small):
    # The same seed for every build, so eager and compiled runs see identical weights and data.
    torch.manual_seed(0)
    return build(small=small)


def check_model(build, name=None):
    """Compiled (default backend) against eager on small inputs; raises on a mismatch."""
    name = name or build.__module__
    step, args = _fresh(build, True)
    with torch.no_grad():
        ref = step(*args)
        torch._dynamo.reset()
        compiled = torch.compile(step)
        first = compiled(*args)
        second = compiled(*args)
    _assert_close(name, first, ref)
    _assert_close(name, second, ref)
    graphs = len(_rynamo_dynamo.graph_records())
    print(f"ok {name} graphs={graphs}")


class _TimingBackend:
    """A backend that runs each graph's FX module and adds up the time spent inside graphs."""

    def __init__(self):
        self.seconds = 0.0

    def __call__(self, gm, example_inputs):
        forward = gm.forward

        def run(*args):
            start = time.perf_counter()
            out = forward(*args)
            self.seconds += time.perf_counter() - start
            return out

        return run


def coverage_row(name, build, reps=3):
    """The coverage row of one model: ops from the runtime's dispatch counters with the default
    backend; graphs from `explain`; the share of time inside graphs from a timing backend."""
    step, args = _fresh(build, False)
    with torch.no_grad():
        graphs = torch._dynamo.explain(step)(*args).graph_count

        torch._dynamo.reset()
        compiled = torch.compile(step)
        compiled(*args)  # compile; counted below only once warm, as TorchBench does
        _rynamo_dynamo.reset_records()
        torch._C._reset_dispatch_count()
        for _ in range(reps):
            compiled(*args)
        eager_ops = torch._C._dispatch_count()
        captured = torch._C._in_graph_count()
        graph_calls, _ = _rynamo_dynamo.graph_counters()

        torch._dynamo.reset()
        timing = _TimingBackend()
        timed = torch.compile(step, backend=timing)
        timed(*args)
        timing.seconds = 0.0
        start = time.perf_counter()
        for _ in range(reps):
            timed(*args)
        total_s = time.perf_counter() - start
        torch._dynamo.reset()
    total = captured + eager_ops
    return {
        "model": name,
        "graph_calls": graph_calls // reps,
        "captured_ops": captured // reps,
        "total_ops": total // reps,
        "pct_ops": 100.0 * captured / total if total else 0.0,
        "pct_time": 100.0 * timing.seconds / total_s if total_s else 0.0,
        "graphs": graphs,
    }
