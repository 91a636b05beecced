//! `__getitem__` / `__setitem__`: basic indexing (ints, slices, None, Ellipsis, bools) as views,
//! then advanced indexing (integer and boolean tensors) with NumPy's placement rule.

use crate::error::bail;
use crate::iter::Geometry;
use crate::layout::{Layout, Shaped, broadcast_all, contiguous_strides, numel};
use crate::ops::pointwise::{TensorOrScalar, broadcast_to, operand_as};
use crate::{DType, Error, Result, Tensor, TensorMeta, memory_overlap, views};

/// One element of an index expression `x[a, b, ...]`.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexItem<T> {
    /// `x[3]`: selects and removes the dim.
    Int(i64),
    /// `x[a:b:c]`.
    Slice {
        /// Start (`None` = beginning).
        start: Option<i64>,
        /// Stop (`None` = end).
        stop: Option<i64>,
        /// Step (`None` = 1).
        step: Option<i64>,
    },
    /// `x[None]`: inserts a size-1 dim.
    None,
    /// `x[...]`.
    Ellipsis,
    /// `x[True]` / `x[False]`: a new dim of size 1 or 0.
    Bool(bool),
    /// An integer tensor (gather) or a boolean mask.
    Tensor(T),
}

impl<T> IndexItem<T> {
    /// The same item with the tensor mapped (e.g. tensor to meta, or to a graph value id).
    pub fn map<U>(&self, f: impl FnOnce(&T) -> U) -> IndexItem<U> {
        match self {
            IndexItem::Int(i) => IndexItem::Int(*i),
            IndexItem::Slice { start, stop, step } => IndexItem::Slice {
                start: *start,
                stop: *stop,
                step: *step,
            },
            IndexItem::None => IndexItem::None,
            IndexItem::Ellipsis => IndexItem::Ellipsis,
            IndexItem::Bool(b) => IndexItem::Bool(*b),
            IndexItem::Tensor(t) => IndexItem::Tensor(f(t)),
        }
    }
}

/// A layout with a dtype, so the view rules can run on intermediate index results.
struct Geom {
    dtype: DType,
    l: Layout,
}

impl Shaped for Geom {
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.l.shape
    }
    fn strides(&self) -> &[isize] {
        &self.l.strides
    }
    fn offset(&self) -> usize {
        self.l.offset
    }
}

/// The basic-indexing view plus the advanced indices with the view dim each applies to.
pub struct IndexPlan<'a, T> {
    /// Layout after ints, slices, None, Ellipsis and bools.
    pub view: Layout,
    /// `(first view dim, index tensor)`; a boolean mask covers `mask.ndim()` dims from there.
    pub advanced: Vec<(usize, &'a T)>,
    /// `(view dim, value)` of each Python bool: PyTorch unsqueezes a dim for it and indexes that
    /// dim with `[0]` (True) or `[]` (False) as an advanced index, so bools take part in the
    /// advanced-index placement rule like tensors.
    pub bools: Vec<(usize, bool)>,
}

impl<T> IndexPlan<'_, T> {
    /// Whether any advanced index (tensor or bool) is present.
    pub fn has_advanced(&self) -> bool {
        !self.advanced.is_empty() || !self.bools.is_empty()
    }
}

/// Whether an index tensor of this dtype is a mask: bool, or uint8 (PyTorch's deprecated byte
/// masks, which ATen's `expandTensors` still reads as masks, not as positions).
pub fn is_mask(dtype: DType) -> bool {
    matches!(dtype, DType::Bool | DType::UInt8)
}

fn consumed<T: Shaped>(it: &IndexItem<T>) -> usize {
    match it {
        IndexItem::Int(_) | IndexItem::Slice { .. } => 1,
        IndexItem::Tensor(t) if is_mask(t.dtype()) => t.ndim(),
        IndexItem::Tensor(_) => 1,
        IndexItem::None | IndexItem::Ellipsis | IndexItem::Bool(_) => 0,
    }
}

