//! Matrix products, vector products and `einsum`. The products and `einsum` take complex
//! operands (`ops::complex::batched_gemm`); their formulas conjugate the other operand.

use rynamo_tensor::ops::{self, linalg};

use crate::Value;
use crate::autograd::vjp::einsum as vjp_einsum;
use crate::autograd::vjp::linalg as vjp;
use crate::def::op;
use crate::samples::{f32s, fx, pos_args, t, with_kw};

/// A product of two tensors: `$meta(a, b)` / `$kernel(a, b)` on the parameters named.
macro_rules! product {
    ($name:ident = $schema:literal, $low:ident, $lhs:ident, $rhs:ident, $meta:path, $kernel:path
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, $low, [FUNCTION METHOD];
            meta(_, a) { Ok(vec![$meta(a.$lhs, a.$rhs)?]) }
            eager(_, a) { Ok(vec![$kernel(a.$lhs, a.$rhs)?]) }
            $(with $($with)*)?
        }
    };
}

product!(
    matmul = "matmul(Tensor self, Tensor other) -> Tensor",
    MatMul,
    self_,
    other,
    ops::matmul::matmul_meta,
    ops::matmul::matmul,
    with.complex_grad()
        .vjp(&vjp::MATMUL)
        .operators(&["matmul", "imatmul"])
        .sample(|| pos_args(vec![t(fx::x()), t(f32s(&[3, 4]))]))
);
product!(
    mm = "mm(Tensor self, Tensor mat2) -> Tensor",
    MatMul,
    self_,
    mat2,
    ops::matmul::mm_meta,
    ops::matmul::mm,
    with.complex_grad()
        .vjp(&vjp::MM)
        .sample(|| pos_args(vec![t(fx::x()), t(f32s(&[3, 4]))]))
);
product!(
    bmm = "bmm(Tensor self, Tensor mat2) -> Tensor",
    MatMul,
    self_,
    mat2,
    ops::matmul::bmm_meta,
    ops::matmul::bmm,
    with.complex_grad()
        .vjp(&vjp::BMM)
        .sample(|| pos_args(vec![t(f32s(&[2, 2, 3])), t(f32s(&[2, 3, 2]))]))
);
product!(
    dot = "dot(Tensor self, Tensor tensor) -> Tensor",
    MatMul,
    self_,
    tensor,
    linalg::dot_meta,
    linalg::dot,
    with.complex_grad()
        .vjp(&vjp::DOT)
        .sample(|| pos_args(vec![t(fx::y()), t(fx::y())]))
);
product!(
    mv = "mv(Tensor self, Tensor vec) -> Tensor",
    MatMul,
    self_,
    vec,
    linalg::mv_meta,
    linalg::mv,
    with.complex_grad()
        .vjp(&vjp::MV)
        .sample(|| pos_args(vec![t(fx::x()), t(fx::y())]))
);
product!(
    outer = "outer(Tensor self, Tensor vec2) -> Tensor",
    Extern,
    self_,
    vec2,
    linalg::outer_meta,
    linalg::outer,
    with.complex_grad().vjp(&vjp::OUTER).sample(|| {
        let row = fx::ints()
            .select(0, 0)
            .expect("invariant: sample tensors have valid shapes");
        pos_args(vec![t(fx::y()), t(row)])
    })
);

op! {
    addmm = "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        MatMul, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![ops::matmul::addmm_meta(a.self_, a.mat1, a.mat2)?]) }
    eager(_, a) { Ok(vec![ops::matmul::addmm(a.self_, a.mat1, a.mat2, a.beta, a.alpha)?]) }
    with .complex_grad().vjp(&vjp::ADDMM).sample(|| {
        let xt = fx::x().t().expect("invariant: sample tensors have valid shapes");
        with_kw(vec![t(fx::y()), t(xt), t(fx::x())], "beta", Value::Float(0.5))
    })
}

op! {
    linear = "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", MatMul,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![ops::matmul::linear_meta(a.input, a.weight, a.bias)?]) }
    eager(_, a) { Ok(vec![ops::matmul::linear(a.input, a.weight, a.bias)?]) }
    with .complex_grad().vjp(&vjp::LINEAR)
        .sample(|| pos_args(vec![t(fx::x()), t(f32s(&[4, 3])), t(f32s(&[4]))]))
}

op! {
    baddbmm =
        "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        MatMul, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![linalg::baddbmm_meta(a.self_, a.batch1, a.batch2)?]) }
    eager(_, a) { Ok(vec![linalg::baddbmm(a.self_, a.batch1, a.batch2, a.beta, a.alpha)?]) }
    with .complex_grad().vjp(&vjp::BADDBMM).sample(|| {
        let args = vec![t(fx::y()), t(f32s(&[2, 2, 4])), t(f32s(&[2, 4, 3]))];
        with_kw(args, "alpha", Value::Float(2.0))
    })
}

op! {
    einsum = "einsum(str equation, Tensor[] tensors) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![ops::einsum::einsum_meta(a.equation, &a.tensors)?]) }
    eager(_, a) { Ok(vec![ops::einsum::einsum(a.equation, &a.tensors)?]) }
    with .complex_grad().vjp(&vjp_einsum::EINSUM).sample(|| {
        let operands = vec![f32s(&[2, 3, 4]), f32s(&[2, 4, 5])];
        pos_args(vec![Value::Str("bij,bjk->bik".into()), Value::TensorList(operands)])
    })
}
