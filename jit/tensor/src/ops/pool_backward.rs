//! Backward kernels of the 2-D pools: each output's gradient added back into the input
//! positions it was computed from (`max_pool2d_with_indices_backward`: the saved argmax;
//! `avg_pool2d_backward`: the window, divided as the forward divided; adaptive: the adaptive
//! window). Planes (`batch x channel`) run in parallel, in the compute dtype.

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::layout::{Shaped, numel};
use crate::ops::pool::{Win, adaptive_range, avg_window, window};
use crate::{DType, Error, Result, Tensor, TensorMeta};

fn input_shape(input_size: &[i64], op: &str) -> Result<Vec<usize>> {
    let s: Vec<usize> = input_size
        .iter()
        .map(|&v| usize::try_from(v))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::Runtime(format!("{op}: negative input size {input_size:?}")))?;
    if !(s.len() == 3 || s.len() == 4) || s[s.len() - 2] * s[s.len() - 1] == 0 {
        bail!(Runtime, "{op}: expected a 3-D or 4-D input size, got {s:?}");
    }
    Ok(s)
}

/// Checks that `g` holds one value per output position of an input of `shape` pooled to `out`.
fn check_grad(g: &impl Shaped, shape: &[usize], out: [usize; 2], op: &str) -> Result<()> {
    let mut want = shape.to_vec();
    let nd = want.len();
    want[nd - 2] = out[0];
    want[nd - 1] = out[1];
    if g.shape() != want.as_slice() {
        bail!(
            Runtime,
            "{op}: expected grad_output of shape {want:?}, got {:?}",
            g.shape()
        );
    }
    if !g.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "pooling backward",
            dtype: g.dtype().aten_name(),
        });
    }
    Ok(())
}

/// Runs `f(grad plane, input-gradient plane)` for every plane, in the compute dtype; the
/// input gradient as `g`'s dtype.
fn per_plane(
    g: &Tensor,
    shape: &[usize],
    f: impl Fn(&[f64], &mut [f64], usize) + Sync,
    f32_: impl Fn(&[f32], &mut [f32], usize) + Sync,
) -> Tensor {
    let c = g.dtype().compute_dtype();
    let gc = g.to_dtype(c).contiguous();
    let nd = shape.len();
    let hw = shape[nd - 2] * shape[nd - 1];
    let planes = numel(shape) / hw;
    let ohw = g.numel() / planes.max(1);
    let dx = Tensor::zeros(shape, c);
    fn run<F: Flt>(
        gc: &Tensor,
        dx: &Tensor,
        planes: usize,
        (hw, ohw): (usize, usize),
        f: &(impl Fn(&[F], &mut [F], usize) + Sync),
    ) {
        let (pg, px) = (SendPtr(gc.data_ptr::<F>()), SendPtr(dx.data_ptr::<F>()));
        (0..planes).into_par_iter().for_each(|pl| {
            // SAFETY: plane `pl` of the contiguous gradient and input gradient; disjoint planes.
            let (src, dst) = unsafe {
                (
                    std::slice::from_raw_parts(pg.at((pl * ohw) as isize), ohw),
                    std::slice::from_raw_parts_mut(px.at((pl * hw) as isize), hw),
                )
            };
            f(src, dst, pl);
        });
    }
    match c {
        DType::Float32 => run::<f32>(&gc, &dx, planes, (hw, ohw), &f32_),
        DType::Float64 => run::<f64>(&gc, &dx, planes, (hw, ohw), &f),
        _ => unreachable!("invariant: float compute dtype"),
    }
    dx.to_dtype(g.dtype())
}

/// Shape/dtype rule of `max_pool2d_with_indices_backward`.
pub fn max_pool2d_backward_meta(
    g: &impl Shaped,
    input_size: &[i64],
    indices: &impl Shaped,
) -> Result<TensorMeta> {
    let op = "max_pool2d_with_indices_backward";
    let shape = input_shape(input_size, op)?;
    if indices.shape() != g.shape() || indices.dtype() != DType::Int64 {
        bail!(
            Runtime,
            "{op}: expected int64 indices shaped like grad_output {:?}",
            g.shape()
        );
    }
    let nd = g.ndim();
    if nd != shape.len() || g.shape()[..nd - 2] != shape[..nd - 2] {
        bail!(
            Runtime,
            "{op}: grad_output {:?} does not match the input size {shape:?}",
            g.shape()
        );
    }
    check_grad(g, &shape, [g.shape()[nd - 2], g.shape()[nd - 1]], op)?;
    Ok(TensorMeta::contiguous(g.dtype(), &shape))
}

/// `max_pool2d_with_indices_backward`: each output's gradient added at its flat `h * w` index.
pub fn max_pool2d_backward(g: &Tensor, input_size: &[i64], indices: &Tensor) -> Result<Tensor> {
    let meta = max_pool2d_backward_meta(g, input_size, indices)?;
    let hw = meta.shape[meta.shape.len() - 2] * meta.shape[meta.shape.len() - 1];
    let idx = indices.contiguous();
    let iv = idx.to_vec::<i64>();
    if let Some(&bad) = iv.iter().find(|&&i| i < 0 || i as usize >= hw) {
        bail!(
            Runtime,
            "max_pool2d_with_indices_backward: index {bad} is out of bounds for a plane of {hw} elements"
        );
    }
    let ohw = g.numel() / (numel(&meta.shape) / hw).max(1);
    let iv = &iv;
    Ok(per_plane(
        g,
        &meta.shape,
        |src, dst, pl| {
            for (v, &i) in src.iter().zip(&iv[pl * ohw..(pl + 1) * ohw]) {
                dst[i as usize] += v;
            }
        },
        |src, dst, pl| {
            for (v, &i) in src.iter().zip(&iv[pl * ohw..(pl + 1) * ohw]) {
                dst[i as usize] += v;
            }
        },
    ))
}

