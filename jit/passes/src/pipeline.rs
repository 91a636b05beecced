//! The passes every backend runs, in order. Read this to know what runs.
//!
//! ```text
//!   Graph --[functionalize]--> [decompose] --> [fold constants]
//!         --[the backend's own rewrites, in its order]-->
//!         --[eliminate common subexpressions]--> [eliminate dead code]--> backend
//! ```
//!
//! CSE and DCE come last: the rewrites before them leave duplicates and replaced nodes behind.

use rynamo_graph::{Graph, VerifyError};

use crate::{
    Pass, PassCx, decompose, eliminate_common_subexpressions, eliminate_dead_code, fold_constants,
    functionalize,
};

/// The passes before the backend's rewrites, by name (the names `RYNAMO_DUMP_AFTER` takes).
pub const FRONT: &[(&str, Pass)] = &[
    ("functionalize", functionalize),
    ("decompose", decompose),
    ("fold constants", fold_constants),
];

/// The passes after the backend's rewrites.
pub const CLEANUP: &[(&str, Pass)] = &[
    (
        "eliminate common subexpressions",
        eliminate_common_subexpressions,
    ),
    ("eliminate dead code", eliminate_dead_code),
];

/// Runs the whole pipeline on `g`: [`FRONT`], then `backend` (a backend's own rewrites, in
/// order), then [`CLEANUP`].
pub fn run(
    g: &mut Graph,
    cx: &mut PassCx,
    backend: &[(&'static str, Pass)],
) -> Result<(), Vec<VerifyError>> {
    for &(name, pass) in FRONT.iter().chain(backend).chain(CLEANUP) {
        cx.run(g, name, pass)?;
    }
    Ok(())
}

/// The pipeline's names in order for a backend with the given rewrites.
pub fn names(backend: &[(&'static str, Pass)]) -> Vec<&'static str> {
    FRONT
        .iter()
        .chain(backend)
        .chain(CLEANUP)
        .map(|&(n, _)| n)
        .collect()
}
