//! Backward formulas (vector-Jacobian products), one [`VjpRule`] per differentiable op.
//!
//! A rule is written once, generically over [`Emit`], and instantiated twice by [`vjp_rule!`]:
//! for eager backward (real tensors) and for graph building (AOTAutograd). It receives a
//! [`VjpCtx`] (the forward call's non-tensor arguments, the tensors it saved, the output
//! gradients) and returns one gradient per tensor argument slot. It may return gradients in the
//! broadcast (output) shape and in a wider dtype: the engine sums them to the argument's shape
//! and casts them to its dtype, as PyTorch's `validate_outputs` does.
//!
//! A rule declares what it saves ([`Saves`]): the node keeps only those tensors alive, and
//! AOTAutograd's partitioner sees the same dependency set.

pub(crate) mod batch_norm;
pub(crate) mod complex;
pub(crate) mod conv;
pub(crate) mod einsum;
pub(crate) mod fft;
pub(crate) mod indexing;
pub(crate) mod inplace;
pub(crate) mod linalg;
pub(crate) mod linalg_decomp;
pub(crate) mod loss;
pub(crate) mod names;
pub(crate) mod nn;
pub(crate) mod order;
pub(crate) mod pointwise;
pub(crate) mod pointwise_binary;
pub(crate) mod rearrange;
pub(crate) mod reduce;
pub(crate) mod special;
pub(crate) mod upsample;
pub(crate) mod views;

use rynamo_tensor::{Tensor, TensorMeta, TensorOrScalar};

use super::emit::{Eager, Emit};
use crate::{Error, GraphBuilder, Op, Result, Value};

/// Which forward tensors a rule reads: tensor arguments by schema parameter name (a rule serving
/// several ops names each op's parameter), and whether it reads the outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saves {
    /// The tensor arguments saved whenever an argument needs grad.
    pub args: &'static [&'static str],
    /// The tensor arguments read only by the gradients of the *other* arguments (`a` in `a * b`
    /// serves `b`'s gradient): saved only when another argument needs grad, as PyTorch's
    /// generated nodes do.
    pub cross: &'static [&'static str],
    /// The saved outputs: bit `j` for output `j` (PyTorch's `native_batch_norm` saves its
    /// statistics, outputs 1 and 2, not the normalised output 0).
    pub outputs: u32,
}

impl Saves {
    /// Nothing saved (metas only).
    pub const NONE: Saves = Saves {
        args: &[],
        cross: &[],
        outputs: 0,
    };
    /// The outputs only.
    pub const OUTPUT: Saves = Saves {
        args: &[],
        cross: &[],
        outputs: u32::MAX,
    };

    /// These arguments, each saved only when another argument needs grad.
    pub const fn cross(names: &'static [&'static str]) -> Saves {
        Saves {
            args: &[],
            cross: names,
            outputs: 0,
        }
    }

    /// Adds arguments saved whenever any argument needs grad (to a [`Saves::cross`]).
    pub const fn and(self, names: &'static [&'static str]) -> Saves {
        assert!(self.args.is_empty(), "`and` extends a `Saves::cross`");
        Saves {
            args: names,
            cross: self.cross,
            outputs: self.outputs,
        }
    }

    /// These arguments.
    pub const fn args(names: &'static [&'static str]) -> Saves {
        Saves {
            args: names,
            cross: &[],
            outputs: 0,
        }
    }

    /// These arguments and the outputs.
    pub const fn args_and_output(names: &'static [&'static str]) -> Saves {
        Saves {
            args: names,
            cross: &[],
            outputs: u32::MAX,
        }
    }

    /// These arguments and these outputs (by index).
    pub const fn args_and_outputs(names: &'static [&'static str], outputs: &[u32]) -> Saves {
        let mut mask = 0u32;
        let mut i = 0;
        while i < outputs.len() {
            mask |= 1 << outputs[i];
            i += 1;
        }
        Saves {
            args: names,
            cross: &[],
            outputs: mask,
        }
    }

    /// Whether output `j` is saved (`u32::MAX`: every output, however many).
    pub fn output(self, j: usize) -> bool {
        self.outputs == u32::MAX || (j < 32 && self.outputs & (1 << j) != 0)
    }

    /// Whether `op`'s argument `i` (schema order) is saved.
    pub fn arg(self, op: Op, i: usize) -> bool {
        Self::names(op, i, self.args) || Self::names(op, i, self.cross)
    }

    /// Whether `op`'s argument `i` is saved only for the other arguments' gradients.
    pub fn is_cross(self, op: Op, i: usize) -> bool {
        Self::names(op, i, self.cross)
    }

    /// Whether `names` holds the name of `op`'s parameter `i`.
    fn names(op: Op, i: usize, names: &[&str]) -> bool {
        op.schema()
            .params
            .get(i)
            .is_some_and(|p| names.contains(&p.name.as_str()))
    }

    /// The names that `op`'s schema does not have (a rule's declaration checked against each op
    /// it serves).
    pub fn unknown_names(self, op: Op) -> Vec<&'static str> {
        let params = &op.schema().params;
        self.args
            .iter()
            .chain(self.cross)
            .copied()
            .filter(|n| !params.iter().any(|p| p.name == *n))
            .collect()
    }
}

