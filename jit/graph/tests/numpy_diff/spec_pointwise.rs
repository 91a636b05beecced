//! Specs of the pointwise ops: unary, binary, ternary and their in-place forms.

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, Scalar};

use crate::inputs::{self, Domain};
use crate::spec::*;

fn unary(c: &mut Ctx<'_>, dom: Domain, inplace: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, dom)
    } else {
        c.t(&sh, dt, dom)
    };
    vec![("self", t(x))]
}
fn g_real(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::Real, false)
}
fn g_pos(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::Pos, false)
}
fn g_unit(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::Unit, false)
}
fn g_nonzero(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::NonZero, false)
}
fn g_nonzero_m(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::NonZero, true)
}
fn g_real_m(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::Real, true)
}
fn g_pos_m(c: &mut Ctx<'_>) -> Args {
    unary(c, Domain::Pos, true)
}
fn g_leaky(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real(c);
    if c.chance(0.5) {
        a.push((
            "negative_slope",
            s(Scalar::Float(c.pick(&[0.2, 0.01, 1.5]))),
        ));
    }
    a
}
fn g_elu(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real(c);
    if c.chance(0.5) {
        a.push(("alpha", s(Scalar::Float(c.pick(&[0.5, 2.0])))));
    }
    a
}
fn g_gelu(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real(c);
    a.push(("approximate", st(c.pick(&["none", "tanh"]))));
    a
}
fn g_softplus(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real(c);
    a.push(("beta", s(Scalar::Float(c.pick(&[1.0, 2.0, 0.5])))));
    a.push(("threshold", s(Scalar::Float(c.pick(&[20.0, 5.0])))));
    a
}
fn g_round(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real(c);
    if c.dt.is_floating_point() {
        a.push(("decimals", i(c.pick(&[0, 0, 1, 2, -1]))));
    }
    a
}
fn g_round_m(c: &mut Ctx<'_>) -> Args {
    let mut a = g_real_m(c);
    if c.dt.is_floating_point() {
        a.push(("decimals", i(c.pick(&[0, 1, -1]))));
    }
    a
}
fn g_nan_to_num(c: &mut Ctx<'_>) -> Args {
    nan_to_num_args(c, false)
}
fn g_nan_to_num_m(c: &mut Ctx<'_>) -> Args {
    nan_to_num_args(c, true)
}
fn g_logit(c: &mut Ctx<'_>) -> Args {
    logit_args(c, false)
}
fn g_logit_m(c: &mut Ctx<'_>) -> Args {
    logit_args(c, true)
}
/// `logit` over [-1, 1] (NaN below 0 and above 1 without `eps`), sometimes with an `eps`.
fn logit_args(c: &mut Ctx<'_>, inplace: bool) -> Args {
    let mut a = unary(c, Domain::Unit, inplace);
    if c.chance(0.5) {
        a.push(("eps", f(c.pick(&[0.0, 0.1, 0.25]))));
    }
    a
}
fn g_xlogy(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [true, true],
        [Domain::Real, Domain::Pos],
        false,
    )
}
fn nan_to_num_args(c: &mut Ctx<'_>, inplace: bool) -> Args {
    let mut a = unary(c, Domain::Real, inplace);
    if c.chance(0.5) {
        a.push(("nan", f(c.pick(&[1.5, -2.0]))));
    }
    if c.chance(0.5) {
        a.push(("posinf", f(100.0)));
    }
    if c.chance(0.5) {
        a.push(("neginf", f(-7.0)));
    }
    a
}

