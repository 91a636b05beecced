//! Which values of a phase are never positive, so that their `exp` can take the lean
//! [`super::exp_nonpos`] on every target: softmax's `exp(x - max(x))`, where `max(x)` is a Max
//! reduction of a previous phase over the structurally same expression `x`. Every element of
//! the row is at most the row's maximum, so the difference is `<= 0` (or NaN, which both exp
//! paths propagate).

use crate::loop_ir::{BOp, Inst, Kernel, Phase, RedOp, V};

/// Per node of `p`: whether it is `x - m` with `m` the row maximum of `x`.
pub fn analyse(k: &Kernel, p: &Phase) -> Vec<bool> {
    p.body
        .iter()
        .map(|n| match n.inst {
            Inst::Binary(BOp::Sub, x, m) => match p.body[m as usize].inst {
                Inst::RowVal(slot) => k.phases.iter().any(|q| {
                    q.reduces
                        .iter()
                        .any(|r| r.slot == slot && r.op == RedOp::Max && same(p, x, q, r.value, 16))
                }),
                _ => false,
            },
            _ => false,
        })
        .collect()
}

/// Whether `a` of `pa` and `b` of `pb` compute the same value per column (the same accesses,
/// constants, row slots and operations), looking at most `depth` nodes deep.
fn same(pa: &Phase, a: V, pb: &Phase, b: V, depth: u32) -> bool {
    let (na, nb) = (pa.body[a as usize], pb.body[b as usize]);
    if depth == 0 || na.ty != nb.ty {
        return false;
    }
    let d = depth - 1;
    match (na.inst, nb.inst) {
        (Inst::Load(x), Inst::Load(y)) => x == y,
        (Inst::Const(x), Inst::Const(y)) => x == y,
        (Inst::RowVal(x), Inst::RowVal(y)) => x == y,
        (Inst::Unary(o, x), Inst::Unary(q, y)) => o == q && same(pa, x, pb, y, d),
        (Inst::Cast(x), Inst::Cast(y)) => same(pa, x, pb, y, d),
        (Inst::Binary(o, x1, y1), Inst::Binary(q, x2, y2)) => {
            o == q && same(pa, x1, pb, x2, d) && same(pa, y1, pb, y2, d)
        }
        _ => false,
    }
}