/// Applies the basic part of `items` to `x`.
pub fn plan<'a, S: Shaped, T: Shaped>(
    x: &S,
    items: &'a [IndexItem<T>],
) -> Result<IndexPlan<'a, T>> {
    let used: usize = items.iter().map(consumed).sum();
    if used > x.ndim() {
        bail!(
            Index,
            "too many indices for tensor of dimension {}",
            x.ndim()
        );
    }
    if items
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count()
        > 1
    {
        bail!(Index, "an index can only have a single ellipsis ('...')");
    }
    let mut g = Geom {
        dtype: x.dtype(),
        l: x.layout(),
    };
    let mut d = 0usize;
    let mut advanced = Vec::new();
    let mut bools = Vec::new();
    for it in items {
        match it {
            IndexItem::Int(i) => g.l = views::select(&g, d as i64, *i)?,
            IndexItem::Slice { start, stop, step } => {
                let step = step.unwrap_or(1);
                if step <= 0 {
                    bail!(Value, "step must be greater than zero");
                }
                g.l = views::slice(&g, d as i64, *start, *stop, step)?;
                d += 1;
            }
            IndexItem::None => {
                g.l = views::unsqueeze(&g, d as i64)?;
                d += 1;
            }
            IndexItem::Bool(b) => {
                g.l = views::unsqueeze(&g, d as i64)?;
                bools.push((d, *b));
                d += 1;
            }
            IndexItem::Ellipsis => d += x.ndim() - used,
            IndexItem::Tensor(t) => {
                if !t.dtype().is_integral(true) {
                    bail!(
                        Index,
                        "tensors used as indices must be long, int, byte or bool tensors"
                    );
                }
                if is_mask(t.dtype()) {
                    for k in 0..t.ndim() {
                        let (have, want) = (g.l.shape[d + k], t.shape()[k]);
                        if have != want {
                            bail!(
                                Index,
                                "The shape of the mask {:?} at index {k} does not match the shape of the indexed tensor {:?} at index {}",
                                t.shape(),
                                g.l.shape.as_slice(),
                                d + k
                            );
                        }
                    }
                }
                advanced.push((d, t));
                d += consumed(it);
            }
        }
    }
    Ok(IndexPlan {
        view: g.l,
        advanced,
        bools,
    })
}

/// Output shape of advanced indexing. `dims` are the view dims indexed (one per index tensor, at
/// least one), `bshape` the broadcast index shape.
pub(crate) fn advanced_shape(view: &[usize], dims: &[usize], bshape: &[usize]) -> Vec<usize> {
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..view.len())
        .filter(|d| !dims.contains(d))
        .map(|d| view[d])
        .collect();
    if adjacent {
        let first = dims[0];
        let mut s = view[..first].to_vec();
        s.extend_from_slice(bshape);
        s.extend_from_slice(&view[dims[dims.len() - 1] + 1..]);
        s
    } else {
        let mut s = bshape.to_vec();
        s.extend(rest);
        s
    }
}

/// Whether the result puts the broadcast index dims somewhere other than first: adjacent advanced
/// dims that do not start at dim 0.
pub(crate) fn needs_move(dims: &[usize]) -> bool {
    dims.windows(2).all(|w| w[1] == w[0] + 1) && dims[0] > 0
}

/// Shape/dtype rule of `x[items]`. Boolean masks make the shape data-dependent: an error here.
pub fn getitem_meta<S: Shaped + Clone>(x: &S, items: &[IndexItem<S>]) -> Result<TensorMeta> {
    if items
        .iter()
        .any(|it| matches!(it, IndexItem::Tensor(t) if is_scalar_int_index(t.dtype(), t.shape())))
    {
        // A 0-d integer tensor selects by a value known when the graph runs; the layout of a
        // select does not depend on which index it takes (only the offset does).
        let items: Vec<IndexItem<S>> = items
            .iter()
            .map(|it| match it {
                IndexItem::Tensor(t) if is_scalar_int_index(t.dtype(), t.shape()) => {
                    IndexItem::Int(0)
                }
                it => it.clone(),
            })
            .collect();
        return getitem_meta(x, &items);
    }
    let p = plan(x, items)?;
    if !p.has_advanced() {
        return Ok(TensorMeta::from_layout(x.dtype(), &p.view));
    }
    if p.advanced.iter().any(|(_, t)| is_mask(t.dtype())) {
        return Err(Error::DataDependent("boolean mask indexing".into()));
    }
    let mut entries: Vec<(usize, Vec<usize>)> = p
        .advanced
        .iter()
        .map(|(d, t)| (*d, t.shape().to_vec()))
        .chain(p.bools.iter().map(|&(d, b)| (d, vec![usize::from(b)])))
        .collect();
    entries.sort_by_key(|e| e.0);
    let shapes: Vec<&[usize]> = entries.iter().map(|(_, s)| s.as_slice()).collect();
    let b = broadcast_all(&shapes).map_err(|_| shape_mismatch(&shapes))?;
    let dims: Vec<usize> = entries.iter().map(|(d, _)| *d).collect();
    Ok(TensorMeta::contiguous(
        x.dtype(),
        &advanced_shape(&p.view.shape, &dims, &b),
    ))
}

