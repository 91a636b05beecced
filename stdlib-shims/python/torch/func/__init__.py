"""``torch.func``: composable function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``vmap``, ``functional_call``, ``stack_module_state``), built on the
autograd engine.

Transforms nest: an argument that already requires grad (an outer transform's input) is
differentiated through a view of it, so the inner gradient keeps its history for the outer one.
Results of the outermost transform carry no history, as PyTorch's do.

``vmap`` maps the function over the batch dimension one sample at a time and stacks the results:
the values equal PyTorch's for functions without side effects (PyTorch runs the function once on
batched tensors, so its side effects happen once; here they happen per sample).
"""

import torch

__all__ = [
    "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
    "functional_call", "stack_module_state",
]


def _argnums_tuple(argnums, n):
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        raise RuntimeError(
            f"argnums must be int or Tuple[int, ...], got: {type(argnums)}"
        )
    out = []
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(
                f"Got argnum={a}, but only {n} positional inputs"
            )
        out.append(a % n)
    return tuple(out)


def _track(x):
    """A version of ``x`` to differentiate against, linked to ``x``'s history when it has one."""
    if not isinstance(x, torch.Tensor):
        raise RuntimeError(
            f"Expected argument to be a Tensor, got {type(x).__name__}"
        )
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _map_tree(fn, tree):
    if isinstance(tree, torch.Tensor):
        return fn(tree)
    if isinstance(tree, (list, tuple)):
        items = [_map_tree(fn, t) for t in tree]
        return type(tree)(items) if isinstance(tree, list) else tuple(items)
    if isinstance(tree, dict):
        return {k: _map_tree(fn, v) for k, v in tree.items()}
    return tree


def _leaves(tree):
    if isinstance(tree, torch.Tensor):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _leaves(t)]
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in _leaves(v)]
    return []