/// The arguments of `avg_pool2d` besides the input.
#[derive(Clone, Copy, Debug)]
pub struct AvgPoolArgs<'a> {
    /// Window size.
    pub kernel: &'a [i64],
    /// Stride (empty: the window size).
    pub stride: &'a [i64],
    /// Padding.
    pub padding: &'a [i64],
    /// Round output sizes up.
    pub ceil_mode: bool,
    /// Count padding in the divisor.
    pub count_include_pad: bool,
    /// A fixed divisor.
    pub divisor: Option<i64>,
}

fn avg_geometry(g: &impl Shaped, input_size: &[i64], a: &AvgPoolArgs<'_>) -> Result<Win> {
    let op = "avg_pool2d_backward";
    let shape = input_shape(input_size, op)?;
    let x = TensorMeta::contiguous(g.dtype(), &shape);
    let w = window(&x, op, a.kernel, a.stride, a.padding, &[1], a.ceil_mode)?;
    if a.divisor == Some(0) {
        bail!(Runtime, "divisor must be not zero");
    }
    check_grad(g, &shape, w.out, op)?;
    Ok(w)
}

/// Shape/dtype rule of `avg_pool2d_backward`.
pub fn avg_pool2d_backward_meta(
    g: &impl Shaped,
    input_size: &[i64],
    a: &AvgPoolArgs<'_>,
) -> Result<TensorMeta> {
    avg_geometry(g, input_size, a)?;
    Ok(TensorMeta::contiguous(
        g.dtype(),
        &input_shape(input_size, "avg_pool2d_backward")?,
    ))
}

/// `avg_pool2d_backward`: each output's gradient over its divisor, added to its window.
pub fn avg_pool2d_backward(g: &Tensor, input_size: &[i64], a: &AvgPoolArgs<'_>) -> Result<Tensor> {
    let meta = avg_pool2d_backward_meta(g, input_size, a)?;
    let w = avg_geometry(g, input_size, a)?;
    fn plane<F: Flt>(w: &Win, a: &AvgPoolArgs<'_>, src: &[F], dst: &mut [F]) {
        let [oh, ow] = w.out;
        let wd = w.hw[1];
        for y in 0..oh {
            for xo in 0..ow {
                let (hs, he, ws, we, div) = avg_window(w, y, xo, a.count_include_pad, a.divisor);
                let v = src[y * ow + xo] / F::c(div);
                for row in dst[hs * wd..he * wd].chunks_mut(wd) {
                    for d in &mut row[ws..we] {
                        *d += v;
                    }
                }
            }
        }
    }
    Ok(per_plane(
        g,
        &meta.shape,
        |src, dst, _| plane(&w, a, src, dst),
        |src, dst, _| plane(&w, a, src, dst),
    ))
}

/// Shape/dtype rule of `adaptive_avg_pool2d_backward`.
pub fn adaptive_avg_pool2d_backward_meta(
    g: &impl Shaped,
    input_size: &[i64],
) -> Result<TensorMeta> {
    let op = "adaptive_avg_pool2d_backward";
    let shape = input_shape(input_size, op)?;
    let nd = shape.len();
    if g.ndim() != nd || g.shape()[..nd - 2] != shape[..nd - 2] {
        bail!(
            Runtime,
            "{op}: grad_output {:?} does not match the input size {shape:?}",
            g.shape()
        );
    }
    check_grad(g, &shape, [g.shape()[nd - 2], g.shape()[nd - 1]], op)?;
    Ok(TensorMeta::contiguous(g.dtype(), &shape))
}

/// `adaptive_avg_pool2d_backward`: each output's gradient spread evenly over its window.
pub fn adaptive_avg_pool2d_backward(g: &Tensor, input_size: &[i64]) -> Result<Tensor> {
    let meta = adaptive_avg_pool2d_backward_meta(g, input_size)?;
    let nd = meta.shape.len();
    let (h, w) = (meta.shape[nd - 2], meta.shape[nd - 1]);
    let (oh, ow) = (g.shape()[nd - 2], g.shape()[nd - 1]);
    fn plane<F: Flt>((h, w): (usize, usize), (oh, ow): (usize, usize), src: &[F], dst: &mut [F]) {
        for y in 0..oh {
            let (hs, he) = adaptive_range(y, oh, h);
            for xo in 0..ow {
                let (ws, we) = adaptive_range(xo, ow, w);
                let v = src[y * ow + xo] / F::c(((he - hs) * (we - ws)) as f64);
                for row in dst[hs * w..he * w].chunks_mut(w) {
                    for d in &mut row[ws..we] {
                        *d += v;
                    }
                }
            }
        }
    }
    Ok(per_plane(
        g,
        &meta.shape,
        |src, dst, _| plane((h, w), (oh, ow), src, dst),
        |src, dst, _| plane((h, w), (oh, ow), src, dst),
    ))
}
