//! Runtime CPU dispatch for the elementwise loops. The crate compiles for the x86-64 baseline
//! (SSE2); `with_wide` re-instantiates a loop inside an AVX2+FMA function when the CPU has them,
//! so the compiler vectorises it 8 f32 wide.

/// Whether the CPU supports the wide instruction set (checked once; cached by std).
#[inline(always)]
pub fn has_wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs `f`, compiled for AVX2+FMA when available. `f` must be `#[inline(always)]`-friendly
/// straight-line loop code: it is inlined into the feature-enabled function.
#[inline(always)]
pub fn with_wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_wide() {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { wide(f) };
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn wide<R>(f: impl FnOnce() -> R) -> R {
    f()
}
