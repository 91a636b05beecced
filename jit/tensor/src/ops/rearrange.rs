//! Copies that rearrange elements: `repeat`, `tile`, `flip`, `roll`, `tril`, `triu`; and the
//! layouts of `unbind`.

use crate::error::bail;
use crate::kernels::copy::copy_cast;
use crate::layout::{Layout, Shaped, numel, wrap_dim, wrap_dims};
use crate::{Element, Result, Tensor, TensorMeta, dispatch_all, views};

/// Shape/dtype rule of `repeat(x, repeats)`.
pub fn repeat_meta(x: &impl Shaped, repeats: &[i64]) -> Result<TensorMeta> {
    if repeats.len() < x.ndim() {
        bail!(
            Runtime,
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        );
    }
    if let Some(&r) = repeats.iter().find(|&&r| r < 0) {
        bail!(
            Runtime,
            "Trying to create tensor with negative dimension {r}: {repeats:?}"
        );
    }
    let lead = repeats.len() - x.ndim();
    let sizes: Vec<i64> = repeats
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let s = if i < lead { 1 } else { x.shape()[i - lead] };
            (s as i64).wrapping_mul(r)
        })
        .collect();
    let shape = crate::layout::new_sizes(&sizes)?;
    crate::layout::contiguous_nbytes(&shape, x.dtype().itemsize())?;
    Ok(TensorMeta::contiguous(x.dtype(), &shape))
}

/// `x.repeat(repeats)`: one copy from a stride-0 view `[r0, s0, r1, s1, ...]` of `x`.
pub fn repeat(x: &Tensor, repeats: &[i64]) -> Result<Tensor> {
    let meta = repeat_meta(x, repeats)?;
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if out.numel() == 0 {
        return Ok(out);
    }
    let lead = repeats.len() - x.ndim();
    let mut shape = Vec::with_capacity(2 * repeats.len());
    let mut strides = Vec::with_capacity(2 * repeats.len());
    for (i, &r) in repeats.iter().enumerate() {
        let (s, st) = if i < lead {
            (1, 0)
        } else {
            (x.shape()[i - lead], x.strides()[i - lead])
        };
        shape.extend([r as usize, s]);
        strides.extend([0isize, st]);
    }
    let src = x.with_layout(Layout {
        shape: shape.iter().copied().collect(),
        strides: strides.into_iter().collect(),
        offset: x.offset(),
    });
    let dst = out.with_layout(Layout::contiguous(&shape));
    copy_cast(&dst, &src);
    Ok(out)
}

/// The repeats `tile(x, dims)` uses: `dims` padded with leading ones to `x`'s rank.
pub fn tile_repeats(x: &impl Shaped, dims: &[i64]) -> Vec<i64> {
    let mut r = vec![1i64; x.ndim().saturating_sub(dims.len())];
    r.extend_from_slice(dims);
    r
}

