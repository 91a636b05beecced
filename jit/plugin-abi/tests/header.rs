//! The checked-in header is the generated one, and a C compiler lays it out as Rust does.

use std::path::{Path, PathBuf};
use std::process::Command;

use rynamo_plugin_abi::{STRUCTS, c_header};

fn header_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include/rynamo_plugin.h")
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
        "include/rynamo_plugin.h is stale; regenerate with RYNAMO_BLESS=1 cargo test -p rynamo-plugin-abi"
    );
}

/// Compiles a C program that prints `offsetof`/`sizeof` for every field, runs it, and compares with
/// the offsets Rust computed. Also proves the header compiles warning-free as C11 and as C++.
#[test]
fn c_compiler_agrees_with_rust_layout() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-abi-layout");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let mut src =
        String::from("#include <stdio.h>\n#include \"rynamo_plugin.h\"\nint main(void) {\n");
    let mut want = String::new();
    for s in STRUCTS {
        src.push_str(&format!(
            "    printf(\"{0} %zu\\n\", sizeof({0}));\n",
            s.name
        ));
        want.push_str(&format!("{} {}\n", s.name, s.size));
        for f in s.fields {
            src.push_str(&format!(
                "    printf(\"{0}.{1} %zu\\n\", offsetof({0}, {1}));\n",
                s.name, f.name
            ));
            want.push_str(&format!("{}.{} {}\n", s.name, f.name, f.offset));
        }
    }
    src.push_str("    return 0;\n}\n");
    let c = dir.join("layout.c");
    std::fs::write(&c, src).expect("write C source");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let include = header_path().parent().expect("include dir").to_path_buf();
    let exe = dir.join("layout");
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(&include)
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C compiler (set CC) is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("layout program runs");
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);

    // The same header must be valid C++ (vendors often write plugins in C++).
    let cpp = dir.join("layout.cpp");
    std::fs::write(
        &cpp,
        "#include \"rynamo_plugin.h\"\nint main() { return sizeof(RynamoPluginApi) == 0; }\n",
    )
    .expect("write C++ source");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if let Ok(out) = Command::new(&cxx)
        .args(["-std=c++11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
        .arg(&include)
        .arg(&cpp)
        .output()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
