//! Specs of the creation ops.

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, Scalar};

use crate::inputs::{self, Domain, FLOAT_DTYPES};
use crate::spec::*;

fn x(c: &mut Ctx<'_>) -> rynamo_tensor::Tensor {
    let sh = c.shape();
    let dt = c.dt;
    c.t(&sh, dt, Domain::Real)
}

fn size(c: &mut Ctx<'_>) -> Vec<i64> {
    inputs::shape(c.rng, 0, 3)
        .into_iter()
        .map(|d| d as i64)
        .collect()
}
fn dtype_opt(c: &mut Ctx<'_>, a: &mut Args) {
    if c.chance(0.6) {
        let d = c.dt;
        a.push(("dtype", Value::DType(d)));
    }
}
fn g_zeros(c: &mut Ctx<'_>) -> Args {
    let mut a = vec![("size", il(size(c)))];
    dtype_opt(c, &mut a);
    a
}
fn g_full(c: &mut Ctx<'_>) -> Args {
    let d = c.dt2();
    let mut a = vec![
        ("size", il(size(c))),
        ("fill_value", s(c.num(d, Domain::CastSafe))),
    ];
    dtype_opt(c, &mut a);
    a
}
fn g_like(c: &mut Ctx<'_>) -> Args {
    let mut a = vec![("self", t(x(c)))];
    if c.chance(0.5) {
        let d = c.pick(&DType::REAL);
        a.push(("dtype", Value::DType(d)));
    }
    a
}
fn g_full_like(c: &mut Ctx<'_>) -> Args {
    let mut a = g_like(c);
    let d = c.dt2();
    a.insert(1, ("fill_value", s(c.num(d, Domain::CastSafe))));
    a
}
fn g_new(c: &mut Ctx<'_>) -> Args {
    let mut a = vec![("self", t(x(c))), ("size", il(size(c)))];
    if c.chance(0.4) {
        let d = c.pick(&DType::REAL);
        a.push(("dtype", Value::DType(d)));
    }
    a
}
fn g_new_full(c: &mut Ctx<'_>) -> Args {
    let mut a = g_new(c);
    let d = c.dt2();
    a.insert(2, ("fill_value", s(c.num(d, Domain::CastSafe))));
    a
}
fn g_arange(c: &mut Ctx<'_>) -> Args {
    let float = c.chance(0.5);
    let n = |c: &mut Ctx<'_>, lo: i64, hi: i64| {
        if float {
            Scalar::Float(c.rng.range(lo * 4, hi * 4) as f64 / 4.0)
        } else {
            Scalar::Int(c.rng.range(lo, hi))
        }
    };
    let start = n(c, -5, 5);
    let mut a = vec![("start", s(start))];
    if c.chance(0.7) {
        let step = n(c, 1, 3);
        let k = c.rng.range(0, 6) as f64;
        let end = match (start, step) {
            (Scalar::Int(s0), Scalar::Int(st)) => Scalar::Int(s0 + (k as i64) * st),
            (s0, st) => Scalar::Float(s0.to_f64() + k * st.to_f64() + 0.125),
        };
        let neg = c.chance(0.3);
        let (end, step) = if neg {
            (
                Scalar::Float(start.to_f64() - (end.to_f64() - start.to_f64())),
                Scalar::Float(-step.to_f64()),
            )
        } else {
            (end, step)
        };
        a.push(("end", s(end)));
        a.push(("step", s(step)));
    } else if start.to_f64() < 0.0 {
        a[0] = ("start", s(Scalar::Int(c.rng.range(0, 6))));
    }
    if c.chance(0.3) {
        let d = c.pick(&[DType::Float64, DType::Int64, DType::Float32]);
        a.push(("dtype", Value::DType(d)));
    }
    a
}
fn g_linspace(c: &mut Ctx<'_>) -> Args {
    let mut a = vec![
        ("start", s(Scalar::Float(c.rng.range(-8, 8) as f64 / 2.0))),
        ("end", s(Scalar::Float(c.rng.range(-8, 8) as f64 / 2.0))),
        ("steps", i(c.rng.range(0, 9))),
    ];
    if c.chance(0.5) {
        let d = c.pick(&FLOAT_DTYPES);
        a.push(("dtype", Value::DType(d)));
    }
    a
}
fn g_eye(c: &mut Ctx<'_>) -> Args {
    let mut a = vec![("n", i(c.rng.range(0, 5)))];
    if c.chance(0.5) {
        a.push(("m", i(c.rng.range(0, 5))));
    }
    dtype_opt(c, &mut a);
    a
}
fn g_scalar_tensor(c: &mut Ctx<'_>) -> Args {
    let d = c.dt2();
    let mut a = vec![("s", s(c.num(d, Domain::CastSafe)))];
    dtype_opt(c, &mut a);
    a
}

fn float_default(i: &Info<'_>) -> DType {
    i.dtype_param().unwrap_or(DType::Float32)
}
fn full_rule(i: &Info<'_>) -> DType {
    i.dtype_param().unwrap_or(match i.get("fill_value") {
        Some(Value::Scalar(Scalar::Bool(_))) => DType::Bool,
        Some(Value::Scalar(Scalar::Int(_))) => DType::Int64,
        _ => DType::Float32,
    })
}
fn arange_rule(i: &Info<'_>) -> DType {
    let float = ["start", "end", "step"]
        .iter()
        .any(|n| matches!(i.get(n), Some(Value::Scalar(Scalar::Float(_)))));
    i.dtype_param()
        .unwrap_or(if float { DType::Float32 } else { DType::Int64 })
}

/// The spec of a creation op, if it is one.
pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let sp = match op {
        Zeros | Ones => Spec::new(
            g_zeros,
            if op == Zeros {
                "np.zeros(size)"
            } else {
                "np.ones(size)"
            },
        )
        .out(float_default),
        Empty => Spec::new(g_zeros, "np.zeros(size)")
            .out(float_default)
            .shapes_only(),
        Full => Spec::new(g_full, "np.full(size, fill_value)")
            .cast(2)
            .castable(&["fill_value"])
            .out(full_rule),
        ZerosLike => Spec::new(g_like, "np.zeros(self.shape)").out(param_rule),
        OnesLike => Spec::new(g_like, "np.ones(self.shape)").out(param_rule),
        EmptyLike => Spec::new(g_like, "np.zeros(self.shape)")
            .out(param_rule)
            .shapes_only(),
        FullLike => Spec::new(g_full_like, "np.full(self.shape, fill_value)")
            .cast(2)
            .castable(&["fill_value"])
            .out(param_rule),
        NewZeros => Spec::new(g_new, "np.zeros(size)").out(param_rule),
        NewOnes => Spec::new(g_new, "np.ones(size)").out(param_rule),
        NewEmpty => Spec::new(g_new, "np.zeros(size)")
            .out(param_rule)
            .shapes_only(),
        NewFull => Spec::new(g_new_full, "np.full(size, fill_value)")
            .cast(2)
            .castable(&["fill_value"])
            .out(param_rule),
        Arange => Spec::new(g_arange, "arange(start, end, step, out_dtype)")
            .out(arange_rule)
            .tol(1, 0.0),
        Linspace => Spec::new(g_linspace, "np.linspace(start, end, steps)")
            .out(float_default)
            .scale("np.full(steps, max(abs(start), abs(end)))")
            .tol(2, 4.0),
        Eye => Spec::new(g_eye, "np.eye(n, m)").out(float_default),
        ScalarTensor => Spec::new(g_scalar_tensor, "np.array(s)")
            .cast(2)
            .castable(&["s"])
            .out(float_default),
        _ => return None,
    };
    Some(sp)
}
