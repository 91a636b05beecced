"""``torch.einsum`` of three or more operands under CPU autocast, contracted as PyTorch does.

``einsum`` has no autocast policy of its own in PyTorch: ATen (``aten/src/ATen/native/Linear.cpp``)
contracts the operands in pairs, left to right when no path is given (a plain ``pip install torch``
has no ``opt_einsum``, so ``torch.backends.opt_einsum`` is off and no path is computed), and each
pair is a ``bmm`` when it shares a dimension that no later operand and not the output needs (a
lower-precision op under autocast), else a ``mul`` (type promotion, no cast). So the result dtype,
and the precision of each step, depend on that order. This wrapper replays it: each pair becomes a
two-operand einsum whose inputs are cast as that pair's ``bmm``/``mul`` would see them, computed
with autocast off. Size-1 dimensions count as absent, as ATen's ``dim_counts`` counts them.

Outside autocast, and for one or two operands (whose policy ``stdlib-shims/src/autocast.rs`` gives
the native op), the native ``einsum`` runs directly. Dynamo inlines this function, so a compiled
autocast region captures the pairs and their casts as nodes."""

import string

import torch
from torch._autocast_state import get_autocast_dtype, is_autocast_enabled, set_autocast_enabled

_native_einsum = torch.einsum


def _eligible(x):
    return x.is_floating_point() and x.dtype is not torch.float64


def _parse(equation, operands):
    """Each operand's labels and the output's, with ``...`` spelled as fresh letters (aligned from
    the right, as einsum aligns ellipsis dims). ``None`` when the equation does not fit the
    operands; the native einsum then raises its own error."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        return None
    fresh = [c for c in string.ascii_letters if c not in eq]
    widths = [op.dim() - len(t.replace("...", "")) for t, op in zip(terms, operands) if "..." in t]
    ell_dims = max(widths, default=0)
    if ell_dims < 0 or ell_dims > len(fresh):
        return None
    ell = fresh[:ell_dims]

    def expand(term, ndim):
        if "..." not in term:
            return list(term)
        before, after = term.split("...")
        k = ndim - len(before) - len(after)
        return list(before) + ell[ell_dims - k:] + list(after)

    labels = [expand(t, op.dim()) for t, op in zip(terms, operands)]
    if any(len(ls) != op.dim() for ls, op in zip(labels, operands)):
        return None
    if arrow:
        out = expand(rhs, len(rhs.replace("...", "")) + ell_dims)
    else:
        counts = {}
        for ls in labels:
            for c in dict.fromkeys(ls):
                counts[c] = counts.get(c, 0) + 1
        once = sorted(c for c in counts if counts[c] == 1 and c not in ell)
        out = ell + once
    return labels, out


def _big(x, labels, c):
    """Whether operand ``x`` (labels ``labels``) has label ``c`` with a size other than 1."""
    return c in labels and x.shape[labels.index(c)] != 1


def _cast(x, dtype):
    return x.to(dtype) if _eligible(x) and x.dtype is not dtype else x


def _pairwise(equation, operands):
    parsed = _parse(equation, operands)
    if parsed is None:
        # The native einsum raises its own error for an equation that does not fit the
        # operands; one it accepts is refused rather than given a guessed dtype.
        set_autocast_enabled("cpu", False)
        try:
            _native_einsum(equation, *operands)
        finally:
            set_autocast_enabled("cpu", True)
        raise NotImplementedError(f"einsum(): Rynamo cannot split {equation!r} into pairs under torch.autocast")
    labels, out = parsed
    lower = get_autocast_dtype("cpu")
    acc, acc_l = operands[0], labels[0]
    n = len(operands)
    for i in range(1, n):
        b, b_l = operands[i], labels[i]
        later = {c for j in range(i + 1, n) for c in labels[j] if _big(operands[j], labels[j], c)}
        keep = set(out) | later
        contracts = any(c not in keep and _big(acc, acc_l, c) and _big(b, b_l, c) for c in set(acc_l) & set(b_l))
        if i == n - 1:
            res = out
        else:
            res = [c for c in dict.fromkeys(acc_l + b_l) if c in keep]
        if contracts:
            # ATen's `bmm`: a lower-precision op.
            a2, b2 = _cast(acc, lower), _cast(b, lower)
        else:
            # ATen's `mul`: no cast, type promotion.
            common = torch.promote_types(acc.dtype, b.dtype)
            a2, b2 = acc.to(common), b.to(common)
        pair = "".join(acc_l) + "," + "".join(b_l) + "->" + "".join(res)
        set_autocast_enabled("cpu", False)
        try:
            acc = _native_einsum(pair, a2, b2)
        finally:
            set_autocast_enabled("cpu", True)
        acc_l = list(res)
    return acc


def _letter(s):
    if not isinstance(s, int) or not 0 <= s < 52:
        raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52): {s}")
    return chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)


def _sublist_equation(args):
    """The sublist form ``einsum(op0, sub0, op1, sub1, ..., [out])`` as an equation and operands
    (PyTorch's ``torch.functional.einsum`` converts it the same way)."""
    n = len(args) // 2
    operands, subs = list(args[0:2 * n:2]), args[1:2 * n:2]

    def term(sub):
        return "".join("..." if s is Ellipsis else _letter(s) for s in sub)

    eq = ",".join(term(s) for s in subs)
    if len(args) % 2:
        eq += "->" + term(args[-1])
    return eq, operands


def einsum(*args, **kwargs):
    """``torch.einsum(equation, *operands)`` (or one list of operands, or the sublist format)."""
    if kwargs or not args or not is_autocast_enabled("cpu"):
        return _native_einsum(*args, **kwargs)
    if isinstance(args[0], torch.Tensor):
        if len(args) < 6:
            return _native_einsum(*args)
        eq, operands = _sublist_equation(args)
        return _pairwise(eq, operands) if len(operands) >= 3 else _native_einsum(eq, *operands)
    if not isinstance(args[0], str):
        return _native_einsum(*args)
    operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if len(operands) < 3 or not all(isinstance(x, torch.Tensor) for x in operands):
        return _native_einsum(*args)
    return _pairwise(args[0], list(operands))
