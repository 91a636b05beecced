//! Shapes, strides and the view rules.
//!
//! Every view op is a pure function from an input layout to an output [`Layout`]. Tensors apply it to
//! their storage; the graph's meta rules apply it to a [`TensorMeta`] (offset 0). That way each shape
//! and stride rule is written once.

use smallvec::SmallVec;

use crate::error::bail;
use crate::{DType, Error, Result};

/// Sizes of a tensor, outermost first.
pub type Dims = SmallVec<[usize; 6]>;
/// Strides in elements (not bytes); may be 0 (broadcast) or negative (never produced by our ops).
pub type Strides = SmallVec<[isize; 6]>;

/// Shape, strides and storage offset (in elements) of a strided view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Sizes.
    pub shape: Dims,
    /// Strides in elements.
    pub strides: Strides,
    /// Offset of element `[0, ..., 0]` in the storage, in elements.
    pub offset: usize,
}

impl Layout {
    /// A contiguous (row-major) layout at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.iter().copied().collect(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }
}

/// A tensor's type and geometry without data: what meta rules consume and produce.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMeta {
    /// Element type.
    pub dtype: DType,
    /// Sizes.
    pub shape: Vec<usize>,
    /// Strides in elements.
    pub strides: Vec<isize>,
}

impl TensorMeta {
    /// A contiguous tensor of this dtype and shape.
    pub fn contiguous(dtype: DType, shape: &[usize]) -> TensorMeta {
        TensorMeta {
            dtype,
            shape: shape.to_vec(),
            strides: contiguous_strides(shape).to_vec(),
        }
    }

    /// The meta of a view with this layout (the offset is dropped).
    pub fn from_layout(dtype: DType, l: &Layout) -> TensorMeta {
        TensorMeta {
            dtype,
            shape: l.shape.to_vec(),
            strides: l.strides.to_vec(),
        }
    }
}

/// Anything with a dtype and a strided geometry: tensors and metas. Shape rules take `&impl Shaped` so
/// that the eager and the meta path share them.
pub trait Shaped {
    /// Element type.
    fn dtype(&self) -> DType;
    /// Sizes.
    fn shape(&self) -> &[usize];
    /// Strides in elements.
    fn strides(&self) -> &[isize];
    /// Storage offset in elements (0 for metas).
    fn offset(&self) -> usize {
        0
    }
    /// Number of dimensions.
    fn ndim(&self) -> usize {
        self.shape().len()
    }
    /// Number of elements.
    fn numel(&self) -> usize {
        numel(self.shape())
    }
    /// The layout.
    fn layout(&self) -> Layout {
        Layout {
            shape: self.shape().iter().copied().collect(),
            strides: self.strides().iter().copied().collect(),
            offset: self.offset(),
        }
    }
}

impl Shaped for TensorMeta {
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn strides(&self) -> &[isize] {
        &self.strides
    }
}

/// Product of sizes (1 for a zero-dim tensor). Every shape a tensor or meta holds passed
/// [`checked_numel`] when it was built, so this cannot overflow.
///
/// NOTE: saturating, so a shape still being validated (a huge product headed for
/// [`checked_numel`] or an allocation's size check) cannot panic or wrap around before it is
/// rejected.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |acc, &n| acc.saturating_mul(n))
}

/// The largest element count or byte size PyTorch allows (`int64_t`).
const SIZE_MAX: u64 = i64::MAX as u64;

/// The product of `values` from the left, `None` if a partial product overflows or the result
/// exceeds `i64::MAX` (c10's `safe_multiply_u64`: a zero after an overflow does not rescue it).
fn safe_product(values: impl IntoIterator<Item = usize>) -> Option<usize> {
    let mut acc = 1u64;
    for v in values {
        acc = acc.checked_mul(v as u64)?;
    }
    (acc <= SIZE_MAX).then_some(acc as usize)
}

/// [`numel`] for a shape being built (a view's, a reshape's, a meta rule's output): PyTorch's
/// `numel: integer multiplication overflow` when the count does not fit in `int64_t`.
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    safe_product(shape.iter().copied())
        .ok_or_else(|| Error::Runtime("numel: integer multiplication overflow".into()))
}

