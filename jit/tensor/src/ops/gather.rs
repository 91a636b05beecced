//! Index-driven copies along a dim: `gather`, `scatter`/`scatter_add`, `index_select`,
//! `index_put_`, `nonzero`.

use crate::error::bail;
use crate::iter::{Geometry, SendPtr};
use crate::layout::{Shaped, contiguous_strides, wrap_dim};
use crate::ops::index::{
    IndexItem, advanced_shape, gather_offsets, int_indices, nonzero_columns, plan, put,
    scalar_masks,
};
use crate::ops::pointwise::{TensorOrScalar, operand_as};
use crate::{DType, Element, Error, Result, Tensor, TensorMeta, dispatch_all, scalar_to};

/// A zero-dim tensor as a one-element 1-D view (gather and scatter treat them alike).
pub(crate) fn as_1d(t: &Tensor) -> Result<Tensor> {
    if t.ndim() == 0 {
        t.reshape(&[1])
    } else {
        Ok(t.clone())
    }
}

/// The dim checks shared by gather and scatter.
pub(crate) fn check_index_shape<S: Shaped>(
    name: &str,
    x: &S,
    index: &S,
    src: Option<&S>,
    d: usize,
) -> Result<()> {
    if x.ndim().max(1) != index.ndim().max(1) {
        bail!(
            Runtime,
            "Index tensor must have the same number of dimensions as {} tensor",
            if name == "gather" { "input" } else { "self" }
        );
    }
    if let Some(s) = src
        && s.ndim().max(1) != index.ndim().max(1)
    {
        bail!(
            Runtime,
            "Index tensor must have the same number of dimensions as src tensor"
        );
    }
    if index.numel() == 0 || index.ndim() == 0 || x.ndim() == 0 {
        return Ok(());
    }
    for k in 0..index.ndim() {
        let too_big = (k != d && index.shape()[k] > x.shape()[k])
            || src.is_some_and(|s| s.ndim() > 0 && index.shape()[k] > s.shape()[k]);
        if !too_big {
            continue;
        }
        // PyTorch 2.15's three texts.
        match src {
            None if name == "gather" => bail!(
                Runtime,
                "Size does not match at dimension {k} expected index {:?} to be no larger than self {:?} apart from dimension {d}",
                index.shape(),
                x.shape()
            ),
            None => bail!(
                Runtime,
                "Expected index {:?} to be no larger than self {:?} apart from dimension {d}",
                index.shape(),
                x.shape()
            ),
            Some(s) => bail!(
                Runtime,
                "Expected index {:?} to be no larger than self {:?} apart from dimension {d} and to be no larger size than src {:?}",
                index.shape(),
                x.shape(),
                s.shape()
            ),
        }
    }
    Ok(())
}

/// Checks every index against `[0, size)`.
pub(crate) fn check_bounds(index: &Tensor, d: usize, size: usize) -> Result<Vec<i64>> {
    let vals = index.to_vec::<i64>();
    if let Some(&v) = vals.iter().find(|&&v| v < 0 || v >= size as i64) {
        bail!(
            Runtime,
            "index {v} is out of bounds for dimension {d} with size {size}"
        );
    }
    Ok(vals)
}

/// gather/scatter take int64 or int32 indexes (PyTorch 2.15); the kernels read int64, so an
/// int32 index is widened first ([`wide_index`]).
fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::Int64 | DType::Int32)
}

/// `index` as int64 (a copy only for an int32 index).
fn wide_index(index: &Tensor) -> std::borrow::Cow<'_, Tensor> {
    if index.dtype() == DType::Int64 {
        std::borrow::Cow::Borrowed(index)
    } else {
        std::borrow::Cow::Owned(index.to_dtype(DType::Int64))
    }
}

/// Shape/dtype rule of `gather(x, dim, index)`.
pub fn gather_meta<S: Shaped>(x: &S, dim: i64, index: &S) -> Result<TensorMeta> {
    let d = wrap_dim(dim, x.ndim())?;
    if !is_index_dtype(index.dtype()) {
        bail!(Runtime, "gather(): Expected dtype int32/int64 for index");
    }
    check_index_shape("gather", x, index, None, d)?;
    Ok(TensorMeta::contiguous(x.dtype(), index.shape()))
}

