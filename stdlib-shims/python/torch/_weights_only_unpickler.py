"""The restricted unpickler behind ``torch.load(weights_only=True)`` (the default): an interpreter
of the pickle opcodes that only ever calls an allowlist (tensor rebuild functions, dtypes,
storages, ``OrderedDict``, ``torch.Size``, ...) plus what ``torch.serialization.add_safe_globals``
added, so loading an untrusted checkpoint cannot run code. Errors use PyTorch's wording."""

import _compat_pickle
import codecs
import struct
from collections import Counter, OrderedDict
from pickle import UnpicklingError

import torch

_blocklisted_modules = ["sys", "os", "posix", "nt"]
_marked_safe_globals = set()


def _add_safe_globals(safe_globals):
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def _get_safe_globals():
    return list(_marked_safe_globals)


def _clear_safe_globals():
    global _marked_safe_globals
    _marked_safe_globals = set()


def _remove_safe_globals(globals_to_remove):
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals - set(globals_to_remove)


def _qualified(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _user_allowed_globals():
    out = {}
    for entry in _marked_safe_globals:
        if isinstance(entry, tuple):
            obj, name = entry
            out[name] = obj
        else:
            out[_qualified(entry)] = entry
    return out


_ALLOWED = None


def _allowed_globals():
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _build_allowed_globals()
    return _ALLOWED


def _build_allowed_globals():
    import torch._utils as u
    from torch import storage

    out = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": torch.nn.Parameter,
        "torch.serialization._get_layout": torch.serialization._get_layout,
        "torch.Size": torch.Size,
        "torch.Tensor": torch.Tensor,
        "torch.device": torch.device,
        "_codecs.encode": codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.TypedStorage": storage.TypedStorage,
        "torch.storage.UntypedStorage": storage.UntypedStorage,
        "torch.UntypedStorage": storage.UntypedStorage,
    }
    for dtype in storage._dtype_to_storage_type_map():
        out[str(dtype)] = dtype
    for name, cls in storage._legacy_classes.items():
        out["torch." + name] = cls
    for fn in (u._rebuild_parameter, u._rebuild_parameter_with_state, u._rebuild_tensor, u._rebuild_tensor_v2,
               u._rebuild_tensor_v3):
        out["torch._utils." + fn.__name__] = fn
    return out


def _unsupported_global(full_path):
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global if you "
        "trust this class/function."
    )


class Unpickler:
    """``Unpickler(file, encoding=...).load()``; ``persistent_load`` is set by the caller and only
    sees ``('storage', ...)`` ids."""

    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}
        self.persistent_load = None
        self.proto = -1

    def _resolve(self, module, name):
        full_path = f"{module}.{name}"
        if module in _blocklisted_modules:
            raise UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        allowed = _allowed_globals()
        if full_path in allowed:
            return allowed[full_path]
        user = _user_allowed_globals()
        if full_path in user:
            return user[full_path]
        raise _unsupported_global(full_path)

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def load(self):
        self.metastack = []
        self.stack = []
        read = self.read
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            handler = _OPS.get(op)
            if handler is None:
                raise UnpicklingError(f"Unsupported operand {op}")
            if handler(self) is _STOP:
                return self.stack.pop()


_STOP = object()
_OPS = {}


def _op(code):
    def register(fn):
        _OPS[code[0]] = fn
        return fn

    return register


def _read_line(u):
    return u.readline()[:-1].decode("utf-8")


@_op(b"\x80")
def _proto(u):
    u.proto = u.read(1)[0]


@_op(b"\x95")
def _frame(u):
    u.read(8)


@_op(b".")
def _stop(u):
    return _STOP


@_op(b"c")
def _global(u):
    module = _read_line(u)
    name = _read_line(u)
    if u.proto < 3:
        # Protocol 2 writes Python 2 names (`__builtin__.set`); map them as pickle does.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
    u.stack.append(u._resolve(module, name))


@_op(b"\x93")
def _stack_global(u):
    name = u.stack.pop()
    module = u.stack.pop()
    if not isinstance(name, str) or not isinstance(module, str):
        raise UnpicklingError("STACK_GLOBAL requires str")
    u.stack.append(u._resolve(module, name))


