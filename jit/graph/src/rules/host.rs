//! `host_call`: meta from the callee's declared outputs, eager by calling it.

use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use crate::{IValue, Op, Result, Value, host};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let id = callee(op, args)?;
    Ok(host::get(id)?.output_metas().to_vec())
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let id = callee(op, args)?;
    let inputs = match args.first() {
        Some(Value::TensorList(ts)) => ts.clone(),
        _ => return Err(super::wrong_module(op)),
    };
    let c = host::get(id)?;
    let out = c.call(&inputs)?;
    let want = c.output_metas();
    if out.len() != want.len()
        || out
            .iter()
            .zip(want)
            .any(|(t, m)| t.dtype() != m.dtype || t.shape() != m.shape.as_slice())
    {
        return Err(crate::Error::BadArgs(format!(
            "host_call {}: outputs changed dtype or shape since tracing",
            c.name()
        )));
    }
    Ok(out)
}

fn callee<T>(op: Op, args: &[Value<T>]) -> Result<i64> {
    match args.get(1) {
        Some(Value::Int(i)) => Ok(*i),
        _ => Err(super::wrong_module(op)),
    }
}
