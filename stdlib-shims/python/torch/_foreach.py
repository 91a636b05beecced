"""`torch._foreach_*`: an op over lists of tensors. On CPU PyTorch runs each as the per-tensor op in
a loop (its "slow path"), so these are that loop: the same values, dtypes and errors. Out-of-place
forms return a tuple, in-place forms the list they were given."""
import torch

_UNARY = (
    "abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 "
    "neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc"
).split()
_BINARY = "add sub mul div maximum minimum pow clamp_min clamp_max".split()


def _check(tensors, *others):
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if isinstance(other, (list, tuple)):
            if len(other) and isinstance(other[0], torch.Tensor):
                if len(other) != len(tensors):
                    raise RuntimeError(
                        f"Tensor lists must have the same number of tensors, got {len(tensors)} and {len(other)}"
                    )
            elif len(other) != len(tensors):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _per_tensor(other, n):
    """The `i`-th operand of a list argument, or the argument itself for every tensor."""
    if isinstance(other, (list, tuple)):
        return list(other)
    if isinstance(other, torch.Tensor) and other.dim() != 0 and n:
        raise RuntimeError(
            f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and {other.numel()} elements."
        )
    return [other] * n


def _apply(fn, inplace, tensors, *operands):
    _check(tensors, *operands)
    cols = [_per_tensor(o, len(tensors)) for o in operands]
    results = [fn(t, *[c[i] for c in cols]) for i, t in enumerate(tensors)]
    return tensors if inplace else tuple(results)


def _unary(name, inplace):
    method = name + "_"

    def run(t):
        if not inplace:
            return getattr(torch, name)(t)
        if hasattr(t, method):
            return getattr(t, method)()
        return t.copy_(getattr(torch, name)(t))

    def op(self):
        return _apply(run, inplace, self)

    op.__name__ = f"_foreach_{name}{'_' if inplace else ''}"
    return op


def _binary(name, inplace):
    def run(t, other, alpha):
        kwargs = {"alpha": alpha} if alpha is not None and name in ("add", "sub") else {}
        op = name
        if name in ("maximum", "minimum") and not isinstance(other, torch.Tensor):
            # The scalar overloads are clamps (`torch.maximum` itself takes tensors only).
            op = "clamp_min" if name == "maximum" else "clamp_max"
        method = getattr(t, op + "_", None) if inplace else None
        if method is not None:
            return method(other, **kwargs)
        value = getattr(torch, op)(t, other, **kwargs)
        return t.copy_(value) if inplace else value

    def op(self, other, *, alpha=None):
        if name == "pow" and not isinstance(self, (list, tuple)):
            # `_foreach_pow(scalar, exponents)`.
            _check(other)
            return tuple(torch.pow(self, e) for e in other)
        return _apply(lambda t, o: run(t, o, alpha), inplace, self, other)

    op.__name__ = f"_foreach_{name}{'_' if inplace else ''}"
    return op


def _ternary(name, inplace):
    def run(t, a, b, value):
        if inplace:
            return getattr(t, name + "_")(a, b, value=value)
        return getattr(torch, name)(t, a, b, value=value)

    def op(self, tensor1, tensor2, value=1, scalars=None):
        # Overloads: `Scalar value=1`, `Scalar[] scalars`, `Tensor scalars` (positional or named).
        if scalars is None:
            scalars = value
        if isinstance(scalars, torch.Tensor):
            scalars = scalars.tolist()
        return _apply(run, inplace, self, tensor1, tensor2, scalars)

    op.__name__ = f"_foreach_{name}{'_' if inplace else ''}"
    return op


def _lerp(inplace):
    def op(self, tensors1, weight):
        def run(t, end, w):
            return t.lerp_(end, w) if inplace else torch.lerp(t, end, w)

        return _apply(run, inplace, self, tensors1, weight)

    op.__name__ = "_foreach_lerp_" if inplace else "_foreach_lerp"
    return op


def _foreach_norm(self, ord=2, dtype=None):
    _check(self)
    return tuple(torch.linalg.vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_max(self):
    _check(self)
    return tuple(t.max() for t in self)


def _foreach_zero_(self):
    _check(self)
    for t in self:
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    _check(self, src)
    for t, s in zip(self, src):
        t.copy_(s)
    return self


def _foreach_clone(self):
    _check(self)
    return tuple(t.clone() for t in self)


def install(namespace):
    """Puts every `_foreach_*` op into `namespace` (the `torch` module)."""
    for name in _UNARY:
        for inplace in (False, True):
            f = _unary(name, inplace)
            namespace[f.__name__] = f
    for name in _BINARY:
        for inplace in (False, True):
            f = _binary(name, inplace)
            namespace[f.__name__] = f
    for name in ("addcdiv", "addcmul"):
        for inplace in (False, True):
            f = _ternary(name, inplace)
            namespace[f.__name__] = f
    for inplace in (False, True):
        f = _lerp(inplace)
        namespace[f.__name__] = f
    for f in (_foreach_norm, _foreach_max, _foreach_zero_, _foreach_copy_, _foreach_clone):
        namespace[f.__name__] = f
