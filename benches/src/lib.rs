//! The workloads of `benchmarks.md` and the harness that times them.
//!
//! Every figure is a ratio measured side by side in one run: configurations alternate within
//! each repetition, and the median of the repetitions is reported. Benchmarks print; they never
//! fail CI.
//!
//! - [`roofline`]: the machine's limits (bandwidth, GEMM peak) measured alongside.
//! - [`fma_peak`]: the FP32 peak of an FMA loop assembled at run time (the roofline of W4/W8).
//! - The `bench` binary (`src/bin/bench/`, run by `scripts/bench`): W1-W9 in every
//!   configuration, the capture-coverage table of `benches/models/`, JSON, comparison, SVG.

pub mod fma_peak;
pub mod roofline;

use std::time::{Duration, Instant};

/// Times each configuration `reps` times, alternating between them, and returns each one's
/// median. `run(i)` runs configuration `i` once and returns the time it took (so a
/// configuration can exclude its own set-up).
pub fn alternate_medians(
    configs: usize,
    reps: usize,
    mut run: impl FnMut(usize) -> Duration,
) -> Vec<Duration> {
    let mut samples = vec![Vec::with_capacity(reps); configs];
    for _ in 0..reps {
        for (i, s) in samples.iter_mut().enumerate() {
            s.push(run(i));
        }
    }
    samples.into_iter().map(median).collect()
}

/// The median of a sample (the upper one for an even count).
pub fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs.get(xs.len() / 2).copied().unwrap_or_default()
}

/// Times one call of `f`.
pub fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_alternate_and_pick_the_middle() {
        let mut order = Vec::new();
        let meds = alternate_medians(2, 3, |i| {
            order.push(i);
            Duration::from_millis((order.len() * 10) as u64)
        });
        assert_eq!(order, [0, 1, 0, 1, 0, 1]);
        assert_eq!(meds, [Duration::from_millis(30), Duration::from_millis(40)]);
    }
}
