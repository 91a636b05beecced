//! Repository rules that keep the architecture true (house style §2.1–2.2). Failing here means
//! either the change is wrong or ARCHITECTURE.md must change with it, in the same commit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("invariant: tests/ sits in the workspace root")
        .to_path_buf()
}

/// `(package name, manifest path relative to the root, normal dependency names)`.
fn packages() -> Vec<(String, String, Vec<String>)> {
    let root = workspace_root();
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let root_str = format!("{}/", root.display());
    meta["packages"]
        .as_array()
        .expect("packages array")
        .iter()
        .map(|p| {
            let name = p["name"].as_str().expect("name").to_owned();
            let manifest = p["manifest_path"].as_str().expect("manifest_path");
            let rel = manifest
                .strip_prefix(&root_str)
                .unwrap_or(manifest)
                .to_owned();
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null()) // normal dependencies, not dev/build
                .map(|d| d["name"].as_str().expect("dep name").to_owned())
                .collect();
            (name, rel, deps)
        })
        .collect()
}

#[test]
fn jit_crates_never_depend_on_the_interpreter_or_rustpython() {
    let pkgs = packages();
    assert!(pkgs.len() >= 10, "workspace has all its crates: {pkgs:?}");
    for (name, manifest, deps) in &pkgs {
        if !manifest.starts_with("jit/") {
            continue;
        }
        for dep in deps {
            assert!(
                !dep.starts_with("rustpython") && dep != "rynamo" && dep != "rynamo-shims",
                "{name} ({manifest}) depends on {dep}: jit/ must stay Python-agnostic"
            );
        }
    }
}

#[test]
fn plugin_abi_depends_on_nothing() {
    let pkgs = packages();
    let (_, _, deps) = pkgs
        .iter()
        .find(|(name, ..)| name == "rynamo-plugin-abi")
        .expect("rynamo-plugin-abi is a workspace member");
    assert!(deps.is_empty(), "rynamo-plugin-abi depends on {deps:?}");
}

#[test]
fn nothing_depends_on_the_interpreter_except_tests_and_benches() {
    for (name, manifest, deps) in packages() {
        if deps.iter().any(|d| d == "rynamo") {
            assert!(
                name == "rynamo-tests" || name == "rynamo-benches",
                "{name} ({manifest}) depends on the interpreter crate"
            );
        }
    }
}

