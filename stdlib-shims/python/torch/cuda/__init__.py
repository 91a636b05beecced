"""``torch.cuda`` on a CPU-only runtime: nothing is available."""


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass
