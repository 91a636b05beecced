"""The project fuzzer's runner: runs programs from `_gen.py` eagerly and under torch.compile
(the default backend and backend="eager"), several calls with changing shapes, and reports
every difference. Run by `scripts/fuzz` and `fuzz_ci.py` in a subprocess of the `rynamo`
binary (so a crash is caught and attributed), one batch of programs per process:

    rynamo tests/python/fuzz/_run.py --seed S --start A --count N
    rynamo tests/python/fuzz/_run.py PROGRAM_FILE...

It writes one line per event to stdout: `BEGIN <id>` before a program, `FAIL <id> <json>` for
each difference, `END <id>` after it; a program's own output (`print`) is captured and compared,
never written. Compared after every call, eager against compiled: the result (structure, and
for tensors dtype, shape and values, NaN-aware, with the sign of zeros), the exception type
where eager raises, the inputs (in-place mutations), the printed text, the program's Python
state (a global list, a global counter, a closure cell), and which inputs the results are
(object identity) and share memory with.

Values are compared exactly on the eager backend (it runs eager's kernels). The default
backend's fused kernels use their own vectorised math (exp, tanh, ... within the ulp bounds of
jit/dynasm/src/tests/ulp.rs) and may sum in another order, so there finite floats are held to
the project's convention for JIT against eager (jit/dynasm/src/tests/coverage.rs: torch.testing's
default tolerances, f32 rtol 1.3e-6 atol 1e-5, f64 rtol 1e-7 atol 1e-7; f64 results of programs
with other than f64 inputs get f32's, as float32 intermediates may feed them), and the sign of a zero
is not compared (PyTorch's own inductor gives clamp(-0.0, 0, 1) = 0.0 where its eager gives
-0.0), and numbers in printed text may differ by one unit of their last printed digit; NaN,
infinities and every non-float value must still be equal. A value outside that tolerance is
then judged against a float64 run of the same program (`fp64_reference`): a compiled value at
most twice as far from it as eager's passes, since an op like exp amplifies one ulp of its
input past any fixed tolerance (seed 18, program 9800: eager was the less accurate side).
"""
import contextlib
import io
import json
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402

import _gen  # noqa: E402

# The eager backend first: the default backend's check reads what it raised (see run_case).
BACKENDS = ["eager", "inductor"]
SPECIAL = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]


def make_input(spec, dims, call, rng):
    """One input tensor for one call; values from Python's RNG so any runtime builds the same."""
    shape = [1 if s == 1 else dims[s][call] for s in spec["shape"]]
    n = math.prod(shape)
    dt = spec["dtype"]
    if dt == "bool":
        vals = [rng.random() < 0.5 for _ in range(n)]
    elif dt.startswith("int"):
        vals = [rng.randrange(-5, 6) for _ in range(n)]
    else:
        vals = [round(rng.gauss(0, 1.5), 3) for _ in range(n)]
        if spec["special"]:
            vals = [rng.choice(SPECIAL) if rng.random() < 0.3 else v for v in vals]
    t = torch.tensor(vals, dtype=getattr(torch, dt))
    layout = spec.get("layout", "contiguous")
    if layout == "transposed":  # same values, the last two dims' strides swapped
        return t.reshape(shape[:-2] + [shape[-1], shape[-2]]).transpose(-1, -2)
    if layout == "strided":  # every other element of a tensor twice as long in the last dim
        wide = torch.stack([t.reshape(shape), torch.zeros(shape, dtype=t.dtype)], dim=-1)
        return wide.reshape(shape[:-1] + [2 * shape[-1]])[..., ::2]
    if layout == "offset":  # a view starting 3 elements into its storage
        return torch.cat([torch.zeros(3, dtype=t.dtype), t])[3:].reshape(shape)
    return t.reshape(shape)


