//! The results of a run: the Markdown table of ratios with absolute figures beside them, the
//! JSON written to `target/bench/results.json`, and the comparison with an earlier JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::workloads::{CONFIGS, RunLimits, WORKLOADS, Workload};

/// Medians in seconds: workload id to configuration to seconds.
pub type Medians = BTreeMap<String, BTreeMap<String, f64>>;

/// Speed-up of the compiled configuration over `other` (other's time / compiled time).
fn speedup(m: &BTreeMap<String, f64>, other: &str) -> Option<f64> {
    Some(m.get(other)? / m.get("compiled")?)
}

fn cell(m: &BTreeMap<String, f64>, config: &str, w: &Workload) -> String {
    m.get(config)
        .map_or_else(|| "—".into(), |s| format!("{:.3} {}", s * w.scale, w.unit))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "—".into(), |r| format!("{r:.2}×"))
}

/// The workload table.
pub fn markdown(medians: &Medians, limits: &RunLimits, reps: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine: {} threads; bandwidth copy {:.1} GB/s, triad {:.1} GB/s (1 GiB arrays); GEMM peak {:.0} GFLOP/s. Medians of {reps} alternating repetitions.\n",
        rayon::current_num_threads(),
        limits.start.copy_gbs,
        limits.start.triad_gbs,
        limits.start.gemm_gflops
    );
    if !limits.before.is_empty() {
        let each: Vec<String> = limits
            .before
            .iter()
            .map(|(id, l)| {
                let w = WORKLOADS.iter().find(|w| w.id == *id);
                match w.map(|w| w.figure) {
                    Some(crate::workloads::Figure::Flops(_)) => {
                        format!("{id} GEMM {:.0} GFLOP/s", l.gemm_gflops)
                    }
                    _ => format!("{id} copy {:.1} GB/s", l.copy_gbs),
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "Rooflines re-measured just before each workload (the `of roofline` column): {}.\n",
            each.join(", ")
        );
    }
    s.push_str("| id | workload | eager | compiled | backend=eager | NumPy | compiled vs eager | compiled vs NumPy | compiled figure | of roofline | target | met |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for w in &WORKLOADS {
        let Some(m) = medians.get(w.id) else { continue };
        let Some(&compiled) = m.get("compiled") else {
            continue;
        };
        let (fig, roof) = match w.figure_at(compiled, limits.at(w.id)) {
            Some((v, unit, frac)) => (format!("{v:.1} {unit}"), format!("{:.0}%", frac * 100.0)),
            None => ("—".into(), "—".into()),
        };
        let (target, met) = w.target(compiled, m.get("eager").copied(), limits.at(w.id));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            w.id,
            w.name,
            cell(m, "eager", w),
            cell(m, "compiled", w),
            cell(m, "compiled_eager", w),
            cell(m, "numpy", w),
            ratio(speedup(m, "eager")),
            ratio(speedup(m, "numpy")),
            fig,
            roof,
            target,
            if met { "yes" } else { "no" }
        );
    }
    s.push_str("\n`compiled vs X` is X's time over the compiled time (> 1×: compiled is faster). Compiled = `torch.compile` with the default backend (dynasm). W7 times the first call in a fresh process; W9 is one guard-tree evaluation timed in Rust.\n");
    s
}

/// `results.json`.
pub fn to_json(medians: &Medians, limits: &RunLimits, reps: usize, notes: &[String]) -> Value {
    let mut workloads = serde_json::Map::new();
    for w in &WORKLOADS {
        let Some(m) = medians.get(w.id) else { continue };
        let mut entry = json!({
            "name": w.name,
            "unit": w.unit,
            "seconds": m,
            "speedup_vs_eager": speedup(m, "eager"),
            "speedup_vs_compiled_eager": speedup(m, "compiled_eager"),
            "speedup_vs_numpy": speedup(m, "numpy"),
        });
        if let Some(&c) = m.get("compiled") {
            if let Some((v, unit, frac)) = w.figure_at(c, limits.at(w.id)) {
                entry["figure"] = json!(v);
                entry["figure_unit"] = json!(unit);
                entry["roofline_fraction"] = json!(frac);
            }
            let (target, met) = w.target(c, m.get("eager").copied(), limits.at(w.id));
            entry["target"] = json!(target);
            entry["met"] = json!(met);
        }
        workloads.insert(w.id.to_string(), entry);
    }
    json!({
        "reps": reps,
        "machine": {
            "threads": rayon::current_num_threads(),
            "copy_gbs": limits.start.copy_gbs,
            "triad_gbs": limits.start.triad_gbs,
            "gemm_gflops": limits.start.gemm_gflops,
            "before": limits.before.iter().map(|(id, l)| (id.to_string(), json!({
                "copy_gbs": l.copy_gbs,
                "triad_gbs": l.triad_gbs,
                "gemm_gflops": l.gemm_gflops,
            }))).collect::<serde_json::Map<_, _>>(),
        },
        "workloads": workloads,
        "notes": notes,
    })
}

