//! Backward kernels of `conv1d` / `conv2d` (PyTorch's `convolution_backward`, split in its two
//! products), on batched tensors (`[N, C, *spatial]`, 1 or 2 spatial dims):
//! - the input gradient: per sample and group `col = W^T @ grad` (a GEMM), then `col2im` sums
//!   each column entry back into the input position it was read from;
//! - the weight gradient: per sample and group `grad @ im2col(x)^T`, summed over samples
//!   (each thread accumulates its samples into its own buffer; the buffers are added at the end).
//!
//! The padding is the leading padding of each dim; the output size comes from the gradient, so
//! asymmetric (`'same'`) padding needs nothing more. Computed in the compute dtype.

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::scratch::with_scratch;
use crate::layout::Shaped;
use crate::ops::conv::{Geo, expand_arg, lift};
use crate::ops::conv_rows::RowTaps;
use crate::ops::im2col::{col2im, im2col};
use crate::ops::matmul::gemm_raw;
use crate::parallel::{parallel_for, parallel_map};
use crate::{DType, Error, Result, Tensor, TensorMeta};

/// Stride, leading padding, dilation and groups of a convolution backward.
#[derive(Clone, Copy, Debug)]
pub struct ConvBackwardArgs<'a> {
    /// Stride per spatial dim (or one for all).
    pub stride: &'a [i64],
    /// Leading padding per spatial dim (or one for all).
    pub padding: &'a [i64],
    /// Dilation per spatial dim (or one for all).
    pub dilation: &'a [i64],
    /// Channel groups.
    pub groups: i64,
}

fn usizes(v: &[i64], what: &str) -> Result<Vec<usize>> {
    v.iter()
        .map(|&x| {
            usize::try_from(x)
                .map_err(|_| Error::Runtime(format!("convolution_backward: negative {what} {x}")))
        })
        .collect()
}

/// The geometry from the gradient's, input's and weight's shapes.
fn geometry(g: &[usize], x: &[usize], w: &[usize], a: &ConvBackwardArgs<'_>) -> Result<Geo> {
    let nd = x.len().wrapping_sub(2);
    if !(nd == 1 || nd == 2) || g.len() != x.len() || w.len() != x.len() {
        bail!(
            Runtime,
            "convolution_backward: expected batched 3-D or 4-D tensors, got grad_output {g:?}, input {x:?}, weight {w:?}"
        );
    }
    if a.groups <= 0 {
        bail!(Runtime, "non-positive groups is not supported");
    }
    let groups = a.groups as usize;
    let stride = usizes(&expand_arg(nd, a.stride, "stride")?, "stride")?;
    let pad = usizes(&expand_arg(nd, a.padding, "padding")?, "padding")?;
    let dil = usizes(&expand_arg(nd, a.dilation, "dilation")?, "dilation")?;
    if stride.contains(&0) || dil.contains(&0) {
        bail!(
            Runtime,
            "convolution_backward: stride and dilation must be positive"
        );
    }
    let (n, c, o) = (x[0], x[1], w[0]);
    if !o.is_multiple_of(groups) || w[1] * groups != c || g[0] != n || g[1] != o {
        bail!(
            Runtime,
            "convolution_backward: grad_output {g:?}, input {x:?} and weight {w:?} do not match with groups={groups}"
        );
    }
    Ok(Geo {
        batched: true,
        n,
        c,
        hw: lift(nd, &x[2..], 1),
        o,
        k: lift(nd, &w[2..], 1),
        stride: lift(nd, &stride, 1),
        pad_lo: lift(nd, &pad, 0),
        dil: lift(nd, &dil, 1),
        groups,
        out: lift(nd, &g[2..], 1),
    })
}

fn float_check(d: DType) -> Result<()> {
    if !d.is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "convolution_backward",
            dtype: d.aten_name(),
        });
    }
    Ok(())
}

fn sizes(v: &[i64]) -> Result<Vec<usize>> {
    usizes(v, "size")
}

/// Shape/dtype rule of the input gradient.
pub fn conv_backward_input_meta<S: Shaped>(
    g: &S,
    w: &S,
    input_size: &[i64],
    a: &ConvBackwardArgs<'_>,
) -> Result<TensorMeta> {
    float_check(g.dtype())?;
    let x = sizes(input_size)?;
    geometry(g.shape(), &x, w.shape(), a)?;
    Ok(TensorMeta::contiguous(g.dtype(), &x))
}