def make_inputs(case, call):
    rng = random.Random(case["seed"] * 7919 + case["index"] * 31 + call)
    return [make_input(spec, case["dims"], call, rng) for spec in case["inputs"]]


def load(text):
    """(namespace, f, read_cell) for a program's text, executed afresh."""
    ns = {"torch": torch, "__name__": "fuzz_program"}
    exec(compile(text, "<fuzz program>", "exec"), ns)
    f, read_cell = ns["make"]()
    return ns, f, read_cell


def call(fn, args):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            out = fn(*args)
        return out, None, buf.getvalue()
    except Exception as e:  # noqa: BLE001 - compared with the other side's
        return None, e, buf.getvalue()


# (rtol, atol) per dtype for the default backend; None: exact.
TOLERANCES = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}


def tensor_diff(a, b, tol, ref=None):
    """None when two tensors are the same: dtype, shape, values (NaN equal to NaN; exactly, -0.0
    not equal to 0.0, unless `tol`: then finite values within the dtype's tolerance); otherwise
    what differs. `ref`, where given, is the same value computed in float64 (see fp64_reference):
    a finite value outside the tolerance still passes when it is at most twice as far from `ref`
    as eager's is, plus a tenth of the absolute tolerance (PyTorch's `same(fp64_ref=)` rule,
    applied per element so that a small wrong value cannot hide behind large right ones)."""
    if a.dtype != b.dtype:
        return f"dtype {b.dtype} != eager {a.dtype}"
    if a.shape != b.shape:
        return f"shape {tuple(b.shape)} != eager {tuple(a.shape)}"
    if a.numel() == 0:
        return None
    if a.is_floating_point():
        both_nan = a.isnan() & b.isnan()
        equal = (a == b) if tol else (a == b) & (a.signbit() == b.signbit())
        if tol and a.dtype in TOLERANCES:
            rtol, atol = TOLERANCES[torch.float32 if tol == "f32" else a.dtype]
            finite = a.isfinite() & b.isfinite() & ((a != 0) | (b != 0))
            equal = equal | (finite & ((a - b).abs() <= atol + rtol * a.abs()))
            if ref is not None and ref.shape == a.shape and ref.is_floating_point():
                r = ref.double()
                err_c, err_e = (b.double() - r).abs(), (a.double() - r).abs()
                equal = equal | (finite & r.isfinite() & (err_c <= 2 * err_e + atol / 10))
        bad = ~(equal | both_nan)
    else:
        bad = a != b
    if bool(bad.any()):
        i = int(bad.reshape(-1).int().argmax())
        return f"values differ at flat index {i}: {b.reshape(-1)[i].item()!r} != eager {a.reshape(-1)[i].item()!r}"
    return None


