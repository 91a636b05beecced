//! The checks. Each takes the plugin path and a scratch directory and returns a one-line summary,
//! or an [`Error`] saying what the plugin got wrong.

use std::path::Path;
use std::sync::Arc;
use std::thread;

use rynamo_backend::{Backend, BackendRegistry, EagerBackend, Executable, Support};
use rynamo_graph::{Graph, GraphBuilder, Op, Value};
use rynamo_plugin_abi::{RYNAMO_ABI_MAJOR, RYNAMO_GRAPH_WIRE_VERSION};
use rynamo_plugin_host::{LoadOptions, Placement, PluginBackend, PluginLibrary};
use rynamo_tensor::{DType, Tensor, TensorMeta};

use crate::compare::compare_all;
use crate::samples::{Sample, f32_inputs, samples, values_unspecified};
use crate::{Error, artifacts};

type R = Result<String, Error>;

fn fail<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::Check(msg.into()))
}

fn eager(g: &Graph, inputs: &[Tensor]) -> Result<Vec<Tensor>, Error> {
    Ok(EagerBackend.compile(g)?.run(inputs)?)
}

/// Loads, checks versions and the name, registers under the name, and dedupes repeated loads.
pub fn handshake(path: &Path, _scratch: &Path) -> R {
    let lib = PluginLibrary::open(path)?;
    let (major, minor) = lib.abi_version();
    if major != RYNAMO_ABI_MAJOR {
        return fail(format!("ABI major {major}"));
    }
    if !Arc::ptr_eq(&lib, &PluginLibrary::open(path)?) {
        return fail("loading the same path twice gave two library instances");
    }
    let registry = BackendRegistry::with_defaults();
    let b = rynamo_plugin_host::load(path)?;
    rynamo_plugin_host::register(&registry, b.clone())?;
    if registry.lookup(lib.name())?.name() != lib.name() {
        return fail("registered under another name");
    }
    if rynamo_plugin_host::register(&registry, b).is_ok() {
        return fail("a second registration under the same name succeeded");
    }
    Ok(format!(
        "`{}` {} (ABI {major}.{minor}, capabilities {:#x})",
        lib.name(),
        lib.version(),
        lib.capabilities()
    ))
}

/// The op samples the plugin claims: `(op, variant)` pairs, checked to answer one flag per node.
fn claimed_samples(lib: &PluginLibrary) -> Result<Vec<(Op, usize, Sample)>, Error> {
    let mut out = Vec::new();
    for &op in Op::ALL {
        for (v, s) in samples(op, 1, false).into_iter().enumerate() {
            let mask = lib.supports(&s.graph)?;
            if mask.len() != s.graph.nodes().len() {
                return fail(format!(
                    "supports({op}) gave {} flags for 1 node",
                    mask.len()
                ));
            }
            if mask[0] {
                out.push((op, v, s));
            }
        }
    }
    Ok(out)
}

/// `supports` answers one flag per node, deterministically, for one-node, multi-node and empty
/// graphs.
pub fn supports(path: &Path, _scratch: &Path) -> R {
    let lib = PluginLibrary::open(path)?;
    let claimed = claimed_samples(&lib)?;
    for (op, _, s) in &claimed {
        if lib.supports(&s.graph)? != vec![true] {
            return fail(format!("supports({op}) is not deterministic"));
        }
    }
    let chain = chain_graph(&[Op::Neg, Op::Sin, Op::Exp, Op::Relu, Op::Cos]);
    if lib.supports(&chain)?.len() != 5 {
        return fail("supports on a 5-node graph did not give 5 flags");
    }
    let empty = identity_graph();
    if !lib.supports(&empty)?.is_empty() {
        return fail("supports on a graph without nodes gave flags");
    }
    let mut ops: Vec<Op> = claimed.iter().map(|c| c.0).collect();
    ops.dedup();
    Ok(format!(
        "claims {} ops ({} samples)",
        ops.len(),
        claimed.len()
    ))
}

