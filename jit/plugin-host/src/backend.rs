//! [`PluginBackend`]: a plugin behind `rynamo_backend::Backend`. Compiling partitions the graph:
//! the plugin runs the nodes it supports, the fallback backend runs the rest.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rynamo_backend::{Backend, EagerBackend, Executable, Support};
use rynamo_graph::{Graph, NodeId, ValueId, verify};
use rynamo_plugin_abi::{RYNAMO_CAP_BACKWARD_GRAPHS, RYNAMO_LOG_INFO, RYNAMO_LOG_WARN};
use rynamo_tensor::Tensor;

use crate::partition::{Segment, host_policy, partition};
use crate::{Error, PluginExecutable, PluginLibrary, Result};

/// How a [`PluginBackend`] behaves around its plugin.
#[derive(Clone)]
pub struct LoadOptions {
    /// Runs what the plugin does not support (default: [`EagerBackend`]).
    pub fallback: Arc<dyn Backend>,
    /// When the plugin fails (an error, a panic it reports, a malformed output), run the failing
    /// part on `fallback` instead of returning the error. The failure is noted in the plugin's log
    /// and the part stays on the fallback from then on. Default: off (errors surface).
    pub fallback_on_error: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            fallback: Arc::new(EagerBackend),
            fallback_on_error: false,
        }
    }
}

impl std::fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadOptions")
            .field("fallback", &self.fallback.name())
            .field("fallback_on_error", &self.fallback_on_error)
            .finish()
    }
}

/// A loaded plugin as a [`Backend`], registered under the plugin's name.
#[derive(Debug)]
pub struct PluginBackend {
    lib: Arc<PluginLibrary>,
    options: LoadOptions,
}

/// Where a run of nodes executes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Node indices in the compiled graph.
    pub nodes: Range<usize>,
    /// On the plugin (else on the fallback).
    pub on_plugin: bool,
}

impl PluginBackend {
    /// Wraps a loaded library.
    pub fn new(lib: Arc<PluginLibrary>, options: LoadOptions) -> PluginBackend {
        PluginBackend { lib, options }
    }

    /// The library.
    pub fn library(&self) -> &Arc<PluginLibrary> {
        &self.lib
    }

    /// The options.
    pub fn options(&self) -> &LoadOptions {
        &self.options
    }

