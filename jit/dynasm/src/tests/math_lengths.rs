//! Code length of the vector math (`crate::vmath`) on every target, pinned in
//! `math_lengths.txt`: the instructions of a one-op kernel (`op(x)` on 37 f32, so a vector loop
//! and a scalar tail, each with the whole sequence) per target, so a sequence that grows shows in
//! review. The NEON target assembles on every host, so an x86-64 run checks its lines too; lines
//! of a tier the CPU lacks (AVX-512) are left as they are. `RYNAMO_BLESS=1` rewrites the lines
//! of the targets that ran.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rynamo_graph::parse;

use super::common::targets;
use crate::DynasmBackend;

const PINNED: &str = include_str!("math_lengths.txt");

/// The graphs measured: each transcendental alone, and softmax (whose exp takes the `x <= 0`
/// form on x86-64).
const GRAPHS: [(&str, &str); 8] = [
    ("exp", "exp(%x)"),
    ("log", "log(%x)"),
    ("sin", "sin(%x)"),
    ("cos", "cos(%x)"),
    ("tanh", "tanh(%x)"),
    ("sigmoid", "sigmoid(%x)"),
    ("erf", "erf(%x)"),
    ("softmax", "softmax(%x, -1, None)"),
];

/// Instructions in `dump`'s listings: lines `offset  bytes  text` with hex offset and bytes.
fn instructions(dump: &str) -> usize {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    dump.lines()
        .filter(|l| {
            let mut t = l.split_whitespace();
            matches!((t.next(), t.next()), (Some(a), Some(b)) if hex(a) && hex(b))
        })
        .count()
}

fn backends() -> Vec<DynasmBackend> {
    let mut out: Vec<DynasmBackend> = targets().into_iter().map(|(b, _)| b).collect();
    if cfg!(target_arch = "x86_64") {
        out.push(DynasmBackend::with_target(Box::new(
            crate::aarch64::NeonTarget,
        )));
    }
    out
}

#[test]
fn math_kernel_lengths_are_pinned() {
    let mut got: BTreeMap<String, usize> = BTreeMap::new();
    for b in backends() {
        for (name, call) in GRAPHS {
            let src = format!("graph(%x: f32[37]):\n  %0: f32[37] = {call}\n  return (%0)\n");
            let exe = b.compile_exe(&parse(&src).unwrap()).unwrap();
            assert!(exe.is_jitted(), "{}", exe.dump());
            got.insert(
                format!("{} {name}", b.target_name()),
                instructions(exe.dump()),
            );
        }
    }
    let mut pinned: BTreeMap<String, usize> = PINNED
        .lines()
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(k, n)| (k.to_string(), n.parse().unwrap()))
        .collect();
    if std::env::var_os("RYNAMO_BLESS").is_some() {
        pinned.extend(got);
        let mut text = String::new();
        for (k, n) in &pinned {
            writeln!(text, "{k} {n}").unwrap();
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tests/math_lengths.txt");
        std::fs::write(path, text).unwrap();
        return;
    }
    for (k, n) in &got {
        eprintln!("{k} {n}");
        assert_eq!(
            pinned.get(k),
            Some(n),
            "{k}: kernel length changed; if intended, RYNAMO_BLESS=1 rewrites math_lengths.txt"
        );
    }
}
