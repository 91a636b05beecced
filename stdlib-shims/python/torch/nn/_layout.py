"""Which memory format a composed op's result takes, for the ops written here in Python over
others (conv3d, interpolate): ATen's kernels give their result the layout their input suggests
(`Tensor.suggest_memory_format`), and the native ones here follow `rynamo_tensor::memory_format`.

Only dense inputs are read as channels-last (`is_contiguous(memory_format=...)`); ATen's rule
also reads a sliced channels-last tensor so, which here stays row-major."""
import torch


def suggested(t):
    """The format a dense `t` is laid out in: row-major wins ambiguous shapes (`N111`), as ATen's."""
    if t.is_contiguous():
        return torch.contiguous_format
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d):
        return torch.channels_last_3d
    return torch.contiguous_format


def conv_format(x, w):
    """ATen's CPU convolution: channels-last(-3d) when the input or the weight is."""
    for t in (x, w):
        f = suggested(t)
        if f is not torch.contiguous_format and x.dim() == w.dim():
            return f
    return torch.contiguous_format
