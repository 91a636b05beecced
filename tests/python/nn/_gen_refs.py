"""Writes `_refs.py`: inputs, weights and NumPy reference outputs for `layers_diff.py`.

Run with CPython and NumPy from this directory: `python3 _gen_refs.py`. Inputs are float32
values (stored exactly); references are computed in float64 with loops written from the layer
definitions, independently of the Rynamo implementation."""

import math

import numpy as np

rng = np.random.RandomState(1234)
REFS = {}


def t(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def enc(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return ("bool", list(a.shape), [bool(v) for v in a.reshape(-1)])
    if a.dtype.kind in "iu":
        return ("int64", list(a.shape), [int(v) for v in a.reshape(-1)])
    if a.dtype == np.float32:
        return ("float32", list(a.shape), [float("%.9g" % v) for v in a.reshape(-1)])
    return ("ref", list(a.shape), [float("%.10g" % v) for v in a.reshape(-1)])


def case(name, **kw):
    REFS[name] = {k: (enc(v) if isinstance(v, (np.ndarray, np.generic)) else v) for k, v in kw.items()}


def f64(a):
    return np.asarray(a, dtype=np.float64)


# === Linear ===
x = t((2, 3, 5))
w, b = t((4, 5)), t((4,))
case("linear", x=x, weight=w, bias=b, out=f64(x) @ f64(w).T + f64(b))
case("linear_nobias", x=x[0], weight=w, out=f64(x[0]) @ f64(w).T)


# === Convolution ===
def pad_nd(x, pads, mode, value=0.0):
    """pads: [(before, after)] for the spatial dims of (N, C, *spatial)."""
    width = [(0, 0), (0, 0)] + list(pads)
    np_mode = {"zeros": "constant", "constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]
    if np_mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=value)
    return np.pad(x, width, mode=np_mode)


def conv2d_ref(x, w, b, stride, padding, dilation, groups, mode="zeros"):
    x, w = f64(x), f64(w)
    kh, kw = w.shape[2], w.shape[3]
    if padding == "same":
        th, tw = dilation[0] * (kh - 1), dilation[1] * (kw - 1)
        pads = [(th // 2, th - th // 2), (tw // 2, tw - tw // 2)]
    else:
        pads = [(padding[0], padding[0]), (padding[1], padding[1])]
    xp = pad_nd(x, pads, mode)
    n, c, h, wd = xp.shape
    o = w.shape[0]
    cg, og = c // groups, o // groups
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for g in range(groups):
        wg = w[g * og:(g + 1) * og]
        for i in range(oh):
            for j in range(ow):
                hs, ws = i * stride[0], j * stride[1]
                patch = xp[:, g * cg:(g + 1) * cg, hs:hs + dilation[0] * (kh - 1) + 1:dilation[0],
                           ws:ws + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("nckl,ockl->no", patch, wg)
    if b is not None:
        out += f64(b).reshape(1, -1, 1, 1)
    return out


CONV2D = [
    # name, (N, C, H, W), (O, k), stride, padding, dilation, groups, bias, padding_mode
    ("conv2d_basic", (2, 3, 7, 6), (4, 3), 1, 0, 1, 1, True, "zeros"),
    ("conv2d_stride_pad", (1, 2, 8, 9), (3, (3, 2)), (2, 1), (1, 2), 1, 1, True, "zeros"),
    ("conv2d_dilation", (2, 2, 9, 9), (2, 3), 1, 2, 2, 1, False, "zeros"),
    ("conv2d_groups", (1, 4, 6, 6), (6, 3), 1, 1, 1, 2, True, "zeros"),
    ("conv2d_depthwise", (2, 3, 5, 5), (3, 3), 2, 1, 1, 3, True, "zeros"),
    ("conv2d_same", (1, 2, 6, 5), (3, (3, 4)), 1, "same", 1, 1, True, "zeros"),
    ("conv2d_reflect", (1, 2, 5, 6), (2, 3), 1, 1, 1, 1, True, "reflect"),
    ("conv2d_circular", (1, 2, 5, 6), (2, 3), 1, (1, 2), 1, 1, True, "circular"),
    ("conv2d_replicate", (1, 2, 5, 6), (2, 3), 2, 1, 1, 1, True, "replicate"),
]
for name, xs, (o, k), stride, padding, dilation, groups, bias, mode in CONV2D:
    k2 = k if isinstance(k, tuple) else (k, k)
    s2 = stride if isinstance(stride, tuple) else (stride, stride)
    p2 = padding if isinstance(padding, (tuple, str)) else (padding, padding)
    d2 = dilation if isinstance(dilation, tuple) else (dilation, dilation)
    x = t(xs)
    w = t((o, xs[1] // groups) + k2, 0.5)
    b = t((o,)) if bias else None
    args = dict(in_channels=xs[1], out_channels=o, kernel_size=list(k2), stride=list(s2),
                padding=p2 if isinstance(p2, str) else list(p2), dilation=list(d2), groups=groups, bias=bias,
                padding_mode=mode)
    kw = dict(x=x, weight=w, out=conv2d_ref(x, w, b, s2, p2, d2, groups, mode), args=args)
    if bias:
        kw["bias"] = b
    case(name, **kw)

x = t((3, 6, 5))
w = t((4, 3, 3, 3), 0.5)
b = t((4,))
case("conv2d_unbatched", x=x, weight=w, bias=b, out=conv2d_ref(x[None], w, b, (1, 1), (1, 1), (1, 1), 1)[0],
     args=dict(in_channels=3, out_channels=4, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1], dilation=[1, 1],
               groups=1, bias=True, padding_mode="zeros"))

for name, (n, c, length), o, k, stride, padding, dilation, groups in [
    ("conv1d_basic", (2, 3, 10), 4, 3, 1, 0, 1, 1),
    ("conv1d_all", (2, 4, 11), 6, 3, 2, 2, 2, 2),
]:
    x = t((n, c, length))
    w = t((o, c // groups, k), 0.5)
    b = t((o,))
    ref = conv2d_ref(x[:, :, None, :], w[:, :, None, :], b, (1, stride), (0, padding), (1, dilation), groups)[:, :, 0]
    case(name, x=x, weight=w, bias=b, out=ref,
         args=dict(in_channels=c, out_channels=o, kernel_size=k, stride=stride, padding=padding, dilation=dilation,
                   groups=groups))


# === Normalization ===
def layer_norm_ref(x, shape, w, b, eps):
    x = f64(x)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mu = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * f64(w) + f64(b)
    return y


x = t((2, 3, 6), 2.0)
w, b = t((6,)), t((6,))
case("layer_norm_last", x=x, weight=w, bias=b, out=layer_norm_ref(x, (6,), w, b, 1e-5), shape=[6])
w2, b2 = t((3, 6)), t((3, 6))
case("layer_norm_two", x=x, weight=w2, bias=b2, out=layer_norm_ref(x, (3, 6), w2, b2, 1e-3), shape=[3, 6], eps=1e-3)


def group_norm_ref(x, g, w, b, eps):
    x = f64(x)
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    y = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * f64(w).reshape(shape) + f64(b).reshape(shape)


x = t((2, 6, 3, 4), 3.0)
w, b = t((6,)), t((6,))
case("group_norm", x=x, weight=w, bias=b, out=group_norm_ref(x, 3, w, b, 1e-5), groups=3)
x1 = t((3, 4, 5))
w1, b1 = t((4,)), t((4,))
case("group_norm_1d", x=x1, weight=w1, bias=b1, out=group_norm_ref(x1, 2, w1, b1, 1e-5), groups=2)


def batch_norm_steps(xs, w, b, momentum, eps, eval_x):
    """Two training steps then eval: outputs and running stats after each."""
    c = xs[0].shape[1]
    rm, rv = np.zeros(c), np.ones(c)
    outs = []
    for x in xs:
        x = f64(x)
        axes = tuple(i for i in range(x.ndim) if i != 1)
        shape = [1, c] + [1] * (x.ndim - 2)
        mu, var = x.mean(axes), x.var(axes)
        n = x.size // c
        rm = (1 - momentum) * rm + momentum * mu
        rv = (1 - momentum) * rv + momentum * var * n / (n - 1)
        outs.append((x - mu.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * f64(w).reshape(shape)
                    + f64(b).reshape(shape))
    x = f64(eval_x)
    shape = [1, c] + [1] * (x.ndim - 2)
    ev = (x - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + eps) * f64(w).reshape(shape) + f64(b).reshape(shape)
    return outs, rm, rv, ev


for name, shape in [("batch_norm2d", (4, 3, 2, 3)), ("batch_norm1d", (5, 3)), ("batch_norm1d_3d", (3, 3, 4))]:
    xs = [t(shape, 2.0) + 1.0, t(shape) - 0.5]
    ex = t(shape)
    w, b = t((3,)), t((3,))
    outs, rm, rv, ev = batch_norm_steps(xs, w, b, 0.3, 1e-5, ex)
    case(name, x0=xs[0], x1=xs[1], x_eval=ex, weight=w, bias=b, out0=outs[0], out1=outs[1], running_mean=rm,
         running_var=rv, out_eval=ev)


# === Embedding ===
wt = t((7, 3))
idx = np.array([[0, 2, 6], [3, 3, 1]], dtype=np.int64)
case("embedding", weight=wt, idx=idx, out=f64(wt)[idx])


# === Pooling ===
def pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1
    out = (num + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d_ref(x, k, s, p, d, ceil):
    x = f64(x)
    n, c, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], d[0], ceil), pool_out(w, k[1], s[1], p[1], d[1], ceil)
    out = np.full((n, c, oh, ow), -np.inf)
    ind = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for bb in range(k[1]):
                    r, q = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + bb * d[1]
                    if 0 <= r < h and 0 <= q < w:
                        v = x[:, :, r, q]
                        better = v > out[:, :, i, j]
                        out[:, :, i, j] = np.where(better, v, out[:, :, i, j])
                        ind[:, :, i, j] = np.where(better, r * w + q, ind[:, :, i, j])
    return out, ind


for name, shape, k, s, p, d, ceil in [
    ("max_pool2d_basic", (2, 3, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ("max_pool2d_pad", (1, 2, 7, 5), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ("max_pool2d_ceil", (1, 2, 7, 8), (3, 2), (2, 3), (1, 0), (1, 1), True),
    ("max_pool2d_dilation", (1, 1, 9, 9), (3, 3), (1, 2), (1, 1), (2, 2), False),
]:
    x = t(shape)
    out, ind = max_pool2d_ref(x, k, s, p, d, ceil)
    case(name, x=x, out=out, indices=ind, args=dict(kernel_size=list(k), stride=list(s), padding=list(p),
                                                     dilation=list(d), ceil_mode=ceil))


def avg_pool2d_ref(x, k, s, p, ceil, include_pad, divisor):
    x = f64(x)
    n, c, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], 1, ceil), pool_out(w, k[1], s[1], p[1], 1, ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * s[0] - p[0], j * s[1] - p[1]
            he, we = min(hs + k[0], h + p[0]), min(ws + k[1], w + p[1])
            pool = (he - hs) * (we - ws)
            hs2, ws2, he2, we2 = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            total = x[:, :, hs2:he2, ws2:we2].sum((2, 3))
            if divisor is not None:
                dv = divisor
            elif include_pad:
                dv = pool
            else:
                dv = (he2 - hs2) * (we2 - ws2)
            out[:, :, i, j] = total / dv
    return out


for name, shape, k, s, p, ceil, inc, div in [
    ("avg_pool2d_basic", (2, 2, 6, 4), (2, 2), (2, 2), (0, 0), False, True, None),
    ("avg_pool2d_pad", (1, 2, 5, 7), (3, 3), (2, 2), (1, 1), False, True, None),
    ("avg_pool2d_nopad_count", (1, 2, 5, 7), (3, 3), (2, 2), (1, 1), False, False, None),
    ("avg_pool2d_ceil", (1, 1, 7, 6), (3, 2), (2, 2), (1, 1), True, True, None),
    ("avg_pool2d_ceil_nocount", (1, 1, 7, 6), (3, 2), (2, 2), (1, 0), True, False, None),
    ("avg_pool2d_divisor", (1, 2, 4, 4), (2, 2), (1, 1), (0, 0), False, True, 3),
]:
    x = t(shape)
    case(name, x=x, out=avg_pool2d_ref(x, k, s, p, ceil, inc, div),
         args=dict(kernel_size=list(k), stride=list(s), padding=list(p), ceil_mode=ceil, count_include_pad=inc,
                   divisor_override=div))


def adaptive_ref(x, oh, ow):
    x = f64(x)
    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, he = (i * h) // oh, -((-(i + 1) * h) // oh)
            ws, we = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = x[..., hs:he, ws:we].mean((-2, -1))
    return out


for name, shape, size in [("adaptive_avg_pool2d_div", (2, 3, 6, 4), (3, 2)),
                          ("adaptive_avg_pool2d_odd", (1, 2, 7, 5), (3, 4)),
                          ("adaptive_avg_pool2d_one", (2, 3, 5, 5), (1, 1)),
                          ("adaptive_avg_pool2d_3d", (3, 5, 7), (2, 3))]:
    x = t(shape)
    case(name, x=x, out=adaptive_ref(x, *size), size=list(size))

x = t((2, 3, 9))
o1, _ = max_pool2d_ref(x[:, :, None, :], (1, 3), (1, 2), (0, 1), (1, 1), False)
case("max_pool1d", x=x, out=o1[:, :, 0], args=dict(kernel_size=3, stride=2, padding=1))
case("avg_pool1d", x=x, out=avg_pool2d_ref(x[:, :, None, :], (1, 3), (1, 2), (0, 1), False, True, None)[:, :, 0],
     args=dict(kernel_size=3, stride=2, padding=1))
case("adaptive_avg_pool1d", x=x, out=adaptive_ref(x[:, :, None, :], 1, 4)[:, :, 0], size=4)

# === Padding ===
x = t((2, 3, 4, 5))
for mode, pads in [("constant", (1, 2, 0, 1)), ("constant", (-1, 2, 1, -2)), ("reflect", (2, 1, 3, 0)),
                   ("replicate", (2, 3, 1, 1)), ("circular", (1, 2, 2, 1))]:
    if mode == "constant":
        ref = f64(x)
        # Negative pads crop.
        lo_w, hi_w, lo_h, hi_h = pads
        ref = np.pad(ref, [(0, 0), (0, 0), (max(lo_h, 0), max(hi_h, 0)), (max(lo_w, 0), max(hi_w, 0))],
                     constant_values=1.5)
        ref = ref[:, :, max(-lo_h, 0):ref.shape[2] - max(-hi_h, 0), max(-lo_w, 0):ref.shape[3] - max(-hi_w, 0)]
    else:
        ref = pad_nd(x, [(pads[2], pads[3]), (pads[0], pads[1])], mode)
    case(f"pad_{mode}_{'_'.join(str(p) for p in pads)}", x=x, out=ref, pad=list(pads), mode=mode)


# === Attention ===
def softmax(a, axis=-1):
    a = a - np.max(np.where(np.isneginf(a), -1e300, a), axis=axis, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=axis, keepdims=True)


def sdpa_ref(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = f64(q), f64(k), f64(v)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        lq, lk = s.shape[-2:]
        s = np.where(np.tril(np.ones((lq, lk), dtype=bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + f64(mask)
    return softmax(s) @ v


q, k, v = t((2, 3, 4, 8)), t((2, 3, 5, 8)), t((2, 3, 5, 6))
bmask = rng.rand(4, 5) > 0.3
bmask[:, 0] = True
fmask = t((2, 1, 4, 5))
case("sdpa_plain", q=q, k=k, v=v, out=sdpa_ref(q, k, v))
case("sdpa_bool_mask", q=q, k=k, v=v, mask=bmask, out=sdpa_ref(q, k, v, bmask))
case("sdpa_float_mask", q=q, k=k, v=v, mask=fmask, out=sdpa_ref(q, k, v, fmask))
q2 = t((2, 3, 5, 8))
case("sdpa_causal_scale", q=q2, k=k, v=v, out=sdpa_ref(q2, k, v, causal=True, scale=0.3), scale=0.3)
kg, vg = t((2, 1, 5, 8)), t((2, 1, 5, 6))
case("sdpa_gqa", q=q, k=kg, v=vg, out=sdpa_ref(q, np.repeat(kg, 3, 1), np.repeat(vg, 3, 1)))


def mha_ref(query, key, value, p, heads, attn_mask=None, kpm=None, add_zero_attn=False):
    """Sequence-first (L, N, E) multi-head attention; bool masks are True where NOT allowed."""
    query, key, value = f64(query), f64(key), f64(value)
    e = query.shape[-1]
    hd = e // heads
    q = query @ f64(p["wq"]).T + f64(p["bq"])
    kk = key @ f64(p["wk"]).T + f64(p["bk"])
    vv = value @ f64(p["wv"]).T + f64(p["bv"])
    lq, n = q.shape[:2]
    if "bias_k" in p:
        kk = np.concatenate([kk, np.broadcast_to(f64(p["bias_k"]), (1, n, e))])
        vv = np.concatenate([vv, np.broadcast_to(f64(p["bias_v"]), (1, n, e))])
    q = q.reshape(lq, n, heads, hd).transpose(1, 2, 0, 3)
    kk = kk.reshape(kk.shape[0], n, heads, hd).transpose(1, 2, 0, 3)
    vv = vv.reshape(vv.shape[0], n, heads, hd).transpose(1, 2, 0, 3)
    if add_zero_attn:
        kk = np.concatenate([kk, np.zeros((n, heads, 1, hd))], 2)
        vv = np.concatenate([vv, np.zeros((n, heads, 1, hd))], 2)
    s = q @ np.swapaxes(kk, -1, -2) / math.sqrt(hd)
    ls = s.shape[-1]
    bias = np.zeros((n, heads, lq, ls))
    if attn_mask is not None:
        m = attn_mask
        m = np.pad(m, [(0, 0)] * (m.ndim - 1) + [(0, ls - m.shape[-1])])
        add = np.where(m, -np.inf, 0.0) if m.dtype == np.bool_ else f64(m)
        bias = bias + (add.reshape(n, heads, lq, ls) if add.ndim == 3 else add)
    if kpm is not None:
        m = np.pad(kpm, [(0, 0), (0, ls - kpm.shape[-1])])
        bias = bias + np.where(m, -np.inf, 0.0)[:, None, None, :]
    wts = softmax(s + bias)
    out = (wts @ vv).transpose(2, 0, 1, 3).reshape(lq, n, e)
    out = out @ f64(p["wo"]).T + f64(p["bo"])
    return out, wts


def mha_params(e, kdim=None, vdim=None, bias_kv=False):
    p = dict(wq=t((e, e), 0.4), wk=t((e, kdim or e), 0.4), wv=t((e, vdim or e), 0.4), bq=t((e,), 0.1),
             bk=t((e,), 0.1), bv=t((e,), 0.1), wo=t((e, e), 0.4), bo=t((e,), 0.1))
    if bias_kv:
        p["bias_k"], p["bias_v"] = t((1, 1, e)), t((1, 1, e))
    return p


E, H = 8, 2
p = mha_params(E)
x = t((4, 3, E))
out, wts = mha_ref(x, x, x, p, H)
case("mha_self", x=x, out=out, weights=wts.mean(1), params={k: enc(v) for k, v in p.items()}, heads=H)
xb = t((3, 5, E))
kpm = np.zeros((3, 5), dtype=bool)
kpm[0, 4] = kpm[2, 1] = kpm[2, 3] = True
am = rng.rand(5, 5) > 0.8
np.fill_diagonal(am, False)
out, wts = mha_ref(xb.transpose(1, 0, 2), xb.transpose(1, 0, 2), xb.transpose(1, 0, 2), p, H, am, kpm)
case("mha_batch_first_masks", x=xb, out=out.transpose(1, 0, 2), weights=wts, attn_mask=am, kpm=kpm,
     params={k: enc(v) for k, v in p.items()}, heads=H)
fm = t((3 * H, 4, 6))
qx, kx, vx = t((4, 3, E)), t((6, 3, 5)), t((6, 3, 7))
p2 = mha_params(E, 5, 7, bias_kv=True)
out, wts = mha_ref(qx, kx, vx, p2, H, fm, None, add_zero_attn=True)
case("mha_kvdim_biaskv_zero", q=qx, k=kx, v=vx, out=out, weights=wts.mean(1), attn_mask=fm,
     params={k: enc(v) for k, v in p2.items()}, heads=H)
xu = t((5, E))
out, wts = mha_ref(xu[:, None], xu[:, None], xu[:, None], p, H)
case("mha_unbatched", x=xu, out=out[:, 0], weights=wts.mean(1)[0], params={k: enc(v) for k, v in p.items()},
     heads=H)


def gelu(a):
    return 0.5 * a * (1 + np.vectorize(math.erf)(a / math.sqrt(2)))


def encoder_layer_ref(x, p, heads, norm_first, act, kpm=None, mask=None):
    """Sequence-first input (L, N, E)."""
    def ln(a, w, b):
        return layer_norm_ref(a, (a.shape[-1],), w, b, 1e-5)

    def sa(a):
        return mha_ref(a, a, a, p, heads, mask, kpm)[0]

    def ff(a):
        h = f64(a) @ f64(p["w1"]).T + f64(p["b1"])
        h = np.maximum(h, 0) if act == "relu" else gelu(h)
        return h @ f64(p["w2"]).T + f64(p["b2"])

    x = f64(x)
    if norm_first:
        x = x + sa(ln(x, p["n1w"], p["n1b"]))
        return x + ff(ln(x, p["n2w"], p["n2b"]))
    x = ln(x + sa(x), p["n1w"], p["n1b"])
    return ln(x + ff(x), p["n2w"], p["n2b"])


def layer_params(e, ff):
    p = mha_params(e)
    p.update(w1=t((ff, e), 0.3), b1=t((ff,), 0.1), w2=t((e, ff), 0.3), b2=t((e,), 0.1), n1w=t((e,)), n1b=t((e,)),
             n2w=t((e,)), n2b=t((e,)))
    return p


FF = 12
for name, norm_first, act, batch_first in [("encoder_post_relu", False, "relu", False),
                                           ("encoder_pre_gelu", True, "gelu", True)]:
    p = layer_params(E, FF)
    x = t((4, 3, E))
    kpm = np.zeros((3, 4), dtype=bool)
    kpm[1, 3] = True
    ref = encoder_layer_ref(x, p, H, norm_first, act, kpm)
    xin = x.transpose(1, 0, 2) if batch_first else x
    out = ref.transpose(1, 0, 2) if batch_first else ref
    case(name, x=xin, out=out, kpm=kpm, params={k: enc(v) for k, v in p.items()}, heads=H, ff=FF,
         norm_first=norm_first, activation=act, batch_first=batch_first)

p = layer_params(E, FF)
x = t((5, 2, E))
causal = np.triu(np.full((5, 5), -np.inf), 1)
ref = encoder_layer_ref(encoder_layer_ref(x, p, H, False, "relu", None, causal), p, H, False, "relu", None, causal)
case("encoder_stack_causal", x=x, out=ref, params={k: enc(v) for k, v in p.items()}, heads=H, ff=FF)


# === Losses ===
def log_softmax(a, axis):
    a = f64(a)
    m = a.max(axis, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis, keepdims=True))


logits = t((5, 4), 2.0)
target = np.array([0, 3, 1, 3, 2], dtype=np.int64)
cw = np.abs(t((4,))) + 0.5
lp = log_softmax(logits, 1)
picked = -lp[np.arange(5), target]
case("ce_mean", x=logits, target=target, out=picked.mean())
case("ce_weight_sum", x=logits, target=target, weight=cw, out=(picked * f64(cw)[target]).sum())
tgt_ign = target.copy()
tgt_ign[1] = -100
valid = tgt_ign != -100
wv = f64(cw)[np.where(valid, tgt_ign, 0)] * valid
nll_w = (-lp[np.arange(5), np.where(valid, tgt_ign, 0)] * wv)
case("ce_weight_ignore_mean", x=logits, target=tgt_ign, weight=cw, out=nll_w.sum() / wv.sum())
case("ce_none", x=logits, target=target, out=picked)
eps = 0.2
smooth = -lp.sum(1)
case("ce_label_smoothing", x=logits, target=target, out=(1 - eps) * picked.mean() + eps / 4 * smooth.mean(),
     label_smoothing=eps)
smooth_w = -(lp * f64(cw)).sum(1) * valid
ls_ref = (1 - eps) * nll_w.sum() / wv.sum() + eps / 4 * smooth_w.sum() / wv.sum()
case("ce_label_smoothing_weight_ignore", x=logits, target=tgt_ign, weight=cw, out=ls_ref, label_smoothing=eps)
probs = np.abs(t((5, 4)))
probs = (probs / probs.sum(1, keepdims=True)).astype(np.float32)
case("ce_probs", x=logits, target=probs, out=-(lp * f64(probs)).sum(1).mean())
case("ce_probs_smooth_weight_sum", x=logits, target=probs, weight=cw,
     out=-(lp * (f64(probs) * (1 - eps) + eps / 4) * f64(cw)).sum(), label_smoothing=eps)
logits3 = t((2, 3, 4))
target3 = np.array([[0, 2, 1, 1], [2, 2, 0, 1]], dtype=np.int64)
lp3 = log_softmax(logits3, 1)
case("ce_kdim", x=logits3, target=target3,
     out=-np.take_along_axis(lp3, target3[:, None], 1)[:, 0].mean())
case("nll_mean", x=lp.astype(np.float32), target=target, out=-lp.astype(np.float32).astype(np.float64)[np.arange(5), target].mean())
a, b = t((3, 4)), t((3, 4))
case("mse_mean", a=a, b=b, out=((f64(a) - f64(b)) ** 2).mean())
case("mse_sum", a=a, b=b, out=((f64(a) - f64(b)) ** 2).sum())
case("l1_none", a=a, b=b, out=np.abs(f64(a) - f64(b)))
d = np.abs(f64(a) - f64(b))
case("smooth_l1", a=a, b=b, out=np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).mean(), beta=0.5)
case("huber", a=a, b=b, out=np.where(d < 0.7, 0.5 * d * d, 0.7 * (d - 0.35)).mean(), delta=0.7)
pr = (1 / (1 + np.exp(-f64(a)))).astype(np.float32)
yb = (rng.rand(3, 4) > 0.5).astype(np.float32)
pp = f64(pr)
case("bce", a=pr, b=yb, out=-(f64(yb) * np.log(pp) + (1 - f64(yb)) * np.log(1 - pp)).mean())
posw = np.abs(t((4,))) + 0.5
sig = 1 / (1 + np.exp(-f64(a)))
case("bce_logits_posw", a=a, b=yb, pos_weight=posw,
     out=-(f64(posw) * f64(yb) * np.log(sig) + (1 - f64(yb)) * np.log(1 - sig)).mean())
lq = log_softmax(a, 1).astype(np.float32)
pt = np.exp(log_softmax(b, 1)).astype(np.float32)
case("kl_div_batchmean", a=lq, b=pt, out=(f64(pt) * (np.log(f64(pt)) - f64(lq))).sum() / 3)


# === Small functional compositions ===
x = t((3, 6), 2.0)
xf = f64(x)
case("hardtanh", x=x, out=np.clip(xf, -0.5, 1.5))
case("hardsigmoid", x=x, out=np.clip(xf + 3, 0, 6) / 6)
case("hardswish", x=x, out=xf * np.clip(xf + 3, 0, 6) / 6)
case("selu", x=x, out=1.0507009873554804934193349852946 * np.where(xf > 0, xf, 1.6732632423543772848170429916717 * np.expm1(xf)))
case("celu", x=x, out=np.where(xf > 0, xf, 0.7 * np.expm1(xf / 0.7)))
case("logsigmoid", x=x, out=-np.log1p(np.exp(-xf)))
case("softsign", x=x, out=xf / (1 + np.abs(xf)))
case("glu", x=x, out=xf[:, :3] / (1 + np.exp(-xf[:, 3:])))
case("softmin", x=x, out=softmax(-xf, 1))
case("threshold", x=x, out=np.where(xf > 0.1, xf, -2.0))
case("normalize", x=x, out=xf / np.maximum(np.sqrt((xf * xf).sum(1, keepdims=True)), 1e-12))
case("normalize_p1_dim0", x=x, out=xf / np.maximum(np.abs(xf).sum(0, keepdims=True), 1e-12))
pw = t((3,))
x4 = t((2, 3, 2, 2))
case("prelu", x=x4, weight=pw, out=np.where(f64(x4) >= 0, f64(x4), f64(pw).reshape(1, 3, 1, 1) * f64(x4)))
y = t((3, 6))
yf = f64(y)
case("cosine_similarity", a=x, b=y,
     out=(xf * yf).sum(1) / (np.maximum(np.sqrt((xf * xf).sum(1)), 1e-8) * np.maximum(np.sqrt((yf * yf).sum(1)), 1e-8)))
case("pairwise_distance", a=x, b=y, out=np.sqrt(((xf - yf + 1e-6) ** 2).sum(1)))
xs = t((1, 8, 2, 3))
ps = f64(xs).reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
case("pixel_shuffle", x=xs, out=ps)
bil_w, bil_b = t((3, 4, 5)), t((3,))
x1, x2 = t((2, 4)), t((2, 5))
case("bilinear", a=x1, b=x2, weight=bil_w, bias=bil_b,
     out=np.einsum("ni,oij,nj->no", f64(x1), f64(bil_w), f64(x2)) + f64(bil_b))

# === Activations bound to registry ops (appended last: earlier cases keep their inputs) ===
x = t((3, 7), 2.5)
xf = f64(x)
erf = np.vectorize(math.erf)
case("act_relu", x=x, out=np.maximum(xf, 0))
case("act_gelu", x=x, out=0.5 * xf * (1 + erf(xf / math.sqrt(2))))
case("act_gelu_tanh", x=x, out=0.5 * xf * (1 + np.tanh(math.sqrt(2 / math.pi) * (xf + 0.044715 * xf ** 3))))
case("act_silu", x=x, out=xf / (1 + np.exp(-xf)))
case("act_mish", x=x, out=xf * np.tanh(np.log1p(np.exp(xf))))
case("act_elu", x=x, out=np.where(xf > 0, xf, 0.8 * np.expm1(xf)))
case("act_leaky_relu", x=x, out=np.where(xf > 0, xf, 0.05 * xf))
case("act_softplus", x=x, out=np.where(2 * xf > 5, xf, np.log1p(np.exp(2 * xf)) / 2))
case("act_tanh", x=x, out=np.tanh(xf))
case("act_sigmoid", x=x, out=1 / (1 + np.exp(-xf)))
case("act_relu6", x=x, out=np.clip(xf, 0, 6))
case("act_softmax_dim0", x=x, out=softmax(xf, 0))
case("act_log_softmax", x=x, out=log_softmax(xf, 1))

# === Recurrent cells (one step; weights stacked in PyTorch's gate order) ===
def sig(v):
    return 1 / (1 + np.exp(-v))


I, H = 3, 4
xs, h0, c0 = t((2, I)), t((2, H)), t((2, H))
for name, chunks in (("rnn_cell", 1), ("lstm_cell", 4), ("gru_cell", 3)):
    wih, whh, bih, bhh = t((chunks * H, I)), t((chunks * H, H)), t((chunks * H,)), t((chunks * H,))
    gi = f64(xs) @ f64(wih).T + f64(bih)
    gh = f64(h0) @ f64(whh).T + f64(bhh)
    params = {"weight_ih": enc(wih), "weight_hh": enc(whh), "bias_ih": enc(bih), "bias_hh": enc(bhh)}
    if name == "rnn_cell":
        case(name, x=xs, h=h0, out=np.tanh(gi + gh), params=params)
    elif name == "lstm_cell":
        g = gi + gh
        c1 = sig(g[:, H:2 * H]) * f64(c0) + sig(g[:, :H]) * np.tanh(g[:, 2 * H:3 * H])
        case(name, x=xs, h=h0, c=c0, out=sig(g[:, 3 * H:]) * np.tanh(c1), out_c=c1, params=params)
    else:
        r = sig(gi[:, :H] + gh[:, :H])
        z = sig(gi[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
        case(name, x=xs, h=h0, out=(1 - z) * n + z * f64(h0), params=params)

# === Transformer decoder ===
def decoder_layer_ref(x, mem, p, pc, heads, norm_first, act, tgt_mask=None, mem_kpm=None):
    """Sequence-first (T, N, E) target, (S, N, E) memory; ``pc`` holds the cross-attention's weights."""
    def ln(a, i):
        return layer_norm_ref(a, (a.shape[-1],), p[f"n{i}w"], p[f"n{i}b"], 1e-5)

    def ff(a):
        h = f64(a) @ f64(p["w1"]).T + f64(p["b1"])
        h = np.maximum(h, 0) if act == "relu" else gelu(h)
        return h @ f64(p["w2"]).T + f64(p["b2"])

    def sa(a):
        return mha_ref(a, a, a, p, heads, tgt_mask)[0]

    def ca(a):
        return mha_ref(a, mem, mem, pc, heads, None, mem_kpm)[0]

    x = f64(x)
    if norm_first:
        x = x + sa(ln(x, 1))
        x = x + ca(ln(x, 2))
        return x + ff(ln(x, 3))
    x = ln(x + sa(x), 1)
    x = ln(x + ca(x), 2)
    return ln(x + ff(x), 3)


for name, norm_first, act in [("decoder_post_relu", False, "relu"), ("decoder_pre_gelu", True, "gelu")]:
    p = layer_params(E, FF)
    p.update(n3w=t((E,)), n3b=t((E,)))
    pc = mha_params(E)
    tgt, mem = t((4, 2, E)), t((5, 2, E))
    tmask = np.triu(np.full((4, 4), -np.inf), 1)
    mkpm = np.zeros((2, 5), dtype=bool)
    mkpm[0, 4] = mkpm[1, 0] = True
    ref = decoder_layer_ref(tgt, mem, p, pc, H, norm_first, act, tmask, mkpm)
    case(name, tgt=tgt, memory=mem, out=ref, mem_kpm=mkpm, params={k: enc(v) for k, v in p.items()},
         cross={k: enc(v) for k, v in pc.items()}, heads=H, ff=FF, norm_first=norm_first, activation=act)

pe, pd, pc = layer_params(E, FF), layer_params(E, FF), mha_params(E)
pd.update(n3w=t((E,)), n3b=t((E,)))
norms = dict(ew=t((E,)), eb=t((E,)), dw=t((E,)), db=t((E,)))
src, tgt = t((5, 2, E)), t((3, 2, E))
memory = layer_norm_ref(encoder_layer_ref(src, pe, H, False, "relu"), (E,), norms["ew"], norms["eb"], 1e-5)
ref = layer_norm_ref(decoder_layer_ref(tgt, memory, pd, pc, H, False, "relu"), (E,), norms["dw"], norms["db"], 1e-5)
case("transformer_full", src=src, tgt=tgt, out=ref, enc={k: enc(v) for k, v in pe.items()},
     dec={k: enc(v) for k, v in pd.items()}, cross={k: enc(v) for k, v in pc.items()},
     norms={k: enc(v) for k, v in norms.items()}, heads=H, ff=FF)

with open("_refs.py", "w") as f:
    f.write("# @generated by tests/python/nn/_gen_refs.py -- do not edit\n")
    f.write("REFS = {\n")
    for name, kw in REFS.items():
        f.write(f"    {name!r}: {kw!r},\n")
    f.write("}\n")
print(len(REFS), "cases")