/// `gather(x, dim, index)`: `out[p] = x[p with p[dim] = index[p]]`.
pub fn gather(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let meta = gather_meta(x, dim, index)?;
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if out.numel() == 0 {
        return Ok(out);
    }
    let (x1, i1, o1) = (as_1d(x)?, as_1d(&wide_index(index))?, as_1d(&out)?);
    let d = wrap_dim(dim, x1.ndim())?;
    check_bounds(&i1, d, x1.shape()[d])?;
    let mut xs = x1.strides().to_vec();
    let step = xs[d];
    xs[d] = 0;
    let g = Geometry::new(i1.shape(), [o1.strides(), i1.strides(), &xs]);
    let [so, si, sx] = g.inner_strides();
    dispatch_all!(x.dtype(), T => {
        let (po, pi, px) = (
            SendPtr(o1.data_ptr::<T>()),
            SendPtr(i1.data_ptr::<i64>()),
            SendPtr(x1.data_ptr::<T>()),
        );
        g.par_for_each_run(|[oo, oi, ox], len| {
            for k in 0..len as isize {
                // SAFETY: offsets come from the geometry of these tensors over the index shape,
                // which fits inside `x` apart from `dim`; the index along `dim` was bounds-checked.
                // Runs are disjoint in `out`.
                unsafe {
                    let iv = *pi.at(oi + k * si) as isize;
                    *po.at(oo + k * so) = *px.at(ox + k * sx + iv * step);
                }
            }
        });
    });
    Ok(out)
}

/// How `scatter` combines a source value with the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// Overwrite.
    Assign,
    /// Add (`scatter_add`, `reduce='add'`).
    Add,
    /// Multiply (`reduce='multiply'`).
    Multiply,
}

impl ScatterReduce {
    /// Parses the `reduce=` argument of `scatter`.
    pub fn parse(reduce: Option<&str>) -> Result<ScatterReduce> {
        match reduce {
            None => Ok(ScatterReduce::Assign),
            Some("add") => Ok(ScatterReduce::Add),
            Some("multiply") => Ok(ScatterReduce::Multiply),
            Some(r) => bail!(
                Runtime,
                "reduce argument must be either add or multiply. Got {r}"
            ),
        }
    }
}