/// Hand-written sources stay under the hard cap; generated files say so in their first line.
#[test]
fn no_hand_written_source_file_is_over_1500_lines() {
    const CAP: usize = 1500;
    let mut offenders = Vec::new();
    let mut stack = vec![workspace_root()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable dir") {
            let path = entry.expect("dir entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | ".git" | "__pycache__") && !name.starts_with('.') {
                    stack.push(path);
                }
                continue;
            }
            let is_source = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("rs" | "py" | "c" | "h")
            );
            if !is_source {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text
                .lines()
                .next()
                .is_some_and(|l| l.contains("@generated"))
            {
                continue;
            }
            let lines = text.lines().count();
            if lines > CAP {
                offenders.push(format!("{} ({lines} lines)", path.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "over {CAP} lines: {offenders:#?}");
}

/// The workspace crates each crate may depend on (normal dependencies): ARCHITECTURE.md's
/// arrows. Every crate may use `rynamo-tensor`; a crate missing here fails too.
const ALLOWED: &[(&str, &[&str])] = &[
    ("rynamo-tensor", &[]),
    ("rynamo-graph-macros", &[]),
    ("rynamo-graph", &["rynamo-graph-macros"]),
    // The shared passes know no backend.
    ("rynamo-passes", &["rynamo-graph"]),
    ("rynamo-backend", &["rynamo-graph"]),
    (
        "rynamo-dynasm",
        &["rynamo-graph", "rynamo-passes", "rynamo-backend"],
    ),
    ("rynamo-shims", &["rynamo-graph"]),
    ("rynamo-plugin-abi", &[]),
    ("rynamo-plugin-wire", &["rynamo-graph", "rynamo-plugin-abi"]),
    (
        "rynamo-plugin-sdk",
        &["rynamo-graph", "rynamo-plugin-abi", "rynamo-plugin-wire"],
    ),
    (
        "rynamo-plugin-host",
        &[
            "rynamo-graph",
            "rynamo-passes",
            "rynamo-backend",
            "rynamo-plugin-abi",
            "rynamo-plugin-wire",
        ],
    ),
    (
        "rynamo-plugin-reference",
        &["rynamo-backend", "rynamo-plugin-sdk"],
    ),
    (
        "rynamo-plugin-faulty",
        &["rynamo-backend", "rynamo-plugin-sdk"],
    ),
    (
        "rynamo-plugin-conformance",
        &[
            "rynamo-graph",
            "rynamo-backend",
            "rynamo-plugin-abi",
            "rynamo-plugin-wire",
            "rynamo-plugin-host",
        ],
    ),
    (
        "rynamo",
        &[
            "rynamo-graph",
            "rynamo-passes",
            "rynamo-backend",
            "rynamo-dynasm",
            "rynamo-shims",
            "rynamo-plugin-host",
        ],
    ),
    ("rynamo-tests", &["rynamo"]),
    (
        "rynamo-benches",
        &["rynamo", "rynamo-graph", "rynamo-backend", "rynamo-dynasm"],
    ),
];

#[test]
fn workspace_dependencies_follow_the_architecture() {
    let pkgs = packages();
    let ours: Vec<&str> = pkgs.iter().map(|(n, ..)| n.as_str()).collect();
    for (name, manifest, deps) in &pkgs {
        let allowed = ALLOWED
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| {
                panic!("{name} ({manifest}) is not in tidy.rs's ALLOWED table (ARCHITECTURE.md)")
            })
            .1;
        for dep in deps.iter().filter(|d| ours.contains(&d.as_str())) {
            assert!(
                dep == "rynamo-tensor" || allowed.contains(&dep.as_str()),
                "{name} depends on {dep}, which ARCHITECTURE.md's dependency rules do not allow"
            );
        }
    }
}

/// The positional argument accessors of `rynamo_graph::Args` (what `op_args!` generates typed,
/// named fields over).
const POSITIONAL_ACCESSORS: [&str; 20] = [
    "tensor",
    "tensors",
    "opt_tensor",
    "tensor_or_scalar",
    "opt_tensor_or_scalar",
    "scalar",
    "opt_scalar",
    "int",
    "opt_int",
    "ints",
    "opt_ints",
    "float",
    "opt_float",
    "bool",
    "opt_bool",
    "str",
    "opt_str",
    "dtype",
    "opt_dtype",
    "index",
];

/// Whether `rest` (what follows an opening parenthesis) starts with a literal position (`1`,
/// `&1`).
fn starts_with_position(rest: &str) -> bool {
    rest.trim_start_matches('&')
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
}

/// The lines of the `.rs` files in `dir` that call one of `accessors` with a literal position
/// (`.int(1)`, `.saved(&0)`), give `put` one (`put(&mut out, &0, g)`), or contain one of `raw`
/// (reads around the accessors).
fn positional_reads(dir: &Path, accessors: &[&str], raw: &[&str]) -> Vec<String> {
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(dir).expect("source dir") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let positional = accessors.iter().any(|a| {
                line.match_indices(&format!(".{a}("))
                    .any(|(i, m)| starts_with_position(&line[i + m.len()..]))
            }) || line.match_indices("put(&mut ").any(|(i, _)| {
                line[i..]
                    .split_once(", ")
                    .is_some_and(|(_, rest)| starts_with_position(rest))
            });
            if positional || raw.iter().any(|r| line.contains(r)) {
                offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    offenders
}

/// Op rules name their arguments (the schema's generated accessors) rather than reading them by
/// position, so a schema change cannot silently shift what a rule reads.
#[test]
fn op_rules_read_no_argument_by_position() {
    let dir = workspace_root().join("jit/graph/src/rules");
    let offenders = positional_reads(&dir, &POSITIONAL_ACCESSORS, &["Args(args)"]);
    assert!(
        offenders.is_empty(),
        "positional argument reads in op rules:\n{}",
        offenders.join("\n")
    );
}

/// The backward formulas read the forward call's arguments the same way, through the op's
/// generated `Args` (`vjp::args!`), tensors by their typed slot (`c.saved(a.self_)`,
/// `c.wants(a.weight)`); the context has no positional reads (`c.input(0)`, `c.needs(1)`), and
/// nothing indexes the bound arguments directly.
#[test]
fn vjp_formulas_read_no_argument_by_position() {
    let dir = workspace_root().join("jit/graph/src/autograd/vjp");
    let mut accessors = POSITIONAL_ACCESSORS.to_vec();
    accessors.extend(["input", "needs", "slot", "saved", "wants", "meta"]);
    let offenders = positional_reads(
        &dir,
        &accessors,
        &["Args(args)", "Args(c.args)", "args[", "args.get(", "c.a()"],
    );
    assert!(
        offenders.is_empty(),
        "positional argument reads in backward formulas:\n{}",
        offenders.join("\n")
    );
}
