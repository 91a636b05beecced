"""W1-W6 and W8 of benchmarks.md in NumPy under CPython: what a CPU user would reach for instead
of Rynamo. Same sizes, float32, same calls per sample as `workloads.py`; one JSON line per timed
repetition with config "numpy". W7 (compile latency) has no NumPy counterpart. Run by
`scripts/bench` with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (set for old OpenBLAS builds,
they slow a current NumPy about 13x on W4); see main() for the two modes."""
import json
import sys
import time

import numpy as np

F = np.float32


def pointwise_chain(x):
    return (1.0 / (1.0 + np.exp(-(np.maximum(np.sin(x) * F(1.5) + np.cos(x), F(0)) - F(0.25))))) * x


def softmax_rows(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm_gelu(x, w, b):
    mean = x.mean(-1, keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(-1, keepdims=True)
    y = xc / np.sqrt(var + F(1e-5)) * w + b
    return F(0.5) * y * (F(1.0) + np.tanh(F(0.7978845608028654) * (y + F(0.044715) * y * y * y)))


def mlp(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, F(0)) @ w2 + b2


def tiny_overhead(x):
    y = x
    for _ in range(6):
        y = y + F(1)
        y = y * F(2)
        y = y - F(3)
        y = np.sin(y)
        y = np.cos(y)
    return y


def graph_break(x):
    a = np.sin(x) + F(1)
    return np.cos(a) * F(2)


def attention(q, k, v):
    s = q @ k.transpose(0, 2, 1) / F(8)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def randn(rng, *shape):
    return rng.standard_normal(shape, dtype=F)


WORKLOADS = {
    "W1": (pointwise_chain, lambda r: (randn(r, 4_194_304),), 1),
    "W2": (softmax_rows, lambda r: (randn(r, 4096, 1024),), 1),
    "W3": (layernorm_gelu, lambda r: (randn(r, 4096, 1024), randn(r, 1024), randn(r, 1024)), 1),
    "W4": (
        mlp,
        lambda r: (
            randn(r, 256, 1024),
            randn(r, 1024, 4096) * F(0.03),
            randn(r, 4096),
            randn(r, 4096, 1024) * F(0.03),
            randn(r, 1024),
        ),
        1,
    ),
    "W5": (tiny_overhead, lambda r: (randn(r, 16),), 500),
    "W6": (graph_break, lambda r: (randn(r, 1024),), 500),
    "W8": (attention, lambda r: (randn(r, 8, 256, 64), randn(r, 8, 256, 64), randn(r, 8, 256, 64)), 1),
}


def emit(obj):
    print(json.dumps(obj), flush=True)


def blas_info():
    """Which BLAS NumPy runs and with which kernel (threadpoolctl: OpenBLAS's core type, e.g.
    SkylakeX or Haswell), or why that is unknown."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return {"blas": "unknown (threadpoolctl is not installed: python3 -m pip install threadpoolctl)"}
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    return {"blas": [{k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")} for p in pools]}


def sgemm_peak(n, reps):
    """FP32 GFLOP/s of an n x n x n matmul through NumPy's BLAS (OpenBLAS sgemm), one line per
    repetition: the machine's peak measured by code other than Rynamo's."""
    a = np.ones((n, n), dtype=F)
    b = np.full((n, n), 0.5, dtype=F)
    c = a @ b
    for rep in range(reps):
        start = time.perf_counter()
        np.matmul(a, b, out=c)
        emit({"sgemm_gflops": 2.0 * n**3 / (time.perf_counter() - start) / 1e9, "rep": rep})


def main():
    """`numpy_driver.py ID`: a server like driver.py (samples per stdin line `N`, config "numpy");
    `numpy_driver.py peak N REPS`: sgemm GFLOP/s."""
    emit(blas_info())
    if sys.argv[1] == "peak":
        sgemm_peak(int(sys.argv[2]), int(sys.argv[3]))
        return
    name = sys.argv[1]
    fn, make_args, calls = WORKLOADS[name]
    args = make_args(np.random.default_rng(0))
    fn(*args)
    emit({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rep = int(line)
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        emit({"workload": name, "config": "numpy", "rep": rep, "seconds": (time.perf_counter() - start) / calls})
        emit({"rep_done": rep})


if __name__ == "__main__":
    main()
