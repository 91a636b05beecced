//! What the harness knows about W1-W9: names, units, figures of merit and the targets of
//! `benchmarks.md`.

/// The configurations a workload is timed in, in table order.
pub const CONFIGS: [&str; 4] = ["eager", "compiled", "compiled_eager", "numpy"];

/// How a workload's figure of merit is computed from its compiled time.
#[derive(Clone, Copy)]
pub enum Figure {
    /// Bytes moved at least once (read + write): GB/s against the bandwidth roofline.
    Bandwidth(f64),
    /// Floating-point operations: GFLOP/s against the GEMM peak.
    Flops(f64),
    /// The time itself is the figure (µs per call, ms to first result).
    Time,
}

/// One workload.
pub struct Workload {
    /// `W1` ... `W9`.
    pub id: &'static str,
    /// Its name in `benchmarks.md`.
    pub name: &'static str,
    /// Display scale: seconds are multiplied by this (1e3 for ms, 1e6 for µs).
    pub scale: f64,
    /// Display unit.
    pub unit: &'static str,
    /// Figure of merit.
    pub figure: Figure,
    /// Has a NumPy counterpart.
    pub numpy: bool,
}

const F32_BYTES: f64 = 4.0;
const MB_4M: f64 = 4_194_304.0 * F32_BYTES;

/// W1-W9.
pub const WORKLOADS: [Workload; 9] = [
    w(
        "W1",
        "pointwise_chain",
        1e3,
        "ms",
        Figure::Bandwidth(2.0 * MB_4M),
        true,
    ),
    w(
        "W2",
        "softmax_rows",
        1e3,
        "ms",
        Figure::Bandwidth(2.0 * MB_4M),
        true,
    ),
    w(
        "W3",
        "layernorm_gelu",
        1e3,
        "ms",
        Figure::Bandwidth(2.0 * MB_4M),
        true,
    ),
    w(
        "W4",
        "mlp",
        1e3,
        "ms",
        Figure::Flops(2.0 * 2.0 * 256.0 * 1024.0 * 4096.0),
        true,
    ),
    w("W5", "tiny_overhead", 1e6, "µs", Figure::Time, true),
    w("W6", "graph_break", 1e6, "µs", Figure::Time, true),
    w("W7", "compile_latency", 1e3, "ms", Figure::Time, false),
    w(
        "W8",
        "attention",
        1e3,
        "ms",
        Figure::Flops(2.0 * 2.0 * 8.0 * 256.0 * 256.0 * 64.0),
        true,
    ),
    Workload {
        id: "W9",
        name: "guard_check",
        scale: 1e9,
        unit: "ns",
        figure: Figure::Time,
        numpy: false,
    },
];

const fn w(
    id: &'static str,
    name: &'static str,
    scale: f64,
    unit: &'static str,
    figure: Figure,
    numpy: bool,
) -> Workload {
    Workload {
        id,
        name,
        scale,
        unit,
        figure,
        numpy,
    }
}

/// The machine's limits measured in this run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Copy bandwidth, GB/s (the roofline for W1-W3: each reads one array and writes one).
    pub copy_gbs: f64,
    /// Triad bandwidth, GB/s.
    pub triad_gbs: f64,
    /// FP32 GEMM peak, GFLOP/s.
    pub gemm_gflops: f64,
}

/// The limits of one run: measured at its start, and again just before each workload whose
/// figure is against one of them. This machine class's speed drifts by 20-50% over minutes
/// (compute more than memory), so a GEMM peak taken minutes before W4 ran can be that far off;
/// each figure is judged against the measurement next to it.
#[derive(Clone, Debug)]
pub struct RunLimits {
    /// At the start of the run (the table's header).
    pub start: Limits,
    /// Just before each workload with a roofline, by id (the start's values for the limits
    /// that workload does not use).
    pub before: std::collections::BTreeMap<&'static str, Limits>,
}

impl RunLimits {
    /// The limits workload `id` is judged against.
    pub fn at(&self, id: &str) -> &Limits {
        self.before.get(id).unwrap_or(&self.start)
    }

