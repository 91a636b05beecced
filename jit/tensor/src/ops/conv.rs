//! `conv1d` / `conv2d`: im2col + GEMM per sample and group. A 1-D convolution is a 2-D one with a
//! height of 1. Samples run in parallel (each GEMM single-threaded); a single sample instead gives
//! the GEMM both cores. Integer dtypes take the exact kernel of `conv_int.rs`.

use std::ops::Range;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::scratch::with_scratch;
use crate::layout::Shaped;
use crate::ops::conv_int::conv_int;
use crate::ops::conv_rows::RowTaps;
use crate::ops::im2col::im2col;
use crate::ops::matmul::{PAR_FLOPS, for_each_block, gemm_raw};
use crate::parallel::parallel_for;
use crate::{DType, Error, Result, Tensor, TensorMeta};

/// The `padding` argument of a convolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConvPadding<'a> {
    /// Explicit symmetric padding per spatial dim (one value for all).
    Explicit(&'a [i64]),
    /// `'same'`: output size equals input size (stride 1 only); odd totals pad more at the end.
    Same,
    /// `'valid'`: no padding.
    Valid,
}

impl<'a> ConvPadding<'a> {
    /// Parses the string form.
    pub fn parse(s: &str) -> Result<ConvPadding<'a>> {
        match s {
            "same" => Ok(ConvPadding::Same),
            "valid" => Ok(ConvPadding::Valid),
            _ => bail!(Value, "Invalid padding string: '{s}'"),
        }
    }
}

/// Stride, padding, dilation and groups of a convolution.
#[derive(Clone, Copy, Debug)]
pub struct ConvArgs<'a> {
    /// Stride per spatial dim (or one for all).
    pub stride: &'a [i64],
    /// Padding.
    pub padding: ConvPadding<'a>,
    /// Dilation per spatial dim (or one for all).
    pub dilation: &'a [i64],
    /// Channel groups.
    pub groups: i64,
}

/// The resolved geometry, always 2-D (a 1-D convolution has height 1). Shared with the
/// backward kernels (`conv_backward.rs`).
#[derive(Clone, Debug)]
pub(crate) struct Geo {
    pub(crate) batched: bool,
    pub(crate) n: usize,
    pub(crate) c: usize,
    pub(crate) hw: [usize; 2],
    pub(crate) o: usize,
    pub(crate) k: [usize; 2],
    pub(crate) stride: [usize; 2],
    pub(crate) pad_lo: [usize; 2],
    pub(crate) dil: [usize; 2],
    pub(crate) groups: usize,
    pub(crate) out: [usize; 2],
}

/// Expands a 1-or-`nd` list to `nd` values.
pub(crate) fn expand_arg(nd: usize, v: &[i64], name: &str) -> Result<Vec<i64>> {
    match v.len() {
        1 => Ok(vec![v[0]; nd]),
        l if l == nd => Ok(v.to_vec()),
        _ => bail!(
            Runtime,
            "expected {name} to be a single integer value or a list of {nd} values to match the convolution dimensions, but got {name}={v:?}"
        ),
    }
}

/// Lifts a 1-D geometry to 2-D (height 1 in front).
pub(crate) fn lift(nd: usize, v: &[usize], one: usize) -> [usize; 2] {
    if nd == 1 { [one, v[0]] } else { [v[0], v[1]] }
}