/// Bytes of a contiguous buffer for `shape`, as ATen's `computeStorageNbytesContiguous`
/// (`Storage size calculation overflowed with sizes=[...]`).
pub fn contiguous_nbytes(shape: &[usize], itemsize: usize) -> Result<usize> {
    safe_product(shape.iter().copied().chain([itemsize])).ok_or_else(|| {
        Error::Runtime(format!(
            "Storage size calculation overflowed with sizes={}",
            list(shape)
        ))
    })
}

/// Bytes of a buffer that `shape` with `strides` (non-negative) reaches, as ATen's
/// `computeStorageNbytes`: `itemsize * (1 + sum((size - 1) * stride))`, 0 for no elements.
pub fn strided_nbytes(shape: &[usize], strides: &[isize], itemsize: usize) -> Result<usize> {
    let overflow = || {
        Error::Runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            list(shape),
            list(strides)
        ))
    };
    if shape.contains(&0) {
        return Ok(0);
    }
    let mut last = 1u64;
    for (&n, &s) in shape.iter().zip(strides) {
        let step = ((n - 1) as u64)
            .checked_mul(s.unsigned_abs() as u64)
            .ok_or_else(overflow)?;
        last = last.checked_add(step).ok_or_else(overflow)?;
    }
    let bytes = last.checked_mul(itemsize as u64).ok_or_else(overflow)?;
    if bytes > SIZE_MAX {
        return Err(overflow());
    }
    Ok(bytes as usize)
}

/// Sizes computed in `int64_t` arithmetic (which wraps, as ATen's does) for a new tensor: a
/// negative one (a product or sum that overflowed) is PyTorch's `Trying to create tensor with
/// negative dimension` error.
pub fn new_sizes(sizes: &[i64]) -> Result<Dims> {
    if let Some(&v) = sizes.iter().find(|&&v| v < 0) {
        bail!(
            Runtime,
            "Trying to create tensor with negative dimension {v}: {}",
            list(sizes)
        );
    }
    Ok(sizes.iter().map(|&v| v as usize).collect())
}

/// `[a, b, c]`: sizes and strides as PyTorch prints them in messages.
pub fn list<T: std::fmt::Display>(values: &[T]) -> String {
    let items: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// [`contiguous_strides`] for a shape being built: PyTorch's `Stride calculation overflowed`
/// when a stride would not fit (only possible with a zero-size dim beside huge ones).
pub fn checked_contiguous_strides(shape: &[usize]) -> Result<Strides> {
    let mut strides: Strides = SmallVec::from_elem(1, shape.len());
    let mut acc = 1u64;
    for i in (0..shape.len()).rev() {
        strides[i] = acc as isize;
        // The outermost size never enters a stride.
        if i > 0 {
            acc = acc
                .checked_mul(shape[i].max(1) as u64)
                .filter(|&a| a <= SIZE_MAX)
                .ok_or_else(|| Error::Runtime("Stride calculation overflowed".into()))?;
        }
    }
    Ok(strides)
}

/// Row-major strides for `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(1, shape.len());
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        // Saturating: a shape too large for its strides is rejected by the allocation's checks
        // ([`checked_contiguous_strides`], [`contiguous_nbytes`]), not by a panic here.
        acc = acc.saturating_mul(shape[i].max(1).min(isize::MAX as usize) as isize);
    }
    strides
}

/// Whether a layout is row-major contiguous; size-1 dims may have any stride (as PyTorch).
pub fn is_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    if numel(shape) == 0 {
        return true;
    }
    let mut expected = 1isize;
    for i in (0..shape.len()).rev() {
        if shape[i] != 1 {
            if strides[i] != expected {
                return false;
            }
            expected *= shape[i] as isize;
        }
    }
    true
}

/// Normalises a possibly negative dim for a tensor of `ndim` dims (a zero-dim tensor accepts -1 and 0).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::DimOutOfRange {
            dim,
            min: -n,
            max: n - 1,
        });
    }
    Ok(if dim < 0 { dim + n } else { dim } as usize)
}

