"""The cases of `special_vs_pytorch.py` (shared with `_gen_special_goldens.py`, which runs them
under real PyTorch): the `torch.special` kernel ops (issue 29: inverse hyperbolics, `erfc`, the
gamma family, the modified Bessel functions), their aliases, in-place forms and Tensor methods,
on fixed inputs that include poles, negative arguments, infinities, NaN and integers.

A case is `(name, fn, inputs, grad)` as in `functions/_cases.py`: with `grad`, the float inputs
require grad and the gradients of a fixed weighting of the float outputs are compared too."""

import math

import torch

INF = math.inf
NAN = math.nan

GENERAL = [-3.5, -1.0, -0.5, -0.0, 0.0, 1e-3, 0.3, 1.0, 1.4616321449683622, 2.0, 7.5, 30.0, 100.0,
           INF, -INF, NAN]
BESSEL = GENERAL + [1e-20, 5.0, 25.0, 29.99, 30.01, 50.0, 88.0, 89.0, 300.0, 700.0, 709.0, 710.0,
                    -710.0, 713.0, -40.0]
GAMMA = GENERAL + [-2.0, -3.0, -2.5, -10.3, -100.5, 1e-8, -1e-8, 0.5, 1e10, 1e300, 171.5, 9.99,
                   10.0, 10.01]
ACOSH = [0.5, 1.0, 1.0001, 2.0, 10.0, 1e10, INF, -1.0, NAN]
ATANH = [-1.0, -0.99, -0.5, -0.0, 0.0, 1e-9, 0.5, 0.999999, 1.0, 1.5, NAN]


def loss_weights(shape, phase, dtype):
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    return (torch.sin(i * 0.61 + phase) + 0.5).to(dtype).reshape(shape)


