//! Independent references for dtypes (PyTorch's promotion table, written out) and the value
//! comparison (ulp distance in the output dtype, plus a scaled term for accumulations).

use rynamo_tensor::half::{bf16, f16};
use rynamo_tensor::{DType, Tensor};

use crate::wire::{RefArray, RefData};

/// PyTorch's `promoteTypes` lookup, in `DType::REAL` order (b1 u1 i1 i2 i4 i8 f2 bf f4 f8), as
/// printed in `c10/core/ScalarType.cpp` (reordered).
const PROMOTE: [[u8; 10]; 10] = {
    const B1: u8 = 0;
    const U1: u8 = 1;
    const I1: u8 = 2;
    const I2: u8 = 3;
    const I4: u8 = 4;
    const I8: u8 = 5;
    const F2: u8 = 6;
    const BF: u8 = 7;
    const F4: u8 = 8;
    const F8: u8 = 9;
    [
        /* b1 */ [B1, U1, I1, I2, I4, I8, F2, BF, F4, F8],
        /* u1 */ [U1, U1, I2, I2, I4, I8, F2, BF, F4, F8],
        /* i1 */ [I1, I2, I1, I2, I4, I8, F2, BF, F4, F8],
        /* i2 */ [I2, I2, I2, I2, I4, I8, F2, BF, F4, F8],
        /* i4 */ [I4, I4, I4, I4, I4, I8, F2, BF, F4, F8],
        /* i8 */ [I8, I8, I8, I8, I8, I8, F2, BF, F4, F8],
        /* f2 */ [F2, F2, F2, F2, F2, F2, F2, F4, F4, F8],
        /* bf */ [BF, BF, BF, BF, BF, BF, F4, BF, F4, F8],
        /* f4 */ [F4, F4, F4, F4, F4, F4, F4, F4, F4, F8],
        /* f8 */ [F8, F8, F8, F8, F8, F8, F8, F8, F8, F8],
    ]
};

pub fn promote(a: DType, b: DType) -> DType {
    DType::REAL[PROMOTE[a as usize][b as usize] as usize]
}

/// One operand of a promotion: a dimensioned tensor, a zero-dim tensor, or a Python number.
#[derive(Clone, Copy, Debug)]
pub enum Opd {
    Dim(DType),
    Zero(DType),
    Num(DType),
}

fn rank(d: DType) -> u8 {
    if d.is_floating_point() {
        2
    } else if d == DType::Bool {
        0
    } else {
        1
    }
}

/// `torch.result_type`: dimensioned tensors win unless a zero-dim tensor or a number is of a
/// higher kind (bool < int < float); numbers count as int64 / float32.
pub fn result_type(ops: &[Opd]) -> DType {
    let fold = |ds: Vec<DType>| ds.into_iter().reduce(promote);
    let dim = fold(
        ops.iter()
            .filter_map(|o| if let Opd::Dim(d) = o { Some(*d) } else { None })
            .collect(),
    );
    let zero = fold(
        ops.iter()
            .filter_map(|o| if let Opd::Zero(d) = o { Some(*d) } else { None })
            .collect(),
    );
    let num = fold(
        ops.iter()
            .filter_map(|o| if let Opd::Num(d) = o { Some(*d) } else { None })
            .collect(),
    );
    let combine = |hi: Option<DType>, lo: Option<DType>| match (hi, lo) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => Some(if rank(l) > rank(h) { promote(h, l) } else { h }),
    };
    combine(dim, combine(zero, num)).unwrap_or(DType::Float32)
}

/// Rounds an f64 to `dt` and back.
fn round_to(v: f64, dt: DType) -> f64 {
    match dt {
        DType::Float16 => f16::from_f64(v).to_f64(),
        DType::BFloat16 => bf16::from_f64(v).to_f64(),
        DType::Float32 => v as f32 as f64,
        _ => v,
    }
}