/// Shape/dtype rule of the weight gradient.
pub fn conv_backward_weight_meta<S: Shaped>(
    g: &S,
    x: &S,
    weight_size: &[i64],
    a: &ConvBackwardArgs<'_>,
) -> Result<TensorMeta> {
    float_check(g.dtype())?;
    let w = sizes(weight_size)?;
    geometry(g.shape(), x.shape(), &w, a)?;
    Ok(TensorMeta::contiguous(g.dtype(), &w))
}

/// The gradient of a convolution with respect to its input.
pub fn conv_backward_input(
    g: &Tensor,
    w: &Tensor,
    input_size: &[i64],
    a: &ConvBackwardArgs<'_>,
) -> Result<Tensor> {
    let meta = conv_backward_input_meta(g, w, input_size, a)?;
    let geo = geometry(g.shape(), &meta.shape, w.shape(), a)?;
    let c = g.dtype().compute_dtype();
    let (gc, wc) = (g.to_dtype(c).contiguous(), w.to_dtype(c).contiguous());
    // col2im accumulates into it
    let dx = Tensor::zeros(&meta.shape, c);
    match c {
        DType::Float32 => input_kernel::<f32>(&geo, &gc, &wc, &dx),
        DType::Float64 => input_kernel::<f64>(&geo, &gc, &wc, &dx),
        _ => unreachable!("invariant: float compute dtype"),
    }
    Ok(dx.to_dtype(meta.dtype))
}

/// The gradient of a convolution with respect to its weight.
pub fn conv_backward_weight(
    g: &Tensor,
    x: &Tensor,
    weight_size: &[i64],
    a: &ConvBackwardArgs<'_>,
) -> Result<Tensor> {
    let meta = conv_backward_weight_meta(g, x, weight_size, a)?;
    let geo = geometry(g.shape(), x.shape(), &meta.shape, a)?;
    let c = g.dtype().compute_dtype();
    let (gc, xc) = (g.to_dtype(c).contiguous(), x.to_dtype(c).contiguous());
    let dw = match c {
        DType::Float32 => Tensor::from_vec(weight_kernel::<f32>(&geo, &gc, &xc), &meta.shape)?,
        DType::Float64 => Tensor::from_vec(weight_kernel::<f64>(&geo, &gc, &xc), &meta.shape)?,
        _ => unreachable!("invariant: float compute dtype"),
    };
    Ok(dw.to_dtype(meta.dtype))
}

/// `dst` (`[cols, rows]`) = `src` (`[rows, cols]`) transposed, eight source rows at a time: each
/// source column then gives eight consecutive destination elements from eight independent
/// streams, with the index checks done once per block (the element-wise indexed version cost
/// ~10 instructions an element, 5% of W12's step).
fn transpose<F: Copy>(src: &[F], rows: usize, cols: usize, dst: &mut [F]) {
    const R: usize = 8;
    assert!(
        src.len() >= rows * cols && dst.len() >= rows * cols,
        "invariant: transpose buffers hold rows x cols"
    );
    let full = rows - rows % R;
    for r0 in (0..full).step_by(R) {
        for c in 0..cols {
            for k in 0..R {
                // SAFETY: r0 + k < rows and c < cols, inside both buffers (asserted above).
                unsafe {
                    *dst.get_unchecked_mut(c * rows + r0 + k) =
                        *src.get_unchecked((r0 + k) * cols + c)
                };
            }
        }
    }
    for r in full..rows {
        let line = &src[r * cols..][..cols];
        for (c, &v) in line.iter().enumerate() {
            dst[c * rows + r] = v;
        }
    }
}

/// Whether im2col is the identity (a 1x1 kernel, stride 1, no padding): the GEMMs read and
/// write the tensors directly.
fn is_direct(g: &Geo) -> bool {
    g.k == [1, 1] && g.stride == [1, 1] && g.pad_lo == [0, 0] && g.out == g.hw
}

