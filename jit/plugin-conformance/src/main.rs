//! `rynamo-plugin-conformance PLUGIN...`: runs the conformance suite on each plugin library and
//! exits non-zero if any check fails.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let plugins: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if plugins.is_empty() {
        eprintln!("usage: rynamo-plugin-conformance PLUGIN.so...");
        return ExitCode::from(2);
    }
    let scratch = std::env::temp_dir().join(format!("rynamo-conformance-{}", std::process::id()));
    let mut ok = true;
    for p in &plugins {
        println!("== {}", p.display());
        let report = rynamo_plugin_conformance::run_all(p, &scratch);
        println!("{report}");
        ok &= report.passed();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
