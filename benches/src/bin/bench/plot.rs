//! `--plot`: the run as panels of bars (`svg.rs` draws them): Rynamo and PyTorch side by side
//! per workload (when `--torch-python` gave PyTorch figures), the compiled speed-ups over the
//! other configurations, the roofline fractions, and the capture coverage.

use std::collections::BTreeMap;

use crate::coverage;
use crate::report::Medians;
use crate::svg::{self, Panel, Scale};
use crate::workloads::{RunLimits, WORKLOADS};

/// `a`'s time over `b`'s: how many times faster `b` is.
fn times_faster(m: &BTreeMap<String, f64>, a: &str, b: &str) -> Option<f64> {
    Some(m.get(a)? / m.get(b)?)
}

/// Every workload's speed relative to PyTorch eager: PyTorch inductor, Rynamo eager and Rynamo
/// compiled, side by side. Not W7: its "eager" is a first call, nothing to compare compile
/// latencies against (the table has them).
fn side_by_side(med: &Medians) -> Option<Panel> {
    let rows: Vec<_> = WORKLOADS
        .iter()
        .filter_map(|w| {
            let m = med.get(w.id).filter(|_| w.id != "W7")?;
            m.get("torch_eager")?;
            let vals = vec![
                times_faster(m, "torch_eager", "torch_inductor"),
                times_faster(m, "torch_eager", "eager"),
                times_faster(m, "torch_eager", "compiled"),
            ];
            Some((format!("{} {}", w.id, w.name), vals))
        })
        .collect();
    (!rows.is_empty()).then(|| Panel {
        title: "Speed relative to PyTorch eager, same run, log scale: > 1× is faster".into(),
        series: vec![
            "PyTorch inductor".into(),
            "Rynamo eager".into(),
            "Rynamo compiled".into(),
        ],
        rows,
        scale: Scale::Log2 { max: 64.0 },
    })
}

/// The chart of a run.
pub fn chart(med: &Medians, limits: &RunLimits, cov: Option<&[coverage::Row]>) -> String {
    let mut panels: Vec<Panel> = side_by_side(med).into_iter().collect();
    let rows: Vec<_> = WORKLOADS
        .iter()
        .filter_map(|w| {
            let m = med.get(w.id)?;
            let vals = vec![
                times_faster(m, "eager", "compiled"),
                times_faster(m, "compiled_eager", "compiled"),
                times_faster(m, "numpy", "compiled"),
            ];
            vals.iter()
                .any(Option::is_some)
                .then(|| (format!("{} {}", w.id, w.name), vals))
        })
        .collect();
    if !rows.is_empty() {
        panels.push(Panel {
            title: "Speed-up of torch.compile (default backend), log scale: > 1× is faster".into(),
            series: vec![
                "vs Rynamo eager".into(),
                "vs backend=\"eager\"".into(),
                "vs NumPy".into(),
            ],
            rows,
            scale: Scale::Log2 { max: 64.0 },
        });
    }
    let roof: Vec<_> = WORKLOADS
        .iter()
        .filter_map(|w| {
            let c = *med.get(w.id)?.get("compiled")?;
            let (_, unit, frac) = w.figure_at(c, limits.at(w.id))?;
            Some((
                format!("{} {} ({unit})", w.id, w.name),
                vec![Some(frac * 100.0)],
            ))
        })
        .collect();
    if !roof.is_empty() {
        panels.push(Panel {
            title: "Achieved / roofline measured in the same run (compiled)".into(),
            series: vec!["% of copy bandwidth or FP32 peak (FMA loop, OpenBLAS sgemm)".into()],
            rows: roof,
            scale: Scale::Percent,
        });
    }
    if let Some(rows) = cov {
        panels.push(Panel {
            title: "Capture coverage of benches/models/".into(),
            series: vec!["pct_ops".into(), "pct_time".into()],
            rows: rows
                .iter()
                .filter(|r| r.error.is_none())
                .map(|r| (r.model.clone(), vec![Some(r.pct_ops()), Some(r.pct_time)]))
                .collect(),
            scale: Scale::Percent,
        });
    }
    svg::chart(&panels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::Limits;

    #[test]
    fn the_side_by_side_panel_shows_each_implementation_against_pytorch_eager() {
        let mut med = Medians::new();
        let m = med.entry("M1".into()).or_default();
        for (c, s) in [
            ("torch_eager", 4e-3),
            ("torch_inductor", 2e-3),
            ("eager", 8e-3),
            ("compiled", 1e-3),
        ] {
            m.insert(c.into(), s);
        }
        let svg = chart(&med, &RunLimits::fixed(Limits::default()), None);
        assert!(svg.contains("Speed relative to PyTorch eager"), "{svg}");
        // Inductor 2× faster than PyTorch eager, Rynamo eager 0.5×, Rynamo compiled 4×.
        for label in [">2.00×<", ">0.50×<", ">4.00×<"] {
            assert!(svg.contains(label), "{label} in {svg}");
        }
        // Without PyTorch figures there is no such panel.
        med.get_mut("M1").expect("M1").remove("torch_eager");
        let svg = chart(&med, &RunLimits::fixed(Limits::default()), None);
        assert!(!svg.contains("Speed relative to PyTorch eager"));
    }
}
