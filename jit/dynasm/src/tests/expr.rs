//! Ops lowered from their scalar expressions (`OpDef::scalar`: `logit`, `xlogy`, `erfinv`), on
//! every target against the eager kernels that run the same expressions: f64 bitwise (the JIT's
//! f64 `log` is eager's scalar call), f32 within the vector `log`'s bound (`ulp.rs`: the JIT's and
//! eager's vectorised logs are each within 2 ulp of the true log, not bitwise each other's), and
//! `erfinv`, a scalar function both call, bitwise in both dtypes. Inputs cover the domains' edges
//! and the specials.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::{DType, Tensor};

use super::common::{SPECIALS, targets};

/// Values in and around [-1, 1] (and far outside), then the specials.
fn inputs(n: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n)
        .map(|i| -1.25 + 2.5 * (i as f32 / n as f32))
        .collect();
    v.extend([0.5, 1.0, -1.0, 1.0 - f32::EPSILON, 1e-30, 2.0, 1e30]);
    v.extend(SPECIALS);
    v
}

/// `1` when both are NaN or equal, else their distance in units in the last place.
fn ulps(a: f64, b: f64, dt: DType) -> u64 {
    if (a.is_nan() && b.is_nan()) || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
        return u64::MAX;
    }
    let ord = |v: i64| if v < 0 { i64::MIN - v } else { v };
    if dt == DType::Float32 {
        let (x, y) = ((a as f32).to_bits() as i32, (b as f32).to_bits() as i32);
        ord(i64::from(x)).abs_diff(ord(i64::from(y)))
    } else {
        ord(a.to_bits() as i64).abs_diff(ord(b.to_bits() as i64))
    }
}

/// Runs `call` (with `%x` and `%y` of `dt`) on the JIT of every target and on eager; the largest
/// distance in ulps.
fn worst(call: &str, dt: DType, x: &Tensor, y: &Tensor) -> u64 {
    let (n, d) = (x.numel(), dt.short_name());
    let g = parse(&format!(
        "graph(%x: {d}[{n}], %y: {d}[{n}]):\n  %0: {d}[{n}] = {call}\n  return (%0)\n"
    ))
    .unwrap();
    let ins = [x.to_dtype(dt), y.to_dtype(dt)];
    let want = EagerBackend.compile(&g).unwrap().run(&ins).unwrap()[0].to_vec::<f64>();
    let mut w = 0;
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        assert!(
            exe.is_jitted() && exe.step_counts().1 == 0,
            "{call}: not one kernel\n{}",
            exe.dump()
        );
        let got = exe.run(&ins).unwrap()[0].to_vec::<f64>();
        for (i, (a, e)) in got.iter().zip(&want).enumerate() {
            let u = ulps(*a, *e, dt);
            assert!(
                u < u64::MAX,
                "{}: {call} element {i}: got {a}, want {e}",
                b.target_name()
            );
            w = w.max(u);
        }
    }
    w
}

#[test]
fn expression_ops_match_eager() {
    let v = inputs(997);
    let n = v.len();
    let x = Tensor::from_vec(v.clone(), &[n]).unwrap();
    // `y` for xlogy: positive, with zeros, NaN and infinity in `x`'s specials' places.
    let y = Tensor::from_vec(v.iter().rev().map(|t| t.abs() * 3.0).collect(), &[n]).unwrap();
    for (call, f32_bound) in [
        ("logit(%x, None)", 4),
        ("logit(%x, 0.1)", 4),
        ("logit(%x, 0.0)", 4),
        ("xlogy(%x, %y)", 4),
        ("xlogy(%y, %x)", 4),
        ("erfinv(%x)", 0),
    ] {
        assert_eq!(worst(call, DType::Float64, &x, &y), 0, "{call} f64");
        let w = worst(call, DType::Float32, &x, &y);
        assert!(w <= f32_bound, "{call} f32: {w} ulps");
    }
}
