//! PyTorch's node class names where one of our ops covers several ATen overloads or composite
//! ops (`sum()` is `SumBackward0`, `sum(dim)` is `SumBackward1`; `pow(x, 2)` is `PowBackward0`,
//! `pow(x, y)` `PowBackward1`, `pow(2, x)` `PowBackward2`; `matmul` names the product it ran).
//! The names were read from PyTorch 2.15 (`tests/python/autograd/semantics.py` pins them).

use rynamo_tensor::{IndexItem, Tensor, TensorOrScalar};

use crate::{IValue, Op};

fn is_scalar(v: TensorOrScalar<&Tensor>) -> bool {
    matches!(v, TensorOrScalar::Scalar(_))
}

/// The node name for this call of `op`, when it differs from its rule's default. The arguments
/// are read through the op's generated `Args`; a call they do not read keeps the default.
pub(crate) fn node_name(op: Op, args: &[IValue], default: &'static str) -> &'static str {
    /// `|a| name` over the `Args` of op module `rules::<path>`.
    macro_rules! on {
        ($($m:ident)::+, |$a:ident| $name:expr) => {
            crate::rules::$($m)::+::Args::read(args)
                .ok()
                .and_then(|$a| -> Option<&'static str> { $name })
        };
    }
    let name = match op {
        Op::Sum => on!(reduce::sum, |a| a.dim.is_none().then_some("SumBackward0")),
        Op::Mean => on!(reduce::mean, |a| a.dim.is_none().then_some("MeanBackward0")),
        Op::Prod => on!(reduce::prod, |a| a.dim.is_some().then_some("ProdBackward1")),
        Op::Pow => on!(binary::pow, |a| if is_scalar(a.self_) {
            Some("PowBackward2")
        } else {
            is_scalar(a.exponent).then_some("PowBackward0")
        }),
        Op::Pow_ => on!(binary::pow_, |a| is_scalar(a.exponent)
            .then_some("PowBackward0")),
        Op::Sub => on!(binary::sub, |a| is_scalar(a.self_)
            .then_some("RsubBackward1")),
        Op::Div => on!(binary::div, |a| if a.rounding_mode.is_some() {
            Some("DivBackward2")
        } else {
            is_scalar(a.self_).then_some("MulBackward0")
        }),
        Op::Squeeze => on!(views::squeeze, |a| a
            .dim
            .is_some()
            .then_some("SqueezeBackward1")),
        Op::Round => on!(unary::round, |a| (a.decimals != 0)
            .then_some("RoundBackward1")),
        Op::Matmul => on!(linalg::matmul, |a| Some(
            match (a.self_.ndim(), a.other.ndim()) {
                (1, 1) => "DotBackward0",
                (2, 1) => "MvBackward0",
                (1, 2) | (2, 2) => "MmBackward0",
                _ => "UnsafeViewBackward0",
            }
        )),
        Op::Linear => on!(linalg::linear, |a| Some(
            match (a.input.ndim(), a.bias.is_none()) {
                (2, false) => "AddmmBackward0",
                (2, true) => "MmBackward0",
                (1, _) => "SqueezeBackward4",
                _ => "UnsafeViewBackward0",
            }
        )),
        Op::GetItem => on!(views::get_item, |a| Some(getitem_name(a.indices))),
        Op::NllLoss => on!(loss::nll_loss, |a| (a.input.ndim() >= 3)
            .then_some("NllLoss2DBackward0")),
        // an unbatched input: PyTorch convolves it unsqueezed, then squeezes the batch dim
        Op::Conv1d => on!(conv::conv1d, |a| (a.input.ndim() == 2)
            .then_some("SqueezeBackward1")),
        Op::Conv1dPadding => on!(conv::conv1d_padding, |a| (a.input.ndim() == 2)
            .then_some("SqueezeBackward1")),
        Op::Conv2d => on!(conv::conv2d, |a| (a.input.ndim() == 3)
            .then_some("SqueezeBackward1")),
        Op::Conv2dPadding => on!(conv::conv2d_padding, |a| (a.input.ndim() == 3)
            .then_some("SqueezeBackward1")),
        Op::Pad => on!(nn::pad, |a| Some(pad_name(a.pad, a.mode))),
        _ => None,
    };
    name.unwrap_or(default)
}

/// `F.pad` dispatches on the mode and the number of padded dims (circular padding is written
/// with in-place copies in PyTorch, so its node is `CopySlices`).
fn pad_name(pad: &[i64], mode: &str) -> &'static str {
    match (mode, pad.len() / 2) {
        ("reflect", 1) => "ReflectionPad1DBackward0",
        ("reflect", 2) => "ReflectionPad2DBackward0",
        ("reflect", 3) => "ReflectionPad3DBackward0",
        ("replicate", 1) => "ReplicationPad1DBackward0",
        ("replicate", 2) => "ReplicationPad2DBackward0",
        ("replicate", 3) => "ReplicationPad3DBackward0",
        ("circular", _) => "CopySlices",
        _ => "ConstantPadNdBackward0",
    }
}

/// `x[...]` is a chain of views in PyTorch unless it holds a tensor: the node is the last view
/// applied (full slices `:` and `...` apply none).
fn getitem_name(items: &[IndexItem<Tensor>]) -> &'static str {
    use rynamo_tensor::IndexItem as I;
    if items.iter().any(|i| matches!(i, I::Tensor(_) | I::Bool(_))) {
        return "IndexBackward0";
    }
    items
        .iter()
        .rev()
        .find_map(|i| match i {
            I::Int(_) => Some("SelectBackward0"),
            I::None => Some("UnsqueezeBackward0"),
            I::Slice {
                start: None,
                stop: None,
                step: None | Some(1),
            }
            | I::Ellipsis => None,
            I::Slice { .. } => Some("SliceBackward0"),
            _ => None,
        })
        .unwrap_or("AliasBackward0")
}

/// The short form PyTorch uses for a node in saved-tensor errors: `ExpBackward0` is `Exp`.
pub(crate) fn short_name(name: &str) -> &str {
    let Some(i) = name.rfind("Backward") else {
        return name;
    };
    if name[i + "Backward".len()..]
        .bytes()
        .all(|b| b.is_ascii_digit())
    {
        &name[..i]
    } else {
        name
    }
}