fn chain_graph(ops: &[Op]) -> Graph {
    let mut b = GraphBuilder::new();
    let mut v = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 6]));
    let mut outs = Vec::new();
    for &op in ops {
        v = b
            .call_py(op, vec![Value::Tensor(v)], vec![])
            .unwrap_or_else(|e| panic!("invariant: {op} is unary: {e}"))[0];
        outs.push(v);
    }
    b.finish(outs)
}

fn identity_graph() -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[2]));
    b.finish(vec![x])
}

/// Every claimed op, differentially against `EagerBackend` on three random inputs (one of them
/// with strided inputs).
pub fn ops(path: &Path, _scratch: &Path) -> R {
    let lib = PluginLibrary::open(path)?;
    let claimed = claimed_samples(&lib)?;
    if claimed.is_empty() {
        return fail("the plugin claims no op");
    }
    let mut failures = Vec::new();
    for (op, variant, _) in &claimed {
        for seed in [1u64, 2, 3] {
            // Seed 3 runs on strided inputs (a graph traced with those strides).
            let Some(s) = samples(*op, seed, seed == 3).into_iter().nth(*variant) else {
                continue;
            };
            let r = lib
                .compile(&s.graph)
                .map_err(Error::from)
                .and_then(|exe| Ok(exe.run(&s.inputs)?))
                .and_then(|got| {
                    let want = eager(&s.graph, &s.inputs)?;
                    compare_all(&got, &want, !values_unspecified(*op)).map_err(Error::Check)
                });
            if let Err(e) = r {
                failures.push(format!("{op} #{variant} (seed {seed}): {e}"));
            }
        }
    }
    if !failures.is_empty() {
        return fail(failures.join("; "));
    }
    let mut names: Vec<&str> = claimed.iter().map(|(o, ..)| o.name()).collect();
    names.dedup();
    Ok(format!(
        "{} ops ({} samples x 3 inputs) match eager: {}",
        names.len(),
        claimed.len(),
        names.join(" ")
    ))
}

/// Whether the plugin claims the one-node graph `op(x: f32[4, 6], other...)`.
fn claims(lib: &PluginLibrary, op: Op, rest: Vec<rynamo_graph::Arg>) -> Result<bool, Error> {
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 6]));
    let mut args = vec![Value::Tensor(x)];
    args.extend(rest);
    let out = b.call_py(op, args, vec![])?;
    Ok(lib.supports(&b.finish(out))? == vec![true])
}

/// Runs `g` partitioned and eagerly, each on its own copy of `inputs`: the outputs and the
/// inputs after the call (in-place updates write them) must agree.
fn compare_mutating(exe: &dyn Executable, g: &Graph, inputs: &[Tensor]) -> Result<(), Error> {
    let copies = |ins: &[Tensor]| -> Vec<Tensor> {
        // Keep aliasing between inputs (the same tensor twice stays one tensor).
        let mut out: Vec<Tensor> = Vec::new();
        for (i, t) in ins.iter().enumerate() {
            match ins[..i].iter().position(|u| u.shares_storage(t)) {
                Some(j) => out.push(out[j].clone()),
                None => out.push(t.deep_clone()),
            }
        }
        out
    };
    let (mine, theirs) = (copies(inputs), copies(inputs));
    let got = exe.run(&mine)?;
    let want = eager(g, &theirs)?;
    compare_all(&got, &want, true).map_err(Error::Check)?;
    compare_all(&mine, &theirs, true).map_err(Error::Check)
}

