//! Attention fused per matrix (`attn.rs`): against eager on every target, bitwise against the
//! same steps compiled and run one after another, and the cases it must leave alone or hand
//! back to the steps at run time (broadcast batch dims, one matrix, values read elsewhere).

use rynamo_backend::Executable;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// Tolerances of the existing attention test (`perf_paths.rs`): GEMM sums reassociate.
const TOL: (f64, f64) = (1e-5, 1e-6);

fn dims(s: &[usize]) -> String {
    s.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Contiguous strides of `s`.
fn strides(s: &[usize]) -> Vec<usize> {
    let mut st = vec![1usize; s.len()];
    for d in (0..s.len().saturating_sub(1)).rev() {
        st[d] = st[d + 1] * s[d + 1];
    }
    st
}

/// `s.transpose(-1, -2)` as a view: its shape and strides.
fn transposed(s: &[usize]) -> String {
    let n = s.len();
    let (mut sh, mut st) = (s.to_vec(), strides(s));
    sh.swap(n - 1, n - 2);
    st.swap(n - 1, n - 2);
    format!("f32[{}]{{{}}}", dims(&sh), dims(&st))
}

struct Attn<'a> {
    bq: &'a [usize],
    bk: &'a [usize],
    m: usize,
    n: usize,
    d: usize,
    dv: usize,
    mask: bool,
    /// `v` given as `[.., dv, n]` and transposed in the graph.
    v_t: bool,
    /// Extra graph outputs (`%1`: the scores, `%4`: the probabilities).
    extra: &'a str,
}

impl Attn<'_> {
    fn bo(&self) -> Vec<usize> {
        self.bq
            .iter()
            .zip(self.bk)
            .map(|(&a, &b)| a.max(b))
            .collect()
    }

    fn shape(&self, b: &[usize], r: usize, c: usize) -> Vec<usize> {
        let mut s = b.to_vec();
        s.extend([r, c]);
        s
    }

    fn src(&self) -> String {
        let (bo, m, n) = (self.bo(), self.m, self.n);
        let q = self.shape(self.bq, m, self.d);
        let k = self.shape(self.bk, n, self.d);
        let v = if self.v_t {
            self.shape(self.bk, self.dv, n)
        } else {
            self.shape(self.bk, n, self.dv)
        };
        let s = dims(&self.shape(&bo, m, n));
        let o = dims(&self.shape(&bo, m, self.dv));
        let mut g = format!(
            "graph(%q: f32[{}], %k: f32[{}], %v: f32[{}]{}):\n",
            dims(&q),
            dims(&k),
            dims(&v),
            if self.mask {
                format!(", %mask: f32[{m}, {n}]")
            } else {
                String::new()
            }
        );
        g += &format!("  %0: {} = transpose(%k, -1, -2)\n", transposed(&k));
        g += &format!("  %1: f32[{s}] = matmul(%q, %0)\n");
        g += &format!("  %2: f32[{s}] = div(%1, 8.0)\n");
        if self.mask {
            g += &format!("  %3: f32[{s}] = add(%2, %mask, alpha=1)\n");
        } else {
            g += &format!("  %3: f32[{s}] = mul(%2, 1.0)\n");
        }
        g += &format!("  %4: f32[{s}] = softmax(%3, -1, None)\n");
        let vv = if self.v_t {
            g += &format!("  %6: {} = transpose(%v, -1, -2)\n", transposed(&v));
            "%6"
        } else {
            "%v"
        };
        g += &format!("  %5: f32[{o}] = matmul(%4, {vv})\n");
        g + &format!("  return (%5{})\n", self.extra)
    }

    fn inputs(&self, seed: u64) -> Vec<Tensor> {
        let (m, n) = (self.m, self.n);
        let mut ins = vec![
            randn(&self.shape(self.bq, m, self.d), seed),
            randn(&self.shape(self.bk, n, self.d), seed + 1),
            randn(
                &if self.v_t {
                    self.shape(self.bk, self.dv, n)
                } else {
                    self.shape(self.bk, n, self.dv)
                },
                seed + 2,
            ),
        ];
        if self.mask {
            ins.push(randn(&[m, n], seed + 3));
        }
        ins
    }
}

fn plain<'a>(b: &'a [usize], m: usize, n: usize, d: usize, dv: usize) -> Attn<'a> {
    Attn {
        bq: b,
        bk: b,
        m,
        n,
        d,
        dv,
        mask: false,
        v_t: false,
        extra: "",
    }
}

/// Checks `a` against eager on every target: how many attention steps the last target
/// compiled, and how many fused runs there were (the fused path, not the steps at run time).
#[track_caller]
fn fused_steps(a: &Attn) -> (usize, usize) {
    let before = crate::attn::fused_runs();
    let exe = check(&a.src(), &a.inputs(7), TOL.0, TOL.1);
    (exe.attention_steps(), crate::attn::fused_runs() - before)
}

