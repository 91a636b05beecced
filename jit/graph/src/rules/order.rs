//! Scans and orderings along a dim: `cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin`,
//! `sort`, `argsort`, `topk`.

use rynamo_tensor::ops;
use rynamo_tensor::ops::scan::{self, ExtremumOp, ScanOp};

use crate::Value;
use crate::autograd::vjp::order as vjp_order;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t};

/// `op(ints, dim)`.
fn ints_along(dim: i64) -> Sample {
    pos_args(vec![t(fx::ints()), Value::Int(dim)])
}

/// `cumsum` / `cumprod` (complex ones in `ops::complex::scan`).
macro_rules! scan {
    ($name:ident = $schema:literal, $op:ident, $vjp:expr) => {
        op! {
            $name = $schema, Extern, [FUNCTION METHOD];
            meta(_, a) { Ok(vec![scan::scan_meta(a.self_, a.dim, a.dtype)?]) }
            eager(_, a) { Ok(vec![scan::scan(ScanOp::$op, a.self_, a.dim, a.dtype)?]) }
            with .complex_grad().vjp($vjp).sample(|| ints_along(1))
        }
    };
}

scan!(
    cumsum = "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    Sum,
    &vjp_order::CUMSUM
);
scan!(
    cumprod = "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    Prod,
    &vjp_order::CUMPROD
);

/// `cummax` / `cummin`.
macro_rules! cum_extremum {
    ($name:ident = $schema:literal, $op:ident, $vjp:expr) => {
        op! {
            $name = $schema, Extern, [FUNCTION METHOD];
            meta(_, a) {
                let (v, i) = scan::cum_extremum_meta(a.self_, a.dim)?;
                Ok(vec![v, i])
            }
            eager(_, a) {
                let (v, i) = scan::cum_extremum(ExtremumOp::$op, a.self_, a.dim)?;
                Ok(vec![v, i])
            }
            with .vjp($vjp).sample(|| ints_along(-1))
        }
    };
}

cum_extremum!(
    cummax = "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    Max,
    &vjp_order::CUMMAX
);
cum_extremum!(
    cummin = "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    Min,
    &vjp_order::CUMMIN
);

op! {
    logcumsumexp = "logcumsumexp(Tensor self, int dim) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![scan::logcumsumexp_meta(a.self_, a.dim)?]) }
    eager(_, a) { Ok(vec![scan::logcumsumexp(a.self_, a.dim)?]) }
    with .vjp(&vjp_order::LCSE).sample(|| pos_args(vec![t(fx::x()), Value::Int(0)]))
}

/// `op(x, 0, True)`.
fn descending_along_0() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(0), Value::Bool(true)])
}

op! {
    sort = "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> (Tensor values, Tensor indices)",
        Extern, [FUNCTION METHOD];
    meta(_, a) {
        let (v, i) = ops::sort::sort_meta(a.self_, a.dim)?;
        Ok(vec![v, i])
    }
    eager(_, a) {
        let (v, i) = ops::sort::sort(a.self_, a.dim, a.descending)?;
        Ok(vec![v, i])
    }
    with .vjp(&vjp_order::SORT).sample(descending_along_0)
}

op! {
    argsort = "argsort(Tensor self, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor",
        Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![ops::sort::sort_meta(a.self_, a.dim)?.1]) }
    eager(_, a) { Ok(vec![ops::sort::argsort(a.self_, a.dim, a.descending)?]) }
    with .sample(descending_along_0)
}

op! {
    topk = "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
        Extern, [FUNCTION METHOD];
    meta(_, a) {
        let (v, i) = ops::sort::topk_meta(a.self_, a.k, a.dim)?;
        Ok(vec![v, i])
    }
    eager(_, a) {
        let (v, i) = ops::sort::topk(a.self_, a.k, a.dim, a.largest)?;
        Ok(vec![v, i])
    }
    with .vjp(&vjp_order::TOPK).sample(|| pos_args(vec![t(fx::x()), Value::Int(2)]))
}
