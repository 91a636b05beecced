//! The whole JIT, in order. Read this to know what runs.
//!
//! ```text
//!   Graph --[rynamo_passes::pipeline: functionalize, decompose, fold constants,
//!            the JIT's fuse bias, CSE, DCE, then functionalize inputs]-->
//!                                                            (verified after each in debug)
//!         --[fuse]------> Plan (kernels, buffers)
//!         --[schedule]--> Vec<Step> (loop IR + geometry)
//!         --[attn::fuse]-> matmul, row kernel, matmul fused per matrix
//!         --[emit]------> machine code per kernel (through the kernel cache)
//! ```

use std::sync::Arc;

use rynamo_graph::{Graph, verify};
use rynamo_passes::PassCx;

use crate::schedule::Step;
use crate::target::Target;
use crate::{Error, Result, attn, fuse, kernel_cache, passes, runtime, schedule, stream};

/// A compiled graph: the optimised graph, its steps, and the code of each kernel step.
pub struct Program {
    /// The graph after the passes (the steps refer to its values).
    pub graph: Graph,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Per step: code and constants of kernel steps.
    pub launches: Vec<Option<runtime::Launch>>,
    /// Per step: the values dead after it (their buffers can go), graph inputs excluded.
    pub dead_after: Vec<Vec<usize>>,
    /// Positions of the inputs the graph writes back at its end (`copy_(input, value)` after
    /// `functionalize_inputs`: an optimizer's in-place updates). The kernels before them are
    /// pure, which holds only when those inputs alias nothing and are laid out as traced; other
    /// calls run the original graph eagerly.
    pub written: Vec<usize>,
    /// The graph after each pass, when recorded (`TORCH_COMPILE_DEBUG=1`,
    /// [`rynamo_passes::record_passes`]).
    pub pass_graphs: Vec<(&'static str, String)>,
}

/// Runs the graph passes (the shared pipeline with the JIT's `fuse bias`) on a copy of `g`.
pub fn optimize(g: &Graph) -> Result<Graph> {
    optimize_in(g, &mut PassCx::default())
}

fn optimize_in(g: &Graph, cx: &mut PassCx) -> Result<Graph> {
    let mut g = g.clone();
    let v = |e: Vec<rynamo_graph::VerifyError>| {
        Error::Verify(
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    };
    rynamo_passes::pipeline::run(&mut g, cx, &[("fuse bias", passes::fuse_bias)]).map_err(v)?;
    cx.run(
        &mut g,
        "functionalize inputs",
        rynamo_passes::functionalize_inputs,
    )
    .map_err(v)?;
    // The out-of-place forms `functionalize_inputs` made (an optimizer's `lerp_`/`addcmul_` on
    // its state become `lerp`/`addcmul` + a write-back) decompose into pointwise ops the JIT
    // fuses; the pipeline's decompose ran before they existed.
    cx.run(&mut g, "decompose", rynamo_passes::decompose)
        .map_err(v)?;
    Ok(g)
}

/// Compiles `g` for `target`.
pub fn compile(g: &Graph, target: &dyn Target) -> Result<Program> {
    verify(g).map_err(|e| {
        Error::Verify(
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    let mut cx = PassCx::default();
    let graph = optimize_in(g, &mut cx)?;
    // Trailing write-backs of inputs run as eager nodes after the kernels; any other in-place
    // node keeps the graph on the eager interpreter. A `copy_` into an input with nodes after
    // it is the user's own write, not a write-back: later kernels would read the input after
    // it (fuzz finding: `v = x * y; x.copy_(y); return v + 1` read the new x).
    // (Ops that mutate arguments as a side effect, training batch_norm's running statistics,
    // run as eager nodes in order.)
    let (body, write_backs) = graph
        .nodes()
        .split_at(graph.nodes().len() - rynamo_passes::trailing_write_backs(&graph));
    if body
        .iter()
        .any(|n| n.op.flags().contains(rynamo_graph::OpFlags::INPLACE))
    {
        return Err(Error::Lower(
            "an in-place op writes a graph input or a tensor with views (see functionalize)".into(),
        ));
    }
    let written = write_backs
        .iter()
        .filter_map(|n| match n.args.first() {
            Some(rynamo_graph::Value::Tensor(v)) => graph.inputs().iter().position(|i| i == v),
            _ => None,
        })
        .collect();
    // The stages after the graph passes have fault-injection points too (issue 30's tests).
    rynamo_tensor::unwind::fault::check("pass", "fuse");
    let plan = fuse::plan(&graph);
    rynamo_tensor::unwind::fault::check("pass", "schedule");
    let steps = attn::fuse(&graph, schedule::schedule(&graph, &plan)?);
    rynamo_tensor::unwind::fault::check("pass", "emit");
    let launches = steps
        .iter()
        .map(|s| match s {
            Step::Kernel(k) => Ok(Some(runtime::Launch {
                code: kernel_cache::get_or_compile(target, &k.ir)?,
                pool: runtime::pool(&k.consts),
                streaming: stream::Streaming::build(k, target)?,
            })),
            Step::Attention(a) => Ok(Some(runtime::Launch {
                code: kernel_cache::get_or_compile(target, &a.kernel.ir)?,
                pool: runtime::pool(&a.kernel.consts),
                streaming: None,
            })),
            Step::Node(_) => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    let last_use = runtime::last_uses(&graph, &steps);
    let mut dead_after = vec![Vec::new(); steps.len()];
    for (v, &last) in last_use.iter().enumerate() {
        let is_input = graph.inputs().contains(&rynamo_graph::ValueId(v as u32));
        let slot = last.and_then(|l| dead_after.get_mut(l));
        if let Some(d) = slot.filter(|_| !is_input) {
            d.push(v);
        }
    }
    Ok(Program {
        graph,
        steps,
        launches,
        dead_after,
        written,
        pass_graphs: cx.graphs.unwrap_or_default(),
    })
}

/// Text of every kernel: its loop IR and a disassembly (what `RYNAMO_JIT_DUMP=1` prints).
pub fn dump(p: &Program, target: &dyn Target) -> String {
    let mut out = String::new();
    for (i, (s, l)) in p.steps.iter().zip(&p.launches).enumerate() {
        match (s, l) {
            (Step::Kernel(k), Some(l)) => {
                out.push_str(&format!(
                    "// step {i}: kernel, batch {:?} x rows {} x cols {} ({})\n{}",
                    k.batch,
                    k.rows,
                    k.cols,
                    l.code.target(),
                    k.ir
                ));
                out.push_str(&target.disassemble(l.code.code(), l.code.addr()));
                if let Some(s) = &l.streaming {
                    out.push_str(&format!(
                        "// step {i}, streaming-store variant (runs when the streamed outputs are {}-byte aligned)\n{}",
                        s.align, s.ir
                    ));
                    out.push_str(&target.disassemble(s.code.code(), s.code.addr()));
                }
            }
            (Step::Attention(a), Some(l)) => {
                let k = &a.kernel;
                out.push_str(&format!(
                    "// step {i}: attention, per matrix on one thread: eager-GEMM `{}`, kernel batch {:?} x rows {} x cols {} ({}), eager-GEMM `{}`\n{}",
                    p.graph.nodes()[a.scores.0 as usize].op,
                    k.batch,
                    k.rows,
                    k.cols,
                    l.code.target(),
                    p.graph.nodes()[a.out.0 as usize].op,
                    k.ir
                ));
                out.push_str(&target.disassemble(l.code.code(), l.code.addr()));
            }
            (Step::Node(n), _) => {
                let node = &p.graph.nodes()[n.0 as usize];
                out.push_str(&format!("// step {i}: eager `{}`\n", node.op));
            }
            _ => {}
        }
    }
    out
}

/// One file per kernel step for the `TORCH_COMPILE_DEBUG=1` directory:
/// `kernels/step_NN.loop_ir.txt` and `kernels/step_NN.asm` (its streaming variant beside it).
pub fn kernel_files(p: &Program, target: &dyn Target) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (i, (s, l)) in p.steps.iter().zip(&p.launches).enumerate() {
        let k = match s {
            Step::Kernel(k) => k,
            Step::Attention(a) => &a.kernel,
            Step::Node(_) => continue,
        };
        let Some(l) = l else { continue };
        files.push((
            format!("kernels/step_{i:02}.loop_ir.txt"),
            format!(
                "// batch {:?} x rows {} x cols {} ({})\n{}",
                k.batch,
                k.rows,
                k.cols,
                l.code.target(),
                k.ir
            ),
        ));
        files.push((
            format!("kernels/step_{i:02}.asm"),
            target.disassemble(l.code.code(), l.code.addr()),
        ));
        if let Some(st) = &l.streaming {
            files.push((
                format!("kernels/step_{i:02}.streaming.loop_ir.txt"),
                st.ir.to_string(),
            ));
            files.push((
                format!("kernels/step_{i:02}.streaming.asm"),
                target.disassemble(st.code.code(), st.code.addr()),
            ));
        }
    }
    files
}

/// Shared handle.
pub type SharedProgram = Arc<Program>;