fn resolve<S: Shaped>(nd: usize, x: &S, w: &S, bias: Option<&S>, a: &ConvArgs<'_>) -> Result<Geo> {
    // ATen checks the `.padding` overload's strides, then the bias dtype, before any shape.
    if a.padding == ConvPadding::Same && a.stride.iter().any(|&s| s != 1) {
        bail!(
            Runtime,
            "padding='same' is not supported for strided convolutions"
        );
    }
    if let Some(b) = bias
        && b.dtype() != x.dtype()
    {
        bail!(
            Runtime,
            "Input type ({}) and bias type ({}) should be the same",
            x.dtype().cpp_name(),
            b.dtype().cpp_name()
        );
    }
    let xs = x.shape();
    if x.ndim() != nd + 1 && x.ndim() != nd + 2 {
        bail!(
            Runtime,
            "Expected {}D (unbatched) or {}D (batched) input to conv{nd}d, but got input of size: {xs:?}",
            nd + 1,
            nd + 2
        );
    }
    let batched = x.ndim() == nd + 2;
    let mut full: Vec<usize> = xs.to_vec();
    if !batched {
        full.insert(0, 1);
    }
    let ws = w.shape();
    if w.ndim() != nd + 2 {
        bail!(
            Runtime,
            "Expected {}-dimensional input for {}-dimensional weight {ws:?}, but got {}-dimensional input of size {full:?} instead",
            w.ndim(),
            w.ndim(),
            nd + 2
        );
    }
    if a.groups <= 0 {
        bail!(Runtime, "non-positive groups is not supported");
    }
    let stride = expand_arg(nd, a.stride, "stride")?;
    let dil = expand_arg(nd, a.dilation, "dilation")?;
    if stride.iter().any(|&s| s <= 0) {
        bail!(Runtime, "non-positive stride is not supported");
    }
    if dil.iter().any(|&d| d <= 0) {
        bail!(Runtime, "dilation should be greater than zero");
    }
    let ksz: Vec<usize> = ws[2..].to_vec();
    let eff: Vec<usize> = (0..nd)
        .map(|i| dil[i] as usize * (ksz[i].max(1) - 1) + 1)
        .collect();
    let (lo, hi): (Vec<usize>, Vec<usize>) = match a.padding {
        ConvPadding::Explicit(p) => {
            let p = expand_arg(nd, p, "padding")?;
            if p.iter().any(|&v| v < 0) {
                bail!(Runtime, "negative padding is not supported");
            }
            let p: Vec<usize> = p.iter().map(|&v| v as usize).collect();
            (p.clone(), p)
        }
        ConvPadding::Valid => (vec![0; nd], vec![0; nd]),
        ConvPadding::Same => {
            let total: Vec<usize> = eff.iter().map(|&e| e - 1).collect();
            (
                total.iter().map(|t| t / 2).collect(),
                total.iter().map(|t| t - t / 2).collect(),
            )
        }
    };
    let g = a.groups as usize;
    let (o, cg) = (ws[0], ws[1]);
    if o % g != 0 {
        bail!(
            Runtime,
            "Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got weight of size {ws:?} instead"
        );
    }
    let c = full[1];
    if c != cg * g {
        bail!(
            Runtime,
            "Given groups={g}, weight of size {ws:?}, expected input{full:?} to have {} channels, but got {c} channels instead",
            cg * g
        );
    }
    if let Some(b) = bias
        && (b.ndim() != 1 || b.shape()[0] != o)
    {
        bail!(
            Runtime,
            "Given weight of size {ws:?}, expected bias to be 1-dimensional with {o} elements, but got bias of size {:?} instead",
            b.shape()
        );
    }
    let spatial = &full[2..];
    let padded: Vec<usize> = (0..nd).map(|i| spatial[i] + lo[i] + hi[i]).collect();
    if (0..nd).any(|i| padded[i] < eff[i]) {
        let fmt = |v: &[usize]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" x ")
        };
        bail!(
            Runtime,
            "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
            fmt(&padded),
            fmt(&eff)
        );
    }
    // ATen's kernel dispatches on the input's dtype before it compares the weight's with it (a
    // Bool input with a float weight is "not implemented", an int32 one "expected scalar type
    // Int"). Its dilated kernel takes the floating dtypes and Long; the plain one every integer.
    let dilated = dil.iter().any(|&d| d != 1);
    let dt = x.dtype();
    let computed =
        dt.is_floating_point() || dt == DType::Int64 || (!dilated && dt.is_integral(false));
    if !computed {
        return Err(Error::NotImplementedFor {
            op: if dilated {
                "slow_conv_dilated<>"
            } else {
                "slow_conv2d_cpu"
            },
            dtype: dt.aten_name(),
        });
    }
    if w.dtype() != dt {
        bail!(
            Runtime,
            "expected scalar type {} but found {}",
            dt.aten_name(),
            w.dtype().aten_name()
        );
    }
    let out: Vec<usize> = (0..nd)
        .map(|i| (padded[i] - eff[i]) / stride[i] as usize + 1)
        .collect();
    let st: Vec<usize> = stride.iter().map(|&s| s as usize).collect();
    let dl: Vec<usize> = dil.iter().map(|&d| d as usize).collect();
    Ok(Geo {
        batched,
        n: full[0],
        c,
        hw: lift(nd, spatial, 1),
        o,
        k: lift(nd, &ksz, 1),
        stride: lift(nd, &st, 1),
        pad_lo: lift(nd, &lo, 0),
        dil: lift(nd, &dl, 1),
        groups: g,
        out: lift(nd, &out, 1),
    })
}

