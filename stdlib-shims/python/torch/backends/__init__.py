"""``torch.backends``: the flags PyTorch scripts set and query. Rynamo's kernels are its own (Rust,
rayon, gemm): no cuDNN, MKL, MKL-DNN, OpenMP, MPS or CUDA is built in, so every ``is_available()``
is False, while the switches keep the values scripts assign (``cudnn.benchmark = True``) and
``cpu.get_cpu_capability()`` names the vector ISA the kernels pick at run time."""

import contextlib
import sys
import types


def _flags_module(name, doc, **flags):
    mod = types.ModuleType(f"torch.backends.{name}", doc)
    mod.__dict__.update(flags)
    mod.is_available = lambda: False
    sys.modules[mod.__name__] = mod
    return mod


cudnn = _flags_module("cudnn", "cuDNN switches (not built in).", enabled=True, benchmark=False, deterministic=False,
                      allow_tf32=True, benchmark_limit=10)
cudnn.version = lambda: None
cudnn.is_acceptable = lambda tensor: False


@contextlib.contextmanager
def _cudnn_flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    old = (cudnn.enabled, cudnn.benchmark, cudnn.benchmark_limit, cudnn.deterministic, cudnn.allow_tf32)
    cudnn.enabled, cudnn.benchmark, cudnn.benchmark_limit = enabled, benchmark, benchmark_limit
    cudnn.deterministic, cudnn.allow_tf32 = deterministic, allow_tf32
    try:
        yield
    finally:
        (cudnn.enabled, cudnn.benchmark, cudnn.benchmark_limit, cudnn.deterministic, cudnn.allow_tf32) = old


cudnn.flags = _cudnn_flags

mkldnn = _flags_module("mkldnn", "MKL-DNN (oneDNN) switches (not built in).", enabled=True, deterministic=False,
                       allow_tf32=False)


@contextlib.contextmanager
def _mkldnn_flags(enabled=False, deterministic=False):
    old = (mkldnn.enabled, mkldnn.deterministic)
    mkldnn.enabled, mkldnn.deterministic = enabled, deterministic
    try:
        yield
    finally:
        mkldnn.enabled, mkldnn.deterministic = old


mkldnn.flags = _mkldnn_flags
mkl = _flags_module("mkl", "Intel MKL (not built in).")
openmp = _flags_module("openmp", "OpenMP (not built in: the kernels run on rayon).")
mps = _flags_module("mps", "Apple's Metal backend (not built in).")
mps.is_built = lambda: False
nnpack = _flags_module("nnpack", "NNPACK (not built in).")
opt_einsum = _flags_module("opt_einsum", "opt_einsum contraction ordering (not installed).", enabled=False,
                           strategy=None)

cuda = types.ModuleType("torch.backends.cuda", "CUDA switches (not built in).")
cuda.is_built = lambda: False
cuda.matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                    allow_bf16_reduced_precision_reduction=True, fp32_precision="none")
cuda.flash_sdp_enabled = lambda: False
cuda.mem_efficient_sdp_enabled = lambda: False
cuda.math_sdp_enabled = lambda: True
sys.modules[cuda.__name__] = cuda

cpu = types.ModuleType("torch.backends.cpu", "The CPU backend.")


def _get_cpu_capability():
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``: the widest ISA the kernels select at run time
    (``RYNAMO_JIT_ISA``/``ATEN_CPU_CAPABILITY`` can lower it), as PyTorch names them."""
    import os
    import platform

    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        return "DEFAULT"
    best = "DEFAULT"
    if "avx2" in flags and "fma" in flags:
        best = "AVX2"
    if {"avx512f", "avx512dq", "avx512bw", "avx512vl"} <= flags:
        best = "AVX512"
    order = ["DEFAULT", "AVX2", "AVX512"]
    if forced.upper() in order and order.index(forced.upper()) < order.index(best):
        return forced.upper()
    return best


cpu.get_cpu_capability = _get_cpu_capability
sys.modules[cpu.__name__] = cpu


def __getattr__(name):
    raise AttributeError(f"module 'torch.backends' has no attribute {name!r}")
