//! [`Emit`]: the one interface backward formulas are written against, so the same formula
//! runs eagerly ([`Eager`]: real tensors through the dispatcher, recorded again under
//! `create_graph=True`) and builds graph nodes ([`crate::GraphBuilder`]: AOTAutograd's joint
//! graph, metas from the meta rules, no data touched).
//!
//! The helper methods bind their arguments with the op's schema, so defaults come from one
//! place and a formula reads like the PyTorch expression it implements.

use rynamo_tensor::{DType, Scalar, Tensor, TensorMeta};

use crate::{BindTensor, GraphBuilder, Op, Result, Value, ValueId, registry};

/// Runs or records ops on tensor stand-ins (`Tensor` or graph `ValueId`).
pub trait Emit {
    /// What stands for a tensor.
    type T: Clone + BindTensor;
    /// Applies `op` to bound arguments (schema order); its outputs.
    fn call(&mut self, op: Op, args: Vec<Value<Self::T>>) -> Result<Vec<Self::T>>;
    /// Dtype, shape and strides of a value.
    fn meta(&self, t: &Self::T) -> TensorMeta;

    /// Binds Python-style positional arguments (defaults filled in) and applies `op`; its
    /// first output.
    fn op(&mut self, op: Op, positional: Vec<Value<Self::T>>) -> Result<Self::T> {
        let args = op.schema().bind(positional, vec![])?;
        let mut out = self.call(op, args)?;
        if out.is_empty() {
            return Err(crate::Error::Graph(format!(
                "internal: `{op}` returned nothing"
            )));
        }
        Ok(out.swap_remove(0))
    }

    /// Like [`Emit::op`] with keyword arguments too.
    fn op_kw(
        &mut self,
        op: Op,
        positional: Vec<Value<Self::T>>,
        kwargs: Vec<(&str, Value<Self::T>)>,
    ) -> Result<Self::T> {
        let kwargs = kwargs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let args = op.schema().bind(positional, kwargs)?;
        let mut out = self.call(op, args)?;
        if out.is_empty() {
            return Err(crate::Error::Graph(format!(
                "internal: `{op}` returned nothing"
            )));
        }
        Ok(out.swap_remove(0))
    }

    /// Shape of a value.
    fn shape(&self, t: &Self::T) -> Vec<usize> {
        self.meta(t).shape
    }

    /// Dtype of a value.
    fn dtype(&self, t: &Self::T) -> DType {
        self.meta(t).dtype
    }

    // === Arithmetic ===

