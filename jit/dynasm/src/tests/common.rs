//! Shared helpers: run a graph on the JIT and on the eager oracle and compare.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::{Graph, parse};
use rynamo_tensor::{DType, Tensor, random};

use crate::DynasmBackend;

/// Random normal f32 data.
pub fn randn(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, None, Some(&random::Generator::new(seed))).unwrap()
}

/// Compares elementwise: equal dtype and shape; floats within `atol + rtol |want|` (NaNs
/// match NaNs, infinities match exactly), everything else exactly.
#[track_caller]
pub fn assert_close(got: &Tensor, want: &Tensor, rtol: f64, atol: f64, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if want.dtype().is_floating_point() {
            (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs()
        } else {
            a == b
        };
        assert!(ok, "{what}: element {i}: got {a}, want {b}");
    }
}

/// Compiles `g` with the JIT (which must take it) and checks it against eager on `inputs`.
#[track_caller]
pub fn check_graph(g: &Graph, inputs: &[Tensor], rtol: f64, atol: f64) -> crate::DynasmExecutable {
    let exe = DynasmBackend::new().compile_exe(g).unwrap();
    assert!(exe.is_jitted(), "not jitted:\n{}", exe.dump());
    let want = EagerBackend.compile(g).unwrap().run(inputs).unwrap();
    let got = exe.run(inputs).unwrap();
    assert_eq!(got.len(), want.len());
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_close(
            a,
            b,
            rtol,
            atol,
            &format!("output {i} of\n{g}\n{}", exe.dump()),
        );
    }
    exe
}

/// [`check_graph`] on graph text.
#[track_caller]
pub fn check(src: &str, inputs: &[Tensor], rtol: f64, atol: f64) -> crate::DynasmExecutable {
    check_graph(&parse(src).unwrap(), inputs, rtol, atol)
}

/// f32 tolerance for chains of a few ops with transcendentals (a few ulp per op).
pub const F32_TOL: (f64, f64) = (2e-6, 1e-6);

/// Casts.
pub fn cast(t: &Tensor, d: DType) -> Tensor {
    t.to_dtype(d)
}