/// Shape/dtype rule of `flip(x, dims)`.
pub fn flip_meta(x: &impl Shaped, dims: &[i64]) -> Result<TensorMeta> {
    wrap_dims(dims, x.ndim())?;
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `flip(x, dims)`: a copy through a negative-stride view.
pub fn flip(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let meta = flip_meta(x, dims)?;
    let mut l = x.layout();
    if x.numel() > 0 && x.ndim() > 0 {
        for d in wrap_dims(dims, x.ndim())? {
            let n = l.shape[d];
            l.offset = (l.offset as isize + (n as isize - 1) * l.strides[d]) as usize;
            l.strides[d] = -l.strides[d];
        }
    }
    let out = Tensor::empty(&meta.shape, meta.dtype);
    copy_cast(&out, &x.with_layout(l));
    Ok(out)
}

/// Shape/dtype rule of `roll(x, shifts, dims)`.
pub fn roll_meta(x: &impl Shaped, shifts: &[i64], dims: &[i64]) -> Result<TensorMeta> {
    if shifts.is_empty() {
        bail!(Runtime, "`shifts` required");
    }
    if dims.is_empty() && shifts.len() != 1 {
        bail!(
            Runtime,
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        );
    }
    if !dims.is_empty() && shifts.len() != dims.len() {
        bail!(
            Runtime,
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        );
    }
    for &d in dims {
        wrap_dim(d, x.ndim())?;
    }
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `roll(x, shifts, dims)`: elements shifted cyclically; with no dims, over the flattened tensor.
pub fn roll(x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    roll_meta(x, shifts, dims)?;
    if dims.is_empty() {
        let flat = x.reshape(&[-1])?;
        let r = roll(&flat, shifts, &[0])?;
        return r.reshape(&x.shape_i64());
    }
    let mut cur = x.clone();
    for (&s, &d) in shifts.iter().zip(dims) {
        let d = wrap_dim(d, cur.ndim())?;
        let out = Tensor::empty(cur.shape(), cur.dtype());
        let n = if cur.ndim() == 0 { 1 } else { cur.shape()[d] } as i64;
        if n == 0 || cur.ndim() == 0 {
            out.copy_(&cur)?;
        } else {
            let s = s.rem_euclid(n);
            let d = d as i64;
            out.narrow(d, s, n - s)?.copy_(&cur.narrow(d, 0, n - s)?)?;
            out.narrow(d, 0, s)?.copy_(&cur.narrow(d, n - s, s)?)?;
        }
        cur = out;
    }
    Ok(if cur.shares_storage(x) {
        cur.deep_clone()
    } else {
        cur
    })
}

/// Shape/dtype rule of `tril`/`triu`.
pub fn tri_meta(x: &impl Shaped, name: &str) -> Result<TensorMeta> {
    if x.ndim() < 2 {
        bail!(
            Runtime,
            "{name}: input tensor must have at least 2 dimensions"
        );
    }
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `tril(x, diagonal)` (`upper` = false) or `triu(x, diagonal)`: zeroes the other triangle of the
/// last two dims.
pub fn tri(x: &Tensor, diagonal: i64, upper: bool) -> Result<Tensor> {
    let meta = tri_meta(x, if upper { "triu" } else { "tril" })?;
    let out = x.deep_clone();
    let nd = meta.shape.len();
    let (r, c) = (meta.shape[nd - 2], meta.shape[nd - 1]);
    let batches = numel(&meta.shape[..nd - 2]);
    if out.numel() == 0 {
        return Ok(out);
    }
    dispatch_all!(meta.dtype, T => {
        // SAFETY: `out` is a fresh contiguous tensor of batches * r * c elements.
        let data = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), batches * r * c) };
        for m in data.chunks_mut(r * c) {
            for (i, row) in m.chunks_mut(c).enumerate() {
                // Column j is kept by tril when j - i <= diagonal, by triu when j - i >= diagonal.
                let edge = (i as i64 + diagonal).clamp(-1, c as i64);
                let zero = if upper {
                    &mut row[..edge.max(0) as usize]
                } else {
                    &mut row[(edge + 1).min(c as i64) as usize..]
                };
                zero.fill(T::ZERO);
            }
        }
    });
    Ok(out)
}

/// Layouts of `unbind(x, dim)`: one `select` per index.
pub fn unbind_layouts(x: &impl Shaped, dim: i64) -> Result<Vec<Layout>> {
    if x.ndim() == 0 {
        bail!(
            Index,
            "Dimension specified as 0 but tensor has no dimensions"
        );
    }
    let d = wrap_dim(dim, x.ndim())?;
    (0..x.shape()[d] as i64)
        .map(|i| views::select(x, d as i64, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ar(n: usize, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n as i64).collect::<Vec<_>>(), shape).unwrap()
    }

    #[test]
    fn tril_triu_keep_the_right_triangle() {
        let x = ar(12, &[3, 4]);
        assert_eq!(
            tri(&x, 0, false).unwrap().to_vec::<i64>(),
            vec![0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0]
        );
        assert_eq!(
            tri(&x, 1, true).unwrap().to_vec::<i64>(),
            vec![0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11]
        );
        assert_eq!(tri(&x, -5, false).unwrap().to_vec::<i64>(), vec![0; 12]);
        assert_eq!(
            tri(&x, 9, false).unwrap().to_vec::<i64>(),
            ar(12, &[12]).to_vec::<i64>()
        );
    }

    #[test]
    fn roll_flip_repeat() {
        let x = ar(6, &[2, 3]);
        assert_eq!(
            roll(&x, &[1], &[1]).unwrap().to_vec::<i64>(),
            vec![2, 0, 1, 5, 3, 4]
        );
        assert_eq!(
            roll(&x, &[-1], &[]).unwrap().to_vec::<i64>(),
            vec![1, 2, 3, 4, 5, 0]
        );
        assert_eq!(
            flip(&x, &[0, 1]).unwrap().to_vec::<i64>(),
            vec![5, 4, 3, 2, 1, 0]
        );
        let r = repeat(&ar(2, &[2]), &[2, 2]).unwrap();
        assert_eq!(r.shape(), &[2, 4]);
        assert_eq!(r.to_vec::<i64>(), vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }
}