/// Normalises a list of dims, rejecting repeats (`dim 1 appears multiple times in the list of dims`).
pub fn wrap_dims(dims: &[i64], ndim: usize) -> Result<SmallVec<[usize; 6]>> {
    let mut out: SmallVec<[usize; 6]> = SmallVec::new();
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if out.contains(&w) {
            bail!(
                Runtime,
                "dim {w} appears multiple times in the list of dims"
            );
        }
        out.push(w);
    }
    Ok(out)
}

/// Broadcasts two shapes (NumPy rules, aligned from the right).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Dims> {
    let n = a.len().max(b.len());
    let mut out: Dims = SmallVec::from_elem(1, n);
    // Innermost first, as ATen's `infer_size`: a mismatch reports the last dim that differs.
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::BroadcastMismatch {
                a: da,
                b: db,
                dim: i,
            });
        };
    }
    Ok(out)
}

/// Broadcasts any number of shapes.
pub fn broadcast_all(shapes: &[&[usize]]) -> Result<Dims> {
    let mut out: Dims = SmallVec::new();
    for s in shapes {
        out = broadcast_shapes(&out, s)?;
    }
    Ok(out)
}

/// Strides that read `shape`/`strides` as if broadcast to `target` (stride 0 on expanded dims).
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Result<Strides> {
    let off = target.len().checked_sub(shape.len()).ok_or_else(|| {
        Error::Shape(format!(
            "cannot broadcast shape {shape:?} to fewer dimensions {target:?}"
        ))
    })?;
    let mut out: Strides = SmallVec::from_elem(0, target.len());
    for i in 0..shape.len() {
        let t = target[off + i];
        if shape[i] == t {
            out[off + i] = if t == 1 { 0 } else { strides[i] };
        } else if shape[i] == 1 {
            out[off + i] = 0;
        } else {
            return Err(Error::BroadcastMismatch {
                a: shape[i],
                b: t,
                dim: off + i,
            });
        }
    }
    Ok(out)
}

/// Resolves one `-1` in a requested shape against `numel` (`view`/`reshape` argument rules).
pub fn infer_size(shape: &[i64], numel_in: usize) -> Result<Dims> {
    let invalid = || Error::InvalidShape {
        shape: shape.to_vec(),
        numel: numel_in,
    };
    let mut infer = None;
    let mut known = 1usize;
    let mut out: Dims = SmallVec::with_capacity(shape.len());
    for (i, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                bail!(Runtime, "only one dimension can be inferred");
            }
            infer = Some(i);
            out.push(1);
        } else if s < 0 {
            bail!(Runtime, "invalid shape dimension {s}");
        } else {
            known = known
                .checked_mul(s as usize)
                .filter(|&k| k as u64 <= SIZE_MAX)
                .ok_or_else(|| Error::Runtime("numel: integer multiplication overflow".into()))?;
            out.push(s as usize);
        }
    }
    match infer {
        Some(i) => {
            if known == 0 || !numel_in.is_multiple_of(known) {
                return Err(invalid());
            }
            out[i] = numel_in / known;
        }
        None if known != numel_in => return Err(invalid()),
        None => {}
    }
    Ok(out)
}

/// ATen's `computeStride`: strides that view `old` as `new_shape` without copying, if any exist.
pub fn compute_view_strides(
    old_shape: &[usize],
    old_strides: &[isize],
    new_shape: &[usize],
) -> Option<Strides> {
    if old_shape.is_empty() {
        return Some(SmallVec::from_elem(1, new_shape.len()));
    }
    if numel(old_shape) == 0 {
        return Some(if old_shape == new_shape {
            old_strides.iter().copied().collect()
        } else {
            contiguous_strides(new_shape)
        });
    }
    let mut new_strides: Strides = SmallVec::from_elem(0, new_shape.len());
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base = *old_strides.last().expect("invariant: non-empty shape");
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel as isize * chunk_base);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel as isize * chunk_base;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    (view_d == -1).then_some(new_strides)
}
