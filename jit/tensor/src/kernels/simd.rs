//! Runtime CPU dispatch for the elementwise loops. The crate compiles for the x86-64 baseline
//! (SSE2); `with_wide` re-instantiates a loop inside an AVX-512 function (16 f32 lanes) or an
//! AVX2+FMA one (8 lanes) when the CPU has them, so the compiler vectorises it that wide.
//!
//! Results do not depend on the tier: Rust never contracts `a * b + c` into an FMA, and every
//! lane performs the same IEEE operations the scalar code does, so the wider loops are
//! bit-identical to the baseline one.

/// The widest instruction set the CPU supports (checked once; cached by std).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// SSE2 only.
    Base,
    /// AVX2 and FMA.
    Avx2,
    /// AVX-512 F/DQ/BW/VL on top of AVX2 and FMA.
    Avx512,
}

/// The tier `with_wide` uses on this CPU.
#[inline(always)]
pub fn tier() -> Tier {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx2") && has!("fma") {
            if has!("avx512f") && has!("avx512dq") && has!("avx512bw") && has!("avx512vl") {
                return Tier::Avx512;
            }
            return Tier::Avx2;
        }
    }
    Tier::Base
}

/// Whether the CPU supports at least AVX2+FMA.
#[inline(always)]
pub fn has_wide() -> bool {
    tier() != Tier::Base
}

/// Runs `f`, compiled for the widest tier available. Pass `f` as `#[inline(always)] || ...`
/// with `#[inline(always)]` helpers inside: a closure LLVM declines to inline stays a separate
/// baseline (SSE2) function and the wide tier is lost. Measured: the tanh-GELU loop ran at
/// 4 lanes in 18 ms per 4 Mi f32 until its closure was marked, then 16 lanes in 4 ms.
#[inline(always)]
pub fn with_wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    match tier() {
        // SAFETY: the CPU supports every feature `wide512` enables, checked by `tier`.
        Tier::Avx512 => return unsafe { wide512(f) },
        // SAFETY: the CPU supports AVX2 and FMA, checked by `tier`.
        Tier::Avx2 => return unsafe { wide(f) },
        Tier::Base => {}
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn wide<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,avx512f,avx512dq,avx512bw,avx512vl")]
#[inline]
unsafe fn wide512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `vzeroupper` when dropped (x86-64 with AVX; nothing elsewhere). private-gemm-x86's
/// hand-written AVX-512 kernels, which faer's matmul and factorizations run, return with the
/// upper halves of the vector registers dirty; until the thread's next context switch every
/// legacy-SSE instruction it executes (the baseline-compiled code, libm's functions among it)
/// then pays a state-transition penalty. Measured, when eager erf still called libm's `erff`:
/// `torch.erf` on 32k floats took 8.9 ms instead of 0.32 ms after one `x @ W.T`, and the GPT
/// forward of `scripts/bench` (M1) 24.7 ms instead of about 2 ms. Hold one across every call
/// into faer, on the thread that makes it.
pub struct CleanUpperOnDrop;

impl Drop for CleanUpperOnDrop {
    #[inline]
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX, which `zero_upper` requires.
            unsafe { zero_upper() }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn zero_upper() {
    std::arch::x86_64::_mm256_zeroupper();
}
