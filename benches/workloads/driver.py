"""Times one workload of workloads.py under a torch implementation, as a server the `bench` binary
(scripts/bench) drives, so that repetitions alternate between processes (Rynamo, PyTorch, NumPy)
within one run.

    rynamo driver.py rynamo ID     configs eager, compiled (default backend), compiled_eager
    python driver.py pytorch ID    configs torch_eager, torch_inductor (real PyTorch, default
                                   torch.compile: inductor)
    rynamo|python driver.py IMPL W7 CONFIG
                                   W7: one fresh process times its first call and exits

Protocol (one JSON object per stdout line; other lines are ignored by the harness):
- at start-up, after checking every compiled config against eager once (a miscompiling backend
  cannot report a fast wrong answer): `{"workload", "config": "compile:<config>", "seconds"}` for
  the first call of each compiled config (compile time included), `{"output": [...]}` (eager's
  output sampled, for the workloads with deterministic inputs), then `{"ready": true}`;
- for each line `N` read on stdin: one timed sample per config, alternating, each
  `{"workload", "config", "rep": N, "seconds"}` (seconds per call), then `{"rep_done": N}`;
- end of stdin: exit.
"""
import json
import sys
import time

import torch

import workloads

CONFIGS = {
    "rynamo": (("eager", None), ("compiled", "default"), ("compiled_eager", "eager")),
    "pytorch": (("torch_eager", None), ("torch_inductor", "default")),
}


def emit(obj):
    print(json.dumps(obj), flush=True)


def compile_fn(fn, backend):
    if backend is None:
        return fn
    if backend == "default":
        return torch.compile(fn)
    return torch.compile(fn, backend=backend)


def sample_output(out, k=16):
    """`k` evenly spaced elements of the flattened output, and its sum of absolute values."""
    flat = out.detach().reshape(-1)
    n = flat.numel()
    idx = [i * n // k for i in range(k)]
    return {"values": [float(flat[i]) for i in idx], "abs_sum": float(flat.abs().sum())}


def setup(impl, name):
    make, calls, eager_only, _ops = workloads.WORKLOADS[name]
    torch.manual_seed(0)
    with torch.no_grad():
        fn, args = make(torch)
        configs = CONFIGS[impl][:1] if eager_only else CONFIGS[impl]
        fns = {}
        ref = fn(*args)
        for config, backend in configs:
            f = compile_fn(fn, backend)
            start = time.perf_counter()
            got = f(*args)
            first = time.perf_counter() - start
            if backend is not None:
                emit({"workload": name, "config": "compile:" + config, "rep": 0, "seconds": first})
                if not torch.allclose(got, ref, rtol=1e-4, atol=1e-5):
                    err = (got - ref).abs().max().item()
                    raise SystemExit(f"{name}: {config} differs from eager (max abs error {err})")
            fns[config] = f
        for f in fns.values():  # warm-up: touch the memory, fill allocator caches
            f(*args)
    if name in workloads.DETERMINISTIC:
        emit({"workload": name, "output": sample_output(ref)})
    return fns, args, calls


def serve(name, fns, args, calls):
    emit({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rep = int(line)
        with torch.no_grad():
            for config, f in fns.items():
                start = time.perf_counter()
                for _ in range(calls):
                    f(*args)
                emit({"workload": name, "config": config, "rep": rep, "seconds": (time.perf_counter() - start) / calls})
        emit({"rep_done": rep})


def compile_latency(impl, config):
    """W7: one fresh process, one configuration: seconds from the first call to its result."""
    backend = dict(CONFIGS[impl])[config]
    fn = compile_fn(workloads.hundred_ops, backend)
    x = torch.randn(1024)
    start = time.perf_counter()
    fn(x)
    emit({"workload": "W7", "config": config, "rep": 0, "seconds": time.perf_counter() - start})


def main():
    impl, name = sys.argv[1], sys.argv[2]
    if impl not in CONFIGS:
        raise SystemExit(f"driver.py: unknown implementation {impl!r} (rynamo or pytorch)")
    if name == "W7":
        compile_latency(impl, sys.argv[3])
        return
    if impl == "pytorch":
        emit({"info": f"torch {torch.__version__}, {torch.get_num_threads()} threads"})
    fns, args, calls = setup(impl, name)
    serve(name, fns, args, calls)


if __name__ == "__main__":
    main()