fn out_shape(nd: usize, g: &Geo) -> Vec<usize> {
    // ATen sends an input without channels around its kernels, and its result then has no
    // channels either, whatever the weight's output channels (PyTorch 2.15: [1, 0, 5, 5] input,
    // [3, 0, 2, 2] weight -> [1, 0, 4, 4]).
    let mut s = vec![g.n, if g.c == 0 { 0 } else { g.o }];
    s.extend_from_slice(&g.out[2 - nd..]);
    if !g.batched {
        s.remove(0);
    }
    s
}

/// Shape/dtype rule of an `nd`-D convolution (`nd` = 1 or 2).
pub fn conv_meta<S: Shaped>(
    nd: usize,
    x: &S,
    w: &S,
    bias: Option<&S>,
    a: &ConvArgs<'_>,
) -> Result<TensorMeta> {
    let g = resolve(nd, x, w, bias, a)?;
    let format = crate::memory_format::conv_output_format(x, w);
    Ok(TensorMeta::contiguous(x.dtype(), &out_shape(nd, &g)).in_format(format))
}

/// An `nd`-D convolution (`nd` = 1 or 2), cross-correlation as PyTorch.
pub fn conv(
    nd: usize,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    a: &ConvArgs<'_>,
) -> Result<Tensor> {
    let g = resolve(nd, x, w, bias, a)?;
    let shape = out_shape(nd, &g);
    let meta = conv_meta(nd, x, w, bias, a)?;
    if shape.contains(&0) {
        return Ok(Tensor::empty(&shape, x.dtype()).laid_out_as(&meta));
    }
    if x.dtype().is_integral(false) {
        return Ok(conv_int(&g, &shape, x, w, bias).laid_out_as(&meta));
    }
    let c = x.dtype().compute_dtype();
    let prep = |t: &Tensor| t.to_dtype(c).contiguous();
    let (xc, wc, bc) = (prep(x), prep(w), bias.map(prep));
    // `empty`: the gemm writes every output element (`gemm_raw` writes zeros itself when there
    // are no input channels, k == 0), and the bias is added after it.
    let out = Tensor::empty(&shape, c);
    match c {
        DType::Float32 => conv_kernel::<f32>(&g, &xc, &wc, bc.as_ref(), &out),
        DType::Float64 => conv_kernel::<f64>(&g, &xc, &wc, bc.as_ref(), &out),
        _ => unreachable!("invariant: float compute dtype"),
    }
    // The kernel works row-major; the result takes the layout ATen's would have.
    Ok(out.to_dtype(x.dtype()).laid_out_as(&meta))
}

