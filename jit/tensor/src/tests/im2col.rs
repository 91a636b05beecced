//! `im2col` and `col2im` against their element-by-element definitions, bit for bit (they only
//! move and add values; col2im must add in the definition's order), over strides, paddings,
//! dilations and kernels that leave windows partly or wholly in the padding.

use crate::ops::conv::Geo;
use crate::ops::im2col::{col2im, im2col};

fn geo(
    hw: [usize; 2],
    k: [usize; 2],
    stride: [usize; 2],
    pad: [usize; 2],
    dil: [usize; 2],
) -> Option<Geo> {
    let mut out = [0; 2];
    for d in 0..2 {
        let eff = dil[d] * (k[d] - 1) + 1;
        let padded = hw[d] + 2 * pad[d];
        if padded < eff {
            return None;
        }
        out[d] = (padded - eff) / stride[d] + 1;
    }
    Some(Geo {
        batched: true,
        n: 1,
        c: 2,
        hw,
        o: 1,
        k,
        stride,
        pad_lo: pad,
        dil,
        groups: 1,
        out,
    })
}

/// The input position `(ih, iw)` that column entry `(i, j, y, x)` reads, if not padding.
fn source(g: &Geo, [i, j, y, x]: [usize; 4]) -> Option<usize> {
    let ih = (y * g.stride[0] + i * g.dil[0]) as isize - g.pad_lo[0] as isize;
    let iw = (x * g.stride[1] + j * g.dil[1]) as isize - g.pad_lo[1] as isize;
    let inside = ih >= 0 && iw >= 0 && ih < g.hw[0] as isize && iw < g.hw[1] as isize;
    inside.then(|| ih as usize * g.hw[1] + iw as usize)
}

fn check(g: &Geo) {
    let (cg, [h, w], [kh, kw], [oh, ow]) = (g.c, g.hw, g.k, g.out);
    let l = oh * ow;
    let src: Vec<f32> = (0..cg * h * w).map(|v| (v as f32 * 0.37).sin()).collect();
    // NaN-filled: every entry must be written
    let mut col = vec![f32::NAN; cg * kh * kw * l];
    im2col(g, cg, &src, &mut col);
    let vals: Vec<f32> = (0..col.len())
        .map(|v| (v as f32 * 0.91).cos() * 3.0)
        .collect();
    let mut dst: Vec<f32> = (0..src.len())
        .map(|v| (v as f32 * 0.13).sin() * 1e-3)
        .collect();
    let mut want_dst = dst.clone();
    col2im(g, cg, &vals, &mut dst);
    let mut e = 0;
    for c in 0..cg {
        for i in 0..kh {
            for j in 0..kw {
                for y in 0..oh {
                    for x in 0..ow {
                        let at = source(g, [i, j, y, x]).map(|p| c * h * w + p);
                        let want = at.map_or(0.0, |p| src[p]);
                        assert_eq!(col[e].to_bits(), want.to_bits(), "im2col {g:?} entry {e}");
                        if let Some(p) = at {
                            want_dst[p] += vals[e];
                        }
                        e += 1;
                    }
                }
            }
        }
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&dst), bits(&want_dst), "col2im {g:?}");
}

#[test]
fn im2col_and_col2im_are_their_definitions_bit_for_bit() {
    let mut checked = 0;
    for hw in [[1, 1], [5, 7], [6, 4], [3, 9]] {
        for k in [[1, 1], [3, 3], [2, 3], [1, 4]] {
            for stride in [[1, 1], [2, 2], [3, 1], [1, 2], [4, 3]] {
                for pad in [[0, 0], [1, 1], [2, 0], [0, 3]] {
                    for dil in [[1, 1], [2, 1], [1, 3]] {
                        if let Some(g) = geo(hw, k, stride, pad, dil) {
                            check(&g);
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} geometries");
}

/// The row-tap class geometries (kernel height 1, more output rows than the input has, as
/// `conv_rows` derives them) at unit strides with output rows as wide as the input's: im2col's
/// single-copy path, against the definition. W12's 16x16 and 32x32 planes, a 3x3 and a 5x5
/// kernel (two padding columns each side), and a dilated kernel.
#[test]
fn unit_stride_class_geometries_are_their_definition() {
    for (hw, kw, pad, dil, extra) in [
        ([16, 16], 3, [1, 1], 1, 2),
        ([32, 32], 3, [1, 1], 1, 2),
        ([7, 5], 5, [2, 2], 1, 4),
        ([6, 9], 3, [2, 3], 3, 4),
        ([4, 4], 3, [0, 1], 1, 0),
    ] {
        let g = Geo {
            k: [1, kw],
            out: [hw[0] + extra, hw[1]],
            ..geo(hw, [1, kw], [1, 1], pad, [1, dil]).unwrap()
        };
        check(&g);
    }
}

#[test]
fn row_taps_take_the_geometries_where_they_hold_fewer_columns() {
    use crate::ops::conv_rows::RowTaps;
    let im2col_len = |g: &Geo| g.c * g.k[0] * g.k[1] * g.out[0] * g.out[1];
    // (hw, kernel, stride, pad, dilation) and the column rows row taps keep, per channel and
    // kernel column: 3x3 at stride 1 (one class), W12's 3x3 at stride 2 (classes {0, 2}, {1}),
    // dilation 3 at stride 2 (classes {0, 2}, {1} with views 0/3 and 1 rows in)
    for (hw, k, s, p, d, rows) in [
        ([16, 16], [3, 3], [1, 1], [1, 1], [1, 1], 18),
        ([32, 32], [3, 3], [2, 2], [1, 1], [1, 1], 33),
        ([10, 6], [3, 3], [2, 1], [3, 1], [3, 1], 14),
    ] {
        // a batch of 4: enough saved columns to outweigh repacking the weight
        let g = Geo {
            n: 4,
            ..geo(hw, k, s, p, d).unwrap()
        };
        let taps = RowTaps::new(&g).expect("row taps");
        assert_eq!(taps.len(g.c), g.c * k[1] * rows * g.out[1], "{g:?}");
        assert!(taps.len(g.c) < im2col_len(&g));
    }
    // a class past the top padding, a single kernel row, and 2 rows at stride 2 (no saving)
    for (k, s, p) in [
        ([3, 2], [2, 1], [0, 0]),
        ([1, 3], [1, 1], [0, 1]),
        ([2, 2], [2, 2], [1, 1]),
    ] {
        let g = geo([9, 5], k, s, p, [1, 1]).unwrap();
        assert!(RowTaps::new(&g).is_none(), "{g:?}");
    }
    // a weight larger than the columns saved (ResNet-18's last layer at batch 1: 512 channels,
    // 2x2 outputs) is not repacked; at a large batch it is
    let layer4 = |n| Geo {
        n,
        c: 512,
        o: 512,
        ..geo([2, 2], [3, 3], [1, 1], [1, 1], [1, 1]).unwrap()
    };
    assert!(RowTaps::new(&layer4(1)).is_none());
    assert!(RowTaps::new(&layer4(2048)).is_some());
}
