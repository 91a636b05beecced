//! What the harness knows about W1-W9, M1-M4 and E1: names, units, figures of merit and the
//! targets of issue 31 and `benchmarks.md`.

use std::collections::BTreeMap;

/// The configurations a workload is timed in, in table order: Rynamo's three, NumPy, and
/// real PyTorch's two (`--torch-python`).
pub const CONFIGS: [&str; 6] = [
    "eager",
    "compiled",
    "compiled_eager",
    "numpy",
    "torch_eager",
    "torch_inductor",
];

/// How a workload's figure of merit is computed from its compiled time.
#[derive(Clone, Copy)]
pub enum Figure {
    /// Bytes moved at least once (read + write): GB/s against the bandwidth roofline.
    Bandwidth(f64),
    /// Floating-point operations: GFLOP/s against the machine's FP32 peak.
    Flops(f64),
    /// The time itself is the figure (µs per call, ms to first result).
    Time,
}

/// What kind of workload, for its targets and the tables it appears in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Group {
    /// W1-W9: single kernels and overheads.
    Kernel,
    /// M1-M4: real-model forwards.
    Model,
    /// E1: eager per-op dispatch (no compiled config).
    EagerOps,
}

/// One workload.
pub struct Workload {
    /// `W1` ... `W9`, `M1` ... `M4`, `E1`.
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
    /// Its kind.
    pub group: Group,
}

const F32_BYTES: f64 = 4.0;
const MB_4M: f64 = 4_194_304.0 * F32_BYTES;

/// W1-W9, then M1-M4 and E1 (`benches/workloads/real_models.py`).
pub const WORKLOADS: [Workload; 14] = [
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
    w("W9", "guard_check", 1e9, "ns", Figure::Time, false),
    m("M1", "gpt_forward"),
    m("M2", "vit_forward"),
    m("M3", "resnet18_forward"),
    m("M4", "unet_forward"),
    // 1,000 ops per call: ms per call are µs per op.
    Workload {
        id: "E1",
        name: "eager_per_op",
        scale: 1e3,
        unit: "µs/op",
        figure: Figure::Time,
        numpy: false,
        group: Group::EagerOps,
    },
];

const fn m(id: &'static str, name: &'static str) -> Workload {
    Workload {
        id,
        name,
        scale: 1e3,
        unit: "ms",
        figure: Figure::Time,
        numpy: false,
        group: Group::Model,
    }
}

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
        group: Group::Kernel,
    }
}

/// The machine's limits measured in this run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Copy bandwidth, GB/s (the roofline for W1-W3: each reads one array and writes one).
    pub copy_gbs: f64,
    /// Triad bandwidth, GB/s.
    pub triad_gbs: f64,
    /// FP32 GFLOP/s of the runtime's own GEMM (the gemm crate): shown, not a roofline (it would
    /// measure the runtime against itself).
    pub gemm_gflops: f64,
    /// FP32 GFLOP/s of an FMA loop on every core (`rynamo_benches::fma_peak`); 0 if not measured.
    pub fma_gflops: f64,
    /// FP32 GFLOP/s of OpenBLAS sgemm through NumPy; 0 if not measured.
    pub sgemm_gflops: f64,
}

