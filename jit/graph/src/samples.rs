//! A representative call of every registered op (Python-style positional and keyword arguments
//! with small deterministic tensors), as each op's definition declares it, and the fixtures those
//! declarations share. The registry's own tests run each one eagerly against its meta rule, the
//! gradient check differentiates them, the JIT's coverage test compiles them, and the plugin
//! conformance suite builds its one-node graphs from them.

use rynamo_tensor::{Tensor, random};

use crate::def::Sample;
use crate::{IValue, Op, Value, registry};

/// Normal values of `shape`, seeded by the sum of its sizes (deterministic).
pub(crate) fn f32s(shape: &[usize]) -> Tensor {
    random::randn(
        shape,
        None,
        Some(&random::Generator::new(shape.iter().sum::<usize>() as u64)),
    )
    .expect("invariant: sample tensors have valid shapes")
}

/// Fixtures the samples share (each call makes a fresh tensor: in-place samples may write it).
pub(crate) mod fx {
    use rynamo_tensor::Tensor;

    use super::f32s;

    fn from<T: rynamo_tensor::Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).expect("invariant: sample tensors have valid shapes")
    }
    /// f32 `[2, 3]`, normal values.
    pub(crate) fn x() -> Tensor {
        f32s(&[2, 3])
    }
    /// f32 `[2, 3]`, `|x| + 0.5` (positive: inside `log`'s and `sqrt`'s domain).
    pub(crate) fn pos() -> Tensor {
        let v = x().to_vec::<f32>().iter().map(|v| v.abs() + 0.5).collect();
        from(v, &[2, 3])
    }
    /// f32 `[2, 3]`: `0.5, 1.0, ..., 3.0`.
    pub(crate) fn ramp() -> Tensor {
        from(vec![0.5f32, 1.0, 1.5, 2.0, 2.5, 3.0], &[2, 3])
    }
    /// f32 `[2, 3]` inside `(0, 1)`: `0.1, 0.25, 0.4, 0.6, 0.75, 0.9`.
    pub(crate) fn unit() -> Tensor {
        from(vec![0.1f32, 0.25, 0.4, 0.6, 0.75, 0.9], &[2, 3])
    }
    /// f32 `[3]`, normal values.
    pub(crate) fn y() -> Tensor {
        f32s(&[3])
    }
    /// i64 `[2, 3]`: `3, -2, 5, 7, 0, 1`.
    pub(crate) fn ints() -> Tensor {
        from(vec![3i64, -2, 5, 7, 0, 1], &[2, 3])
    }
    /// bool `[2, 3]`.
    pub(crate) fn mask() -> Tensor {
        from(vec![true, false, true, false, true, true], &[2, 3])
    }
    /// i64 `[2, 3]` indices into a dim of size 3.
    pub(crate) fn idx() -> Tensor {
        from(vec![2i64, 0, 1, 1, 2, 0], &[2, 3])
    }
    /// f32 `[2, 4, 5, 5]`: an image batch.
    pub(crate) fn img() -> Tensor {
        f32s(&[2, 4, 5, 5])
    }
    /// An i64 vector.
    pub(crate) fn longs(v: &[i64]) -> Tensor {
        from(v.to_vec(), &[v.len()])
    }
}

/// A tensor argument.
pub(crate) fn t(x: Tensor) -> IValue {
    Value::Tensor(x)
}

/// Positional arguments only.
pub(crate) fn pos_args(p: Vec<IValue>) -> Sample {
    (p, vec![])
}

/// Positional arguments and one keyword argument.
pub(crate) fn with_kw(p: Vec<IValue>, k: &str, v: IValue) -> Sample {
    (p, vec![(k.to_string(), v)])
}

/// The default sample: one f32 `[2, 3]` tensor of normal values.
pub fn x() -> Sample {
    pos_args(vec![t(fx::x())])
}

/// One positive f32 `[2, 3]` tensor (`|x| + 0.5`).
pub fn pos() -> Sample {
    pos_args(vec![t(fx::pos())])
}

/// A host callee for the `host_call` sample: negates its one input.
struct Negate(Vec<rynamo_tensor::TensorMeta>);

impl crate::host::HostCallee for Negate {
    fn name(&self) -> &str {
        "negate"
    }
    fn output_metas(&self) -> &[rynamo_tensor::TensorMeta] {
        &self.0
    }
    fn call(&self, inputs: &[Tensor]) -> crate::Result<Vec<Tensor>> {
        // Row-major, as its declared metas say, whatever the input's layout (`neg` follows it).
        let out = registry::call(Op::Neg, &[Value::Tensor(inputs[0].clone())])?;
        Ok(out.iter().map(Tensor::contiguous).collect())
    }
}

/// The `host_call` sample: a registered callee that negates its one input.
pub(crate) fn host_call() -> Sample {
    let x = fx::x();
    let id = crate::host::register(std::sync::Arc::new(Negate(vec![x.meta()])));
    pos_args(vec![Value::TensorList(vec![x]), Value::Int(id)])
}

/// The sample call of `op` (its definition's).
pub fn sample(op: Op) -> Sample {
    (op.def().sample)()
}
