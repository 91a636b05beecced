//! Index-driven ops: `gather`, `scatter`, `scatter_add`, `index_select`, `nonzero` (and its
//! one-index-per-dim forms `torch.where(c)`, `nonzero(as_tuple=True)`).

use rynamo_tensor::TensorOrScalar;
use rynamo_tensor::ops::gather::{self as g, ScatterReduce};
use rynamo_tensor::ops::scatter_reduce::{self as sr, scatter_reduce_meta};

use crate::Value;
use crate::autograd::vjp::indexing as vjp_indexing;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t, with_kw};

/// `op(x, 1, idx, x)`.
fn scatter_sample() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(1), t(fx::idx()), t(fx::x())])
}

op! {
    gather = "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![g::gather_meta(a.self_, a.dim, a.index)?]) }
    eager(_, a) { Ok(vec![g::gather(a.self_, a.dim, a.index)?]) }
    with .vjp(&vjp_indexing::GATHER).sample(|| pos_args(vec![t(fx::x()), Value::Int(1), t(fx::idx())]))
}

op! {
    scatter = "scatter(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor",
        Extern, [FUNCTION METHOD];
    meta(_, a) {
        ScatterReduce::parse(a.reduce)?;
        Ok(vec![g::scatter_meta("scatter", a.self_, a.dim, a.index, Some(a.src))?])
    }
    eager(_, a) {
        let reduce = ScatterReduce::parse(a.reduce)?;
        let src = TensorOrScalar::Tensor(a.src);
        Ok(vec![g::scatter(a.self_, a.dim, a.index, src, reduce)?])
    }
    with .vjp(&vjp_indexing::SCATTER).sample(scatter_sample)
}

op! {
    scatter_value =
        "scatter.value(Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None) -> Tensor",
        Extern, [FUNCTION METHOD];
    meta(_, a) {
        ScatterReduce::parse(a.reduce)?;
        Ok(vec![g::scatter_meta("scatter", a.self_, a.dim, a.index, None)?])
    }
    eager(_, a) {
        let reduce = ScatterReduce::parse(a.reduce)?;
        let value = TensorOrScalar::Scalar(a.value);
        Ok(vec![g::scatter(a.self_, a.dim, a.index, value, reduce)?])
    }
    with .vjp(&vjp_indexing::SCATTER_VALUE).sample(|| {
        let args = vec![t(fx::x()), Value::Int(1), t(fx::idx()), Value::Float(2.0)];
        with_kw(args, "reduce", Value::Str("multiply".into()))
    })
}

op! {
    scatter_add = "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Extern,
        [FUNCTION METHOD];
    meta(_, a) { Ok(vec![g::scatter_meta("scatter_add", a.self_, a.dim, a.index, Some(a.src))?]) }
    eager(_, a) {
        let src = TensorOrScalar::Tensor(a.src);
        Ok(vec![g::scatter(a.self_, a.dim, a.index, src, ScatterReduce::Add)?])
    }
    with .vjp(&vjp_indexing::SCATTER_ADD).sample(scatter_sample)
}

op! {
    scatter_reduce =
        "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
        Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![scatter_reduce_meta(a.self_, a.dim, a.index, a.src, a.reduce)?]) }
    eager(_, a) {
        Ok(vec![sr::scatter_reduce(a.self_, a.dim, a.index, a.src, a.reduce, a.include_self)?])
    }
    with .vjp(&vjp_indexing::SCATTER_REDUCE).sample(|| {
        let args = vec![t(fx::x()), Value::Int(1), t(fx::idx()), t(fx::x()), Value::Str("amax".into())];
        with_kw(args, "include_self", Value::Bool(false))
    })
}

op! {
    index_select = "index_select(Tensor self, int dim, Tensor index) -> Tensor", Extern,
        [FUNCTION METHOD];
    meta(_, a) { Ok(vec![g::index_select_meta(a.self_, a.dim, a.index)?]) }
    eager(_, a) { Ok(vec![g::index_select(a.self_, a.dim, a.index)?]) }
    with .complex().vjp(&vjp_indexing::INDEX_SELECT).sample(|| pos_args(vec![t(fx::x()), Value::Int(1), t(fx::longs(&[2, 2, 0]))]))
}

/// `op(ints)`.
fn of_ints() -> Sample {
    pos_args(vec![t(fx::ints())])
}

op! {
    nonzero = "nonzero(Tensor self) -> Tensor", Extern, [FUNCTION METHOD DATA_DEPENDENT];
    meta(_, a) { Ok(vec![g::nonzero_meta(a.self_)?]) }
    eager(_, a) { Ok(vec![g::nonzero(a.self_)?]) }
    with .sample(of_ints)
}

op! {
    where_cond = "where.cond(Tensor condition) -> Tensor[]", Extern, [FUNCTION DATA_DEPENDENT];
    meta(_, a) { Ok(vec![g::nonzero_meta(a.condition)?]) }
    eager(_, a) { Ok(g::nonzero_numpy(a.condition)) }
    with .sample(of_ints)
}

op! {
    nonzero_numpy = "nonzero_numpy(Tensor self) -> Tensor[]", Extern, [DATA_DEPENDENT];
    meta(_, a) { Ok(vec![g::nonzero_meta(a.self_)?]) }
    eager(_, a) { Ok(g::nonzero_numpy(a.self_)) }
    with .sample(of_ints)
}
