//! The autograd backward kernels (`conv_backward`, `pool_backward`, `norm_backward`), and the
//! convolution they differentiate, against naive f64 loops written from the definitions (each
//! output's contribution added to the inputs it read), in f32 and f64, on shapes with strides,
//! padding, dilation, groups, ceil mode and more rows than one parallel task.

use super::*;
use crate::DType;
use crate::ops::conv::{self, ConvArgs, ConvPadding};
use crate::ops::conv_backward::{self as cb, ConvBackwardArgs};
use crate::ops::norm_backward as nb;
use crate::ops::pool_backward::{self as pb, AvgPoolArgs};
use crate::random::{Generator, randn};

fn rand(shape: &[usize], seed: u64) -> Tensor {
    randn(shape, Some(DType::Float64), Some(&Generator::new(seed))).unwrap()
}

/// Checks `f` on f64 inputs, and on the same inputs rounded to f32 (looser), against `want`.
fn both(inputs: &[Tensor], want: &[f64], f: impl Fn(&[Tensor]) -> Tensor) {
    let got = f(inputs);
    assert_eq!(got.dtype(), DType::Float64);
    assert_close(&got.to_vec::<f64>(), want, 1e-10);
    let f32s: Vec<Tensor> = inputs.iter().map(|t| t.to_dtype(DType::Float32)).collect();
    let got = f(&f32s);
    assert_eq!(got.dtype(), DType::Float32);
    assert_close(&got.to_vec::<f64>(), want, 2e-4);
}

/// 2-D convolution geometry of the naive references.
struct Conv {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    o: usize,
    kh: usize,
    kw: usize,
    s: [usize; 2],
    p: [usize; 2],
    d: [usize; 2],
    g: usize,
    oh: usize,
    ow: usize,
}

