//! In-place ops on tensors the graph allocated become out-of-place ops (`functionalize`) and fuse;
//! in-place updates of inputs are computed by kernels and written back after them
//! (`functionalize_inputs`), except in calls whose inputs alias; in-place ops on tensors with
//! views, or that would change the dtype, keep the graph on eager. Every case against eager,
//! inputs after the call included.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// Runs `src` on eager and on every target with copies of `inputs`; checks outputs and inputs
/// after the call (bitwise, or within `rtol` for the vector transcendentals); returns whether the
/// JIT took it and its (kernels, nodes).
fn run_tol(src: &str, inputs: &[Tensor], rtol: f64) -> (bool, (usize, usize)) {
    let g = parse(src).unwrap();
    let copies = || {
        inputs
            .iter()
            .map(Tensor::clone_preserving)
            .collect::<Vec<_>>()
    };
    let want_in = copies();
    let want = EagerBackend.compile(&g).unwrap().run(&want_in).unwrap();
    let mut seen = None;
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        let got_in = copies();
        let got = exe.run(&got_in).unwrap();
        let what = format!("{}\n{src}\n{}", b.target_name(), exe.dump());
        for (a, w) in got.iter().zip(&want).chain(got_in.iter().zip(&want_in)) {
            assert_close(a, w, rtol, 0.0, &what);
        }
        seen = Some((exe.is_jitted(), exe.step_counts()));
    }
    seen.expect("invariant: at least one target")
}

fn run(src: &str, inputs: &[Tensor]) -> (bool, (usize, usize)) {
    run_tol(src, inputs, 0.0)
}

#[test]
fn in_place_chains_on_intermediates_fuse() {
    let (x, w) = (randn(&[9, 33], 1), randn(&[33], 2));
    // out = x * w; out += x; relu(out, inplace=True) (a relu and a copy_); out.mul_(2).
    let src = "graph(%x: f32[9, 33], %w: f32[33]):
  %0: f32[9, 33] = mul(%x, %w)
  %1: f32[9, 33] = add_(%0, %x, alpha=1)
  %2: f32[9, 33] = relu(%1)
  %3: f32[9, 33] = copy_(%1, %2)
  %4: f32[9, 33] = mul_(%3, 2)
  return (%4)
";
    assert_eq!(run(src, &[x.clone(), w]), (true, (1, 0)));
    // Reads before and after a write, and the written tensor returned under its first name.
    let src = "graph(%x: f32[9, 33]):
  %0: f32[9, 33] = mul(%x, 2.0)
  %1: f32[9, 33] = exp(%0)
  %2: f32[9, 33] = sub_(%0, 1.0, alpha=1)
  %3: f32[9, 33] = mul(%1, %0)
  %4: f32[9, 33] = sigmoid_(%2)
  return (%3, %0, %4)
";
    // exp and sigmoid: the vector polynomials' bound and eager's (see diff.rs), plus a product.
    assert_eq!(run_tol(src, std::slice::from_ref(&x), 1e-6), (true, (1, 0)));
    // copy_ takes a value of its own: a later write to the source does not reach it.
    let src = "graph(%x: f32[9, 33]):
  %0: f32[9, 33] = mul(%x, 2.0)
  %1: f32[9, 33] = relu(%x)
  %2: f32[9, 33] = copy_(%0, %1)
  %3: f32[9, 33] = add_(%1, 1.0, alpha=1)
  return (%2, %3)
";
    assert_eq!(run(src, &[x]), (true, (1, 0)));
}

#[test]
fn in_place_ops_eager_must_see_keep_the_graph_on_eager() {
    let x = randn(&[4, 8], 3);
    // Through a view taken before the write.
    let src = "graph(%x: f32[4, 8]):
  %0: f32[4, 8] = mul(%x, 2.0)
  %1: f32[32] = view(%0, [-1])
  %2: f32[4, 8] = add_(%0, 1.0, alpha=1)
  %3: f32[32] = mul(%1, 3.0)
  return (%3)
";
    assert!(!run(src, std::slice::from_ref(&x)).0);
    // The out-of-place op would promote to f64; the in-place one keeps f32.
    let d = randn(&[4, 8], 4).to_dtype(rynamo_tensor::DType::Float64);
    let src = "graph(%x: f32[4, 8], %d: f64[4, 8]):
  %0: f32[4, 8] = mul(%x, 2.0)
  %1: f32[4, 8] = add_(%0, %d, alpha=1)
  return (%1)
";
    assert!(!run(src, &[x, d]).0);
}