/// Two operands with broadcast shapes; either may be a Python number where the schema allows.
pub fn operands(
    c: &mut Ctx<'_>,
    names: [&'static str; 2],
    scalar_ok: [bool; 2],
    dom: [Domain; 2],
    inplace: bool,
) -> Args {
    let out = c.shape();
    let (adt, bdt) = (c.dt, c.dt2());
    let a_shape = if inplace {
        out.clone()
    } else {
        inputs::broadcastable(c.rng, &out)
    };
    let b_shape = inputs::broadcastable(c.rng, &out);
    let mut args = Vec::new();
    if scalar_ok[0] && !inplace && c.chance(0.15) {
        args.push((names[0], s(c.num(adt, dom[0]))));
    } else {
        let x = if inplace {
            c.tm(&a_shape, adt, dom[0])
        } else {
            c.t(&a_shape, adt, dom[0])
        };
        args.push((names[0], t(x)));
    }
    let first_scalar = matches!(args[0].1, Value::Scalar(_));
    if scalar_ok[1] && !first_scalar && c.chance(0.35) {
        args.push((names[1], s(c.num(bdt, dom[1]))));
    } else {
        let sh = if c.chance(0.1) { vec![] } else { b_shape };
        args.push((names[1], t(c.t(&sh, bdt, dom[1]))));
    }
    args
}

fn g_bin(c: &mut Ctx<'_>) -> Args {
    operands(c, ["self", "other"], [true, true], [Domain::Real; 2], false)
}
fn g_bin_tt(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [false, false],
        [Domain::Real; 2],
        false,
    )
}
fn g_bin_ts(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [false, true],
        [Domain::Real; 2],
        false,
    )
}
fn g_bin_nz(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [true, true],
        [Domain::Real, Domain::NonZero],
        false,
    )
}
fn g_bin_ts_nz(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [false, true],
        [Domain::Real, Domain::NonZero],
        false,
    )
}
fn g_bin_m(c: &mut Ctx<'_>) -> Args {
    operands(c, ["self", "other"], [false, true], [Domain::Real; 2], true)
}
fn g_bin_m_nz(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [false, true],
        [Domain::Real, Domain::NonZero],
        true,
    )
}
fn alpha(c: &mut Ctx<'_>, a: &mut Args) {
    if c.chance(0.5) {
        let v = if c.dt.is_floating_point() && c.chance(0.5) {
            Scalar::Float(c.pick(&[0.5, -1.5]))
        } else {
            Scalar::Int(c.pick(&[2, -1, 3]))
        };
        a.push(("alpha", s(v)));
    }
}
fn g_add(c: &mut Ctx<'_>) -> Args {
    let mut a = g_bin(c);
    alpha(c, &mut a);
    a
}
fn g_add_m(c: &mut Ctx<'_>) -> Args {
    let mut a = g_bin_m(c);
    alpha(c, &mut a);
    a
}
fn g_div(c: &mut Ctx<'_>) -> Args {
    let mut a = g_bin_nz(c);
    a.push((
        "rounding_mode",
        c.pick(&[Value::None, Value::None, st("trunc"), st("floor")]),
    ));
    a
}
fn g_div_m(c: &mut Ctx<'_>) -> Args {
    let mut a = g_bin_m_nz(c);
    a.push((
        "rounding_mode",
        c.pick(&[Value::None, st("trunc"), st("floor")]),
    ));
    a
}
fn g_pow(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "exponent"],
        [true, true],
        [Domain::Real, Domain::Small],
        false,
    )
}
fn g_pow_m(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "exponent"],
        [false, true],
        [Domain::Pos, Domain::Small],
        true,
    )
}
fn g_shift(c: &mut Ctx<'_>) -> Args {
    operands(
        c,
        ["self", "other"],
        [true, true],
        [Domain::Real, Domain::Ints(-2, 70)],
        false,
    )
}
fn g_clamp(c: &mut Ctx<'_>) -> Args {
    clamp_args(c, false)
}
fn g_clamp_m(c: &mut Ctx<'_>) -> Args {
    clamp_args(c, true)
}
fn clamp_args(c: &mut Ctx<'_>, inplace: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, Domain::Real)
    } else {
        c.t(&sh, dt, Domain::Real)
    };
    let mut a = vec![("self", t(x))];
    for name in ["min", "max"] {
        match c.rng.below(4) {
            0 => a.push((name, Value::None)),
            1 => {
                let b = inputs::broadcastable(c.rng, &sh);
                let d = c.dt2();
                a.push((name, t(c.t(&b, d, Domain::Real))));
            }
            _ => {
                let d = c.dt2();
                a.push((name, s(c.num(d, Domain::Real))));
            }
        }
    }
    a
}
fn g_clamp_min(c: &mut Ctx<'_>) -> Args {
    operands(c, ["self", "min"], [false, true], [Domain::Real; 2], false)
}
fn g_clamp_max(c: &mut Ctx<'_>) -> Args {
    operands(c, ["self", "max"], [false, true], [Domain::Real; 2], false)
}
fn g_where(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let cs = inputs::broadcastable(c.rng, &sh);
    let cond = c.t(&cs, DType::Bool, Domain::Real);
    let mut a = operands(c, ["self", "other"], [true, true], [Domain::Real; 2], false);
    a.insert(0, ("condition", t(cond)));
    a
}
fn masked_fill_args(c: &mut Ctx<'_>, inplace: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, Domain::Real)
    } else {
        c.t(&sh, dt, Domain::Real)
    };
    let ms = inputs::broadcastable(c.rng, &sh);
    let m = c.t(&ms, DType::Bool, Domain::Real);
    let vd = c.dt2();
    let v = if c.chance(0.3) {
        t(c.t(&[], vd, Domain::CastSafe))
    } else {
        s(c.num(vd, Domain::CastSafe))
    };
    vec![("self", t(x)), ("mask", t(m)), ("value", v)]
}
fn g_masked_fill(c: &mut Ctx<'_>) -> Args {
    masked_fill_args(c, false)
}
fn g_masked_fill_m(c: &mut Ctx<'_>) -> Args {
    masked_fill_args(c, true)
}
fn lerp_args(c: &mut Ctx<'_>, inplace: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, Domain::Real)
    } else {
        c.t(&sh, dt, Domain::Real)
    };
    let e_dt = if c.chance(0.1) { c.dt2() } else { dt };
    let es = inputs::broadcastable(c.rng, &sh);
    let e = c.t(&es, e_dt, Domain::Real);
    let w = if c.chance(0.5) {
        s(Scalar::Float(c.pick(&[0.25, 0.75, -0.5, 1.0])))
    } else {
        let ws = inputs::broadcastable(c.rng, &sh);
        t(c.t(&ws, dt, Domain::Unit))
    };
    vec![("self", t(x)), ("end", t(e)), ("weight", w)]
}
fn g_lerp(c: &mut Ctx<'_>) -> Args {
    lerp_args(c, false)
}
fn g_lerp_m(c: &mut Ctx<'_>) -> Args {
    lerp_args(c, true)
}
fn addc_args(c: &mut Ctx<'_>, inplace: bool, div: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, Domain::Real)
    } else {
        c.t(&sh, dt, Domain::Real)
    };
    let mut a = vec![("self", t(x))];
    for (n, dom) in [
        ("tensor1", Domain::Real),
        ("tensor2", if div { Domain::NonZero } else { Domain::Real }),
    ] {
        let bs = inputs::broadcastable(c.rng, &sh);
        let d = c.dt2();
        a.push((n, t(c.t(&bs, d, dom))));
    }
    if c.chance(0.6) {
        let v = if c.chance(0.5) {
            Scalar::Int(c.pick(&[2, -1]))
        } else {
            Scalar::Float(0.5)
        };
        a.push(("value", s(v)));
    }
    a
}
fn g_addcmul(c: &mut Ctx<'_>) -> Args {
    addc_args(c, false, false)
}
fn g_addcdiv(c: &mut Ctx<'_>) -> Args {
    addc_args(c, false, true)
}
fn g_addcmul_m(c: &mut Ctx<'_>) -> Args {
    addc_args(c, true, false)
}
fn g_addcdiv_m(c: &mut Ctx<'_>) -> Args {
    addc_args(c, true, true)
}

