"""``torch.save`` / ``torch.load`` in PyTorch's formats.

The zip format (PyTorch's default since 1.6): ``<archive>/data.pkl`` is a protocol-2 pickle whose
tensors reduce to ``torch._utils._rebuild_tensor_v2`` over storages named by persistent ids
``('storage', torch.FloatStorage, key, 'cpu', numel)``; each storage's bytes are the record
``<archive>/data/<key>``, stored uncompressed at a 64-byte-aligned offset (the zip extra field
``FB`` pads the local header, as PyTorch's writer does; ``_zip_writer.py``), so ``mmap=True`` can view them in place.
``byteorder``, ``version``, ``.format_version``, ``.storage_alignment`` and
``.data/serialization_id`` are written as PyTorch writes them. Files from PyTorch load here and
files written here load in PyTorch. The legacy (pre-1.6) pickle-stream format loads too.

``torch.load`` defaults to ``weights_only=True`` (PyTorch 2.6+): the restricted unpickler of
``torch._weights_only_unpickler`` refuses anything off its allowlist with PyTorch's error. Storage
bytes move natively (``_rynamo_serialization``): one read per storage from the file, or a private
memory map with ``mmap=True``.
"""

import io
import os
import pickle
import struct
import sys
import zipfile
import zlib
from collections import OrderedDict
from contextlib import contextmanager

import _rynamo_serialization as _native