def _unflatten_like(tree, flat):
    it = iter(flat)
    return _map_tree(lambda _: next(it), tree)


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar-valued ``func`` with respect to ``argnums``."""

    def wrapper(*args, **kwargs):
        nums = _argnums_tuple(argnums, len(args))
        outer = any(t.requires_grad for i in nums for t in _leaves(args[i]))
        with torch.enable_grad():
            args = list(args)
            diff = {}
            for i in nums:
                args[i] = _map_tree(_track, args[i])
                diff[i] = args[i]
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = out
            if not isinstance(out, torch.Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                    "instead?"
                )
            flat = [t for i in nums for t in _leaves(diff[i])]
            gs = torch.autograd.grad(out, flat, create_graph=True, allow_unused=True)
            gs = [torch.zeros_like(t) if g is None else g for g, t in zip(gs, flat)]
        if not outer:
            gs = [g.detach() for g in gs]
            out = out.detach()
            aux = _map_tree(lambda t: t.detach(), aux)
        it = iter(gs)
        per_arg = [_unflatten_like(diff[i], [next(it) for _ in _leaves(diff[i])]) for i in nums]
        grads = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        return (grads, (out, aux)) if has_aux else (grads, out)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued ``func`` with respect to ``argnums``."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``; ``vjp_fn(cotangents)`` gives one gradient per primal."""
    outer = any(t.requires_grad for p in primals for t in _leaves(p))
    with torch.enable_grad():
        tracked = tuple(_map_tree(_track, p) for p in primals)
        out = func(*tracked)
        aux = None
        if has_aux:
            out, aux = out
    flat_in = [t for p in tracked for t in _leaves(p)]

    def vjp_fn(cotangents):
        flat_out = _leaves(out)
        flat_ct = _leaves(cotangents)
        if len(flat_ct) != len(flat_out):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                "outputs to the function."
            )
        with torch.enable_grad():
            gs = torch.autograd.grad(flat_out, flat_in, flat_ct, retain_graph=True,
                                     create_graph=True, allow_unused=True)
        gs = [torch.zeros_like(t) if g is None else g for g, t in zip(gs, flat_in)]
        if not outer:
            gs = [g.detach() for g in gs]
        it = iter(gs)
        return tuple(_unflatten_like(p, [next(it) for _ in _leaves(p)]) for p in tracked)

    result = out if outer else _map_tree(lambda t: t.detach(), out)
    if has_aux:
        return result, vjp_fn, aux
    return result, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, J @ tangents)``, by differentiating a vector-Jacobian product again."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same length"
        )
    outer = any(t.requires_grad for p in primals for t in _leaves(p))
    with torch.enable_grad():
        tracked = tuple(_map_tree(_track, p) for p in primals)
        out = func(*tracked)
        aux = None
        if has_aux:
            out, aux = out
        flat_out = _leaves(out)
        flat_in = [t for p in tracked for t in _leaves(p)]
        flat_tan = [t for p in tangents for t in _leaves(p)]
        dummies = [torch.zeros_like(o).requires_grad_(True) for o in flat_out]
        g = torch.autograd.grad(flat_out, flat_in, dummies, create_graph=True, allow_unused=True)
        pairs = [(gi, ti) for gi, ti in zip(g, flat_tan) if gi is not None]
        if pairs:
            jv = torch.autograd.grad([p[0] for p in pairs], dummies, [p[1] for p in pairs],
                                     create_graph=True, allow_unused=True)
        else:
            jv = [None] * len(dummies)
        jv = [torch.zeros_like(o) if j is None else j for j, o in zip(jv, flat_out)]
    if not outer:
        jv = [j.detach() for j in jv]
        flat_out = [o.detach() for o in flat_out]
    out_tree = _unflatten_like(out, flat_out)
    jv_tree = _unflatten_like(out, jv)
    return (out_tree, jv_tree, aux) if has_aux else (out_tree, jv_tree)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to ``argnums``, one reverse pass per output element."""

    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        outer = any(t.requires_grad for i in nums for t in _leaves(args[i]))
        with torch.enable_grad():
            args = list(args)
            for i in nums:
                args[i] = _map_tree(_track, args[i])
            out = func(*args)
            aux = None
            if has_aux:
                out, aux = out
            ins = [args[i] for i in nums]
            flat_in = [t for a in ins for t in _leaves(a)]
            jac_per_out = []
            for o in _leaves(out):
                flat_o = o.reshape(-1)
                rows = [[] for _ in flat_in]
                for j in range(flat_o.numel()):
                    gs = torch.autograd.grad(flat_o[j], flat_in, retain_graph=True,
                                             create_graph=True, allow_unused=True)
                    for k, (g, x) in enumerate(zip(gs, flat_in)):
                        rows[k].append(torch.zeros_like(x) if g is None else g)
                jacs = [
                    torch.stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r
                    else torch.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                    for r, x in zip(rows, flat_in)
                ]
                if not outer:
                    jacs = [j.detach() for j in jacs]
                it = iter(jacs)
                per_arg = [_unflatten_like(a, [next(it) for _ in _leaves(a)]) for a in ins]
                jac_per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        result = _unflatten_like(out, jac_per_out) if not isinstance(out, torch.Tensor) else jac_per_out[0]
        return (result, aux) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to ``argnums`` (forward mode: one Jacobian-vector
    product per input element)."""

    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        ins = [args[i] for i in nums]
        flat_in = [t for a in ins for t in _leaves(a)]

        def f_flat(*flat):
            new = list(args)
            it = iter(flat)
            for i, a in zip(nums, ins):
                new[i] = _unflatten_like(a, [next(it) for _ in _leaves(a)])
            r = func(*new)
            return r[0] if has_aux else r

        cols = []
        for k, x in enumerate(flat_in):
            per_elem = []
            for e in range(x.numel()):
                tangents = [torch.zeros_like(t) for t in flat_in]
                tangents[k].view(-1)[e] = 1
                _, jv = jvp(f_flat, tuple(flat_in), tuple(tangents))
                per_elem.append(jv)
            cols.append(per_elem)
        out = f_flat(*flat_in)
        jac_per_out = []
        for oi, o in enumerate(_leaves(out)):
            jacs = []
            for k, x in enumerate(flat_in):
                vals = [_leaves(pe)[oi] for pe in cols[k]]
                j = torch.stack(vals, dim=-1) if vals else torch.zeros(tuple(o.shape) + (0,))
                jacs.append(j.reshape(tuple(o.shape) + tuple(x.shape)))
            it = iter(jacs)
            per_arg = [_unflatten_like(a, [next(it) for _ in _leaves(a)]) for a in ins]
            jac_per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        result = jac_per_out[0] if isinstance(out, torch.Tensor) else _unflatten_like(out, jac_per_out)
        if has_aux:
            return result, func(*args)[1]
        return result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


