//! The fast paths behind the JIT workloads of `benchmarks.md`: sin/cos sharing one range
//! reduction, and pooled output buffers. Each is checked
//! against eager, and the sharing also bitwise against the unshared kernels.

use rynamo_backend::Executable;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// f32 transcendentals: our bound (<= 3 ulp) plus libm's (1 ulp), as in `diff.rs`.
const TRANS: (f64, f64) = (5e-7, 1e-37);

fn trig_data(n: usize, seed: u64, huge: bool) -> Tensor {
    let mut v: Vec<f32> = randn(&[n], seed)
        .to_vec::<f32>()
        .into_iter()
        .map(|x| x * 4.0)
        .collect();
    if huge && n > 3 {
        // Past TRIG_LIMIT: the vector falls back to the library on every lane.
        v[3] = 3.0e7;
    }
    if n > 1 {
        v[1] = -0.0;
    }
    Tensor::from_vec(v, &[n]).unwrap()
}

#[test]
fn sin_and_cos_of_one_value_share_a_reduction_and_match_separate_kernels_bitwise() {
    for &n in &[1usize, 7, 8, 9, 33, 1025] {
        for huge in [false, true] {
            let x = trig_data(n, n as u64, huge);
            let inputs = std::slice::from_ref(&x);
            let one = |op: &str| {
                let src =
                    format!("graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n");
                targets()
                    .into_iter()
                    .map(|(b, _)| b.compile_exe(&parse(&src).unwrap()).unwrap())
                    .collect::<Vec<_>>()
            };
            let (sin, cos) = (one("sin"), one("cos"));
            for (first, second) in [("sin", "cos"), ("cos", "sin")] {
                let src = format!(
                    "graph(%x: f32[{n}]):\n  %0: f32[{n}] = {first}(%x)\n  %1: f32[{n}] = mul(%0, 1.5)\n  %2: f32[{n}] = {second}(%x)\n  return (%1, %0, %2)\n"
                );
                let exe = check(&src, inputs, TRANS.0, TRANS.1);
                let shared = targets()
                    .into_iter()
                    .map(|(b, _)| b.compile_exe(&parse(&src).unwrap()).unwrap());
                let sse2 = targets().into_iter().map(|(_, sse2)| sse2);
                for (((s, (c, single)), pair), sse2) in
                    sin.iter().zip(cos.iter().zip(&sin)).zip(shared).zip(sse2)
                {
                    let got = pair.run(inputs).unwrap();
                    let (gs, gc) = if first == "sin" {
                        (&got[1], &got[2])
                    } else {
                        (&got[2], &got[1])
                    };
                    let bits = |t: &Tensor| {
                        t.to_vec::<f32>()
                            .into_iter()
                            .map(f32::to_bits)
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(gs), bits(&s.run(inputs).unwrap()[0]), "sin n={n}");
                    assert_eq!(bits(gc), bits(&c.run(inputs).unwrap()[0]), "cos n={n}");
                    // One reduction: as many f64 conversions as a lone sin kernel has (on
                    // SSE2, where neither body is copied for interleaving).
                    let count = |e: &crate::DynasmExecutable| e.dump().matches("cvtps2pd").count();
                    if sse2 {
                        assert_eq!(count(&pair), count(single), "{}", pair.dump());
                    }
                }
                drop(exe);
            }
        }
    }
    // A hoisted pair: sin and cos of a broadcast value, computed once per row.
    let (x, s) = (randn(&[5, 9], 1), randn(&[5, 1], 2));
    check(
        "graph(%x: f32[5, 9], %s: f32[5, 1]):\n  %0: f32[5, 1] = cos(%s)\n  %1: f32[5, 1] = sin(%s)\n  %2: f32[5, 9] = mul(%x, %0)\n  %3: f32[5, 9] = add(%2, %1, alpha=1)\n  return (%3)\n",
        &[x, s],
        TRANS.0,
        TRANS.1,
    );
}