fn conv_kernel<F: Flt>(g: &Geo, x: &Tensor, w: &Tensor, b: Option<&Tensor>, out: &Tensor) {
    let [h, wd] = g.hw;
    let [kh, kw] = g.k;
    let l = g.out[0] * g.out[1];
    let cg = g.c / g.groups;
    let og = g.o / g.groups;
    let kk = cg * kh * kw;
    let direct = kh == 1 && kw == 1 && g.stride == [1, 1] && g.pad_lo == [0, 0];
    let rows = if direct { None } else { RowTaps::new(g) };
    // Row taps read the weight one kernel row at a time: packed once per call.
    let packed = rows.as_ref().map(|r| r.pack_weight::<F>(g, w));
    let (px, pw, po) = (
        SendPtr(x.data_ptr::<F>()),
        SendPtr(
            packed
                .as_ref()
                .map_or(w.data_ptr::<F>(), |p| p.as_ptr().cast_mut()),
        ),
        SendPtr(out.data_ptr::<F>()),
    );
    let bias: Option<Vec<F>> = b.map(|b| b.to_vec::<F>());
    let sample = |n: usize, parallel: bool| {
        let group = |gi: usize, col: &mut [F]| {
            // SAFETY: `x` is contiguous [n, c, h, w]; this group's channels are in bounds.
            let src = unsafe {
                std::slice::from_raw_parts(
                    px.at(((n * g.c + gi * cg) * h * wd) as isize),
                    cg * h * wd,
                )
            };
            // SAFETY: output rows of sample n, group gi: inside the contiguous [n, o, l] output.
            let dst = unsafe { po.at(((n * g.o + gi * og) * l) as isize) };
            if let Some(rows) = &rows {
                if parallel {
                    rows.expand_parallel(cg, src, col);
                } else {
                    rows.expand(cg, src, col);
                }
                let kc = cg * kw;
                let views: Vec<_> = rows.views(cg).collect();
                let (pc, pd) = (SendPtr(col.as_mut_ptr()), SendPtr(dst));
                // One block of the output (`og` rows by `l` columns): the kernel rows' GEMMs
                // in turn, the first writing it and the others adding.
                let block = |r: Range<usize>, s: Range<usize>| {
                    for (k, v) in views.iter().enumerate() {
                        // SAFETY: rows r of kernel row v.i's packed [og, kc] weight block;
                        // columns s of the [kc, l] view of the columns at v.offset with row
                        // stride v.q (in bounds: a view ends within its class's rows); the
                        // block (r, s) of this sample and group's output, disjoint from every
                        // other block.
                        unsafe {
                            gemm_raw::<F>(
                                (r.len(), s.len(), kc),
                                pd.at((r.start * l + s.start) as isize),
                                (l as isize, 1),
                                k > 0,
                                pw.at(((gi * kh + v.i) * og + r.start) as isize * kc as isize)
                                    .cast_const(),
                                (kc as isize, 1),
                                pc.at((v.offset + s.start) as isize).cast_const(),
                                (v.q as isize, 1),
                                false,
                            );
                        }
                    }
                };
                // Split once for all kernel rows: a parallel GEMM per kernel row would
                // synchronise the threads `kh` times per call.
                if parallel && og * l * kc * kh >= PAR_FLOPS {
                    for_each_block(og, l, block);
                } else {
                    block(0..og, 0..l);
                }
                return;
            }
            let rhs = if direct {
                src.as_ptr()
            } else {
                im2col(g, cg, src, col);
                col.as_ptr()
            };
            // SAFETY: weight rows [gi*og, (gi+1)*og) of the contiguous [o, kk] weight; output rows
            // of sample n, group gi, disjoint from every other (n, gi); `col`/`src` are `kk x l`.
            unsafe {
                gemm_raw::<F>(
                    (og, l, kk),
                    dst,
                    (l as isize, 1),
                    false,
                    pw.at((gi * og * kk) as isize).cast_const(),
                    (kk as isize, 1),
                    rhs,
                    (l as isize, 1),
                    parallel,
                );
            }
        };
        // im2col overwrites every column entry, so the scratch needs no zeroing.
        let cols = match &rows {
            Some(r) => r.len(cg),
            None if direct => 0,
            None => kk * l,
        };
        with_scratch::<F, _>(cols, |col| (0..g.groups).for_each(|gi| group(gi, col)));
        if let Some(bias) = &bias {
            // SAFETY: sample n's output block [o, l] belongs to this call only.
            let o =
                unsafe { std::slice::from_raw_parts_mut(po.at((n * g.o * l) as isize), g.o * l) };
            for (row, &bv) in o.chunks_mut(l.max(1)).zip(bias) {
                for v in row {
                    *v += bv;
                }
            }
        }
    };
    if g.n > 1 {
        // The caller works too (see `crate::parallel`): with `into_par_iter` it waited blocked
        // while the woken workers took the samples.
        parallel_for(g.n, |n| sample(n, false));
    } else {
        (0..g.n).for_each(|n| sample(n, true));
    }
}
