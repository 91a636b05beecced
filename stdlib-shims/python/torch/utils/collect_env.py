"""``python -m torch.utils.collect_env``: the environment report to paste into bug reports, in
PyTorch's layout (the runtime is Rynamo's: no CUDA, HIP or XPU)."""

import os
import platform
import subprocess
import sys

import torch


def _run(cmd):
    try:
        out = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10)
    except Exception:
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _os_name():
    try:
        with open("/etc/os-release") as f:
            info = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        return f"{info.get('PRETTY_NAME', '').strip(chr(34))} ({platform.machine()})"
    except OSError:
        return f"{platform.system()} {platform.release()} ({platform.machine()})"


def get_pretty_env_info():
    gcc = _run("gcc --version")
    clang = _run("clang --version")
    cmake = _run("cmake --version")
    libc = "-".join(platform.libc_ver()) or "N/A"
    cpu = _run("lscpu") or platform.processor() or "Could not collect"
    lines = [
        f"PyTorch version: {torch.__version__}",
        f"Is debug build: {torch.version.debug}",
        f"CUDA used to build PyTorch: {torch.version.cuda}",
        "ROCm SDK used to build PyTorch: N/A",
        "HIP used to build PyTorch: N/A",
        "",
        f"OS: {_os_name()}",
        f"GCC version: {gcc.splitlines()[0] if gcc else 'Could not collect'}",
        f"Clang version: {clang.splitlines()[0] if clang else 'Could not collect'}",
        f"CMake version: {cmake.splitlines()[0] if cmake else 'Could not collect'}",
        f"Libc version: {libc}",
        "",
        f"Python version: {sys.version.replace(chr(10), ' ')} ({sys.maxsize.bit_length() + 1}-bit runtime)",
        f"Python platform: {platform.platform()}",
        f"Is CUDA available: {torch.cuda.is_available()}",
        "CUDA runtime version: No CUDA",
        "CUDA_MODULE_LOADING set to: N/A",
        "GPU models and configuration: No CUDA",
        "Nvidia driver version: No CUDA",
        "cuDNN version: No CUDA",
        "Is XPU available: False",
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: False",
        "Caching allocator config: N/A",
        "",
        "CPU:",
        cpu,
        "",
        "Versions of relevant libraries:",
        f"[pip3] torch=={torch.__version__} (Rynamo, embedded)",
        f"[conda] Could not collect",
    ]
    return "\n".join(lines)


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
