"""The backend registry (`torch._dynamo.backends.registry`).

Native backends (the eager graph interpreter, the dynasm JIT, loaded plugins) live in the Rust
registry; Python backends registered here are callables `backend(gm, example_inputs)`.
"""
import _rynamo_dynamo as _C

from ..exc import InvalidBackend

_BACKENDS = {}
_TAGS = {}


def register_backend(compiler_fn=None, name=None, tags=()):
    """Registers a backend under `name` (default: the function's name). Usable as a decorator."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    name = name or compiler_fn.__name__
    if name in _BACKENDS or name in _C.native_backends():
        raise AssertionError(f"duplicate name: {name}")
    _BACKENDS[name] = compiler_fn
    _TAGS[name] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """A backend name's native name or Python callable; raises `InvalidBackend` if unknown."""
    if not isinstance(compiler_fn, str):
        return compiler_fn
    name = compiler_fn
    if name in _BACKENDS:
        return _BACKENDS[name]
    native = _C.native_backends()
    if name in native:
        return name
    if name == "inductor":
        return "dynasm" if "dynasm" in native else "eager"
    if name in ("aot_eager", "aot_eager_default_partitioner", "aot_eager_decomp_partition"):
        # The native side differentiates and partitions the graph (AOTAutograd) and interprets
        # the forward and backward graphs eagerly.
        return "aot_eager"
    raise InvalidBackend(name)


def list_backends(exclude_tags=("debug", "experimental")):
    """Names of the available backends, sorted."""
    exclude = set(exclude_tags or ())
    names = {"inductor", "aot_eager"}
    names.update(n for n in _C.native_backends())
    names.update(n for n, tags in _TAGS.items() if not exclude.intersection(tags))
    if "eager" in exclude or "debug" in exclude:
        names.discard("eager")
    return sorted(names)
