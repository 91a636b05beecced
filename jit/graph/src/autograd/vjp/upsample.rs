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

fn bilinear2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleBilinear2d => upsample::upsample_bilinear2d);
    let shape = c.meta(a.self_)?.shape.clone();
    let out = pair(a.output_size);
    let (align, sh, sw) = (a.align_corners, a.scales_h, a.scales_w);
    super::pointwise::unary(e, c, a.self_, |e, _, g| {
        let args = vec![
            t(&g),
            Value::IntList(out),
            ints(&shape),
            Value::Bool(align),
            opt(sh),
            opt(sw),
        ];
        e.op(Op::UpsampleBilinear2dBackward, args)
    })
}

fn bilinear2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleBilinear2dBackward => upsample::upsample_bilinear2d_backward);
    let out = pair(a.output_size);
    let (align, sh, sw) = (a.align_corners, a.scales_h, a.scales_w);
    super::pointwise::unary(e, c, a.grad_output, |e, _, gg| {
        let args = vec![
            t(&gg),
            Value::IntList(out),
            Value::Bool(align),
            opt(sh),
            opt(sw),
        ];
        e.op(Op::UpsampleBilinear2d, args)
    })
}

fn linear1d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleLinear1d => upsample::upsample_linear1d);
    let shape = c.meta(a.self_)?.shape.clone();
    let out = a.output_size.to_vec();
    let (align, s) = (a.align_corners, a.scales);
    super::pointwise::unary(e, c, a.self_, |e, _, g| {
        let args = vec![
            t(&g),
            Value::IntList(out),
            ints(&shape),
            Value::Bool(align),
            opt(s),
        ];
        e.op(Op::UpsampleLinear1dBackward, args)
    })
}

fn linear1d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleLinear1dBackward => upsample::upsample_linear1d_backward);
    let out = a.output_size.to_vec();
    let (align, s) = (a.align_corners, a.scales);
    super::pointwise::unary(e, c, a.grad_output, |e, _, gg| {
        let args = vec![t(&gg), Value::IntList(out), Value::Bool(align), opt(s)];
        e.op(Op::UpsampleLinear1d, args)
    })
}

fn trilinear3d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleTrilinear3d => upsample::upsample_trilinear3d);
    let shape = c.meta(a.self_)?.shape.clone();
    let out = a.output_size.to_vec();
    let (align, s) = (a.align_corners, [a.scales_d, a.scales_h, a.scales_w]);
    super::pointwise::unary(e, c, a.self_, |e, _, g| {
        let mut args = vec![t(&g), Value::IntList(out), ints(&shape), Value::Bool(align)];
        args.extend(s.map(opt));
        e.op(Op::UpsampleTrilinear3dBackward, args)
    })
}

fn trilinear3d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, UpsampleTrilinear3dBackward => upsample::upsample_trilinear3d_backward);
    let out = a.output_size.to_vec();
    let (align, s) = (a.align_corners, [a.scales_d, a.scales_h, a.scales_w]);
    super::pointwise::unary(e, c, a.grad_output, |e, _, gg| {
        let mut args = vec![t(&gg), Value::IntList(out), Value::Bool(align)];
        args.extend(s.map(opt));
        e.op(Op::UpsampleTrilinear3d, args)
    })
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
