"""The cases of `stats_vs_pytorch.py` (shared with `_gen_stats_goldens.py`): `cov`, `corrcoef`,
`quantile`/`nanquantile` (every interpolation, scalar and 1-D `q`, `dim`, `keepdim`, NaN rows),
`nanmedian`, the in-place forms of issue 29's list (`logical_not_`, `square_`, `sign_`, `exp2_`,
`expm1_`, `log1p_`, `frac_`, `clamp_min_`, `hypot_`, `xlogy_`, `addmm_`, `baddbmm_`) and
`Tensor.untyped_storage()`. Cases are `(name, fn, inputs, grad)` as in `_special_cases.py`."""

import math

import torch

NAN = math.nan


def data(shape, phase, dtype=torch.float64):
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    return (torch.sin(i * 0.61 + phase) * 2 + 0.5 * torch.cos(i * i * 0.13 + phase)).to(dtype).reshape(shape)


def all_cases():
    c = []
    for dt in (torch.float64, torch.float32):
        tag = "f64" if dt == torch.float64 else "f32"
        m = data((3, 5), 0.2, dt)
        v = data((7,), 0.9, dt)
        fw = torch.tensor([1, 2, 0, 3, 1])
        aw = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5], dtype=dt)
        c.append((f"cov_{tag}", lambda m, v, aw: (torch.cov(m), torch.cov(v), m.cov(correction=0),
                                                 torch.cov(m, fweights=fw), torch.cov(m, aweights=aw),
                                                 torch.cov(m, correction=2, fweights=fw, aweights=aw)),
                  [m, v, aw], True))
        c.append((f"corrcoef_{tag}", lambda m, v: (torch.corrcoef(m), torch.corrcoef(v), m.corrcoef()),
                  [m, v], True))
        x = data((4, 6), 0.4, dt)
        xn = x.clone()
        xn[1, 2] = NAN
        xn[3, :] = NAN
        q = torch.tensor([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], dtype=dt)
        for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
            c.append((f"quantile_{interp}_{tag}", lambda x, xn, interp=interp, q=q: (
                torch.quantile(x, 0.3, interpolation=interp),
                torch.quantile(x, q, dim=1, interpolation=interp),
                x.quantile(q, dim=0, keepdim=True, interpolation=interp),
                torch.quantile(x, 0.75, dim=-1, keepdim=True, interpolation=interp),
                torch.quantile(x, q, keepdim=True, interpolation=interp),
                torch.quantile(xn, q, dim=1, interpolation=interp),
                torch.nanquantile(xn, q, dim=1, interpolation=interp),
                torch.nanquantile(xn, 0.4, interpolation=interp),
                xn.nanquantile(0.5, dim=0, interpolation=interp)), [x, xn], False))
        c.append((f"quantile_grad_{tag}", lambda x, q=q: (torch.quantile(x, q, dim=1), torch.nanquantile(x, 0.35)),
                  [x], True))
        c.append((f"nanmedian_{tag}", lambda xn, dt=dt: (torch.nanmedian(xn), torch.nanmedian(xn, 1), xn.nanmedian(0, True),
                                                  torch.nanmedian(torch.full((3,), NAN, dtype=dt))), [xn], False))
        c.append((f"nanmedian_grad_{tag}", lambda x: (torch.nanmedian(x), torch.nanmedian(x, 1)[0]), [x], True))
        y = data((2, 3), 1.1, dt)
        r = data((3,), 0.3, dt)
        c.append((f"inplace_forms_{tag}", lambda y, r, dt=dt: (
            y.clone().logical_not_(), (y > 0).to(dt).logical_not_(), y.clone().square_(), torch.square_(y.clone()),
            y.clone().sign_(), y.clone().exp2_(), torch.exp2_(y.clone()), y.clone().expm1_(), torch.expm1_(y.clone()),
            y.abs().log1p_(), torch.log1p_(y.abs()), y.clone().frac_(), torch.frac_(y.clone()),
            y.clone().clamp_min_(0.2), torch.clamp_min_(y.clone(), 0.1), y.clone().clamp_min_(r),
            y.clone().hypot_(r), y.abs().xlogy_(r.abs()), torch.xlogy_(y.abs(), 2.0),
            y.clone().addmm_(data((2, 4), 0.5, dt), data((4, 3), 0.6, dt), beta=0.5, alpha=2),
            data((2, 2, 3), 0.1, dt).baddbmm_(data((2, 2, 4), 0.2, dt), data((2, 4, 3), 0.3, dt), alpha=0.5)),
            [y, r], False))
        c.append((f"inplace_forms_grad_{tag}", lambda y, r, dt=dt: (
            y.clone().square_(), y.clone().exp2_(), y.clone().expm1_(), y.abs().log1p_(), y.clone().frac_(),
            y.clone().clamp_min_(0.2), y.clone().hypot_(r), y.abs().xlogy_(r.abs() + 0.5),
            y.clone().addmm_(data((2, 4), 0.5, dt), data((4, 3), 0.6, dt), beta=0.5, alpha=2)), [y, r], True))
    return c


