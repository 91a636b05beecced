//! Argument values, generic over what stands for a tensor: [`IValue`] (eager calls, real tensors),
//! [`MetaValue`] (meta rules, [`TensorMeta`]s) and [`Arg`] (graph nodes, [`ValueId`]s).

use std::fmt;

use rynamo_tensor::{DType, IndexItem, Scalar, Tensor, TensorMeta, TensorOrScalar};

use crate::{Error, Result, ValueId};

/// One argument of an op call.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<T> {
    /// Python `None`.
    None,
    /// A tensor.
    Tensor(T),
    /// `Tensor[]`.
    TensorList(Vec<T>),
    /// A Python number passed where a `Scalar` (or a wrapped-number tensor) is expected.
    Scalar(Scalar),
    /// A Python int.
    Int(i64),
    /// `int[]`.
    IntList(Vec<i64>),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
    /// A Python str.
    Str(String),
    /// A `torch.dtype`.
    DType(DType),
    /// The index expression of `__getitem__`/`__setitem__`.
    Index(Vec<IndexItem<T>>),
}

/// Eager argument values.
pub type IValue = Value<Tensor>;
/// Meta-rule argument values.
pub type MetaValue = Value<TensorMeta>;
/// Graph-node argument values.
pub type Arg = Value<ValueId>;

impl<T> Value<T> {
    /// The same value with every tensor mapped through `f`.
    pub fn try_map<U, E>(&self, mut f: impl FnMut(&T) -> Result<U, E>) -> Result<Value<U>, E> {
        Ok(match self {
            Value::None => Value::None,
            Value::Tensor(t) => Value::Tensor(f(t)?),
            Value::TensorList(ts) => {
                Value::TensorList(ts.iter().map(&mut f).collect::<Result<_, E>>()?)
            }
            Value::Scalar(s) => Value::Scalar(*s),
            Value::Int(i) => Value::Int(*i),
            Value::IntList(v) => Value::IntList(v.clone()),
            Value::Float(x) => Value::Float(*x),
            Value::Bool(b) => Value::Bool(*b),
            Value::Str(s) => Value::Str(s.clone()),
            Value::DType(d) => Value::DType(*d),
            Value::Index(items) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    out.push(match it {
                        IndexItem::Tensor(t) => IndexItem::Tensor(f(t)?),
                        other => other.map(|_| unreachable!("invariant: tensor handled above")),
                    });
                }
                Value::Index(out)
            }
        })
    }

    /// Every tensor in the value, in order.
    pub fn tensors(&self) -> Vec<&T> {
        match self {
            Value::Tensor(t) => vec![t],
            Value::TensorList(ts) => ts.iter().collect(),
            Value::Index(items) => items
                .iter()
                .filter_map(|i| match i {
                    IndexItem::Tensor(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    }

    /// The Python type name used in TypeError messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Tensor(_) => "Tensor",
            Value::TensorList(_) => "list",
            Value::Scalar(Scalar::Bool(_)) | Value::Bool(_) => "bool",
            Value::Scalar(Scalar::Int(_)) | Value::Int(_) => "int",
            Value::Scalar(Scalar::Float(_)) | Value::Float(_) => "float",
            Value::IntList(_) => "tuple",
            Value::Str(_) => "str",
            Value::DType(_) => "torch.dtype",
            Value::Index(_) => "tuple",
        }
    }
}

impl<T: fmt::Display> fmt::Display for Value<T> {
    /// The graph-text spelling (see [`crate::text`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<X>(
            f: &mut fmt::Formatter<'_>,
            xs: &[X],
            mut item: impl FnMut(&mut fmt::Formatter<'_>, &X) -> fmt::Result,
        ) -> fmt::Result {
            f.write_str("[")?;
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                item(f, x)?;
            }
            f.write_str("]")
        }
        match self {
            Value::None => f.write_str("None"),
            Value::Tensor(t) => write!(f, "{t}"),
            Value::TensorList(ts) => list(f, ts, |f, t| write!(f, "{t}")),
            Value::Scalar(s) => write!(f, "{s}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::IntList(v) => list(f, v, |f, i| write!(f, "{i}")),
            Value::Float(x) => write!(f, "{}", Scalar::Float(*x)),
            Value::Bool(b) => write!(f, "{}", Scalar::Bool(*b)),
            Value::Str(s) => write!(f, "'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            Value::DType(d) => write!(f, "{d}"),
            Value::Index(items) => list(f, items, |f, it| match it {
                IndexItem::Int(i) => write!(f, "{i}"),
                IndexItem::Slice { start, stop, step } => {
                    let o = |v: &Option<i64>| v.map_or(String::new(), |v| v.to_string());
                    write!(f, "{}:{}:{}", o(start), o(stop), o(step))
                }
                IndexItem::None => f.write_str("None"),
                IndexItem::Ellipsis => f.write_str("..."),
                IndexItem::Bool(b) => write!(f, "{}", Scalar::Bool(*b)),
                IndexItem::Tensor(t) => write!(f, "{t}"),
            }),
        }
    }
}

/// Typed access to bound arguments by position, for rules. Binding already checked the kinds, so a
/// mismatch here is a bug in a rule or a skipped bind: it errors rather than panics.
pub struct Args<'a, T>(pub &'a [Value<T>]);

fn bad<X>(i: usize, want: &str) -> Result<X> {
    Err(Error::BadArgs(format!("argument {i}: expected {want}")))
}

