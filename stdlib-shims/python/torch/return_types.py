"""``torch.return_types``: the named tuples ops such as ``torch.max(x, dim)`` return."""

import operator as _operator

from torch import _C


class _ReturnType(tuple):
    """A tuple with named fields and PyTorch's structseq repr."""

    __slots__ = ()
    _fields = ()

    def __new__(cls, sequence):
        return tuple.__new__(cls, sequence)

    def __repr__(self):
        body = ",\n".join(
            "{}={!r}".format(name, value) for name, value in zip(self._fields, self)
        )
        return "torch.return_types.{}(\n{})".format(type(self).__name__, body)

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make(name, fields):
    namespace = {
        "__slots__": (),
        "_fields": tuple(fields),
        "n_fields": len(fields),
        "__module__": "torch.return_types",
        "__qualname__": name,
    }
    for i, field in enumerate(fields):
        namespace[field] = property(_operator.itemgetter(i))
    return type(name, (_ReturnType,), namespace)


for _name, _fields in _C._return_types().items():
    globals()[_name] = _make(_name, _fields)
# Named tuples of functions written in Python over registry ops (``torch._refs*``).
for _name, _fields in (
    ("aminmax", ("min", "max")),
    ("median", ("values", "indices")),
    ("kthvalue", ("values", "indices")),
    ("nanmedian", ("values", "indices")),
    ("frexp", ("mantissa", "exponent")),
):
    if _name not in globals():
        globals()[_name] = _make(_name, _fields)
del _name, _fields
