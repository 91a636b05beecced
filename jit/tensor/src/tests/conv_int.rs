//! Integer convolutions against the float64 kernel where every sum is exact (small values), and
//! the narrow dtypes against the int64 result truncated to their width (PyTorch wraps), over
//! strides, paddings, dilations (Long only, as ATen), groups, 1-D and unbatched inputs.

use crate::ops::conv::{ConvArgs, ConvPadding, conv};
use crate::{DType, Tensor};

/// Irregular integers in [-11, 11], scaled.
fn ints(shape: &[usize], scale: i64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<i64> = (0..n as i64).map(|i| (i * 37 % 23 - 11) * scale).collect();
    Tensor::from_vec(v, shape).unwrap()
}

struct Case {
    x: &'static [usize],
    w: &'static [usize],
    stride: &'static [i64],
    padding: &'static [i64],
    dilation: &'static [i64],
    groups: i64,
}

const CASES: &[Case] = &[
    Case {
        x: &[2, 4, 7, 6],
        w: &[6, 2, 3, 2],
        stride: &[2, 1],
        padding: &[1, 2],
        dilation: &[1],
        groups: 2,
    },
    Case {
        x: &[1, 3, 5, 5],
        w: &[2, 3, 1, 1],
        stride: &[1],
        padding: &[0],
        dilation: &[1],
        groups: 1,
    },
    Case {
        x: &[3, 2, 6, 5],
        w: &[4, 2, 2, 3],
        stride: &[1, 2],
        padding: &[2],
        dilation: &[2, 1],
        groups: 1,
    },
    Case {
        x: &[2, 4, 9],
        w: &[6, 2, 3],
        stride: &[2],
        padding: &[1],
        dilation: &[2],
        groups: 2,
    },
    Case {
        x: &[3, 6, 4],
        w: &[3, 1, 2, 2],
        stride: &[1],
        padding: &[1],
        dilation: &[1],
        groups: 3,
    },
];

fn run(c: &Case, x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> crate::Result<Tensor> {
    let nd = c.w.len() - 2;
    let a = ConvArgs {
        stride: c.stride,
        padding: ConvPadding::Explicit(c.padding),
        dilation: c.dilation,
        groups: c.groups,
    };
    conv(nd, x, w, b, &a)
}

#[test]
fn int64_equals_the_exact_float_result() {
    for c in CASES {
        let (x, w, b) = (ints(c.x, 3), ints(c.w, 5), ints(&[c.w[0]], 7));
        let got = run(c, &x, &w, Some(&b)).unwrap();
        let f = |t: &Tensor| t.to_dtype(DType::Float64);
        let want = run(c, &f(&x), &f(&w), Some(&f(&b))).unwrap();
        assert_eq!(got.dtype(), DType::Int64);
        assert_eq!(got.shape(), want.shape());
        let want: Vec<i64> = want.to_vec::<f64>().iter().map(|&v| v as i64).collect();
        assert_eq!(got.to_vec::<i64>(), want, "x {:?} w {:?}", c.x, c.w);
    }
}

#[test]
fn narrow_dtypes_wrap_as_the_truncated_int64_result() {
    for c in CASES.iter().filter(|c| c.dilation == [1]) {
        // Products of about 2^20 overflow every narrow dtype.
        let (x, w, b) = (ints(c.x, 97), ints(c.w, 89), ints(&[c.w[0]], 1000));
        let wide = run(c, &x, &w, Some(&b)).unwrap().to_vec::<i64>();
        for dt in [DType::UInt8, DType::Int8, DType::Int16, DType::Int32] {
            let got = run(c, &x.to_dtype(dt), &w.to_dtype(dt), Some(&b.to_dtype(dt))).unwrap();
            assert_eq!(got.dtype(), dt);
            let truncated = Tensor::from_vec(wide.clone(), got.shape())
                .unwrap()
                .to_dtype(dt);
            assert_eq!(
                got.to_vec::<i64>(),
                truncated.to_vec::<i64>(),
                "{dt:?} x {:?}",
                c.x
            );
        }
    }
}

#[test]
fn int64_wraps_on_overflow() {
    let c = &CASES[3];
    let (x, w) = (ints(c.x, 1 << 40), ints(c.w, (1 << 30) + 1));
    let got = run(c, &x, &w, None).unwrap().to_vec::<i64>();
    // The same sums in i128, wrapped to 64 bits.
    let (xs, ws) = (x.to_vec::<i64>(), w.to_vec::<i64>());
    let plain = Case {
        dilation: &[1],
        ..*c
    };
    let _ = plain;
    let (l, k, cg) = (got.len() / (c.x[0] * c.w[0]), c.w[2], c.w[1]);
    let (mut want, mut wrapped) = (Vec::new(), false);
    for n in 0..c.x[0] {
        for o in 0..c.w[0] {
            for j in 0..l {
                let mut s: i128 = 0;
                for ci in 0..cg {
                    let ch = o / (c.w[0] / 2) * cg + ci;
                    for kk in 0..k {
                        let i = (j * 2 + kk * 2) as i64 - 1;
                        if (0..c.x[2] as i64).contains(&i) {
                            let xv = xs[(n * c.x[1] + ch) * c.x[2] + i as usize];
                            s += i128::from(xv) * i128::from(ws[(o * cg + ci) * k + kk]);
                        }
                    }
                }
                wrapped |= i128::from(s as i64) != s;
                want.push(s as i64);
            }
        }
    }
    assert_eq!(got, want);
    assert!(wrapped, "some sums must overflow 64 bits");
}

#[test]
fn dilation_takes_long_only_and_bool_never() {
    let c = &CASES[2];
    let err = run(
        c,
        &ints(c.x, 1).to_dtype(DType::Int32),
        &ints(c.w, 1).to_dtype(DType::Int32),
        None,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "\"slow_conv_dilated<>\" not implemented for 'Int'"
    );
    let c = &CASES[0];
    let err = run(
        c,
        &ints(c.x, 1).to_dtype(DType::Bool),
        &ints(c.w, 1).to_dtype(DType::Bool),
        None,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "\"slow_conv2d_cpu\" not implemented for 'Bool'"
    );
}
