//! [`OpDef`]: everything about one op, in one place. The op table (`op.rs`) gives each op its
//! wire id and points at its definition; the definitions live with their family under `rules/`
//! (one `static DEF` per op, usually written with the family's macro).
//!
//! ```text
//!   OpDef
//!     schema      "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor"
//!                 (typed accessors generated from it: `a.negative_slope`, see `op_args!`)
//!     lowering, flags
//!     meta        output metas from argument metas (generic over the tensor stand-in)
//!     eager       the kernel
//!     functional  in-place -> functional twin (`add_` -> `add`)
//!     decompose   optional, written against `Emit` (runs eagerly and as graph nodes)
//!     vjp         the backward formula (`autograd::vjp`)
//!     recorded_as autograd: the decomposition recorded instead of the op (PyTorch's
//!                 CompositeImplicitAutograd: dropout is `x * mask`)
//!     not_differentiable  autograd: outputs never require grad (`zeros_like`, `view(dtype)`)
//!     fill        constant-filled creation ops: the fill value
//!     sample      a representative call
//!     operators   Python operator spellings (`add`, `iadd`, ...), see `operators.rs`
//!     scalar      pointwise ops: the scalar expression the eager kernel runs and backends lower
//! ```

use rynamo_tensor::{Scalar, Tensor, TensorMeta};

use crate::autograd::Eager;
use crate::autograd::vjp::{Composite, VjpRule};
use crate::{Arg, GraphBuilder, IValue, Lowering, MetaValue, Op, OpFlags, Result, ValueId};

/// Python-style positional and keyword arguments of a representative call.
pub type Sample = (Vec<IValue>, Vec<(String, IValue)>);

/// The meta rule, instantiated for metas (tracing) and for real tensors (the debug-build check of
/// every eager result).
#[derive(Clone, Copy)]
pub struct MetaRule {
    /// On metas.
    pub metas: fn(Op, &[MetaValue]) -> Result<Vec<TensorMeta>>,
    /// On real tensors.
    pub tensors: fn(Op, &[IValue]) -> Result<Vec<TensorMeta>>,
}

/// Instantiates a generic meta rule `fn<T: Shaped + Clone>(Op, &[Value<T>])` for both stand-ins.
macro_rules! meta_rule {
    ($f:path) => {
        $crate::def::MetaRule {
            metas: $f,
            tensors: $f,
        }
    };
}
pub(crate) use meta_rule;

/// A decomposition into other ops, written once against [`crate::autograd::Emit`] and instantiated for real tensors
/// (it runs eagerly: tests check it against the op's kernel) and for graph building (the
/// `decompose` pass). It returns `None` where it does not apply (a dtype it does not keep exact,
/// say): the op then stays as it is.
#[derive(Clone, Copy)]
pub struct Decomposition {
    /// On real tensors.
    pub eager: fn(&mut Eager, &[IValue]) -> Result<Option<Tensor>>,
    /// As graph nodes.
    pub graph: fn(&mut GraphBuilder, &[Arg]) -> Result<Option<ValueId>>,
}

/// A constant creation op's fill value from its (graph) arguments.
pub type FillFn = fn(&[Arg]) -> Option<Scalar>;

/// A pointwise op's scalar expression for its (graph) arguments, recorded from the same generic
/// function its eager kernel runs (`rynamo_tensor::expr`); `ENode::Arg(i)` is argument `i`. It
/// applies when the op computes in a floating-point dtype; `None` where these arguments have no
/// float arithmetic (a unary family's predicates).
pub type ScalarExprFn = fn(&[Arg]) -> Result<Option<rynamo_tensor::expr::Expr>>;

/// A binary pointwise op's kernel-level operation and `alpha` for its (graph) arguments: the
/// same mapping its meta rule and eager kernel use, read by backends instead of restating it.
pub type BinaryKindFn = fn(&[Arg]) -> Result<(rynamo_tensor::BinaryOp, Scalar)>;

/// Instantiates a generic decomposition `fn<E: Emit>(&mut E, &[Value<E::T>]) ->
/// Result<Option<E::T>>` for both [`crate::autograd::Emit`] implementations.
macro_rules! decomposition {
    ($f:path) => {
        $crate::def::Decomposition {
            eager: $f,
            graph: $f,
        }
    };
}
pub(crate) use decomposition;

