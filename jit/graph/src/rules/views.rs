//! View ops, `contiguous`/`clone`, dtype conversion and `__getitem__`. A pure view's meta is the
//! layout `rynamo_tensor::views` computes; its kernel is the `Tensor` method of the same name.

use rynamo_tensor::ops::index;
use rynamo_tensor::{DType, IndexItem, Layout, Shaped, Tensor, TensorMeta, views};

use super::{meta_of, preserving};
use crate::autograd::vjp::rearrange as vjp_rearrange;
use crate::autograd::vjp::views as vjp;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t};
use crate::{Result, Value};

/// A pure view: `|a| layout` (from `rynamo_tensor::views`) for the meta, `|a| tensor` for the
/// kernel, both on the typed arguments `a`.
macro_rules! view {
    ($name:ident = $schema:literal, [$($flag:ident)*], |$m:ident| $layout:expr, |$e:ident| $kernel:expr
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, View, [$($flag)*];
            meta(_, $m) {
                let l: Layout = $layout;
                Ok(vec![TensorMeta::from_layout($m.self_.dtype(), &l)])
            }
            eager(_, $e) { Ok(vec![$kernel]) }
            $(with $($with)*)?
        }
    };
}

fn x_with(rest: Vec<Value<Tensor>>) -> Sample {
    let mut args = vec![t(fx::x())];
    args.extend(rest);
    pos_args(args)
}

/// `x.t()`: a transposed (non-contiguous) input.
fn transposed() -> Sample {
    pos_args(vec![t(fx::x()
        .t()
        .expect("invariant: sample tensors have valid shapes"))])
}

view!(view = "view(Tensor self, int[] size) -> Tensor", [METHOD VIEW],
    |a| views::view(a.self_, a.size)?, |a| a.self_.view(a.size)?,
    with .vjp(&vjp::VIEW).sample(|| x_with(vec![Value::Int(3), Value::Int(-1)])));
view!(permute = "permute(Tensor self, int[] dims) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::permute(a.self_, a.dims)?, |a| a.self_.permute(a.dims)?,
    with .vjp(&vjp::PERMUTE).sample(|| x_with(vec![Value::Int(1), Value::Int(0)])));
view!(transpose = "transpose(Tensor self, int dim0, int dim1) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::transpose(a.self_, a.dim0, a.dim1)?, |a| a.self_.transpose(a.dim0, a.dim1)?,
    with .vjp(&vjp::TRANSPOSE).sample(|| x_with(vec![Value::Int(0), Value::Int(-1)])));
view!(t = "t(Tensor self) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::t(a.self_)?, |a| a.self_.t()?, with .vjp(&vjp::T_));
view!(expand = "expand(Tensor self, int[] size) -> Tensor", [METHOD VIEW],
    |a| views::expand(a.self_, a.size)?, |a| a.self_.expand(a.size)?,
    with .vjp(&vjp::EXPAND)
        .sample(|| pos_args(vec![t(fx::y()), Value::Int(4), Value::Int(-1)])));
view!(
    slice = "slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor",
    [VIEW],
    |a| views::slice(a.self_, a.dim, a.start, a.end, a.step)?,
    |a| a.self_.slice(a.dim, a.start, a.end, a.step)?,
    with.vjp(&vjp::SLICE).sample(|| x_with(vec![
        Value::Int(1),
        Value::Int(1),
        Value::None,
        Value::Int(1)
    ]))
);
view!(select = "select(Tensor self, int dim, int index) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::select(a.self_, a.dim, a.index)?, |a| a.self_.select(a.dim, a.index)?,
    with .vjp(&vjp::SELECT).sample(|| x_with(vec![Value::Int(1), Value::Int(-1)])));
view!(narrow = "narrow(Tensor self, int dim, int start, int length) -> Tensor",
    [FUNCTION METHOD VIEW],
    |a| views::narrow(a.self_, a.dim, a.start, a.length)?,
    |a| a.self_.narrow(a.dim, a.start, a.length)?,
    with .vjp(&vjp::NARROW)
        .sample(|| x_with(vec![Value::Int(1), Value::Int(1), Value::Int(2)])));
view!(unsqueeze = "unsqueeze(Tensor self, int dim) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::unsqueeze(a.self_, a.dim)?, |a| a.self_.unsqueeze(a.dim)?,
    with .vjp(&vjp::UNSQUEEZE).sample(|| x_with(vec![Value::Int(-1)])));
view!(squeeze = "squeeze(Tensor self, int[]? dim=None) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::squeeze(a.self_, a.dim)?, |a| a.self_.squeeze(a.dim)?,
    with .vjp(&vjp::SQUEEZE).sample(|| pos_args(vec![t(f32s(&[1, 3, 1]))])));
view!(unflatten = "unflatten(Tensor self, int dim, int[] sizes) -> Tensor", [FUNCTION METHOD VIEW],
    |a| views::unflatten(a.self_, a.dim, a.sizes)?, |a| a.self_.unflatten(a.dim, a.sizes)?,
    with .vjp(&vjp::UNSAFE_VIEW)
        .sample(|| x_with(vec![Value::Int(1), Value::IntList(vec![3, 1])])));
view!(diagonal = "diagonal(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    [FUNCTION METHOD VIEW],
    |a| views::diagonal(a.self_, a.offset, a.dim1, a.dim2)?,
    |a| a.self_.diagonal(a.offset, a.dim1, a.dim2)?,
    with .vjp(&vjp_rearrange::DIAGONAL).sample(|| x_with(vec![Value::Int(1)])));
view!(as_strided =
    "as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) -> Tensor",
    [FUNCTION METHOD VIEW],
    |a| views::as_strided(a.self_, a.size, a.stride, a.storage_offset, None)?,
    |a| a.self_.as_strided(a.size, a.stride, a.storage_offset)?,
    with .vjp(&vjp_rearrange::AS_STRIDED).sample(|| x_with(vec![Value::IntList(vec![2, 2]), Value::IntList(vec![1, 2])])));

/// `reshape`'s meta: a view where the strides allow one, else a contiguous copy.
fn reshape_meta<T: Shaped>(x: &T, shape: &[i64]) -> Result<TensorMeta> {
    Ok(match views::reshape(x, shape)? {
        Some(l) => TensorMeta::from_layout(x.dtype(), &l),
        None => TensorMeta::contiguous(x.dtype(), &views::reshape_shape(x, shape)?),
    })
}

op! {
    reshape = "reshape(Tensor self, int[] shape) -> Tensor", View, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![reshape_meta(a.self_, a.shape)?]) }
    eager(_, a) { Ok(vec![a.self_.reshape(a.shape)?]) }
    with .complex_grad().vjp(&vjp::RESHAPE).sample(|| x_with(vec![Value::Int(3), Value::Int(-1)]))
}

