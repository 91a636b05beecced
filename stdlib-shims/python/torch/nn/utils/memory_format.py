"""``convert_conv2d_weight_memory_format`` / ``convert_conv3d_weight_memory_format``: the weights of
every (transposed) convolution in a module, recursively, re-laid out in ``memory_format``
(``torch.channels_last`` / ``torch.channels_last_3d``). Values are unchanged; only strides move."""

import torch


def _convert(module, memory_format, classes):
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    return _convert(module, memory_format, (torch.nn.Conv2d, torch.nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    return _convert(module, memory_format, (torch.nn.Conv3d, torch.nn.ConvTranspose3d))