/// Shape/dtype rule of `scatter(x, dim, index, src)` (`src = None` for the scalar-value form).
pub fn scatter_meta<S: Shaped>(
    name: &str,
    x: &S,
    dim: i64,
    index: &S,
    src: Option<&S>,
) -> Result<TensorMeta> {
    let d = wrap_dim(dim, x.ndim())?;
    if !is_index_dtype(index.dtype()) {
        bail!(Runtime, "{name}(): Expected dtype int32/int64 for index");
    }
    if let Some(s) = src
        && s.dtype() != x.dtype()
    {
        bail!(
            Runtime,
            "{name}(): Expected self.dtype to be equal to src.dtype"
        );
    }
    check_index_shape(name, x, index, src, d)?;
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `scatter(x, dim, index, src)` into a copy of `x` (see [`scatter_`]).
pub fn scatter(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: TensorOrScalar<&Tensor>,
    reduce: ScatterReduce,
) -> Result<Tensor> {
    let out = x.deep_clone();
    scatter_(&out, dim, index, src, reduce)?;
    Ok(out)
}

/// In-place `x.scatter_(dim, index, src)`: `x[p with p[dim] = index[p]] (op)= src[p]` for every
/// position `p` of `index`, in order (the last write wins on duplicate indices).
pub fn scatter_(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: TensorOrScalar<&Tensor>,
    reduce: ScatterReduce,
) -> Result<()> {
    let src_t = src.tensor();
    // PyTorch names scatter_add's errors `scatter()` too.
    scatter_meta("scatter", x, dim, index, src_t)?;
    if index.numel() == 0 {
        return Ok(());
    }
    let (x1, i1) = (as_1d(x)?, as_1d(&wide_index(index))?);
    let d = wrap_dim(dim, x1.ndim())?;
    check_bounds(&i1, d, x1.shape()[d])?;
    // A source aliasing the destination is read before any write lands.
    let s1 = match src_t {
        Some(s) if s.may_overlap(x) => Some(as_1d(&s.deep_clone())?),
        Some(s) => Some(as_1d(s)?),
        None => None,
    };
    let mut xs = x1.strides().to_vec();
    let step = xs[d];
    xs[d] = 0;
    let zeros = vec![0isize; i1.ndim()];
    let ss = s1.as_ref().map_or(zeros.as_slice(), |s| s.strides());
    let g = Geometry::new(i1.shape(), [&xs, i1.strides(), ss]);
    let [sx, si, sv] = g.inner_strides();
    dispatch_all!(x.dtype(), T => {
        let (px, pi) = (x1.data_ptr::<T>(), i1.data_ptr::<i64>());
        let (pv, fill): (*const T, T) = match (&s1, src) {
            (Some(s), _) => (s.data_ptr::<T>(), T::ZERO),
            (None, TensorOrScalar::Scalar(v)) => (std::ptr::null(), scalar_to::<T>(v)),
            (None, TensorOrScalar::Tensor(_)) => unreachable!("invariant: tensor src is Some"),
        };
        let combine = combiner::<T>(reduce);
        g.for_each_run(0..g.numel(), |[ox, oi, ov], len| {
            for k in 0..len as isize {
                // SAFETY: offsets come from the geometry over the index shape, which fits inside
                // `x` (apart from `dim`, bounds-checked) and `src`; `src` does not alias `x`.
                unsafe {
                    let iv = *pi.offset(oi + k * si) as isize;
                    let v = if pv.is_null() { fill } else { *pv.offset(ov + k * sv) };
                    let dst = px.offset(ox + k * sx + iv * step);
                    *dst = combine(*dst, v);
                }
            }
        });
    });
    x.storage().bump_version();
    Ok(())
}

/// The element combiner of a scatter reduction (bool add is `or`, multiply `and`).
fn combiner<T: Element>(reduce: ScatterReduce) -> impl Fn(T, T) -> T {
    move |old: T, v: T| match reduce {
        ScatterReduce::Assign => v,
        _ if T::DTYPE == DType::Bool => {
            let (a, b) = (old.to_bool(), v.to_bool());
            T::from_i64(i64::from(if reduce == ScatterReduce::Add {
                a || b
            } else {
                a && b
            }))
        }
        ScatterReduce::Add if T::IS_FLOAT => T::from_f64(old.to_f64() + v.to_f64()),
        ScatterReduce::Add => T::from_i64(old.to_i64().wrapping_add(v.to_i64())),
        ScatterReduce::Multiply if T::IS_FLOAT => T::from_f64(old.to_f64() * v.to_f64()),
        ScatterReduce::Multiply => T::from_i64(old.to_i64().wrapping_mul(v.to_i64())),
    }
}

/// Shape/dtype rule of `index_select(x, dim, index)`.
pub fn index_select_meta<S: Shaped>(x: &S, dim: i64, index: &S) -> Result<TensorMeta> {
    let d = wrap_dim(dim, x.ndim())?;
    if index.ndim() > 1 {
        bail!(Index, "index_select(): Index is supposed to be a vector");
    }
    if x.ndim() == 0 && index.numel() != 1 {
        bail!(
            Index,
            "index_select(): Index to scalar can have only 1 value, got {} value(s)",
            index.numel()
        );
    }
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        bail!(
            Runtime,
            "index_select(): Expected dtype int32 or int64 for index"
        );
    }
    let mut shape = x.shape().to_vec();
    if x.ndim() > 0 {
        shape[d] = index.numel();
    }
    Ok(TensorMeta::contiguous(x.dtype(), &shape))
}

/// `index_select(x, dim, index)`: the slices of `x` along `dim` at `index`, in order.
pub fn index_select(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let meta = index_select_meta(x, dim, index)?;
    let d = wrap_dim(dim, x.ndim())?;
    let size = if x.ndim() == 0 { 1 } else { x.shape()[d] };
    let idx = index.to_dtype(DType::Int64).reshape(&[-1])?;
    let idx = idx.to_vec::<i64>();
    if idx.iter().any(|&v| v < 0 || v >= size as i64) {
        bail!(Index, "index out of range in self");
    }
    if x.ndim() == 0 {
        return Ok(Tensor::full(&[], x.item()?, x.dtype()));
    }
    let out = crate::ops::index_select::select_contiguous(&x.contiguous(), d, &idx);
    debug_assert_eq!(out.shape(), meta.shape.as_slice());
    Ok(out)
}