#[test]
fn pooled_outputs_are_rewritten_in_full() {
    // 1 MiB outputs come from the pool; later runs get earlier (dirty) buffers back.
    let n = 1 << 18;
    let src = format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = sigmoid(%x)\n  %1: f32[{n}] = mul(%x, 2.0)\n  return (%0, %1)\n"
    );
    for seed in 0..4 {
        let x = randn(&[n], seed);
        let exe = check(&src, std::slice::from_ref(&x), TRANS.0, TRANS.1);
        let out = exe.run(std::slice::from_ref(&x)).unwrap();
        assert!(out[0].storage().is_external(), "pooled");
        drop(out);
        assert!(crate::buffers::pooled_bytes() <= crate::buffers::MAX_POOLED_BYTES);
    }
}

/// Runs `src(r, c)` on `inputs` and `src(1, 1)` on each element alone (rows broadcast over
/// columns when their input has one column, columns broadcast when it has one row), bitwise.
#[track_caller]
fn elementwise_bitwise(
    src: &dyn Fn(usize, usize) -> String,
    inputs: &[Tensor],
    r: usize,
    c: usize,
) {
    let g = parse(&src(r, c)).unwrap();
    let one = parse(&src(1, 1)).unwrap();
    let data: Vec<Vec<f32>> = inputs.iter().map(|t| t.to_vec::<f32>()).collect();
    for (b, _) in targets() {
        let got = b.compile_exe(&g).unwrap().run(inputs).unwrap();
        let single = b.compile_exe(&one).unwrap();
        let outs: Vec<Vec<f32>> = got.iter().map(|t| t.to_vec::<f32>()).collect();
        for i in 0..r * c {
            let args: Vec<Tensor> = inputs
                .iter()
                .zip(&data)
                .map(|(t, d)| {
                    let j = match t.shape() {
                        [rr, 1] if *rr == r => i / c,
                        [cc] if *cc == c => i % c,
                        _ => i,
                    };
                    let shape: Vec<usize> = t.shape().iter().map(|_| 1).collect();
                    Tensor::from_vec(vec![d[j]], &shape).unwrap()
                })
                .collect();
            let want = single.run(&args).unwrap();
            for (o, t) in outs.iter().zip(&want) {
                let w = t.to_vec::<f32>()[0];
                assert_eq!(
                    o[i].to_bits(),
                    w.to_bits(),
                    "{}: element {i}",
                    b.target_name()
                );
            }
        }
    }
}

#[test]
fn copied_gelu_bodies_match_single_elements_bitwise() {
    // W3's GELU phase: three interleaved copies on AVX2.
    let (r, c) = (2usize, 77usize);
    let src = |r: usize, c: usize| {
        format!(
            "graph(%x: f32[{r}, {c}], %w: f32[{c}], %b: f32[{c}]):\n  %0: f32[{r}, {c}] = mul(%x, %w)\n  %1: f32[{r}, {c}] = add(%0, %b, alpha=1)\n  %2: f32[{r}, {c}] = gelu(%1, approximate='tanh')\n  return (%2)\n"
        )
    };
    let inputs = [randn(&[r, c], 1), randn(&[c], 2), randn(&[c], 3)];
    elementwise_bitwise(&src, &inputs, r, c);
}

#[test]
fn copied_pointwise_bodies_match_single_elements_bitwise() {
    // W1's chain with a per-row operand: 53 columns are one pass of the copied loop (four
    // vectors), two of the one-vector loop and a five-element scalar tail.
    let (r, c) = (3usize, 53usize);
    let src = |r: usize, c: usize| {
        format!(
            "graph(%x: f32[{r}, {c}], %w: f32[{r}, 1]):\n  %0: f32[{r}, {c}] = sin(%x)\n  %1: f32[{r}, {c}] = mul(%0, %w)\n  %2: f32[{r}, {c}] = cos(%x)\n  %3: f32[{r}, {c}] = add(%1, %2, alpha=1)\n  %4: f32[{r}, {c}] = sigmoid(%3)\n  %5: f32[{r}, {c}] = tanh(%x)\n  %6: f32[{r}, {c}] = mul(%4, %5)\n  return (%6, %3)\n"
        )
    };
    elementwise_bitwise(&src, &[randn(&[r, c], 7), randn(&[r, 1], 8)], r, c);
}

