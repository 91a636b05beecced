"""``torch.__config__``: how this build was made and how it runs in parallel."""

import os

import torch


def show():
    """The build description, in PyTorch's layout."""
    return ("PyTorch built with:\n"
            "  - Rynamo (Rust kernels, RustPython 0.6 interpreter)\n"
            "  - Parallelism: rayon work-stealing pool\n"
            "  - GEMM: gemm crate (no BLAS)\n"
            "  - LAPACK: faer crate\n"
            f"  - CPU capability usage: {torch.backends.cpu.get_cpu_capability()}\n"
            f"  - Build settings: TORCH_VERSION={torch.__version__}, USE_CUDA=0, USE_CUDNN=OFF, USE_MKL=OFF, "
            "USE_MKLDNN=OFF, USE_OPENMP=OFF, USE_ROCM=OFF, USE_XPU=OFF, \n")


def parallel_info():
    env = "".join(f"\t{v} : {os.environ.get(v, '[not set]')}\n" for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"))
    return ("ATen/Parallel:\n"
            f"\tat::get_num_threads() : {torch.get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {torch.get_num_interop_threads()}\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count()}\n"
            f"Environment variables:\n{env}"
            "ATen parallel backend: rayon\n")
