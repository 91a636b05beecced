//! What the benches' integration tests share: where the workspace and its `rynamo` binary are.

use std::path::PathBuf;

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The binary under test: `RYNAMO`, else the workspace's debug build (built by the workspace
/// build, e.g. `scripts/test`, or `cargo build -p rynamo --bin rynamo`).
pub fn rynamo() -> PathBuf {
    if let Some(p) = std::env::var_os("RYNAMO") {
        return p.into();
    }
    let target =
        option_env!("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), PathBuf::from);
    target.join("debug").join("rynamo")
}