#[test]
fn attention_fuses_and_matches_eager_over_shapes() {
    // Odd batch counts, 4-D batches, sizes 1 and sizes off every blocking (8/16 lanes, GEMM
    // tiles), a mask read per row, and a transposed `v`.
    for (b, m, n, d, dv) in [
        (&[4usize][..], 9, 9, 5, 5),
        (&[3], 7, 33, 5, 6),
        (&[5], 1, 17, 3, 2),
        (&[2], 31, 2, 1, 1),
        (&[2, 3], 13, 40, 8, 9),
        (&[7], 65, 129, 16, 24),
        (&[2], 200, 50, 16, 16),
    ] {
        for (mask, v_t) in [(false, false), (true, false), (false, true), (true, true)] {
            let a = Attn {
                mask,
                v_t,
                ..plain(b, m, n, d, dv)
            };
            assert_eq!(fused_steps(&a), (1, targets().len()), "{}", a.src());
        }
    }
}

#[test]
fn attention_with_one_column_is_left_to_the_steps() {
    // A row of one element has no column loop to hand scratch to: the steps run it.
    let a = plain(&[3], 5, 1, 4, 3);
    assert_eq!(fused_steps(&a), (0, 0));
}

#[test]
fn attention_hands_back_to_the_steps_at_run_time() {
    // Fused at compile time, but one matrix (nothing to spread) or broadcast batch dims (the
    // per-matrix GEMM wants equal batch dims) run as the three steps.
    let one = plain(&[1], 9, 12, 4, 3);
    assert_eq!(fused_steps(&one), (1, 0));
    let bcast = Attn {
        bq: &[2, 1],
        bk: &[2, 3],
        mask: true,
        ..plain(&[], 6, 10, 4, 5)
    };
    assert_eq!(fused_steps(&bcast), (1, 0));
}

#[test]
fn attention_is_not_fused_when_its_intermediates_are_read_elsewhere() {
    for extra in [", %1", ", %4", ", %1, %4"] {
        let a = Attn {
            extra,
            ..plain(&[3], 6, 10, 4, 5)
        };
        assert_eq!(fused_steps(&a), (0, 0), "{}", a.src());
    }
}

#[test]
fn fused_attention_is_bitwise_the_steps_run_one_after_another() {
    // One row block per matrix, and three uneven ones (203 rows: 67, 68, 68; `attn::row_blocks`).
    bitwise_the_steps(5, 19, 37, 8);
    bitwise_the_steps(2, 203, 37, 8);
}

fn bitwise_the_steps(b: usize, m: usize, n: usize, d: usize) {
    let bd = [b];
    let a = Attn {
        mask: true,
        ..plain(&bd, m, n, d, d)
    };
    let ins = a.inputs(3);
    let (bs, s) = (format!("{b}, {m}, {n}"), dims(&[b, m, d]));
    let k = dims(&[b, n, d]);
    let kt = transposed(&[b, n, d]);
    let qk = format!(
        "graph(%q: f32[{s}], %k: f32[{k}]):\n  %0: {kt} = transpose(%k, -1, -2)\n  %1: f32[{bs}] = matmul(%q, %0)\n  return (%1)\n"
    );
    let sm = format!(
        "graph(%s: f32[{bs}], %mask: f32[{m}, {n}]):\n  %2: f32[{bs}] = div(%s, 8.0)\n  %3: f32[{bs}] = add(%2, %mask, alpha=1)\n  %4: f32[{bs}] = softmax(%3, -1, None)\n  return (%4)\n"
    );
    let pv = format!(
        "graph(%p: f32[{bs}], %v: f32[{k}]):\n  %5: f32[{s}] = matmul(%p, %v)\n  return (%5)\n"
    );
    for (be, _) in targets() {
        let run = |src: &str, ins: &[Tensor]| {
            let exe = be.compile_exe(&parse(src).unwrap()).unwrap();
            exe.run(ins).unwrap().remove(0)
        };
        let fused = be.compile_exe(&parse(&a.src()).unwrap()).unwrap();
        assert_eq!(fused.attention_steps(), 1, "{}", fused.dump());
        let before = crate::attn::fused_runs();
        let got = fused.run(&ins).unwrap().remove(0);
        assert_eq!(crate::attn::fused_runs(), before + 1);
        let sc = run(&qk, &ins[..2]);
        let p = run(&sm, &[sc, ins[3].clone()]);
        let want = run(&pv, &[p, ins[2].clone()]);
        assert_eq!(
            got.to_vec::<f32>()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            want.to_vec::<f32>()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            "{}",
            be.target_name()
        );
    }
}
