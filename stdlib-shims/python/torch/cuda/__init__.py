"""``torch.cuda`` on a CPU-only runtime: nothing is available."""


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def _lazy_init():
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_bf16_supported(including_emulation=True):
    return False


def synchronize(device=None):
    _lazy_init()


def set_device(device):
    # PyTorch ignores a negative index and initialises CUDA otherwise.
    if isinstance(device, int) and device < 0:
        return
    _lazy_init()


def current_device():
    _lazy_init()


def empty_cache():
    """Frees the caching allocator's unused blocks: a no-op while CUDA is uninitialised."""


def memory_allocated(device=None):
    # PyTorch reads the allocator's statistics, empty (0 bytes) while CUDA is uninitialised.
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0
