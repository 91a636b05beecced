"""Differential checks for compiled code: compiled results must equal eager results exactly
(the `eager` backend runs the same kernels), and the number of graphs must be what PyTorch
produces for the same function."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

_failures = []


def clone(v):
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, list):
        return [clone(x) for x in v]
    if isinstance(v, tuple):
        items = [clone(x) for x in v]
        if hasattr(type(v), "_make"):  # a namedtuple keeps its class
            return type(v)._make(items)
        return type(v)(items) if type(v) is not tuple else tuple(items)
    if isinstance(v, dict):
        return {k: clone(x) for k, x in v.items()}
    if isinstance(v, set):
        return set(v)
    return v


def same(a, b):
    if isinstance(a, torch.Tensor):
        return (
            isinstance(b, torch.Tensor)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and (a.numel() == 0 or bool(((a == b) | ((a != a) & (b != b))).all()))
        )
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    return type(a) is type(b) and a == b


def check(fn, *args, graphs=1, calls=2, seed=0, **kwargs):
    """Compiles `fn` with a counting backend; compares with eager on the same inputs for
    `calls` calls (the first compiles, later ones run the cached code); checks the graph count."""
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    name = getattr(fn, "__name__", repr(fn))
    try:
        for _ in range(calls):
            a, k = clone(args), clone(kwargs)
            grad_before = torch.is_grad_enabled()
            torch.manual_seed(seed)
            expected = fn(*a, **k)
            grad_eager = torch.is_grad_enabled()
            torch.set_grad_enabled(grad_before)
            a2, k2 = clone(args), clone(kwargs)
            torch.manual_seed(seed)
            got = opt(*a2, **k2)
            grad_compiled = torch.is_grad_enabled()
            torch.set_grad_enabled(grad_before)
            if not same(expected, got):
                _failures.append(f"{name}: compiled {got!r} != eager {expected!r}")
                return
            if grad_eager != grad_compiled:
                _failures.append(f"{name}: grad mode after the call is {grad_compiled}, eager leaves {grad_eager}")
                return
            if not same(a, a2) or not same(k, k2):
                _failures.append(f"{name}: arguments mutated differently: {a2!r} vs {a!r}")
                return
        if cnt.frame_count != graphs:
            _failures.append(f"{name}: expected {graphs} graph(s), got {cnt.frame_count}")
    except Exception as e:  # a crash is a failure of this case, not of the whole file
        import traceback

        _failures.append(f"{name}: raised {type(e).__name__}: {e}\n{traceback.format_exc()}")


def expect(name, got, want):
    """Records a failure unless `got == want`."""
    if got != want:
        _failures.append(f"{name}: got {got!r}, expected {want!r}")


def done():
    """Reports and exits non-zero if any check failed."""
    if _failures:
        for f in _failures:
            print("FAIL", f)
        raise SystemExit(1)
    print("ok")


def fd2_text(fn):
    """What `fn()` writes to the process's file descriptor 2. Dynamo's logs are written there
    directly, bypassing `sys.stderr`, so `contextlib.redirect_stderr` would not see them."""
    import os
    import tempfile

    with tempfile.TemporaryFile() as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            fn()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        return f.read().decode()
