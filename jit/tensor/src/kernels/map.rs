//! Generic elementwise kernels over strided operands: `map1`, `map2`, `map3`.
//!
//! Inputs must already have the output's shape (broadcast them with stride-0 views first). An input
//! that overlaps the output is read element by element before the write at the same index when its
//! layout equals the output's (exact in-place), and copied first otherwise; so slice-based fast
//! paths never alias a `&mut` slice.

use super::simd::with_wide;
use crate::iter::{Geometry, SendPtr};
use crate::{Element, Tensor};

#[inline(always)]
fn apply1<A: Copy, O>(os: &mut [O], xs: &[A], f: &impl Fn(A) -> O) {
    for (o, &x) in os.iter_mut().zip(xs) {
        *o = f(x);
    }
}

#[inline(always)]
fn apply2<A: Copy, B: Copy, O>(os: &mut [O], xs: &[A], ys: &[B], f: &impl Fn(A, B) -> O) {
    for ((o, &x), &y) in os.iter_mut().zip(xs).zip(ys) {
        *o = f(x, y);
    }
}

/// `os[i] = f(xs[i], y)`: a binary op with a broadcast scalar second operand.
#[inline(always)]
fn apply_scalar_rhs<A: Copy, B: Copy, O>(os: &mut [O], xs: &[A], y: B, f: &impl Fn(A, B) -> O) {
    for (o, &x) in os.iter_mut().zip(xs) {
        *o = f(x, y);
    }
}

/// `os[i] = f(x, ys[i])`: a binary op with a broadcast scalar first operand.
#[inline(always)]
fn apply_scalar_lhs<A: Copy, B: Copy, O>(os: &mut [O], x: A, ys: &[B], f: &impl Fn(A, B) -> O) {
    for (o, &y) in os.iter_mut().zip(ys) {
        *o = f(x, y);
    }
}

/// Returns the input to read from and whether it is exactly the output (same storage and layout).
fn prepare(out: &Tensor, x: &Tensor) -> (Tensor, bool) {
    if !x.may_overlap(out) {
        return (x.clone(), false);
    }
    let same = x.offset() == out.offset()
        && x.strides() == out.strides()
        && x.dtype().itemsize() == out.dtype().itemsize();
    if same {
        (x.clone(), true)
    } else {
        (x.deep_clone(), false)
    }
}

/// `out[i] = f(a[i])`.
pub fn map1<A: Element, O: Element>(out: &Tensor, a: &Tensor, f: impl Fn(A) -> O + Sync) {
    debug_assert_eq!(out.shape(), a.shape());
    let (a, alias) = prepare(out, a);
    let g = Geometry::in_memory_order(out.shape(), [out.strides(), a.strides()]);
    let [so, sa] = g.inner_strides();
    let (po, pa) = (SendPtr(out.data_ptr::<O>()), SendPtr(a.data_ptr::<A>()));
    g.par_for_each_run(|[oo, oa], len| {
        // SAFETY: offsets come from the geometry of these exact tensors, so every access is in
        // bounds; runs handed to different threads are disjoint in the output.
        unsafe {
            let (o, x) = (po.at(oo), pa.at(oa).cast_const());
            if so == 1 && sa == 1 && !alias {
                let os = std::slice::from_raw_parts_mut(o, len);
                let xs = std::slice::from_raw_parts(x, len);
                with_wide(
                    #[inline(always)]
                    || apply1(os, xs, &f),
                );
            } else {
                for i in 0..len as isize {
                    *o.offset(i * so) = f(*x.offset(i * sa));
                }
            }
        }
    });
}

/// `out[i] = f(a[i], b[i])`.
pub fn map2<A: Element, B: Element, O: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(A, B) -> O + Sync,
) {
    debug_assert_eq!(out.shape(), a.shape());
    debug_assert_eq!(out.shape(), b.shape());
    let (a, alias_a) = prepare(out, a);
    let (b, alias_b) = prepare(out, b);
    let alias = alias_a || alias_b;
    let g = Geometry::in_memory_order(out.shape(), [out.strides(), a.strides(), b.strides()]);
    let [so, sa, sb] = g.inner_strides();
    let (po, pa, pb) = (
        SendPtr(out.data_ptr::<O>()),
        SendPtr(a.data_ptr::<A>()),
        SendPtr(b.data_ptr::<B>()),
    );
    g.par_for_each_run(|[oo, oa, ob], len| {
        // SAFETY: as in `map1`.
        unsafe {
            let (o, x, y) = (po.at(oo), pa.at(oa).cast_const(), pb.at(ob).cast_const());
            match (so, sa, sb, alias) {
                (1, 1, 1, false) => {
                    let os = std::slice::from_raw_parts_mut(o, len);
                    let xs = std::slice::from_raw_parts(x, len);
                    let ys = std::slice::from_raw_parts(y, len);
                    with_wide(
                        #[inline(always)]
                        || apply2(os, xs, ys, &f),
                    );
                }
                (1, 1, 0, false) => {
                    let os = std::slice::from_raw_parts_mut(o, len);
                    let xs = std::slice::from_raw_parts(x, len);
                    let y = *y;
                    with_wide(
                        #[inline(always)]
                        || apply_scalar_rhs(os, xs, y, &f),
                    );
                }
                (1, 0, 1, false) => {
                    let os = std::slice::from_raw_parts_mut(o, len);
                    let ys = std::slice::from_raw_parts(y, len);
                    let x = *x;
                    with_wide(
                        #[inline(always)]
                        || apply_scalar_lhs(os, x, ys, &f),
                    );
                }
                _ => {
                    for i in 0..len as isize {
                        *o.offset(i * so) = f(*x.offset(i * sa), *y.offset(i * sb));
                    }
                }
            }
        }
    });
}