impl Conv {
    /// Calls `f(n, o, y, x, ci, i, j, ih, iw)` for every in-bounds product of the forward.
    fn each(&self, mut f: impl FnMut([usize; 9])) {
        let (cg, og) = (self.c / self.g, self.o / self.g);
        for n in 0..self.n {
            for o in 0..self.o {
                let grp = o / og;
                for y in 0..self.oh {
                    for x in 0..self.ow {
                        for ci in 0..cg {
                            for i in 0..self.kh {
                                for j in 0..self.kw {
                                    let ih = (y * self.s[0] + i * self.d[0]) as isize
                                        - self.p[0] as isize;
                                    let iw = (x * self.s[1] + j * self.d[1]) as isize
                                        - self.p[1] as isize;
                                    if ih < 0
                                        || iw < 0
                                        || ih >= self.h as isize
                                        || iw >= self.w as isize
                                    {
                                        continue;
                                    }
                                    let cin = grp * cg + ci;
                                    f([n, o, y, x, cin, i, j, ih as usize, iw as usize]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn conv_backward_matches_the_definition() {
    // (n, c, h, w, o, kh, kw, stride, pad, dilation, groups)
    let cases = [
        (2, 4, 6, 5, 3, 3, 3, [1, 1], [1, 1], [1, 1], 1),
        (3, 4, 7, 6, 6, 2, 3, [2, 1], [1, 2], [2, 1], 2),
        (1, 3, 5, 5, 2, 1, 1, [1, 1], [0, 0], [1, 1], 1),
        (2, 2, 1, 9, 4, 1, 3, [1, 2], [0, 1], [1, 2], 2),
        // row taps (stride 1 in height, kernel height > 1): dilated rows, groups, padding
        // taller than the kernel reach, strided columns, a kernel as tall as the input
        (2, 4, 7, 6, 4, 3, 2, [1, 2], [2, 1], [2, 1], 2),
        (3, 3, 5, 8, 5, 2, 3, [1, 3], [3, 0], [1, 2], 1),
        (2, 2, 4, 4, 2, 4, 1, [1, 1], [0, 0], [1, 1], 1),
        // row taps by residue class (stride > 1 in height): W12's 3x3 stride 2; four rows at
        // stride 3 (classes {0, 3}, {1}, {2}); dilation 3 at stride 2 (the second class's
        // first view starts one row in; a batch of 3, so that the columns saved outweigh
        // repacking the weight); a class past the padding (im2col instead)
        (2, 3, 9, 8, 4, 3, 3, [2, 2], [1, 1], [1, 1], 1),
        (2, 2, 11, 7, 3, 4, 2, [3, 1], [2, 0], [1, 1], 1),
        (3, 2, 10, 6, 2, 3, 3, [2, 1], [3, 1], [3, 1], 1),
        (2, 2, 9, 5, 2, 3, 2, [2, 1], [0, 0], [1, 1], 1),
    ];
    for (seed, &(n, c, h, w, o, kh, kw, s, p, d, g)) in cases.iter().enumerate() {
        let oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1) / s[0] + 1;
        let ow = (w + 2 * p[1] - d[1] * (kw - 1) - 1) / s[1] + 1;
        let geo = Conv {
            n,
            c,
            h,
            w,
            o,
            kh,
            kw,
            s,
            p,
            d,
            g,
            oh,
            ow,
        };
        let x = rand(&[n, c, h, w], 10 + seed as u64);
        let wt = rand(&[o, c / g, kh, kw], 20 + seed as u64);
        let gout = rand(&[n, o, oh, ow], 30 + seed as u64);
        let (xv, wv, gv) = (x.to_vec::<f64>(), wt.to_vec::<f64>(), gout.to_vec::<f64>());
        let mut dx = vec![0.0; xv.len()];
        let mut dw = vec![0.0; wv.len()];
        let mut fwd = vec![0.0; gv.len()];
        let cg = c / g;
        geo.each(|[n_, o_, y, x_, cin, i, j, ih, iw]| {
            let gi = ((n_ * o + o_) * oh + y) * ow + x_;
            let xi = ((n_ * c + cin) * h + ih) * w + iw;
            let wi = ((o_ * cg + cin % cg) * kh + i) * kw + j;
            fwd[gi] += xv[xi] * wv[wi];
            dx[xi] += gv[gi] * wv[wi];
            dw[wi] += gv[gi] * xv[xi];
        });
        let (si, pi, di) = (
            s.map(|v| v as i64),
            p.map(|v| v as i64),
            d.map(|v| v as i64),
        );
        let a = ConvBackwardArgs {
            stride: &si,
            padding: &pi,
            dilation: &di,
            groups: g as i64,
        };
        let xs: Vec<i64> = [n, c, h, w].iter().map(|&v| v as i64).collect();
        let ws: Vec<i64> = wt.shape().iter().map(|&v| v as i64).collect();
        let fa = ConvArgs {
            stride: &si,
            padding: ConvPadding::Explicit(&pi),
            dilation: &di,
            groups: g as i64,
        };
        both(&[x.clone(), wt.clone()], &fwd, |t| {
            conv::conv(2, &t[0], &t[1], None, &fa).unwrap()
        });
        both(&[gout.clone(), wt.clone()], &dx, |t| {
            cb::conv_backward_input(&t[0], &t[1], &xs, &a).unwrap()
        });
        both(&[gout.clone(), x.clone()], &dw, |t| {
            cb::conv_backward_weight(&t[0], &t[1], &ws, &a).unwrap()
        });
        if h == 1 {
            // the same as a 1-D convolution
            let a1 = ConvBackwardArgs {
                stride: &si[1..],
                padding: &pi[1..],
                dilation: &di[1..],
                groups: g as i64,
            };
            let g1 = gout.reshape(&[n as i64, o as i64, ow as i64]).unwrap();
            let x1 = x.reshape(&[n as i64, c as i64, w as i64]).unwrap();
            let w1 = wt.reshape(&[o as i64, (c / g) as i64, kw as i64]).unwrap();
            let got = cb::conv_backward_input(&g1, &w1, &[xs[0], xs[1], xs[3]], &a1).unwrap();
            assert_close(&got.to_vec::<f64>(), &dx, 1e-10);
            let got = cb::conv_backward_weight(&g1, &x1, &[ws[0], ws[1], ws[3]], &a1).unwrap();
            assert_close(&got.to_vec::<f64>(), &dw, 1e-10);
        }
    }
}

#[test]
fn pool_backward_matches_the_definition() {
    let (n, c, h, w) = (2, 3, 7, 6);
    let x = rand(&[n, c, h, w], 40);
    let xs = [n as i64, c as i64, h as i64, w as i64];
    // max pool: the gradient lands on the argmax
    let (_, idx) = crate::ops::pool::max_pool2d(&x, &[3, 2], &[2], &[1], &[1, 2], true).unwrap();
    let gout = rand(idx.shape(), 41);
    let mut want = vec![0.0; x.numel()];
    let (iv, gv) = (idx.to_vec::<i64>(), gout.to_vec::<f64>());
    let per = iv.len() / (n * c);
    for (k, (&i, &g)) in iv.iter().zip(&gv).enumerate() {
        want[(k / per) * h * w + i as usize] += g;
    }
    both(std::slice::from_ref(&gout), &want, |t| {
        pb::max_pool2d_backward(&t[0], &xs, &idx).unwrap()
    });
    // avg pool: every window position gets the output's gradient over the divisor
    for (k, s, p, ceil, cip, div) in [
        ([3, 2], [2, 1], [1, 1], true, true, None),
        ([3, 3], [2, 2], [1, 0], false, false, None),
        ([2, 2], [2, 2], [0, 0], true, true, Some(3)),
    ] {
        let a = AvgPoolArgs {
            kernel: &k,
            stride: &s,
            padding: &p,
            ceil_mode: ceil,
            count_include_pad: cip,
            divisor: div,
        };
        let fwd = crate::ops::pool::avg_pool2d(&x, &k, &s, &p, ceil, cip, div).unwrap();
        let (oh, ow) = (fwd.shape()[2], fwd.shape()[3]);
        let gout = rand(fwd.shape(), 42);
        let gv = gout.to_vec::<f64>();
        let mut want = vec![0.0; x.numel()];
        for pl in 0..n * c {
            for y in 0..oh {
                for xo in 0..ow {
                    let hs = (y as i64 * s[0]) - p[0];
                    let ws = (xo as i64 * s[1]) - p[1];
                    let he = (hs + k[0]).min(h as i64 + p[0]);
                    let we = (ws + k[1]).min(w as i64 + p[1]);
                    let pool = ((he - hs) * (we - ws)) as f64;
                    let (hs, ws) = (hs.max(0), ws.max(0));
                    let (he, we) = (he.min(h as i64), we.min(w as i64));
                    let d = div.map_or(
                        if cip {
                            pool
                        } else {
                            ((he - hs) * (we - ws)) as f64
                        },
                        |d| d as f64,
                    );
                    for r in hs..he {
                        for q in ws..we {
                            want[pl * h * w + r as usize * w + q as usize] +=
                                gv[(pl * oh + y) * ow + xo] / d;
                        }
                    }
                }
            }
        }
        both(std::slice::from_ref(&gout), &want, |t| {
            pb::avg_pool2d_backward(&t[0], &xs, &a).unwrap()
        });
    }
    // adaptive: output cell (y, x) averages rows floor(y h / oh)..ceil((y+1) h / oh)
    let (oh, ow) = (3, 4);
    let gout = rand(&[n, c, oh, ow], 43);
    let gv = gout.to_vec::<f64>();
    let mut want = vec![0.0; x.numel()];
    for pl in 0..n * c {
        for y in 0..oh {
            let (hs, he) = (y * h / oh, ((y + 1) * h).div_ceil(oh));
            for xo in 0..ow {
                let (ws, we) = (xo * w / ow, ((xo + 1) * w).div_ceil(ow));
                let area = ((he - hs) * (we - ws)) as f64;
                for r in hs..he {
                    for q in ws..we {
                        want[pl * h * w + r * w + q] += gv[(pl * oh + y) * ow + xo] / area;
                    }
                }
            }
        }
    }
    both(&[gout], &want, |t| {
        pb::adaptive_avg_pool2d_backward(&t[0], &xs).unwrap()
    });
}

/// The gradients of normalizing rows of `x` (`[rows, inner]`, scale per `inner` position)
/// from the closed form, in f64.
fn norm_reference(x: &[f64], g: &[f64], w: &[f64], inner: usize, eps: f64) -> Vec<f64> {
    let mut dx = vec![0.0; x.len()];
    for (r, (xr, gr)) in x.chunks(inner).zip(g.chunks(inner)).enumerate() {
        let m = xr.iter().sum::<f64>() / inner as f64;
        let var = xr.iter().map(|v| (v - m).powi(2)).sum::<f64>() / inner as f64;
        let rstd = 1.0 / (var + eps).sqrt();
        let xh: Vec<f64> = xr.iter().map(|v| (v - m) * rstd).collect();
        let gw: Vec<f64> = gr.iter().zip(w).map(|(a, b)| a * b).collect();
        let m1 = gw.iter().sum::<f64>() / inner as f64;
        let m2 = gw.iter().zip(&xh).map(|(a, b)| a * b).sum::<f64>() / inner as f64;
        for i in 0..inner {
            dx[r * inner + i] = rstd * (gw[i] - m1 - xh[i] * m2);
        }
    }
    dx
}

#[test]
fn norm_backward_matches_the_closed_form() {
    // layer norm over the last two dims, rows enough for several parallel tasks
    let (rows, inner) = (3000, 12);
    let x = rand(&[rows, 3, 4], 50);
    let g = rand(&[rows, 3, 4], 51);
    let w = rand(&[3, 4], 52);
    let (xv, gv, wv) = (x.to_vec::<f64>(), g.to_vec::<f64>(), w.to_vec::<f64>());
    let eps = 1e-3;
    let want_dx = norm_reference(&xv, &gv, &wv, inner, eps);
    let mut want_dw = vec![0.0; inner];
    let mut want_db = vec![0.0; inner];
    for (xr, gr) in xv.chunks(inner).zip(gv.chunks(inner)) {
        let m = xr.iter().sum::<f64>() / inner as f64;
        let var = xr.iter().map(|v| (v - m).powi(2)).sum::<f64>() / inner as f64;
        for i in 0..inner {
            want_dw[i] += gr[i] * (xr[i] - m) / (var + eps).sqrt();
            want_db[i] += gr[i];
        }
    }
    for which in 0..3 {
        let want = [&want_dx, &want_dw, &want_db][which];
        both(&[g.clone(), x.clone(), w.clone()], want, |t| {
            nb::layer_norm_backward(&t[0], &t[1], &[3, 4], Some(&t[2]), eps).unwrap()[which].clone()
        });
    }
    // batch norm: channel c of [n, c, s] is one row of [c, n * s]
    let (n, c, s) = (5, 3, 7);
    let x = rand(&[n, c, s], 53);
    let g = rand(&[n, c, s], 54);
    let w = rand(&[c], 55);
    let to_rows = |t: &Tensor| t.permute(&[1, 0, 2]).unwrap().contiguous().to_vec::<f64>();
    let (xr, gr) = (to_rows(&x), to_rows(&g));
    let wv = w.to_vec::<f64>();
    let mut want = vec![0.0; n * c * s];
    for ch in 0..c {
        let r = ch * n * s..(ch + 1) * n * s;
        let d = norm_reference(
            &xr[r.clone()],
            &gr[r.clone()],
            &vec![wv[ch]; n * s],
            n * s,
            eps,
        );
        for (k, v) in d.into_iter().enumerate() {
            let (i, j) = (k / s, k % s);
            want[(i * c + ch) * s + j] = v;
        }
    }
    both(&[g.clone(), x.clone(), w.clone()], &want, |t| {
        nb::batch_norm_backward(&t[0], &t[1], Some(&t[2]), eps).unwrap()[0].clone()
    });
}

#[test]
fn in_bounds_is_the_brute_force_stretch() {
    // every offset (padding and dilation shift the window's first column), stride and width,
    // including windows wholly in the padding and output rows longer than the input
    for stride in 1..5usize {
        for w in 1..9usize {
            for ow in 0..12usize {
                for off in -12..12isize {
                    let inside: Vec<usize> = (0..ow)
                        .filter(|&x| {
                            let iw = (x * stride) as isize + off;
                            iw >= 0 && iw < w as isize
                        })
                        .collect();
                    let (x0, x1) = crate::ops::im2col::in_bounds(off, stride, w, ow);
                    let got: Vec<usize> = (x0..x1).collect();
                    assert_eq!(got, inside, "off {off} stride {stride} w {w} ow {ow}");
                }
            }
        }
    }
}

#[test]
fn native_batch_norm_backward_reads_the_saved_statistics() {
    use crate::ops::norm;
    // channel c of [n, c, s] is one row of [c, n * s]; several planes per channel
    let (n, c, s) = (6, 3, 11);
    let (x, g, w) = (rand(&[n, c, s], 60), rand(&[n, c, s], 61), rand(&[c], 62));
    let to_rows = |t: &Tensor| t.permute(&[1, 0, 2]).unwrap().contiguous().to_vec::<f64>();
    let (xr, gr, wv) = (to_rows(&x), to_rows(&g), w.to_vec::<f64>());
    let eps = 1e-3;
    let plane = |ch: usize| ch * n * s..(ch + 1) * n * s;
    let from_rows = |rows: Vec<f64>| {
        let mut v = vec![0.0; n * c * s];
        for (k, val) in rows.into_iter().enumerate() {
            let (ch, i, j) = (k / (n * s), (k % (n * s)) / s, k % s);
            v[(i * c + ch) * s + j] = val;
        }
        v
    };
    // training: the forward's saved mean and invstd, then the closed form
    let mut want_mean = vec![];
    let mut want_invstd = vec![];
    let mut want_dx = vec![];
    for ch in 0..c {
        let xs = &xr[plane(ch)];
        let m = xs.iter().sum::<f64>() / (n * s) as f64;
        let var = xs.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n * s) as f64;
        want_mean.push(m);
        want_invstd.push(1.0 / (var + eps).sqrt());
        let wrow = vec![wv[ch]; n * s];
        want_dx.extend(norm_reference(xs, &gr[plane(ch)], &wrow, n * s, eps));
    }
    let [_, mean, invstd] =
        norm::native_batch_norm(&x, Some(&w), None, None, None, true, 0.1, eps).unwrap();
    assert_close(&mean.to_vec::<f64>(), &want_mean, 1e-12);
    assert_close(&invstd.to_vec::<f64>(), &want_invstd, 1e-12);
    let train = |t: &[Tensor]| {
        let [_, m, r] =
            norm::native_batch_norm(&t[1], Some(&t[2]), None, None, None, true, 0.1, eps).unwrap();
        let none = None;
        nb::native_batch_norm_backward(
            &t[0],
            &t[1],
            Some(&t[2]),
            none,
            none,
            Some(&m),
            Some(&r),
            true,
            eps,
        )
        .unwrap()[0]
            .clone()
    };
    both(
        &[g.clone(), x.clone(), w.clone()],
        &from_rows(want_dx),
        train,
    );
    // evaluation: constant running statistics, d_input = g * w * invstd
    let rm = rand(&[c], 63);
    let rv: Vec<f64> = rand(&[c], 64)
        .to_vec::<f64>()
        .iter()
        .map(|v| v.abs() + 0.2)
        .collect();
    let rv = Tensor::from_vec(rv, &[c]).unwrap();
    let (rmv, rvv) = (rm.to_vec::<f64>(), rv.to_vec::<f64>());
    let mut want = [vec![], vec![0.0; c], vec![0.0; c]];
    for ch in 0..c {
        let inv = 1.0 / (rvv[ch] + eps).sqrt();
        for (xv, gv) in xr[plane(ch)].iter().zip(&gr[plane(ch)]) {
            want[0].push(gv * wv[ch] * inv);
            want[1][ch] += gv * (xv - rmv[ch]) * inv;
            want[2][ch] += gv;
        }
    }
    want[0] = from_rows(std::mem::take(&mut want[0]));
    for (which, want) in want.iter().enumerate() {
        let eval = |t: &[Tensor]| {
            let (rm, rv) = (Some(&t[3]), Some(&t[4]));
            nb::native_batch_norm_backward(
                &t[0],
                &t[1],
                Some(&t[2]),
                rm,
                rv,
                None,
                None,
                false,
                eps,
            )
            .unwrap()[which]
                .clone()
        };
        both(
            &[g.clone(), x.clone(), w.clone(), rm.clone(), rv.clone()],
            want,
            eval,
        );
    }
    // training without the saved statistics is refused, naming them
    let err = nb::native_batch_norm_backward(&g, &x, None, None, None, None, None, true, eps)
        .unwrap_err()
        .to_string();
    assert!(err.contains("save_mean must be defined"), "{err}");
}