    /// Start-of-run limits only.
    #[cfg(test)]
    pub fn fixed(start: Limits) -> RunLimits {
        RunLimits {
            start,
            before: Default::default(),
        }
    }
}

impl Workload {
    /// The figure of merit at `seconds`: `(value, unit, fraction of the roofline)`.
    pub fn figure_at(&self, seconds: f64, limits: &Limits) -> Option<(f64, &'static str, f64)> {
        match self.figure {
            Figure::Bandwidth(bytes) => {
                let gbs = bytes / seconds / 1e9;
                Some((gbs, "GB/s", gbs / limits.copy_gbs))
            }
            Figure::Flops(flops) => {
                let gf = flops / seconds / 1e9;
                Some((gf, "GFLOP/s", gf / limits.gemm_gflops))
            }
            Figure::Time => None,
        }
    }

    /// The target of `benchmarks.md` and whether the compiled time (seconds) meets it.
    pub fn target(&self, compiled: f64, eager: Option<f64>, limits: &Limits) -> (String, bool) {
        let roof = self.figure_at(compiled, limits).map_or(0.0, |f| f.2);
        match self.id {
            "W1" => ("≤ 3 ms".into(), compiled <= 3e-3),
            "W2" => ("≥ 70% of bandwidth".into(), roof >= 0.70),
            "W3" => ("≤ 4.5 ms".into(), compiled <= 4.5e-3),
            "W4" => ("≥ 75% of GEMM peak".into(), roof >= 0.75),
            "W5" => ("≤ 2 µs".into(), compiled <= 2e-6),
            "W6" => (
                "compiled ≤ eager".into(),
                eager.is_some_and(|e| compiled <= e),
            ),
            "W7" => ("< 20 ms".into(), compiled < 20e-3),
            "W8" => ("≤ 1.0 ms".into(), compiled <= 1e-3),
            "W9" => ("< 200 ns".into(), compiled < 200e-9),
            _ => (String::new(), false),
        }
    }
}

/// The workload with this id.
#[cfg(test)]
pub fn by_id(id: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        copy_gbs: 40.0,
        triad_gbs: 45.0,
        gemm_gflops: 300.0,
    };

    #[test]
    fn figures_follow_the_sizes() {
        let w1 = by_id("W1").expect("W1");
        let (gbs, unit, roof) = w1.figure_at(1e-3, &LIMITS).expect("a bandwidth figure");
        // 4 Mi floats read and written in 1 ms.
        assert!((gbs - 33.554432).abs() < 1e-9, "{gbs}");
        assert_eq!(unit, "GB/s");
        assert!((roof - 33.554432 / 40.0).abs() < 1e-12);
        let w4 = by_id("W4").expect("W4");
        let (gf, _, _) = w4.figure_at(1.0, &LIMITS).expect("a flop figure");
        assert!((gf - 4.294967296).abs() < 1e-9, "{gf}");
    }

    #[test]
    fn each_workload_is_judged_against_the_limits_measured_next_to_it() {
        let mut run = RunLimits::fixed(LIMITS);
        run.before.insert(
            "W4",
            Limits {
                gemm_gflops: 200.0,
                ..LIMITS
            },
        );
        let w4 = by_id("W4").expect("W4");
        // 4.29 GFLOP in 25 ms is 172 GFLOP/s: 57% of the start's 300, 86% of the 200 next to it.
        assert!(!w4.target(25e-3, None, &LIMITS).1);
        assert!(w4.target(25e-3, None, run.at("W4")).1);
        assert_eq!(run.at("W2").copy_gbs, LIMITS.copy_gbs);
    }

    #[test]
    fn targets_are_judged_on_compiled_times() {
        let w6 = by_id("W6").expect("W6");
        assert!(w6.target(10e-6, Some(12e-6), &LIMITS).1);
        assert!(!w6.target(13e-6, Some(12e-6), &LIMITS).1);
        let w2 = by_id("W2").expect("W2");
        // 33.5 MB in 1 ms is 33.5 GB/s: 84% of 40 GB/s.
        assert!(w2.target(1e-3, None, &LIMITS).1);
        assert!(!w2.target(2e-3, None, &LIMITS).1);
    }
}