def diff(a, b, where="result", tol=False, ref=None):
    """None when eager's value `a` and compiled's `b` are the same; else where and how not.
    `ref`: the float64 reference of `a`'s structure, or None."""
    if isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor):
            return f"{where}: {type(b).__name__} where eager has a tensor"
        d = tensor_diff(a, b, tol, ref if isinstance(ref, torch.Tensor) else None)
        return d and f"{where}: {d}"
    if isinstance(a, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return f"{where}: {type(b).__name__} of {len(b) if hasattr(b, '__len__') else '?'} != eager {type(a).__name__} of {len(a)}"
        refs = ref if isinstance(ref, (list, tuple)) and len(ref) == len(a) else [None] * len(a)
        for i, (x, y, r) in enumerate(zip(a, b, refs)):
            d = diff(x, y, f"{where}[{i}]", tol, r)
            if d:
                return d
        return None
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            return f"{where}: {type(b).__name__} {list(b) if isinstance(b, dict) else ''} != eager dict {list(a)}"
        for k in a:
            d = diff(a[k], b[k], f"{where}[{k!r}]", tol, ref.get(k) if isinstance(ref, dict) else None)
            if d:
                return d
        return None
    if isinstance(a, float) and isinstance(b, float):
        if (a != a and b != b) or (a == b and (tol or math.copysign(1, a) == math.copysign(1, b))):
            return None
        if tol and math.isfinite(a) and math.isfinite(b) and (a or b) and abs(a - b) <= 1e-5 + 1.3e-6 * abs(a):
            return None
        return f"{where}: {b!r} != eager {a!r}"
    if type(a) is not type(b) or a != b:
        return f"{where}: {b!r} != eager {a!r}"
    return None


NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")


def same_text(a, b, tol):
    """Whether two printed texts are the same; with `tol`, numbers may differ by one unit of
    their last printed digit beyond the tolerance (a value within tolerance can round the other
    way when printed)."""
    if a == b or not tol:
        return a == b
    # Spaces aside: a column's padding follows its widest number, so a zero printed as -0.
    # (its sign is not compared, as above) shifts the others (seed 17, program 7429).
    if [t.replace(" ", "") for t in NUMBER.split(a)] != [t.replace(" ", "") for t in NUMBER.split(b)]:
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        mant, _, exp = x.partition("e")
        digits = len(mant.partition(".")[2])
        unit = 10.0 ** (-digits + (int(exp) if exp else 0))
        if abs(float(x) - float(y)) > unit + 1e-5 + 1.3e-6 * abs(float(x)):
            return False
    return True


def leaves(v):
    if isinstance(v, dict):
        v = list(v.values())
    if isinstance(v, (list, tuple)):
        for x in v:
            yield from leaves(x)
    elif isinstance(v, torch.Tensor):
        yield v


def overlaps(t, u):
    """Whether tensor `t` starts inside the memory the input `u` spans (inputs have
    non-negative strides)."""
    if t.numel() == 0 or u.numel() == 0:
        return False
    span = 1 + sum((n - 1) * st for n, st in zip(u.shape, u.stride()))
    start = u.data_ptr()
    return start <= t.data_ptr() < start + span * u.element_size()


def relation(out, inputs):
    """For each tensor in the result: which input it is, which inputs it shares memory with, and
    the first tensor of the result that is the same object."""
    ts = list(leaves(out))
    return [([i for i, x in enumerate(inputs) if t is x], [i for i, x in enumerate(inputs) if overlaps(t, x)],
             next(j for j, u in enumerate(ts) if u is t))
            for t in ts]


def state(ns, read_cell):
    return [list(ns["G"]), ns["COUNT"], read_cell()]


def fp64_reference(text, case, upto):
    """(result, inputs after the call) of call `upto` of a fresh eager run whose floating inputs
    are float64: the reference a tolerance failure is judged against. None if that run raises
    (a program may depend on its dtypes)."""
    _, f, _ = load(text)
    try:
        for c in range(upto + 1):
            args = [t.double() if t.is_floating_point() else t for t in make_inputs(case, c)]
            with contextlib.redirect_stdout(io.StringIO()):
                out = f(*args)
        return out, args
    except Exception:  # noqa: BLE001 - no reference; the plain verdict stands
        return None


def run_case(text, case, report):
    """Runs one program on every backend; calls report(backend, call, message) per difference."""
    calls = case.get("calls", _gen.NCALLS)
    # Per call: what the eager backend raised (it runs the traced graph whole, dead ops included).
    eager_backend_raised = {}
    for backend in BACKENDS:
        torch._dynamo.reset()
        ns_e, f_e, cell_e = load(text)
        ns_c, f_c, cell_c = load(text)
        opt = torch.compile(f_c, backend=backend)
        # A float64 result may carry a float32 intermediate's error (a float32 exp promoted
        # into float64 arithmetic: seed 6, programs 11567 and 19604), so float64 values get
        # float64's tolerance only in programs whose inputs are all float64.
        tol = backend == "inductor" and ("f64" if all(i["dtype"] == "float64" for i in case["inputs"]) else "f32")
        for c in range(calls):
            args_e = make_inputs(case, c)
            args_c = make_inputs(case, c)  # the same values and layouts
            out_e, exc_e, text_e = call(f_e, args_e)
            out_c, exc_c, text_c = call(opt, args_c)
            if backend == "eager":
                eager_backend_raised[c] = exc_c
            problems = []
            if exc_e is None and exc_c is not None:
                problems.append(f"compiled raised {type(exc_c).__name__}: {str(exc_c)[:300]}")
            elif (exc_e is not None and exc_c is None and backend == "inductor"
                  and isinstance(eager_backend_raised.get(c), type(exc_e))):
                # A dead op raised (an integer fmod by zero whose result is unused): the eager
                # backend keeps it and raises as eager does, while a compiling backend
                # eliminates it and returns, as PyTorch's inductor does (seed 17, program 16).
                pass
            elif exc_e is not None and not isinstance(exc_c, type(exc_e)):
                got = "returned" if exc_c is None else f"raised {type(exc_c).__name__}: {str(exc_c)[:200]}"
                problems.append(f"eager raised {type(exc_e).__name__}: {str(exc_e)[:200]}; compiled {got}")
            elif exc_e is None:
                d = diff(out_e, out_c, "result", tol)
                if d and tol and "values differ" in d:
                    ref = fp64_reference(text, case, c)
                    d = diff(out_e, out_c, "result", tol, ref[0]) if ref else d
                if d:
                    problems.append(d)
                elif relation(out_e, args_e) != relation(out_c, args_c):
                    problems.append(f"result identity/aliasing of inputs {relation(out_c, args_c)} != eager {relation(out_e, args_e)}")
            if exc_e is not None:
                # Eager raised part-way: the writes and Python side effects before the raise
                # are eager's alone (Dynamo applies a frame's side effects after its graph
                # runs, so PyTorch's compiled call leaves them undone too); the next calls
                # would start from different states.
                for p in problems:
                    report(backend, c, p)
                break
            d = diff(args_e, args_c, "inputs after the call", tol)
            if d and tol and "values differ" in d:
                ref = fp64_reference(text, case, c)
                d = diff(args_e, args_c, "inputs after the call", tol, ref[1]) if ref else d
            if d:
                problems.append(d)
            if not same_text(text_e, text_c, tol):
                problems.append(f"printed {text_c[:300]!r} != eager {text_e[:300]!r}")
            d = diff(state(ns_e, cell_e), state(ns_c, cell_c), "python state [G, COUNT, cell]", tol)
            if d:
                problems.append(d)
            for p in problems:
                report(backend, c, p)
            if problems:
                break  # later calls would repeat the difference


def emit(line):
    sys.__stdout__.write(line + "\n")
    sys.__stdout__.flush()


def run_one(pid, text, case):
    emit(f"BEGIN {pid}")
    try:
        run_case(text, case, lambda b, c, m: emit(f"FAIL {pid} " + json.dumps({"backend": b, "call": c, "message": m})))
    except Exception as e:  # noqa: BLE001 - the runner itself failed on this program
        emit(f"FAIL {pid} " + json.dumps({"backend": "runner", "call": -1, "message": f"{type(e).__name__}: {e}"}))
    emit(f"END {pid}")


def parse_file(path):
    with open(path) as fh:
        text = fh.read()
    first, _, _ = text.partition("\n")
    return text, eval(first.partition("=")[2], {})  # a dict literal written by _gen.program_file


def main(argv):
    if argv[:1] == ["--seed"]:
        seed, start, count = int(argv[1]), int(argv[3]), int(argv[5])
        for i in range(start, start + count):
            src, case = _gen.make_case(seed, i)
            run_one(i, _gen.program_file(src, case), case)
    else:
        for path in argv:
            text, case = parse_file(path)
            run_one(path, text, case)
    emit("DONE")


if __name__ == "__main__":
    main(sys.argv[1:])