/// One op.
#[derive(Clone, Copy)]
pub struct OpDef {
    /// PyTorch's schema; the Python name is its base name (`max` for `max.dim`).
    pub schema: &'static str,
    /// How backends lower it.
    pub lowering: Lowering,
    /// Surfaces and properties.
    pub flags: OpFlags,
    /// The meta rule.
    pub meta: MetaRule,
    /// The eager kernel (bound arguments, schema order).
    pub eager: fn(Op, &[IValue]) -> Result<Vec<Tensor>>,
    /// For an in-place op: the out-of-place op taking the same arguments.
    pub functional: Option<Op>,
    /// An optional decomposition into other ops.
    pub decompose: Option<Decomposition>,
    /// The backward formula.
    pub vjp: Option<&'static VjpRule>,
    /// With grad mode on and an argument needing grad: the decomposition recorded instead of
    /// the op, each part with its own formula (`autograd::vjp::Composite`).
    pub recorded_as: Option<&'static Composite>,
    /// The outputs never require grad, whatever the inputs (nothing is recorded).
    pub not_differentiable: bool,
    /// For a constant-filled creation op: its fill value (`empty`s report 0: their contents are
    /// unspecified); the fuser inlines it and constant folding evaluates through it.
    pub fill: Option<FillFn>,
    /// A representative call (small deterministic tensors).
    pub sample: fn() -> Sample,
    /// The Python operators that run this op (`operator` module names: `add`, `iadd`, `neg`).
    pub operators: &'static [&'static str],
    /// For a pointwise op computed in its (floating-point) output dtype: its scalar expression,
    /// which backends lower instead of restating the op (integer and bool dtypes keep the
    /// backend's own lowering).
    pub scalar: Option<ScalarExprFn>,
    /// For a binary pointwise op (`add`, `div`, `eq`, ...): its kernel-level operation.
    pub binary: Option<BinaryKindFn>,
    /// What the op does with a complex argument (`rules::complex::check` enforces it).
    pub complex: ComplexSupport,
}

