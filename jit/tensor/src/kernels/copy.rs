//! Copy with dtype conversion between any two layouts of one shape, and fill.

use smallvec::SmallVec;

use super::map::map1;
use super::simd::with_wide;
use crate::iter::{Geometry, SendPtr};
use crate::{DType, Element, Tensor, dispatch_all};

/// `out[i] = cast(src[i])`; shapes must be equal (broadcast `src` first). Overlap is handled by
/// [`map1`].
pub fn copy_cast(out: &Tensor, src: &Tensor) {
    debug_assert_eq!(out.shape(), src.shape());
    if out.dtype() == src.dtype() && !src.may_overlap(out) {
        if !try_memcpy(out, src) {
            copy_bits(out, src);
        }
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

/// A same-dtype copy between non-overlapping layouts that are not one block: each element's bits
/// move unconverted (a half is not widened and narrowed back, a NaN keeps its payload), in units
/// of the element's size and alignment.
fn copy_bits(out: &Tensor, src: &Tensor) {
    let g = Geometry::in_memory_order(out.shape(), [out.strides(), src.strides()]);
    if g.numel() == 0 {
        return;
    }
    let isz = out.dtype().itemsize();
    // SAFETY: both offsets lie inside their storages (a view rule produced them).
    let (po, ps) = unsafe {
        (
            out.storage().as_ptr().add(out.offset() * isz),
            src.storage().as_ptr().add(src.offset() * isz).cast_const(),
        )
    };
    // SAFETY: the geometry is that of these two tensors, whose elements are `isz` bytes aligned
    // as the unit chosen for them (complex64 is two f32s, complex128 two f64s).
    unsafe {
        match (isz, out.dtype()) {
            (1, _) => copy_units::<u8>(&g, po.cast(), ps.cast()),
            (2, _) => copy_units::<u16>(&g, po.cast(), ps.cast()),
            (4, _) => copy_units::<u32>(&g, po.cast(), ps.cast()),
            (8, DType::Complex64) => copy_units::<[u32; 2]>(&g, po.cast(), ps.cast()),
            (8, _) => copy_units::<u64>(&g, po.cast(), ps.cast()),
            _ => copy_units::<[u64; 2]>(&g, po.cast(), ps.cast()),
        }
    }
}

/// Side of the square tiles a transposing copy walks: 16 rows of the source and 16 of the
/// output stay in L1 while the tile is copied.
const TILE: isize = 16;

/// Largest rows x inner-dim block walked whole, with runs over the dim outside it.
const SMALL_BLOCK: usize = 256;

/// Walks `g` (output first, memory order) as runs of rows, each a 2-D [`block`]: the rows are
/// every dim but the innermost, so a permuted copy with 16-element runs makes one call per run
/// of rows instead of one per 16 elements. When the rows dim times the inner dim is small
/// (a ViT patch split's 4 x 3), the walk is over runs of whole blocks instead: per-run
/// bookkeeping cost more than the 12 elements it moved.
///
/// # Safety
/// `g` must describe `po` and `ps`'s elements, in units of `T`, which do not overlap.
unsafe fn copy_units<T: Copy>(g: &Geometry<2>, po: *mut T, ps: *const T) {
    let (shape, [so, ss]) = g.dims();
    let n = shape.len();
    let (cols, soc, ssc) = (shape[n - 1], so[n - 1], ss[n - 1]);
    // When the output's inner dim is strided in the source but some other dim is contiguous in
    // it (a transpose), that dim becomes the rows' inner dim, so `block` can tile the two.
    let mut order: SmallVec<[usize; 6]> = (0..n - 1).collect();
    if ssc != 1
        && ssc != 0
        && let Some(j) = order.iter().rposition(|&d| ss[d] == 1)
    {
        let d = order.remove(j);
        order.push(d);
    }
    let (po, ps) = (SendPtr(po), SendPtr(ps.cast_mut()));
    let fixed_rows = order
        .last()
        .filter(|&&d| order.len() >= 2 && shape[d] * cols <= SMALL_BLOCK)
        .copied();
    if fixed_rows.is_some() {
        order.pop();
    }
    let pick = |st: &[isize]| {
        order
            .iter()
            .map(|&d| st[d])
            .collect::<SmallVec<[isize; 6]>>()
    };
    let sizes: SmallVec<[usize; 6]> = order.iter().map(|&d| shape[d]).collect();
    let runs = Geometry::new(&sizes, [&pick(so), &pick(ss)]);
    let [sor, ssr] = runs.inner_strides();
    let cols_i = cols as isize;
    match fixed_rows {
        None => runs.par_for_each_run_weighted(cols, |[oo, os], k| {
            // SAFETY: offsets come from the geometry of these tensors; runs handed to different
            // threads are disjoint rows of the output.
            unsafe {
                let (o, s) = (po.at(oo), ps.at(os).cast_const());
                block(o, s, k as isize, cols_i, [sor, ssr], [soc, ssc]);
            }
        }),
        Some(d) => {
            let (rows, sr) = (shape[d] as isize, [so[d], ss[d]]);
            runs.par_for_each_run_weighted(shape[d] * cols, |[oo, os], k| {
                // SAFETY: as above, for runs of whole blocks.
                unsafe {
                    for p in 0..k as isize {
                        let (o, s) = (po.at(oo + p * sor), ps.at(os + p * ssr).cast_const());
                        block(o, s, rows, cols_i, sr, [soc, ssc]);
                    }
                }
            })
        }
    }
}

/// Copies a `rows` x `cols` block with the given (row, column) strides of the output and source.
///
/// # Safety
/// Every element addressed must be inside its tensor, and the two must not overlap.
#[inline(always)]
unsafe fn block<T: Copy>(
    o: *mut T,
    s: *const T,
    rows: isize,
    cols: isize,
    [sor, ssr]: [isize; 2],
    [soc, ssc]: [isize; 2],
) {
    // SAFETY: forwarded to the caller.
    unsafe {
        if soc == 1 && ssc == 1 {
            // 32-byte moves (AVX) instead of pairs of 16-byte ones.
            with_wide(
                #[inline(always)]
                || {
                    for r in 0..rows {
                        copy_run(o.offset(r * sor), s.offset(r * ssr), cols as usize);
                    }
                },
            );
        } else if soc == 1 && ssc == 0 {
            // A row broadcast along the inner dim (`expand`): one value per output row.
            with_wide(
                #[inline(always)]
                || {
                    for r in 0..rows {
                        std::slice::from_raw_parts_mut(o.offset(r * sor), cols as usize)
                            .fill(*s.offset(r * ssr));
                    }
                },
            );
        } else if ssr == 1 && rows >= 4 && cols >= 4 {
            // A transpose: square tiles, so neither side's lines leave L1 before they are used up.
            // (A block too thin for one SIMD square is copied by the plain loop below.)
            for r0 in (0..rows).step_by(TILE as usize) {
                let r1 = (r0 + TILE).min(rows);
                for c0 in (0..cols).step_by(TILE as usize) {
                    let c1 = (c0 + TILE).min(cols);
                    super::transpose::tile(o, s, [r0, r1], [c0, c1], sor, [soc, ssc]);
                }
            }
        } else if soc == 1 {
            // A gather into contiguous rows (a slice with a step): row pointers, so the inner
            // loop is one strided load and one store; indexing from the block's corner made
            // `x[:, ::2].contiguous()` of a 64 x 128 f32 slower than the per-run closure was.
            for r in 0..rows {
                let (orow, srow) = (o.offset(r * sor), s.offset(r * ssr));
                for c in 0..cols {
                    *orow.offset(c) = *srow.offset(c * ssc);
                }
            }
        } else {
            for r in 0..rows {
                let (orow, srow) = (o.offset(r * sor), s.offset(r * ssr));
                for c in 0..cols {
                    *orow.offset(c * soc) = *srow.offset(c * ssc);
                }
            }
        }
    }
}

/// Copies `n` contiguous elements. Runs of up to 128 bytes are moved with a few fixed-size
/// (overlapping) loads and stores: a `memcpy` call per 64-byte run of a head split cost more
/// than the move.
///
/// # Safety
/// Both ranges must be valid and not overlap.
#[inline(always)]
unsafe fn copy_run<T: Copy>(d: *mut T, s: *const T, n: usize) {
    let nb = n * std::mem::size_of::<T>();
    let (d, s) = (d.cast::<u8>(), s.cast::<u8>());
    /// Moves `K` bytes at byte offset `at`.
    #[inline(always)]
    unsafe fn mv<const K: usize>(d: *mut u8, s: *const u8, at: usize) {
        // SAFETY: forwarded: `at + K` is within both ranges.
        unsafe {
            let v = s.add(at).cast::<[u8; K]>().read_unaligned();
            d.add(at).cast::<[u8; K]>().write_unaligned(v);
        }
    }
    // SAFETY: every move below stays within the `nb` bytes of each range.
    unsafe {
        match nb {
            0 => {}
            1 => mv::<1>(d, s, 0),
            2..=3 => {
                mv::<2>(d, s, 0);
                mv::<2>(d, s, nb - 2);
            }
            4..=7 => {
                mv::<4>(d, s, 0);
                mv::<4>(d, s, nb - 4);
            }
            8..=15 => {
                mv::<8>(d, s, 0);
                mv::<8>(d, s, nb - 8);
            }
            16..=31 => {
                mv::<16>(d, s, 0);
                mv::<16>(d, s, nb - 16);
            }
            32..=63 => {
                mv::<32>(d, s, 0);
                mv::<32>(d, s, nb - 32);
            }
            64..=128 => {
                mv::<32>(d, s, 0);
                mv::<32>(d, s, 32);
                mv::<32>(d, s, nb - 64);
                mv::<32>(d, s, nb - 32);
            }
            _ => std::ptr::copy_nonoverlapping(s, d, nb),
        }
    }
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