fn is_bool_or_float(i: &Info<'_>) -> bool {
    i.basis() == DType::Bool || i.basis().is_floating_point()
}
fn neg_rule(i: &Info<'_>) -> bool {
    i.basis() == DType::Bool
}
fn square_rule(i: &Info<'_>) -> DType {
    if i.arg0() == DType::Bool {
        DType::Int64
    } else {
        i.arg0()
    }
}
fn div_out(i: &Info<'_>) -> DType {
    match i.get("rounding_mode") {
        Some(Value::Str(_)) => i.promoted,
        _ => float_rule(i),
    }
}
fn div_reject(i: &Info<'_>) -> bool {
    matches!(i.get("rounding_mode"), Some(Value::Str(_))) && i.promoted == DType::Bool
}
fn clamp_reject(i: &Info<'_>) -> bool {
    i.promoted == DType::Bool
        || (matches!(i.get("min"), Some(Value::None) | None)
            && matches!(i.get("max"), Some(Value::None) | None))
}
fn lerp_reject(i: &Info<'_>) -> bool {
    let d = i.arg0();
    let w_bad = matches!(i.get("weight"), Some(Value::Tensor(w)) if w.dtype() != d);
    !d.is_floating_point() || i.tensor("end").is_some_and(|e| e.dtype() != d) || w_bad
}
fn addcdiv_reject(i: &Info<'_>) -> bool {
    let int = |n| i.tensor(n).is_some_and(|t| t.dtype().is_integral(true));
    is_bool(i) || (int("tensor1") && int("tensor2"))
}
fn shift_reject(i: &Info<'_>) -> bool {
    is_bool_or_float(i)
}
fn value_target(i: &Info<'_>) -> DType {
    i.arg0()
}

