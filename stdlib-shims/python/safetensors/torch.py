"""``safetensors.torch``: save and load dicts of tensors in the safetensors format (a JSON header
then raw little-endian bytes), interoperable with the ``safetensors`` Python package."""

import os

import _rynamo_safetensors as _native
import _rynamo_serialization as _ser

import torch
from safetensors import SafetensorError, _wrap, safe_open

__all__ = ["save", "save_file", "load", "load_file", "safe_open"]


def _items(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    invalid = {k for k, v in tensors.items() if not isinstance(v, torch.Tensor)}
    if invalid:
        raise ValueError(f"Key `{sorted(invalid)[0]}` is invalid, expected torch.Tensor but received "
                         f"{type(tensors[sorted(invalid)[0]])}")
    _check_shared(tensors)
    return [(k, v) for k, v in tensors.items()]


def _check_shared(tensors):
    """Tensors sharing memory would be written twice and come back unshared: refused, as the
    package does."""
    groups = {}
    for name, t in tensors.items():
        if t.numel() == 0:
            continue
        key = _ser.storage_key(t)[0]
        groups.setdefault(key, []).append(name)
    shared = [sorted(names) for names in groups.values() if len(names) > 1]
    if shared:
        raise RuntimeError(
            f"\n            Some tensors share memory, this will lead to duplicate memory on disk and potential "
            f"differences when loading them again: {shared}.\n            A potential way to correctly save your "
            "model is to use `save_model`.\n            More information at "
            "https://huggingface.co/docs/safetensors/torch_shared_tensors\n            ")


def _metadata(metadata):
    if metadata is None:
        return None
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in metadata.items()):
        raise ValueError("metadata must be a dict of str to str")
    return metadata


def save(tensors, metadata=None):
    """The safetensors bytes of ``tensors`` (a dict name -> contiguous tensor)."""
    return _wrap(_native.serialize, _items(tensors), _metadata(metadata))


def save_file(tensors, filename, metadata=None):
    """Writes ``tensors`` to ``filename``."""
    _wrap(_native.serialize_file, _items(tensors), _metadata(metadata), os.fspath(filename))


def load(data):
    """Tensors from safetensors bytes."""
    f = safe_open._from_bytes(data)
    return {k: f.get_tensor(k) for k in f.offset_keys()}


def load_file(filename, device="cpu"):
    """Tensors from a safetensors file (viewing its memory map; no copy)."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.offset_keys()}


def save_model(model, filename, metadata=None, force_contiguous=False):
    """``model.state_dict()`` to ``filename``, keeping one name per shared tensor."""
    state = model.state_dict()
    seen = {}
    out = {}
    for name, t in state.items():
        key = (_ser.storage_key(t)[0], t.storage_offset(), tuple(t.shape)) if t.numel() else None
        if key is not None and key in seen:
            continue
        seen[key] = name
        out[name] = t.contiguous() if force_contiguous else t
    save_file(out, filename, metadata)


def load_model(model, filename, strict=True, device="cpu"):
    state = load_file(filename, device=device)
    return model.load_state_dict(state, strict=strict)


