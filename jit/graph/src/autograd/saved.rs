//! Tensors a node keeps for its backward formula (PyTorch's `SavedVariable`).
//!
//! A saved input keeps the tensor itself, history included, so a backward run under
//! `create_graph=True` records against it. A saved output is stored without its `grad_fn` (the
//! node that saves it *is* that `grad_fn`: keeping it would make a cycle); unpacking re-attaches
//! the node. Each records the storage version at save time, and unpacking refuses a tensor an
//! in-place op changed since, with PyTorch's message.

use std::sync::Arc;

use rynamo_tensor::{AutogradMeta, Tensor};

use super::node::Node;
use crate::{Error, Result};

/// One saved tensor.
pub struct SavedTensor {
    data: Tensor,
    version: u64,
    /// `Some(nr)` when it is output `nr` of the node that saves it.
    output_nr: Option<u32>,
}

impl SavedTensor {
    /// Saves an argument of the op being recorded.
    pub fn input(t: &Tensor) -> SavedTensor {
        SavedTensor {
            data: t.clone(),
            version: t.version(),
            output_nr: None,
        }
    }

    /// Saves output `nr` of the op being recorded (without its history, see the module docs).
    pub fn output(t: &Tensor, nr: u32) -> SavedTensor {
        SavedTensor {
            data: t.with_autograd(None),
            version: t.version(),
            output_nr: Some(nr),
        }
    }

    /// The tensor, checked against in-place changes. `node` is the node that saved it: a saved
    /// output comes back as that node's output `nr`, so a recorded backward differentiates
    /// through it.
    pub fn unpack(&self, node: &Arc<Node>) -> Result<Tensor> {
        let now = self.data.version();
        if now != self.version {
            let m = self.data.meta();
            let mut msg = format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: [{} {:?}]",
                type_string(&m.dtype),
                m.shape
            );
            // The node whose output the tensor is: the saver for a saved output, the tensor's
            // current history for a saved input.
            let producer = match self.output_nr {
                Some(nr) => Some((node.name().to_string(), nr)),
                None => {
                    super::node::grad_fn_of(&self.data).map(|(n, nr)| (n.name().to_string(), nr))
                }
            };
            if let Some((name, nr)) = producer {
                msg.push_str(&format!(
                    ", which is output {nr} of {},",
                    super::vjp::names::short_name(&name)
                ));
            }
            msg.push_str(&format!(
                " is at version {now}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                self.version
            ));
            return Err(Error::Tensor(rynamo_tensor::Error::Runtime(msg)));
        }
        Ok(match self.output_nr {
            None => self.data.clone(),
            Some(nr) => {
                let meta = AutogradMeta::new();
                let handle: rynamo_tensor::autograd_meta::GradFn = node.clone();
                meta.update(|s| s.grad_fn = Some((handle, nr)));
                self.data.with_autograd(Some(meta))
            }
        })
    }
}

/// PyTorch's `toString()` of a CPU tensor type in messages: `torch.FloatTensor`.
fn type_string(d: &rynamo_tensor::DType) -> String {
    format!("torch.{}Tensor", d.aten_name())
}

/// The error for a node whose saved tensors were freed by an earlier backward pass.
pub fn backward_twice() -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.".into(),
    ))
}