def _moved(x, dim, pos):
    return x.movedim(dim, pos) if dim != pos else x


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Maps ``func`` over a batch dimension of its inputs (see the module docs)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"vmap({getattr(func, '__name__', 'fn')}, in_dims={in_dims}, ...)(<inputs>): "
                f"in_dims is not compatible with the structure of `inputs`. in_dims has "
                f"structure {dims} but inputs has {len(args)} elements."
            )
        sizes = set()
        for a, d in zip(args, dims):
            if d is not None:
                for t in _leaves(a):
                    sizes.add(t.shape[d])
        if not sizes:
            raise ValueError(
                f"vmap({getattr(func, '__name__', 'fn')}, in_dims={in_dims}, ...)(<inputs>): at "
                "least one input must be batched (in_dims not all None)"
            )
        if len(sizes) != 1:
            raise ValueError(
                f"vmap({getattr(func, '__name__', 'fn')}, in_dims={in_dims}, ...)(<inputs>): "
                f"Expected all tensors to have the same size in the mapped dimension, got sizes "
                f"{sorted(sizes)} for the mapped dimension"
            )
        (n,) = sizes
        results = []
        for b in range(n):
            sample = [
                a if d is None else _map_tree(lambda t, d=d: t.select(d, b), a)
                for a, d in zip(args, dims)
            ]
            results.append(func(*sample, **kwargs))
        first = results[0]
        flat = [_leaves(r) for r in results]
        n_out = len(flat[0])
        od = out_dims if isinstance(out_dims, tuple) else (out_dims,) * n_out
        stacked = []
        for k in range(n_out):
            items = [f[k] if isinstance(f[k], torch.Tensor) else torch.tensor(f[k]) for f in flat]
            s = torch.stack(items)
            stacked.append(_moved(s, 0, od[k] if od[k] is not None else 0))
        if isinstance(first, torch.Tensor):
            return stacked[0]
        return _unflatten_like(first, stacked)

    return wrapper


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Calls ``module`` with its parameters and buffers replaced by the given tensors."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    else:
        merged = {}
        for d in dicts:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(
                        f"{k} appeared in multiple dictionaries; behavior of functional call is "
                        "ambiguous"
                    )
                merged[k] = v
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(merged))
        unexpected = sorted(set(merged) - names)
        if missing or unexpected:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + (f"Unexpected key(s): {', '.join(map(repr, unexpected))}.\n\t" if unexpected else "")
                + (f"Missing key(s): {', '.join(map(repr, missing))}." if missing else "")
            )
    saved = []
    for name, value in merged.items():
        owner = module
        *path, leaf = name.split(".")
        for p in path:
            owner = getattr(owner, p)
        store = owner._parameters if leaf in owner._parameters else (
            owner._buffers if leaf in owner._buffers else None)
        if store is None:
            saved.append((owner, leaf, None, owner.__dict__.get(leaf)))
            object.__setattr__(owner, leaf, value)
        else:
            saved.append((owner, leaf, store, store[leaf]))
            store[leaf] = value
    try:
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, leaf, store, old in reversed(saved):
            if store is None:
                if old is None:
                    owner.__dict__.pop(leaf, None)
                else:
                    object.__setattr__(owner, leaf, old)
            else:
                store[leaf] = old


def stack_module_state(models):
    """The parameters and buffers of same-shaped modules, stacked along a new leading dim:
    ``(params, buffers)`` dicts for ``functional_call`` under ``vmap``."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {
        name: torch.stack([dict(m.named_parameters())[name] for m in models]).detach().requires_grad_()
        for name, _ in models[0].named_parameters()
    }
    buffers = {
        name: torch.stack([dict(m.named_buffers())[name] for m in models])
        for name, _ in models[0].named_buffers()
    }
    return params, buffers
