//! Shared by the integration tests: where the plugins are, built once per test binary.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rynamo_plugin_conformance::artifacts;

pub fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-conformance")
}

pub fn reference() -> PathBuf {
    artifacts::rust_cdylib("rynamo-plugin-reference").expect("reference plugin built")
}

#[allow(dead_code, reason = "each test binary uses its own subset")]
pub fn faulty() -> PathBuf {
    artifacts::rust_cdylib("rynamo-plugin-faulty").expect("faulty plugin built")
}

/// A C plugin from `jit/plugins/c/<source>.c`, built once per process under `name`.
pub fn c_plugin(source: &str, name: &str, defines: &[&str]) -> PathBuf {
    static BUILT: OnceLock<parking_lot_free::Map> = OnceLock::new();
    let map = BUILT.get_or_init(Default::default);
    map.get_or_build(name, || {
        // Test processes (nextest runs one per test) may build the same library at once: the
        // builder writes a private temporary and renames it into place atomically.
        let out = scratch().join(format!("lib{name}{}", std::env::consts::DLL_SUFFIX));
        artifacts::build_c_plugin(&artifacts::c_source(source), &out, defines)
            .unwrap_or_else(|e| panic!("building {name}: {e}"))
    })
}

#[allow(dead_code, reason = "each test binary uses its own subset")]
pub fn c_minimal() -> PathBuf {
    c_plugin("minimal", "c_minimal", &[])
}

/// A tiny build-once map (std only).
mod parking_lot_free {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::Mutex;

    #[derive(Default)]
    pub struct Map(Mutex<HashMap<String, PathBuf>>);

    impl Map {
        pub fn get_or_build(&self, name: &str, build: impl FnOnce() -> PathBuf) -> PathBuf {
            let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
            m.entry(name.to_string()).or_insert_with(build).clone()
        }
    }
}
