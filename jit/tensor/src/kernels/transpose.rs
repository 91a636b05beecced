//! The transposing step of a strided copy: a tile whose source is contiguous down its rows and
//! whose output is contiguous along them (`x.t().contiguous()`, a `permute` that moves the
//! source's inner dim). Elements move as bits; the SSE2 shuffles used are pure moves too.

/// Copies rows `r0..r1` x columns `c0..c1` of a block where the source's row stride is 1:
/// `o[r * sor + c * soc] = s[r + c * ssc]`.
///
/// # Safety
/// Every element addressed must be inside its tensor, and the two must not overlap.
#[inline(always)]
pub(super) unsafe fn tile<T: Copy>(
    o: *mut T,
    s: *const T,
    [r0, r1]: [isize; 2],
    [c0, c1]: [isize; 2],
    sor: isize,
    [soc, ssc]: [isize; 2],
) {
    // The part made of whole `v` x `v` squares goes through the SIMD kernel, the rest by element.
    let v: isize = match std::mem::size_of::<T>() {
        4 if soc == 1 => 4,
        8 if soc == 1 => 2,
        _ => 1,
    };
    // Ends of the squares' region (empty without a kernel). `v` is a power of two: masks, not
    // divisions, in this per-tile code.
    let (rv, cv) = match v {
        1 => (r0, c0),
        _ => (r0 + ((r1 - r0) & !(v - 1)), c0 + ((c1 - c0) & !(v - 1))),
    };
    // SAFETY: forwarded to the caller; the squares lie inside the tile.
    unsafe {
        if v > 1 {
            for r in (r0..rv).step_by(v as usize) {
                for c in (c0..cv).step_by(v as usize) {
                    let (o, s) = (o.offset(r * sor + c), s.offset(r + c * ssc));
                    if v == 4 {
                        square4(o.cast(), s.cast(), sor, ssc);
                    } else {
                        square2(o.cast(), s.cast(), sor, ssc);
                    }
                }
            }
        }
        for r in r0..r1 {
            let from = if r < rv { cv } else { c0 };
            for c in from..c1 {
                *o.offset(r * sor + c * soc) = *s.offset(r + c * ssc);
            }
        }
    }
}

/// A 4 x 4 square of 4-byte elements: four source columns loaded as vectors, transposed in
/// registers, stored as four output rows (16 scalar moves become 8 vector moves and 8 shuffles).
///
/// # Safety
/// The 4 x 4 elements at `o` (rows `sor` apart) and `s` (columns `ssc` apart) must be valid.
#[inline(always)]
unsafe fn square4(o: *mut f32, s: *const f32, sor: isize, ssc: isize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is in the x86-64 baseline; the addresses are valid (the caller's contract).
    unsafe {
        use std::arch::x86_64::*;
        let a = _mm_loadu_ps(s);
        let b = _mm_loadu_ps(s.offset(ssc));
        let c = _mm_loadu_ps(s.offset(2 * ssc));
        let d = _mm_loadu_ps(s.offset(3 * ssc));
        let (ab_lo, cd_lo) = (_mm_unpacklo_ps(a, b), _mm_unpacklo_ps(c, d));
        let (ab_hi, cd_hi) = (_mm_unpackhi_ps(a, b), _mm_unpackhi_ps(c, d));
        _mm_storeu_ps(o, _mm_movelh_ps(ab_lo, cd_lo));
        _mm_storeu_ps(o.offset(sor), _mm_movehl_ps(cd_lo, ab_lo));
        _mm_storeu_ps(o.offset(2 * sor), _mm_movelh_ps(ab_hi, cd_hi));
        _mm_storeu_ps(o.offset(3 * sor), _mm_movehl_ps(cd_hi, ab_hi));
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as above.
    unsafe {
        square_by_element(o, s, 4, sor, ssc)
    }
}

/// A 2 x 2 square of 8-byte elements, as [`square4`].
///
/// # Safety
/// As [`square4`], for 2 x 2 elements.
#[inline(always)]
unsafe fn square2(o: *mut f64, s: *const f64, sor: isize, ssc: isize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is in the x86-64 baseline; the addresses are valid (the caller's contract).
    unsafe {
        use std::arch::x86_64::*;
        let a = _mm_loadu_pd(s);
        let b = _mm_loadu_pd(s.offset(ssc));
        _mm_storeu_pd(o, _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(o.offset(sor), _mm_unpackhi_pd(a, b));
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as above.
    unsafe {
        square_by_element(o, s, 2, sor, ssc)
    }
}

/// The portable form of the squares.
///
/// # Safety
/// As [`square4`], for `n` x `n` elements.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn square_by_element<T: Copy>(o: *mut T, s: *const T, n: isize, sor: isize, ssc: isize) {
    for r in 0..n {
        for c in 0..n {
            // SAFETY: forwarded to the caller.
            unsafe { *o.offset(r * sor + c) = *s.offset(r + c * ssc) };
        }
    }
}