impl Limits {
    /// The FP32 roofline: the higher of the FMA loop and OpenBLAS sgemm (the gemm crate's own
    /// figure only when neither could be measured).
    pub fn peak_gflops(&self) -> f64 {
        let independent = self.fma_gflops.max(self.sgemm_gflops);
        if independent > 0.0 {
            independent
        } else {
            self.gemm_gflops
        }
    }
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
                Some((gf, "GFLOP/s", gf / limits.peak_gflops()))
            }
            Figure::Time => None,
        }
    }

    /// The targets of issue 31 (and `benchmarks.md` for W7, W9) for medians `m` (seconds per
    /// config), and whether they are met: `None` when one needs a figure this run lacks (the
    /// PyTorch columns without `--torch-python`).
    pub fn target(&self, m: &BTreeMap<String, f64>, limits: &Limits) -> (String, Option<bool>) {
        let get = |c: &str| m.get(c).copied();
        let compiled = get("compiled");
        // `a` at most `f` times `b`: both measured, or unknown.
        let at_most = |a: Option<f64>, f: f64, b: Option<f64>| Some(a? <= f * b?);
        let vs_inductor = (
            "≥ 1.2× inductor",
            at_most(compiled, 1.0 / 1.2, get("torch_inductor")),
        );
        let conds: Vec<(&str, Option<bool>)> = match self.id {
            "W4" => {
                let roof = compiled
                    .and_then(|c| self.figure_at(c, limits))
                    .map(|f| f.2);
                vec![("≥ 85% of FP32 peak", roof.map(|r| r >= 0.85)), vs_inductor]
            }
            "W5" => vec![("≤ 1.5 µs", compiled.map(|c| c <= 1.5e-6)), vs_inductor],
            "W6" => vec![
                (
                    "compiled ≤ 0.8× eager",
                    at_most(compiled, 0.8, get("eager")),
                ),
                vs_inductor,
            ],
            "W7" => vec![("< 20 ms", compiled.map(|c| c < 20e-3)), vs_inductor],
            "W9" => vec![("< 200 ns", compiled.map(|c| c < 200e-9))],
            _ if self.group == Group::Model => vec![
                vs_inductor,
                (
                    "eager ≤ PyTorch eager",
                    at_most(get("eager"), 1.0, get("torch_eager")),
                ),
            ],
            _ if self.group == Group::EagerOps => vec![(
                "≤ PyTorch eager per op",
                at_most(get("eager"), 1.0, get("torch_eager")),
            )],
            _ => vec![vs_inductor],
        };
        let text: Vec<&str> = conds.iter().map(|c| c.0).collect();
        let met = if conds.iter().any(|c| c.1 == Some(false)) {
            Some(false)
        } else if conds.iter().all(|c| c.1 == Some(true)) {
            Some(true)
        } else {
            None
        };
        (text.join("; "), met)
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
        gemm_gflops: 500.0,
        fma_gflops: 300.0,
        sgemm_gflops: 250.0,
    };

    fn meds(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|&(c, s)| (c.to_string(), s)).collect()
    }

    #[test]
    fn figures_follow_the_sizes() {
        let w1 = by_id("W1").expect("W1");
        let (gbs, unit, roof) = w1.figure_at(1e-3, &LIMITS).expect("a bandwidth figure");
        // 4 Mi floats read and written in 1 ms.
        assert!((gbs - 33.554432).abs() < 1e-9, "{gbs}");
        assert_eq!(unit, "GB/s");
        assert!((roof - 33.554432 / 40.0).abs() < 1e-12);
        let w4 = by_id("W4").expect("W4");
        let (gf, _, roof) = w4.figure_at(1.0, &LIMITS).expect("a flop figure");
        assert!((gf - 4.294967296).abs() < 1e-9, "{gf}");
        // Against the FMA loop (the higher independent peak), not the gemm crate's 500.
        assert!((roof - gf / 300.0).abs() < 1e-12, "{roof}");
    }

    #[test]
    fn the_peak_is_the_higher_independent_figure() {
        assert_eq!(LIMITS.peak_gflops(), 300.0);
        let sgemm_higher = Limits {
            sgemm_gflops: 320.0,
            ..LIMITS
        };
        assert_eq!(sgemm_higher.peak_gflops(), 320.0);
        let neither = Limits {
            fma_gflops: 0.0,
            sgemm_gflops: 0.0,
            ..LIMITS
        };
        assert_eq!(neither.peak_gflops(), 500.0);
    }

    #[test]
    fn each_workload_is_judged_against_the_limits_measured_next_to_it() {
        let mut run = RunLimits::fixed(LIMITS);
        run.before.insert(
            "W4",
            Limits {
                fma_gflops: 200.0,
                sgemm_gflops: 150.0,
                ..LIMITS
            },
        );
        let w4 = by_id("W4").expect("W4");
        // 4.29 GFLOP in 25 ms is 172 GFLOP/s: 57% of the start's 300, 86% of the 200 next to it.
        let m = meds(&[("compiled", 25e-3), ("torch_inductor", 40e-3)]);
        assert_eq!(w4.target(&m, &LIMITS).1, Some(false));
        assert_eq!(w4.target(&m, run.at("W4")).1, Some(true));
        assert_eq!(run.at("W2").copy_gbs, LIMITS.copy_gbs);
    }

    #[test]
    fn targets_follow_issue_31() {
        let w6 = by_id("W6").expect("W6");
        let inductor = ("torch_inductor", 20e-6);
        let t = |w: &Workload, m: &[(&str, f64)]| w.target(&meds(m), &LIMITS).1;
        assert_eq!(
            t(w6, &[("compiled", 8e-6), ("eager", 10e-6), inductor]),
            Some(true)
        );
        assert_eq!(
            t(w6, &[("compiled", 9e-6), ("eager", 10e-6), inductor]),
            Some(false)
        );
        // Without PyTorch the inductor condition cannot be judged.
        assert_eq!(t(w6, &[("compiled", 8e-6), ("eager", 10e-6)]), None);
        let m1 = by_id("M1").expect("M1");
        let ok = [
            ("compiled", 1e-3),
            ("torch_inductor", 1.2e-3),
            ("eager", 2e-3),
            ("torch_eager", 2e-3),
        ];
        assert_eq!(t(m1, &ok), Some(true));
        let mut slow_eager = ok;
        slow_eager[2].1 = 2.1e-3;
        assert_eq!(t(m1, &slow_eager), Some(false));
        let mut slow_compiled = ok;
        slow_compiled[0].1 = 1.01e-3;
        assert_eq!(t(m1, &slow_compiled), Some(false));
        let e1 = by_id("E1").expect("E1");
        assert_eq!(t(e1, &[("eager", 1e-3), ("torch_eager", 2e-3)]), Some(true));
        assert_eq!(
            t(e1, &[("eager", 3e-3), ("torch_eager", 2e-3)]),
            Some(false)
        );
    }
}