/// What a backward formula sees of its forward call.
pub struct VjpCtx<'a, T> {
    /// The forward op.
    pub op: Op,
    /// The bound arguments with each tensor replaced by its slot number (tensor lists hold one
    /// slot per tensor; slots count the call's tensors in argument order).
    pub args: &'a [Value<usize>],
    /// Per slot: the saved tensor, `None` where the rule did not save it.
    pub inputs: &'a [Option<T>],
    /// Per slot: dtype and shape of the argument.
    pub input_metas: &'a [TensorMeta],
    /// Per output: the saved tensor, `None` where the rule does not save it.
    pub outputs: &'a [Option<T>],
    /// Metas of the outputs.
    pub output_metas: &'a [TensorMeta],
    /// The gradient of each output; `None` for an output no gradient reached (zero).
    pub grads: &'a [Option<T>],
    /// Per slot: whether a gradient is wanted (the argument needs grad).
    pub needs: &'a [bool],
}

impl<'a, T: Clone> VjpCtx<'a, T> {
    /// The saved tensor of tensor argument `x` (a field of the op's [`args!`]).
    pub fn saved<'s>(&self, x: impl ArgSlot<'s>) -> Result<T> {
        x.slot()
            .and_then(|s| self.inputs.get(*s).cloned().flatten())
            .ok_or_else(|| {
                Error::Graph(format!(
                    "internal: the backward of `{}` reads a tensor it does not save",
                    self.op
                ))
            })
    }

    /// The saved tensor of optional tensor argument `x`, `None` where it was not given.
    pub fn saved_opt(&self, x: Option<&usize>) -> Result<Option<T>> {
        x.map(|s| self.saved(s)).transpose()
    }

    /// The meta of tensor argument `x`.
    pub fn meta<'s>(&self, x: impl ArgSlot<'s>) -> Result<&'a TensorMeta> {
        x.slot()
            .and_then(|s| self.input_metas.get(*s))
            .ok_or_else(|| Error::Graph(format!("internal: `{}` has no such tensor", self.op)))
    }

    /// Whether the tensor argument `x` wants a gradient (an absent optional tensor or a number
    /// does not).
    pub fn wants<'s>(&self, x: impl ArgSlot<'s>) -> bool {
        x.slot().is_some_and(|s| self.needs.get(*s) == Some(&true))
    }

    /// A `Tensor|Scalar` argument as an operand: its saved tensor, or the number.
    pub fn operand(&self, x: TensorOrScalar<&usize>) -> Result<Value<T>> {
        Ok(match x {
            TensorOrScalar::Tensor(s) => Value::Tensor(self.saved(s)?),
            TensorOrScalar::Scalar(n) => Value::Scalar(n),
        })
    }

    /// Saved output `i`.
    pub fn output(&self, i: usize) -> Result<T> {
        self.outputs.get(i).cloned().flatten().ok_or_else(|| {
            Error::Graph(format!(
                "internal: the backward of `{}` reads output {i}, which it does not save",
                self.op
            ))
        })
    }

    /// The gradient of output `i` (`None`: zero).
    pub fn grad(&self, i: usize) -> Option<T> {
        self.grads.get(i).cloned().flatten()
    }

    /// An all-`None` gradient list (one per slot) to fill in.
    pub fn no_grads(&self) -> Vec<Option<T>> {
        vec![None; self.input_metas.len()]
    }
}

