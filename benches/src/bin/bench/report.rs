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

fn met(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "yes",
        Some(false) => "no",
        None => "— (needs --torch-python)",
    }
}

/// The machine line: threads, bandwidth, and the FP32 peak figures (which one is the roofline).
pub fn machine_line(limits: &RunLimits, reps: usize) -> String {
    let l = &limits.start;
    let measured = |g: f64| {
        if g > 0.0 {
            format!("{g:.0} GFLOP/s")
        } else {
            "not measured".into()
        }
    };
    format!(
        "machine: {} threads; bandwidth copy {:.1} GB/s, triad {:.1} GB/s (1 GiB arrays); FP32 peak {:.0} GFLOP/s = the higher of an FMA loop on every core ({}) and OpenBLAS sgemm through NumPy ({}); the runtime's own gemm crate: {:.0} GFLOP/s (shown, not the roofline). Medians of {reps} alternating repetitions.",
        rayon::current_num_threads(),
        l.copy_gbs,
        l.triad_gbs,
        l.peak_gflops(),
        measured(l.fma_gflops),
        measured(l.sgemm_gflops),
        l.gemm_gflops,
    )
}

/// The workload table.
pub fn markdown(medians: &Medians, limits: &RunLimits, reps: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}\n", machine_line(limits, reps));
    if !limits.before.is_empty() {
        let each: Vec<String> = limits
            .before
            .iter()
            .map(|(id, l)| {
                let w = WORKLOADS.iter().find(|w| w.id == *id);
                match w.map(|w| w.figure) {
                    Some(crate::workloads::Figure::Flops(_)) => format!(
                        "{id} FP32 peak {:.0} GFLOP/s (FMA {:.0}, sgemm {:.0})",
                        l.peak_gflops(),
                        l.fma_gflops,
                        l.sgemm_gflops
                    ),
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
        if !m.contains_key("compiled") && !m.contains_key("eager") {
            continue;
        }
        let figure = m
            .get("compiled")
            .and_then(|&c| w.figure_at(c, limits.at(w.id)));
        let (fig, roof) = match figure {
            Some((v, unit, frac)) => (format!("{v:.1} {unit}"), format!("{:.0}%", frac * 100.0)),
            None => ("—".into(), "—".into()),
        };
        let (target, ok) = w.target(m, limits.at(w.id));
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
            met(ok)
        );
    }
    s.push_str("\n`compiled vs X` is X's time over the compiled time (> 1×: compiled is faster). Compiled = `torch.compile` with the default backend (dynasm). W7 times the first call in a fresh process; W9 is one guard-tree evaluation timed in Rust; E1 is eager only, per op. Targets: issue 31 (W7, W9: benchmarks.md).\n");
    s
}

/// Seconds of one config as a cell in `unit`, or a dash.
fn secs(m: &BTreeMap<String, f64>, config: &str, scale: f64, unit: &str) -> String {
    m.get(config)
        .map_or_else(|| "—".into(), |s| format!("{:.3} {unit}", s * scale))
}

/// The side-by-side table with real PyTorch (`--torch-python`): both implementations' eager and
/// compiled times from the same alternating run, Rynamo's ratio to each, the first compiled
/// call (compile time included) of each, and whether the two computed the same output.
/// `None` when no PyTorch figure was taken.
pub fn pytorch_markdown(medians: &Medians, outputs: &Outputs) -> Option<String> {
    let has_torch = medians
        .values()
        .any(|m| m.contains_key("torch_eager") || m.contains_key("torch_inductor"));
    if !has_torch {
        return None;
    }
    let mut s = String::from(
        "| id | workload | PyTorch eager | PyTorch inductor | Rynamo eager | Rynamo compiled | Rynamo compiled vs inductor | Rynamo eager vs PyTorch eager | first compiled call: Rynamo | first compiled call: PyTorch | same output |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for w in &WORKLOADS {
        let Some(m) = medians.get(w.id) else { continue };
        if !m.contains_key("torch_eager") && !m.contains_key("torch_inductor") {
            continue;
        }
        let vs = |torch: &str, ours: &str| Some(m.get(torch)? / m.get(ours)?);
        let same = match (
            outputs.get(&(w.id.to_string(), "rynamo")),
            outputs.get(&(w.id.to_string(), "pytorch")),
        ) {
            (Some(a), Some(b)) => match outputs_agree(a, b) {
                Some((true, d)) => format!("yes (max abs diff {d:.1e})"),
                Some((false, d)) => format!("**NO** (max abs diff {d:.1e})"),
                None => "unreadable".into(),
            },
            _ => "—".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            w.id,
            w.name,
            cell(m, "torch_eager", w),
            cell(m, "torch_inductor", w),
            cell(m, "eager", w),
            cell(m, "compiled", w),
            ratio(vs("torch_inductor", "compiled")),
            ratio(vs("torch_eager", "eager")),
            secs(m, "compile:compiled", 1e3, "ms"),
            secs(m, "compile:torch_inductor", 1e3, "ms"),
            same
        );
    }
    s.push_str("\n`vs` is PyTorch's time over Rynamo's (> 1×: Rynamo is faster). Inductor = PyTorch's `torch.compile` default. The first compiled call includes compiling; PyTorch's inductor cache starts empty each run (W7: fresh processes, so only its first sample is cold; the median is warm). `same output`: Rynamo's and PyTorch's eager outputs on the deterministic inputs of M1-M4 and E1 (16 sampled elements and the sum of absolute values, within 1e-3 relative).\n");
    Some(s)
}

/// `results.json`'s `outputs`: per workload, each implementation's eager output sample and
/// whether Rynamo's agrees with PyTorch's.
pub fn outputs_json(outputs: &Outputs) -> Value {
    let mut by_workload = serde_json::Map::new();
    for ((w, imp), v) in outputs {
        let entry = by_workload.entry(w.clone()).or_insert_with(|| json!({}));
        entry[*imp] = v.clone();
    }
    for (w, entry) in by_workload.iter_mut() {
        if let (Some(a), Some(b)) = (
            outputs.get(&(w.clone(), "rynamo")),
            outputs.get(&(w.clone(), "pytorch")),
        ) {
            entry["same_output"] = json!(outputs_agree(a, b).map(|r| r.0));
        }
    }
    Value::Object(by_workload)
}

/// Eager output samples per (workload, implementation), as the drivers report them.
pub type Outputs = BTreeMap<(String, &'static str), Value>;

/// Whether two output samples (`{"values": [...], "abs_sum": x}`) agree within 1e-3 relative
/// (float32 models summed in different orders by different kernels; this checks that both ran
/// the same model on the same input, it is not a precision test), and their largest difference.
pub fn outputs_agree(a: &Value, b: &Value) -> Option<(bool, f64)> {
    let vals = |v: &Value| -> Option<Vec<f64>> {
        let mut xs: Vec<f64> = v["values"]
            .as_array()?
            .iter()
            .map(Value::as_f64)
            .collect::<Option<_>>()?;
        xs.push(v["abs_sum"].as_f64()?);
        Some(xs)
    };
    let (xa, xb) = (vals(a)?, vals(b)?);
    if xa.len() != xb.len() {
        return Some((false, f64::INFINITY));
    }
    let mut ok = true;
    let mut max_diff: f64 = 0.0;
    for (x, y) in xa.iter().zip(&xb) {
        let d = (x - y).abs();
        max_diff = max_diff.max(d);
        ok &= d <= 1e-3 * (1.0 + y.abs());
    }
    Some((ok, max_diff))
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
        if let Some(&c) = m.get("compiled")
            && let Some((v, unit, frac)) = w.figure_at(c, limits.at(w.id))
        {
            entry["figure"] = json!(v);
            entry["figure_unit"] = json!(unit);
            entry["roofline_fraction"] = json!(frac);
        }
        let (target, met) = w.target(m, limits.at(w.id));
        entry["target"] = json!(target);
        entry["met"] = json!(met);
        entry["speedup_vs_torch_inductor"] = json!(speedup(m, "torch_inductor"));
        let eager_vs_torch = || Some(m.get("torch_eager")? / m.get("eager")?);
        entry["eager_speedup_vs_torch_eager"] = json!(eager_vs_torch());
        workloads.insert(w.id.to_string(), entry);
    }
    json!({
        "reps": reps,
        "machine": {
            "threads": rayon::current_num_threads(),
            "copy_gbs": limits.start.copy_gbs,
            "triad_gbs": limits.start.triad_gbs,
            "gemm_gflops": limits.start.gemm_gflops,
            "fma_gflops": limits.start.fma_gflops,
            "sgemm_gflops": limits.start.sgemm_gflops,
            "peak_gflops": limits.start.peak_gflops(),
            "before": limits.before.iter().map(|(id, l)| (id.to_string(), json!({
                "copy_gbs": l.copy_gbs,
                "triad_gbs": l.triad_gbs,
                "gemm_gflops": l.gemm_gflops,
                "fma_gflops": l.fma_gflops,
                "sgemm_gflops": l.sgemm_gflops,
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
        ("gemm_gflops", "machine gemm-crate GFLOP/s"),
        ("fma_gflops", "machine FMA-loop GFLOP/s"),
        ("sgemm_gflops", "machine OpenBLAS sgemm GFLOP/s"),
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
        fma_gflops: 280.0,
        sgemm_gflops: 250.0,
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
        assert!(t.contains("| W1 | pointwise_chain | 8.000 ms | 2.000 ms | — | 4.000 ms | 4.00× | 2.00× | 16.8 GB/s | 42% | ≥ 1.2× inductor | — (needs --torch-python) |"), "{t}");
        assert!(t.contains("FP32 peak 280 GFLOP/s"), "{t}");
        // No PyTorch figures: no side-by-side table.
        assert!(pytorch_markdown(&medians(2e-3), &Outputs::new()).is_none());
    }

    #[test]
    fn the_pytorch_table_gives_rynamo_s_ratio_to_each_peer() {
        let mut m = medians(2e-3);
        let w1 = m.get_mut("W1").expect("W1");
        w1.insert("torch_eager".into(), 16e-3);
        w1.insert("torch_inductor".into(), 3e-3);
        w1.insert("compile:compiled".into(), 5e-3);
        w1.insert("compile:torch_inductor".into(), 2.5);
        let t = pytorch_markdown(&m, &Outputs::new()).expect("a table");
        assert!(t.contains("| W1 | pointwise_chain | 16.000 ms | 3.000 ms | 8.000 ms | 2.000 ms | 1.50× | 2.00× | 5.000 ms | 2500.000 ms | — |"), "{t}");
        let main = markdown(&m, &limits(), 11);
        assert!(main.contains("| ≥ 1.2× inductor | yes |"), "{main}");
    }

    #[test]
    fn outputs_are_compared_within_a_relative_tolerance() {
        let a = json!({"values": [1.0, -2.0], "abs_sum": 100.0});
        let close = json!({"values": [1.0005, -2.001], "abs_sum": 100.05});
        let far = json!({"values": [1.0, -2.1], "abs_sum": 100.0});
        assert_eq!(outputs_agree(&a, &close).map(|r| r.0), Some(true));
        assert_eq!(outputs_agree(&a, &far).map(|r| r.0), Some(false));
        assert_eq!(outputs_agree(&a, &json!({"values": [1.0]})), None);
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
