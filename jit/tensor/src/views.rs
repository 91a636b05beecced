//! The view rules: each takes the input's geometry and returns the view's [`Layout`], touching no
//! data. [`crate::Tensor`]'s view methods and the graph's meta rules both call these.

use smallvec::SmallVec;

use crate::error::bail;
use crate::layout::{
    Dims, Layout, Shaped, Strides, checked_numel, compute_view_strides, contiguous_strides,
    infer_size, numel, strided_nbytes, wrap_dim, wrap_dims,
};
use crate::{Error, Result};

fn with(x: &impl Shaped, shape: Dims, strides: Strides, offset: usize) -> Layout {
    let _ = x;
    Layout {
        shape,
        strides,
        offset,
    }
}

/// `view(size)`: same storage, new shape; fails when the strides cannot express it.
pub fn view(x: &impl Shaped, size: &[i64]) -> Result<Layout> {
    let shape = infer_size(size, x.numel())?;
    let strides =
        compute_view_strides(x.shape(), x.strides(), &shape).ok_or(Error::ViewIncompatible)?;
    Ok(with(x, shape, strides, x.offset()))
}

/// `reshape(size)`: the view's layout when one exists, else `Ok(None)` (the caller copies into a
/// contiguous tensor of [`reshape_shape`]).
pub fn reshape(x: &impl Shaped, size: &[i64]) -> Result<Option<Layout>> {
    let shape = infer_size(size, x.numel())?;
    Ok(compute_view_strides(x.shape(), x.strides(), &shape)
        .map(|strides| with(x, shape, strides, x.offset())))
}

/// The shape `reshape(size)` produces.
pub fn reshape_shape(x: &impl Shaped, size: &[i64]) -> Result<Dims> {
    infer_size(size, x.numel())
}

/// `permute(dims)`.
pub fn permute(x: &impl Shaped, dims: &[i64]) -> Result<Layout> {
    if dims.len() != x.ndim() {
        bail!(
            Runtime,
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
            x.ndim(),
            dims.len()
        );
    }
    let dims = wrap_dims(dims, x.ndim())?;
    let shape = dims.iter().map(|&d| x.shape()[d]).collect();
    let strides = dims.iter().map(|&d| x.strides()[d]).collect();
    Ok(with(x, shape, strides, x.offset()))
}

/// `transpose(dim0, dim1)`.
pub fn transpose(x: &impl Shaped, dim0: i64, dim1: i64) -> Result<Layout> {
    let mut l = x.layout();
    if x.ndim() == 0 {
        wrap_dim(dim0, 0)?;
        wrap_dim(dim1, 0)?;
        return Ok(l);
    }
    let (a, b) = (wrap_dim(dim0, x.ndim())?, wrap_dim(dim1, x.ndim())?);
    l.shape.swap(a, b);
    l.strides.swap(a, b);
    Ok(l)
}

/// `t()`: transpose of a tensor with at most 2 dims.
pub fn t(x: &impl Shaped) -> Result<Layout> {
    if x.ndim() > 2 {
        bail!(
            Runtime,
            "t() expects a tensor with <= 2 dimensions, but self is {}D",
            x.ndim()
        );
    }
    if x.ndim() < 2 {
        return Ok(x.layout());
    }
    transpose(x, 0, 1)
}

/// `expand(size)`: broadcast to `size` with stride 0 on new and size-1 dims; `-1` keeps a size.
pub fn expand(x: &impl Shaped, size: &[i64]) -> Result<Layout> {
    let (shape, strides) = (x.shape(), x.strides());
    if size.len() < shape.len() {
        bail!(
            Runtime,
            "expand(torch.FloatTensor{{{shape:?}}}, size={size:?}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            size.len(),
            shape.len()
        );
    }
    let lead = size.len() - shape.len();
    let mut out_shape: Dims = SmallVec::with_capacity(size.len());
    let mut out_strides: Strides = SmallVec::with_capacity(size.len());
    for (i, &s) in size.iter().enumerate() {
        if i < lead {
            if s < 0 {
                bail!(
                    Runtime,
                    "The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}"
                );
            }
            out_shape.push(s as usize);
            out_strides.push(0);
            continue;
        }
        let (cur, st) = (shape[i - lead], strides[i - lead]);
        if s == -1 || s as usize == cur {
            out_shape.push(cur);
            out_strides.push(st);
        } else if cur == 1 && s >= 0 {
            out_shape.push(s as usize);
            out_strides.push(0);
        } else {
            bail!(
                Runtime,
                "The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton dimension {i}.  Target sizes: {size:?}.  Tensor sizes: {shape:?}"
            );
        }
    }
    checked_numel(&out_shape)?;
    Ok(with(x, out_shape, out_strides, x.offset()))
}

