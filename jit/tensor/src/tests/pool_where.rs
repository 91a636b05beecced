//! `max_pool2d`'s forward kernels (with indices, and values only) (taps clamped to the input, select-based update) against a
//! naive loop over every window tap with PyTorch's rule (`val > max || isnan(val)`, the first
//! maximum's index), and `where` with a scalar branch (the broadcast-scalar runs of `map3`)
//! against element-wise selection.

use super::*;
use crate::DType;
use crate::ops::pointwise;
use crate::ops::pool::{max_pool2d, max_pool2d_values};
use crate::random::{Generator, randn};

/// The naive reference: every tap of every window, out-of-bounds taps skipped.
#[allow(clippy::too_many_arguments, reason = "the pooling geometry")]
fn naive_max_pool(
    x: &[f64],
    (planes, h, w): (usize, usize, usize),
    (oh, ow): (usize, usize),
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
    d: [usize; 2],
) -> (Vec<f64>, Vec<i64>) {
    let (mut vals, mut idx) = (vec![], vec![]);
    for pl in 0..planes {
        for y in 0..oh {
            for xo in 0..ow {
                let (mut best, mut bi) = (0.0, -1i64);
                for i in 0..k[0] {
                    for j in 0..k[1] {
                        let ih = (y * s[0] + i * d[0]) as i64 - p[0] as i64;
                        let iw = (xo * s[1] + j * d[1]) as i64 - p[1] as i64;
                        if ih < 0 || iw < 0 || ih >= h as i64 || iw >= w as i64 {
                            continue;
                        }
                        let at = (ih * w as i64 + iw) as usize;
                        let v = x[pl * h * w + at];
                        if bi < 0 || v > best || v.is_nan() {
                            best = v;
                            bi = at as i64;
                        }
                    }
                }
                vals.push(best);
                idx.push(bi);
            }
        }
    }
    (vals, idx)
}

#[test]
fn max_pool2d_matches_every_tap() {
    // 8 columns: runs of full windows shorter than a vector; 70: longer (the values-only
    // kernel's vector loops and their tails).
    for (h, w) in [(9, 8), (11, 70)] {
        max_pool2d_matches_every_tap_at(h, w);
    }
}

fn max_pool2d_matches_every_tap_at(h: usize, w: usize) {
    let (n, c) = (2, 3);
    let mut x = randn(
        &[n, c, h, w],
        Some(DType::Float64),
        Some(&Generator::new(7)),
    )
    .unwrap()
    .to_vec::<f64>();
    // NaNs (a later NaN replaces an earlier one) and ties (the first maximum keeps its index).
    x[5] = f64::NAN;
    x[6] = f64::NAN;
    x[20] = 3.0;
    x[21] = 3.0;
    x[28] = 3.0;
    // Signed zeros tie: the first one stays.
    x[30] = 0.0;
    x[31] = -0.0;
    x[32] = -5.0;
    x[33] = -5.0;
    let xt = Tensor::from_vec(x.clone(), &[n, c, h, w]).unwrap();
    for (k, s, p, d, ceil) in [
        ([2, 2], [2, 2], [0, 0], [1, 1], false),
        ([3, 3], [1, 1], [1, 1], [1, 1], false),
        ([3, 2], [2, 1], [1, 1], [1, 2], true),
        ([2, 3], [3, 2], [1, 0], [2, 1], true),
        ([3, 3], [2, 2], [1, 1], [1, 1], false),
        ([1, 1], [1, 1], [0, 0], [1, 1], false),
        ([2, 2], [1, 3], [0, 1], [1, 1], true),
    ] {
        let args = |v: [usize; 2]| [v[0] as i64, v[1] as i64];
        for dt in [DType::Float64, DType::Float32] {
            let (vals, idx) = max_pool2d(
                &xt.to_dtype(dt),
                &args(k),
                &args(s),
                &args(p),
                &args(d),
                ceil,
            )
            .unwrap();
            let [oh, ow] = [vals.shape()[2], vals.shape()[3]];
            let xr = xt.to_dtype(dt).to_vec::<f64>();
            let (want_v, want_i) = naive_max_pool(&xr, (n * c, h, w), (oh, ow), k, s, p, d);
            assert_eq!(
                idx.to_vec::<i64>(),
                want_i,
                "indices, k={k:?} s={s:?} p={p:?} d={d:?}"
            );
            assert_close(&vals.to_vec::<f64>(), &want_v, 0.0);
            // The values-only kernel: the same bits (NaNs and signed zeros included).
            let only = max_pool2d_values(
                &xt.to_dtype(dt),
                &args(k),
                &args(s),
                &args(p),
                &args(d),
                ceil,
            )
            .unwrap();
            let bits = |t: &Tensor| -> Vec<u64> {
                t.to_vec::<f64>().iter().map(|v| v.to_bits()).collect()
            };
            assert_eq!(
                bits(&only),
                bits(&vals),
                "values, k={k:?} s={s:?} p={p:?} d={d:?}"
            );
        }
    }
}

#[test]
fn max_pool2d_integer_input() {
    let x = ti(&[3, 1, 3, 2, 5, 5, 0, 1, 4], &[1, 1, 3, 3]);
    let (v, i) = max_pool2d(&x, &[2, 2], &[1, 1], &[0, 0], &[1, 1], false).unwrap();
    assert_eq!(v.to_vec::<i64>(), vec![5, 5, 5, 5]);
    assert_eq!(i.to_vec::<i64>(), vec![4, 4, 4, 4]);
    let v = max_pool2d_values(&x, &[2, 2], &[1, 1], &[0, 0], &[1, 1], false).unwrap();
    assert_eq!(v.to_vec::<i64>(), vec![5, 5, 5, 5]);
}

#[test]
fn where_with_a_scalar_branch() {
    let n = 5000; // several parallel runs
    let x = randn(&[n], Some(DType::Float32), Some(&Generator::new(3))).unwrap();
    let xv = x.to_vec::<f32>();
    let mask = Tensor::from_vec(xv.iter().map(|&v| v > 0.0).collect::<Vec<_>>(), &[n]).unwrap();
    let right = pointwise::where_(&mask, ts(&x), sc(0.25)).unwrap();
    let left = pointwise::where_(&mask, sc(-1.5), ts(&x)).unwrap();
    let want_r: Vec<f32> = xv.iter().map(|&v| if v > 0.0 { v } else { 0.25 }).collect();
    let want_l: Vec<f32> = xv.iter().map(|&v| if v > 0.0 { -1.5 } else { v }).collect();
    assert_eq!(right.to_vec::<f32>(), want_r);
    assert_eq!(left.to_vec::<f32>(), want_l);
    // A strided (non-contiguous) tensor operand takes the general path and agrees.
    let x2 = x.reshape(&[50, 100]).unwrap().t().unwrap();
    let m2 = mask.reshape(&[50, 100]).unwrap().t().unwrap();
    let r2 = pointwise::where_(&m2, ts(&x2), sc(0.25)).unwrap();
    let want2 = pointwise::where_(&m2.contiguous(), ts(&x2.contiguous()), sc(0.25)).unwrap();
    assert_eq!(r2.to_vec::<f32>(), want2.to_vec::<f32>());
}
