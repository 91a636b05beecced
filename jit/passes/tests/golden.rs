//! Golden tests of the passes, in the style of Cranelift's filetests: each file under
//! `tests/golden/` names the passes to run, holds an input graph in the text IR, and after
//! `# after` the graph they make (verified). `RYNAMO_BLESS=1` rewrites the `# after` sections.
//!
//! ```text
//! # passes: functionalize, eliminate dead code
//! # <what the case is about>
//! graph(%x: f32[4]):
//!   ...
//! # after
//! graph(%x: f32[4]):
//!   ...
//! ```
//!
//! Pass names are the pipeline's (`functionalize`, `decompose`, `fold constants`, `eliminate
//! common subexpressions`, `eliminate dead code`), `functionalize inputs`, and `pipeline` for
//! the whole of `rynamo_passes::pipeline::run`.

use rynamo_graph::{Graph, parse, verify};
use rynamo_passes::{Pass, PassCx, functionalize_inputs, pipeline};

fn pass(name: &str) -> Option<Pass> {
    if name == "functionalize inputs" {
        return Some(functionalize_inputs);
    }
    pipeline::FRONT
        .iter()
        .chain(pipeline::CLEANUP)
        .find(|(n, _)| *n == name)
        .map(|&(_, p)| p)
}

/// The file's expected text for its input part.
fn render(input: &str) -> Result<String, String> {
    let header = input.lines().next().ok_or("empty file")?;
    let names = header
        .strip_prefix("# passes:")
        .ok_or("first line must be `# passes: ...`")?;
    let body: String = input
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut g: Graph = parse(&body).map_err(|e| e.to_string())?;
    verify(&g).map_err(|e| format!("input does not verify: {e:?}"))?;
    let mut cx = PassCx {
        verify: true,
        dump_after: None,
        ..PassCx::default()
    };
    for name in names.split(',').map(str::trim) {
        if name == "pipeline" {
            pipeline::run(&mut g, &mut cx, &[]).map_err(|e| format!("{e:?}"))?;
            continue;
        }
        let p = pass(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
        cx.run(&mut g, "golden", p)
            .map_err(|e| format!("after {name}: {e:?}"))?;
    }
    Ok(format!("{input}\n# after\n{g}"))
}

#[test]
fn pass_goldens() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let bless = std::env::var("RYNAMO_BLESS").is_ok_and(|v| v == "1");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "graph"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut covered = std::collections::HashSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let input = text.split("\n# after\n").next().unwrap_or(&text).trim_end();
        if let Some(names) = input
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# passes:"))
        {
            covered.extend(names.split(',').map(|n| n.trim().to_string()));
        }
        match render(input) {
            Ok(got) if bless => std::fs::write(path, got + "\n").unwrap(),
            Ok(got) if got.trim_end() != text.trim_end() => failures.push(format!(
                "{} differs (RYNAMO_BLESS=1 to accept):\n{got}",
                path.display()
            )),
            Ok(_) => {}
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // At least one file per pass.
    for &(name, _) in pipeline::FRONT.iter().chain(pipeline::CLEANUP) {
        assert!(covered.contains(name), "no golden file runs `{name}`");
    }
    assert!(covered.contains("functionalize inputs") && covered.contains("pipeline"));
}
