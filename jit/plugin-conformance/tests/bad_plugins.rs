//! Bad plugins: each is refused or contained with a clear error, the process survives, and where
//! the user asked for it (`fallback_on_error`) execution continues on the fallback backend.

mod support;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;

use rynamo_backend::{Backend, BackendRegistry, EagerBackend, Support};
use rynamo_graph::{Graph, GraphBuilder, Op, Value};
use rynamo_plugin_conformance::compare::compare_all;
use rynamo_plugin_conformance::samples::f32_inputs;
use rynamo_plugin_host::{Error, LoadOptions, PluginLibrary, load, load_with};
use rynamo_tensor::{DType, Tensor, TensorMeta};

fn faulty_c(fault: u32) -> PathBuf {
    support::c_plugin(
        "faulty",
        &format!("c_faulty_{fault}"),
        &[&format!("FAULT={fault}")],
    )
}

fn chain(ops: &[Op]) -> Graph {
    let mut b = GraphBuilder::new();
    let mut v = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 6]));
    for &op in ops {
        v = b.call_py(op, vec![Value::Tensor(v)], vec![]).unwrap()[0];
    }
    b.finish(vec![v])
}

fn eager(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    EagerBackend.compile(g).unwrap().run(inputs).unwrap()
}

/// A random `[4, 6]` input in `[0.5, ...)`, so `log` and friends stay finite.
fn positive(seed: u64) -> Vec<Tensor> {
    let v: Vec<f32> = f32_inputs(1, &[4, 6], seed)[0]
        .to_vec::<f32>()
        .iter()
        .map(|v| v.abs() + 0.5)
        .collect();
    vec![Tensor::from_vec(v, &[4, 6]).unwrap()]
}

fn with_fallback() -> LoadOptions {
    LoadOptions {
        fallback_on_error: true,
        ..LoadOptions::default()
    }
}

// === Refused at load ===

#[test]
fn missing_file() {
    let e = load("/no/such/dir/libplugin.so").unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }));
    assert_eq!(
        e.to_string(),
        "plugin /no/such/dir/libplugin.so: no such file"
    );
}

