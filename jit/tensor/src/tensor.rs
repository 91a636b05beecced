//! [`Tensor`]: a strided view of a shared [`Storage`].

use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::error::bail;
use crate::layout::{Dims, Layout, Shaped, Strides, is_contiguous, numel};
use crate::{DType, Element, Error, Result, Scalar, Storage, dispatch_all, kernels};

/// A strided n-dimensional array. `Clone` is cheap and makes an alias (same storage), like assigning
/// a tensor to a second Python name; [`Tensor::deep_clone`] copies the data.
pub struct Tensor {
    storage: Arc<Storage>,
    dtype: DType,
    shape: Dims,
    strides: Strides,
    offset: usize,
    /// Autograd identity and state (see [`crate::autograd_meta`]); `None` until the tensor
    /// reaches the dispatcher or Python. Views and fresh results start without it.
    pub(crate) autograd: Option<Arc<crate::AutogradMeta>>,
}

// NOTE: by hand, not derived: `SmallVec`'s own `Clone` goes through a generic iterator
// (~180 instructions per tensor); `from_slice` copies the inline dims in one go. Every op and
// every compiled call clones tensors.
impl Clone for Tensor {
    fn clone(&self) -> Tensor {
        Tensor {
            storage: Arc::clone(&self.storage),
            dtype: self.dtype,
            shape: SmallVec::from_slice(&self.shape),
            strides: SmallVec::from_slice(&self.strides),
            offset: self.offset,
            autograd: self.autograd.clone(),
        }
    }
}

impl Shaped for Tensor {
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn strides(&self) -> &[isize] {
        &self.strides
    }
    fn offset(&self) -> usize {
        self.offset
    }
}

impl Tensor {
    // === Construction ===

    /// A view of `storage` with the given layout. Fails when the layout reaches past the storage.
    pub fn from_storage(storage: Arc<Storage>, dtype: DType, layout: Layout) -> Result<Tensor> {
        let t = Tensor {
            storage,
            dtype,
            shape: layout.shape,
            strides: layout.strides,
            offset: layout.offset,
            autograd: None,
        };
        if t.numel() > 0 {
            let (lo, hi) = t.element_span();
            if lo < 0 || hi as usize * dtype.itemsize() > t.storage.nbytes() {
                bail!(
                    Runtime,
                    "view with shape {:?} strides {:?} offset {} is out of bounds for a storage of {} bytes",
                    t.shape,
                    t.strides,
                    t.offset,
                    t.storage.nbytes()
                );
            }
        }
        Ok(t)
    }

