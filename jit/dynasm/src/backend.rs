//! [`DynasmBackend`]: the `"dynasm"` [`Backend`]. Compiling never fails for a verifiable graph:
//! nodes the JIT does not lower run through their eager kernels, and a graph the JIT cannot
//! plan at all (or one with in-place ops) runs on the eager interpreter.

use std::sync::{Arc, OnceLock};

use rynamo_backend::{Backend, EagerBackend, Error as BackendError, Executable, Support};
use rynamo_graph::{Graph, registry};
use rynamo_tensor::Tensor;

use crate::pipeline::{self, Program};
use crate::schedule::Step;
use crate::target::{self, Target};
use crate::{Error, runtime};

/// The dynasm JIT backend.
pub struct DynasmBackend {
    target: Option<Arc<dyn Target>>,
}

impl Default for DynasmBackend {
    fn default() -> Self {
        DynasmBackend::new()
    }
}

impl std::fmt::Debug for DynasmBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DynasmBackend({})",
            self.target.as_ref().map_or("none", |t| t.name())
        )
    }
}

impl DynasmBackend {
    /// For this machine (`RYNAMO_JIT_ISA=avx2` or `=sse2` picks a lower x86-64 tier).
    pub fn new() -> DynasmBackend {
        DynasmBackend {
            target: target::host().map(Arc::from),
        }
    }

    /// For an explicit target.
    pub fn with_target(target: Box<dyn Target>) -> DynasmBackend {
        DynasmBackend {
            target: Some(Arc::from(target)),
        }
    }

    /// The target's name.
    pub fn target_name(&self) -> &'static str {
        self.target.as_ref().map_or("none", |t| t.name())
    }

    /// Compiles to the concrete executable (for inspection: [`DynasmExecutable::dump`]).
    pub fn compile_exe(&self, graph: &Graph) -> Result<DynasmExecutable, BackendError> {
        let eager = EagerBackend.compile(graph)?;
        let jit = match &self.target {
            Some(t) => pipeline::compile(graph, t.as_ref()),
            None => Err(Error::NoTarget),
        };
        let exe = DynasmExecutable {
            fallback_reason: jit.as_ref().err().map(ToString::to_string),
            jit: jit.ok(),
            eager,
            target: self.target.clone(),
            dump: OnceLock::new(),
            n_nodes: graph.nodes().len() as u64,
        };
        if std::env::var("RYNAMO_JIT_DUMP").is_ok_and(|v| v == "1") {
            eprint!("{}", exe.dump());
        }
        Ok(exe)
    }
}

impl Backend for DynasmBackend {
    fn name(&self) -> &str {
        "dynasm"
    }

    fn supports(&self, _graph: &Graph) -> Support {
        Support::Full
    }

    fn compile(&self, graph: &Graph) -> Result<Arc<dyn Executable>, BackendError> {
        Ok(Arc::new(self.compile_exe(graph)?))
    }
}

/// A compiled graph.
pub struct DynasmExecutable {
    jit: Option<Program>,
    /// Why the whole graph runs on the eager interpreter (when `jit` is `None`).
    fallback_reason: Option<String>,
    eager: Arc<dyn Executable>,
    target: Option<Arc<dyn Target>>,
    /// Built on first use: disassembling every kernel at compile time was ~95% of a 100-op
    /// graph's compile time (W7 of benchmarks.md), and only logs and tests read it.
    dump: OnceLock<String>,
    n_nodes: u64,
}

impl DynasmExecutable {
    /// The kernels' loop IR and disassembly, and which nodes run eagerly.
    pub fn dump(&self) -> &str {
        self.dump.get_or_init(|| match (&self.jit, &self.target) {
            (Some(p), Some(t)) => pipeline::dump(p, t.as_ref()),
            (None, _) => format!(
                "// whole graph on the eager interpreter: {}\n",
                self.fallback_reason.as_deref().unwrap_or("no target")
            ),
            _ => String::new(),
        })
    }

    /// Whether the JIT runs this graph (false: the eager interpreter does).
    pub fn is_jitted(&self) -> bool {
        self.jit.is_some()
    }

    /// Addresses of the kernels' machine code, in step order (equal addresses: shared code).
    pub fn code_addresses(&self) -> Vec<u64> {
        self.jit.as_ref().map_or_else(Vec::new, |p| {
            p.launches.iter().flatten().map(|l| l.code.addr()).collect()
        })
    }

    /// `(kernel steps, eager node steps)`; a fused attention step counts as one kernel and
    /// two nodes.
    pub fn step_counts(&self) -> (usize, usize) {
        self.jit.as_ref().map_or((0, 0), |p| {
            p.steps.iter().fold((0, 0), |(k, n), s| match s {
                Step::Kernel(_) => (k + 1, n),
                Step::Node(_) => (k, n + 1),
                Step::Attention(_) => (k + 1, n + 2),
            })
        })
    }

