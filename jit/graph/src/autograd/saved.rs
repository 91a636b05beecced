//! Tensors a node keeps for its backward formula (PyTorch's `SavedVariable`).
//!
//! A saved input keeps the tensor itself, history included, so a backward run under
//! `create_graph=True` records against it. A saved output is stored without its `grad_fn` (the
//! node that saves it *is* that `grad_fn`: keeping it would make a cycle); unpacking re-attaches
//! the node. Each records the storage version at save time, and unpacking refuses a tensor an
//! in-place op changed since, with PyTorch's message.
//!
//! With saved-tensor hooks active (`torch.autograd.graph.saved_tensors_hooks`), the innermost
//! pair packs the tensor at save time and unpacks it at backward time instead; as in PyTorch,
//! no version check is made then.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

use rynamo_tensor::{AutogradMeta, Tensor};

use super::node::Node;
use crate::{Error, Result};

/// A `(pack_hook, unpack_hook)` pair.
pub trait SavedTensorHooks: Send + Sync {
    /// Called when a tensor is saved; what it returns is kept instead of the tensor.
    fn pack(&self, t: &Tensor) -> Result<Box<dyn Any + Send + Sync>>;
    /// Called when the formula needs the tensor back.
    fn unpack(&self, packed: &(dyn Any + Send + Sync)) -> Result<Tensor>;
}

thread_local! {
    static HOOKS: RefCell<Vec<Arc<dyn SavedTensorHooks>>> = const { RefCell::new(Vec::new()) };
}

/// Enters a `saved_tensors_hooks` block (this thread).
pub fn push_hooks(h: Arc<dyn SavedTensorHooks>) {
    HOOKS.with(|s| s.borrow_mut().push(h));
}

/// Leaves the innermost `saved_tensors_hooks` block.
pub fn pop_hooks() {
    HOOKS.with(|s| {
        s.borrow_mut().pop();
    });
}

fn current_hooks() -> Option<Arc<dyn SavedTensorHooks>> {
    HOOKS.with(|s| s.borrow().last().cloned())
}

enum Stored {
    Plain {
        data: Tensor,
        version: u64,
    },
    Packed {
        hooks: Arc<dyn SavedTensorHooks>,
        packed: Box<dyn Any + Send + Sync>,
    },
}

/// One saved tensor.
pub struct SavedTensor {
    stored: Stored,
    /// `Some(nr)` when it is output `nr` of the node that saves it.
    output_nr: Option<u32>,
}

fn runtime(msg: &str) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg.into()))
}

impl SavedTensor {
    fn new(data: Tensor, output_nr: Option<u32>) -> Result<SavedTensor> {
        let stored = match current_hooks() {
            None => Stored::Plain {
                version: data.version(),
                data,
            },
            Some(hooks) => {
                let before = data.version();
                let packed = hooks.pack(&data)?;
                if data.version() != before {
                    return Err(runtime(
                        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook can not be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.",
                    ));
                }
                Stored::Packed { hooks, packed }
            }
        };
        Ok(SavedTensor { stored, output_nr })
    }

    /// Saves an argument of the op being recorded.
    pub fn input(t: &Tensor) -> Result<SavedTensor> {
        SavedTensor::new(t.clone(), None)
    }

    /// Saves output `nr` of the op being recorded (without its history, see the module docs).
    pub fn output(t: &Tensor, nr: u32) -> Result<SavedTensor> {
        SavedTensor::new(t.with_autograd(None), Some(nr))
    }

    /// The tensor, checked against in-place changes. `node` is the node that saved it: a saved
    /// output comes back as that node's output `nr`, so a recorded backward differentiates
    /// through it.
    pub fn unpack(&self, node: &Arc<Node>) -> Result<Tensor> {
        let data = match &self.stored {
            Stored::Plain { data, version } => {
                self.check_version(data, *version, node)?;
                data.clone()
            }
            Stored::Packed { hooks, packed } => hooks.unpack(&**packed)?,
        };
        Ok(match self.output_nr {
            None => data,
            Some(nr) => {
                let meta = AutogradMeta::new();
                let handle: rynamo_tensor::autograd_meta::GradFn = node.clone();
                meta.update(|s| s.grad_fn = Some((handle, nr)));
                data.with_autograd(Some(meta))
            }
        })
    }

    fn check_version(&self, data: &Tensor, saved: u64, node: &Arc<Node>) -> Result<()> {
        let now = data.version();
        if now == saved {
            return Ok(());
        }
        let m = data.meta();
        let mut msg = format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.{}Tensor {:?}]",
            m.dtype.aten_name(),
            m.shape
        );
        // The node whose output the tensor is: the saver for a saved output, the tensor's
        // current history for a saved input.
        let producer = match self.output_nr {
            Some(nr) => Some((node.name().to_string(), nr)),
            None => super::node::grad_fn_of(data).map(|(n, nr)| (n.name().to_string(), nr)),
        };
        if let Some((name, nr)) = producer {
            msg.push_str(&format!(
                ", which is output {nr} of {},",
                super::vjp::names::short_name(&name)
            ));
        }
        msg.push_str(&format!(
            " is at version {now}; expected version {saved} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        ));
        Err(Error::Tensor(rynamo_tensor::Error::Runtime(msg)))
    }
}

/// The error for a node whose saved tensors were freed by an earlier backward pass.
pub fn backward_twice() -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.".into(),
    ))
}