#[test]
fn batched_matmuls_one_matrix_per_thread_match_eager() {
    // Attention as in W8 (a transposed view as the right operand), bmm, 4-D batches, and the
    // cases left to eager: broadcast batch dims, 2-D operands, one matrix.
    let (q, k, v) = (
        randn(&[4, 9, 5], 1),
        randn(&[4, 9, 5], 2),
        randn(&[4, 9, 5], 3),
    );
    check(
        "graph(%q: f32[4, 9, 5], %k: f32[4, 9, 5], %v: f32[4, 9, 5]):\n  %0: f32[4, 5, 9]{45, 1, 5} = transpose(%k, -1, -2)\n  %1: f32[4, 9, 9] = matmul(%q, %0)\n  %2: f32[4, 9, 9] = div(%1, 8.0)\n  %3: f32[4, 9, 9] = softmax(%2, -1, None)\n  %4: f32[4, 9, 5] = matmul(%3, %v)\n  return (%4)\n",
        &[q, k, v],
        1e-5,
        1e-6,
    );
    let (a, b) = (randn(&[3, 7, 33], 4), randn(&[3, 33, 6], 5));
    check(
        "graph(%a: f32[3, 7, 33], %b: f32[3, 33, 6]):\n  %0: f32[3, 7, 6] = bmm(%a, %b)\n  %1: f32[3, 7, 6] = mul(%0, 2.0)\n  return (%1, %0)\n",
        &[a, b],
        1e-5,
        1e-5,
    );
    let (a, b) = (randn(&[2, 3, 7, 8], 6), randn(&[2, 3, 8, 4], 7));
    check(
        "graph(%a: f32[2, 3, 7, 8], %b: f32[2, 3, 8, 4]):\n  %0: f32[2, 3, 7, 4] = matmul(%a, %b)\n  return (%0)\n",
        &[a, b],
        1e-5,
        1e-5,
    );
    let (a, b) = (randn(&[3, 7, 8], 8), randn(&[8, 4], 9));
    check(
        "graph(%a: f32[3, 7, 8], %b: f32[8, 4]):\n  %0: f32[3, 7, 4] = matmul(%a, %b)\n  %1: f32[1, 7, 8] = slice(%a, 0, 0, 1, 1)\n  %2: f32[1, 7, 4] = matmul(%1, %b)\n  return (%0, %2)\n",
        &[a, b],
        1e-5,
        1e-5,
    );
}

#[test]
fn division_by_a_power_of_two_is_a_bitwise_equal_multiplication() {
    use rynamo_backend::{Backend, EagerBackend};
    let mut v: Vec<f32> = randn(&[40], 9).to_vec::<f32>();
    v.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
        1.0e-40,
        -3.0e-45,
        7.0e37,
    ]);
    let n = v.len();
    let x = Tensor::from_vec(v, &[n]).unwrap();
    for d in [
        "8.0",
        "0.5",
        "-4.0",
        "1.1754943508222875e-38",
        "1.2676506002282294e+30",
        "3.0",
    ] {
        let src = format!(
            "graph(%x: f32[{n}]):\n  %0: f32[{n}] = div(%x, {d})\n  %1: f32[{n}] = exp(%0)\n  return (%0, %1)\n"
        );
        let g = parse(&src).unwrap();
        let want = EagerBackend
            .compile(&g)
            .unwrap()
            .run(std::slice::from_ref(&x))
            .unwrap();
        let bits = |t: &Tensor| {
            t.to_vec::<f32>()
                .into_iter()
                .map(f32::to_bits)
                .collect::<Vec<_>>()
        };
        for (b, _) in targets() {
            let exe = b.compile_exe(&g).unwrap();
            let got = exe.run(std::slice::from_ref(&x)).unwrap();
            assert_eq!(bits(&got[0]), bits(&want[0]), "{} / {d}", b.target_name());
            let has_div = exe.dump().contains("= Div(");
            assert_eq!(has_div, d == "3.0", "{d}: {}", exe.dump());
        }
    }
}