def error_cases():
    f = torch.tensor([1.0, 2.0])
    m = torch.ones(2, 3)
    return [
        ("cov_3d", lambda: torch.cov(torch.ones(2, 2, 2))),
        ("cov_fweights_float", lambda: torch.cov(m, fweights=torch.ones(3))),
        ("cov_fweights_numel", lambda: torch.cov(m, fweights=torch.ones(2, dtype=torch.long))),
        ("cov_fweights_2d", lambda: torch.cov(m, fweights=torch.ones(1, 3, dtype=torch.long))),
        ("cov_fweights_negative", lambda: torch.cov(m, fweights=-torch.ones(3, dtype=torch.long))),
        ("cov_aweights_long", lambda: torch.cov(m, aweights=torch.ones(3, dtype=torch.long))),
        ("cov_aweights_negative", lambda: torch.cov(m, aweights=-torch.ones(3))),
        ("corrcoef_3d", lambda: torch.corrcoef(torch.ones(2, 2, 2))),
        ("quantile_q_range", lambda: torch.quantile(f, 1.5)),
        ("quantile_q_tensor_range", lambda: torch.quantile(f, torch.tensor([0.5, 2.0]))),
        ("quantile_int", lambda: torch.quantile(torch.tensor([1, 2]), 0.5)),
        ("quantile_interp", lambda: torch.quantile(f, 0.5, interpolation="foo")),
        ("quantile_empty", lambda: torch.quantile(torch.tensor([]), 0.5)),
        ("quantile_q_dtype", lambda: torch.quantile(f, torch.tensor([0.5], dtype=torch.float64))),
        ("quantile_q_2d", lambda: torch.quantile(f, torch.ones(1, 1))),
        ("nanquantile_q_range", lambda: torch.nanquantile(f, -0.5)),
        ("nanmedian_empty_dim", lambda: torch.nanmedian(torch.ones(2, 0), 1)),
        ("addmm_inplace_shape", lambda: torch.zeros(2, 3).addmm_(torch.ones(3, 2), torch.ones(2, 2))),
        ("baddbmm_inplace_shape", lambda: torch.zeros(1, 2, 2).baddbmm_(torch.ones(3, 2, 2), torch.ones(3, 2, 2))),
        ("hypot_inplace_broadcast", lambda: torch.ones(3).hypot_(torch.ones(2, 3))),
        ("clamp_min_inplace_int", lambda: torch.tensor([1, 2]).clamp_min_(0.5)),
        ("exp2_inplace_int", lambda: torch.tensor([1, 2]).exp2_()),
    ]


def storage_facts():
    """`untyped_storage()` as users call it: sizes and the address relation to `data_ptr()`."""
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    view = base[1:, 1:]
    s, sv = base.untyped_storage(), view.untyped_storage()
    d = torch.zeros(5, dtype=torch.float64)
    return [s.nbytes(), s.size(), len(s), sv.nbytes(), sv.data_ptr() == s.data_ptr(),
            view.data_ptr() - sv.data_ptr(), s.data_ptr() == base.data_ptr(),
            d.untyped_storage().nbytes(), d[2:].untyped_storage().size()]
