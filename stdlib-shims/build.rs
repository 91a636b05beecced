//! The Python sources under `python/` are compiled into the crate by `py_freeze!`, which cargo
//! does not track: rebuild whenever they change. Their text is embedded too
//! (`OUT_DIR/frozen_sources.rs`), so messages and printed graphs can quote frozen `torch` code.

use std::path::{Path, PathBuf};
use std::{env, fs};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "py") {
            out.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=python");
    let root = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("python");
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut table = String::from("/// (module name, source text) of every frozen Python file.\n");
    table.push_str("pub static FROZEN_SOURCES: &[(&str, &str)] = &[\n");
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under python/");
        let mut parts: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "__init__") {
            parts.pop();
        }
        // The path is rebuilt from `CARGO_MANIFEST_DIR` when the crate compiles, not written out
        // absolute: worktrees sharing one target dir share this script's cached output (cargo
        // hashes workspace members by their relative path), and an absolute path would embed
        // another checkout's sources or fail once it is deleted.
        let rel = rel.to_string_lossy().replace('\\', "/");
        table.push_str(&format!(
            "    ({:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/python/{}\"))),\n",
            parts.join("."),
            rel.escape_default()
        ));
    }
    table.push_str("];\n");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets it")).join("frozen_sources.rs");
    fs::write(out, table).expect("OUT_DIR is writable");
}