/// Unary float ops: (op, expression, generator, ulps).
fn float_unary(op: Op) -> Option<(&'static str, Domain, u64)> {
    use Domain::{NonZero, Pos, Real, Unit};
    use Op::*;
    Some(match op {
        Exp | Exp_ => ("np.exp(self)", Real, 4),
        Exp2 => ("np.exp2(self)", Real, 4),
        Expm1 => ("np.expm1(self)", Real, 4),
        Log | Log_ => ("np.log(self)", Pos, 4),
        Log2 => ("np.log2(self)", Pos, 4),
        Log10 => ("np.log10(self)", Pos, 4),
        Log1p => ("np.log1p(self)", Pos, 4),
        Sqrt | Sqrt_ => ("np.sqrt(self)", Pos, 1),
        Rsqrt | Rsqrt_ => ("1 / np.sqrt(self)", Pos, 2),
        Sin | Sin_ => ("np.sin(self)", Real, 4),
        Cos | Cos_ => ("np.cos(self)", Real, 4),
        Tan => ("np.tan(self)", Real, 4),
        Asin => ("np.arcsin(self)", Unit, 4),
        Acos => ("np.arccos(self)", Unit, 4),
        Atan => ("np.arctan(self)", Real, 4),
        Sinh => ("np.sinh(self)", Real, 4),
        Cosh => ("np.cosh(self)", Real, 4),
        Tanh | Tanh_ => ("np.tanh(self)", Real, 4),
        Sigmoid | Sigmoid_ => ("sigmoid(self)", Real, 4),
        Erf => ("erf(self)", Real, 4),
        Erfinv => ("erfinv(self)", Unit, 4),
        Reciprocal | Reciprocal_ => ("1 / self", NonZero, 1),
        _ => return None,
    })
}

fn unary_gen(dom: Domain, inplace: bool) -> fn(&mut Ctx<'_>) -> Args {
    match (dom, inplace) {
        (Domain::Pos, false) => g_pos,
        (Domain::Pos, true) => g_pos_m,
        (Domain::Unit, _) => g_unit,
        (Domain::NonZero, false) => g_nonzero,
        (Domain::NonZero, true) => g_nonzero_m,
        (_, false) => g_real,
        (_, true) => g_real_m,
    }
}

