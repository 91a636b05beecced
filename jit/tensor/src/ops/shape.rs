//! Joining and splitting: `cat`, `stack`, `split`, `chunk`.

use crate::dtype::{Operand, result_type};
use crate::error::bail;
use crate::layout::{Layout, Shaped, wrap_dim};
use crate::{Result, Tensor, TensorMeta, views};

/// PyTorch still skips 1-D empty tensors in `cat` (legacy behaviour).
fn skipped(t: &impl Shaped) -> bool {
    t.ndim() == 1 && t.shape()[0] == 0
}

/// Shape/dtype rule of `cat(tensors, dim)`.
pub fn cat_meta<S: Shaped>(tensors: &[&S], dim: i64) -> Result<TensorMeta> {
    if tensors.is_empty() {
        bail!(Runtime, "torch.cat(): expected a non-empty list of Tensors");
    }
    for (i, t) in tensors.iter().enumerate() {
        if t.ndim() == 0 {
            bail!(
                Runtime,
                "zero-dimensional tensor (at position {i}) cannot be concatenated"
            );
        }
    }
    let dtype = result_type(
        &tensors
            .iter()
            .map(|t| Operand::Dimensioned(t.dtype()))
            .collect::<Vec<_>>(),
    );
    let kept: Vec<(usize, &&S)> = tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| !skipped(**t))
        .collect();
    let Some(&(_, first)) = kept.first() else {
        return Ok(TensorMeta::contiguous(dtype, &[0]));
    };
    let d = wrap_dim(dim, first.ndim())?;
    let mut shape = first.shape().to_vec();
    shape[d] = 0;
    for &(i, t) in &kept {
        if t.ndim() != first.ndim() {
            bail!(
                Runtime,
                "Tensors must have same number of dimensions: got {} and {}",
                first.ndim(),
                t.ndim()
            );
        }
        for k in 0..shape.len() {
            if k != d && t.shape()[k] != first.shape()[k] {
                bail!(
                    Runtime,
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                    first.shape()[k],
                    t.shape()[k]
                );
            }
        }
        shape[d] = (shape[d] as i64).wrapping_add(t.shape()[d] as i64) as usize;
    }
    let sizes: Vec<i64> = shape.iter().map(|&v| v as i64).collect();
    let shape = crate::layout::new_sizes(&sizes)?;
    crate::layout::contiguous_nbytes(&shape, dtype.itemsize())?;
    Ok(TensorMeta::contiguous(dtype, &shape))
}

/// `cat(tensors, dim)`.
pub fn cat(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
    let meta = cat_meta(tensors, dim)?;
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if meta.shape == [0] && tensors.iter().all(|t| skipped(*t)) {
        return Ok(out);
    }
    let d = wrap_dim(dim, meta.shape.len())?;
    let mut off = 0i64;
    for t in tensors.iter().filter(|t| !skipped(**t)) {
        let len = t.shape()[d] as i64;
        out.narrow(d as i64, off, len)?.copy_(t)?;
        off += len;
    }
    Ok(out)
}

/// Shape/dtype rule of `stack(tensors, dim)`.
pub fn stack_meta<S: Shaped>(tensors: &[&S], dim: i64) -> Result<TensorMeta> {
    let Some(first) = tensors.first() else {
        bail!(Runtime, "stack expects a non-empty TensorList");
    };
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            bail!(
                Runtime,
                "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                first.shape(),
                t.shape()
            );
        }
    }
    let d = wrap_dim(dim, first.ndim() + 1)?;
    let dtype = result_type(
        &tensors
            .iter()
            .map(|t| Operand::Dimensioned(t.dtype()))
            .collect::<Vec<_>>(),
    );
    let mut shape = first.shape().to_vec();
    shape.insert(d, tensors.len());
    Ok(TensorMeta::contiguous(dtype, &shape))
}

/// `stack(tensors, dim)`.
pub fn stack(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
    let meta = stack_meta(tensors, dim)?;
    let d = wrap_dim(dim, meta.shape.len())? as i64;
    let parts: Vec<Tensor> = tensors
        .iter()
        .map(|t| t.unsqueeze(d))
        .collect::<Result<_>>()?;
    cat(&parts.iter().collect::<Vec<_>>(), d)
}

/// Layouts of `split(x, split_size, dim)`: pieces of `split_size` (the last may be smaller).
pub fn split_layouts(x: &impl Shaped, split_size: i64, dim: i64) -> Result<Vec<Layout>> {
    if x.ndim() == 0 {
        bail!(Runtime, "split expects at least a 1-dimensional tensor");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let size = x.shape()[d] as i64;
    if split_size < 0 {
        bail!(
            Runtime,
            "split expects split_size be non-negative, but got split_size={split_size}"
        );
    }
    if split_size == 0 && size != 0 {
        bail!(
            Runtime,
            "split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        );
    }
    let n = if size == 0 {
        1
    } else {
        (size + split_size - 1) / split_size
    };
    (0..n)
        .map(|i| {
            let start = i * split_size;
            views::narrow(x, d as i64, start, split_size.min(size - start))
        })
        .collect()
}

/// Layouts of `split(x, [s0, s1, ...], dim)`.
pub fn split_with_sizes_layouts(x: &impl Shaped, sizes: &[i64], dim: i64) -> Result<Vec<Layout>> {
    if x.ndim() == 0 {
        bail!(Runtime, "split expects at least a 1-dimensional tensor");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let size = x.shape()[d] as i64;
    if sizes.iter().any(|&s| s < 0) || sizes.iter().sum::<i64>() != size {
        bail!(
            Runtime,
            "split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {dim}), but got split_sizes={sizes:?}"
        );
    }
    let mut start = 0;
    sizes
        .iter()
        .map(|&s| {
            let l = views::narrow(x, d as i64, start, s);
            start += s;
            l
        })
        .collect()
}

/// Layouts of `chunk(x, chunks, dim)`.
pub fn chunk_layouts(x: &impl Shaped, chunks: i64, dim: i64) -> Result<Vec<Layout>> {
    if chunks <= 0 {
        bail!(
            Runtime,
            "chunk expects `chunks` to be greater than 0, got: {chunks}"
        );
    }
    if x.ndim() == 0 {
        bail!(Runtime, "chunk expects at least a 1-dimensional tensor");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let size = x.shape()[d] as i64;
    let split = ((size + chunks - 1) / chunks).max(if size == 0 { 0 } else { 1 });
    split_layouts(x, split, dim)
}

impl Tensor {
    /// Views for a list of layouts of this tensor (from the split rules).
    pub fn views_of(&self, layouts: Vec<Layout>) -> Vec<Tensor> {
        layouts.into_iter().map(|l| self.with_layout(l)).collect()
    }
}