def all_cases():
    c = []
    for dt in (torch.float64, torch.float32):
        tag = "f64" if dt == torch.float64 else "f32"

        def T(v):
            return torch.tensor(v, dtype=dt)

        g, b, gm = T(GENERAL), T(BESSEL), T(GAMMA)
        c.append((f"asinh_{tag}", lambda x: (torch.asinh(x), x.asinh(), torch.arcsinh(x), x.arcsinh()),
                  [T(GENERAL + [1e10, -1e300, 1e-300])], False))
        c.append((f"acosh_{tag}", lambda x: (torch.acosh(x), x.arccosh()), [T(ACOSH)], False))
        c.append((f"atanh_{tag}", lambda x: (torch.atanh(x), torch.arctanh(x)), [T(ATANH)], False))
        c.append((f"erfc_{tag}", lambda x: (torch.erfc(x), torch.special.erfc(x), x.erfc()),
                  [T(GENERAL + [-6.0, 5.0, 10.0, 26.0, 27.0])], False))
        c.append((f"lgamma_{tag}", lambda x: (torch.lgamma(x), torch.special.gammaln(x)), [gm], False))
        c.append((f"digamma_{tag}", lambda x: (torch.digamma(x), torch.special.psi(x),
                                               torch.special.digamma(x)), [gm], False))
        c.append((f"polygamma_{tag}", lambda x: (torch.polygamma(1, x), torch.polygamma(2, x),
                                                 x.polygamma(3), torch.special.polygamma(5, x)),
                  [T([v for v in GAMMA if abs(v) < 1e9])], False))
        c.append((f"bessel_{tag}", lambda x: (torch.i0(x), torch.special.i0(x), torch.special.i0e(x),
                                              torch.special.i1(x), torch.special.i1e(x)), [b], False))
        c.append((f"mvlgamma_{tag}", lambda x: (torch.mvlgamma(x, 1), torch.mvlgamma(x, 3),
                                                x.mvlgamma(2), torch.special.multigammaln(x, 4)),
                  [T([2.0, 2.5, 3.7, 10.0, 0.2])], False))
        c.append((f"frexp_{tag}", lambda x: tuple(torch.frexp(x)) + tuple(x.frexp()),
                  [T([0.0, -0.0, 1.0, -3.5, 1e-310, 5e-324, 1e-40, INF, -INF, NAN, 0.75, 1e300, 3e38, 0.5,
                      -0.25, 1024.0, 1023.999, 7.0])], False))
        # In-place forms on clones of the input.
        c.append((f"inplace_{tag}", lambda x, u, a, p: (
            x.clone().asinh_(), torch.asinh_(x.clone()), x.clone().arcsinh_(), torch.arcsinh_(x.clone()),
            a.clone().acosh_(), torch.arccosh_(a.clone()), u.clone().atanh_(), torch.arctanh_(u.clone()),
            x.clone().erfc_(), torch.erfc_(x.clone()), p.clone().lgamma_(), p.clone().digamma_(),
            p.clone().polygamma_(1), p.clone().polygamma_(2), x.clone().i0_(), torch.i0_(x.clone()),
            u.clone().erfinv_(), p.clone().mvlgamma_(1)),
            [T([-2.0, -0.3, 0.0, 0.7, 3.0]), T([-0.9, -0.1, 0.0, 0.4, 0.8]), T([1.0, 1.5, 2.0, 5.0, 9.0]),
             T([0.3, 1.7, 4.5, 2.2, 12.0])], False))
        # Gradients, away from poles and branch points.
        x = T([-2.0, -0.3, 0.0, 0.7, 3.0])
        p = T([0.3, 1.7, 4.5, -0.4, -2.6, 12.0])
        c.append((f"asinh_grad_{tag}", lambda x: torch.asinh(x), [x], True))
        c.append((f"acosh_grad_{tag}", lambda x: torch.acosh(x), [T([1.25, 2.0, 5.0])], True))
        c.append((f"atanh_grad_{tag}", lambda x: torch.atanh(x), [T([-0.9, -0.1, 0.0, 0.4, 0.8])], True))
        c.append((f"erfc_grad_{tag}", lambda x: torch.erfc(x), [x], True))
        c.append((f"lgamma_grad_{tag}", lambda x: torch.lgamma(x), [p], True))
        c.append((f"digamma_grad_{tag}", lambda x: torch.digamma(x), [p], True))
        c.append((f"polygamma_grad_{tag}", lambda x: (torch.polygamma(1, x), torch.polygamma(2, x)), [p], True))
        c.append((f"bessel_grad_{tag}", lambda x: (torch.i0(x), torch.special.i0e(x), torch.special.i1(x),
                                                   torch.special.i1e(x)),
                  [T([-40.0, -2.0, -0.3, 0.0, 0.7, 3.0, 35.0])], True))
        c.append((f"mvlgamma_grad_{tag}", lambda x: torch.mvlgamma(x, 3), [T([2.0, 2.5, 3.7])], True))
        # Second order: lgamma -> digamma -> trigamma (eager and the `eager` backend only: under
        # AOT autograd PyTorch refuses double backward too).
        c.append((f"lgamma_double_grad_{tag}", lambda x: torch.autograd.grad(
            torch.lgamma(x).sum(), x, create_graph=True)[0], [p], True))
    # Integers and bools promote to the default float dtype.
    ints = torch.tensor([1, 2, 3, 10])
    c.append(("int_promotion", lambda i: (torch.lgamma(i), torch.digamma(i), torch.polygamma(1, i), torch.i0(i),
                                          torch.asinh(i), torch.acosh(i), torch.atanh(i - 2), torch.erfc(i),
                                          torch.special.i0e(i), torch.special.i1(i), torch.special.i1e(i),
                                          torch.mvlgamma(i, 2), torch.lgamma(i > 1)), [ints], False))
    return c


# (name, fn) whose call raises: the exception type and message are compared.
def error_cases():
    f = torch.tensor([1.0, 2.0])
    return [
        ("polygamma_negative_n", lambda: torch.polygamma(-1, f)),
        ("polygamma_method_negative_n", lambda: f.polygamma(-2)),
        ("mvlgamma_bool", lambda: torch.mvlgamma(torch.tensor([True]), 2)),
        ("mvlgamma_p0", lambda: torch.mvlgamma(f, 0)),
        ("lgamma_inplace_int", lambda: torch.tensor([1, 2]).lgamma_()),
        ("asinh_inplace_int", lambda: torch.asinh_(torch.tensor([1, 2]))),
        ("frexp_int", lambda: torch.frexp(torch.tensor([1, 2]))),
    ]


def float_tensors(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if isinstance(o, torch.Tensor)]


def loss_of(outs):
    """A fixed weighting of the float outputs (one weight per element); NaN and inf entries of
    an output are masked out so every gradient stays finite."""
    total = None
    for k, o in enumerate(outs):
        if not o.is_floating_point() or not o.requires_grad:
            continue
        w = loss_weights(tuple(o.shape), 0.3 + k, o.dtype)
        term = (o * w).sum()
        total = term if total is None else total + term
    return total


def prepared(case):
    """Fresh copies of the case's inputs; float ones require grad when the case checks gradients."""
    _, _, inputs, grad = case
    out = []
    for x in inputs:
        x = x.detach().clone()
        if grad and x.is_floating_point():
            x.requires_grad_(True)
        out.append(x)
    return out
