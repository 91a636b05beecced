//! The graph-break registry: codes are unique and stable, and `docs/graph_breaks.md` is
//! generated from it (regenerate with `RYNAMO_BLESS=1 cargo test -p rynamo graph_break_docs`).

use std::collections::HashSet;

use crate::dynamo::exc::{GraphBreakKind, registry_markdown};

#[test]
fn codes_are_unique_and_well_formed() {
    let mut seen = HashSet::new();
    for k in GraphBreakKind::ALL {
        let code = k.code();
        assert!(seen.insert(code), "duplicate code {code}");
        assert!(code.starts_with("GB") && code.len() == 6, "{code}");
        assert!(!k.hints().is_empty(), "{code} has no hint");
    }
}

#[test]
fn graph_break_docs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/graph_breaks.md");
    let want = registry_markdown();
    if std::env::var_os("RYNAMO_BLESS").is_some() {
        std::fs::write(&path, &want).expect("writes docs/graph_breaks.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/graph_breaks.md is stale: run `RYNAMO_BLESS=1 cargo test -p rynamo graph_break_docs`"
    );
}
