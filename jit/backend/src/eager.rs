//! The eager graph interpreter: runs each node through the registry's eager kernel.

use std::sync::Arc;

use rynamo_graph::{Graph, IValue, registry, verify};
use rynamo_tensor::Tensor;

use crate::{Backend, Error, Executable, Result, Support};

/// The `"eager"` backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct EagerBackend;

impl Backend for EagerBackend {
    fn name(&self) -> &str {
        "eager"
    }

    fn supports(&self, _graph: &Graph) -> Support {
        Support::Full
    }

    fn compile(&self, graph: &Graph) -> Result<Arc<dyn Executable>> {
        verify(graph).map_err(|errs| {
            Error::InvalidGraph(
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        Ok(Arc::new(EagerExecutable {
            graph: Arc::new(graph.clone()),
            autograd: None,
        }))
    }
}

/// A graph ready to interpret.
#[derive(Debug)]
pub struct EagerExecutable {
    graph: Arc<Graph>,
    /// `Some`: every node goes through the whole dispatch stack, so outputs get autograd history
    /// as eager code would; the flags say which nodes were traced under `no_grad` (run with
    /// grad mode off). `None`: nodes call their kernels directly.
    autograd: Option<Vec<bool>>,
}

impl EagerExecutable {
    /// An interpreter that records autograd history (see the `autograd` field): what a compiled
    /// region whose inputs require grad runs until it has a compiled backward.
    pub fn recording(graph: &Graph, no_grad_nodes: Vec<bool>) -> Result<Arc<dyn Executable>> {
        verify(graph).map_err(|errs| {
            Error::InvalidGraph(
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        Ok(Arc::new(EagerExecutable {
            graph: Arc::new(graph.clone()),
            autograd: Some(no_grad_nodes),
        }))
    }

    /// The interpreted graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
}

impl Executable for EagerExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let g = &*self.graph;
        if inputs.len() != g.inputs().len() {
            return Err(Error::Inputs(format!(
                "graph takes {} inputs, got {}",
                g.inputs().len(),
                inputs.len()
            )));
        }
        let mut env: Vec<Option<Tensor>> = vec![None; g.values().len()];
        for (k, (&v, t)) in g.inputs().iter().zip(inputs).enumerate() {
            let m = &g.value(v).meta;
            if t.dtype() != m.dtype || t.shape() != m.shape.as_slice() {
                return Err(Error::Inputs(format!(
                    "input {k} (%{}): expected {}{:?}, got {}{:?}",
                    g.value(v).name,
                    m.dtype.name(),
                    m.shape,
                    t.dtype().name(),
                    t.shape()
                )));
            }
            env[v.0 as usize] = Some(t.clone());
        }
        let missing = |v: &rynamo_graph::ValueId| {
            Error::InvalidGraph(format!("value {v} used before it was computed"))
        };
        for (i, n) in g.nodes().iter().enumerate() {
            let args: Vec<IValue> = n
                .args
                .iter()
                .map(|a| a.try_map(|v| env[v.0 as usize].clone().ok_or_else(|| missing(v))))
                .collect::<Result<_>>()?;
            let outs = match &self.autograd {
                None => registry::call_uncounted(n.op, &args)?,
                Some(no_grad) => {
                    // The mode each node was traced under (the guards pin the mode at entry,
                    // and in-region switches are part of the trace), not the mode at the call.
                    let on = !no_grad.get(i).copied().unwrap_or(false);
                    let _mode = rynamo_graph::autograd::GradModeGuard::new(on);
                    registry::dispatch(n.op, &args)?
                }
            };
            if outs.len() != n.outputs.len() {
                return Err(Error::InvalidGraph(format!(
                    "`{}` produced {} outputs, the node has {}",
                    n.op,
                    outs.len(),
                    n.outputs.len()
                )));
            }
            for (&o, t) in n.outputs.iter().zip(outs) {
                env[o.0 as usize] = Some(t);
            }
        }
        registry::counters::add_in_graph(g.nodes().len() as u64);
        g.outputs()
            .iter()
            .map(|v| env[v.0 as usize].clone().ok_or_else(|| missing(v)))
            .collect()
    }
}
