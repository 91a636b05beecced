//! Golden tests of the joint graph and the partitioner: each file under `tests/partition/` holds
//! a forward graph in the text IR and which inputs require grad, followed by the expected joint,
//! forward and backward graphs. `RYNAMO_BLESS=1` rewrites the expected sections.
//!
//! ```text
//! # requires_grad: 1 0
//! graph(%x: f32[4], %y: f32[4]):
//!   ...
//! # joint
//! ...
//! # forward
//! ...
//! # backward
//! ...
//! ```

use crate::autograd::joint::build_joint;
use crate::autograd::partition::partition;
use crate::parse;

const SECTIONS: [&str; 3] = ["# joint", "# forward", "# backward"];

fn render(input: &str) -> Result<String, String> {
    let mut lines = input.lines();
    let header = lines.next().ok_or("empty file")?;
    let flags = header
        .strip_prefix("# requires_grad:")
        .ok_or("first line must be `# requires_grad: ...`")?;
    let rg: Vec<bool> = flags.split_whitespace().map(|f| f == "1").collect();
    let body: String = lines.collect::<Vec<_>>().join("\n");
    let fw = parse(&body).map_err(|e| e.to_string())?;
    let joint = build_joint(&fw, &rg, &vec![false; fw.nodes().len()]).map_err(|e| e.to_string())?;
    let p = partition(&joint).map_err(|e| e.to_string())?;
    Ok(format!(
        "{header}\n{body}\n{}\n{}{}\n{}{}\n{}",
        SECTIONS[0], joint.graph, SECTIONS[1], p.fw, SECTIONS[2], p.bw
    ))
}

#[test]
fn partition_goldens() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tests/partition");
    let bless = std::env::var_os("RYNAMO_BLESS").is_some();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "graph"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden files in {dir}");
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let input = text.split("\n# joint").next().unwrap_or(&text).trim_end();
        let got = match render(input) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        if bless {
            std::fs::write(&path, &got).unwrap();
        } else if got.trim_end() != text.trim_end() {
            failures.push(format!(
                "{} differs (RYNAMO_BLESS=1 to accept):\n{got}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
