//! Argument binding: Python-style positional and keyword arguments to schema-ordered values.

use rynamo_tensor::Scalar;

use crate::schema::{Default, ParamType, Schema};
use crate::value::BindTensor;
use crate::{Error, Result, Value};

impl Schema {
    /// Binds Python-style call arguments to the parameters, in schema order: fills defaults,
    /// checks types and converts (a number where `Scalar` is expected, one int for `int[]`, an int
    /// for `float`, a zero-dim tensor for a number, trailing ints packed into an `int[]` as in
    /// `x.view(2, 3)`). Errors are `TypeError`s worded as PyTorch's.
    pub fn bind<T: BindTensor + Clone>(
        &self,
        positional: Vec<Value<T>>,
        kwargs: Vec<(String, Value<T>)>,
    ) -> Result<Vec<Value<T>>> {
        let fname = self.base_name();
        let mut positional = positional;
        let np = self.n_positional;
        if positional.len() > np && np > 0 && self.params[np - 1].ty == ParamType::IntList {
            let tail = positional.split_off(np - 1);
            if let Some(ints) = tail.iter().map(list_int).collect::<Option<Vec<i64>>>() {
                positional.push(Value::IntList(ints));
            } else {
                positional.extend(tail);
            }
        }
        // `torch.einsum("ij,jk", a, b)`: trailing tensors pack into a final `Tensor[]`.
        if np > 0
            && self.params[np - 1].ty == ParamType::TensorList
            && positional.len() >= np
            && positional[np - 1..]
                .iter()
                .all(|v| matches!(v, Value::Tensor(_)))
        {
            let tail = positional.split_off(np - 1);
            positional.push(Value::TensorList(
                tail.into_iter()
                    .map(|v| match v {
                        Value::Tensor(t) => t,
                        _ => unreachable!("invariant: checked above"),
                    })
                    .collect(),
            ));
        }
        if positional.len() > np {
            return Err(Error::Bind(format!(
                "{fname}() takes {np} positional argument{} but {} were given",
                if np == 1 { "" } else { "s" },
                positional.len()
            )));
        }
        let mut slots: Vec<Option<Value<T>>> = vec![None; self.params.len()];
        for (i, v) in positional.into_iter().enumerate() {
            slots[i] = Some(self.convert(i, v, true)?);
        }
        for (k, v) in kwargs {
            let i = self
                .params
                .iter()
                .position(|p| p.name == k)
                .ok_or_else(|| {
                    Error::Bind(format!(
                        "{fname}() got an unexpected keyword argument '{k}'"
                    ))
                })?;
            if slots[i].is_some() {
                return Err(Error::Bind(format!(
                    "{fname}() got multiple values for argument '{k}'"
                )));
            }
            slots[i] = Some(self.convert(i, v, false)?);
        }
        let missing: Vec<&str> = self
            .params
            .iter()
            .zip(&slots)
            .filter(|(p, s)| s.is_none() && p.default.is_none())
            .map(|(p, _)| p.name.as_str())
            .collect();
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|n| format!("\"{n}\"")).collect();
            return Err(Error::Bind(format!(
                "{fname}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                names.join(", ")
            )));
        }
        Ok(slots
            .into_iter()
            .zip(&self.params)
            .map(|(s, p)| {
                s.unwrap_or_else(
                    || match p.default.as_ref().expect("invariant: missing checked") {
                        Default::None => Value::None,
                        Default::Value(v) => v
                            .try_map::<T, ()>(|n| match *n {})
                            .expect("invariant: no tensors"),
                    },
                )
            })
            .collect())
    }

    fn convert<T: BindTensor>(&self, i: usize, v: Value<T>, positional: bool) -> Result<Value<T>> {
        let p = &self.params[i];
        if matches!(v, Value::None) && p.optional {
            return Ok(Value::None);
        }
        let number = |v: &Value<T>| -> Option<Scalar> {
            match v {
                Value::Scalar(s) => Some(*s),
                Value::Int(i) => Some(Scalar::Int(*i)),
                Value::Float(x) => Some(Scalar::Float(*x)),
                Value::Bool(b) => Some(Scalar::Bool(*b)),
                Value::Tensor(t) => t.as_scalar(),
                _ => None,
            }
        };
        let out = match (p.ty, v) {
            (ParamType::Tensor, v @ Value::Tensor(_)) => v,
            (ParamType::TensorList, v @ Value::TensorList(_)) => v,
            // An empty Python list has no element to say it holds tensors (`_fused_adam_`'s
            // `max_exp_avg_sqs=[]` without amsgrad).
            (ParamType::TensorList, Value::IntList(v)) if v.is_empty() => {
                Value::TensorList(Vec::new())
            }
            (ParamType::TensorOrScalar, v @ Value::Tensor(_)) => v,
            (ParamType::TensorOrScalar | ParamType::Scalar, v) if number(&v).is_some() => {
                Value::Scalar(number(&v).expect("invariant: checked"))
            }
            (ParamType::Int, Value::Int(i)) => Value::Int(i),
            (ParamType::Int, Value::Scalar(Scalar::Int(i))) => Value::Int(i),
            (ParamType::Int, Value::Tensor(t)) if matches!(t.as_scalar(), Some(Scalar::Int(_))) => {
                Value::Int(t.as_scalar().map_or(0, Scalar::to_i64))
            }
            (ParamType::IntList, v @ Value::IntList(_)) => v,
            (ParamType::IntList, v @ (Value::Int(_) | Value::Tensor(_)))
                if list_int(&v).is_some() =>
            {
                Value::IntList(vec![list_int(&v).expect("invariant: checked")])
            }
            // `torch.full((n,), 1.0)` with `n` a 0-dim tensor: the Python tuple arrives as tensors.
            (ParamType::IntList, Value::TensorList(ts))
                if ts.iter().all(|t| tensor_int(t).is_some()) =>
            {
                Value::IntList(ts.iter().filter_map(tensor_int).collect())
            }
            (ParamType::Float, Value::Float(x)) => Value::Float(x),
            (ParamType::Float, Value::Int(i)) => Value::Float(i as f64),
            (ParamType::Float, Value::Scalar(s)) if !matches!(s, Scalar::Bool(_)) => {
                Value::Float(s.to_f64())
            }
            (ParamType::Float, Value::Tensor(t)) if t.as_scalar().is_some() => {
                Value::Float(t.as_scalar().map_or(0.0, Scalar::to_f64))
            }
            (ParamType::Bool, Value::Bool(b)) => Value::Bool(b),
            (ParamType::Bool, Value::Scalar(Scalar::Bool(b))) => Value::Bool(b),
            (ParamType::Str, v @ Value::Str(_)) => v,
            (ParamType::DType, v @ Value::DType(_)) => v,
            (ParamType::Index, v @ Value::Index(_)) => v,
            (ty, v) => {
                let want = match ty {
                    ParamType::IntList => "tuple of ints",
                    ParamType::TensorList => "tuple of Tensors",
                    ParamType::Scalar => "Number",
                    ParamType::TensorOrScalar => "Tensor",
                    ParamType::DType => "torch.dtype",
                    ParamType::Index => "index",
                    t => t.spelling(),
                };
                let pos = if positional {
                    format!(" (position {})", i + 1)
                } else {
                    String::new()
                };
                return Err(Error::Bind(format!(
                    "{}(): argument '{}'{pos} must be {want}, not {}",
                    self.base_name(),
                    p.name,
                    v.type_name()
                )));
            }
        };
        Ok(out)
    }

    /// Whether `v` is a legal bound value for parameter `i` (used by the verifier).
    pub fn accepts<T>(&self, i: usize, v: &Value<T>) -> bool {
        let p = &self.params[i];
        matches!(
            (p.ty, v),
            (_, Value::None) if p.optional
        ) || matches!(
            (p.ty, v),
            (ParamType::Tensor, Value::Tensor(_))
                | (ParamType::TensorList, Value::TensorList(_))
                | (
                    ParamType::TensorOrScalar,
                    Value::Tensor(_) | Value::Scalar(_)
                )
                | (ParamType::Scalar, Value::Scalar(_))
                | (ParamType::Int, Value::Int(_))
                | (ParamType::IntList, Value::IntList(_))
                | (ParamType::Float, Value::Float(_))
                | (ParamType::Bool, Value::Bool(_))
                | (ParamType::Str, Value::Str(_))
                | (ParamType::DType, Value::DType(_))
                | (ParamType::Index, Value::Index(_))
        )
    }
}

/// An element of an `int[]`: an int, or a zero-dim integral tensor (bool included), which PyTorch's
/// argument parser reads with `item()` (`x.view(n, -1)` where `n` came from tensor arithmetic).
/// Tensor stand-ins without a value (metas, graph values) are not ints.
fn list_int<T: BindTensor>(v: &Value<T>) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Tensor(t) => tensor_int(t),
        _ => None,
    }
}

fn tensor_int<T: BindTensor>(t: &T) -> Option<i64> {
    match t.as_scalar()? {
        Scalar::Int(i) => Some(i),
        Scalar::Bool(b) => Some(i64::from(b)),
        Scalar::Float(_) => None,
    }
}