/// In-place updates are functionalized before partitioning: the plugin runs the out-of-place
/// ops, inputs are written back on the host, results match eager (aliased inputs included); an
/// update through a view keeps the graph on the host.
fn in_place_updates(lib: &PluginLibrary, backend: &PluginBackend, yes: Op) -> Result<(), Error> {
    let t = |v| Value::Tensor(v);
    let meta = TensorMeta::contiguous(DType::Float32, &[4, 6]);
    // The graph's own tensor: `yes(x) * 2` in place.
    let mut b = GraphBuilder::new();
    let x = b.input("x", meta.clone());
    let a = b.call_py(yes, vec![t(x)], vec![])?[0];
    let m = b.call_py(Op::Mul_, vec![t(a), Value::Int(2)], vec![])?[0];
    let g = b.finish(vec![m]);
    let exe = backend.compile_partitioned(&g)?;
    let mul = claims(lib, Op::Mul, vec![Value::Int(2)])?;
    if mul
        && exe.placement()
            != vec![Placement {
                nodes: 0..2,
                on_plugin: true,
            }]
    {
        return fail(format!(
            "an update of the graph's own tensor: placement {:?}",
            exe.placement()
        ));
    }
    compare_mutating(exe.as_ref(), &g, &f32_inputs(1, &[4, 6], 11))?;
    // An optimizer's step on its inputs: `p.add_(d, alpha=-0.1)`, returning `p`.
    let mut b = GraphBuilder::new();
    let (p, d) = (b.input("p", meta.clone()), b.input("d", meta.clone()));
    let alpha = vec![("alpha".to_string(), Value::Float(-0.1))];
    let u = b.call_py(Op::Add_, vec![t(p), t(d)], alpha)?[0];
    let g = b.finish(vec![u]);
    let exe = backend.compile_partitioned(&g)?;
    let add = claims(lib, Op::Add, vec![Value::Float(1.0)])?;
    let want = vec![
        Placement {
            nodes: 0..1,
            on_plugin: true,
        },
        Placement {
            nodes: 1..2,
            on_plugin: false,
        },
    ];
    if add && exe.placement() != want {
        return fail(format!(
            "an update of an input: placement {:?}",
            exe.placement()
        ));
    }
    let inputs = f32_inputs(2, &[4, 6], 12);
    compare_mutating(exe.as_ref(), &g, &inputs)?;
    let p = inputs[0].deep_clone();
    let out = exe.run(&[p.clone(), inputs[1].clone()])?;
    if !out[0].shares_storage(&p) {
        return fail("the updated input was returned as a copy, not as the input itself");
    }
    // The same tensor as both inputs: eager's `p.add_(p)` reads what it writes.
    compare_mutating(exe.as_ref(), &g, &[inputs[0].clone(), inputs[0].clone()])?;
    // Through a view: the whole graph stays on the host.
    let mut b = GraphBuilder::new();
    let x = b.input("x", meta);
    let a = b.call_py(yes, vec![t(x)], vec![])?[0];
    let v = b.call_py(Op::View, vec![t(a), Value::IntList(vec![24])], vec![])?[0];
    b.call_py(Op::Mul_, vec![t(v), Value::Int(2)], vec![])?;
    let g = b.finish(vec![a]);
    let exe = backend.compile_partitioned(&g)?;
    if exe.placement().iter().any(|p| p.on_plugin) {
        return fail("an update through a view was sent to the plugin");
    }
    compare_mutating(exe.as_ref(), &g, &f32_inputs(1, &[4, 6], 13))
}

fn first_unary(lib: &PluginLibrary, want: bool, candidates: &[Op]) -> Result<Option<Op>, Error> {
    for &op in candidates {
        if lib.supports(&chain_graph(&[op]))? == vec![want] {
            return Ok(Some(op));
        }
    }
    Ok(None)
}

const UNARY: &[Op] = &[
    Op::Neg,
    Op::Relu,
    Op::Abs,
    Op::Exp,
    Op::Sigmoid,
    Op::Tanh,
    Op::Sin,
    Op::Cos,
    Op::Floor,
    Op::Ceil,
    Op::Square,
    Op::Erf,
    Op::Trunc,
    Op::Sign,
];

