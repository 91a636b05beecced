"""``torch.version``: the build's versions (a CPU-only build: no CUDA, HIP, ROCm or XPU)."""

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]
__version__ = "2.6.0+rynamo"
debug = False
cuda = None
git_version = "Unknown"
hip = None
rocm = None
xpu = None
