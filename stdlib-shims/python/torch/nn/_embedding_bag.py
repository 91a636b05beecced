"""``F.embedding_bag``: sums, means or maxima of bags of embedding rows without materialising each
bag. A bag is a row of a 2-D ``input``, or a run of a 1-D ``input`` starting at each ``offsets``
entry. The rows are gathered once, each index tagged with its bag, and reduced per bag by
``index_add`` (sum, mean) or ``scatter_reduce`` (max), so gradients come from those ops' formulas.
Indices equal to ``padding_idx`` are skipped (not counted in a mean); an empty bag gives zeros."""

import torch

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _bags(input, offsets, include_last_offset):
    """(flat indices, the bag of each, the number of bags, which indices belong to a bag)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"{type(offsets)}")
        n_bags, length = input.shape
        bag = torch.arange(n_bags).repeat_interleave(length)
        return input.reshape(-1), bag, n_bags, torch.ones(input.numel(), dtype=torch.bool)
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if offsets.numel() and int(offsets[0]) != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offsets[0])}")
    starts = offsets[:-1] if include_last_offset else offsets
    n_bags = starts.shape[0]
    positions = torch.arange(input.shape[0], dtype=offsets.dtype)
    bag = torch.searchsorted(starts.contiguous(), positions, right=True) - 1
    if include_last_offset:
        ends = offsets[1:]
    else:
        ends = torch.cat([offsets[1:], torch.tensor([input.shape[0]], dtype=offsets.dtype)])
    # An index past the last offset of `include_last_offset` is summed into no bag (`searchsorted`
    # still files it under the last one, where PyTorch counts it for a mean).
    keep = positions < ends[-1] if n_bags else positions < 0
    return input, bag, n_bags, keep


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if weight.dtype == torch.long and input.is_floating_point():
        input, weight = weight, input  # the argument order PyTorch still accepts, with a warning
    if input.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding_bag)")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if per_sample_weights.shape != input.shape:
            raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                             f"then it must have the same shape as the input ({input.shape})")
    if padding_idx is not None:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} through {n - 1}, but got "
                               f"{padding_idx}")
        padding_idx %= n
    if max_norm is not None:
        torch.nn.functional._embedding_renorm_(weight, input, max_norm, norm_type)
    flat, bag, n_bags, in_bag = _bags(input, offsets, include_last_offset)
    not_pad = flat != padding_idx if padding_idx is not None else torch.ones(flat.shape, dtype=torch.bool)
    keep = in_bag & not_pad
    rows = weight.index_select(0, flat.reshape(-1).long())
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    mask = keep.reshape(-1, 1).to(rows.dtype)
    dim = weight.shape[1]
    if mode == "max":
        out = torch.zeros(n_bags, dim, dtype=weight.dtype)
        lowest = torch.finfo(rows.dtype).min
        rows = torch.where(keep.reshape(-1, 1), rows, torch.full_like(rows, lowest))
        index = bag.reshape(-1, 1).expand(-1, dim)
        out = out.scatter_reduce(0, index, rows, "amax", include_self=False)
        counts = torch.zeros(n_bags, dtype=rows.dtype).index_add(0, bag, keep.to(rows.dtype))
        return torch.where(counts.reshape(-1, 1) > 0, out, torch.zeros_like(out))
    out = torch.zeros(n_bags, dim, dtype=weight.dtype).index_add(0, bag, rows * mask)
    if mode == "mean":
        # PyTorch's count of the last bag runs to the end of `input`, even past the final offset of
        # `include_last_offset` (whose indices are not summed): counted here the same way.
        counts = torch.zeros(n_bags, dtype=rows.dtype).index_add(0, bag, not_pad.to(rows.dtype))
        out = out / counts.clamp(min=1).reshape(-1, 1)
    return out
