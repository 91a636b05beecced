//! The capture-coverage table of `benches/models/` (the seeds' TorchBench table): per program
//! graph_calls, captured_ops, total_ops, pct_ops, pct_time and graphs, plus the overall pct_ops
//! and the number of single-graph programs. The rows come from `benches/models/coverage.py`
//! run under `rynamo`.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::Error;
use crate::child::stream_json;
use crate::drivers::Env;

/// One program's row, or its error.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The model file's stem.
    pub model: String,
    /// Graphs run per call.
    pub graph_calls: u64,
    /// Tensor ops run inside graphs per call.
    pub captured_ops: u64,
    /// All tensor ops per call.
    pub total_ops: u64,
    /// Share of run time inside graphs, percent.
    pub pct_time: f64,
    /// Graphs compiled for one call (`explain`'s graph count).
    pub graphs: u64,
    /// Why the program has no row.
    pub error: Option<String>,
}

impl Row {
    /// Parses a line of `coverage.py`.
    pub fn from_json(v: &Value) -> Option<Row> {
        let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some(Row {
            model: v.get("model")?.as_str()?.to_string(),
            graph_calls: n("graph_calls"),
            captured_ops: n("captured_ops"),
            total_ops: n("total_ops"),
            pct_time: v.get("pct_time").and_then(Value::as_f64).unwrap_or(0.0),
            graphs: n("graphs"),
            error: v.get("error").and_then(Value::as_str).map(str::to_string),
        })
    }

    /// captured_ops / total_ops, percent.
    pub fn pct_ops(&self) -> f64 {
        if self.total_ops == 0 {
            0.0
        } else {
            100.0 * self.captured_ops as f64 / self.total_ops as f64
        }
    }
}

/// Runs the suite.
pub fn run(env: &Env) -> Result<Vec<Row>, Error> {
    let dir = env.root.join("benches").join("models");
    let mut rows = Vec::new();
    let mut cmd = std::process::Command::new(&env.coverage_rynamo);
    cmd.arg("coverage.py").current_dir(&dir);
    stream_json(cmd, |v| {
        if let Some(r) = Row::from_json(&v) {
            eprintln!(
                "  coverage {:<24} {}",
                r.model,
                r.error.as_deref().unwrap_or("ok")
            );
            rows.push(r);
        }
    })?;
    Ok(rows)
}

/// Overall pct_ops (ops summed over programs) and how many programs ran as a single graph.
pub fn summary(rows: &[Row]) -> (f64, usize) {
    let ok = rows.iter().filter(|r| r.error.is_none());
    let (captured, total) = ok.clone().fold((0u64, 0u64), |(c, t), r| {
        (c + r.captured_ops, t + r.total_ops)
    });
    let pct = if total == 0 {
        0.0
    } else {
        100.0 * captured as f64 / total as f64
    };
    (pct, ok.filter(|r| r.graphs == 1).count())
}

/// The Markdown table with its two summary lines.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str(
        "| model | graph_calls | captured_ops | total_ops | pct_ops | pct_time | graphs |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for r in rows {
        match &r.error {
            Some(e) => {
                let _ = writeln!(
                    s,
                    "| {} | error: {} | | | | | |",
                    r.model,
                    e.replace('|', "/")
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {:.1}% | {:.1}% | {} |",
                    r.model,
                    r.graph_calls,
                    r.captured_ops,
                    r.total_ops,
                    r.pct_ops(),
                    r.pct_time,
                    r.graphs
                );
            }
        }
    }
    let (pct, single) = summary(rows);
    let _ = writeln!(s, "\noverall pct_ops: {pct:.2}% (target ≥ 99.8%)");
    let _ = writeln!(s, "single-graph programs: {single} of {}", rows.len());
    s
}

/// The JSON form (`results.json`'s `coverage`).
pub fn to_json(rows: &[Row]) -> Value {
    let (pct, single) = summary(rows);
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "model": r.model,
                "graph_calls": r.graph_calls,
                "captured_ops": r.captured_ops,
                "total_ops": r.total_ops,
                "pct_ops": r.pct_ops(),
                "pct_time": r.pct_time,
                "graphs": r.graphs,
                "error": r.error,
            })
        })
        .collect();
    json!({ "rows": rows, "overall_pct_ops": pct, "single_graph_programs": single })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, captured: u64, total: u64, graphs: u64) -> Row {
        Row {
            model: model.into(),
            graph_calls: graphs,
            captured_ops: captured,
            total_ops: total,
            pct_time: 50.0,
            graphs,
            error: None,
        }
    }

    #[test]
    fn summary_sums_ops_over_programs() {
        let mut bad = row("broken", 0, 0, 0);
        bad.error = Some("boom".into());
        let rows = [row("a", 9, 10, 1), row("b", 80, 90, 2), bad];
        let (pct, single) = summary(&rows);
        assert!((pct - 89.0).abs() < 1e-9, "{pct}");
        assert_eq!(single, 1);
        let table = markdown(&rows);
        assert!(
            table.contains("| a | 1 | 9 | 10 | 90.0% | 50.0% | 1 |"),
            "{table}"
        );
        assert!(table.contains("error: boom"));
    }

    #[test]
    fn rows_round_trip_through_json() {
        let r = row("mlp", 7, 8, 1);
        let v = &to_json(std::slice::from_ref(&r))["rows"][0];
        assert_eq!(Row::from_json(v), Some(r));
    }
}