    /// Per node: will the plugin run it (the plugin's answer and the host policy, on the
    /// functionalized graph, whose nodes are `graph`'s one for one before its write-backs)?
    pub fn placement_mask(&self, graph: &Graph) -> Result<Vec<bool>> {
        let functional = functionalized(graph).map_err(|errs| {
            rynamo_backend::Error::InvalidGraph(
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        let plugin = self.lib.supports(&functional)?;
        let mut mask: Vec<bool> = plugin
            .into_iter()
            .zip(host_policy(&functional))
            .map(|(a, b)| a && b)
            .collect();
        mask.truncate(graph.nodes().len());
        Ok(mask)
    }

    fn warn(&self, what: String) {
        self.lib.note(RYNAMO_LOG_WARN, format!("host: {what}"));
    }

    /// Compiles `graph`, returning the concrete executable (for its [`PartitionedExecutable::placement`]).
    ///
    /// The graph is functionalized first (`rynamo_passes::functionalize`, then
    /// `functionalize_inputs`): in-place updates of the graph's own tensors and of its inputs
    /// become out-of-place ops the plugin can run, with the inputs written back on the host at
    /// the end. When the inputs of a call alias each other, the functional form would read values
    /// eager would have seen overwritten, so such calls run the original graph on the fallback.
    pub fn compile_partitioned(&self, original: &Graph) -> Result<Arc<PartitionedExecutable>> {
        let invalid = |errs: Vec<rynamo_graph::VerifyError>| {
            rynamo_backend::Error::InvalidGraph(
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        };
        verify(original).map_err(invalid)?;
        let functional = functionalized(original).map_err(invalid)?;
        let graph = &functional;
        let written = rynamo_passes::write_backs(graph).unwrap_or_default();
        let mask = match self.placement_mask(graph) {
            Ok(m) => m,
            Err(e) if self.options.fallback_on_error => {
                self.warn(format!(
                    "supports failed, running the graph on the fallback: {e}"
                ));
                vec![false; graph.nodes().len()]
            }
            Err(e) => return Err(e),
        };
        let mut steps = Vec::new();
        for seg in partition(graph, &mask) {
            let runner = if seg.on_plugin {
                match self.lib.compile(&seg.graph) {
                    Ok(exe) => Runner::Plugin {
                        exe,
                        fallback: Mutex::new(None),
                        disabled: AtomicBool::new(false),
                    },
                    Err(e) if self.options.fallback_on_error => {
                        self.warn(format!(
                            "compile of nodes {:?} failed, using the fallback: {e}",
                            seg.nodes
                        ));
                        Runner::Fallback(self.options.fallback.compile(&seg.graph)?)
                    }
                    Err(e) => return Err(e),
                }
            } else {
                Runner::Fallback(self.options.fallback.compile(&seg.graph)?)
            };
            steps.push(Step { seg, runner });
        }
        Ok(Arc::new(PartitionedExecutable {
            written: written
                .iter()
                .filter_map(|w| graph.inputs().iter().position(|i| i == w))
                .collect(),
            original: if written.is_empty() {
                None
            } else {
                Some(self.options.fallback.compile(original)?)
            },
            steps,
            num_values: graph.values().len(),
            inputs: graph.inputs().to_vec(),
            input_metas: graph
                .inputs()
                .iter()
                .map(|&v| graph.value(v).meta.clone())
                .collect(),
            outputs: graph.outputs().to_vec(),
            lib: self.lib.clone(),
            options: self.options.clone(),
        }))
    }
}

impl Backend for PluginBackend {
    fn name(&self) -> &str {
        self.lib.name()
    }

    /// What the plugin itself runs. `compile` accepts any graph regardless: unsupported nodes run
    /// on the fallback backend.
    fn supports(&self, graph: &Graph) -> Support {
        match self.placement_mask(graph) {
            Ok(mask) => {
                let unsupported: Vec<NodeId> = mask
                    .iter()
                    .enumerate()
                    .filter(|(_, ok)| !**ok)
                    .map(|(i, _)| NodeId(i as u32))
                    .collect();
                if unsupported.is_empty() {
                    Support::Full
                } else if unsupported.len() == mask.len() {
                    Support::Unsupported(format!(
                        "plugin `{}` supports none of the {} nodes",
                        self.lib.name(),
                        mask.len()
                    ))
                } else {
                    Support::Partial { unsupported }
                }
            }
            Err(e) => Support::Unsupported(e.to_string()),
        }
    }

    fn compile(&self, graph: &Graph) -> rynamo_backend::Result<Arc<dyn Executable>> {
        // A panic in the host's own code (partitioning, wire encoding) is an error naming the
        // plugin (issue 30); the plugin's side catches its own panics (the SDK's `guard`).
        rynamo_tensor::unwind::catch(
            || format!("the plugin host compiling for `{}`", self.lib.name()),
            || {
                rynamo_tensor::unwind::fault::check("plugin", self.lib.name());
                self.compile_partitioned(graph)
                    .map(|e| e as Arc<dyn Executable>)
                    .map_err(|e| e.into_backend(self.lib.name()))
            },
        )
    }

    fn compile_backward(&self, graph: &Graph) -> rynamo_backend::Result<Arc<dyn Executable>> {
        if self.lib.has(RYNAMO_CAP_BACKWARD_GRAPHS) {
            return self.compile(graph);
        }
        self.lib.note(
            RYNAMO_LOG_INFO,
            format!(
                "host: a backward graph runs on `{}`: the plugin does not declare RYNAMO_CAP_BACKWARD_GRAPHS",
                self.options.fallback.name()
            ),
        );
        self.options.fallback.compile(graph)
    }
}

enum Runner {
    Plugin {
        exe: PluginExecutable,
        /// Compiled on first failure (with `fallback_on_error`).
        fallback: Mutex<Option<Arc<dyn Executable>>>,
        /// Set after a failure: later runs go straight to the fallback.
        disabled: AtomicBool,
    },
    Fallback(Arc<dyn Executable>),
}

struct Step {
    seg: Segment,
    runner: Runner,
}

/// A partitioned graph: plugin and fallback segments run in node order.
pub struct PartitionedExecutable {
    /// Positions of the inputs the functionalized graph writes back.
    written: Vec<usize>,
    /// The graph before functionalization, on the fallback (when it writes inputs): runs calls
    /// whose written inputs alias another input.
    original: Option<Arc<dyn Executable>>,
    steps: Vec<Step>,
    num_values: usize,
    inputs: Vec<ValueId>,
    input_metas: Vec<rynamo_tensor::TensorMeta>,
    outputs: Vec<ValueId>,
    lib: Arc<PluginLibrary>,
    options: LoadOptions,
}

impl PartitionedExecutable {
    /// Where each run of nodes executes (as compiled; a runtime fallback is not reflected).
    pub fn placement(&self) -> Vec<Placement> {
        self.steps
            .iter()
            .map(|s| Placement {
                nodes: s.seg.nodes.clone(),
                on_plugin: matches!(s.runner, Runner::Plugin { .. }),
            })
            .collect()
    }

    /// The library (kept loaded while this executable lives).
    pub fn library(&self) -> &Arc<PluginLibrary> {
        &self.lib
    }

    fn run_step(&self, step: &Step, ins: &[Tensor]) -> Result<Vec<Tensor>> {
        match &step.runner {
            Runner::Fallback(exe) => Ok(exe.run(ins)?),
            Runner::Plugin {
                exe,
                fallback,
                disabled,
            } => {
                if !disabled.load(Ordering::Acquire) {
                    match exe.run(ins) {
                        Ok(outs) => return Ok(outs),
                        Err(e) if self.options.fallback_on_error => {
                            disabled.store(true, Ordering::Release);
                            self.lib.note(
                                RYNAMO_LOG_WARN,
                                format!(
                                    "host: execute of nodes {:?} failed, using the fallback from now on: {e}",
                                    step.seg.nodes
                                ),
                            );
                        }
                        Err(e) => return Err(e),
                    }
                }
                let fb = {
                    let mut slot = fallback.lock();
                    match &*slot {
                        Some(f) => f.clone(),
                        None => {
                            let f = self.options.fallback.compile(&step.seg.graph)?;
                            *slot = Some(f.clone());
                            f
                        }
                    }
                };
                Ok(fb.run(ins)?)
            }
        }
    }

    fn run_all(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if inputs.len() != self.inputs.len() {
            return Err(rynamo_backend::Error::Inputs(format!(
                "graph takes {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            ))
            .into());
        }
        let mut env: Vec<Option<Tensor>> = vec![None; self.num_values];
        for (k, ((&v, t), m)) in self
            .inputs
            .iter()
            .zip(inputs)
            .zip(&self.input_metas)
            .enumerate()
        {
            if t.dtype() != m.dtype || t.shape() != m.shape.as_slice() {
                return Err(rynamo_backend::Error::Inputs(format!(
                    "input {k}: expected {}{:?}, got {}{:?}",
                    m.dtype.name(),
                    m.shape,
                    t.dtype().name(),
                    t.shape()
                ))
                .into());
            }
            env[v.0 as usize] = Some(t.clone());
        }
        if let Some(original) = &self.original
            && self.inputs_alias(inputs)
        {
            return Ok(original.run(inputs)?);
        }
        let get = |env: &[Option<Tensor>], v: ValueId| {
            env[v.0 as usize].clone().ok_or_else(|| {
                Error::Backend(rynamo_backend::Error::InvalidGraph(format!(
                    "{v} is used before it is computed"
                )))
            })
        };
        for step in &self.steps {
            let ins = step
                .seg
                .inputs
                .iter()
                .map(|&v| get(&env, v))
                .collect::<Result<Vec<_>>>()?;
            let outs = self.run_step(step, &ins)?;
            for (&v, t) in step.seg.outputs.iter().zip(outs) {
                env[v.0 as usize] = Some(t);
            }
        }
        self.outputs.iter().map(|&v| get(&env, v)).collect()
    }
}

impl PartitionedExecutable {
    /// Whether a written input shares memory with another input or with itself (an expanded
    /// tensor): the functionalized graph assumes it does not.
    fn inputs_alias(&self, inputs: &[Tensor]) -> bool {
        rynamo_tensor::memory_overlap::written_inputs_alias(&self.written, inputs)
    }
}

/// `g` with in-place updates made functional (the inputs written back at the end).
fn functionalized(g: &Graph) -> std::result::Result<Graph, Vec<rynamo_graph::VerifyError>> {
    let mut g = g.clone();
    let mut cx = rynamo_passes::PassCx::default();
    cx.run(&mut g, "functionalize", rynamo_passes::functionalize)?;
    cx.run(
        &mut g,
        "functionalize inputs",
        rynamo_passes::functionalize_inputs,
    )?;
    Ok(g)
}

impl Executable for PartitionedExecutable {
    fn run(&self, inputs: &[Tensor]) -> rynamo_backend::Result<Vec<Tensor>> {
        rynamo_tensor::unwind::catch(
            || format!("the plugin host running `{}`", self.lib.name()),
            || {
                rynamo_tensor::unwind::fault::check("plugin", self.lib.name());
                self.run_all(inputs)
                    .map_err(|e| e.into_backend(self.lib.name()))
            },
        )
    }
}