/// Monotone integer key of a float in `dt` (adjacent floats differ by 1; ±0 coincide).
fn key(v: f64, dt: DType) -> i64 {
    let (bits, sign) = match dt {
        DType::Float16 => (i64::from(f16::from_f64(v).to_bits()), 1i64 << 15),
        DType::BFloat16 => (i64::from(bf16::from_f64(v).to_bits()), 1i64 << 15),
        DType::Float32 => (i64::from((v as f32).to_bits()), 1i64 << 31),
        _ => (v.to_bits() as i64, i64::MIN),
    };
    if dt == DType::Float64 {
        if bits < 0 { i64::MIN - bits } else { bits }
    } else if bits & sign != 0 {
        -(bits & !sign)
    } else {
        bits
    }
}

/// Machine epsilon of the dtype a result of `dt` is computed in.
fn compute_eps(dt: DType) -> f64 {
    if dt == DType::Float64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    }
}

/// The largest error seen, in ulps, for the per-op summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    pub max_ulp: u64,
}

/// Compares one output against its reference. `ulps` bounds the distance in the output dtype;
/// `k * eps * scale` is added where a scale array is given (accumulated rounding).
pub fn check(
    got: &Tensor,
    want: &RefArray,
    ulps: u64,
    k: f64,
    scale: Option<&RefArray>,
    seen: &mut Seen,
) -> Result<(), String> {
    if got.shape() != want.shape.as_slice() {
        return Err(format!("shape {:?}, want {:?}", got.shape(), want.shape));
    }
    let dt = got.dtype();
    let n = got.numel();
    let scales: Option<Vec<f64>> = scale.map(|s| match &s.data {
        RefData::F(v) => v.clone(),
        RefData::I(v) => v.iter().map(|&x| x as f64).collect(),
        RefData::B(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
    });
    if let Some(s) = &scales
        && s.len() != n
    {
        return Err(format!("scale has {} elements, output {n}", s.len()));
    }
    if dt.is_floating_point() {
        let g = got.to_vec::<f64>();
        let w: Vec<f64> = match &want.data {
            RefData::F(v) => v.clone(),
            RefData::I(v) => v.iter().map(|&x| x as f64).collect(),
            RefData::B(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        };
        for i in 0..n {
            let (a, b) = (g[i], round_to(w[i], dt));
            if a.is_nan() || b.is_nan() {
                if a.is_nan() != b.is_nan() {
                    return Err(format!("element {i}: got {a}, want {b}"));
                }
                continue;
            }
            if a.is_infinite() || b.is_infinite() {
                // An infinity is only matched by itself, unless the scaled term allows slack.
                if a != b && scales.is_none() {
                    return Err(format!("element {i}: got {a}, want {b}"));
                }
            }
            let d = (i128::from(key(a, dt)) - i128::from(key(b, dt)))
                .unsigned_abs()
                .min(u128::from(u64::MAX)) as u64;
            if d <= ulps {
                seen.max_ulp = seen.max_ulp.max(d);
                continue;
            }
            let slack = scales
                .as_ref()
                .map_or(0.0, |s| k * compute_eps(dt) * s[i].abs());
            let err = (a - w[i]).abs();
            if err <= slack + (round_to(w[i], dt) - w[i]).abs() {
                continue;
            }
            return Err(format!(
                "element {i}: got {a:e}, want {:e} (rounded {b:e}); {d} ulps > {ulps}, |err| {err:e} > slack {slack:e}",
                w[i]
            ));
        }
        return Ok(());
    }
    // Integer and bool results compare exactly (references wrap into the output dtype).
    let g = got.to_vec::<i64>();
    let w: Vec<i64> = match &want.data {
        RefData::I(v) => Tensor::from_vec(v.clone(), &[v.len()])
            .expect("1-D")
            .to_dtype(dt)
            .to_vec::<i64>(),
        RefData::B(v) => v.iter().map(|&x| i64::from(x)).collect(),
        RefData::F(v) => Tensor::from_vec(v.clone(), &[v.len()])
            .expect("1-D")
            .to_dtype(dt)
            .to_vec::<i64>(),
    };
    for i in 0..n {
        if g[i] != w[i] {
            return Err(format!("element {i}: got {}, want {}", g[i], w[i]));
        }
    }
    Ok(())
}