    /// The same storage under another layout. The layout comes from a view rule, which keeps it in
    /// bounds.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype: self.dtype,
            shape: layout.shape,
            strides: layout.strides,
            offset: layout.offset,
            autograd: None,
        }
    }

    /// The same storage read as another dtype under `layout` (in elements of `dtype`), which
    /// comes from [`crate::view_dtype::view_dtype_layout`] and so stays in bounds.
    pub(crate) fn with_dtype_layout(&self, dtype: DType, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            dtype,
            shape: layout.shape,
            strides: layout.strides,
            offset: layout.offset,
            autograd: None,
        }
    }

    /// A contiguous tensor whose contents are unspecified, as `torch.empty`: zeros when freshly
    /// allocated, an earlier tensor's values when a pooled buffer is reused (see
    /// [`crate::storage::pool`]). Kernels must write every element; use [`Tensor::zeros`] to
    /// accumulate into it. A shape too large to allocate raises PyTorch's error
    /// ([`crate::unwind::raise`]); [`Tensor::try_empty`] returns it instead.
    pub fn empty(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::try_empty(shape, dtype).unwrap_or_else(|e| crate::unwind::raise(e))
    }

    /// [`Tensor::empty`], returning a size overflow or an allocation failure as PyTorch's
    /// `RuntimeError`.
    pub fn try_empty(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::alloc(shape, dtype, Storage::try_uninit)
    }

    /// A contiguous tensor for a kernel that writes every element before anything reads it: an
    /// op's output. Unlike [`Tensor::empty`], a small one is not zero-filled first
    /// ([`Storage::try_for_overwrite`]), so it must never reach a user unwritten (`torch.empty`
    /// uses [`Tensor::empty`]). Debug builds fill it with a poison pattern (NaN for floats, -1 for
    /// integers, `true` for bools) so that a kernel skipping elements fails the tests instead of
    /// leaving zeros behind.
    pub fn empty_for_overwrite(shape: &[usize], dtype: DType) -> Tensor {
        let t = Tensor::alloc(shape, dtype, Storage::try_for_overwrite)
            .unwrap_or_else(|e| crate::unwind::raise(e));
        if cfg!(debug_assertions) {
            let byte = if dtype == DType::Bool { 1 } else { 0xff };
            // SAFETY: the storage is fresh, owned by `t` alone, and `nbytes` long.
            unsafe { std::ptr::write_bytes(t.storage.as_ptr(), byte, t.storage.nbytes()) };
        }
        t
    }

    /// A contiguous tensor shaped and typed like `x` (its strides are not kept).
    pub fn empty_like(x: &impl Shaped) -> Tensor {
        Tensor::empty(x.shape(), x.dtype())
    }

    /// All zeros; allocation failures are raised as in [`Tensor::empty`].
    pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::try_zeros(shape, dtype).unwrap_or_else(|e| crate::unwind::raise(e))
    }

    /// [`Tensor::zeros`], returning a size overflow or an allocation failure.
    pub fn try_zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::alloc(shape, dtype, Storage::try_zeroed)
    }

    /// A fresh contiguous tensor: the byte size and strides are checked for overflow as ATen's
    /// `empty` checks them, so no shape ever wraps around into a small buffer.
    fn alloc(
        shape: &[usize],
        dtype: DType,
        storage: fn(usize) -> Result<Storage>,
    ) -> Result<Tensor> {
        let nbytes = crate::layout::contiguous_nbytes(shape, dtype.itemsize())?;
        let strides = crate::layout::checked_contiguous_strides(shape)?;
        Ok(Tensor {
            storage: Arc::new(storage(nbytes)?),
            dtype,
            shape: SmallVec::from_slice(shape),
            strides,
            offset: 0,
            autograd: None,
        })
    }

    /// All ones.
    pub fn ones(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, Scalar::Int(1), dtype)
    }

    /// Every element `value` (cast to `dtype`).
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Tensor {
        let t = Tensor::empty(shape, dtype);
        t.fill_raw(value);
        t
    }

    /// A tensor owning `data`, laid out row-major as `shape`.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        if data.len() != numel(shape) {
            bail!(
                Runtime,
                "from_vec: {} elements cannot fill shape {:?}",
                data.len(),
                shape
            );
        }
        let t = Tensor::empty(shape, T::DTYPE);
        // SAFETY: `t` is fresh and contiguous with exactly `data.len()` elements of type T.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), t.data_ptr::<T>(), data.len());
        }
        Ok(t)
    }

    /// A zero-dim tensor holding `v`.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor::from_vec(vec![v], &[]).expect("invariant: one element fills shape []")
    }

    /// A zero-dim tensor holding a Python scalar as `dtype` (`torch.scalar_tensor`).
    pub fn from_scalar(v: Scalar, dtype: DType) -> Tensor {
        Tensor::full(&[], v, dtype)
    }

    /// `torch.tensor(data)` for data already flattened: the dtype is inferred as PyTorch does (any
    /// float makes the default float dtype, else any int makes int64, else bool) unless given.
    pub fn from_scalars(
        values: &[Scalar],
        shape: &[usize],
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        if values.len() != numel(shape) {
            bail!(
                Value,
                "expected sequence of length {} at dim 0 (got {})",
                numel(shape),
                values.len()
            );
        }
        let dtype = dtype.unwrap_or_else(|| {
            let cat = values
                .iter()
                .map(|s| s.category())
                .max()
                .unwrap_or(crate::Category::Float);
            match cat {
                crate::Category::Bool => DType::Bool,
                crate::Category::Int => DType::Int64,
                crate::Category::Float => crate::DEFAULT_FLOAT,
                crate::Category::Complex => crate::DEFAULT_COMPLEX,
            }
        });
        let t = Tensor::empty(shape, dtype);
        dispatch_all!(dtype, T => {
            let p = t.data_ptr::<T>();
            for (i, v) in values.iter().enumerate() {
                let e: T = scalar_to::<T>(*v);
                // SAFETY: `t` is contiguous with `values.len()` elements and not shared yet.
                unsafe { p.add(i).write(e) };
            }
        });
        Ok(t)
    }

    // === Accessors ===

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Sizes.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Storage offset in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Number of dims.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }
    /// The size of one dim (negative counts from the end).
    pub fn size(&self, dim: i64) -> Result<usize> {
        Ok(self.shape[crate::layout::wrap_dim(dim, self.ndim())?])
    }
    /// The shared storage.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }
    /// The meta (dtype, shape, strides) of this tensor.
    pub fn meta(&self) -> crate::TensorMeta {
        crate::TensorMeta {
            dtype: self.dtype,
            shape: self.shape.to_vec(),
            strides: self.strides.to_vec(),
        }
    }
    /// Whether the layout is row-major contiguous.
    pub fn is_contiguous(&self) -> bool {
        is_contiguous(&self.shape, &self.strides)
    }
    /// Whether both tensors view the same storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
    /// The storage's version counter (bumped by every in-place write through any alias).
    pub fn version(&self) -> u64 {
        self.storage.version()
    }

    /// Pointer to element `[0, ..., 0]`, typed. Debug builds check `T` against the dtype.
    pub fn data_ptr<T: Element>(&self) -> *mut T {
        debug_assert_eq!(T::DTYPE, self.dtype, "data_ptr::<T>() with the wrong T");
        // SAFETY: offset is within the storage (checked at construction or produced by a view rule).
        unsafe {
            self.storage
                .as_ptr()
                .add(self.offset * self.dtype.itemsize())
                .cast::<T>()
        }
    }

    /// Lowest and one-past-highest element index touched, relative to the storage start.
    pub(crate) fn element_span(&self) -> (isize, isize) {
        let mut lo = self.offset as isize;
        let mut hi = self.offset as isize;
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            if n == 0 {
                return (self.offset as isize, self.offset as isize);
            }
            let ext = (n as isize - 1) * s;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        (lo, hi + 1)
    }

    /// Whether the element ranges of the two tensors may overlap in one storage.
    pub(crate) fn may_overlap(&self, other: &Tensor) -> bool {
        if !self.shares_storage(other) || self.numel() == 0 || other.numel() == 0 {
            return false;
        }
        let isz = |t: &Tensor| t.dtype.itemsize() as isize;
        let (a0, a1) = self.element_span();
        let (b0, b1) = other.element_span();
        a0 * isz(self) < b1 * isz(other) && b0 * isz(other) < a1 * isz(self)
    }

    // === Readers ===

    /// All elements in logical (row-major) order, converted to `T` with PyTorch's casts.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        let src = if T::DTYPE == self.dtype {
            self.contiguous()
        } else {
            self.to_dtype(T::DTYPE)
        };
        let n = src.numel();
        let mut out = Vec::with_capacity(n);
        // SAFETY: `src` is contiguous with `n` elements of type T.
        unsafe {
            std::ptr::copy_nonoverlapping(src.data_ptr::<T>(), out.as_mut_ptr(), n);
            out.set_len(n);
        }
        out
    }

    /// The single element as a Python scalar (`.item()`).
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            bail!(
                Runtime,
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            );
        }
        if self.dtype.is_complex() {
            // `Scalar` is real: complex callers read `ops::complex::item` instead; everyone else
            // (argument binding, `float()`, `int()`) gets an error, never the real part alone.
            bail!(
                Runtime,
                "a {} value cannot be converted to a real number",
                self.dtype
            );
        }
        let v = dispatch_all!(self.dtype, T => {
            // SAFETY: one element exists at the data pointer.
            let e: T = unsafe { *self.data_ptr::<T>() };
            if T::IS_FLOAT {
                Scalar::Float(e.to_f64())
            } else if T::DTYPE == DType::Bool {
                Scalar::Bool(e.to_bool())
            } else {
                Scalar::Int(e.to_i64())
            }
        });
        Ok(v)
    }

    // === Copies and conversions ===

    /// `self` if already contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Tensor {
        if self.is_contiguous() {
            return self.clone();
        }
        self.deep_clone()
    }

    /// A contiguous copy with its own storage (`torch.clone`).
    pub fn deep_clone(&self) -> Tensor {
        self.copied_as(self.dtype)
    }

    /// `self` if already of `dtype`, else a converted contiguous copy.
    pub fn to_dtype(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype {
            return self.clone();
        }
        self.copied_as(dtype)
    }

    /// A contiguous copy of `self` cast to `dtype`, into a buffer that is not zeroed first when
    /// one pass of `copy_cast` writes it.
    fn copied_as(&self, dtype: DType) -> Tensor {
        // A same-dtype or real-to-real copy writes every element of the fresh contiguous `out` in
        // one pass; a cast to or from complex goes through temporaries, so it keeps `empty`.
        let direct = dtype == self.dtype || !(dtype.is_complex() || self.dtype.is_complex());
        let out = if direct {
            Tensor::empty_for_overwrite(&self.shape, dtype)
        } else {
            Tensor::empty(&self.shape, dtype)
        };
        kernels::copy::copy_cast(&out, self);
        out
    }

    /// `self.copy_(src)`: writes `src` (broadcast to `self`'s shape, cast to its dtype) into `self`.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        // PyTorch names the destination "tensor a" in this message.
        let strides = crate::layout::broadcast_strides(src.shape(), src.strides(), &self.shape)
            .map_err(|e| match e {
                Error::BroadcastMismatch { a, b, dim } => {
                    Error::BroadcastMismatch { a: b, b: a, dim }
                }
                e => e,
            })?;
        let mut view = src.clone();
        view.shape = self.shape.clone();
        view.strides = strides;
        let view = if view.may_overlap(self) {
            view.deep_clone()
        } else {
            view
        };
        kernels::copy::copy_cast(self, &view);
        self.storage.bump_version();
        Ok(())
    }

    /// `self.fill_(value)`.
    pub fn fill_(&self, value: Scalar) {
        self.fill_raw(value);
        self.storage.bump_version();
    }

    /// Fills without bumping the version (fresh tensors).
    fn fill_raw(&self, value: Scalar) {
        if self.dtype.is_complex() {
            // A real value fills the real part; the imaginary part is zero.
            return crate::ops::complex::fill(self, value.to_f64(), 0.0);
        }
        dispatch_all!(self.dtype, T => {
            let v: T = scalar_to::<T>(value);
            kernels::copy::fill(self, v);
        })
    }

    /// Reinterprets this tensor with a new layout over the same storage (`as_strided`), checked
    /// against the storage size.
    pub fn as_strided(&self, size: &[i64], stride: &[i64], offset: Option<i64>) -> Result<Tensor> {
        let numel = self.storage.nbytes() / self.dtype.itemsize();
        let l = crate::views::as_strided(self, size, stride, offset, Some(numel))?;
        Ok(self.with_layout(l))
    }

    /// The dims as i64, for APIs that take PyTorch-style sizes.
    pub fn shape_i64(&self) -> SmallVec<[i64; 6]> {
        self.shape.iter().map(|&s| s as i64).collect()
    }
}

/// Converts a Python scalar to an element with PyTorch's casts.
pub fn scalar_to<T: Element>(v: Scalar) -> T {
    match v {
        Scalar::Bool(b) => T::from_i64(i64::from(b)),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(x) => T::from_f64(x),
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 32;
        let vals = self.to_vec::<f64>();
        write!(f, "tensor(")?;
        let shown: Vec<String> = vals.iter().take(MAX).map(|v| format!("{v}")).collect();
        write!(f, "[{}", shown.join(", "))?;
        if vals.len() > MAX {
            write!(f, ", ...")?;
        }
        write!(
            f,
            "], shape={:?}, dtype={}, strides={:?})",
            self.shape, self.dtype, self.strides
        )
    }
}
