"""The padding layers: ``ConstantPad``/``ZeroPad``/``ReflectionPad``/``ReplicationPad``/``CircularPad``
in 1, 2 and 3 dims, each a ``F.pad`` call with the module's padding in ``F.pad``'s order
(last dim first, ``(left, right, top, bottom, front, back)``)."""

from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.modules.utils import _ntuple

_WIDTH = {1: _ntuple(2, "_pair"), 2: _ntuple(4, "_quadruple"), 3: _ntuple(6, "_sextuple")}


class _PadNd(Module):
    __constants__ = ["padding"]
    _nd = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _WIDTH[self._nd](padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class CircularPad1d(_CircularPadNd):
    _nd = 1


class CircularPad2d(_CircularPadNd):
    _nd = 2


class CircularPad3d(_CircularPadNd):
    _nd = 3


class ReflectionPad1d(_ReflectionPadNd):
    _nd = 1


class ReflectionPad2d(_ReflectionPadNd):
    _nd = 2


class ReflectionPad3d(_ReflectionPadNd):
    _nd = 3


class ReplicationPad1d(_ReplicationPadNd):
    _nd = 1


class ReplicationPad2d(_ReplicationPadNd):
    _nd = 2


class ReplicationPad3d(_ReplicationPadNd):
    _nd = 3


class ConstantPad1d(_ConstantPadNd):
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    _nd = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
