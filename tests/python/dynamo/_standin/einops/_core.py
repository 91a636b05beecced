"""The stand-in's ops: backend caches filled on first use, read as einops' `get_backend` reads
them (a trace through the first call would guard on `_loaded_backends` being empty)."""
_loaded_backends = {}
_type2backend = {}


def get_backend(x):
    kind = type(x)
    backend = _type2backend.get(kind, None)
    if backend is not None:
        return backend
    for _name, loaded in list(_loaded_backends.items()):
        _type2backend[kind] = loaded
        return loaded
    from . import _torch_specific  # noqa: F401  (registers the ops, as einops' does)

    _loaded_backends["torch"] = _type2backend[kind] = "torch"
    return "torch"


def rearrange(x, pattern):
    get_backend(x)
    if pattern == "i -> i":
        return x
    if pattern == "h w c -> c (h w)":
        return x.permute(2, 0, 1).reshape(x.shape[2], -1)
    raise ValueError(f"stand-in: unsupported pattern {pattern!r}")


def repeat(x, pattern, **sizes):
    get_backend(x)
    if pattern == "h w -> h w c":
        return x.unsqueeze(-1).expand(*x.shape, sizes["c"])
    raise ValueError(f"stand-in: unsupported pattern {pattern!r}")
