//! The guard that the computed sizes a trace used as constants still hold at a call's input
//! shapes.
//!
//! Under dynamic input dimensions, a computed tensor's size that traced Python read as a constant
//! (`y = x[:, :20]` then `y.shape[1]`, or `view` arguments built from it) is recorded as an
//! assumption (`sym::Assumption`): traced at 30 columns it is 20, at 10 columns it would be 10.
//! Each call's input shapes are run through the ops' meta rules (`sym::instantiate`); where an
//! assumption no longer holds, this guard fails and the frame recompiles, as a failed shape guard
//! makes PyTorch recompile. The graph never runs with a constant its inputs contradict. Input
//! shapes that passed are remembered, so a steady call costs one comparison per input.

use std::cell::RefCell;
use std::fmt;

use rustpython_vm::{PyObject, VirtualMachine};
use rynamo_graph::Graph;
use rynamo_tensor::TensorMeta;

use super::bridge;
use super::sym::{self, Assumption, SymArg};

/// How many accepted input-shape sets are remembered (most recent first).
const KEEP: usize = 16;

/// What a call's input contributes to the check: a tensor's shape, or a dynamic int's value.
#[derive(Clone, PartialEq, Eq)]
enum Key {
    Shape(Vec<usize>),
    Int(i64),
}

/// See the module documentation.
pub struct ShapeCheck {
    template: Graph,
    sym_args: Vec<SymArg>,
    assumptions: Vec<Assumption>,
    accepted: RefCell<Vec<Vec<Key>>>,
}

impl fmt::Debug for ShapeCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShapeCheck")
            .field("assumptions", &self.codes())
            .finish()
    }
}

impl ShapeCheck {
    /// The check for `template` (traced at its inputs' shapes, which pass), or `None` when the
    /// trace assumed no computed size.
    pub fn new(
        template: &Graph,
        sym_args: &[SymArg],
        assumptions: &[Assumption],
    ) -> Option<ShapeCheck> {
        if assumptions.is_empty() {
            return None;
        }
        Some(ShapeCheck {
            template: template.clone(),
            sym_args: sym_args.to_vec(),
            assumptions: assumptions.to_vec(),
            accepted: RefCell::new(Vec::new()),
        })
    }

    /// Each assumption as guard code: the value's name and dimension, and the constant.
    pub fn codes(&self) -> Vec<String> {
        self.assumptions
            .iter()
            .map(|a| format!("%{}.size()[{}] == {}", a.value, a.dim, a.size))
            .collect()
    }

    /// Whether the graph's assumptions hold for the inputs `values` (by graph input position;
    /// `None` for one that could not be read). The error says which no longer holds.
    pub fn holds(&self, values: &[Option<&PyObject>], vm: &VirtualMachine) -> Result<(), String> {
        let inputs = self.template.inputs();
        let mut keys = Vec::with_capacity(inputs.len());
        let mut metas: Vec<TensorMeta> = Vec::with_capacity(inputs.len());
        let mut ints = vec![None; inputs.len()];
        for (pos, v) in inputs.iter().enumerate() {
            let traced = &self.template.value(*v).meta;
            let obj = values.get(pos).copied().flatten();
            match obj.and_then(bridge::tensor_meta) {
                Some((m, _)) => {
                    keys.push(Key::Shape(m.shape.clone()));
                    metas.push(m);
                }
                None => {
                    // A dynamic int input: a 0-d int64 graph input read as its value.
                    let i = obj
                        .and_then(|o| o.try_to_value::<i64>(vm).ok())
                        .ok_or_else(|| format!("graph input {pos} could not be read"))?;
                    keys.push(Key::Int(i));
                    ints[pos] = Some(i);
                    metas.push(traced.clone());
                }
            }
        }
        let mut accepted = self.accepted.borrow_mut();
        if let Some(i) = accepted.iter().position(|k| *k == keys) {
            let hit = accepted.remove(i);
            accepted.insert(0, hit);
            return Ok(());
        }
        sym::instantiate(
            &self.template,
            &self.sym_args,
            &self.assumptions,
            &metas,
            &ints,
        )?;
        accepted.insert(0, keys);
        accepted.truncate(KEEP);
        Ok(())
    }
}