    /// Number of kernels with a streaming-store variant ([`crate::stream`]).
    pub fn streaming_steps(&self) -> usize {
        self.jit.as_ref().map_or(0, |p| {
            p.launches
                .iter()
                .flatten()
                .filter(|l| l.streaming.is_some())
                .count()
        })
    }

    /// Number of fused attention steps ([`crate::attn`]).
    pub fn attention_steps(&self) -> usize {
        self.jit.as_ref().map_or(0, |p| {
            p.steps
                .iter()
                .filter(|s| matches!(s, Step::Attention(_)))
                .count()
        })
    }
}

impl Executable for DynasmExecutable {
    fn debug_dump(&self) -> Option<String> {
        Some(self.dump().to_owned())
    }

    fn debug_files(&self) -> Vec<(String, String)> {
        let mut files = Vec::new();
        if let Some(p) = &self.jit {
            for (i, (name, text)) in p.pass_graphs.iter().enumerate() {
                files.push((
                    format!("passes/{:02}_{}.txt", i, name.replace(' ', "_")),
                    text.clone(),
                ));
            }
            files.push(("graph_after_passes.txt".into(), p.graph.to_string()));
            if let Some(t) = &self.target {
                files.extend(pipeline::kernel_files(p, t.as_ref()));
            }
        }
        files.push(("output_code.txt".into(), self.dump().to_owned()));
        files
    }

    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let Some(p) = &self.jit else {
            return self.eager.run(inputs);
        };
        let g = &p.graph;
        if inputs.len() != g.inputs().len() {
            return self.eager.run(inputs);
        }
        if !p.written.is_empty()
            && (rynamo_tensor::memory_overlap::written_inputs_alias(&p.written, inputs)
                || p.written
                    .iter()
                    .any(|&w| !runtime::layout_matches(&inputs[w], &g.value(g.inputs()[w]).meta)))
        {
            // The write-backs must reach the caller's tensors, and the kernels before them
            // assume nothing they read is overwritten under them.
            return self.eager.run(inputs);
        }
        // NOTE: `resize_with`, not `vec![None; n]`: cloning a `None` copies the whole
        // `Option<Tensor>`, writing one writes its tag (this runs on every compiled call).
        let mut env: Vec<Option<Tensor>> = Vec::with_capacity(g.values().len());
        env.resize_with(g.values().len(), || None);
        for (&v, t) in g.inputs().iter().zip(inputs) {
            let m = &g.value(v).meta;
            if t.dtype() != m.dtype || t.shape() != m.shape.as_slice() {
                // The eager interpreter words the error as PyTorch would.
                return self.eager.run(inputs);
            }
            let t = if runtime::layout_matches(t, m) {
                t.clone()
            } else if rynamo_tensor::layout::is_contiguous(&m.shape, &m.strides) {
                t.contiguous()
            } else {
                return self.eager.run(inputs);
            };
            env[v.0 as usize] = Some(t);
        }
        for (i, (s, l)) in p.steps.iter().zip(&p.launches).enumerate() {
            match (s, l) {
                (Step::Node(n), _) => {
                    runtime::run_node(g, *n, &mut env).map_err(BackendError::Graph)?
                }
                (Step::Kernel(k), Some(l)) => {
                    // Allocating the outputs may fail (raised as PyTorch's out-of-memory
                    // error); a panic in the launch is an error naming the kernel (issue 30).
                    rynamo_tensor::unwind::catch(
                        || format!("JIT kernel {i} of a compiled graph"),
                        || -> Result<(), BackendError> {
                            rynamo_tensor::unwind::fault::check("jit", "kernel");
                            runtime::alloc_outputs(g, k, &mut env);
                            runtime::launch(k, l, &env);
                            Ok(())
                        },
                    )?
                }
                (Step::Attention(a), Some(l)) => {
                    crate::attn::run(g, a, l, &mut env).map_err(BackendError::Graph)?
                }
                (Step::Kernel(_) | Step::Attention(_), None) => {
                    unreachable!("invariant: kernel steps have code")
                }
            }
            for &v in &p.dead_after[i] {
                drop(env[v].take());
            }
        }
        registry::counters::add_in_graph(self.n_nodes);
        g.outputs()
            .iter()
            .map(|o| {
                env[o.0 as usize].clone().ok_or_else(|| {
                    BackendError::InvalidGraph(format!("output {o} was not computed"))
                })
            })
            .collect()
    }
}
