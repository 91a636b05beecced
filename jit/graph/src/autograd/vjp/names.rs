//! PyTorch's node class names where one of our ops covers several ATen overloads or composite
//! ops (`sum()` is `SumBackward0`, `sum(dim)` is `SumBackward1`; `pow(x, 2)` is `PowBackward0`,
//! `pow(x, y)` `PowBackward1`, `pow(2, x)` `PowBackward2`; `matmul` names the product it ran).
//! The names were read from PyTorch 2.15 (`tests/python/autograd/semantics.py` pins them).

use crate::{IValue, Op, Value};

fn is_scalar(v: Option<&IValue>) -> bool {
    matches!(v, Some(Value::Scalar(_)))
}

fn is_none(v: Option<&IValue>) -> bool {
    matches!(v, Some(Value::None) | None)
}

fn rank(v: Option<&IValue>) -> usize {
    match v {
        Some(Value::Tensor(t)) => t.ndim(),
        _ => 0,
    }
}

/// The node name for this call of `op`, when it differs from its rule's default.
pub(crate) fn node_name(op: Op, args: &[IValue], default: &'static str) -> &'static str {
    let a = |i: usize| args.get(i);
    match op {
        Op::Sum if is_none(a(1)) => "SumBackward0",
        Op::Mean if is_none(a(1)) => "MeanBackward0",
        Op::Prod if !is_none(a(1)) => "ProdBackward1",
        Op::Pow | Op::Pow_ if is_scalar(a(0)) => "PowBackward2",
        Op::Pow | Op::Pow_ if is_scalar(a(1)) => "PowBackward0",
        Op::Sub if is_scalar(a(0)) => "RsubBackward1",
        Op::Div if !is_none(a(2)) => "DivBackward2",
        Op::Div if is_scalar(a(0)) => "MulBackward0",
        Op::Squeeze if !is_none(a(1)) => "SqueezeBackward1",
        Op::Round if matches!(a(1), Some(Value::Int(d)) if *d != 0) => "RoundBackward1",
        Op::Matmul => match (rank(a(0)), rank(a(1))) {
            (1, 1) => "DotBackward0",
            (2, 1) => "MvBackward0",
            (1, 2) | (2, 2) => "MmBackward0",
            _ => "UnsafeViewBackward0",
        },
        Op::Linear => match (rank(a(0)), is_none(a(2))) {
            (2, false) => "AddmmBackward0",
            (2, true) => "MmBackward0",
            (1, _) => "SqueezeBackward4",
            _ => "UnsafeViewBackward0",
        },
        Op::GetItem => getitem_name(a(1)),
        Op::NllLoss if rank(a(0)) >= 3 => "NllLoss2DBackward0",
        // an unbatched input: PyTorch convolves it unsqueezed, then squeezes the batch dim
        Op::Conv1d | Op::Conv1dPadding if rank(a(0)) == 2 => "SqueezeBackward1",
        Op::Conv2d | Op::Conv2dPadding if rank(a(0)) == 3 => "SqueezeBackward1",
        Op::Pad => pad_name(a(1), a(2)),
        _ => default,
    }
}

/// `F.pad` dispatches on the mode and the number of padded dims (circular padding is written
/// with in-place copies in PyTorch, so its node is `CopySlices`).
fn pad_name(pad: Option<&IValue>, mode: Option<&IValue>) -> &'static str {
    let dims = match pad {
        Some(Value::IntList(p)) => p.len() / 2,
        _ => 0,
    };
    match (mode, dims) {
        (Some(Value::Str(m)), 1) if m == "reflect" => "ReflectionPad1DBackward0",
        (Some(Value::Str(m)), 2) if m == "reflect" => "ReflectionPad2DBackward0",
        (Some(Value::Str(m)), 3) if m == "reflect" => "ReflectionPad3DBackward0",
        (Some(Value::Str(m)), 1) if m == "replicate" => "ReplicationPad1DBackward0",
        (Some(Value::Str(m)), 2) if m == "replicate" => "ReplicationPad2DBackward0",
        (Some(Value::Str(m)), 3) if m == "replicate" => "ReplicationPad3DBackward0",
        (Some(Value::Str(m)), _) if m == "circular" => "CopySlices",
        _ => "ConstantPadNdBackward0",
    }
}

/// `x[...]` is a chain of views in PyTorch unless it holds a tensor: the node is the last view
/// applied (full slices `:` and `...` apply none).
fn getitem_name(index: Option<&IValue>) -> &'static str {
    use rynamo_tensor::IndexItem as I;
    let Some(Value::Index(items)) = index else {
        return "IndexBackward0";
    };
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
