//! Backward formulas of the `upsample_*` linear modes (their backward ops) and of
//! those backward ops (the forward ops: both are linear, each the other's adjoint).

use super::{Grads, Saves, VjpCtx, VjpRule, args, vjp_rule};
use crate::autograd::emit::{Emit, ints, t};
use crate::{Op, Value};

fn opt<T>(v: Option<f64>) -> Value<T> {
    v.map_or(Value::None, Value::Float)
}

/// `output_size` as the backward op takes it: both sizes (the schema's `int[2]` accepts one).
fn pair(v: &[i64]) -> Vec<i64> {
    if v.len() == 1 {
        vec![v[0]; 2]
    } else {
        v.to_vec()
    }
}

/// The gradient of argument `x` (the forward's input, or the backward's `grad_output`): `op`
/// applied to the incoming gradient, `op(g, output_size, [input_size,] align_corners, *scales)`.
/// A forward's adjoint is its backward op, which takes the input's size; a backward's is the
/// forward op, which does not.
#[allow(clippy::too_many_arguments, reason = "the upsample ops' own arguments")]
fn adjoint<E: Emit>(
    e: &mut E,
    c: &VjpCtx<'_, E::T>,
    x: &usize,
    op: Op,
    out: Vec<i64>,
    input_size: Option<Vec<usize>>,
    align: bool,
    scales: &[Option<f64>],
) -> Grads<E> {
    super::pointwise::unary(e, c, x, |e, _, g| {
        let mut args = vec![t(&g), Value::IntList(out)];
        args.extend(input_size.map(|s| ints(&s)));
        args.push(Value::Bool(align));
        args.extend(scales.iter().map(|&s| opt(s)));
        e.op(op, args)
    })
}

fn bilinear2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleBilinear2d => upsample::upsample_bilinear2d);
    let shape = c.meta(a.self_)?.shape.clone();
    let (out, scales) = (pair(a.output_size), [a.scales_h, a.scales_w]);
    let op = Op::UpsampleBilinear2dBackward;
    adjoint(
        e,
        c,
        a.self_,
        op,
        out,
        Some(shape),
        a.align_corners,
        &scales,
    )
}

fn bilinear2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleBilinear2dBackward => upsample::upsample_bilinear2d_backward);
    let (out, scales) = (pair(a.output_size), [a.scales_h, a.scales_w]);
    let op = Op::UpsampleBilinear2d;
    adjoint(e, c, a.grad_output, op, out, None, a.align_corners, &scales)
}

fn linear1d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleLinear1d => upsample::upsample_linear1d);
    let shape = c.meta(a.self_)?.shape.clone();
    let (out, scales) = (a.output_size.to_vec(), [a.scales]);
    let op = Op::UpsampleLinear1dBackward;
    adjoint(
        e,
        c,
        a.self_,
        op,
        out,
        Some(shape),
        a.align_corners,
        &scales,
    )
}

fn linear1d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleLinear1dBackward => upsample::upsample_linear1d_backward);
    let (out, scales) = (a.output_size.to_vec(), [a.scales]);
    let op = Op::UpsampleLinear1d;
    adjoint(e, c, a.grad_output, op, out, None, a.align_corners, &scales)
}

fn trilinear3d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleTrilinear3d => upsample::upsample_trilinear3d);
    let shape = c.meta(a.self_)?.shape.clone();
    let (out, scales) = (a.output_size.to_vec(), [a.scales_d, a.scales_h, a.scales_w]);
    let op = Op::UpsampleTrilinear3dBackward;
    adjoint(
        e,
        c,
        a.self_,
        op,
        out,
        Some(shape),
        a.align_corners,
        &scales,
    )
}

fn trilinear3d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleTrilinear3dBackward => upsample::upsample_trilinear3d_backward);
    let (out, scales) = (a.output_size.to_vec(), [a.scales_d, a.scales_h, a.scales_w]);
    let op = Op::UpsampleTrilinear3d;
    adjoint(e, c, a.grad_output, op, out, None, a.align_corners, &scales)
}

pub(crate) static TRILINEAR3D: VjpRule =
    vjp_rule!("UpsampleTrilinear3DBackward0", Saves::NONE, trilinear3d);
pub(crate) static TRILINEAR3D_B: VjpRule = vjp_rule!(
    "UpsampleTrilinear3DBackwardBackward0",
    Saves::NONE,
    trilinear3d_backward
);
pub(crate) static LINEAR1D: VjpRule = vjp_rule!("UpsampleLinear1DBackward0", Saves::NONE, linear1d);
pub(crate) static LINEAR1D_B: VjpRule = vjp_rule!(
    "UpsampleLinear1DBackwardBackward0",
    Saves::NONE,
    linear1d_backward
);
pub(crate) static BILINEAR2D: VjpRule =
    vjp_rule!("UpsampleBilinear2DBackward0", Saves::NONE, bilinear2d);
pub(crate) static BILINEAR2D_B: VjpRule = vjp_rule!(
    "UpsampleBilinear2DBackwardBackward0",
    Saves::NONE,
    bilinear2d_backward
);
