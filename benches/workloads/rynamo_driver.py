"""W1-W8 of benchmarks.md under Rynamo: eager, `torch.compile` (default backend) and
`torch.compile(backend="eager")`, repetitions alternating between the three in this process.

Run by `scripts/bench` (the `bench` binary): `rynamo rynamo_driver.py W1 REPS`. Prints one JSON
line per timed repetition, `{"workload", "config", "rep", "seconds"}`, and for W7 (a fresh process
per call) one line for the configuration named as the third argument. Outputs are checked against
eager once before timing, so a miscompiling backend cannot report a fast wrong answer.
"""
import json
import sys
import time

import torch

import workloads

CONFIGS = ("eager", "compiled", "compiled_eager")


def emit(workload, config, rep, seconds):
    print(json.dumps({"workload": workload, "config": config, "rep": rep, "seconds": seconds}), flush=True)


def variants(fn):
    return {
        "eager": fn,
        "compiled": torch.compile(fn),
        "compiled_eager": torch.compile(fn, backend="eager"),
    }


def check(name, fns, args):
    ref = fns["eager"](*args)
    for config in CONFIGS[1:]:
        got = fns[config](*args)
        if not torch.allclose(got, ref, rtol=1e-4, atol=1e-5):
            err = (got - ref).abs().max().item()
            raise SystemExit(f"{name}: {config} differs from eager (max abs error {err})")


def timed_reps(name, fns, args, reps, calls):
    """Alternates configurations rep by rep; each sample is `calls` calls (per-call seconds)."""
    check(name, fns, args)
    for config in CONFIGS:  # warm-up: compile and touch the memory
        fns[config](*args)
    for rep in range(reps):
        for config in CONFIGS:
            f = fns[config]
            start = time.perf_counter()
            for _ in range(calls):
                f(*args)
            emit(name, config, rep, (time.perf_counter() - start) / calls)


def compile_latency(config):
    """W7: one fresh process, one configuration: seconds from the first call to its result."""
    fn = workloads.hundred_ops
    if config == "compiled":
        fn = torch.compile(fn)
    elif config == "compiled_eager":
        fn = torch.compile(fn, backend="eager")
    x = torch.randn(1024)
    start = time.perf_counter()
    fn(x)
    emit("W7", config, 0, time.perf_counter() - start)


def main():
    name = sys.argv[1]
    reps = int(sys.argv[2])
    if name == "W7":
        compile_latency(sys.argv[3])
        return
    fn, make_args, calls = workloads.WORKLOADS[name]
    torch.manual_seed(0)
    timed_reps(name, variants(fn), make_args(torch), reps, calls)


if __name__ == "__main__":
    main()
