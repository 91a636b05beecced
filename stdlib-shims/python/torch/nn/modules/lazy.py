"""Lazy modules: layers whose input size is read from the first input. Until then their
parameters and buffers are ``UninitializedParameter``/``UninitializedBuffer``; a forward pre-hook
materialises them at the first call, runs ``reset_parameters`` (so a seed gives PyTorch's weights,
drawn at that call), and the module becomes its ordinary class (``LazyLinear`` -> ``Linear``).

Optimizers made before the first call hold the same parameter objects, which keep their identity
when materialised; still, as in PyTorch, run one forward before building the optimizer."""

import torch
from torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from torch.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from torch.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from torch.nn.modules.linear import Linear
from torch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyLinear", "LazyModuleMixin"]


class LazyModuleMixin:
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors if t is not None)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    @staticmethod
    def _infer_parameters(module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _reset_if_ready(self, size):
        """The base class's ``reset_parameters`` once the inferred ``size`` is known."""
        if not self.has_uninitialized_params() and size != 0:
            super().reset_parameters()


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        self._reset_if_ready(self.in_features)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with torch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    _spatial = 2

    def _lazy_init(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        self._reset_if_ready(self.in_channels)

    def _get_in_channels(self, input):
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with torch.no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(name, base, spatial, transposed):
    """A lazy class over convolution ``base`` (its constructor without ``in_channels``)."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, bias=True, device=None, dtype=None,
                 **kwargs):
        if transposed:
            # ConvTranspose(in, out, kernel, stride, padding, output_padding, groups, bias, dilation, padding_mode)
            output_padding = rest[0] if len(rest) > 0 else kwargs.pop("output_padding", 0)
            groups = rest[1] if len(rest) > 1 else kwargs.pop("groups", 1)
            bias = rest[2] if len(rest) > 2 else bias
            dilation = rest[3] if len(rest) > 3 else kwargs.pop("dilation", 1)
            padding_mode = rest[4] if len(rest) > 4 else kwargs.pop("padding_mode", "zeros")
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                          padding_mode)
        else:
            # Conv(in, out, kernel, stride, padding, dilation, groups, bias, padding_mode)
            dilation = rest[0] if len(rest) > 0 else kwargs.pop("dilation", 1)
            groups = rest[1] if len(rest) > 1 else kwargs.pop("groups", 1)
            bias = rest[2] if len(rest) > 2 else bias
            padding_mode = rest[3] if len(rest) > 3 else kwargs.pop("padding_mode", "zeros")
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        if kwargs:
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        self._lazy_init(out_channels, bias, dtype)

    return type(name, (_LazyConvMixin, base), {"__init__": __init__, "cls_to_become": base, "_spatial": spatial,
                                              "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, 1, False)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, 2, False)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, 3, False)
LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, 1, True)
LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, 2, True)
LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, 3, True)


class _LazyNormMixin(LazyModuleMixin):
    def _lazy_init(self, affine, track_running_stats, dtype):
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = torch.tensor(0, dtype=torch.long)

    def reset_parameters(self):
        self._reset_if_ready(self.num_features)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, base):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        base.__init__(self, 0, eps, momentum, False, False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        self._lazy_init(affine, track_running_stats, dtype)

    return type(name, (_LazyNormMixin, base), {"__init__": __init__, "cls_to_become": base, "__module__": __name__})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)


# PyTorch's LazyInstanceNorm defaults are the lazy batch norms' (affine=True,
# track_running_stats=True), unlike the eager InstanceNorm's False/False.
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d)
