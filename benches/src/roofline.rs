//! The machine's limits, measured in the same run as the workloads: memory bandwidth (a copy and
//! a triad over arrays larger than the caches, split over rayon's threads) and FP32 GEMM peak
//! (a large square matmul through the `gemm` crate the runtime's matmul uses).

use rayon::prelude::*;

use crate::{alternate_medians, time};
use rynamo_tensor::ops::matmul::gemm_raw;

/// f32 elements per array of the bandwidth roofline: 1 GiB, as `benchmarks.md` measures the
/// machine (it notes that 64 MiB partly fits in cache: this machine class has a 260 MiB L3, and
/// 64 MiB arrays measured 35-50 GB/s for a copy where DRAM gives 24-35).
pub const BANDWIDTH_ELEMS: usize = 256 << 20;

/// Bandwidth in GB/s of a copy (2 arrays moved) and a triad (3 arrays) over `n` f32 per array,
/// medians of `reps` alternating repetitions.
pub fn bandwidth(n: usize, reps: usize) -> (f64, f64) {
    let a: Vec<f32> = vec![1.0; n];
    let mut b: Vec<f32> = vec![2.0; n];
    let c: Vec<f32> = vec![3.0; n];
    // Several chunks per thread, so one slow core does not hold the others up.
    let chunk = (n / rayon::current_num_threads().max(1) / 4).max(1);
    let copy = |b: &mut Vec<f32>| {
        b.par_chunks_mut(chunk)
            .zip(a.par_chunks(chunk))
            .for_each(|(d, s)| d.copy_from_slice(s));
    };
    let triad = |b: &mut Vec<f32>| {
        b.par_chunks_mut(chunk)
            .zip(a.par_chunks(chunk).zip(c.par_chunks(chunk)))
            .for_each(|(d, (x, y))| {
                d.iter_mut()
                    .zip(x.iter().zip(y))
                    .for_each(|(d, (x, y))| *d = x + 3.0 * y)
            });
    };
    // First touch pages in before timing.
    copy(&mut b);
    triad(&mut b);
    let meds = alternate_medians(2, reps, |i| {
        if i == 0 {
            time(|| copy(&mut b))
        } else {
            time(|| triad(&mut b))
        }
    });
    let bytes = (n * 4) as f64;
    (
        2.0 * bytes / meds[0].as_secs_f64() / 1e9,
        3.0 * bytes / meds[1].as_secs_f64() / 1e9,
    )
}

/// FP32 GFLOP/s of an `n`^3 GEMM on all threads, median of `reps`, through the runtime's own
/// GEMM entry (`gemm_raw`: the gemm crate, split over the threads by `for_each_block`).
pub fn gemm_peak(n: usize, reps: usize) -> f64 {
    let a = vec![1.0f32; n * n];
    let b = vec![0.5f32; n * n];
    let mut c = vec![0.0f32; n * n];
    let s = (n as isize, 1);
    let run = |c: &mut Vec<f32>| {
        // SAFETY: three n x n row-major matrices of the right length (row stride n, column
        // stride 1); `c` is borrowed mutably for the call and `a`, `b` only read, so nothing
        // aliases.
        unsafe {
            gemm_raw::<f32>(
                (n, n, n),
                c.as_mut_ptr(),
                s,
                false,
                a.as_ptr(),
                s,
                b.as_ptr(),
                s,
                true,
            );
        }
    };
    run(&mut c);
    let med = alternate_medians(1, reps, |_| time(|| run(&mut c)))[0];
    2.0 * (n as f64).powi(3) / med.as_secs_f64() / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_positive_and_finite() {
        let (copy, triad) = bandwidth(1 << 16, 3);
        assert!(copy.is_finite() && copy > 0.0 && triad.is_finite() && triad > 0.0);
        let peak = gemm_peak(64, 3);
        assert!(peak.is_finite() && peak > 0.0);
    }
}
