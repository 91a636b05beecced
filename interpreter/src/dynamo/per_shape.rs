//! The executable of a graph with dynamic input dimensions: one concrete graph per distinct set
//! of input shapes, re-inferred from the traced graph by the ops' meta rules
//! (`Graph::with_input_metas`) and compiled by the same backend. Dynamo traces and guards once;
//! only the backend sees concrete sizes (what PyTorch's eager backend does, and what lets
//! backends that specialise on sizes serve every size in the guarded range). The JIT's kernel
//! cache is keyed by loop structure, so sizes that differ only in extent reuse the same machine
//! code. Size arguments the trace computed from dynamic sizes (`view(B, T, ...)`, `x[:, :T]`,
//! `arange(T)`) are symbolic (`sym.rs`): each instance evaluates them from its input shapes
//! before the meta rules run. A dynamic int input (a 0-d int64 graph input, `sym::VALUE`) that
//! some symbolic argument reads is part of the shape key: each value gets its own instance.

use std::sync::{Arc, Mutex};

use rynamo_backend::{Executable, Result};
use rynamo_graph::Graph;

use super::sym::{self, Assumption, SymArg};
use rynamo_tensor::{Tensor, TensorMeta};

/// Compiles one concrete graph.
pub type CompileFn = Box<dyn Fn(&Graph) -> Result<Arc<dyn Executable>> + Send + Sync>;

/// How many shape instances are kept (most recently used first).
const KEEP: usize = 16;

/// An executable with the input metas and int input values it was compiled for.
type Instance = (Vec<TensorMeta>, Vec<Option<i64>>, Arc<dyn Executable>);

/// See the module documentation.
pub struct PerShape {
    template: Graph,
    sym_args: Vec<SymArg>,
    assumptions: Vec<Assumption>,
    /// Positions of the dynamic int inputs the symbolic arguments read.
    ints: Vec<usize>,
    compile: CompileFn,
    instances: Mutex<Vec<Instance>>,
}

impl PerShape {
    /// Serves `template` (already compiled as `first` for its own shapes and the int values
    /// `hints` gives by input position) at any input shapes.
    pub fn new(
        template: Graph,
        sym_args: Vec<SymArg>,
        assumptions: Vec<Assumption>,
        hints: &dyn Fn(usize) -> Option<i64>,
        first: Arc<dyn Executable>,
        compile: CompileFn,
    ) -> PerShape {
        let metas = template
            .inputs()
            .iter()
            .map(|v| template.value(*v).meta.clone())
            .collect();
        let mut ints: Vec<usize> = sym_args
            .iter()
            .flat_map(|a| a.expr.dims())
            .filter(|(_, d)| *d == sym::VALUE)
            .map(|(pos, _)| pos)
            .collect();
        ints.sort_unstable();
        ints.dedup();
        let values = ints.iter().map(|p| hints(*p)).collect();
        PerShape {
            template,
            sym_args,
            assumptions,
            ints,
            compile,
            instances: Mutex::new(vec![(metas, values, first)]),
        }
    }

    fn instance(&self, inputs: &[Tensor]) -> Result<Arc<dyn Executable>> {
        let values: Vec<Option<i64>> = self
            .ints
            .iter()
            .map(|p| {
                let t = inputs.get(*p)?;
                match t.item().ok()? {
                    rynamo_tensor::Scalar::Int(i) if t.dtype() == rynamo_tensor::DType::Int64 => {
                        Some(i)
                    }
                    _ => None,
                }
            })
            .collect();
        let same = |metas: &[TensorMeta], vals: &[Option<i64>]| {
            metas.len() == inputs.len()
                && *vals == values
                && metas.iter().zip(inputs).all(|(m, t)| {
                    m.dtype == t.dtype() && m.shape == t.shape() && m.strides == t.strides()
                })
        };
        {
            let mut cached = self.instances.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = cached.iter().position(|(m, v, _)| same(m, v)) {
                let hit = cached.remove(i);
                let exe = hit.2.clone();
                cached.insert(0, hit);
                return Ok(exe);
            }
        }
        let metas: Vec<TensorMeta> = inputs.iter().map(Tensor::meta).collect();
        let graph = if self.sym_args.is_empty() && self.assumptions.is_empty() {
            self.template.with_input_metas(&metas)?
        } else {
            let mut by_pos = vec![None; inputs.len()];
            for (p, v) in self.ints.iter().zip(&values) {
                if let Some(slot) = by_pos.get_mut(*p) {
                    *slot = *v;
                }
            }
            sym::instantiate(
                &self.template,
                &self.sym_args,
                &self.assumptions,
                &metas,
                &by_pos,
            )
            .map_err(rynamo_backend::Error::Inputs)?
        };
        let exe = (self.compile)(&graph)?;
        let mut cached = self.instances.lock().unwrap_or_else(|e| e.into_inner());
        cached.insert(0, (metas, values, exe.clone()));
        cached.truncate(KEEP);
        Ok(exe)
    }
}

impl Executable for PerShape {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.instance(inputs)?.run(inputs)
    }

    fn debug_dump(&self) -> Option<String> {
        let cached = self.instances.lock().unwrap_or_else(|e| e.into_inner());
        cached.first().and_then(|(_, _, e)| e.debug_dump())
    }
}