/// Clamps a Python-style slice bound into `[0, size]`.
fn clamp_bound(v: i64, size: usize) -> usize {
    let n = size as i64;
    let v = if v < 0 { v + n } else { v };
    v.clamp(0, n) as usize
}

/// `slice(dim, start, end, step)` with Python clamping (`x[a:b:c]` on one dim). `step` must be > 0.
pub fn slice(
    x: &impl Shaped,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Layout> {
    if step <= 0 {
        bail!(Value, "slice step must be positive");
    }
    let d = wrap_dim(dim, x.ndim())?;
    if x.ndim() == 0 {
        bail!(Index, "slice() cannot be applied to a 0-dim tensor.");
    }
    let size = x.shape()[d];
    let s = start.map_or(0, |v| clamp_bound(v, size));
    let e = end.map_or(size, |v| clamp_bound(v, size)).max(s);
    let len = (e - s).div_ceil(step as usize);
    let mut l = x.layout();
    if len > 0 {
        l.offset = offset_by(l.offset, s as isize * l.strides[d]);
    }
    l.shape[d] = len;
    l.strides[d] *= step as isize;
    Ok(l)
}

fn offset_by(offset: usize, delta: isize) -> usize {
    (offset as isize + delta) as usize
}

/// `select(dim, index)`: removes `dim`, keeping position `index` (negative counts from the end).
pub fn select(x: &impl Shaped, dim: i64, index: i64) -> Result<Layout> {
    if x.ndim() == 0 {
        bail!(Index, "select() cannot be applied to a 0-dim tensor.");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let size = x.shape()[d];
    let i = if index < 0 {
        index + size as i64
    } else {
        index
    };
    if i < 0 || i >= size as i64 {
        return Err(Error::IndexOutOfBounds {
            index,
            dim: d,
            size,
        });
    }
    let mut l = x.layout();
    l.offset = offset_by(l.offset, i as isize * l.strides[d]);
    l.shape.remove(d);
    l.strides.remove(d);
    Ok(l)
}

/// `narrow(dim, start, length)`.
pub fn narrow(x: &impl Shaped, dim: i64, start: i64, length: i64) -> Result<Layout> {
    if x.ndim() == 0 {
        bail!(Runtime, "narrow() cannot be applied to a 0-dim tensor.");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let size = x.shape()[d] as i64;
    let s = if start < 0 { start + size } else { start };
    if s < 0 || s > size {
        return Err(Error::IndexOutOfBounds {
            index: start,
            dim: d,
            size: size as usize,
        });
    }
    if length < 0 || s + length > size {
        bail!(
            Runtime,
            "start ({s}) + length ({length}) exceeds dimension size ({size})."
        );
    }
    slice(x, dim, Some(s), Some(s + length), 1)
}

/// `unsqueeze(dim)`, with `dim` in `[-ndim-1, ndim]`.
pub fn unsqueeze(x: &impl Shaped, dim: i64) -> Result<Layout> {
    let d = wrap_dim(dim, x.ndim() + 1)?;
    let mut l = x.layout();
    let st = if d < x.ndim() {
        l.strides[d] * l.shape[d] as isize
    } else {
        1
    };
    l.shape.insert(d, 1);
    l.strides.insert(d, st);
    Ok(l)
}

/// `squeeze()` (all size-1 dims) or `squeeze(dims)` (only those listed that have size 1).
pub fn squeeze(x: &impl Shaped, dims: Option<&[i64]>) -> Result<Layout> {
    let remove: SmallVec<[usize; 6]> = match dims {
        None => (0..x.ndim()).filter(|&d| x.shape()[d] == 1).collect(),
        Some(ds) => {
            let ds = wrap_dims(ds, x.ndim())?;
            if x.ndim() == 0 {
                SmallVec::new()
            } else {
                ds.into_iter().filter(|&d| x.shape()[d] == 1).collect()
            }
        }
    };
    let mut l = x.layout();
    l.shape = (0..x.ndim())
        .filter(|d| !remove.contains(d))
        .map(|d| x.shape()[d])
        .collect();
    l.strides = (0..x.ndim())
        .filter(|d| !remove.contains(d))
        .map(|d| x.strides()[d])
        .collect();
    Ok(l)
}

/// `unflatten(dim, sizes)`: splits one dim into several (one may be -1).
pub fn unflatten(x: &impl Shaped, dim: i64, sizes: &[i64]) -> Result<Layout> {
    if sizes.is_empty() {
        bail!(Runtime, "unflatten: sizes must be non-empty");
    }
    let d = wrap_dim(dim, x.ndim())?;
    let inner = infer_size(sizes, x.shape()[d]).map_err(|_| {
        Error::Runtime(format!(
            "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {dim} ({}) in the input tensor",
            x.shape()[d]
        ))
    })?;
    let mut shape: Vec<i64> = x.shape().iter().map(|&s| s as i64).collect();
    shape.splice(d..=d, inner.iter().map(|&s| s as i64));
    view(x, &shape)
}

/// The shape `flatten(start_dim, end_dim)` produces.
pub fn flatten_shape(x: &impl Shaped, start_dim: i64, end_dim: i64) -> Result<Vec<i64>> {
    if x.ndim() == 0 {
        return Ok(vec![1]);
    }
    let (s, e) = (wrap_dim(start_dim, x.ndim())?, wrap_dim(end_dim, x.ndim())?);
    if s > e {
        bail!(
            Runtime,
            "flatten() has invalid args: start_dim cannot come after end_dim"
        );
    }
    let mut shape: Vec<i64> = x.shape().iter().map(|&v| v as i64).collect();
    let merged = numel(&x.shape()[s..=e]) as i64;
    shape.splice(s..=e, [merged]);
    Ok(shape)
}

/// `as_strided(size, stride, storage_offset)`; bounds are checked against `storage_numel`.
pub fn as_strided(
    x: &impl Shaped,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
    storage_numel: Option<usize>,
) -> Result<Layout> {
    if size.len() != stride.len() {
        bail!(
            Runtime,
            "mismatch in length of strides and shape: {} vs {}",
            stride.len(),
            size.len()
        );
    }
    if size.iter().chain(stride).any(|&v| v < 0) {
        bail!(
            Runtime,
            "as_strided: Negative strides are not supported at the moment, got strides: {stride:?}"
        );
    }
    let offset = storage_offset.map_or(x.offset() as i64, |o| o) as usize;
    let shape: Dims = size.iter().map(|&s| s as usize).collect();
    let strides: Strides = stride.iter().map(|&s| s as isize).collect();
    checked_numel(&shape)?;
    // The elements the view reaches, past `offset` (checked: a huge stride must not wrap around
    // into the storage).
    let reach = strided_nbytes(&shape, &strides, 1)?;
    if let Some(limit) = storage_numel
        && reach > 0
    {
        let last = reach - 1;
        if offset.checked_add(last).is_none_or(|end| end >= limit) {
            bail!(
                Runtime,
                "setStorage: sizes {size:?}, strides {stride:?}, storage offset {offset}, and itemsize {} requiring a storage size of {} are out of bounds for storage of size {}",
                x.dtype().itemsize(),
                (offset as u128 + last as u128 + 1) * x.dtype().itemsize() as u128,
                limit * x.dtype().itemsize()
            );
        }
    }
    Ok(with(x, shape, strides, offset))
}

/// `diagonal(offset, dim1, dim2)`: the diagonal moves to the last dim.
pub fn diagonal(x: &impl Shaped, offset: i64, dim1: i64, dim2: i64) -> Result<Layout> {
    let (a, b) = (wrap_dim(dim1, x.ndim())?, wrap_dim(dim2, x.ndim())?);
    if a == b {
        bail!(
            Runtime,
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        );
    }
    let (sa, sb) = (x.shape()[a] as i64, x.shape()[b] as i64);
    let (len, start) = if offset >= 0 {
        ((sb - offset).min(sa).max(0), offset * x.strides()[b] as i64)
    } else {
        (
            (sa + offset).min(sb).max(0),
            -offset * x.strides()[a] as i64,
        )
    };
    let mut shape: Dims = SmallVec::new();
    let mut strides: Strides = SmallVec::new();
    for d in 0..x.ndim() {
        if d != a && d != b {
            shape.push(x.shape()[d]);
            strides.push(x.strides()[d]);
        }
    }
    shape.push(len as usize);
    strides.push(x.strides()[a] + x.strides()[b]);
    let off = if len > 0 {
        offset_by(x.offset(), start as isize)
    } else {
        x.offset()
    };
    Ok(with(x, shape, strides, off))
}

/// Moves the listed dims (in order) to the end, keeping the others' order: the permutation used by
/// reductions and softmax to make the reduced dims innermost.
pub fn dims_to_end(ndim: usize, dims: &[usize]) -> Vec<i64> {
    let mut perm: Vec<i64> = (0..ndim)
        .filter(|d| !dims.contains(d))
        .map(|d| d as i64)
        .collect();
    perm.extend(dims.iter().map(|&d| d as i64));
    perm
}

/// Contiguous strides helper re-exported for callers building outputs.
pub fn contiguous(shape: &[usize]) -> Layout {
    Layout {
        shape: shape.iter().copied().collect(),
        strides: contiguous_strides(shape),
        offset: 0,
    }
}
