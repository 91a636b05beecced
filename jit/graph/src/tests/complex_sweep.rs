//! Every registered op on complex arguments (issue 29 req 3): its sample call with each floating
//! tensor cast to complex64 (imaginary parts zero), and again with each floating `dtype=`
//! argument made complex64. Each call must either raise an error that is not an internal one (no
//! panic, no `unreachable!`) or return a value equal to the real op's result on the same numbers:
//! with zero imaginary parts a complex computation has the real one's value wherever that is a
//! number (`sqrt(-1)` is NaN on reals and `1j` on complex, so NaN entries of the real result are
//! not compared). The meta rule agrees with the eager call (raises too, or the same dtype/shape).

use rynamo_tensor::{DType, Tensor};

use crate::samples::sample;
use crate::{IValue, MetaValue, Op, OpFlags, registry};

/// The sample call of `op` with every tensor through `f` and every dtype argument through `d`.
fn mapped(
    op: Op,
    f: &dyn Fn(&Tensor) -> Tensor,
    d: &dyn Fn(DType) -> DType,
) -> Option<Vec<IValue>> {
    let (p, k) = sample(op);
    let map = |v: &IValue| match v {
        IValue::DType(x) => IValue::DType(d(*x)),
        v => v.try_map(|t| Ok::<_, ()>(f(t))).unwrap(),
    };
    let p = p.iter().map(map).collect();
    let k = k.iter().map(|(n, v)| (n.clone(), map(v))).collect();
    op.schema().bind(p, k).ok()
}

fn complexify(t: &Tensor) -> Tensor {
    if t.dtype().is_floating_point() {
        t.to_dtype(DType::Complex64)
    } else {
        t.clone()
    }
}

fn complex_dtype(d: DType) -> DType {
    if d.is_floating_point() {
        DType::Complex64
    } else {
        d
    }
}

/// Values as `(re, im)` f64 pairs (a real tensor has zero imaginary parts).
fn pairs(t: &Tensor) -> Vec<(f64, f64)> {
    if t.dtype().is_complex() {
        let v = rynamo_tensor::ops::complex::component_pairs(t);
        v.chunks_exact(2).map(|p| (p[0], p[1])).collect()
    } else {
        t.to_vec::<f64>().into_iter().map(|x| (x, 0.0)).collect()
    }
}

/// Whether complex result `c` has real result `r`'s values (f32 tolerance; NaN in `r` skipped).
fn same_values(c: &Tensor, r: &Tensor) -> bool {
    if c.shape() != r.shape() {
        return false;
    }
    let close = |a: f64, b: f64| {
        a == b || (a - b).abs() <= 1e-5 * (1.0 + b.abs()) || (a.is_nan() && b.is_nan())
    };
    pairs(c)
        .into_iter()
        .zip(pairs(r))
        .all(|((cr, ci), (rr, ri))| rr.is_nan() || (close(cr, rr) && close(ci, ri)))
}

#[derive(Default)]
struct Tally {
    computed: Vec<String>,
    refused: usize,
    failures: Vec<String>,
}

fn check(op: Op, variant: &str, args: &[IValue], real: &[IValue], tally: &mut Tally) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let metas: Vec<MetaValue> = args
            .iter()
            .map(|a| a.try_map(|t| Ok::<_, ()>(t.meta())).unwrap())
            .collect();
        (registry::call(op, args), registry::meta(op, &metas))
    }));
    let Ok((eager, meta)) = r else {
        tally.failures.push(format!("{op} ({variant}): panicked"));
        return;
    };
    let out = match eager {
        Err(e) => {
            let msg = e.to_string();
            if msg.contains("internal error") {
                tally.failures.push(format!("{op} ({variant}): {msg}"));
            }
            tally.refused += 1;
            return;
        }
        Ok(out) => out,
    };
    if let Ok(m) = &meta {
        for (m, t) in m.iter().zip(&out) {
            if (m.dtype, m.shape.as_slice()) != (t.dtype(), t.shape()) {
                tally.failures.push(format!(
                    "{op} ({variant}): meta {m:?} vs eager {:?}",
                    t.meta()
                ));
            }
        }
    } else if let Err(e) = &meta
        && !e.is_data_dependent()
    {
        tally.failures.push(format!(
            "{op} ({variant}): meta failed where eager worked: {e}"
        ));
    }
    tally.computed.push(format!("{op}"));
    // Random draws differ, and `view(dtype)` reinterprets bytes, which complex64 lays out
    // differently from float32 by design.
    if op.flags().contains(OpFlags::RANDOM) || op == Op::ViewDtype {
        return;
    }
    let Ok(want) = registry::call(op, real) else {
        return;
    };
    for (c, r) in out.iter().zip(&want) {
        if !same_values(c, r) {
            tally.failures.push(format!(
                "{op} ({variant}): complex {:?} differs from real {:?}",
                pairs(c),
                pairs(r)
            ));
        }
    }
}

#[test]
fn every_op_on_complex_computes_the_real_value_or_raises() {
    let mut tally = Tally::default();
    for &op in Op::ALL {
        // (name, tensors, dtypes, the real reference's dtypes: a floating `dtype=` argument made
        // complex64 is compared with the same call made float32)
        type Variant<'a> = (
            &'a str,
            &'a dyn Fn(&Tensor) -> Tensor,
            &'a dyn Fn(DType) -> DType,
            &'a dyn Fn(DType) -> DType,
        );
        let variants: [Variant<'_>; 2] = [
            ("tensors", &complexify, &|d| d, &|d| d),
            ("dtype", &|t: &Tensor| t.clone(), &complex_dtype, &|d| {
                complex_dtype(d).to_real()
            }),
        ];
        for (name, f, d, rd) in variants {
            let Some(args) = mapped(op, f, d) else {
                continue;
            };
            let Some(real) = mapped(op, &|t: &Tensor| t.clone(), rd) else {
                continue;
            };
            if crate::rules::complex::complex_dtype(&args).is_some() {
                check(op, name, &args, &real, &mut tally);
            }
        }
    }
    eprintln!(
        "complex sweep: {} calls computed ({}), {} refused",
        tally.computed.len(),
        tally.computed.join(" "),
        tally.refused
    );
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
    assert!(
        tally.computed.len() > 40,
        "too few ops compute on complex: {:?}",
        tally.computed
    );
}
