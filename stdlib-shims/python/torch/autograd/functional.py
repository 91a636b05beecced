"""``torch.autograd.functional``: Jacobians, Hessians and vector products of Python functions,
computed with ``torch.autograd.grad`` (PyTorch's ``torch/autograd/functional.py``)."""

import torch


def _as_tuple(x, arg_name, fn_name):
    if isinstance(x, torch.Tensor):
        return False, (x,)
    if not isinstance(x, tuple):
        raise TypeError(
            f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
            f"but the value given is {type(x).__name__}."
        )
    for i, el in enumerate(x):
        if not isinstance(el, torch.Tensor):
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the element {i} of the argument given to {fn_name} has type "
                f"{type(el).__name__}."
            )
    return True, x


def _grad_preprocess(inputs, create_graph):
    if create_graph:
        return tuple(i if i.requires_grad else i.view_as(i).requires_grad_() for i in inputs)
    return tuple(i.detach().requires_grad_(True) for i in inputs)


def _fill(grads, like, strict, what):
    out = []
    for i, (g, x) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    f"This is not allowed in strict mode{what}."
                )
            g = torch.zeros_like(x)
        out.append(g)
    return tuple(out)


def _result(is_tuple, values):
    return values if is_tuple else values[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    with torch.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if any(o.numel() != 1 for o in outputs):
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            v = tuple(torch.ones_like(o) for o in outputs)
        else:
            _, v = _as_tuple(v, "v", "vjp")
        grads = torch.autograd.grad(outputs, inputs, v, create_graph=create_graph, allow_unused=True)
        grads = _fill(grads, inputs, strict, "")
    out = tuple(o if create_graph else o.detach() for o in outputs)
    return _result(is_out_tuple, out), _result(is_in_tuple, grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, by the double-backward trick."""
    with torch.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, True)
        if v is None:
            if any(i.numel() != 1 for i in inputs):
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            v = tuple(torch.ones_like(i) for i in inputs)
        else:
            _, v = _as_tuple(v, "v", "jvp")
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        dummies = tuple(torch.zeros_like(o).requires_grad_(True) for o in outputs)
        g = torch.autograd.grad(outputs, inputs, dummies, create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi is not None]
        if pairs:
            jv = torch.autograd.grad(
                [p[0] for p in pairs], dummies, [p[1] for p in pairs],
                create_graph=create_graph, allow_unused=True,
            )
        else:
            jv = (None,) * len(outputs)
        jv = _fill(jv, outputs, strict, "")
    out = tuple(o if create_graph else o.detach() for o in outputs)
    jv = tuple(j if create_graph else j.detach() for j in jv)
    return _result(is_out_tuple, out), _result(is_out_tuple, jv)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``, one reverse pass per output element."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    with torch.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        jac = []
        for out in outputs:
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for j in range(flat.numel()):
                if out.requires_grad:
                    g = torch.autograd.grad(
                        flat[j], inputs, retain_graph=True, create_graph=create_graph,
                        allow_unused=True,
                    )
                else:
                    g = (None,) * len(inputs)
                for k, (gk, x) in enumerate(zip(g, inputs)):
                    if gk is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {len(jac)} of the user-provided function is "
                                f"independent of input {k}. This is not allowed in strict mode."
                            )
                        gk = torch.zeros_like(x)
                    rows[k].append(gk)
            per_input = tuple(
                torch.stack(r).reshape(tuple(out.shape) + tuple(x.shape))
                if r else torch.zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype)
                for r, x in zip(rows, inputs)
            )
            jac.append(per_input if is_in_tuple else per_input[0])
    if not create_graph:
        jac = [
            tuple(t.detach() for t in j) if isinstance(j, tuple) else j.detach() for j in jac
        ]
    return tuple(jac) if is_out_tuple else jac[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function at ``inputs``."""
    is_in_tuple, t_inputs = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single_output(*inp):
        out = func(*inp)
        if isinstance(out, tuple) or not isinstance(out, torch.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor containing a "
                "single element"
            )
        return out.squeeze()

    def jac_func(*inp):
        j = jacobian(ensure_single_output, inp, create_graph=True, strict=strict)
        return j

    res = jacobian(jac_func, t_inputs, create_graph=create_graph, strict=strict)
    if not is_in_tuple:
        return res[0][0] if isinstance(res, tuple) and isinstance(res[0], tuple) else res
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``."""
    with torch.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, True)
        if v is None:
            v = tuple(torch.ones_like(i) for i in inputs)
        else:
            _, v = _as_tuple(v, "v", "vhp")
        out = func(*inputs)
        if not isinstance(out, torch.Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to vhp should return a single Tensor containing a "
                "single element"
            )
        g = torch.autograd.grad(out, inputs, create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi is not None]
        if pairs:
            h = torch.autograd.grad(
                [p[0] for p in pairs], inputs, [p[1] for p in pairs],
                create_graph=create_graph, allow_unused=True,
            )
        else:
            h = (None,) * len(inputs)
        h = _fill(h, inputs, strict, "")
    out = out if create_graph else out.detach()
    h = tuple(x if create_graph else x.detach() for x in h)
    return out, _result(is_in_tuple, h)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` (equal to ``vhp`` for the symmetric Hessian of a scalar)."""
    return vhp(func, inputs, v, create_graph, strict)
