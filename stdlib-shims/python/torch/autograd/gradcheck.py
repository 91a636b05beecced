"""``torch.autograd.gradcheck`` / ``gradgradcheck``: analytical gradients (one backward pass per
output element) against central finite differences, as in ``torch/autograd/gradcheck.py``. The
defaults are meant for float64 inputs."""

import torch


class GradcheckError(RuntimeError):
    """A gradient did not match its finite-difference estimate."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,) if isinstance(x, torch.Tensor) else tuple(x)


def _differentiable_outputs(out):
    return tuple(o for o in _as_tuple(out) if isinstance(o, torch.Tensor) and o.requires_grad)


def _numerical_jacobian(fn, inputs, eps):
    """Per (input, output) pair, a [input numel, output numel] matrix of central differences."""
    outs0 = [o.detach() for o in _as_tuple(fn(*inputs)) if isinstance(o, torch.Tensor)]
    jac = []
    for x in inputs:
        if not (isinstance(x, torch.Tensor) and x.requires_grad):
            jac.append(None)
            continue
        flat = x.data.view(-1)
        cols = [torch.zeros(x.numel(), o.numel(), dtype=o.dtype if o.dtype.is_floating_point
                            else torch.float64) for o in outs0]
        for i in range(x.numel()):
            orig = flat[i].item()
            flat[i] = orig - eps
            a = [o.detach().clone() for o in _as_tuple(fn(*inputs)) if isinstance(o, torch.Tensor)]
            flat[i] = orig + eps
            b = [o.detach().clone() for o in _as_tuple(fn(*inputs)) if isinstance(o, torch.Tensor)]
            flat[i] = orig
            for k, (oa, ob) in enumerate(zip(a, b)):
                cols[k][i] = ((ob - oa) / (2 * eps)).reshape(-1).to(cols[k].dtype)
        jac.append(cols)
    return jac


def _analytical_jacobian(fn, inputs, nondet_tol):
    outputs = _differentiable_outputs(fn(*inputs))
    diff_inputs = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    jac = [[torch.zeros(x.numel(), o.numel(), dtype=x.dtype) for o in outputs]
           for x in diff_inputs]
    reentrant = True
    for k, out in enumerate(outputs):
        flat = out.reshape(-1)
        for j in range(flat.numel()):
            go = torch.zeros_like(out).reshape(-1)
            go[j] = 1
            go = go.reshape(out.shape)
            g1 = torch.autograd.grad(out, diff_inputs, go, retain_graph=True, allow_unused=True)
            g2 = torch.autograd.grad(out, diff_inputs, go, retain_graph=True, allow_unused=True)
            for i, (a, b) in enumerate(zip(g1, g2)):
                if a is None:
                    continue
                if b is None or (a - b).abs().max().item() > nondet_tol:
                    reentrant = False
                jac[i][k][:, j] = a.reshape(-1).to(jac[i][k].dtype)
    return outputs, jac, reentrant


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Checks ``func``'s gradients at ``inputs`` against finite differences; True or raises."""
    inputs = _as_tuple(inputs)

    def fail(msg):
        if raise_exception:
            raise GradcheckError(msg)
        return False

    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.requires_grad:
            if x.dtype not in (torch.float64,):
                import warnings

                warnings.warn(
                    f"Input #{i} requires gradient and is not a double precision floating point. "
                    "This check will likely fail if all the inputs are not of double precision "
                    "floating point. "
                )
    if not any(isinstance(x, torch.Tensor) and x.requires_grad for x in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    outputs, analytical, reentrant = _analytical_jacobian(func, inputs, nondet_tol)
    if not outputs:
        return True
    numerical = [j for j in _numerical_jacobian(func, inputs, eps) if j is not None]
    diff_outs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, torch.Tensor)]
    out_index = {id(o): k for k, o in enumerate(diff_outs)}
    for i, (num_i, ana_i) in enumerate(zip(numerical, analytical)):
        for k, ana in enumerate(ana_i):
            num = num_i[k] if k < len(num_i) else None
            if num is None:
                continue
            if not torch.allclose(ana, num.to(ana.dtype), rtol, atol):
                return fail(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )
    if not reentrant:
        return fail(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
        )
    del out_index
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Checks second derivatives: ``gradcheck`` of ``func``'s vector-Jacobian product."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*inputs))
        gen = torch.Generator().manual_seed(0)
        grad_outputs = tuple(
            torch.randn(o.shape, dtype=o.dtype, generator=gen).requires_grad_(True)
            for o in outs
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.requires_grad]

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(func(*ins))
        diff = [ins[i] for i in diff_idx]
        gs = torch.autograd.grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
