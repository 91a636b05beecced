//! Complex-number ops (issue 29 req 3): the component views `view_as_real`, `view_as_complex`,
//! `real`, `imag`; `angle`, `conj` (materialised: Rynamo has no lazy conjugate bit); `polar` and
//! `complex`. Layouts, checks and kernels are `rynamo_tensor::ops::complex`'s; backward formulas
//! in `autograd::vjp::complex`.

use rynamo_tensor::ops::complex as cx;
use rynamo_tensor::{DType, Shaped, Tensor, TensorMeta};

use crate::autograd::vjp::complex as vjp;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t};
use crate::{Error, Result};

/// A complex64 sample of shape [2, 3] (components from the ramp fixture).
fn cx() -> Tensor {
    let r = f32s(&[2, 3, 2]);
    cx::view_as_complex(&r).expect("invariant: a contiguous [.., 2] float tensor")
}

fn cx_sample() -> Sample {
    pos_args(vec![t(cx())])
}

fn pair_sample() -> Sample {
    pos_args(vec![t(fx::x()), t(fx::x().deep_clone())])
}

fn meta_from((d, l): (DType, rynamo_tensor::Layout)) -> TensorMeta {
    TensorMeta::from_layout(d, &l)
}

fn pair_meta<T: Shaped>(a: &T, b: &T) -> Result<TensorMeta> {
    let c = cx::pair_dtype(a.dtype(), b.dtype())?;
    let shape = rynamo_tensor::layout::broadcast_shapes(a.shape(), b.shape())?;
    Ok(TensorMeta::contiguous(c, &shape))
}

op! {
    view_as_real = "view_as_real(Tensor self) -> Tensor", View, [FUNCTION VIEW];
    meta(_, a) { Ok(vec![meta_from(cx::view_as_real_meta(a.self_)?)]) }
    eager(_, a) { Ok(vec![cx::view_as_real(a.self_)?]) }
    with .complex_grad().vjp(&vjp::VIEW_AS_REAL).sample(cx_sample)
}

op! {
    view_as_complex = "view_as_complex(Tensor self) -> Tensor", View, [FUNCTION VIEW];
    meta(_, a) { Ok(vec![meta_from(cx::view_as_complex_meta(a.self_)?)]) }
    eager(_, a) { Ok(vec![cx::view_as_complex(a.self_)?]) }
    with .complex_grad().vjp(&vjp::VIEW_AS_COMPLEX).sample(|| pos_args(vec![t(f32s(&[3, 2]))]))
}

op! {
    real = "real(Tensor self) -> Tensor", View, [FUNCTION VIEW];
    meta(_, a) { Ok(vec![meta_from(cx::component_meta(a.self_, 0)?)]) }
    eager(_, a) { Ok(vec![cx::component_view(a.self_, 0)?]) }
    with .complex_grad().vjp(&vjp::REAL).sample(cx_sample)
}

op! {
    imag = "imag(Tensor self) -> Tensor", View, [FUNCTION VIEW];
    meta(_, a) { Ok(vec![meta_from(cx::component_meta(a.self_, 1)?)]) }
    eager(_, a) { Ok(vec![cx::component_view(a.self_, 1)?]) }
    with .complex_grad().vjp(&vjp::IMAG).sample(cx_sample)
}

op! {
    angle = "angle(Tensor self) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![TensorMeta::contiguous(cx::angle_dtype(a.self_.dtype()), a.self_.shape())]) }
    eager(_, a) { Ok(vec![cx::angle(a.self_)?]) }
    with .complex_grad().vjp(&vjp::ANGLE).sample(cx_sample)
}

op! {
    conj = "conj(Tensor self) -> Tensor", Extern, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![TensorMeta::contiguous(a.self_.dtype(), a.self_.shape())]) }
    eager(_, a) { Ok(vec![cx::conj(a.self_)]) }
    with .complex_grad().vjp(&vjp::CONJ).sample(cx_sample)
}

op! {
    polar = "polar(Tensor abs, Tensor angle) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![pair_meta(a.abs, a.angle)?]) }
    eager(_, a) { Ok(vec![cx::from_pair(a.abs, a.angle, true)?]) }
    with .complex_grad().vjp(&vjp::POLAR).sample(pair_sample)
}

op! {
    complex = "complex(Tensor real, Tensor imag) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![pair_meta(a.real, a.imag)?]) }
    eager(_, a) { Ok(vec![cx::from_pair(a.real, a.imag, false)?]) }
    with .complex_grad().vjp(&vjp::COMPLEX).sample(pair_sample)
}

/// Whether a value holds a complex tensor or names a complex dtype.
fn is_complex_value<T: Shaped>(v: &crate::Value<T>) -> bool {
    match v {
        crate::Value::Tensor(x) => x.dtype().is_complex(),
        crate::Value::TensorList(xs) => xs.iter().any(|x| x.dtype().is_complex()),
        crate::Value::DType(d) => d.is_complex(),
        _ => false,
    }
}

/// The first complex dtype among `args` (tensors, tensor lists, dtype arguments), if any.
pub(crate) fn complex_dtype<T: Shaped>(args: &[crate::Value<T>]) -> Option<DType> {
    args.iter().find(|v| is_complex_value(v)).map(|v| match v {
        crate::Value::Tensor(x) => x.dtype(),
        crate::Value::TensorList(xs) => xs
            .iter()
            .map(Shaped::dtype)
            .find(|d| d.is_complex())
            .unwrap_or(DType::Complex64),
        crate::Value::DType(d) => *d,
        _ => DType::Complex64,
    })
}

/// Whether autograd may record `op` with complex arguments or results: its formula is right in
/// PyTorch's complex convention (`.complex_grad()`), or it is a view (layout-only formulas).
pub(crate) fn grad_ok(op: crate::Op) -> bool {
    op.def().complex.is_differentiable() || op.def().flags.contains(crate::OpFlags::VIEW)
}

/// The complex gate of every eager call and meta rule: an op whose `OpDef` does not declare
/// complex support (`.complex()`; view ops move no data and always qualify) raises PyTorch's
/// error when an argument is complex, so no real kernel ever reads complex bytes.
pub(crate) fn check<T: Shaped>(op: crate::Op, args: &[crate::Value<T>]) -> Result<()> {
    let def = op.def();
    if def.complex.is_supported() || def.flags.contains(crate::OpFlags::VIEW) {
        return Ok(());
    }
    let Some(d) = complex_dtype(args) else {
        return Ok(());
    };
    Err(Error::Tensor(def.complex.error(op, d)))
}