fn input_kernel<F: Flt>(g: &Geo, gout: &Tensor, w: &Tensor, dx: &Tensor) {
    let [h, wd] = g.hw;
    let [kh, kw] = g.k;
    let l = g.out[0] * g.out[1];
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    let kk = cg * kh * kw;
    let direct = is_direct(g);
    let rows = if direct { None } else { RowTaps::new(g) };
    let packed = rows.as_ref().map(|r| r.pack_weight::<F>(g, w));
    let (pg, pw, px) = (
        SendPtr(gout.data_ptr::<F>()),
        SendPtr(
            packed
                .as_ref()
                .map_or(w.data_ptr::<F>(), |p| p.as_ptr().cast_mut()),
        ),
        SendPtr(dx.data_ptr::<F>()),
    );
    let sample = |n: usize, parallel: bool| {
        let group = |gi: usize, col: &mut [F]| {
            // SAFETY: sample n, group gi of the contiguous dx [n, c, h, w]; disjoint from every
            // other (n, gi).
            let dst = unsafe {
                std::slice::from_raw_parts_mut(
                    px.at(((n * g.c + gi * cg) * h * wd) as isize),
                    cg * h * wd,
                )
            };
            // SAFETY: sample n, group gi of the contiguous gradient [n, o, l].
            let grad = unsafe { pg.at(((n * g.o + gi * og) * l) as isize) }.cast_const();
            if let Some(rows) = &rows {
                let kc = cg * kw;
                for v in rows.views(cg) {
                    // A class's first view writes its entries; the rest of the class's rows
                    // are zeroed first, and its later (overlapping) views add.
                    if v.first {
                        rows.clear_around(cg, &v, col);
                    }
                    // SAFETY: the transpose of kernel row v.i's packed [og, kc] weight block
                    // (row stride 1, column stride kc), times this sample and group's [og, l]
                    // gradient rows, into the [kc, l] view of the columns at v.offset with row
                    // stride v.q (in bounds: a view ends within its class's rows).
                    unsafe {
                        gemm_raw::<F>(
                            (kc, l, og),
                            col[v.offset..].as_mut_ptr(),
                            (v.q as isize, 1),
                            !v.first,
                            pw.at(((gi * kh + v.i) * og * kc) as isize).cast_const(),
                            (1, kc as isize),
                            grad,
                            (l as isize, 1),
                            parallel,
                        );
                    }
                }
                rows.fold(cg, col, dst);
                return;
            }
            let out = if direct {
                dst.as_mut_ptr()
            } else {
                col.as_mut_ptr()
            };
            // SAFETY: W^T of the group's [og, kk] weight rows (row stride 1, column stride kk),
            // times this sample and group's [og, l] gradient rows, into a [kk, l] buffer.
            unsafe {
                gemm_raw::<F>(
                    (kk, l, og),
                    out,
                    (l as isize, 1),
                    false,
                    pw.at((gi * og * kk) as isize).cast_const(),
                    (1, kk as isize),
                    grad,
                    (l as isize, 1),
                    parallel,
                );
            }
            if !direct {
                col2im(g, cg, col, dst);
            }
        };
        // The gemms overwrite the whole buffer (row taps zero what kernel row 0 leaves): no
        // zeroing needed.
        let cols = match &rows {
            Some(r) => r.len(cg),
            None if direct => 0,
            None => kk * l,
        };
        with_scratch::<F, _>(cols, |col| (0..g.groups).for_each(|gi| group(gi, col)));
    };
    if g.n > 1 {
        // The caller works too (see `crate::parallel`).
        parallel_for(g.n, |n| sample(n, false));
    } else {
        (0..g.n).for_each(|n| sample(n, true));
    }
}

/// How many partial weight gradients a batch is split into (independent of the thread count,
/// so results are the same on every machine).
const WEIGHT_GRAD_CHUNKS: usize = 8;