fn shape_mismatch(shapes: &[&[usize]]) -> Error {
    let s: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
    Error::Index(format!(
        "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
        s.join(", ")
    ))
}

/// Expands masks into integer indices; returns `(view dim, int64 index)` pairs, one per dim, in
/// dim order (Python bools become `[0]` or `[]`).
pub(crate) fn int_indices(
    view: &Layout,
    adv: &[(usize, &Tensor)],
    bools: &[(usize, bool)],
) -> Result<Vec<(usize, Tensor)>> {
    let mut out = Vec::new();
    for &(d, b) in bools {
        let n = usize::from(b);
        out.push((d, Tensor::zeros(&[n], DType::Int64)));
    }
    for &(d, t) in adv {
        if is_mask(t.dtype()) {
            for (k, col) in nonzero_columns(t).into_iter().enumerate() {
                out.push((d + k, col));
            }
        } else {
            let idx = t.to_dtype(DType::Int64).contiguous();
            let size = view.shape[d];
            let mut vals = idx.to_vec::<i64>();
            for v in &mut vals {
                if *v < -(size as i64) || *v >= size as i64 {
                    return Err(Error::IndexOutOfBounds {
                        index: *v,
                        dim: d,
                        size,
                    });
                }
                if *v < 0 {
                    *v += size as i64;
                }
            }
            out.push((d, Tensor::from_vec(vals, idx.shape())?));
        }
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

/// `mask.nonzero()` split into one int64 column per mask dim (any dtype: non-zero is true).
pub(crate) fn nonzero_columns(mask: &Tensor) -> Vec<Tensor> {
    let vals = mask.to_vec::<bool>();
    let nd = mask.ndim();
    let strides = contiguous_strides(mask.shape());
    let mut cols: Vec<Vec<i64>> = vec![Vec::new(); nd];
    for (i, &m) in vals.iter().enumerate() {
        if m {
            for k in 0..nd {
                cols[k].push(((i as isize / strides[k]) as usize % mask.shape()[k]) as i64);
            }
        }
    }
    cols.into_iter()
        .map(|c| {
            let n = c.len();
            Tensor::from_vec(c, &[n]).expect("invariant: 1-D")
        })
        .collect()
}

/// Broadcasts the index tensors and returns, per index position, the element offset into the view.
pub(crate) fn gather_offsets(
    view: &Layout,
    idx: &[(usize, Tensor)],
) -> Result<(Vec<usize>, Vec<isize>)> {
    let shapes: Vec<&[usize]> = idx.iter().map(|(_, t)| t.shape()).collect();
    let b = broadcast_all(&shapes).map_err(|_| shape_mismatch(&shapes))?;
    let n = numel(&b);
    let mut offs = vec![0isize; n];
    for (d, t) in idx {
        let vals = broadcast_to(t, &b)?.to_vec::<i64>();
        for (o, v) in offs.iter_mut().zip(vals) {
            *o += v as isize * view.strides[*d];
        }
    }
    Ok((b.to_vec(), offs))
}

/// Copies a strided block of `shape` between two element pointers of item size `isz` bytes.
///
/// # Safety
/// Both blocks must be in bounds for their strides and must not overlap.
unsafe fn copy_block(
    isz: usize,
    dst: *mut u8,
    ds: &[isize],
    src: *const u8,
    ss: &[isize],
    shape: &[usize],
) {
    let g = Geometry::new(shape, [ds, ss]);
    let [di, si] = g.inner_strides();
    g.for_each_run(0..g.numel(), |[od, os], len| {
        // SAFETY: offsets come from the block geometry; the caller guarantees bounds.
        unsafe {
            let (d, s) = (dst.offset(od * isz as isize), src.offset(os * isz as isize));
            if di == 1 && si == 1 {
                std::ptr::copy_nonoverlapping(s, d, len * isz);
            } else {
                for i in 0..len as isize {
                    std::ptr::copy_nonoverlapping(
                        s.offset(i * si * isz as isize),
                        d.offset(i * di * isz as isize),
                        isz,
                    );
                }
            }
        }
    });
}

/// A zero-dim boolean tensor index behaves like the Python bool it holds.
pub(crate) fn scalar_masks(items: &[IndexItem<Tensor>]) -> Result<Vec<IndexItem<Tensor>>> {
    items
        .iter()
        .map(|it| match it {
            IndexItem::Tensor(t) if is_mask(t.dtype()) && t.ndim() == 0 => {
                Ok(IndexItem::Bool(t.item()?.to_bool()))
            }
            // Python's `x[i]` with a 0-d integer tensor selects by its value (PyTorch's
            // `applySlicing`): a view, as the eager surface does before calling here.
            IndexItem::Tensor(t) if is_scalar_int_index(t.dtype(), t.shape()) => {
                Ok(IndexItem::Int(t.item()?.to_i64()))
            }
            it => Ok(it.clone()),
        })
        .collect()
}

/// Whether an index tensor is a 0-d integer one (uint8 excepted: a mask), which Python's
/// indexing takes as its value.
fn is_scalar_int_index(dtype: DType, shape: &[usize]) -> bool {
    shape.is_empty() && dtype.is_integral(false) && dtype != DType::UInt8
}

/// `x[items]`.
pub fn getitem(x: &Tensor, items: &[IndexItem<Tensor>]) -> Result<Tensor> {
    let items = &scalar_masks(items)?;
    let p = plan(x, items)?;
    let view = x.with_layout(p.view.clone());
    if !p.has_advanced() {
        return Ok(view);
    }
    let idx = int_indices(&p.view, &p.advanced, &p.bools)?;
    let (b, offs) = gather_offsets(&p.view, &idx)?;
    let dims: Vec<usize> = idx.iter().map(|(d, _)| *d).collect();
    let rest: Vec<usize> = (0..p.view.shape.len())
        .filter(|d| !dims.contains(d))
        .collect();
    let rest_shape: Vec<usize> = rest.iter().map(|&d| p.view.shape[d]).collect();
    let rest_strides: Vec<isize> = rest.iter().map(|&d| p.view.strides[d]).collect();
    let mut tmp_shape = b.clone();
    tmp_shape.extend(&rest_shape);
    let tmp = Tensor::empty(&tmp_shape, x.dtype());
    let isz = x.dtype().itemsize();
    let block = numel(&rest_shape);
    let dst_strides = contiguous_strides(&rest_shape);
    let base = view.storage().as_ptr().cast_const();
    let out_base = tmp.storage().as_ptr();
    for (i, &o) in offs.iter().enumerate() {
        // SAFETY: `o` is an in-bounds element offset (indices were bounds-checked) and the rest block
        // lies in the view; `tmp` is fresh, so the blocks cannot overlap.
        unsafe {
            copy_block(
                isz,
                out_base.add(i * block * isz),
                &dst_strides,
                base.offset((view.offset() as isize + o) * isz as isize),
                &rest_strides,
                &rest_shape,
            );
        }
    }
    if !needs_move(&dims) {
        return Ok(tmp);
    }
    // Adjacent advanced dims go back to where they were: [B, before, after] -> [before, B, after].
    let (nb, first) = (b.len(), dims[0]);
    let mut perm: Vec<i64> = (nb..nb + first).map(|v| v as i64).collect();
    perm.extend((0..nb).map(|v| v as i64));
    perm.extend((nb + first..tmp_shape.len()).map(|v| v as i64));
    Ok(tmp.permute(&perm)?.contiguous())
}

/// `t` without its leading size-1 dims, as PyTorch's `slicePrefix1sSize`: `x[i] = v` accepts a
/// batch-of-one `v` (`out[i] = model(x[i:i+1])`). Only the `__setitem__` surface does this;
/// `index_put_` broadcasts its values as they are.
fn drop_leading_ones(t: &Tensor) -> Tensor {
    let k = t.shape().iter().take_while(|&&s| s == 1).count();
    t.with_layout(Layout {
        shape: t.shape()[k..].into(),
        strides: t.strides()[k..].into(),
        offset: t.offset(),
    })
}

/// `x[items] = value` (in place; bumps the version counter).
pub fn setitem(
    x: &Tensor,
    items: &[IndexItem<Tensor>],
    value: TensorOrScalar<&Tensor>,
) -> Result<()> {
    match value {
        TensorOrScalar::Tensor(t) => put(x, items, TensorOrScalar::Tensor(&drop_leading_ones(t))),
        scalar => put(x, items, scalar),
    }
}

/// `x[items] = value` with `value` broadcast to the indexed shape as it is (`index_put_`).
pub(crate) fn put(
    x: &Tensor,
    items: &[IndexItem<Tensor>],
    value: TensorOrScalar<&Tensor>,
) -> Result<()> {
    let items = &scalar_masks(items)?;
    let p = plan(x, items)?;
    let view = x.with_layout(p.view.clone());
    if !p.has_advanced() {
        match value {
            TensorOrScalar::Scalar(s) => view.fill_(s),
            TensorOrScalar::Tensor(t) => {
                memory_overlap::check_copy(&view, t)?;
                view.copy_(t)?
            }
        }
        return Ok(());
    }
    // `index_put_` refuses values or indices sharing memory with the destination, except where
    // ATen turns it into `masked_fill_` (one boolean mask, one value), which reads the value first.
    let masked_fill = p.advanced.len() == 1
        && p.bools.is_empty()
        && is_mask(p.advanced[0].1.dtype())
        && match value {
            TensorOrScalar::Tensor(t) => t.numel() == 1,
            TensorOrScalar::Scalar(_) => true,
        };
    if masked_fill && p.advanced[0].1.dtype() == DType::UInt8 {
        bail!(
            Runtime,
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        );
    }
    if !masked_fill {
        if let TensorOrScalar::Tensor(t) = value {
            memory_overlap::assert_no_overlap(&view, t)?;
        }
        for (_, idx) in &p.advanced {
            memory_overlap::assert_no_overlap(&view, idx)?;
        }
    }
    let idx = int_indices(&p.view, &p.advanced, &p.bools)?;
    let (b, offs) = gather_offsets(&p.view, &idx)?;
    let dims: Vec<usize> = idx.iter().map(|(d, _)| *d).collect();
    let rest: Vec<usize> = (0..p.view.shape.len())
        .filter(|d| !dims.contains(d))
        .collect();
    let rest_shape: Vec<usize> = rest.iter().map(|&d| p.view.shape[d]).collect();
    let rest_strides: Vec<isize> = rest.iter().map(|&d| p.view.strides[d]).collect();
    let want = advanced_shape(&p.view.shape, &dims, &b);
    let v = operand_as(value, x.dtype(), &want).map_err(|_| {
        Error::Runtime(format!(
            "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {want:?}",
            match value {
                TensorOrScalar::Tensor(t) => t.shape().to_vec(),
                TensorOrScalar::Scalar(_) => vec![],
            }
        ))
    })?;
    let v = if !needs_move(&dims) {
        v
    } else {
        let (nb, first) = (b.len(), dims[0]);
        let mut perm: Vec<i64> = (first..first + nb).map(|v| v as i64).collect();
        perm.extend((0..first).map(|v| v as i64));
        perm.extend((first + nb..want.len()).map(|v| v as i64));
        v.permute(&perm)?
    };
    // The value must not alias the destination while we scatter.
    let v = if v.shares_storage(x) {
        v.deep_clone()
    } else {
        v
    };
    let isz = x.dtype().itemsize();
    let nb = b.len();
    let vrest = &v.strides()[nb..];
    let bstrides = contiguous_strides(&b);
    let base = view.storage().as_ptr();
    for (i, &o) in offs.iter().enumerate() {
        let mut voff = v.offset() as isize;
        for k in 0..nb {
            voff += ((i as isize / bstrides[k]) % b[k] as isize) * v.strides()[k];
        }
        // SAFETY: destination offsets were bounds-checked; the source block lies in `v`; `v` does not
        // share storage with `x`.
        unsafe {
            copy_block(
                isz,
                base.offset((view.offset() as isize + o) * isz as isize),
                &rest_strides,
                v.storage()
                    .as_ptr()
                    .offset(voff * isz as isize)
                    .cast_const(),
                vrest,
                &rest_shape,
            );
        }
    }
    x.storage().bump_version();
    Ok(())
}

/// Shape/dtype rule of `embedding(indices, weight)`.
pub fn embedding_meta(idx: &impl Shaped, weight: &impl Shaped) -> Result<TensorMeta> {
    if weight.ndim() != 2 {
        bail!(Runtime, "'weight' must be 2-D");
    }
    if !matches!(idx.dtype(), DType::Int64 | DType::Int32) {
        bail!(
            Runtime,
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{}Tensor instead (while checking arguments for embedding)",
            idx.dtype().aten_name()
        );
    }
    let mut shape = idx.shape().to_vec();
    shape.push(weight.shape()[1]);
    Ok(TensorMeta::contiguous(weight.dtype(), &shape))
}

/// `embedding(indices, weight)`: rows of `weight` gathered by `indices`.
pub fn embedding(idx: &Tensor, weight: &Tensor) -> Result<Tensor> {
    embedding_meta(idx, weight)?;
    getitem(weight, &[IndexItem::Tensor(idx.clone())])
}