/// Shape/dtype rule of `index_put_(x, indices, values)`.
pub fn index_put_meta<S: Shaped>(x: &S, indices: &[&S], values: &S) -> Result<TensorMeta> {
    if indices.len() > x.ndim().max(1) {
        bail!(
            Index,
            "too many indices for tensor of dimension {}",
            x.ndim()
        );
    }
    for t in indices {
        if !t.dtype().is_integral(true) {
            bail!(
                Index,
                "tensors used as indices must be long, int, byte or bool tensors"
            );
        }
    }
    if values.dtype() != x.dtype() {
        bail!(
            Runtime,
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            x.dtype().aten_name(),
            values.dtype().aten_name()
        );
    }
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `x.index_put_(indices, values, accumulate)`: `x[indices] = values`, or `+=` with duplicates
/// accumulating when `accumulate`.
pub fn index_put_(
    x: &Tensor,
    indices: &[&Tensor],
    values: &Tensor,
    accumulate: bool,
) -> Result<()> {
    index_put_meta(x, indices, values)?;
    let items: Vec<IndexItem<Tensor>> = indices
        .iter()
        .map(|t| IndexItem::Tensor((*t).clone()))
        .collect();
    if !accumulate {
        return put(x, &items, TensorOrScalar::Tensor(values));
    }
    let items = scalar_masks(&items)?;
    let p = plan(x, &items)?;
    let idx = int_indices(&p.view, &p.advanced, &p.bools)?;
    let (b, offs) = gather_offsets(&p.view, &idx)?;
    let dims: Vec<usize> = idx.iter().map(|(d, _)| *d).collect();
    let rest: Vec<usize> = (0..p.view.shape.len())
        .filter(|d| !dims.contains(d))
        .collect();
    let rest_shape: Vec<usize> = rest.iter().map(|&d| p.view.shape[d]).collect();
    let rest_strides: Vec<isize> = rest.iter().map(|&d| p.view.strides[d]).collect();
    let want = advanced_shape(&p.view.shape, &dims, &b);
    let v = operand_as(TensorOrScalar::Tensor(values), x.dtype(), &want)
        .map_err(|_| {
            Error::Runtime(format!(
                "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {want:?}",
                values.shape()
            ))
        })?
        .deep_clone();
    let block: usize = rest_shape.iter().product();
    let vstrides = contiguous_strides(&rest_shape);
    let g = Geometry::new(&rest_shape, [&rest_strides, &vstrides]);
    let [sd, sv] = g.inner_strides();
    dispatch_all!(x.dtype(), T => {
        let add = combiner::<T>(ScatterReduce::Add);
        // SAFETY: `p.view.offset` and the gathered offsets address elements of `x` (indices were
        // bounds-checked); `v` is a fresh contiguous copy with one rest block per index position.
        let base = unsafe { x.storage().as_ptr().cast::<T>().add(p.view.offset) };
        let pv = v.data_ptr::<T>();
        for (i, &o) in offs.iter().enumerate() {
            g.for_each_run(0..g.numel(), |[od, ov], len| {
                for k in 0..len as isize {
                    // SAFETY: as above; the rest block lies inside the view.
                    unsafe {
                        let dst = base.offset(o + od + k * sd);
                        *dst = add(*dst, *pv.add(i * block).offset(ov + k * sv));
                    }
                }
            });
        }
    });
    x.storage().bump_version();
    Ok(())
}

/// Shape rule of `nonzero`: data-dependent.
pub fn nonzero_meta(_x: &impl Shaped) -> Result<TensorMeta> {
    Err(Error::DataDependent("nonzero".into()))
}

/// `nonzero(x, as_tuple=True)` and `torch.where(x)`: one int64 index vector per dim of `x`. A
/// zero-dim `x` counts as one element of a 1-D tensor (ATen's `nonzero_numpy`, as NumPy).
pub fn nonzero_numpy(x: &Tensor) -> Vec<Tensor> {
    if x.ndim() == 0 {
        return nonzero_columns(&x.reshape(&[1]).expect("invariant: one element"));
    }
    nonzero_columns(x)
}

/// `nonzero(x)`: an int64 `[n, ndim]` tensor of the coordinates of non-zero elements, row-major.
pub fn nonzero(x: &Tensor) -> Result<Tensor> {
    let flags = x.to_vec::<bool>();
    let nd = x.ndim();
    let strides = contiguous_strides(x.shape());
    let mut coords = Vec::new();
    for (i, &m) in flags.iter().enumerate() {
        if m {
            for k in 0..nd {
                coords.push((i as isize / strides[k]) as i64 % x.shape()[k] as i64);
            }
        }
    }
    let n = flags.iter().filter(|&&m| m).count();
    Tensor::from_vec(coords, &[n, nd])
}