/// The spec of a pointwise op, if it is one.
pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let inplace = op.flags().contains(rynamo_graph::OpFlags::INPLACE);
    if let Some((np, dom, ulps)) = float_unary(op) {
        let g = unary_gen(dom, inplace);
        let sp = Spec::new(g, np).out(float_rule).tol(ulps, 0.0);
        let sp = if matches!(op, Exp | Sin | Cos | Tanh | Sigmoid | Log) {
            sp.big()
        } else {
            sp
        };
        return Some(if inplace { sp.inplace() } else { sp });
    }
    let same = |g, np| Spec::new(g, np).out(arg0_rule).cast(0);
    let act = |g, np, ulps| {
        Spec::new(g, np)
            .out(arg0_rule)
            .reject(not_float)
            .tol(ulps, 0.0)
    };
    let sp = match op {
        Neg => same(g_real, "-self").reject(neg_rule),
        Neg_ => same(g_real_m, "-self").reject(neg_rule).inplace(),
        Abs => same(g_real, "np.abs(self)").reject(neg_rule),
        Abs_ => same(g_real_m, "np.abs(self)").reject(neg_rule).inplace(),
        Floor => same(g_real, "keep_int(np.floor, self)"),
        Floor_ => same(g_real_m, "keep_int(np.floor, self)").inplace(),
        Ceil => same(g_real, "keep_int(np.ceil, self)"),
        Ceil_ => same(g_real_m, "keep_int(np.ceil, self)").inplace(),
        Trunc => same(g_real, "keep_int(np.trunc, self)"),
        Trunc_ => same(g_real_m, "keep_int(np.trunc, self)").inplace(),
        Round => same(g_round, "round_(self, decimals)").cast(2).tol(1, 0.0),
        Round_ => same(g_round_m, "round_(self, decimals)")
            .cast(2)
            .tol(1, 0.0)
            .inplace(),
        Frac => act(g_real, "self - np.trunc(self)", 0).cast(2),
        Sign => same(g_real, "sign(self)"),
        Square => same(g_real, "square(self)").out(square_rule),
        Relu => same(g_real, "np.maximum(self, 0)").reject(neg_rule).big(),
        Relu_ => same(g_real_m, "np.maximum(self, 0)")
            .reject(neg_rule)
            .inplace(),
        Relu6 => same(g_real, "np.minimum(np.maximum(self, 0), 6)").reject(neg_rule),
        BitwiseNot => same(g_real, "np.invert(self)").reject(is_float),
        NanToNum => same(
            g_nan_to_num,
            "nan_to_num(self, nan, posinf, neginf, out_dtype)",
        ),
        NanToNum_ => same(
            g_nan_to_num_m,
            "nan_to_num(self, nan, posinf, neginf, out_dtype)",
        )
        .inplace(),
        // The result is near 0 where `z / (1 - z)` is near 1: its error is absolute there.
        Logit => Spec::new(g_logit, "logit(self, eps)")
            .out(float_rule)
            .scale("1 + 0 * self")
            .tol(4, 4.0),
        Logit_ => Spec::new(g_logit_m, "logit(self, eps)")
            .out(float_rule)
            .scale("1 + 0 * self")
            .tol(4, 4.0)
            .inplace(),
        Xlogy => Spec::new(g_xlogy, "xlogy(self, other)")
            .out(float_rule)
            .scale("np.abs(self + 0 * other)")
            .tol(4, 4.0),
        LogicalNot => same(g_real, "np.logical_not(self)").out(bool_rule),
        IsNan => same(g_real, "np.isnan(self)").out(bool_rule),
        IsInf => same(g_real, "np.isinf(self)").out(bool_rule),
        IsFinite => same(g_real, "np.isfinite(self)").out(bool_rule),
        LeakyRelu => act(
            g_leaky,
            "np.where(self > 0, self, self * negative_slope)",
            1,
        ),
        Elu => act(g_elu, "np.where(self > 0, self, alpha * np.expm1(self))", 8),
        // 0.5 x (1 + erf|tanh(.)) cancels for large negative x: the error is relative to 0.5 |x|.
        Gelu => act(g_gelu, "gelu(self, approximate)", 8)
            .scale("0.5 * np.abs(self)")
            .tol(8, 4.0),
        Silu => act(g_real, "self * sigmoid(self)", 8),
        Mish => act(g_real, "self * np.tanh(softplus(self))", 8),
        Softplus => act(g_softplus, "softplus(self, beta, threshold)", 8),
        // Binary arithmetic: computed in the result dtype (halves in float32), as PyTorch.
        Add => add_spec(g_add, "self + alpha * other").big(),
        Add_ => add_spec(g_add_m, "self + alpha * other").inplace(),
        Sub => add_spec(g_add, "self - alpha * other").reject(is_bool),
        Sub_ => add_spec(g_add_m, "self - alpha * other")
            .reject(is_bool)
            .inplace(),
        Mul => Spec::new(g_bin, "self * other").cast(2).big(),
        Mul_ => Spec::new(g_bin_m, "self * other").cast(2).inplace(),
        Div => Spec::new(g_div, "div(self, other, rounding_mode)")
            .cast(2)
            .out(div_out)
            .reject(div_reject)
            .tol(1, 0.0),
        Div_ => Spec::new(g_div_m, "div(self, other, rounding_mode)")
            .cast(2)
            .out(div_out)
            .reject(div_reject)
            .tol(1, 0.0)
            .inplace(),
        FloorDivide => Spec::new(g_bin_nz, "np.floor_divide(self, other)")
            .cast(2)
            .reject(is_bool),
        FloorDivide_ => Spec::new(g_bin_m_nz, "np.floor_divide(self, other)")
            .cast(2)
            .reject(is_bool)
            .inplace(),
        Remainder => Spec::new(g_bin_nz, "np.remainder(self, other)")
            .cast(2)
            .reject(is_bool),
        Remainder_ => Spec::new(g_bin_m_nz, "np.remainder(self, other)")
            .cast(2)
            .reject(is_bool)
            .inplace(),
        Fmod => Spec::new(g_bin_ts_nz, "np.fmod(self, other)")
            .cast(2)
            .reject(is_bool),
        Fmod_ => Spec::new(g_bin_m_nz, "np.fmod(self, other)")
            .cast(2)
            .reject(is_bool)
            .inplace(),
        Pow => Spec::new(g_pow, "ipow(self, exponent)")
            .reject(is_bool)
            .tol(4, 0.0),
        Pow_ => Spec::new(g_pow_m, "ipow(self, exponent)")
            .reject(is_bool)
            .tol(4, 0.0)
            .inplace(),
        Maximum | MaxOther => Spec::new(g_bin_tt, "np.maximum(self, other)").cast(2),
        Minimum | MinOther => Spec::new(g_bin_tt, "np.minimum(self, other)").cast(2),
        Eq => cmp("self == other"),
        Ne => cmp("self != other"),
        Lt => cmp("self < other"),
        Le => cmp("self <= other"),
        Gt => cmp("self > other"),
        Ge => cmp("self >= other"),
        LogicalAnd => Spec::new(g_bin_ts, "np.logical_and(self, other)")
            .cast(0)
            .out(bool_rule),
        LogicalOr => Spec::new(g_bin_ts, "np.logical_or(self, other)")
            .cast(0)
            .out(bool_rule),
        LogicalXor => Spec::new(g_bin_ts, "np.logical_xor(self, other)")
            .cast(0)
            .out(bool_rule),
        BitwiseAnd => Spec::new(g_bin, "self & other").cast(2).reject(is_float),
        BitwiseOr => Spec::new(g_bin, "self | other").cast(2).reject(is_float),
        BitwiseXor => Spec::new(g_bin, "self ^ other").cast(2).reject(is_float),
        BitwiseLeftShift => Spec::new(g_shift, "np.left_shift(self, other)")
            .cast(2)
            .reject(shift_reject),
        BitwiseRightShift => Spec::new(g_shift, "np.right_shift(self, other)")
            .cast(2)
            .reject(shift_reject),
        Atan2 => Spec::new(g_bin_tt, "np.arctan2(self, other)")
            .out(float_rule)
            .tol(4, 0.0),
        Hypot => Spec::new(g_bin_tt, "np.hypot(self, other)")
            .reject(not_float)
            .tol(2, 0.0),
        Clamp | Clip => Spec::new(g_clamp, "clamp(self, min, max)")
            .cast(2)
            .reject(clamp_reject),
        Clamp_ => Spec::new(g_clamp_m, "clamp(self, min, max)")
            .cast(2)
            .reject(clamp_reject)
            .inplace(),
        ClampMin => Spec::new(g_clamp_min, "np.maximum(self, min)")
            .cast(2)
            .reject(is_bool),
        ClampMax => Spec::new(g_clamp_max, "np.minimum(self, max)")
            .cast(2)
            .reject(is_bool),
        Where => Spec::new(g_where, "np.where(condition, self, other)").cast(2),
        MaskedFill => Spec::new(g_masked_fill, "np.where(mask, value, self)")
            .cast(2)
            .out(arg0_rule)
            .castable(&["self", "value"])
            .target(value_target),
        MaskedFill_ => Spec::new(g_masked_fill_m, "np.where(mask, value, self)")
            .cast(2)
            .out(arg0_rule)
            .castable(&["self", "value"])
            .target(value_target)
            .inplace(),
        Lerp => lerp_spec(g_lerp),
        Lerp_ => lerp_spec(g_lerp_m).inplace(),
        Addcmul => addc(g_addcmul, "self + value * tensor1 * tensor2").reject(is_bool),
        Addcmul_ => addc(g_addcmul_m, "self + value * tensor1 * tensor2")
            .reject(is_bool)
            .inplace(),
        Addcdiv => addc(g_addcdiv, "self + value * tensor1 / tensor2").reject(addcdiv_reject),
        Addcdiv_ => addc(g_addcdiv_m, "self + value * tensor1 / tensor2")
            .reject(addcdiv_reject)
            .inplace(),
        _ => return None,
    };
    Some(sp)
}

