//! `lerp`, `addcmul` and `addcdiv` lower through `passes/decompose.rs` into pointwise nodes in
//! eager's order, so the fused kernels match eager bit for bit, specials included.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::{DType, Tensor};

use super::common::{SPECIALS, randn, targets};

/// [`SPECIALS`] plus huge and tiny magnitudes and the lerp weight's branch edges around 0.5.
fn specials() -> Vec<f32> {
    let mut v = SPECIALS.to_vec();
    v.extend([
        0.5, -0.5, 0.49999997, 0.50000006, 1.0, -1.0, 1.5, 3e38, -3e38, 1e-30,
    ]);
    v
}

/// `n` values: random normals scaled over 2^-20..2^20, with the specials spread through them.
fn data(n: usize, seed: u64) -> Vec<f32> {
    let r = randn(&[n], seed).to_vec::<f32>();
    let sp = specials();
    r.iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % 3 == 0 {
                sp[(i / 3 + seed as usize) % sp.len()]
            } else {
                v * 2f32.powi((i % 41) as i32 - 20)
            }
        })
        .collect()
}

/// Runs `src` on eager and on every JIT target; outputs must be bitwise equal (any NaN matches
/// any NaN) and the JIT must have left no eager step.
#[track_caller]
fn check_bitwise(src: &str, inputs: &[Tensor]) {
    let g = parse(src).unwrap();
    let want = EagerBackend.compile(&g).unwrap().run(inputs).unwrap();
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        assert!(!exe.dump().contains("eager"), "{}", exe.dump());
        let got = exe.run(inputs).unwrap();
        for (o, (a, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!((a.dtype(), a.shape()), (w.dtype(), w.shape()));
            let (a, w) = (a.to_vec::<f64>(), w.to_vec::<f64>());
            for (i, (x, y)) in a.iter().zip(&w).enumerate() {
                assert!(
                    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                    "{}: output {o} element {i}: got {x:e}, want {y:e}\n{src}",
                    b.target_name()
                );
            }
        }
    }
}

fn f32s(v: Vec<f32>, shape: &[usize]) -> Tensor {
    Tensor::from_vec(v, shape).unwrap()
}

#[test]
fn lerp_with_scalar_and_tensor_weights_is_bitwise_eager() {
    let n = 1031;
    let (x, e) = (f32s(data(n, 1), &[n]), f32s(data(n, 2), &[n]));
    // Weights on both sides of 0.5, negative, past 1, and the specials.
    let w: Vec<f32> = data(n, 3)
        .iter()
        .map(|v| v.clamp(-4.0, 4.0) * 0.7)
        .collect();
    let w = f32s(w, &[n]);
    for s in ["0.3", "0.5", "-0.2", "0.75", "1.0", "2.5", "nan"] {
        let src = format!(
            "graph(%x: f32[{n}], %e: f32[{n}]):\n  %0: f32[{n}] = lerp(%x, %e, {s})\n  return (%0)\n"
        );
        check_bitwise(&src, &[x.clone(), e.clone()]);
    }
    let src = format!(
        "graph(%x: f32[{n}], %e: f32[{n}], %w: f32[{n}]):\n  %0: f32[{n}] = lerp(%x, %e, %w)\n  return (%0)\n"
    );
    check_bitwise(&src, &[x, e, w]);
    // Broadcast weight and f64.
    let (x, e) = (randn(&[33, 1], 4), randn(&[1, 37], 5));
    let w = f32s(data(37, 6), &[37]);
    let src = "graph(%x: f32[33, 1], %e: f32[1, 37], %w: f32[37]):\n  %0: f32[33, 37] = lerp(%x, %e, %w)\n  return (%0)\n";
    check_bitwise(src, &[x.clone(), e.clone(), w]);
    let (x, e) = (x.to_dtype(DType::Float64), e.to_dtype(DType::Float64));
    let src = "graph(%x: f64[33, 1], %e: f64[1, 37]):\n  %0: f64[33, 37] = lerp(%x, %e, 0.6)\n  return (%0)\n";
    check_bitwise(src, &[x, e]);
}

#[test]
fn addcmul_and_addcdiv_are_bitwise_eager() {
    let n = 1031;
    let ins: Vec<Tensor> = (1..4).map(|s| f32s(data(n, s), &[n])).collect();
    for v in ["1", "0.1", "-3", "1e-30"] {
        for op in ["addcmul", "addcdiv"] {
            let src = format!(
                "graph(%x: f32[{n}], %a: f32[{n}], %b: f32[{n}]):\n  %0: f32[{n}] = {op}(%x, %a, %b, value={v})\n  return (%0)\n"
            );
            check_bitwise(&src, &ins);
        }
    }
    let ins = [randn(&[7, 1, 9], 7), randn(&[1, 8, 1], 8), randn(&[9], 9)];
    let src = "graph(%x: f32[7, 1, 9], %a: f32[1, 8, 1], %b: f32[9]):\n  %0: f32[7, 8, 9] = addcdiv(%x, %a, %b, value=0.5)\n  %1: f32[7, 8, 9] = addcmul(%0, %a, %b, value=2)\n  return (%1)\n";
    check_bitwise(src, &ins);
    let ins: Vec<Tensor> = ins.iter().map(|t| t.to_dtype(DType::Float64)).collect();
    let src = src.replace("f32", "f64");
    check_bitwise(&src, &ins);
}

/// Mixed dtypes keep the eager node (eager converts the operands before computing).
#[test]
fn mixed_dtype_addcmul_stays_an_eager_node() {
    let ins = [
        randn(&[16], 10),
        randn(&[16], 11).to_dtype(DType::Float64),
        randn(&[16], 12),
    ];
    let src = "graph(%x: f32[16], %a: f64[16], %b: f32[16]):\n  %0: f64[16] = addcmul(%x, %a, %b, value=0.5)\n  return (%0)\n";
    let exe = super::common::check(src, &ins, 0.0, 0.0);
    assert!(exe.dump().contains("eager"), "{}", exe.dump());
}
