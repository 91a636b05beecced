//! Backward formulas of the convolutions and 2-D pools, and the `max_pool2d` decomposition
//! (recorded as `max_pool2d_with_indices`, so the indices are saved, as PyTorch).

use super::nn::Facts;
use super::pointwise::grad_or_return;
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, composite_rule, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result, Value};

/// max_pool2d_with_indices: each output's gradient summed into the input position it took.
fn max_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let shape = c.input_meta(0)?.shape.clone();
        let nd = shape.len();
        let hw = shape[nd - 2] * shape[nd - 1];
        let planes = shape.iter().product::<usize>() / hw.max(1);
        let gs = e.shape(&g);
        let ohw = gs[nd - 2] * gs[nd - 1];
        let idx = e.reshape(&c.output(1)?, &[planes, ohw])?;
        let g2 = e.reshape(&g, &[planes, ohw])?;
        let z = e.zeros(&[planes, hw], e.dtype(&g))?;
        let d = e.op(Op::ScatterAdd, vec![t(&z), Value::Int(1), t(&idx), t(&g2)])?;
        let d = e.reshape(&d, &shape)?;
        put(&mut out, c, 0, d)?;
    }
    Ok(out)
}

/// max_pool2d as PyTorch records it: `max_pool2d_with_indices(...)[0]`.
fn max_pool2d_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    let mut outs = e.call(Op::MaxPool2dWithIndices, args.to_vec())?;
    outs.truncate(1);
    Ok(Some(outs))
}

pub(super) fn rule(op: Op) -> Option<&'static VjpRule> {
    static MAX_POOL: VjpRule =
        vjp_rule!("MaxPool2DWithIndicesBackward0", Saves::OUTPUT, max_pool2d);
    Some(match op {
        Op::MaxPool2dWithIndices => &MAX_POOL,
        _ => return None,
    })
}

pub(super) fn composite(op: Op) -> Option<&'static Composite> {
    static MAX_POOL: Composite = composite_rule!(max_pool2d_parts);
    Some(match op {
        Op::MaxPool2d => &MAX_POOL,
        _ => return None,
    })
}
