//! Differential tests of every registry op against NumPy (run under CPython with numpy).
//!
//! Cases are generated per op from its schema and a spec (value domains, the NumPy reference
//! expression, independent dtype rules, tolerance); all of them go to ONE `python3` process
//! running `numpy_ref.py`, and the answers are compared here. Every op in [`Op::ALL`] has a
//! spec or is listed in [`ELSEWHERE`] with the reason. Rejected inputs (dtypes PyTorch does not
//! support) must fail; inputs NumPy rejects must fail too.

mod compare;
mod inputs;
mod spec;
mod spec_creation;
mod spec_nn;
mod spec_pointwise;
mod spec_reduce;
mod spec_scan;
mod spec_shape;
mod wire;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use rynamo_graph::{IValue, Op, Value, registry};
use rynamo_tensor::{DType, Tensor};

use crate::compare::{Seen, check};
use crate::inputs::Rng;
use crate::spec::{Args, Ctx, Info, Spec, castable, promoted};
use crate::wire::{PyArg, PyCase, RefResult};

/// Ops whose results are not checked against NumPy here, and where they are checked instead.
/// Why the random ops have no NumPy spec: their values are PyTorch's own stream.
const RANDOM: &str = "random samples: PyTorch 2.15's values for the same seed, tests/python/eager/random_vs_pytorch.py, and distribution tests in rynamo-tensor tests::random";

