//! Rearranging copies: `repeat`, `tile`, `flip`, `roll`, `tril`, `triu`.

use rynamo_tensor::ops::rearrange as re;

use crate::Value;
use crate::autograd::vjp::rearrange as vjp_rearrange;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t};

fn x_with(rest: Vec<Value<rynamo_tensor::Tensor>>) -> Sample {
    let mut args = vec![t(fx::x())];
    args.extend(rest);
    pos_args(args)
}

op! {
    repeat = "repeat(Tensor self, int[] repeats) -> Tensor", Extern, [METHOD];
    meta(_, a) { Ok(vec![re::repeat_meta(a.self_, a.repeats)?]) }
    eager(_, a) { Ok(vec![re::repeat(a.self_, a.repeats)?]) }
    with .complex().vjp(&vjp_rearrange::REPEAT).sample(|| x_with(vec![Value::Int(2), Value::Int(1), Value::Int(2)]))
}

op! {
    tile = "tile(Tensor self, int[] dims) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![re::repeat_meta(a.self_, &re::tile_repeats(a.self_, a.dims))?]) }
    eager(_, a) { Ok(vec![re::repeat(a.self_, &re::tile_repeats(a.self_, a.dims))?]) }
    with .complex().vjp(&vjp_rearrange::REPEAT).sample(|| x_with(vec![Value::IntList(vec![2])]))
}

op! {
    flip = "flip(Tensor self, int[] dims) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![re::flip_meta(a.self_, a.dims)?]) }
    eager(_, a) { Ok(vec![re::flip(a.self_, a.dims)?]) }
    with .complex().vjp(&vjp_rearrange::FLIP).sample(|| x_with(vec![Value::IntList(vec![0, 1])]))
}

op! {
    roll = "roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![re::roll_meta(a.self_, a.shifts, a.dims)?]) }
    eager(_, a) { Ok(vec![re::roll(a.self_, a.shifts, a.dims)?]) }
    // The formula is the opposite roll, a permutation: right for complex gradients.
    with .complex_grad().vjp(&vjp_rearrange::ROLL).sample(|| x_with(vec![Value::Int(1), Value::Int(1)]))
}

op! {
    tril = "tril(Tensor self, int diagonal=0) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![re::tri_meta(a.self_, "tril")?]) }
    eager(_, a) { Ok(vec![re::tri(a.self_, a.diagonal, false)?]) }
    with .vjp(&vjp_rearrange::TRIL).sample(|| x_with(vec![Value::Int(1)]))
}

op! {
    triu = "triu(Tensor self, int diagonal=0) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![re::tri_meta(a.self_, "triu")?]) }
    eager(_, a) { Ok(vec![re::tri(a.self_, a.diagonal, true)?]) }
    with .vjp(&vjp_rearrange::TRIU).sample(|| x_with(vec![Value::Int(1)]))
}