/// The change of every figure present in both runs: times per workload and configuration, the
/// machine's limits, and the coverage summary.
pub fn compare(old: &Value, new: &Value) -> String {
    let mut s = String::from("| figure | old | new | change |\n|---|---:|---:|---:|\n");
    let mut line = |name: String, o: f64, n: f64, lower_is_better: bool| {
        let change = (n / o - 1.0) * 100.0;
        let better = (change < 0.0) == lower_is_better;
        let tag = if change.abs() < 0.05 {
            ""
        } else if better {
            " (better)"
        } else {
            " (worse)"
        };
        let _ = writeln!(s, "| {name} | {o:.4} | {n:.4} | {change:+.1}%{tag} |");
    };
    for w in &WORKLOADS {
        for c in CONFIGS {
            let get = |v: &Value| v["workloads"][w.id]["seconds"][c].as_f64();
            if let (Some(o), Some(n)) = (get(old), get(new)) {
                line(
                    format!("{} {} {c} ({})", w.id, w.name, w.unit),
                    o * w.scale,
                    n * w.scale,
                    true,
                );
            }
        }
    }
    for (k, label) in [
        ("copy_gbs", "machine copy GB/s"),
        ("triad_gbs", "machine triad GB/s"),
        ("gemm_gflops", "machine GEMM GFLOP/s"),
    ] {
        if let (Some(o), Some(n)) = (old["machine"][k].as_f64(), new["machine"][k].as_f64()) {
            line(label.into(), o, n, false);
        }
    }
    if let (Some(o), Some(n)) = (
        old["coverage"]["overall_pct_ops"].as_f64(),
        new["coverage"]["overall_pct_ops"].as_f64(),
    ) {
        line("coverage overall pct_ops".into(), o, n, false);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::Limits;

    const LIMITS: Limits = Limits {
        copy_gbs: 40.0,
        triad_gbs: 45.0,
        gemm_gflops: 300.0,
    };

    fn limits() -> RunLimits {
        RunLimits::fixed(LIMITS)
    }

    fn medians(compiled: f64) -> Medians {
        let mut m = Medians::new();
        let w1 = m.entry("W1".into()).or_default();
        w1.insert("eager".into(), 8e-3);
        w1.insert("compiled".into(), compiled);
        w1.insert("numpy".into(), 4e-3);
        m
    }

    #[test]
    fn table_shows_ratios_beside_times() {
        let t = markdown(&medians(2e-3), &limits(), 11);
        assert!(t.contains("| W1 | pointwise_chain | 8.000 ms | 2.000 ms | — | 4.000 ms | 4.00× | 2.00× | 16.8 GB/s | 42% | ≤ 3 ms | yes |"), "{t}");
    }

    #[test]
    fn compare_reports_the_change_per_figure() {
        let old = to_json(&medians(2e-3), &limits(), 11, &[]);
        let new = to_json(&medians(1e-3), &limits(), 11, &[]);
        let c = compare(&old, &new);
        assert!(
            c.contains("| W1 pointwise_chain compiled (ms) | 2.0000 | 1.0000 | -50.0% (better) |"),
            "{c}"
        );
        assert!(
            c.contains("| W1 pointwise_chain eager (ms) | 8.0000 | 8.0000 | +0.0% |"),
            "{c}"
        );
    }
}