const ELSEWHERE: &[(Op, &str)] = &[
    (
        Op::FftC2c,
        "complex results (numpy_diff compares real outputs): values, gradients and errors against PyTorch in tests/python/fft/fft_vs_pytorch.py; the kernel against the DFT's definition in rynamo-tensor ops::fft",
    ),
    (
        Op::FftR2c,
        "complex results: against PyTorch in tests/python/fft/fft_vs_pytorch.py",
    ),
    (
        Op::FftC2r,
        "complex inputs (numpy_diff draws real ones): against PyTorch in tests/python/fft/fft_vs_pytorch.py",
    ),
    (
        Op::ViewAsReal,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::ViewAsComplex,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Real,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Imag,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Angle,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Conj,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Polar,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::Complex,
        "complex dtypes (numpy_diff draws real inputs): values, dtypes and errors against PyTorch in tests/python/complex/complex_vs_pytorch.py",
    ),
    (
        Op::ScatterReduce,
        "values, dtypes, errors and gradients against PyTorch 2.15 (tests/python/functions/scatter_reduce_vs_pytorch.py)",
    ),
    (
        Op::ScatterReduce_,
        "values, dtypes, errors and gradients against PyTorch 2.15 (tests/python/functions/scatter_reduce_vs_pytorch.py)",
    ),
    (
        Op::FusedAdam_,
        "multi-tensor optimizer update: bitwise against the single-tensor path (tests/python/train/foreach_equal.py)",
    ),
    (
        Op::FusedAdamw_,
        "multi-tensor optimizer update: bitwise against the single-tensor path (tests/python/train/foreach_equal.py)",
    ),
    (
        Op::FusedSgd_,
        "multi-tensor optimizer update: bitwise against the single-tensor path (tests/python/train/foreach_equal.py)",
    ),
    (
        Op::FusedAdagrad_,
        "multi-tensor optimizer update: bitwise against the single-tensor path (tests/python/train/foreach_equal.py)",
    ),
    (
        Op::HostCall,
        "calls back into the embedder: no kernel of its own (graph tests::samples, Dynamo allow_in_graph tests)",
    ),
    (Op::Rand, RANDOM),
    (Op::Randn, RANDOM),
    (Op::RandLike, RANDOM),
    (Op::RandnLike, RANDOM),
    (Op::Randint, RANDOM),
    (Op::RandintLow, RANDOM),
    (Op::Randperm, RANDOM),
    (Op::Normal_, RANDOM),
    (Op::Uniform_, RANDOM),
    (Op::Exponential_, RANDOM),
    (Op::BernoulliFloat_, RANDOM),
    (Op::Bernoulli, RANDOM),
    // Backward ops (autograd): gradients of their forward ops, checked against finite
    // differences of those (float64) in rynamo-graph tests::gradcheck / gradcheck_nn, and in
    // float32 against the float64 kernels in rynamo-tensor tests::backward_kernels.
    (Op::ConvolutionBackwardInput, BACKWARD),
    (Op::ConvolutionBackwardWeight, BACKWARD),
    (Op::MaxPool2dWithIndicesBackward, BACKWARD),
    (Op::AvgPool2dBackward, BACKWARD),
    (Op::AdaptiveAvgPool2dBackward, BACKWARD),
    (Op::LayerNormBackward, BACKWARD),
    (Op::BatchNormBackward, BACKWARD),
    (Op::NativeBatchNormBackward, BACKWARD),
    (Op::UpsampleBilinear2dBackward, BACKWARD),
    (Op::UpsampleLinear1dBackward, BACKWARD),
    (Op::UpsampleTrilinear3dBackward, BACKWARD),
    (
        Op::NativeBatchNorm,
        "three outputs (numpy_diff compares one): output, saved statistics, running-stat updates and errors against PyTorch in tests/python/nn/native_batch_norm_vs_pytorch.py; its output is batch_norm's kernel, covered here",
    ),
    (Op::Multinomial, RANDOM),
    (
        Op::LinalgInv,
        "PyTorch's goldens (values and gradients): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgSolve,
        "PyTorch's goldens (values and gradients): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgDet,
        "PyTorch's goldens (values and gradients): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgSlogdet,
        "PyTorch's goldens (values and gradients): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgCholesky,
        "PyTorch's goldens (values and gradients): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgQr,
        "PyTorch's goldens (LAPACK's sign convention): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgSvd,
        "PyTorch's goldens (sign-invariant products): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::LinalgEigh,
        "PyTorch's goldens (sign-invariant products): tests/python/functions/functions_vs_pytorch.py",
    ),
    (
        Op::Asinh,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Acosh,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Atanh,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Erfc,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Lgamma,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Digamma,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Polygamma,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::I0,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::SpecialI0e,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::SpecialI1,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::SpecialI1e,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Asinh_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Acosh_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Atanh_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Erfc_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Lgamma_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Digamma_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Polygamma_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::I0_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::Erfinv_,
        "torch.special kernel against PyTorch goldens, eager and compiled (tests/python/special/special_vs_pytorch.py)",
    ),
    (
        Op::LogicalNot_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Square_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Sign_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Exp2_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Expm1_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Log1p_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Frac_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Hypot_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::Xlogy_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
    (
        Op::ClampMin_,
        "in-place form against PyTorch goldens, eager and compiled (tests/python/special/stats_vs_pytorch.py)",
    ),
];

const BACKWARD: &str =
    "a gradient: finite differences of its forward op in rynamo-graph tests::gradcheck";

fn spec_of(op: Op) -> Option<Spec> {
    spec_pointwise::spec(op)
        .or_else(|| spec_reduce::spec(op))
        .or_else(|| spec_shape::spec(op))
        .or_else(|| spec_creation::spec(op))
        .or_else(|| spec_nn::spec(op))
        .or_else(|| spec_scan::spec(op))
}

/// Binds `args` (by parameter name) to `op`'s schema: positional up to the first omitted
/// parameter, keywords after.
fn bind(op: Op, args: &Args) -> Vec<IValue> {
    let sch = op.schema();
    for (n, _) in args {
        assert!(
            sch.params.iter().any(|p| p.name == *n),
            "{op}: spec passes unknown argument `{n}`"
        );
    }
    let (mut pos, mut kw, mut gap) = (Vec::new(), Vec::new(), false);
    for p in &sch.params {
        match args.iter().find(|(n, _)| *n == p.name) {
            Some((_, v)) if !gap && !p.kw_only => pos.push(v.clone()),
            Some((_, v)) => kw.push((p.name.clone(), v.clone())),
            None => gap = true,
        }
    }
    sch.bind(pos, kw)
        .unwrap_or_else(|e| panic!("{op}: generated arguments do not bind: {e}"))
}

fn describe(args: &Args) -> String {
    args.iter()
        .map(|(n, v)| match v {
            Value::Tensor(t) if t.numel() <= 4 => format!(
                "{n}={}{:?}/{:?}={:?}",
                t.dtype().short_name(),
                t.shape(),
                t.strides(),
                t.to_vec::<f64>()
            ),
            Value::Tensor(t) => format!(
                "{n}={}{:?}/{:?}",
                t.dtype().short_name(),
                t.shape(),
                t.strides()
            ),
            Value::TensorList(ts) => format!(
                "{n}=[{}]",
                ts.iter()
                    .map(|t| format!("{}{:?}", t.dtype().short_name(), t.shape()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Index(items) => format!(
                "{n}=[{}]",
                items
                    .iter()
                    .map(|it| match it {
                        rynamo_tensor::IndexItem::Tensor(t) =>
                            format!("{}{:?}", t.dtype().short_name(), t.to_vec::<i64>()),
                        it => format!("{}", Value::<u8>::Index(vec![it.map(|_| 0u8)])),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            v => format!(
                "{n}={}",
                v.try_map(|_| Ok::<_, ()>(0u8))
                    .map_or(String::new(), |v| v.to_string())
            ),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A case waiting for its reference.
struct Pending {
    op: Op,
    desc: String,
    ours: Result<Vec<Tensor>, String>,
    expected: Vec<DType>,
    spec: Spec,
}

#[derive(Default)]
struct Count {
    cases: usize,
    compared: usize,
    rejected: usize,
    both_err: usize,
    seen: Seen,
}

fn deep(v: &IValue) -> IValue {
    v.try_map(|t| Ok::<_, ()>(t.deep_clone()))
        .expect("infallible")
}

fn can_cast(from: DType, to: DType) -> bool {
    let cat = |d: DType| {
        if d.is_floating_point() {
            2
        } else if d == DType::Bool {
            0
        } else {
            1
        }
    };
    cat(from) <= cat(to)
}

fn python() -> String {
    std::env::var("RYNAMO_PYTHON").unwrap_or_else(|_| "python3".into())
}

#[test]
fn registry_matches_numpy() {
    let start = Instant::now();
    let probe = Command::new(python())
        .args(["-c", "import numpy"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{}` ({e}): the NumPy differential suite needs CPython 3 with numpy (set RYNAMO_PYTHON to choose the interpreter)", python()));
    assert!(
        probe.status.success(),
        "numpy is not importable by `{}`: install it (`pip install numpy`); the differential suite needs it.\n{}",
        python(),
        String::from_utf8_lossy(&probe.stderr)
    );

    // Coverage: every op has a spec or a documented reason.
    let mut missing = Vec::new();
    for &op in Op::ALL {
        let elsewhere = ELSEWHERE.iter().any(|(o, _)| *o == op);
        match (spec_of(op).is_some(), elsewhere) {
            (true, true) => missing.push(format!("{op} (both a spec and ELSEWHERE)")),
            (false, false) => missing.push(format!("{op}")),
            _ => {}
        }
    }
    assert!(
        missing.is_empty(),
        "ops neither covered nor listed in ELSEWHERE: {missing:?}"
    );

    let mut rng = Rng::new(0x5EED_D1FF);
    let mut cases = Vec::new();
    let mut pending = Vec::new();
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    let mut failures = Vec::new();
    for &op in Op::ALL {
        let Some(sp) = spec_of(op) else { continue };
        let n = sp.cases + usize::from(sp.big);
        for k in 0..n {
            let mut cx = Ctx {
                rng: &mut rng,
                dt: sp.dtypes[k % sp.dtypes.len()],
                edges: sp.edges && k % 2 == 1,
                big: sp.big && k == sp.cases,
            };
            let args = (sp.make)(&mut cx);
            let info = Info {
                args: &args,
                promoted: promoted(op, &sp, &args),
            };
            let out = (sp.out)(&info);
            let self_dt = info.arg0();
            let reject = (sp.reject)(&info) || (sp.inplace && !can_cast(out, self_dt));
            let target = sp.target.map_or(out, |r| r(&info));
            let bound = bind(op, &args);
            let snapshot: Vec<IValue> = bound.iter().map(deep).collect();
            let desc = describe(&args);
            let c = counts.entry(op.name().to_string()).or_default();
            c.cases += 1;
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                registry::call(op, &bound)
            }));
            let ours = match result {
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!("{op}: PANIC ({msg}) on {desc}"));
                    continue;
                }
                Ok(r) => r.map_err(|e| e.to_string()),
            };
            if reject {
                c.rejected += 1;
                if let Ok(o) = &ours {
                    failures.push(format!(
                        "{op}: accepted inputs PyTorch rejects ({desc}) -> {:?}",
                        o.iter().map(|t| t.dtype()).collect::<Vec<_>>()
                    ));
                }
                continue;
            }
            // Outputs, then the mutated arguments as they are after the call.
            let ours = ours.map(|mut outs| {
                for m in sp.mutated {
                    let i = op
                        .schema()
                        .params
                        .iter()
                        .position(|p| p.name == *m)
                        .expect("mutated param");
                    if let Value::Tensor(t) = &bound[i] {
                        outs.push(t.clone());
                    }
                }
                outs
            });
            let n_out = ours.as_ref().map_or(1, Vec::len);
            let mut expected = vec![if sp.inplace { self_dt } else { out }];
            for j in 1..n_out {
                let pname = sp.mutated.get(j.wrapping_sub(n_out - sp.mutated.len()));
                let d = match pname {
                    Some(m) if j >= n_out - sp.mutated.len() => {
                        info.tensor(m).map_or(out, Tensor::dtype)
                    }
                    _ => sp.extra.map_or(out, |r| r(&info)),
                };
                expected.push(d);
            }
            let args_py: Vec<PyArg> = op
                .schema()
                .params
                .iter()
                .zip(snapshot)
                .map(|(p, v)| PyArg {
                    name: p.name.clone(),
                    castable: castable(op, &sp, &p.name),
                    value: v,
                })
                .collect();
            cases.push(PyCase {
                id: pending.len() as u32,
                expr: sp.np.to_string(),
                scale: sp.scale.to_string(),
                cast: sp.cast,
                target,
                args: args_py,
            });
            pending.push(Pending {
                op,
                desc,
                ours,
                expected,
                spec: sp.clone(),
            });
        }
    }

    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let tag = std::process::id();
    let (cin, cout) = (
        dir.join(format!("numpy_cases_{tag}.bin")),
        dir.join(format!("numpy_refs_{tag}.bin")),
    );
    std::fs::write(&cin, wire::write_cases(&cases)).expect("write cases");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/numpy_diff/numpy_ref.py");
    let run = Command::new(python())
        .arg(script)
        .arg(&cin)
        .arg(&cout)
        .output()
        .expect("run numpy_ref.py");
    assert!(
        run.status.success(),
        "numpy_ref.py failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let refs = wire::read_results(&std::fs::read(&cout).expect("read references"));
    let _ = std::fs::remove_file(&cin);
    let _ = std::fs::remove_file(&cout);
    assert_eq!(refs.len(), pending.len(), "one reference per case");

    for (k, ((id, r), p)) in refs.into_iter().zip(&pending).enumerate() {
        assert_eq!(id as usize, k, "references come back in case order");
        let c = counts.get_mut(p.op.name()).expect("counted");
        match (&p.ours, r) {
            (Err(_), RefResult::Err(_)) => c.both_err += 1,
            (Err(e), RefResult::Ok { .. }) => failures.push(format!(
                "{}: failed ({e}) where NumPy succeeded: {}",
                p.op, p.desc
            )),
            (Ok(_), RefResult::Err(e)) => failures.push(format!(
                "{}: succeeded where the reference failed ({e}): {}",
                p.op, p.desc
            )),
            (Ok(outs), RefResult::Ok { outs: want, scale }) => {
                c.compared += 1;
                if outs.len() != want.len() {
                    failures.push(format!(
                        "{}: {} outputs, reference has {}: {}",
                        p.op,
                        outs.len(),
                        want.len(),
                        p.desc
                    ));
                    continue;
                }
                for (k, (o, w)) in outs.iter().zip(&want).enumerate() {
                    if o.dtype() != p.expected[k] {
                        failures.push(format!(
                            "{}: output {k} dtype {}, expected {}: {}",
                            p.op,
                            o.dtype(),
                            p.expected[k],
                            p.desc
                        ));
                        continue;
                    }
                    if !p.spec.values {
                        if o.shape() != w.shape.as_slice() {
                            failures.push(format!(
                                "{}: output {k} shape {:?}, want {:?}: {}",
                                p.op,
                                o.shape(),
                                w.shape,
                                p.desc
                            ));
                        }
                        continue;
                    }
                    let half = matches!(o.dtype(), DType::Float16 | DType::BFloat16);
                    let ulps = if half {
                        p.spec.half_ulps.unwrap_or(p.spec.ulps.min(1))
                    } else {
                        p.spec.ulps
                    };
                    if let Err(e) = check(o, w, ulps, p.spec.k, scale.get(k), &mut c.seen) {
                        if std::env::var("NUMPY_DIFF_DEBUG").is_ok() {
                            eprintln!("{}: ours {:?}", p.op, o);
                        }
                        failures.push(format!("{}: output {k}: {e}: {}", p.op, p.desc));
                    }
                }
            }
        }
    }

    let mut report =
        String::from("op                              cases  numpy  rejected  both-err  max-ulp\n");
    let mut total = 0;
    for (name, c) in &counts {
        total += c.cases;
        report.push_str(&format!(
            "{name:<32}{:>5}  {:>5}  {:>8}  {:>8}  {:>7}\n",
            c.cases, c.compared, c.rejected, c.both_err, c.seen.max_ulp
        ));
    }
    for (op, why) in ELSEWHERE {
        report.push_str(&format!("{:<32}checked elsewhere: {why}\n", op.name()));
    }
    report.push_str(&format!(
        "{} ops, {total} cases, {} failures, {:.1}s\n",
        counts.len(),
        failures.len(),
        start.elapsed().as_secs_f64()
    ));
    println!("{report}");
    let _ = std::fs::write(dir.join("numpy_diff_report.txt"), &report);
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(60).collect();
        panic!(
            "{} differential failures (first {}):\n{}",
            failures.len(),
            shown.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