/// Whether an op's kernel and meta rule handle complex dtypes. View ops (`OpFlags::VIEW`) move no
/// data and always do; any other op is refused with PyTorch's error unless its `OpDef` says
/// `.complex()`, so a real kernel never reads complex bytes.
#[derive(Clone, Copy, Debug)]
pub enum ComplexSupport {
    /// The kernel computes complex results, or raises PyTorch's error itself for the cases it has
    /// no complex meaning for (comparisons, `relu`, ...).
    Supported,
    /// [`ComplexSupport::Supported`], and the backward formula is right for complex tensors in
    /// PyTorch's convention (autograd records it with complex arguments or results).
    Differentiable,
    /// Complex arguments are refused with `"<kernel>" not implemented for '<dtype>'`, naming the
    /// ATen kernel PyTorch names (`max()` says `max_all`).
    RefusedKernel(&'static str),
    /// Complex arguments are refused: with PyTorch's message, or by default
    /// `"<name>_cpu" not implemented for 'ComplexFloat'` (as ATen's dispatch macros say).
    Refused(Option<&'static str>),
}

impl ComplexSupport {
    /// Whether complex arguments reach the kernel.
    pub const fn is_supported(self) -> bool {
        matches!(
            self,
            ComplexSupport::Supported | ComplexSupport::Differentiable
        )
    }

    /// Whether autograd may record the op with complex tensors.
    pub const fn is_differentiable(self) -> bool {
        matches!(self, ComplexSupport::Differentiable)
    }

    /// The error for `op` called with complex dtype `d`.
    pub fn error(self, op: Op, d: rynamo_tensor::DType) -> rynamo_tensor::Error {
        match self {
            ComplexSupport::Refused(Some(msg)) => rynamo_tensor::Error::NotImplemented(msg.into()),
            ComplexSupport::RefusedKernel(k) => rynamo_tensor::ops::complex::refuse(k, d),
            _ => rynamo_tensor::ops::complex::refuse(&format!("{}_cpu", op.py_name()), d),
        }
    }
}

impl OpDef {
    /// A definition with the required parts; the optional ones are added with the methods below.
    pub const fn new(
        schema: &'static str,
        lowering: Lowering,
        flags: OpFlags,
        meta: MetaRule,
        eager: fn(Op, &[IValue]) -> Result<Vec<Tensor>>,
    ) -> OpDef {
        OpDef {
            schema,
            lowering,
            flags,
            meta,
            eager,
            functional: None,
            decompose: None,
            vjp: None,
            recorded_as: None,
            not_differentiable: false,
            fill: None,
            sample: crate::samples::x,
            operators: &[],
            scalar: None,
            binary: None,
            complex: ComplexSupport::Refused(None),
        }
    }

    /// Declares that the kernel and meta rule handle complex arguments.
    pub const fn complex(self) -> OpDef {
        OpDef {
            complex: ComplexSupport::Supported,
            ..self
        }
    }

    /// Declares complex support and a backward formula that is right for complex tensors.
    pub const fn complex_grad(self) -> OpDef {
        OpDef {
            complex: ComplexSupport::Differentiable,
            ..self
        }
    }

    /// Refuses complex arguments naming ATen's kernel `k` (`"k" not implemented for 'ComplexFloat'`).
    pub const fn complex_kernel(self, k: &'static str) -> OpDef {
        OpDef {
            complex: ComplexSupport::RefusedKernel(k),
            ..self
        }
    }

    /// Refuses complex arguments with PyTorch's message `msg` (raised as `NotImplementedError`).
    pub const fn complex_error(self, msg: &'static str) -> OpDef {
        OpDef {
            complex: ComplexSupport::Refused(Some(msg)),
            ..self
        }
    }

    /// Links an in-place op to its functional twin.
    pub const fn functional(self, op: Op) -> OpDef {
        OpDef {
            functional: Some(op),
            ..self
        }
    }

    /// Sets the decomposition.
    pub const fn decompose(self, d: Decomposition) -> OpDef {
        OpDef {
            decompose: Some(d),
            ..self
        }
    }

    /// Sets the backward formula.
    pub const fn vjp(self, r: &'static VjpRule) -> OpDef {
        OpDef {
            vjp: Some(r),
            ..self
        }
    }

    /// Sets the decomposition autograd records instead of the op.
    pub const fn recorded_as(self, c: &'static Composite) -> OpDef {
        OpDef {
            recorded_as: Some(c),
            ..self
        }
    }

    /// Marks an op whose outputs never require grad.
    pub const fn not_differentiable(self) -> OpDef {
        OpDef {
            not_differentiable: true,
            ..self
        }
    }

    /// Marks a constant-filled creation op.
    pub const fn fill(self, f: FillFn) -> OpDef {
        OpDef {
            fill: Some(f),
            ..self
        }
    }

    /// Sets the sample call.
    pub const fn sample(self, s: fn() -> Sample) -> OpDef {
        OpDef { sample: s, ..self }
    }

    /// Sets the scalar expression.
    pub const fn scalar(self, f: ScalarExprFn) -> OpDef {
        OpDef {
            scalar: Some(f),
            ..self
        }
    }

    /// Sets the binary kernel-level operation.
    pub const fn binary(self, f: BinaryKindFn) -> OpDef {
        OpDef {
            binary: Some(f),
            ..self
        }
    }

    /// Sets the Python operator spellings.
    pub const fn operators(self, names: &'static [&'static str]) -> OpDef {
        OpDef {
            operators: names,
            ..self
        }
    }
}

/// `OpFlags` from a list of flag names.
macro_rules! flags {
    ($($flag:ident)*) => {
        $crate::OpFlags::NONE $(.union($crate::OpFlags::$flag))*
    };
}
pub(crate) use flags;

/// Declares one op in a module of its own (named after it): its typed arguments `Args` (generated
/// from the schema by `op_args!`) and its `DEF`. The `meta` and `eager` bodies see the op, the
/// typed arguments and optionally the raw bound arguments under the names given; `items` adds
/// helper items to the module (a family's `kind` function, say); `with` chains `OpDef` builder
/// calls for the optional parts.
///
/// ```text
/// op! {
///     leaky_relu = "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
///         Pointwise, [NN_FUNCTIONAL];
///     meta(_, a) { ... a.negative_slope ... }
///     eager(_, a) { ... }
///     with .vjp(&LEAKY).sample(...)
/// }
/// ```
macro_rules! op {
    (
        $name:ident = $schema:literal, $low:ident, [$($flag:ident)*];
        $(items { $($item:item)* })?
        meta($mop:pat, $ma:pat $(, $mraw:ident)?) $meta:block
        eager($eop:pat, $ea:pat $(, $eraw:ident)?) $eager:block
        $(with $($with:tt)*)?
    ) => {
        #[allow(unused_imports, reason = "each op module sees its family's imports")]
        pub(crate) mod $name {
            use super::*;
            rynamo_graph_macros::op_args!(Args, $schema);

            $($($item)*)?

            fn meta<T: rynamo_tensor::Shaped + Clone>(
                op: $crate::Op,
                args: &[$crate::Value<T>],
            ) -> $crate::Result<Vec<rynamo_tensor::TensorMeta>> {
                let $mop = op;
                $(let $mraw = args;)?
                let $ma = Args::read(args)?;
                $meta
            }

            fn eager(
                op: $crate::Op,
                args: &[$crate::IValue],
            ) -> $crate::Result<Vec<rynamo_tensor::Tensor>> {
                let $eop = op;
                $(let $eraw = args;)?
                let $ea = Args::read(args)?;
                $eager
            }

            /// The op's definition.
            pub(crate) static DEF: $crate::def::OpDef = $crate::def::OpDef::new(
                $schema,
                $crate::Lowering::$low,
                $crate::def::flags!($($flag)*),
                $crate::def::meta_rule!(meta),
                eager,
            ) $($($with)*)?;
        }
    };
}
pub(crate) use op;
