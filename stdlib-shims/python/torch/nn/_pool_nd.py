"""Adaptive max/average pools in 1-3 dims and fractional max pools in 2-3 dims, composed of slices,
reductions and gathers (gradients from those ops' formulas; Dynamo unrolls the window loops).

Adaptive windows follow ATen: output ``i`` of ``out`` covers input ``[floor(i * in / out),
ceil((i + 1) * in / out))``. Box windows are separable: the max (or mean) over a box is the max
(mean) along one dim of the maxima (means) along the others, and reducing the last dim first and
taking the first maximum at each step gives ATen's row-major first index.

Fractional windows follow ATen's ``generate_intervals``: with ``alpha = (in - k) / (out - 1)`` in the
input's dtype, window ``i`` starts at ``int((i + u) * alpha) - int(u * alpha)`` and the last at
``in - k``; ``u`` is one sample per (batch, channel, dim), so windows differ per plane and the
pool is a gather of every window element followed by a max."""

import torch


def _sizes(output_size, nd, in_sizes):
    if isinstance(output_size, (list, tuple)):
        out = list(output_size)
        if len(out) != nd:
            raise ValueError(f"output_size must have {nd} elements")
    else:
        out = [output_size] * nd
    return [in_sizes[i] if out[i] is None else int(out[i]) for i in range(nd)]


def _check(input, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for d in range(1 if input.dim() == nd + 2 else 0, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {d} being empty")


def _windows(n_in, n_out):
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


def adaptive_max_pool(input, output_size, nd, return_indices, name):
    _check(input, nd, name)
    spatial = list(input.shape[input.dim() - nd:])
    out_sizes = _sizes(output_size, nd, spatial)
    x = input
    idx = None  # flat spatial index of each kept element, same shape as x
    # Last dim first: each step keeps the first maximum of a window and carries its flat index.
    stride = 1
    for k in range(nd - 1, -1, -1):
        dim = input.dim() - nd + k
        vals, args = [], []
        for lo, hi in _windows(spatial[k], out_sizes[k]):
            v, a = x.narrow(dim, lo, hi - lo).max(dim, keepdim=True)
            vals.append(v)
            if idx is None:
                args.append(a + lo)
            else:
                args.append(idx.narrow(dim, lo, hi - lo).gather(dim, a) + (a + lo) * stride)
        x = torch.cat(vals, dim)
        idx = torch.cat(args, dim)
        stride *= spatial[k]
    if return_indices:
        return x, idx
    return x


def adaptive_avg_pool(input, output_size, nd, name):
    _check(input, nd, name)
    spatial = list(input.shape[input.dim() - nd:])
    out_sizes = _sizes(output_size, nd, spatial)
    x = input
    for k in range(nd - 1, -1, -1):
        dim = input.dim() - nd + k
        x = torch.cat([x.narrow(dim, lo, hi - lo).mean(dim, keepdim=True)
                       for lo, hi in _windows(spatial[k], out_sizes[k])], dim)
    return x


def _tuple(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, samples, nd):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    spatial = list(x.shape[2:])
    ksize = _tuple(kernel_size, nd)
    if output_size is None:
        ratio = _tuple(output_ratio, nd)
        out_sizes = [int(spatial[i] * ratio[i]) for i in range(nd)]
    else:
        out_sizes = _tuple(output_size, nd)
    if samples is None:
        samples = torch.rand(x.shape[0], x.shape[1], nd, dtype=input.dtype, device=input.device)
    names = ["height", "width"] if nd == 2 else ["time", "height", "width"]
    for i in range(nd):
        if out_sizes[i] + ksize[i] - 1 > spatial[i]:
            raise RuntimeError(f"{name}_out(): pool {names[i]} {ksize[i]} too large relative to input {names[i]} "
                               f"{spatial[i]}" if nd == 3 else
                               f"{name}(): pool {names[i]} {ksize[i]} too large relative to input {names[i]} "
                               f"{spatial[i]}")
    n, c = x.shape[0], x.shape[1]
    # ATen's 2-D kernel reads the width's sample first; the 3-D one reads time, height, width.
    order = [1, 0] if nd == 2 else [0, 1, 2]
    flat = torch.zeros(n, c, *[1] * (2 * nd), dtype=torch.int64)
    stride = 1
    for k in range(nd - 1, -1, -1):
        u = samples[:, :, order[k]].to(input.dtype)
        starts = _interval_starts(u, spatial[k], out_sizes[k], ksize[k], input.dtype)  # (N, C, out)
        pos = starts.unsqueeze(-1) + torch.arange(ksize[k])  # (N, C, out, k)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + k] = out_sizes[k]
        shape[2 + nd + k] = ksize[k]
        flat = flat + pos.reshape(shape) * stride
        stride *= spatial[k]
    gathered = x.reshape(n, c, -1).gather(2, flat.reshape(n, c, -1))
    windows = gathered.reshape([n, c] + out_sizes + [-1])
    flat = flat.reshape([n, c] + out_sizes + [-1])
    values, arg = windows.max(-1)
    indices = flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def _interval_starts(u, n_in, n_out, k, dtype):
    """``(N, C, n_out)`` window starts from samples ``u`` ``(N, C)``, computed in ``dtype`` as ATen does."""
    if n_out == 1:
        return torch.full(list(u.shape) + [1], n_in - k, dtype=torch.int64)
    alpha = torch.tensor(float(n_in - k), dtype=dtype) / torch.tensor(float(n_out - 1), dtype=dtype)
    i = torch.arange(n_out - 1, dtype=dtype)
    u = u.unsqueeze(-1)
    starts = ((i + u) * alpha).to(torch.int64) - (u * alpha).to(torch.int64)
    last = torch.full(list(u.shape[:-1]) + [1], n_in - k, dtype=torch.int64)
    return torch.cat([starts, last], -1)