/// Claimed and unclaimed nodes split into plugin and fallback segments, placed as the plugin said,
/// with results equal to eager; mutating graphs stay on the fallback.
pub fn partitioning(path: &Path, _scratch: &Path) -> R {
    let lib = PluginLibrary::open(path)?;
    let backend = PluginBackend::new(lib.clone(), LoadOptions::default());
    let Some(yes) = first_unary(&lib, true, UNARY)? else {
        return fail("the plugin claims none of the unary f32 ops partitioning uses");
    };
    let no = first_unary(&lib, false, UNARY)?;
    // [yes, no, yes]: the middle node is unclaimed (plugin) or random (host policy).
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 6]));
    let t = |v| vec![Value::Tensor(v)];
    let a = b.call_py(yes, t(x), vec![])?[0];
    let m = match no {
        Some(op) => b.call_py(op, t(a), vec![])?[0],
        None => b.call_py(
            Op::Dropout,
            vec![Value::Tensor(a), Value::Float(0.0)],
            vec![],
        )?[0],
    };
    let c = b.call_py(yes, t(m), vec![])?[0];
    let g = b.finish(vec![c, a]);
    if backend.supports(&g)
        != (Support::Partial {
            unsupported: vec![rynamo_graph::NodeId(1)],
        })
    {
        return fail(format!("supports: {:?}", backend.supports(&g)));
    }
    let exe = backend.compile_partitioned(&g)?;
    let want_place = vec![
        Placement {
            nodes: 0..1,
            on_plugin: true,
        },
        Placement {
            nodes: 1..2,
            on_plugin: false,
        },
        Placement {
            nodes: 2..3,
            on_plugin: true,
        },
    ];
    if exe.placement() != want_place {
        return fail(format!("placement {:?}", exe.placement()));
    }
    let inputs = f32_inputs(1, &[4, 6], 7);
    compare_all(&exe.run(&inputs)?, &eager(&g, &inputs)?, true).map_err(Error::Check)?;

    // All claimed: one plugin segment.
    let full = chain_graph(&[yes, yes]);
    if backend.supports(&full) != Support::Full {
        return fail("a graph of claimed nodes is not fully supported");
    }
    let exe = backend.compile_partitioned(&full)?;
    if exe.placement()
        != vec![Placement {
            nodes: 0..2,
            on_plugin: true,
        }]
    {
        return fail(format!("placement {:?}", exe.placement()));
    }
    compare_all(&exe.run(&inputs)?, &eager(&full, &inputs)?, true).map_err(Error::Check)?;

    in_place_updates(&lib, &backend, yes)?;
    Ok(format!(
        "split around `{}`; `{}` on the plugin",
        no.map_or("dropout", |o| o.name()),
        yes.name()
    ))
}

/// Malformed calls come back as errors with messages (never a crash).
pub fn errors(path: &Path, _scratch: &Path) -> R {
    let lib = PluginLibrary::open(path)?;
    let g = chain_graph(&[Op::Neg]);
    let good = rynamo_plugin_wire::encode(&g)?;
    let mut wrong_version = good.clone();
    wrong_version[4..8].copy_from_slice(&(RYNAMO_GRAPH_WIRE_VERSION + 98).to_le_bytes());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"definitely not a graph".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 3].to_vec()),
        ("future wire version", wrong_version),
    ];
    let mut seen = Vec::new();
    for (what, bytes) in &cases {
        match lib.compile_bytes(bytes, &g) {
            Ok(_) => return fail(format!("compile accepted a {what} graph")),
            Err(rynamo_plugin_host::Error::Plugin { message, code, .. }) => {
                if message.trim().is_empty() {
                    return fail(format!("compile of a {what} graph: empty error message"));
                }
                seen.push(rynamo_plugin_host::code_name(code));
            }
            Err(e) => return fail(format!("compile of a {what} graph: unexpected {e}")),
        }
    }
    // A wrong number of inputs, bypassing the host's own check.
    if let Some(yes) = first_unary(&lib, true, UNARY)? {
        let exe = lib.compile(&chain_graph(&[yes]))?;
        let two = f32_inputs(2, &[4, 6], 1);
        match exe.run_unchecked(&two) {
            Err(rynamo_plugin_host::Error::Plugin { .. }) => {}
            Err(e) => return fail(format!("execute with 2 inputs for 1: unexpected {e}")),
            Ok(_) => return fail("execute accepted 2 inputs for a 1-input graph"),
        }
    }
    Ok(format!(
        "malformed graphs rejected with codes {}",
        seen.join(", ")
    ))
}

