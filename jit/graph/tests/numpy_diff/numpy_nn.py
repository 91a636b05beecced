"""Float64 references of the neural-network ops NumPy lacks (convolution, pooling, norms, losses,
attention), for numpy_ref.py. Written from the PyTorch definitions, independently of the kernels.
"""

import math

import numpy as np


def _softmax(x, dim, log=False):
    m = np.max(x, axis=dim, keepdims=True) if x.size else x
    e = np.exp(x - m)
    s = np.sum(e, axis=dim, keepdims=True)
    return (x - m - np.log(s)) if log else e / s


def pad_ref(x, p, mode, value):
    width = [(0, 0)] * x.ndim
    for i in range(len(p) // 2):
        width[x.ndim - 1 - i] = (p[2 * i], p[2 * i + 1])
    if mode == "constant":
        crop = tuple(slice(max(-a, 0), x.shape[d] - max(-b, 0)) for d, (a, b) in enumerate(width))
        x = x[crop]
        w = [(max(a, 0), max(b, 0)) for a, b in width]
        return np.pad(x, w, mode="constant", constant_values=0 if value is None else value)
    m = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(x, width, mode=m)


def conv(x, w, b, stride, padding, dilation, groups, nd):
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x[None]
    k = w.shape[2:]
    exp = lambda v: list(v) * nd if len(v) == 1 else list(v)
    st, dl = exp(stride), exp(dilation)
    eff = [dl[i] * (k[i] - 1) + 1 for i in range(nd)]
    if isinstance(padding, str):
        lo = [0] * nd if padding == "valid" else [(e - 1) // 2 for e in eff]
        hi = [0] * nd if padding == "valid" else [(e - 1) - (e - 1) // 2 for e in eff]
    else:
        lo = hi = exp(padding)
    x = np.pad(x, [(0, 0), (0, 0)] + [(lo[i], hi[i]) for i in range(nd)])
    n, c = x.shape[:2]
    out_sp = [(x.shape[2 + i] - eff[i]) // st[i] + 1 for i in range(nd)]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out = np.zeros((n, o) + tuple(out_sp))
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og]
        for kk in np.ndindex(*k):
            sl = tuple(slice(kk[i] * dl[i], kk[i] * dl[i] + st[i] * (out_sp[i] - 1) + 1, st[i])
                       for i in range(nd))
            patch = xs[(slice(None), slice(None)) + sl]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, ws[(slice(None), slice(None)) + kk])
    if b is not None:
        out += b.reshape((1, o) + (1,) * nd)
    return out[0] if unbatched else out


def pool_windows(h, k, s, p, d, ceil):
    num = h + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil else num // s) + 1
    if ceil and (out - 1) * s >= h + p:
        out -= 1
    return out


def max_pool2d(x, k, s, p, d, ceil):
    two = lambda v: (v[0], v[0]) if len(v) == 1 else tuple(v)
    k, p, d = two(k), two(p), two(d)
    s = k if len(s) == 0 else two(s)
    H, W = x.shape[-2:]
    oh, ow = pool_windows(H, k[0], s[0], p[0], d[0], ceil), pool_windows(W, k[1], s[1], p[1], d[1], ceil)
    lead = x.shape[:-2]
    xv = x.reshape((-1, H, W))
    vals = np.zeros((xv.shape[0], oh, ow), dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    idx = np.zeros((xv.shape[0], oh, ow), dtype=np.int64)
    for pl in range(xv.shape[0]):
        for y in range(oh):
            for xo in range(ow):
                best, bi = None, -1
                for i in range(k[0]):
                    ih = y * s[0] + i * d[0] - p[0]
                    if ih < 0 or ih >= H:
                        continue
                    for j in range(k[1]):
                        iw = xo * s[1] + j * d[1] - p[1]
                        if iw < 0 or iw >= W:
                            continue
                        v = xv[pl, ih, iw]
                        if best is None or v > best or v != v:
                            best, bi = v, ih * W + iw
                vals[pl, y, xo], idx[pl, y, xo] = best, bi
    return vals.reshape(lead + (oh, ow)), idx.reshape(lead + (oh, ow))


def avg_pool2d(x, k, s, p, ceil, include_pad, divisor):
    two = lambda v: (v[0], v[0]) if len(v) == 1 else tuple(v)
    k, p = two(k), two(p)
    s = k if len(s) == 0 else two(s)
    H, W = x.shape[-2:]
    oh, ow = pool_windows(H, k[0], s[0], p[0], 1, ceil), pool_windows(W, k[1], s[1], p[1], 1, ceil)
    lead = x.shape[:-2]
    xv = x.reshape((-1, H, W)).astype(np.float64)
    out = np.zeros((xv.shape[0], oh, ow))
    for y in range(oh):
        for xo in range(ow):
            hs, ws = y * s[0] - p[0], xo * s[1] - p[1]
            he, we = min(hs + k[0], H + p[0]), min(ws + k[1], W + p[1])
            pool = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
            dv = divisor if divisor is not None else (pool if include_pad else (he - hs) * (we - ws))
            out[:, y, xo] = xv[:, hs:he, ws:we].sum(axis=(1, 2)) / dv
    return out.reshape(lead + (oh, ow))


def adaptive_avg_pool2d(x, size):
    oh, ow = (size[0], size[0]) if len(size) == 1 else size
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for y in range(oh):
        hs, he = (y * H) // oh, -(-((y + 1) * H) // oh)
        for xo in range(ow):
            ws, we = (xo * W) // ow, -(-((xo + 1) * W) // ow)
            out[..., y, xo] = x[..., hs:he, ws:we].mean(axis=(-2, -1))
    return out


def _linear_taps(n_in, n_out, scale, align):
    """ATen's source index and weight of linear interpolation along one dim."""
    i = np.arange(n_out)
    if n_in == n_out:
        return i, i, np.zeros(n_out)
    if align:
        src = i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        r = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = np.maximum(r * (i + 0.5) - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    return lo, np.minimum(lo + 1, n_in - 1), np.clip(src - lo, 0.0, 1.0)


def upsample_bilinear2d(x, size, align, scale_h=None, scale_w=None):
    H, W = x.shape[-2:]
    h0, h1, a = _linear_taps(H, size[0], scale_h, align)
    w0, w1, b = _linear_taps(W, size[1], scale_w, align)
    a, b = a[:, None], b[None, :]
    rows0, rows1 = x[..., h0, :], x[..., h1, :]
    top = rows0[..., w0] * (1 - b) + rows0[..., w1] * b
    bottom = rows1[..., w0] * (1 - b) + rows1[..., w1] * b
    return top * (1 - a) + bottom * a


def upsample_linear1d(x, size, align, scale=None):
    lo, hi, b = _linear_taps(x.shape[-1], size[0], scale, align)
    return x[..., lo] * (1 - b) + x[..., hi] * b


def upsample_trilinear3d(x, size, align, scale_d=None, scale_h=None, scale_w=None):
    for axis, (n, scale) in enumerate(zip(size, (scale_d, scale_h, scale_w))):
        lo, hi, t = _linear_taps(x.shape[axis - 3], n, scale, align)
        shape = [1] * x.ndim
        shape[axis - 3] = n
        t = t.reshape(shape)
        x = np.take(x, lo, axis=axis - 3) * (1 - t) + np.take(x, hi, axis=axis - 3) * t
    return x


def batch_norm(x, rm, rv, w, b, training, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if training:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
        n = x.size / x.shape[1]
        if rm is not None:
            rm = (1 - momentum) * rm + momentum * mean
            rv = (1 - momentum) * rv + momentum * var * n / (n - 1)
    else:
        mean, var = rm, rv
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return (y,) + ((rm, rv) if rm is not None else ())


def group_norm(x, g, w, b, eps):
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    mean, var = xg.mean(axis=2, keepdims=True), xg.var(axis=2, keepdims=True)
    y = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def layer_norm(x, ns, w, b, eps):
    axes = tuple(range(x.ndim - len(ns), x.ndim))
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def reduction_of(reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        return "mean" if sa and rd else ("sum" if rd else "none")
    return reduction


def nll(logp, t, w, ignore, red):
    cd = 1 if logp.ndim >= 2 else 0
    lp = np.moveaxis(logp, cd, -1) if cd else logp[None]
    tt = t if cd else t.reshape(1)
    keep = tt != ignore
    safe = np.where(keep, tt, 0)
    if np.any((safe < 0) | (safe >= lp.shape[-1])):
        raise IndexError("Target out of bounds")
    picked = np.take_along_axis(lp, safe[..., None], axis=-1)[..., 0]
    wt = (w[safe] if w is not None else np.ones_like(picked)) * keep
    loss = -picked * wt
    if red == "none":
        return loss if cd else loss.reshape(())
    if red == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def cross_entropy(x, t, w, ignore, red, ls):
    cd = 1 if x.ndim >= 2 else 0
    logp = _softmax(x, cd, log=True)
    c = x.shape[cd]
    wshape = [1] * x.ndim
    wshape[cd] = c
    if x.shape == t.shape:
        tt = t * (1 - ls) + ls / c if ls > 0 else t
        ww = w.reshape(wshape) if w is not None else 1.0
        loss = -(logp * tt * ww).sum(axis=cd)
        if red == "none":
            return loss
        if red == "sum":
            return loss.sum()
        return loss.sum() / (x.size / c) if x.size else np.float64("nan")
    base = nll(logp, t, w, ignore, red)
    if ls <= 0:
        return base
    keep = t != ignore
    ww = w.reshape(wshape) if w is not None else 1.0
    smooth = np.where(keep, -(logp * ww).sum(axis=cd), 0.0)
    if red == "none":
        ret = smooth
    elif red == "sum":
        ret = smooth.sum()
    else:
        denom = w[np.where(keep, t, 0)][keep].sum() if w is not None else keep.sum()
        ret = smooth.sum() / denom
    return (1 - ls) * base + ret * (ls / c)


def regression(a, b, red, sq):
    d = (a - b) ** 2 if sq else np.abs(a - b)
    return d if red == "none" else (d.sum() if red == "sum" else d.mean())


def sdpa(q, k, v, mask, is_causal, scale, gqa):
    if gqa and q.ndim >= 3 and k.ndim >= 3:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    s = (1 / math.sqrt(q.shape[-1])) if scale is None else scale
    att = q @ np.swapaxes(k, -1, -2) * s
    L, S = att.shape[-2:]
    if is_causal:
        mask = np.tril(np.ones((L, S), dtype=bool))
    if mask is not None:
        att = np.where(mask, att, -np.inf) if mask.dtype == np.bool_ else att + mask
    dead = np.all(att == -np.inf, axis=-1, keepdims=True)
    m = np.where(np.isinf(np.max(att, axis=-1, keepdims=True)), 0.0, np.max(att, axis=-1, keepdims=True))
    e = np.exp(att - m)
    p = np.where(dead, 0.0, e / np.sum(e, axis=-1, keepdims=True))
    return p @ v


def _amax(a):
    if a is None:
        return 0.0
    a = np.abs(np.asarray(a, dtype=np.float64))
    return float(a.max()) if a.size else 0.0


def norm_scale(x, w, b):
    std = math.sqrt(float(np.var(x)) + 1e-5) if x.size else 1.0
    return (np.abs(x) + _amax(x)) / std * (_amax(w) if w is not None else 1.0) + _amax(b)


def bn_scale(x, rm, rv, w, b, training, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes) if training else rm
    var = x.var(axis=axes) if training else rv
    rstd = 1 / np.sqrt(var + eps)
    ww = np.abs(w) if w is not None else 1.0
    return (np.abs(x) + np.abs(mean).reshape(shape)) * (rstd * ww).reshape(shape) + _amax(b)


def ce_scale(x, t, red):
    cd = 1 if x.ndim >= 2 else 0
    c = x.shape[cd]
    per = 2 * _amax(x) + math.log(max(c, 1)) + 1
    if red == "none":
        shape = list(x.shape)
        del shape[cd]
        return np.full(shape, per)
    n = max(x.size // max(c, 1), 1)
    return np.array(per * n)


def sdpa_scale(q, k, v, mask, is_causal, scale, gqa):
    out = sdpa(q, k, v, mask, is_causal, scale, gqa)
    s = (1 / math.sqrt(q.shape[-1])) if scale is None else scale
    m = _amax(mask) if mask is not None and mask.dtype != np.bool_ else 0.0
    return np.full(out.shape, _amax(v) * (1 + 4 * s * q.shape[-1] * _amax(q) * _amax(k) + m))


