//! Rearranging copies: `repeat`, `tile`, `flip`, `roll`, `tril`, `triu`.

use rynamo_tensor::ops::rearrange as re;
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let m = match op {
        Op::Repeat => re::repeat_meta(x, a.ints(1)?)?,
        Op::Tile => re::repeat_meta(x, &re::tile_repeats(x, a.ints(1)?))?,
        Op::Flip => re::flip_meta(x, a.ints(1)?)?,
        Op::Roll => re::roll_meta(x, a.ints(1)?, a.ints(2)?)?,
        Op::Tril => re::tri_meta(x, "tril")?,
        Op::Triu => re::tri_meta(x, "triu")?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let t = match op {
        Op::Repeat => re::repeat(x, a.ints(1)?)?,
        Op::Tile => re::repeat(x, &re::tile_repeats(x, a.ints(1)?))?,
        Op::Flip => re::flip(x, a.ints(1)?)?,
        Op::Roll => re::roll(x, a.ints(1)?, a.ints(2)?)?,
        Op::Tril => re::tri(x, a.int(1)?, false)?,
        Op::Triu => re::tri(x, a.int(1)?, true)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
