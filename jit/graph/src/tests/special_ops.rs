//! `logit`, `xlogy` and `erfinv` (ops defined by their scalar expressions) against PyTorch's
//! results (`special_ops_golden.txt`, made by `gen_special_ops.py`), through the registry's eager
//! kernels, in f32 and f64: within 1 ulp.

use rynamo_tensor::{DType, Tensor};

use crate::{IValue, Op, Value, registry};

const GOLDEN: &str = include_str!("special_ops_golden.txt");

/// Binds and runs `op` on positional arguments.
fn call(op: Op, args: Vec<IValue>) -> Tensor {
    let bound = op.schema().bind(args, vec![]).unwrap();
    registry::call(op, &bound).unwrap().remove(0)
}

/// Distance in units in the last place (0 when both are NaN, or equal infinities).
fn ulps(a: f64, b: f64, bits: u32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    if a == b {
        return 0;
    }
    let ord = |v: i64| if v < 0 { i64::MIN - v } else { v };
    if bits == 32 {
        let (x, y) = (
            (a as f32).to_bits() as i32 as i64,
            (b as f32).to_bits() as i32 as i64,
        );
        ord(x).abs_diff(ord(y))
    } else {
        ord(a.to_bits() as i64).abs_diff(ord(b.to_bits() as i64))
    }
}

fn tensor(v: f64, bits: u32) -> Tensor {
    let t = Tensor::from_vec(vec![v], &[1]).unwrap();
    if bits == 32 {
        t.to_dtype(DType::Float32)
    } else {
        t
    }
}

fn value(t: &Tensor) -> f64 {
    t.to_dtype(DType::Float64).to_vec::<f64>()[0]
}

#[test]
fn special_functions_match_pytorch() {
    let mut worst: std::collections::BTreeMap<String, u64> = Default::default();
    for line in GOLDEN.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let bits: u32 = f[1].parse().unwrap();
        let num = |s: &str| s.parse::<f64>().unwrap();
        let x = Value::Tensor(tensor(num(f[2]), bits));
        let (got, want) = match f[0] {
            "erfinv" => (value(&call(Op::Erfinv, vec![x])), num(f[3])),
            "xlogy" => {
                let y = Value::Tensor(tensor(num(f[3]), bits));
                (value(&call(Op::Xlogy, vec![x, y])), num(f[4]))
            }
            name => {
                let eps = name
                    .strip_prefix("logit_")
                    .map_or(Value::None, |e| Value::Float(num(e)));
                (value(&call(Op::Logit, vec![x, eps])), num(f[3]))
            }
        };
        let d = ulps(got, want, bits);
        let key = format!("{} f{bits}", f[0]);
        let w = worst.entry(key).or_default();
        *w = (*w).max(d);
        assert!(d <= 1, "{line}: got {got} ({d} ulp)");
    }
    eprintln!("worst ulps: {worst:?}");
}

#[test]
fn logit_xlogy_erfinv_promote_integers_to_the_default_float() {
    let i = || Value::Tensor(Tensor::from_vec(vec![0i64, 1], &[2]).unwrap());
    assert_eq!(call(Op::Erfinv, vec![i()]).dtype(), DType::Float32);
    let l = call(Op::Logit, vec![i(), Value::Float(0.25)]);
    assert_eq!(l.to_vec::<f32>(), vec![-(3.0f32.ln()), 3.0f32.ln()]);
    let x = call(Op::Xlogy, vec![i(), Value::Int(2)]);
    assert_eq!(x.dtype(), DType::Float32);
    let h = Value::Tensor(
        Tensor::from_vec(vec![0.25f32], &[1])
            .unwrap()
            .to_dtype(DType::Float16),
    );
    assert_eq!(
        call(Op::Logit, vec![h, Value::None]).dtype(),
        DType::Float16
    );
}