#[test]
fn not_a_shared_library() {
    let p = support::scratch().join(format!("garbage-{}.so", std::process::id()));
    std::fs::create_dir_all(support::scratch()).unwrap();
    std::fs::write(&p, b"#!/bin/sh\necho this is not an ELF file\n").unwrap();
    let e = load(&p).unwrap_err();
    assert!(matches!(e, Error::Open { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("plugin {}: cannot load: ", p.display())),
        "{msg}"
    );
    let _ = std::fs::remove_file(&p);
}

#[test]
fn missing_entry_symbol() {
    let e = load(faulty_c(1)).unwrap_err();
    assert!(matches!(e, Error::MissingSymbol { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("not a Rynamo plugin: symbol `rynamo_plugin_get_api` not found"),
        "{e}"
    );
}

#[test]
fn wrong_major_version_names_both_versions() {
    let e = load(faulty_c(2)).unwrap_err();
    assert!(
        e.to_string().contains(
            "ABI version mismatch: the plugin was built for ABI 2.1, this host speaks ABI 1.1"
        ),
        "{e}"
    );
}

#[test]
fn struct_size_too_small() {
    let e = load(faulty_c(3)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::StructTooSmall {
                got: 72,
                need: 104,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("struct_size is 72 bytes, but ABI 1.1 needs at least 104"),
        "{e}"
    );
    // Claiming 1.1 with a 1.0-sized table is just as wrong.
    let e = load(faulty_c(8)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::StructTooSmall {
                got: 96,
                need: 104,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn null_table_and_bad_name() {
    assert!(matches!(
        load(faulty_c(4)).unwrap_err(),
        Error::NullApi { .. }
    ));
    let e = load(faulty_c(7)).unwrap_err();
    assert!(
        e.to_string()
            .contains("name \"bad name!\" must be 1 to 64 characters"),
        "{e}"
    );
}

#[test]
fn initialize_error_fails_the_load_with_the_plugins_message() {
    let e = load(faulty_c(9)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "plugin `c-faulty`: initialize failed (UNAVAILABLE): faulty C plugin: no device present"
    );
}

#[test]
fn a_newer_minor_version_loads() {
    let lib = PluginLibrary::open(faulty_c(10)).unwrap();
    assert_eq!(lib.abi_version(), (1, 7));
}

// === Contained at compile and run time ===

#[test]
fn null_compile_is_unimplemented_and_falls_back_when_asked() {
    let g = chain(&[Op::Neg]);
    let x = f32_inputs(1, &[4, 6], 1);
    let e = load(faulty_c(5))
        .unwrap()
        .compile(&g)
        .err()
        .expect("compile fails");
    assert!(
        e.to_string().contains(
            "plugin `c-faulty`: `compile` is not implemented (NULL in its function table)"
        ),
        "{e}"
    );
    let b = load_with(faulty_c(5), with_fallback()).unwrap();
    let exe = b.compile_partitioned(&g).unwrap();
    assert!(exe.placement().iter().all(|p| !p.on_plugin));
    compare_all(&exe.run_plain(&x), &eager(&g, &x), true).unwrap();
}

trait RunPlain {
    fn run_plain(&self, x: &[Tensor]) -> Vec<Tensor>;
}
impl RunPlain for Arc<rynamo_plugin_host::PartitionedExecutable> {
    fn run_plain(&self, x: &[Tensor]) -> Vec<Tensor> {
        rynamo_backend::Executable::run(&**self, x).unwrap()
    }
}

#[test]
fn wrongly_shaped_outputs_are_caught_and_fall_back_when_asked() {
    let g = chain(&[Op::Neg]);
    let x = f32_inputs(1, &[4, 6], 2);
    let exe = load(faulty_c(6)).unwrap().compile(&g).unwrap();
    let e = exe.run(&x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "backend `c-faulty` failed: plugin `c-faulty`: bad output 0: expected float32[4, 6], got float32[1]"
    );
    let b = load_with(faulty_c(6), with_fallback()).unwrap();
    let exe = b.compile_partitioned(&g).unwrap();
    assert!(
        exe.placement()[0].on_plugin,
        "compile succeeded on the plugin"
    );
    for _ in 0..2 {
        compare_all(&exe.run_plain(&x), &eager(&g, &x), true).unwrap();
    }
    let notes: Vec<String> = b
        .library()
        .log_messages()
        .into_iter()
        .map(|m| m.message)
        .collect();
    assert_eq!(
        notes
            .iter()
            .filter(|m| m.contains("execute of nodes 0..1 failed, using the fallback"))
            .count(),
        1,
        "one failure, then straight to the fallback: {notes:?}"
    );
}

/// `(ops, expected message fragment)` for each fault of the Rust fault-injection plugin.
const RUST_FAULTS: &[(&[Op], &str)] = &[
    (
        &[Op::Sin],
        "compile failed (INTERNAL): plugin panicked: faulty plugin: compile() panics on sin",
    ),
    (
        &[Op::Cos],
        "compile failed (UNIMPLEMENTED): faulty plugin: compile() refuses cos",
    ),
    (
        &[Op::Tan],
        "execute failed (INTERNAL): plugin panicked: faulty plugin: execute() panics on tan",
    ),
    (
        &[Op::Tanh],
        "execute failed (RESOURCE_EXHAUSTED): faulty plugin: execute() fails on tanh",
    ),
    (
        &[Op::Exp],
        "bad output 0: expected float32[4, 6], got float32[25]",
    ),
    (
        &[Op::Log],
        "bad output 0: expected float32[4, 6], got float64[4, 6]",
    ),
    (
        &[Op::Neg],
        "execute failed (INTERNAL): executable produced 2 outputs, the graph has 1",
    ),
];

#[test]
fn rust_plugin_panics_and_errors_surface_with_the_plugins_message() {
    let b = load(support::faulty()).unwrap();
    let x = f32_inputs(1, &[4, 6], 3);
    let positive = positive(3);
    for (ops, want) in RUST_FAULTS {
        let g = chain(ops);
        let e = b
            .compile(&g)
            .and_then(|exe| exe.run(&positive))
            .err()
            .unwrap_or_else(|| panic!("{ops:?} did not fail"));
        let msg = e.to_string();
        assert!(
            msg.starts_with("backend `faulty` failed: plugin `faulty`: "),
            "{msg}"
        );
        assert!(msg.contains(want), "{ops:?}: {msg}");
    }
    // The plugin survived every panic: a benign graph still runs on it.
    let g = chain(&[Op::Relu, Op::Sigmoid]);
    let exe = b.compile_partitioned(&g).unwrap();
    assert!(exe.placement()[0].on_plugin);
    compare_all(&exe.run_plain(&x), &eager(&g, &x), true).unwrap();
    // Panics were also logged to the host through the 1.1 log callback.
    assert!(
        b.library()
            .log_messages()
            .iter()
            .any(|m| m.message.contains("plugin panicked"))
    );
}

#[test]
fn rust_plugin_faults_fall_back_when_asked() {
    let b = load_with(support::faulty(), with_fallback()).unwrap();
    let x = positive(4);
    for (ops, _) in RUST_FAULTS {
        let g = chain(ops);
        let got = b.compile(&g).unwrap().run(&x).unwrap();
        compare_all(&got, &eager(&g, &x), true).unwrap_or_else(|e| panic!("{ops:?}: {e}"));
    }
}

#[test]
fn a_panicking_supports_makes_the_graph_unsupported() {
    let b = load(support::faulty()).unwrap();
    let g = chain(&[Op::Abs, Op::Neg]);
    match b.supports(&g) {
        Support::Unsupported(msg) => {
            assert!(msg.contains("supports failed (INTERNAL): plugin panicked: faulty plugin: supports() panics on abs"), "{msg}")
        }
        s => panic!("{s:?}"),
    }
    assert!(
        b.compile(&g).is_err(),
        "errors surface without fallback_on_error"
    );
    let b = load_with(support::faulty(), with_fallback()).unwrap();
    let x = f32_inputs(1, &[4, 6], 5);
    let exe = b.compile_partitioned(&g).unwrap();
    assert!(exe.placement().iter().all(|p| !p.on_plugin));
    compare_all(&exe.run_plain(&x), &eager(&g, &x), true).unwrap();
}

// === Loading lists ===

#[test]
fn plugin_lists_load_what_they_can_and_report_the_rest() {
    let registry = BackendRegistry::with_defaults();
    let list = format!("{}::/no/such/plugin.so", support::reference().display());
    let results =
        rynamo_plugin_host::load_list(&registry, OsStr::new(&list), &LoadOptions::default());
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].1.as_ref().unwrap().name(), "reference");
    assert!(matches!(results[1].1, Err(Error::NotFound { .. })));
    assert_eq!(
        registry.list(),
        vec!["eager".to_string(), "reference".to_string()]
    );
    let exe = registry
        .lookup("reference")
        .unwrap()
        .compile(&chain(&[Op::Sin]))
        .unwrap();
    let x = f32_inputs(1, &[4, 6], 6);
    compare_all(&exe.run(&x).unwrap(), &eager(&chain(&[Op::Sin]), &x), true).unwrap();
}