impl<'a, T> Args<'a, T> {
    fn get(&self, i: usize) -> Result<&'a Value<T>> {
        self.0
            .get(i)
            .ok_or_else(|| Error::BadArgs(format!("missing argument {i}")))
    }
    /// A tensor.
    pub fn tensor(&self, i: usize) -> Result<&'a T> {
        match self.get(i)? {
            Value::Tensor(t) => Ok(t),
            _ => bad(i, "Tensor"),
        }
    }
    /// An optional tensor.
    pub fn opt_tensor(&self, i: usize) -> Result<Option<&'a T>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.tensor(i).map(Some),
        }
    }
    /// A tensor list.
    pub fn tensors(&self, i: usize) -> Result<Vec<&'a T>> {
        match self.get(i)? {
            Value::TensorList(ts) => Ok(ts.iter().collect()),
            _ => bad(i, "Tensor[]"),
        }
    }
    /// A tensor or a wrapped number.
    pub fn tensor_or_scalar(&self, i: usize) -> Result<TensorOrScalar<&'a T>> {
        match self.get(i)? {
            Value::Tensor(t) => Ok(TensorOrScalar::Tensor(t)),
            Value::Scalar(s) => Ok(TensorOrScalar::Scalar(*s)),
            _ => bad(i, "Tensor or Scalar"),
        }
    }
    /// An optional tensor or wrapped number.
    pub fn opt_tensor_or_scalar(&self, i: usize) -> Result<Option<TensorOrScalar<&'a T>>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.tensor_or_scalar(i).map(Some),
        }
    }
    /// A Python number.
    pub fn scalar(&self, i: usize) -> Result<Scalar> {
        match self.get(i)? {
            Value::Scalar(s) => Ok(*s),
            _ => bad(i, "Scalar"),
        }
    }
    /// An optional number.
    pub fn opt_scalar(&self, i: usize) -> Result<Option<Scalar>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.scalar(i).map(Some),
        }
    }
    /// An int.
    pub fn int(&self, i: usize) -> Result<i64> {
        match self.get(i)? {
            Value::Int(v) => Ok(*v),
            _ => bad(i, "int"),
        }
    }
    /// An optional int.
    pub fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.int(i).map(Some),
        }
    }
    /// An int list.
    pub fn ints(&self, i: usize) -> Result<&'a [i64]> {
        match self.get(i)? {
            Value::IntList(v) => Ok(v),
            _ => bad(i, "int[]"),
        }
    }
    /// An optional int list.
    pub fn opt_ints(&self, i: usize) -> Result<Option<&'a [i64]>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.ints(i).map(Some),
        }
    }
    /// A float.
    pub fn float(&self, i: usize) -> Result<f64> {
        match self.get(i)? {
            Value::Float(v) => Ok(*v),
            _ => bad(i, "float"),
        }
    }
    /// An optional float.
    pub fn opt_float(&self, i: usize) -> Result<Option<f64>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.float(i).map(Some),
        }
    }
    /// A bool.
    pub fn bool(&self, i: usize) -> Result<bool> {
        match self.get(i)? {
            Value::Bool(v) => Ok(*v),
            _ => bad(i, "bool"),
        }
    }
    /// An optional bool.
    pub fn opt_bool(&self, i: usize) -> Result<Option<bool>> {
        match self.get(i)? {
            Value::None => Ok(None),
            _ => self.bool(i).map(Some),
        }
    }
    /// An optional str.
    pub fn opt_str(&self, i: usize) -> Result<Option<&'a str>> {
        match self.get(i)? {
            Value::None => Ok(None),
            Value::Str(s) => Ok(Some(s)),
            _ => bad(i, "str"),
        }
    }
    /// A str.
    pub fn str(&self, i: usize) -> Result<&'a str> {
        self.opt_str(i)?
            .ok_or_else(|| Error::BadArgs(format!("argument {i}: expected str")))
    }
    /// An optional dtype.
    pub fn opt_dtype(&self, i: usize) -> Result<Option<DType>> {
        match self.get(i)? {
            Value::None => Ok(None),
            Value::DType(d) => Ok(Some(*d)),
            _ => bad(i, "ScalarType"),
        }
    }
    /// A dtype.
    pub fn dtype(&self, i: usize) -> Result<DType> {
        self.opt_dtype(i)?
            .ok_or_else(|| Error::BadArgs(format!("argument {i}: expected ScalarType")))
    }
    /// An index expression.
    pub fn index(&self, i: usize) -> Result<&'a [IndexItem<T>]> {
        match self.get(i)? {
            Value::Index(v) => Ok(v),
            _ => bad(i, "Index[]"),
        }
    }
}

/// What binding needs to know about a tensor-like argument: whether it can stand in for a number
/// (a zero-dim tensor where `Scalar`/`int`/`float` is expected, as PyTorch allows).
pub trait BindTensor {
    /// The number a zero-dim tensor holds; `None` when unknown (metas, graph values) or not 0-dim.
    fn as_scalar(&self) -> Option<Scalar>;
}

impl BindTensor for Tensor {
    fn as_scalar(&self) -> Option<Scalar> {
        if self.ndim() == 0 {
            self.item().ok()
        } else {
            None
        }
    }
}
impl BindTensor for TensorMeta {
    fn as_scalar(&self) -> Option<Scalar> {
        None
    }
}
impl BindTensor for ValueId {
    fn as_scalar(&self) -> Option<Scalar> {
        None
    }
}