/// `out[i] = f(a[i], b[i], c[i])`.
pub fn map3<A: Element, B: Element, C: Element, O: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    f: impl Fn(A, B, C) -> O + Sync,
) {
    let (a, alias_a) = prepare(out, a);
    let (b, alias_b) = prepare(out, b);
    let (c, alias_c) = prepare(out, c);
    let alias = alias_a || alias_b || alias_c;
    let g = Geometry::in_memory_order(
        out.shape(),
        [out.strides(), a.strides(), b.strides(), c.strides()],
    );
    let [so, sa, sb, sc] = g.inner_strides();
    let (po, pa, pb, pc) = (
        SendPtr(out.data_ptr::<O>()),
        SendPtr(a.data_ptr::<A>()),
        SendPtr(b.data_ptr::<B>()),
        SendPtr(c.data_ptr::<C>()),
    );
    g.par_for_each_run(|[oo, oa, ob, oc], len| {
        // SAFETY: as in `map1`.
        unsafe {
            let o = po.at(oo);
            let (x, y, z) = (
                pa.at(oa).cast_const(),
                pb.at(ob).cast_const(),
                pc.at(oc).cast_const(),
            );
            if (so, sa, sb, sc) == (1, 1, 1, 1) && !alias {
                let os = std::slice::from_raw_parts_mut(o, len);
                let xs = std::slice::from_raw_parts(x, len);
                let ys = std::slice::from_raw_parts(y, len);
                let zs = std::slice::from_raw_parts(z, len);
                with_wide(
                    #[inline(always)]
                    || {
                        for (((o, &x), &y), &z) in os.iter_mut().zip(xs).zip(ys).zip(zs) {
                            *o = f(x, y, z);
                        }
                    },
                );
            } else if (so, sa, sb, sc) == (1, 1, 1, 0) && !alias {
                // A broadcast scalar third operand (`where(mask, grad, 0.0)` in ReLU's backward).
                let os = std::slice::from_raw_parts_mut(o, len);
                let xs = std::slice::from_raw_parts(x, len);
                let ys = std::slice::from_raw_parts(y, len);
                let z = *z;
                with_wide(
                    #[inline(always)]
                    || {
                        for ((o, &x), &y) in os.iter_mut().zip(xs).zip(ys) {
                            *o = f(x, y, z);
                        }
                    },
                );
            } else if (so, sa, sb, sc) == (1, 1, 0, 1) && !alias {
                // A broadcast scalar second operand (`where(mask, 0.0, grad)`).
                let os = std::slice::from_raw_parts_mut(o, len);
                let xs = std::slice::from_raw_parts(x, len);
                let zs = std::slice::from_raw_parts(z, len);
                let y = *y;
                with_wide(
                    #[inline(always)]
                    || {
                        for ((o, &x), &z) in os.iter_mut().zip(xs).zip(zs) {
                            *o = f(x, y, z);
                        }
                    },
                );
            } else {
                for i in 0..len as isize {
                    *o.offset(i * so) = f(*x.offset(i * sa), *y.offset(i * sb), *z.offset(i * sc));
                }
            }
        }
    });
}

/// Block length of [`map1_patched`]'s contiguous path.
const PATCH_BLOCK: usize = 256;

/// `out[i] = f(a[i])`, except `g(a[i])` where `rare(a[i])`: `f` is a branch-free fast path that
/// is wrong for rare inputs (huge arguments of `sin`), `g` the exact fallback. Contiguous runs
/// compute `f` over a block (vectorised), then patch the block's rare lanes, if any.
pub fn map1_patched<A: Element, O: Element>(
    out: &Tensor,
    a: &Tensor,
    f: impl Fn(A) -> O + Sync,
    rare: impl Fn(A) -> bool + Sync,
    g: impl Fn(A) -> O + Sync,
) {
    debug_assert_eq!(out.shape(), a.shape());
    let (a, alias) = prepare(out, a);
    let geo = Geometry::in_memory_order(out.shape(), [out.strides(), a.strides()]);
    let [so, sa] = geo.inner_strides();
    let (po, pa) = (SendPtr(out.data_ptr::<O>()), SendPtr(a.data_ptr::<A>()));
    geo.par_for_each_run(|[oo, oa], len| {
        // SAFETY: as in `map1`.
        unsafe {
            let (o, x) = (po.at(oo), pa.at(oa).cast_const());
            if so == 1 && sa == 1 && !alias {
                let os = std::slice::from_raw_parts_mut(o, len);
                let xs = std::slice::from_raw_parts(x, len);
                for (ob, xb) in os.chunks_mut(PATCH_BLOCK).zip(xs.chunks(PATCH_BLOCK)) {
                    let any = with_wide(
                        #[inline(always)]
                        || {
                            apply1(ob, xb, &f);
                            xb.iter().fold(false, |acc, &v| acc | rare(v))
                        },
                    );
                    if any {
                        for (o, &v) in ob.iter_mut().zip(xb) {
                            if rare(v) {
                                *o = g(v);
                            }
                        }
                    }
                }
            } else {
                for i in 0..len as isize {
                    let v = *x.offset(i * sa);
                    *o.offset(i * so) = if rare(v) { g(v) } else { f(v) };
                }
            }
        }
    });
}