/// Executables outlive the backend handle and keep the library loaded; so do output tensors; after
/// everything is dropped the host's hold on the library is gone. Runs on a private copy.
pub fn lifetime(path: &Path, scratch: &Path) -> R {
    let copy = artifacts::private_copy(path, scratch, "lifetime")?;
    let backend = rynamo_plugin_host::load(&copy)?;
    let weak = Arc::downgrade(backend.library());
    let Some(yes) = first_unary(backend.library(), true, UNARY)? else {
        return fail("the plugin claims none of the unary f32 ops");
    };
    let g = chain_graph(&[yes]);
    let inputs = f32_inputs(1, &[4, 6], 3);
    let want = eager(&g, &inputs)?;
    let exe: Arc<dyn Executable> = backend.compile(&g)?;
    drop(backend);
    if weak.upgrade().is_none() || artifacts::is_mapped(&copy) == Some(false) {
        return fail("the library was released while an executable lives");
    }
    let outs = exe.run(&inputs)?;
    drop(exe);
    if weak.upgrade().is_none() || artifacts::is_mapped(&copy) == Some(false) {
        return fail("the library was released while an output tensor lives");
    }
    compare_all(&outs, &want, true).map_err(Error::Check)?;
    drop(outs);
    if weak.upgrade().is_some() {
        return fail("the host still holds the library after everything was dropped");
    }
    let unmapped = artifacts::is_mapped(&copy).map_or("unknown", |m| {
        if m { "no (pinned by the OS)" } else { "yes" }
    });
    let _ = std::fs::remove_file(&copy);
    Ok(format!(
        "released after the last output; unmapped: {unmapped}"
    ))
}

/// Unloading and loading again gives a working plugin (fresh statics).
pub fn reload(path: &Path, scratch: &Path) -> R {
    let copy = artifacts::private_copy(path, scratch, "reload")?;
    let g = chain_graph(&[Op::Neg, Op::Relu, Op::Exp]);
    let inputs = f32_inputs(1, &[4, 6], 5);
    let want = eager(&g, &inputs)?;
    for round in 0..3 {
        let b = rynamo_plugin_host::load(&copy)?;
        let got = b.compile(&g)?.run(&inputs)?;
        compare_all(&got, &want, true).map_err(|e| Error::Check(format!("round {round}: {e}")))?;
    }
    let _ = std::fs::remove_file(&copy);
    Ok("3 load/run/unload rounds".into())
}

/// One executable run from several threads at once gives the right answer every time.
pub fn concurrency(path: &Path, _scratch: &Path) -> R {
    let backend = rynamo_plugin_host::load(path)?;
    let lib = backend.library().clone();
    let Some(yes) = first_unary(&lib, true, UNARY)? else {
        return fail("the plugin claims none of the unary f32 ops");
    };
    let g = chain_graph(&[yes, Op::Sin, yes]);
    let exe = backend.compile(&g)?;
    let results: Vec<Result<(), Error>> = thread::scope(|s| {
        let handles: Vec<_> = (0..4u64)
            .map(|t| {
                let (exe, g) = (exe.clone(), &g);
                s.spawn(move || -> Result<(), Error> {
                    for i in 0..10 {
                        let inputs = f32_inputs(1, &[4, 6], 100 * t + i);
                        compare_all(&exe.run(&inputs)?, &eager(g, &inputs)?, true)
                            .map_err(Error::Check)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| fail("a thread panicked")))
            .collect()
    });
    for r in results {
        r?;
    }
    Ok("4 threads x 10 runs".into())
}