op! {
    flatten = "flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor", View,
        [FUNCTION METHOD];
    meta(_, a) {
        let x = a.self_;
        let shape = views::flatten_shape(x, a.start_dim, a.end_dim)?;
        Ok(vec![if shape.len() == x.ndim() && x.ndim() > 0 {
            meta_of(x)
        } else {
            reshape_meta(x, &shape)?
        }])
    }
    eager(_, a) { Ok(vec![a.self_.flatten(a.start_dim, a.end_dim)?]) }
    with .complex_grad().vjp(&vjp::UNSAFE_VIEW).sample(transposed)
}

op! {
    contiguous = "contiguous(Tensor self) -> Tensor", Pointwise, [METHOD];
    meta(_, a) {
        let x = a.self_;
        Ok(vec![if rynamo_tensor::layout::is_contiguous(x.shape(), x.strides()) {
            meta_of(x)
        } else {
            TensorMeta::contiguous(x.dtype(), x.shape())
        }])
    }
    eager(_, a) { Ok(vec![a.self_.contiguous()]) }
    with .complex_grad().vjp(&vjp::CLONE).sample(transposed)
}

op! {
    clone = "clone(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![preserving(a.self_, a.self_.dtype())]) }
    eager(_, a) { Ok(vec![a.self_.clone_preserving()]) }
    with .complex_grad().vjp(&vjp::CLONE)
}

op! {
    get_item = "__getitem__(Tensor self, Index[] indices) -> Tensor", Extern, [METHOD DATA_DEPENDENT];
    meta(_, a) {
        let items: Vec<IndexItem<TensorMeta>> = a.indices.iter().map(|it| it.map(meta_of)).collect();
        Ok(vec![index::getitem_meta(&meta_of(a.self_), &items)?])
    }
    eager(_, a) { Ok(vec![index::getitem(a.self_, a.indices)?]) }
    with .complex_grad().vjp(&vjp::GETITEM).sample(|| {
        let items = vec![
            IndexItem::Slice {
                start: None,
                stop: None,
                step: Some(2),
            },
            IndexItem::Tensor(fx::longs(&[2, 0])),
        ];
        x_with(vec![Value::Index(items)])
    })
}

/// `x.to(float16)`.
fn to_half() -> Sample {
    x_with(vec![Value::DType(DType::Float16)])
}

/// `x` copied into dtype `d` with `preserve_format` strides.
fn copy_preserving(x: &Tensor, d: DType) -> Tensor {
    let out = Tensor::empty_preserving(x, d);
    rynamo_tensor::kernels::copy::copy_cast(&out, x);
    out
}

op! {
    to = "to(Tensor self, ScalarType? dtype=None, *, bool copy=False) -> Tensor", Pointwise, [METHOD];
    meta(_, a) {
        // A copy is ATen's `_to_copy` under `preserve_format`: it keeps the input's memory order.
        let x = a.self_;
        Ok(vec![match a.dtype {
            Some(d) if d != x.dtype() => preserving(x, d),
            _ if a.copy => preserving(x, x.dtype()),
            _ => meta_of(x),
        }])
    }
    eager(_, a) {
        let x = a.self_;
        Ok(vec![match a.dtype {
            Some(d) if d != x.dtype() => copy_preserving(x, d),
            _ if a.copy => x.clone_preserving(),
            _ => x.clone(),
        }])
    }
    with .complex_grad().vjp(&vjp::TO).sample(to_half)
}

op! {
    r#type = "type(Tensor self, ScalarType dtype) -> Tensor", Pointwise, [METHOD];
    meta(_, a) {
        let x = a.self_;
        Ok(vec![if a.dtype != x.dtype() {
            preserving(x, a.dtype)
        } else {
            meta_of(x)
        }])
    }
    eager(_, a) {
        let x = a.self_;
        Ok(vec![if a.dtype != x.dtype() { copy_preserving(x, a.dtype) } else { x.clone() }])
    }
    with .complex_grad().vjp(&vjp::TO).sample(to_half)
}

op! {
    view_dtype = "view.dtype(Tensor self, ScalarType dtype) -> Tensor", Extern, [METHOD VIEW];
    meta(_, a) {
        let l = rynamo_tensor::view_dtype::view_dtype_layout(a.self_, a.dtype)?;
        Ok(vec![TensorMeta::from_layout(a.dtype, &l)])
    }
    eager(_, a) { Ok(vec![a.self_.view_dtype(a.dtype)?]) }
    with .not_differentiable().sample(|| x_with(vec![Value::DType(DType::Int32)]))
}