#[test]
fn in_place_updates_of_inputs_fuse_and_are_written_back() {
    let x = randn(&[4, 8], 3);
    // On an input: the caller sees the write, and the graph's output is the input itself.
    let src = "graph(%x: f32[4, 8]):
  %0: f32[4, 8] = mul_(%x, 3.0)
  %1: f32[4, 8] = add(%0, 1.0, alpha=1)
  return (%1, %0)
";
    assert!(run(src, std::slice::from_ref(&x)).0);
    // An optimizer's step: a buffer and a parameter updated from a gradient; the counter is 0-d.
    let src = "graph(%p: f32[4, 8], %m: f32[4, 8], %g: f32[4, 8], %n: f32[]):
  %0: f32[] = add_(%n, 1, alpha=1)
  %1: f64[] = to(%0, torch.float64)
  %2: f32[4, 8] = mul_(%m, 0.9)
  %3: f32[4, 8] = add_(%2, %g, alpha=0.1)
  %4: f32[4, 8] = mul(%3, %1)
  %5: f32[4, 8] = add_(%p, %4, alpha=-0.01)
  return (%5)
";
    let (p, m, g) = (randn(&[4, 8], 5), randn(&[4, 8], 6), randn(&[4, 8], 7));
    let n = Tensor::from_vec(vec![2.0f32], &[]).unwrap();
    assert!(run(src, &[p, m, g, n]).0);
}

#[test]
fn optimizer_ternary_updates_of_inputs_fuse() {
    // Adam's moment updates: `lerp_`/`addcmul_` on state inputs become `lerp`/`addcmul` plus a
    // write-back, then decompose, so one kernel computes both and only the two write-backs run
    // as nodes.
    let src = "graph(%m: f32[4, 8], %v: f32[4, 8], %g: f32[4, 8]):
  %0: f32[4, 8] = lerp_(%m, %g, 0.1)
  %1: f32[4, 8] = addcmul_(%v, %g, %g, value=0.001)
  %2: f32[4, 8] = mul(%0, %1)
  return (%2)
";
    let (m, v, g) = (randn(&[4, 8], 8), randn(&[4, 8], 9), randn(&[4, 8], 10));
    let (jitted, (kernels, nodes)) = run_tol(src, &[m, v, g], 1e-6);
    assert!(jitted);
    assert_eq!(
        (kernels, nodes),
        (1, 2),
        "lerp/addcmul must fuse; only copy_ nodes stay"
    );
}

#[test]
fn written_inputs_that_alias_run_the_original_graph() {
    // `p` and `m` one tensor: eager's second write reads the first's result, which the
    // functional form (both computed from the inputs, then written back) would not.
    let src = "graph(%p: f32[4, 8], %m: f32[4, 8]):
  %0: f32[4, 8] = mul_(%m, 2.0)
  %1: f32[4, 8] = add_(%p, %0, alpha=1)
  return (%1)
";
    let g = parse(src).unwrap();
    let fresh = || {
        let t = randn(&[4, 8], 8);
        (t.clone(), t)
    };
    let (a, b) = fresh();
    let want = EagerBackend
        .compile(&g)
        .unwrap()
        .run(&[a.clone(), b])
        .unwrap();
    for (backend, _) in targets() {
        let exe = backend.compile_exe(&g).unwrap();
        assert!(exe.is_jitted());
        let (c, d) = fresh();
        let got = exe.run(&[c.clone(), d]).unwrap();
        assert_close(&got[0], &want[0], 0.0, 0.0, backend.target_name());
        assert_close(&c, &a, 0.0, 0.0, backend.target_name());
    }
}