fn cmp(np: &'static str) -> Spec {
    fn t_(i: &Info<'_>) -> DType {
        i.promoted
    }
    Spec::new(g_bin, np).cast(2).out(bool_rule).target(t_)
}

/// `addcmul`/`addcdiv`: computed in the result dtype (halves in float32) as PyTorch's opmath,
/// so intermediate overflow matches; the scale covers cancellation against `self`.
fn addc(g: fn(&mut Ctx<'_>) -> Args, np: &'static str) -> Spec {
    Spec::new(g, np)
        .cast(2)
        .castable(&["self", "tensor1", "tensor2", "value"])
        .scale("np.abs(self) + np.abs(value * tensor1 * tensor2) + np.abs(value * tensor1 / np.where(tensor2 == 0, 1, tensor2))")
        .tol(2, 4.0)
}

/// `add`/`sub`: `alpha` is cast to the result dtype too (bool alpha is `or`, uint8 wraps).
fn add_spec(g: fn(&mut Ctx<'_>) -> Args, np: &'static str) -> Spec {
    Spec::new(g, np)
        .cast(2)
        .castable(&["self", "other", "alpha"])
        .tol(1, 0.0)
}

/// `lerp`: the two-sided formula in float64; the scale bounds its rounding.
fn lerp_spec(g: fn(&mut Ctx<'_>) -> Args) -> Spec {
    Spec::new(g, "lerp(self, end, weight)")
        .cast(2)
        .out(arg0_rule)
        .reject(lerp_reject)
        .scale("np.abs(self) + np.abs(end) + np.abs(weight) * (np.abs(self) + np.abs(end))")
        .tol(2, 4.0)
}
