"""``default_collate`` / ``default_convert`` (PyTorch's ``torch.utils.data._utils.collate``):
stack tensors, turn numbers into tensors, recurse through mappings, namedtuples and sequences."""

import collections.abc
import re

import torch

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")

np_str_obj_array_pattern = re.compile(r"[SaUO]")


def _collate_tensor(batch, *, collate_fn_map=None):
    return torch.stack(batch, 0)


def _collate_float(batch, *, collate_fn_map=None):
    return torch.tensor(batch, dtype=torch.float64)


def _collate_int(batch, *, collate_fn_map=None):
    return torch.tensor(batch)


def _collate_str(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    torch.Tensor: _collate_tensor,
    float: _collate_float,
    int: _collate_int,
    str: _collate_str,
    bytes: _collate_str,
}


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` (a list of samples) by the type of its first element, looking the type
    (then its bases) up in ``collate_fn_map``."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for base in collate_fn_map:
            if isinstance(elem, base):
                return collate_fn_map[base](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = elem.copy()
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = elem.copy()
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Stacks tensors, makes float64/int64 tensors of numbers, keeps strings, and recurses into
    dicts, namedtuples and sequences (tuples come back as lists, as in PyTorch)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """What each sample goes through without auto-batching: containers rebuilt, everything else
    unchanged (NumPy arrays would become tensors)."""
    elem_type = type(data)
    if isinstance(data, torch.Tensor):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = data.copy()
                clone.update({k: default_convert(v) for k, v in data.items()})
                return clone
            return elem_type({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = data.copy()
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