    /// `a + b`.
    fn add(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Add, vec![t(a), t(b)])
    }
    /// `a - b`.
    fn sub(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Sub, vec![t(a), t(b)])
    }
    /// `a * b`.
    fn mul(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Mul, vec![t(a), t(b)])
    }
    /// `a / b`.
    fn div(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Div, vec![t(a), t(b)])
    }
    /// `-a`.
    fn neg(&mut self, a: &Self::T) -> Result<Self::T> {
        self.op(Op::Neg, vec![t(a)])
    }
    /// `a * s`.
    fn mul_s(&mut self, a: &Self::T, s: f64) -> Result<Self::T> {
        self.op(Op::Mul, vec![t(a), f(s)])
    }
    /// `a + s`.
    fn add_s(&mut self, a: &Self::T, s: f64) -> Result<Self::T> {
        self.op(Op::Add, vec![t(a), f(s)])
    }
    /// `s - a`.
    fn rsub_s(&mut self, s: f64, a: &Self::T) -> Result<Self::T> {
        self.op(Op::Sub, vec![f(s), t(a)])
    }
    /// `a / s`.
    fn div_s(&mut self, a: &Self::T, s: f64) -> Result<Self::T> {
        self.op(Op::Div, vec![t(a), f(s)])
    }
    /// `a ** s`.
    fn pow_s(&mut self, a: &Self::T, s: f64) -> Result<Self::T> {
        self.op(Op::Pow, vec![t(a), f(s)])
    }
    /// A unary op on `a`.
    fn unary(&mut self, op: Op, a: &Self::T) -> Result<Self::T> {
        self.op(op, vec![t(a)])
    }
    /// `where(cond, a, b)`.
    fn where_(&mut self, cond: &Self::T, a: Value<Self::T>, b: Value<Self::T>) -> Result<Self::T> {
        self.op(Op::Where, vec![t(cond), a, b])
    }
    /// A comparison with a number (`a > s`...): a bool tensor.
    fn cmp_s(&mut self, op: Op, a: &Self::T, s: f64) -> Result<Self::T> {
        self.op(op, vec![t(a), f(s)])
    }
    /// A comparison of two tensors.
    fn cmp(&mut self, op: Op, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(op, vec![t(a), t(b)])
    }

    // === Shapes ===

    /// `x.sum(dims, keepdim)`.
    fn sum_dims(&mut self, x: &Self::T, dims: &[i64], keepdim: bool) -> Result<Self::T> {
        self.op(
            Op::Sum,
            vec![t(x), Value::IntList(dims.to_vec()), Value::Bool(keepdim)],
        )
    }
    /// `x.sum()`.
    fn sum_all(&mut self, x: &Self::T) -> Result<Self::T> {
        self.op(Op::Sum, vec![t(x)])
    }
    /// `x.expand(shape)`.
    fn expand(&mut self, x: &Self::T, shape: &[usize]) -> Result<Self::T> {
        self.op(Op::Expand, vec![t(x), ints(shape)])
    }
    /// `x.reshape(shape)`.
    fn reshape(&mut self, x: &Self::T, shape: &[usize]) -> Result<Self::T> {
        self.op(Op::Reshape, vec![t(x), ints(shape)])
    }
    /// `x.transpose(d0, d1)`.
    fn transpose(&mut self, x: &Self::T, d0: i64, d1: i64) -> Result<Self::T> {
        self.op(Op::Transpose, vec![t(x), Value::Int(d0), Value::Int(d1)])
    }
    /// `x.unsqueeze(dim)`.
    fn unsqueeze(&mut self, x: &Self::T, dim: i64) -> Result<Self::T> {
        self.op(Op::Unsqueeze, vec![t(x), Value::Int(dim)])
    }
    /// `x.to(dtype)`.
    fn to_dtype(&mut self, x: &Self::T, dtype: DType) -> Result<Self::T> {
        if self.dtype(x) == dtype {
            return Ok(x.clone());
        }
        self.op(Op::To, vec![t(x), Value::DType(dtype)])
    }
    /// `zeros(shape, dtype)`.
    fn zeros(&mut self, shape: &[usize], dtype: DType) -> Result<Self::T> {
        self.op_kw(
            Op::Zeros,
            vec![ints(shape)],
            vec![("dtype", Value::DType(dtype))],
        )
    }
    /// `zeros_like(x)`.
    fn zeros_like(&mut self, x: &Self::T) -> Result<Self::T> {
        self.op(Op::ZerosLike, vec![t(x)])
    }
    /// `a @ b`.
    fn matmul(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Matmul, vec![t(a), t(b)])
    }
    /// `a.mm(b)`.
    fn mm(&mut self, a: &Self::T, b: &Self::T) -> Result<Self::T> {
        self.op(Op::Mm, vec![t(a), t(b)])
    }

    /// Sums `g` down to `shape` (undoing broadcasting): leading dims summed away, size-1 dims
    /// summed with keepdim. `g` itself when the shapes already match.
    fn sum_to(&mut self, g: &Self::T, shape: &[usize]) -> Result<Self::T> {
        let gs = self.shape(g);
        if gs == shape {
            return Ok(g.clone());
        }
        let lead = gs.len() - shape.len().min(gs.len());
        let mut dims: Vec<i64> = (0..lead as i64).collect();
        for (i, &s) in shape.iter().enumerate() {
            if s == 1 && gs[lead + i] != 1 {
                dims.push((lead + i) as i64);
            }
        }
        let mut r = if dims.is_empty() {
            g.clone()
        } else {
            self.sum_dims(g, &dims, true)?
        };
        if lead > 0 || self.shape(&r) != shape {
            r = self.reshape(&r, shape)?;
        }
        Ok(r)
    }
}

/// A tensor argument.
pub fn t<T: Clone>(x: &T) -> Value<T> {
    Value::Tensor(x.clone())
}

/// A float argument (a Python number).
pub fn f<T>(x: f64) -> Value<T> {
    Value::Scalar(Scalar::Float(x))
}

/// An int-list argument from sizes.
pub fn ints<T>(shape: &[usize]) -> Value<T> {
    Value::IntList(shape.iter().map(|&s| s as i64).collect())
}

/// Runs ops for real through the dispatcher ([`registry::call`]), so a backward formula run
/// with grad mode on (`create_graph=True`) is itself recorded.
#[derive(Debug, Default)]
pub struct Eager;

impl Emit for Eager {
    type T = Tensor;
    fn call(&mut self, op: Op, args: Vec<Value<Tensor>>) -> Result<Vec<Tensor>> {
        registry::call(op, &args)
    }
    fn meta(&self, t: &Tensor) -> TensorMeta {
        t.meta()
    }
}

impl Emit for GraphBuilder {
    type T = ValueId;
    fn call(&mut self, op: Op, args: Vec<Value<ValueId>>) -> Result<Vec<ValueId>> {
        GraphBuilder::call(self, op, args)
    }
    fn meta(&self, t: &ValueId) -> TensorMeta {
        GraphBuilder::meta(self, *t).clone()
    }
}
