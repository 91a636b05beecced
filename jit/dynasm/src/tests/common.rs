//! Shared helpers: run a graph on the JIT and on the eager oracle and compare.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::{Graph, parse};
use rynamo_tensor::{Tensor, random};

use crate::DynasmBackend;

/// Random normal f32 data.
pub fn randn(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, None, Some(&random::Generator::new(seed))).unwrap()
}

/// The f32 specials every kernel must carry through: NaN, infinities, signed zeros, subnormals.
pub const SPECIALS: [f32; 7] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    1e-40,
    -1e-40,
];

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

/// The backends to test: the SSE2 path and each higher tier the CPU has (AVX2+FMA, AVX-512),
/// whatever `RYNAMO_JIT_ISA` says; `true` marks SSE2.
#[cfg(target_arch = "x86_64")]
pub fn targets() -> Vec<(DynasmBackend, bool)> {
    use crate::x64::{Isa, X64Target};
    let avx =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    let avx512 = avx
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq");
    let tiers = [(Isa::Sse2, true), (Isa::Avx2, avx), (Isa::Avx512, avx512)];
    tiers
        .into_iter()
        .filter(|&(_, has)| has)
        .map(|(isa, _)| {
            let b = DynasmBackend::with_target(Box::new(X64Target { isa }));
            (b, isa == Isa::Sse2)
        })
        .collect()
}

#[cfg(target_arch = "x86_64")]
/// f32 lanes of `b`'s vector path.
pub fn lanes(b: &DynasmBackend) -> usize {
    match b.target_name() {
        "x64-avx512" => 16,
        "x64-avx2" => 8,
        _ => 4,
    }
}

/// The backends to test: on AArch64 the NEON target (run natively or under qemu-user).
#[cfg(target_arch = "aarch64")]
pub fn targets() -> Vec<(DynasmBackend, bool)> {
    vec![(
        DynasmBackend::with_target(Box::new(crate::aarch64::NeonTarget)),
        false,
    )]
}

/// Compiles `g` with the JIT on every target (the JIT must take it) and checks it against eager
/// on `inputs`. Returns the last target's executable.
#[track_caller]
pub fn check_graph(g: &Graph, inputs: &[Tensor], rtol: f64, atol: f64) -> crate::DynasmExecutable {
    let want = EagerBackend.compile(g).unwrap().run(inputs).unwrap();
    let mut last = None;
    for (b, _) in targets() {
        let exe = b.compile_exe(g).unwrap();
        assert!(exe.is_jitted(), "not jitted:\n{}", exe.dump());
        let got = exe.run(inputs).unwrap();
        assert_eq!(got.len(), want.len());
        for (i, (a, w)) in got.iter().zip(&want).enumerate() {
            let what = format!("{}: output {i} of\n{g}\n{}", b.target_name(), exe.dump());
            assert_close(a, w, rtol, atol, &what);
        }
        last = Some(exe);
    }
    last.expect("invariant: at least one target")
}

/// [`check_graph`] on graph text.
#[track_caller]
pub fn check(src: &str, inputs: &[Tensor], rtol: f64, atol: f64) -> crate::DynasmExecutable {
    check_graph(&parse(src).unwrap(), inputs, rtol, atol)
}

/// The streaming thresholds and the thread split are process-wide: `cargo test` runs tests on
/// threads of one process, so the tests that change them take turns.
pub fn turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A row max, `e = exp(x - max)`, its row sum, and the graph's own tail on `%0` (max), `%1`
/// (`x - max`), `%2` (`e`) and `%3` (sum).
pub fn exp_rows(rows: usize, cols: usize, tail: &str, ret: &str) -> String {
    format!(
        "graph(%x: f32[{rows}, {cols}]):
  %0: f32[{rows}, 1] = amax(%x, [-1], True)
  %1: f32[{rows}, {cols}] = sub(%x, %0, alpha=1)
  %2: f32[{rows}, {cols}] = exp(%1)
  %3: f32[{rows}, 1] = sum(%2, [-1], True)
{tail}  return ({ret})
"
    )
}
