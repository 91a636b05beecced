//! The checked-in `rynamo_graph_wire.h` is the generated one and compiles as C.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use rynamo_graph::Op;
use rynamo_plugin_wire::{c_header, op_macro};

fn header_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include/rynamo_graph_wire.h")
}

#[test]
fn checked_in_header_is_up_to_date() {
    let want = c_header();
    if std::env::var_os("RYNAMO_BLESS").is_some() {
        std::fs::write(header_path(), &want).expect("write header");
    }
    let have = std::fs::read_to_string(header_path()).unwrap_or_default();
    assert!(
        have == want,
        "include/rynamo_graph_wire.h is stale; regenerate with RYNAMO_BLESS=1 cargo test -p rynamo-plugin-wire"
    );
}

#[test]
fn op_macros_are_unique_and_compile() {
    let names: HashSet<String> = Op::ALL.iter().map(|&o| op_macro(o)).collect();
    assert_eq!(names.len(), Op::ALL.len());
    assert_eq!(op_macro(Op::MaxDim), "RYNAMO_OP_MAX_DIM");
    assert_eq!(op_macro(Op::Add_), "RYNAMO_OP_ADD_");
    assert_eq!(op_macro(Op::GetItem), "RYNAMO_OP_GETITEM");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-wire-header");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let c = dir.join("check.c");
    let mut src = String::from("#include \"rynamo_graph_wire.h\"\n");
    for &op in Op::ALL {
        src.push_str(&format!(
            "_Static_assert({} == {}, \"{}\");\n",
            op_macro(op),
            op.id(),
            op.name()
        ));
    }
    std::fs::write(&c, src).expect("write C");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .args(["-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
        .arg(header_path().parent().expect("include dir"))
        .arg(&c)
        .output()
        .expect("a C compiler (set CC) is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
