//! Copy with dtype conversion between any two layouts of one shape, and fill.

use super::map::map1;
use crate::iter::{Geometry, SendPtr};
use crate::{Element, Tensor, dispatch_all};

/// `out[i] = cast(src[i])`; shapes must be equal (broadcast `src` first). Overlap is handled by
/// [`map1`].
pub fn copy_cast(out: &Tensor, src: &Tensor) {
    debug_assert_eq!(out.shape(), src.shape());
    if out.dtype() == src.dtype() && !src.may_overlap(out) && try_memcpy(out, src) {
        return;
    }
    if out.dtype().is_complex() || src.dtype().is_complex() {
        return crate::ops::complex::copy_cast(out, src);
    }
    dispatch_all!(out.dtype(), O => {
        dispatch_all!(src.dtype(), S => map1::<S, O>(out, src, |x| x.cast::<O>()))
    })
}

/// Runs kernel `f` on a tensor of `out`'s shape in the compute dtype `c`: on `out` itself when it
/// has that dtype, else on a temporary that is then cast into `out` (halves computed in f32, an
/// integer result written to a wider output). Nothing is written to `out` when `f` fails.
pub fn through_dtype(
    out: &Tensor,
    c: crate::DType,
    f: impl FnOnce(&Tensor) -> crate::Result<()>,
) -> crate::Result<()> {
    if out.dtype() == c {
        return f(out);
    }
    // Laid out as `out` (when dense), so the final cast walks both in memory order.
    let tmp = Tensor::empty(out.shape(), c).with_dense_strides(
        &crate::preserve::preserved_strides(out.shape(), out.strides()),
    );
    f(&tmp)?;
    copy_cast(out, &tmp);
    Ok(())
}

/// Byte copy when both are contiguous or share dense strides; returns false when it did not apply.
fn try_memcpy(out: &Tensor, src: &Tensor) -> bool {
    // Equal dense strides (both channels-last, say) cover one block of `numel` slots each, in the
    // same order.
    let same_dense = out.strides() == src.strides()
        && crate::preserve::is_non_overlapping_and_dense(out.shape(), out.strides());
    if !same_dense && (!out.is_contiguous() || !src.is_contiguous()) {
        return false;
    }
    let isz = out.dtype().itemsize();
    let n = out.numel() * isz;
    // SAFETY: both views cover `numel` consecutive elements of the same dtype from their offsets,
    // in the same order,
    // and they do not overlap (checked by the caller).
    unsafe {
        let d = out.storage().as_ptr().add(out.offset() * isz);
        let s = src.storage().as_ptr().add(src.offset() * isz);
        std::ptr::copy_nonoverlapping(s, d, n);
    }
    true
}

/// Writes `v` into every element of `out`.
pub fn fill<T: Element>(out: &Tensor, v: T) {
    let g = Geometry::in_memory_order(out.shape(), [out.strides()]);
    let [so] = g.inner_strides();
    let p = SendPtr(out.data_ptr::<T>());
    g.par_for_each_run(|[o], len| {
        // SAFETY: offsets come from `out`'s own geometry; runs are disjoint across threads.
        unsafe {
            let o = p.at(o);
            if so == 1 {
                std::slice::from_raw_parts_mut(o, len).fill(v);
            } else {
                for i in 0..len as isize {
                    *o.offset(i * so) = v;
                }
            }
        }
    });
}
