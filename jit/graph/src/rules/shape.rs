//! `cat`, `stack`, `split`, `chunk`, `unbind`.

use rynamo_tensor::ops::{rearrange, shape};
use rynamo_tensor::{Layout, Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

fn split_layouts<T: Shaped>(op: Op, a: &Args<'_, T>) -> Result<Vec<Layout>> {
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Split => shape::split_layouts(x, a.int(1)?, a.int(2)?)?,
        Op::SplitSizes => shape::split_with_sizes_layouts(x, a.ints(1)?, a.int(2)?)?,
        Op::Chunk => shape::chunk_layouts(x, a.int(1)?, a.int(2)?)?,
        Op::Unbind => rearrange::unbind_layouts(x, a.int(1)?)?,
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    Ok(match op {
        Op::Cat => vec![shape::cat_meta(&a.tensors(0)?, a.int(1)?)?],
        Op::Stack => vec![shape::stack_meta(&a.tensors(0)?, a.int(1)?)?],
        _ => {
            let dt = a.tensor(0)?.dtype();
            split_layouts(op, &a)?
                .iter()
                .map(|l| TensorMeta::from_layout(dt, l))
                .collect()
        }
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    Ok(match op {
        Op::Cat => vec![shape::cat(&a.tensors(0)?, a.int(1)?)?],
        Op::Stack => vec![shape::stack(&a.tensors(0)?, a.int(1)?)?],
        _ => a.tensor(0)?.views_of(split_layouts(op, &a)?),
    })
}