import torch
from torch import _weights_only_unpickler
from torch._zip_writer import ZipRecordWriter
from torch.storage import TypedStorage, UntypedStorage, _LegacyStorage, storage_class_for

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "DEFAULT_PROTOCOL", "LoadEndianness", "get_default_load_endianness", "set_default_load_endianness"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_ALIGNMENT = 64
_FORMAT_VERSION = 3

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` "
    "to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
    "result in arbitrary code execution. Do it only if you got the file from a trusted source."
)
DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html."
)


def add_safe_globals(safe_globals):
    """Allows these classes/functions in ``weights_only`` loads."""
    _weights_only_unpickler._add_safe_globals(safe_globals)


def get_safe_globals():
    return _weights_only_unpickler._get_safe_globals()


def clear_safe_globals():
    _weights_only_unpickler._clear_safe_globals()


@contextmanager
def safe_globals(safe_globals):
    """Allows ``safe_globals`` for the duration of the block."""
    added = set(safe_globals) - set(get_safe_globals())
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _weights_only_unpickler._remove_safe_globals(added)


class LoadEndianness:
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endianness = None


def get_default_load_endianness():
    return _default_load_endianness


def set_default_load_endianness(endianness):
    global _default_load_endianness
    _default_load_endianness = endianness


def _get_layout(name):
    if name == "torch.strided":
        return torch.strided
    raise RuntimeError(f"Rynamo has only strided tensors, not {name}")


def _path_of(f):
    if isinstance(f, (str, bytes)):
        return os.fsdecode(f)
    if isinstance(f, os.PathLike):
        return os.fspath(f)
    return None


def _describe(f):
    path = _path_of(f)
    return path if path is not None else getattr(f, "name", repr(f))


# ======================================================================= save


class _Saver(pickle.Pickler):
    """Pickles tensors as PyTorch does: ``_rebuild_tensor_v2`` over a storage persistent id."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol=protocol)
        self.storages = {}  # key -> flat tensor
        self._keys = {}  # storage identity -> (key, dtype)

    def reducer_override(self, obj):
        if isinstance(obj, torch.Tensor):
            return _reduce_tensor(obj)
        return NotImplemented

    def persistent_id(self, obj):
        if not isinstance(obj, _StorageRef):
            return None
        ident, nbytes = obj.ident
        dtype = obj.dtype
        if ident in self._keys:
            key, saved_dtype = self._keys[ident]
            if saved_dtype != dtype:
                raise RuntimeError(
                    "Cannot save multiple tensors or storages that view the same data as different types")
        else:
            key = str(len(self._keys))
            self._keys[ident] = (key, dtype)
            self.storages[key] = obj.tensor
        itemsize = obj.tensor.element_size()
        if nbytes % itemsize != 0:
            raise RuntimeError(
                f"storage of {nbytes} bytes cannot be saved as {dtype}: not a whole number of elements")
        return ("storage", storage_class_for(dtype), key, "cpu", nbytes // itemsize)


class _StorageRef:
    """What a tensor's reduction names as its storage; becomes a persistent id when pickled."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.dtype = tensor.dtype
        self.ident = _native.storage_key(tensor)


def _reduce_tensor(t):
    args = (_StorageRef(t), t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
    state = getattr(t, "__dict__", None)
    if isinstance(t, torch.nn.Parameter):
        data = torch.Tensor._make_subclass(torch.Tensor, t, False)
        if state:
            return (torch._utils._rebuild_parameter_with_state, (data, t.requires_grad, OrderedDict(), state))
        return (torch._utils._rebuild_parameter, (data, t.requires_grad, OrderedDict()))
    return (torch._utils._rebuild_tensor_v2, args)


def _archive_name(f):
    path = _path_of(f)
    if path is None:
        return "archive"
    return os.path.splitext(os.path.basename(path))[0] or "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves ``obj`` to ``f`` (a path or a writable binary file) in PyTorch's zip format."""
    if not _use_new_zipfile_serialization:
        raise RuntimeError("Rynamo writes only the zip format (_use_new_zipfile_serialization=True); "
                           "the legacy format can be loaded but not written")
    buf = io.BytesIO()
    pickler = _Saver(buf, pickle_protocol)
    pickler.dump(obj)
    path = _path_of(f)
    out = open(path, "wb") if path is not None else f
    try:
        writer = ZipRecordWriter(out, _archive_name(f))
        writer.write("data.pkl", buf.getvalue())
        writer.write(".format_version", b"1")
        writer.write(".storage_alignment", b"64")
        if not _disable_byteorder_record:
            writer.write("byteorder", sys.byteorder.encode())
        for key in sorted(pickler.storages):
            t = pickler.storages[key]
            writer.write_storage(f"data/{key}", t, _native.storage_key(t)[1])
        writer.write("version", b"%d\n" % _FORMAT_VERSION)
        writer.close()
    finally:
        if path is not None:
            out.close()


# ======================================================================= load


def _check_location(location, map_location):
    """The device a storage saved at ``location`` goes to; only the CPU exists here."""
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif isinstance(map_location, (str, torch.device)):
        location = str(map_location)
    if str(location).startswith("cuda"):
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
            "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
            "map your storages to the CPU.")
    if str(location) not in ("cpu", "meta") and not str(location).startswith("cpu"):
        raise RuntimeError(f"don't know how to restore data location of {location}")


def _storage_dtype(storage_type):
    if isinstance(storage_type, type) and issubclass(storage_type, _LegacyStorage):
        return storage_type.dtype
    if storage_type is UntypedStorage:
        return torch.uint8
    if isinstance(storage_type, torch.dtype):
        return storage_type
    raise RuntimeError(f"unknown storage type {storage_type}")


def _restore(flat, storage_type, location, map_location):
    cls = storage_type if isinstance(storage_type, type) and issubclass(storage_type, TypedStorage) else UntypedStorage
    storage = cls.__new__(cls)
    storage._tensor = flat
    if callable(map_location):
        result = map_location(storage, location)
        if result is not None:
            return result
    _check_location(location, map_location)
    return storage


def _byteswap(flat):
    size = flat.element_size()
    if size == 1:
        return flat
    raw = flat.view(torch.uint8).reshape(-1, size).flip(1).contiguous()
    return raw.reshape(-1).view(flat.dtype)


def _unpickler(data_file, weights_only, pickle_module, persistent_load, encoding):
    if weights_only:
        u = _weights_only_unpickler.Unpickler(data_file, encoding=encoding)
        u.persistent_load = persistent_load
        return u

    class FullUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if module == "torch.tensor":
                module = "torch._tensor"
            if "Storage" in name and module == "torch":
                import torch.storage as st
                return st._legacy_classes.get(name) or getattr(st, name)
            return super().find_class(module, name)

    u = FullUnpickler(data_file, encoding=encoding)
    u.persistent_load = persistent_load
    return u


class _ZipReader:
    """The records of a checkpoint zip, with the byte offset of each record's data."""

    def __init__(self, f, name):
        try:
            self.zip = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, EOFError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central directory "
                               f"({name}: {e})") from None
        names = self.zip.namelist()
        if not names:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: no records ({name})")
        self.prefix = names[0].split("/", 1)[0]
        for n in names:
            if not n.startswith(self.prefix + "/"):
                raise RuntimeError(f"PytorchStreamReader failed reading zip archive: file in archive is not in a "
                                   f"subdirectory {self.prefix}/: {n} ({name})")
        self.names = set(names)
        self.fp = f
        self.name = name

    def has(self, record):
        return f"{self.prefix}/{record}" in self.names

    def read(self, record):
        try:
            return self.zip.read(f"{self.prefix}/{record}")
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {record}: file not found ({self.name})") \
                from None
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {record}: {e} ({self.name})") from None

    def data_offset(self, record):
        """(offset of the record's bytes in the file, size): read from its local header."""
        try:
            info = self.zip.getinfo(f"{self.prefix}/{record}")
        except KeyError:
            # A persistent id naming a record the archive lacks (corrupt or malicious): as `read`.
            raise RuntimeError(f"PytorchStreamReader failed locating file {record}: file not found ({self.name})") \
                from None
        if info.compress_type != zipfile.ZIP_STORED:
            return None
        self.fp.seek(info.header_offset)
        header = self.fp.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {record}: bad local header ({self.name})")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len, info.file_size


def _load_zip(reader, path, map_location, pickle_module, weights_only, mmap, encoding):
    if reader.has("constants.pkl"):
        raise RuntimeError(f"{reader.name} is a TorchScript archive; torch.jit.load is not supported by Rynamo")
    byteorder = reader.read("byteorder").decode() if reader.has("byteorder") else None
    if byteorder is None:
        byteorder = "big" if _default_load_endianness == LoadEndianness.BIG else "little"
    loaded = {}

    def persistent_load(saved_id):
        typename, storage_type, key, location, numel = saved_id[:5]
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {typename}")
        if key not in loaded:
            dtype = _storage_dtype(storage_type)
            record = f"data/{key}"
            nbytes = numel * torch.empty(0, dtype=dtype).element_size()
            span = reader.data_offset(record) if path is not None else None
            if span is not None:
                offset, size = span
                if size != nbytes:
                    raise RuntimeError(f"{reader.name}: record {record} holds {size} bytes, expected {nbytes}")
                flat = _native.storage_from_file(path, offset, nbytes, dtype, mmap)
            else:
                flat = _native.storage_from_buffer(reader.read(record), dtype)
                if flat.numel() != numel:
                    raise RuntimeError(f"{reader.name}: record {record} holds {flat.numel()} elements, expected {numel}")
            if byteorder != sys.byteorder:
                flat = _byteswap(flat)
            loaded[key] = _restore(flat, storage_type, location, map_location)
        return loaded[key]

    data = io.BytesIO(reader.read("data.pkl"))
    return _unpickler(data, weights_only, pickle_module, persistent_load, encoding).load()


def _load_legacy(f, map_location, pickle_module, weights_only, encoding, name):
    """The pre-1.6 format: pickled magic number, protocol version and system info, the object
    pickle, the list of storage keys, then each storage as an int64 element count and its bytes."""
    def small(obj_file):
        if weights_only:
            return _weights_only_unpickler.load(obj_file, encoding=encoding)
        return pickle_module.load(obj_file, encoding=encoding)

    try:
        magic = small(f)
    except (pickle.UnpicklingError, EOFError, ValueError, struct.error) as e:
        raise RuntimeError(f"{name} is not a PyTorch checkpoint: neither a zip archive nor a legacy pickle "
                           f"stream ({e})") from None
    if magic != MAGIC_NUMBER:
        raise RuntimeError(f"Invalid magic number; corrupt file? ({name})")
    version = small(f)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = small(f)
    if not sys_info.get("little_endian", True):
        raise RuntimeError("big-endian legacy checkpoints are not supported")
    pending = {}

    def persistent_load(saved_id):
        typename = saved_id[0]
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {typename}")
        storage_type, key, location, numel, view_metadata = saved_id[1:6]
        if view_metadata is not None:
            raise RuntimeError(f"legacy storage views are not supported (view of storage {key})")
        if key not in pending:
            # The bytes follow the object pickle: tensors are rebuilt over a zeroed storage that is
            # filled in place afterwards (so every view sees the data).
            dtype = _storage_dtype(storage_type)
            flat = torch.zeros(numel, dtype=dtype)
            pending[key] = (dtype, numel, _restore(flat, storage_type, location, map_location))
        return pending[key][2]

    result = _unpickler(f, weights_only, pickle_module, persistent_load, encoding).load()
    keys = small(f)
    for key in keys:
        dtype, numel, storage = pending[key]
        (count,) = struct.unpack("<q", f.read(8))
        itemsize = torch.empty(0, dtype=dtype).element_size()
        data = f.read(count * itemsize)
        if count != numel or len(data) != count * itemsize:
            raise RuntimeError(f"storage {key} is truncated or mismatched: {len(data)} bytes for {numel} elements")
        storage._tensor.copy_(_native.storage_from_buffer(data, dtype))
    return result


def _is_zip(f):
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


def _wo_message(message):
    if "GLOBAL" in message and "was not an allowed global by default" in message:
        text = ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message)
    else:
        text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if "is blocked" not in message:
            text += ("Please file an issue with the following so that we can make `weights_only=True` compatible "
                     "with your use case: WeightsUnpickler error: ")
        text += "\n\n" + message
    return text + DOCS_MESSAGE


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Loads an object saved with ``torch.save`` (by PyTorch or Rynamo)."""
    true_values = ["1", "y", "yes", "true"]
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_wo and force_no_wo:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if weights_only is None:
        weights_only = pickle_module is None
    if force_wo:
        weights_only = True
    elif force_no_wo:
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_module is None:
        pickle_module = pickle
    encoding = pickle_load_args.pop("encoding", "utf-8")
    path = _path_of(f)
    if mmap and path is None:
        raise ValueError("f must be a file path in order to use the mmap argument")
    name = _describe(f)
    fileobj = open(path, "rb") if path is not None else f
    try:
        if _is_zip(fileobj):
            reader = _ZipReader(fileobj, name)
            load_fn = lambda: _load_zip(reader, path, map_location, pickle_module, weights_only, bool(mmap), encoding)  # noqa: E731
        else:
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with `torch.save(_use_new_zipfile_"
                                   "serialization=True), please torch.save your checkpoint with this option in "
                                   "order to use mmap.")
            load_fn = lambda: _load_legacy(fileobj, map_location, pickle_module, weights_only, encoding, name)  # noqa: E731
        if not weights_only:
            try:
                return load_fn()
            except (EOFError, struct.error, zipfile.BadZipFile) as e:
                raise RuntimeError(f"{name}: truncated or corrupt checkpoint ({type(e).__name__}: {e})") from None
        try:
            return load_fn()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_wo_message(str(e))) from None
        except (EOFError, struct.error, zipfile.BadZipFile) as e:
            raise RuntimeError(f"{name}: truncated or corrupt checkpoint ({type(e).__name__}: {e})") from None
    finally:
        if path is not None:
            fileobj.close()