@_op(b"\x81")
def _newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    if cls is torch.nn.Parameter:
        u.stack.append(torch.nn.Parameter(*args))
    elif cls in _user_allowed_globals().values():
        u.stack.append(cls.__new__(cls, *args))
    else:
        raise UnpicklingError(f"Trying to instantiate unsupported class {cls}")


@_op(b"R")
def _reduce(u):
    args = u.stack.pop()
    func = u.stack[-1]
    if func not in _allowed_globals().values() and func not in _user_allowed_globals().values():
        raise UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
    u.stack[-1] = func(*args)


@_op(b"b")
def _build(u):
    state = u.stack.pop()
    inst = u.stack[-1]
    if type(inst) is torch.Tensor:
        # Tensor state: (slots, dict) of Python attributes set on the tensor.
        if isinstance(state, tuple) and len(state) == 2:
            state = state[1] if isinstance(state[1], dict) else state[0]
        if isinstance(state, dict):
            for k, v in state.items():
                setattr(inst, k, v)
        return
    if type(inst) is torch.nn.Parameter:
        if isinstance(state, dict):
            for k, v in state.items():
                setattr(inst, k, v)
        return
    if type(inst) is OrderedDict:
        inst.__dict__.update(state)
        return
    if type(inst) in _user_allowed_globals().values() and hasattr(inst, "__setstate__"):
        inst.__setstate__(state)
        return
    if type(inst) in _user_allowed_globals().values():
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
            for k, v in (slots or {}).items():
                setattr(inst, k, v)
        if state:
            inst.__dict__.update(state)
        return
    raise UnpicklingError(
        f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but got {type(inst)}")


@_op(b"e")
def _appends(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
    target.extend(items)


@_op(b"a")
def _append(u):
    item = u.stack.pop()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
    target.append(item)


@_op(b"s")
def _setitem(u):
    v = u.stack.pop()
    k = u.stack.pop()
    u.stack[-1][k] = v


@_op(b"u")
def _setitems(u):
    items = u._pop_mark()
    target = u.stack[-1]
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


@_op(b"\x90")
def _additems(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if type(target) is not set:
        raise UnpicklingError(f"Can only add items to sets, but got {type(target)}")
    target.update(items)


@_op(b"d")
def _dict(u):
    items = u._pop_mark()
    u.stack.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})


@_op(b"l")
def _list(u):
    # Pop first: `u.stack` is replaced by the pop.
    items = u._pop_mark()
    u.stack.append(items)


@_op(b"t")
def _tuple(u):
    items = u._pop_mark()
    u.stack.append(tuple(items))


@_op(b"\x91")
def _frozenset(u):
    items = u._pop_mark()
    u.stack.append(frozenset(items))


@_op(b"}")
def _empty_dict(u):
    u.stack.append({})


@_op(b"]")
def _empty_list(u):
    u.stack.append([])


@_op(b")")
def _empty_tuple(u):
    u.stack.append(())


@_op(b"\x8f")
def _empty_set(u):
    u.stack.append(set())


@_op(b"\x85")
def _tuple1(u):
    u.stack[-1] = (u.stack[-1],)


@_op(b"\x86")
def _tuple2(u):
    b = u.stack.pop()
    u.stack[-1] = (u.stack[-1], b)


@_op(b"\x87")
def _tuple3(u):
    c = u.stack.pop()
    b = u.stack.pop()
    u.stack[-1] = (u.stack[-1], b, c)


@_op(b"(")
def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


@_op(b"0")
def _pop(u):
    if u.stack:
        u.stack.pop()
    else:
        u._pop_mark()


@_op(b"1")
def _pop_mark(u):
    u._pop_mark()


@_op(b"2")
def _dup(u):
    u.stack.append(u.stack[-1])


@_op(b"N")
def _none(u):
    u.stack.append(None)


@_op(b"\x88")
def _true(u):
    u.stack.append(True)


@_op(b"\x89")
def _false(u):
    u.stack.append(False)


@_op(b"J")
def _binint(u):
    u.stack.append(struct.unpack("<i", u.read(4))[0])


@_op(b"K")
def _binint1(u):
    u.stack.append(u.read(1)[0])


@_op(b"M")
def _binint2(u):
    u.stack.append(struct.unpack("<H", u.read(2))[0])


@_op(b"I")
def _int(u):
    text = u.readline()[:-1]
    u.stack.append({b"00": False, b"01": True}.get(text) if text in (b"00", b"01") else int(text))


@_op(b"L")
def _long(u):
    u.stack.append(int(u.readline()[:-1].rstrip(b"L")))


@_op(b"\x8a")
def _long1(u):
    n = u.read(1)[0]
    u.stack.append(int.from_bytes(u.read(n), "little", signed=True))


@_op(b"\x8b")
def _long4(u):
    (n,) = struct.unpack("<i", u.read(4))
    if n < 0:
        raise UnpicklingError("LONG pickle has negative byte count")
    u.stack.append(int.from_bytes(u.read(n), "little", signed=True))


@_op(b"G")
def _binfloat(u):
    u.stack.append(struct.unpack(">d", u.read(8))[0])


@_op(b"F")
def _float(u):
    u.stack.append(float(u.readline()[:-1]))


def _string(u, data):
    if u.encoding == "bytes":
        return data
    return data.decode(u.encoding, "strict")


@_op(b"X")
def _binunicode(u):
    (n,) = struct.unpack("<I", u.read(4))
    u.stack.append(u.read(n).decode("utf-8", "surrogatepass"))


@_op(b"\x8c")
def _short_binunicode(u):
    n = u.read(1)[0]
    u.stack.append(u.read(n).decode("utf-8", "surrogatepass"))


@_op(b"\x8d")
def _binunicode8(u):
    (n,) = struct.unpack("<Q", u.read(8))
    u.stack.append(u.read(n).decode("utf-8", "surrogatepass"))


@_op(b"V")
def _unicode(u):
    u.stack.append(u.readline()[:-1].decode("raw-unicode-escape"))


@_op(b"T")
def _binstring(u):
    (n,) = struct.unpack("<i", u.read(4))
    u.stack.append(_string(u, u.read(n)))


@_op(b"U")
def _short_binstring(u):
    u.stack.append(_string(u, u.read(u.read(1)[0])))


@_op(b"C")
def _short_binbytes(u):
    u.stack.append(u.read(u.read(1)[0]))


@_op(b"B")
def _binbytes(u):
    (n,) = struct.unpack("<I", u.read(4))
    u.stack.append(u.read(n))


@_op(b"\x8e")
def _binbytes8(u):
    (n,) = struct.unpack("<Q", u.read(8))
    u.stack.append(u.read(n))


@_op(b"\x96")
def _bytearray8(u):
    (n,) = struct.unpack("<Q", u.read(8))
    u.stack.append(bytearray(u.read(n)))


@_op(b"q")
def _binput(u):
    u.memo[u.read(1)[0]] = u.stack[-1]


@_op(b"r")
def _long_binput(u):
    u.memo[struct.unpack("<I", u.read(4))[0]] = u.stack[-1]


@_op(b"p")
def _put(u):
    u.memo[int(u.readline()[:-1])] = u.stack[-1]


@_op(b"\x94")
def _memoize(u):
    u.memo[len(u.memo)] = u.stack[-1]


def _get(u, idx):
    if idx not in u.memo:
        raise UnpicklingError(f"Memo value not found at index {idx}")
    u.stack.append(u.memo[idx])


@_op(b"h")
def _binget(u):
    _get(u, u.read(1)[0])


@_op(b"j")
def _long_binget(u):
    _get(u, struct.unpack("<I", u.read(4))[0])


@_op(b"g")
def _getop(u):
    _get(u, int(u.readline()[:-1]))


@_op(b"Q")
def _binpersid(u):
    pid = u.stack.pop()
    if type(pid) is tuple and len(pid) > 0 and pid[0] == "storage":
        u.stack.append(u.persistent_load(pid))
    else:
        raise UnpicklingError(
            f"Only persistent_load of storage is allowed, but got {pid[0] if isinstance(pid, tuple) and pid else pid}")


@_op(b"P")
def _persid(u):
    raise UnpicklingError("Only persistent_load of storage is allowed, but got a text persistent id")


def load(file, *, encoding="ASCII"):
    return Unpickler(file, encoding=encoding).load()