/// A tensor argument as an op's `Args` reads it over [`VjpCtx::args`]: its slot (`Tensor`), maybe
/// absent (`Tensor?`), or maybe a number (`Tensor|Scalar`).
pub trait ArgSlot<'s> {
    /// The slot, where the argument is a tensor.
    fn slot(self) -> Option<&'s usize>;
}

impl<'s> ArgSlot<'s> for &'s usize {
    fn slot(self) -> Option<&'s usize> {
        Some(self)
    }
}

impl<'s> ArgSlot<'s> for Option<&'s usize> {
    fn slot(self) -> Option<&'s usize> {
        self
    }
}

impl<'s> ArgSlot<'s> for TensorOrScalar<&'s usize> {
    fn slot(self) -> Option<&'s usize> {
        self.tensor()
    }
}

/// The gradient of tensor argument `x` set to `g` in `out` (after `c.wants(x)`).
pub fn put<'s, T>(out: &mut [Option<T>], x: impl ArgSlot<'s>, g: T) -> Result<()> {
    let n = out.len();
    let o = x.slot().and_then(|s| out.get_mut(*s)).ok_or_else(|| {
        Error::Graph(format!(
            "internal: a gradient for an absent tensor (of {n})"
        ))
    })?;
    *o = Some(g);
    Ok(())
}

/// The error of a formula run for an op it does not serve (the [`args!`] fallback).
pub(crate) fn not_served(op: Op) -> Error {
    Error::Graph(format!(
        "internal: this backward formula does not serve `{op}`"
    ))
}

/// The forward call's arguments, typed and named by the op's own schema: the `Args` that
/// `op_args!` generated in the op's module (`rules::<family>::<op>`), read over
/// [`VjpCtx::args`], so a tensor field holds its slot (`c.saved(a.self_)`, `c.wants(a.weight)`,
/// `put(&mut out, a.self_, g)`). Formulas never read an argument by position: a schema change
/// moves the field with its name (the tidy test `vjp_formulas_read_no_argument_by_position`).
///
/// `args!(c, Sum => reduce::sum)` reads one op's `Args`. A formula serving several ops reads
/// each op's own and maps it to what the formula uses:
/// `args!(c, |a| (a.self_, a.dim), Sum => reduce::sum, Mean => reduce::mean)`.
/// Any other op is an internal error, never a misread.
macro_rules! args {
    ($c:expr, $op:ident => $($m:ident)::+) => {
        $crate::autograd::vjp::args!($c, |a| a, $op => $($m)::+)
    };
    ($c:expr, |$a:ident| $body:expr, $($op:ident => $($m:ident)::+),+ $(,)?) => {
        match $c.op {
            $($crate::Op::$op => {
                let $a = $crate::rules::$($m)::+::Args::read($c.args)?;
                $body
            })+
            other => return Err($crate::autograd::vjp::not_served(other)),
        }
    };
}
pub(crate) use args;

/// A backward formula instantiated for one [`Emit`] implementation.
pub type VjpFn<E> = fn(&mut E, &VjpCtx<'_, <E as Emit>::T>) -> Grads<E>;

/// A backward formula instantiated for eager tensors and for graph building.
pub struct VjpRule {
    /// PyTorch's name of the node class (`MulBackward0`).
    pub name: &'static str,
    /// What the formula reads.
    pub saves: Saves,
    /// The formula on real tensors.
    pub eager: VjpFn<Eager>,
    /// The formula as graph nodes.
    pub graph: VjpFn<GraphBuilder>,
    /// The outputs that get history: bit `j` for output `j` (`native_batch_norm`'s saved
    /// statistics, outputs 1 and 2, never require grad, as PyTorch's).
    pub differentiable_outputs: u32,
}

impl VjpRule {
    /// Whether output `j` gets history (when floating-point or complex). `u32::MAX`, the
    /// default, covers every output: `split` and `unbind` return more than 32.
    pub fn differentiable_output(&self, j: usize) -> bool {
        self.differentiable_outputs == u32::MAX
            || (j < 32 && self.differentiable_outputs & (1 << j) != 0)
    }
}

impl std::fmt::Debug for VjpRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VjpRule({})", self.name)
    }
}

