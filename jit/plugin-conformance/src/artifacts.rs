//! Finding and building plugin libraries for tests: Rust cdylibs that cargo built as
//! dev-dependencies, and C plugins compiled on the spot with the system C compiler (`$CC` or `cc`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the generated C headers live.
pub fn include_dirs() -> [PathBuf; 2] {
    let jit = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("invariant: this crate sits in jit/")
        .to_path_buf();
    [
        jit.join("plugin-abi/include"),
        jit.join("plugin-wire/include"),
    ]
}

/// The C plugin sources (`jit/plugins/c/<name>.c`).
pub fn c_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/c")
        .join(format!("{name}.c"))
}

/// The platform file name of a cdylib crate: `librynamo_plugin_reference.so`.
pub fn cdylib_file_name(crate_name: &str) -> String {
    format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    )
}

/// Locates a cdylib that cargo built for this test binary: a dev-dependency's cdylib lands in the
/// same `deps/` directory as the test executable (and a workspace build also puts it one level up;
/// examples run from `examples/`, next to `deps/`).
pub fn rust_cdylib(crate_name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let deps = exe.parent().ok_or("test executable has no directory")?;
    let file = cdylib_file_name(crate_name);
    let candidates = [
        deps.join(&file),
        deps.join("..").join(&file),
        deps.join("../deps").join(&file),
    ];
    candidates
        .iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .cloned()
        .ok_or_else(|| {
            format!(
                "{file} not found next to {}; is {crate_name} a dev-dependency?",
                exe.display()
            )
        })
}

/// Compiles `source` into the shared library `out` with `-D` flags `defines`. Writes to a
/// temporary name first and renames, so concurrent builders never load a half-written file.
pub fn build_c_plugin(source: &Path, out: &Path, defines: &[&str]) -> Result<PathBuf, String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
    let mut cmd = Command::new(&cc);
    cmd.args([
        "-std=c11", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror",
    ])
    .args(["-Wno-unused-function", "-Wno-unused-const-variable"]);
    for d in include_dirs() {
        cmd.arg("-I").arg(d);
    }
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.arg(source).arg("-o").arg(&tmp).arg("-lm");
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run the C compiler `{cc}` (set CC): {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{cc} failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    std::fs::rename(&tmp, out).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out.to_path_buf())
}

/// A fresh copy of a plugin under a unique name in `dir`, so a check can load and unload its own
/// instance while other checks use the original.
pub fn private_copy(plugin: &Path, dir: &Path, tag: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stem = plugin
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("plugin");
    let ext = plugin.extension().and_then(|s| s.to_str()).unwrap_or("so");
    let to = dir.join(format!("{stem}-{tag}-{}.{ext}", std::process::id()));
    std::fs::copy(plugin, &to).map_err(|e| format!("copy to {}: {e}", to.display()))?;
    Ok(to)
}

/// Whether `path` is mapped into this process (Linux `/proc/self/maps`; `None` elsewhere).
pub fn is_mapped(path: &Path) -> Option<bool> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let canon = std::fs::canonicalize(path).ok()?;
    let needle = canon.to_str()?;
    Some(maps.lines().any(|l| l.ends_with(needle)))
}
