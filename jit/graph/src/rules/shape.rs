//! `cat`, `stack`, `split`, `chunk`, `unbind`. The splits are views: their metas are the layouts
//! `rynamo_tensor` computes, their kernel takes those views of `self`.

use rynamo_tensor::ops::{rearrange, shape};
use rynamo_tensor::{Layout, Shaped, Tensor, TensorMeta};

use crate::autograd::vjp::views as vjp;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t};
use crate::{Result, Value};

/// A split into views: `|a| layouts` from the typed arguments `a`.
macro_rules! split {
    ($name:ident = $schema:literal, |$a:ident| $layouts:expr $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, View, [FUNCTION METHOD VIEW];
            items {
                /// The layouts of the pieces.
                fn layouts<T: Shaped>($a: &Args<'_, T>) -> Result<Vec<Layout>> {
                    Ok($layouts)
                }
            }
            meta(_, a) {
                let dt = a.self_.dtype();
                Ok(layouts(&a)?.iter().map(|l| TensorMeta::from_layout(dt, l)).collect())
            }
            eager(_, a) { Ok(a.self_.views_of(layouts(&a)?)) }
            $(with $($with)*)?
        }
    };
}

fn x_with(rest: Vec<Value<Tensor>>) -> Sample {
    let mut args = vec![t(fx::x())];
    args.extend(rest);
    pos_args(args)
}

split!(
    split = "split(Tensor self, int split_size, int dim=0) -> Tensor[]",
    |a| shape::split_layouts(a.self_, a.split_size, a.dim)?,
    with.vjp(&vjp::SPLIT)
        .sample(|| x_with(vec![Value::Int(2), Value::Int(1)]))
);
split!(
    split_sizes = "split.sizes(Tensor self, int[] split_size, int dim=0) -> Tensor[]",
    |a| shape::split_with_sizes_layouts(a.self_, a.split_size, a.dim)?,
    with.vjp(&vjp::SPLIT_SIZES)
        .sample(|| x_with(vec![Value::IntList(vec![1, 2]), Value::Int(1)]))
);
split!(
    chunk = "chunk(Tensor self, int chunks, int dim=0) -> Tensor[]",
    |a| shape::chunk_layouts(a.self_, a.chunks, a.dim)?,
    with.vjp(&vjp::SPLIT)
        .sample(|| x_with(vec![Value::Int(3), Value::Int(1)]))
);
split!(
    unbind = "unbind(Tensor self, int dim=0) -> Tensor[]",
    |a| rearrange::unbind_layouts(a.self_, a.dim)?,
    with.vjp(&vjp::UNBIND)
        .sample(|| x_with(vec![Value::Int(1)]))
);

/// `op([x, x], 1)`.
fn two_along_1() -> Sample {
    pos_args(vec![
        Value::TensorList(vec![fx::x(), fx::x()]),
        Value::Int(1),
    ])
}

op! {
    cat = "cat(Tensor[] tensors, int dim=0) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![shape::cat_meta(&a.tensors, a.dim)?]) }
    eager(_, a) { Ok(vec![shape::cat(&a.tensors, a.dim)?]) }
    with .complex_grad().vjp(&vjp::CAT).sample(two_along_1)
}

op! {
    stack = "stack(Tensor[] tensors, int dim=0) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![shape::stack_meta(&a.tensors, a.dim)?]) }
    eager(_, a) { Ok(vec![shape::stack(&a.tensors, a.dim)?]) }
    with .complex_grad().vjp(&vjp::STACK).sample(two_along_1)
}