/// Declares a [`VjpRule`] from a generic formula `fn f<E: Emit>(e: &mut E, c: &VjpCtx<E::T>)`.
macro_rules! vjp_rule {
    ($name:literal, $saves:expr, $f:path) => {
        $crate::autograd::vjp::vjp_rule!($name, $saves, $f, differentiable_outputs = u32::MAX)
    };
    ($name:literal, $saves:expr, $f:path, differentiable_outputs = $mask:expr) => {
        $crate::autograd::vjp::VjpRule {
            name: $name,
            saves: $saves,
            eager: $f,
            graph: $f,
            differentiable_outputs: $mask,
        }
    };
}
pub(crate) use vjp_rule;

/// The formula of `op` (its [`crate::def::OpDef`]'s `vjp` slot; an in-place op uses its functional
/// twin's); `None` for ops without one (non-differentiable, or not written yet: recording such an
/// op when an input needs grad makes a node whose backward raises PyTorch's "not implemented"
/// error).
pub fn rule(op: Op) -> Option<&'static VjpRule> {
    if let Some(twin) = op.functional_twin() {
        return rule(twin);
    }
    op.def().vjp
}

/// A decomposition applied when `op` is recorded (PyTorch's `CompositeImplicitAutograd`): with
/// grad mode on and an argument needing grad, the op runs as these registry ops instead, each
/// recorded with its own formula (`dropout` is `x * mask` so the mask is saved, not redrawn;
/// `cross_entropy` is `log_softmax` + `nll_loss`). Without autograd the op's own fused kernel
/// runs. Written once over [`Emit`], like the formulas.
pub struct Composite {
    /// The decomposition on real tensors.
    pub eager: CompositeFn<Eager>,
    /// The decomposition as graph nodes.
    pub graph: CompositeFn<GraphBuilder>,
}

/// A decomposition for one [`Emit`]: the op's outputs from its bound arguments, or `None` when
/// this call needs none (the op is recorded with its own formula).
pub type CompositeFn<E> =
    fn(&mut E, &[Value<<E as Emit>::T>]) -> Result<Option<Vec<<E as Emit>::T>>>;

impl std::fmt::Debug for Composite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Composite")
    }
}

/// Declares a [`Composite`] from a generic `fn f<E: Emit>(e: &mut E, args: &[Value<E::T>])`.
macro_rules! composite_rule {
    ($f:path) => {
        $crate::autograd::vjp::Composite {
            eager: $f,
            graph: $f,
        }
    };
}
pub(crate) use composite_rule;

/// Whether `op`'s outputs never require grad whatever its inputs (its `OpDef` says so: the
/// `*_like` / `new_*` creation ops read only their input's metadata; `view(dtype)` reinterprets
/// bits, which PyTorch declares not differentiable): nothing is recorded for them.
pub fn non_differentiable(op: Op) -> bool {
    op.def().not_differentiable
}

/// The decomposition autograd records `op` as, if any (its `OpDef`'s `recorded_as`).
pub fn composite(op: Op) -> Option<&'static Composite> {
    op.def().recorded_as
}

/// Runs the eager instantiation of `r`.
pub(crate) fn run_eager(r: &VjpRule, c: &VjpCtx<'_, Tensor>) -> Result<Vec<Option<Tensor>>> {
    (r.eager)(&mut Eager, c)
}

/// What a formula returns: one gradient per tensor slot.
pub type Grads<E> = Result<Vec<Option<<E as Emit>::T>>>;