fn weight_kernel<F: Flt>(g: &Geo, gout: &Tensor, x: &Tensor) -> Vec<F> {
    let [h, wd] = g.hw;
    let [kh, kw] = g.k;
    let l = g.out[0] * g.out[1];
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    let kk = cg * kh * kw;
    let (pg, px) = (SendPtr(gout.data_ptr::<F>()), SendPtr(x.data_ptr::<F>()));
    // Adds sample n's products into `acc`, which holds each group's gradient transposed
    // ([kk, og]); `col`, `gt` scratch buffers. The product is computed as `col @ grad^T`: the
    // gemm crate runs these long-k products ~10x faster with row-major operands than with a
    // transposed one (measured at 32x144x1024), and of the two operands the gradient rows
    // (`og` of them) are the cheaper to transpose: the columns have `kk` (= 9x the channels
    // for a 3x3 kernel) and need no copy at all for a 1x1 convolution.
    let direct = is_direct(g);
    // Row taps: `acc` holds each group's gradient as [kh][cg * kw][og] blocks, one GEMM per
    // kernel row over its view of the columns.
    let rows = if direct { None } else { RowTaps::new(g) };
    // Per-thread scratch for the columns and the transposed gradient rows: both are written
    // before they are read, so they need no zeroing (a fresh `Vec` per chunk cost a memset of
    // each, ~1% of W12's step).
    let scratch = match &rows {
        Some(r) => r.len(cg),
        None if direct => 0,
        None => kk * l,
    } + og * l;
    let sample = |n: usize, acc: &mut [F], buf: &mut [F], parallel: bool| {
        let (col, gt) = buf.split_at_mut(scratch - og * l);
        for gi in 0..g.groups {
            // SAFETY: sample n, group gi of the contiguous input [n, c, h, w].
            let src = unsafe {
                std::slice::from_raw_parts(
                    px.at(((n * g.c + gi * cg) * h * wd) as isize),
                    cg * h * wd,
                )
            };
            // SAFETY: sample n, group gi of the contiguous gradient [n, o, l].
            let grad = unsafe {
                std::slice::from_raw_parts(pg.at(((n * g.o + gi * og) * l) as isize), og * l)
            };
            transpose(grad, og, l, gt);
            if let Some(rows) = &rows {
                rows.expand(cg, src, col);
                let kc = cg * kw;
                for v in rows.views(cg) {
                    // SAFETY: the [kc, l] view of the columns at v.offset with row stride v.q
                    // (in bounds: a view ends within its class's rows) times the [l, og]
                    // transposed gradient rows, added into the group's kernel-row-v.i [kc, og]
                    // block of `acc`.
                    unsafe {
                        gemm_raw::<F>(
                            (kc, og, l),
                            acc[(gi * kh + v.i) * kc * og..].as_mut_ptr(),
                            (og as isize, 1),
                            true,
                            col[v.offset..].as_ptr(),
                            (v.q as isize, 1),
                            gt.as_ptr(),
                            (og as isize, 1),
                            parallel,
                        );
                    }
                }
                continue;
            }
            let cols: &[F] = if direct {
                src
            } else {
                im2col(g, cg, src, col);
                col
            };
            // SAFETY: the [kk, l] columns times the [l, og] transposed gradient rows, added into
            // the group's [kk, og] block of `acc`.
            unsafe {
                gemm_raw::<F>(
                    (kk, og, l),
                    acc[gi * og * kk..].as_mut_ptr(),
                    (og as isize, 1),
                    true,
                    cols.as_ptr(),
                    (l as isize, 1),
                    gt.as_ptr(),
                    (og as isize, 1),
                    parallel,
                );
            }
        }
    };
    let size = g.o * kk;
    let finish = |acc: &[F]| match &rows {
        Some(r) => r.unpack_weight_grad(g, acc),
        None => untranspose_groups(acc, g.groups, kk, og),
    };
    if g.n > 1 {
        // Fixed chunks of samples, each summed in sample order, then the chunks summed in
        // chunk order: the result does not depend on how rayon schedules the work, so two runs
        // of one training step give bitwise the same weights (a fold/reduce tree does not).
        let chunk = g.n.div_ceil(WEIGHT_GRAD_CHUNKS);
        let partials: Vec<Vec<F>> = parallel_map(g.n.div_ceil(chunk), |ci| {
            let mut acc = vec![F::zero(); size];
            with_scratch::<F, _>(scratch, |buf| {
                for n in ci * chunk..((ci + 1) * chunk).min(g.n) {
                    sample(n, &mut acc, buf, false);
                }
            });
            acc
        });
        let mut acc = vec![F::zero(); size];
        for p in partials {
            for (x, y) in acc.iter_mut().zip(p) {
                *x += y;
            }
        }
        finish(&acc)
    } else {
        let mut acc = vec![F::zero(); size];
        // a fresh buffer: the parallel gemm may run other work on this thread while it waits
        let mut buf = vec![F::zero(); scratch];
        for n in 0..g.n {
            sample(n, &mut acc, &mut buf, true);
        }
        finish(&acc)
    }
}

/// The weight gradient `[o, kk]` from the per-group `[kk, og]` blocks the kernel accumulates.
fn untranspose_groups<F: Flt>(acc: &[F], groups: usize, kk: usize, og: usize) -> Vec<F> {
    let mut out = vec![F::zero(); acc.len()];
    for (src, dst) in acc
        .chunks(kk * og)
        .zip(out.chunks_mut(kk * og))
        .take(groups)
    {
        transpose(src, kk, og, dst);
    }
    out
}
