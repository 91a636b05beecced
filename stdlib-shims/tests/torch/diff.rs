//! Differential check of the Python surface against the registry: every op exposed as
//! `torch.<name>`, `Tensor.<name>` or `torch.nn.functional.<name>` is called from Python and
//! through `rynamo_graph::registry` directly (`resolve` + `call`, not the shims' binding code) on
//! the same inputs; the results must be identical (same kernels, so bit for bit).

use std::collections::BTreeSet;

use rynamo_graph::{IValue, Op, OpFlags, Value, registry};
use rynamo_shims::Surface;
use rynamo_shims::ops::surface_table;
use rynamo_tensor::{DType, Tensor};

use crate::diff_cases::{more_cases, more_pool};
use crate::harness::Py;

/// One argument of a case.
#[derive(Clone, Copy)]
pub(crate) enum A {
    /// Input tensor `i` of the pool.
    T(usize),
    I(i64),
    F(f64),
    B(bool),
    L(&'static [i64]),
    Tl(&'static [usize]),
    D(DType),
    S(&'static str),
}
use A::*;

pub(crate) struct Case {
    name: &'static str,
    pos: Vec<A>,
    kw: Vec<(&'static str, A)>,
}

pub(crate) fn c(name: &'static str, pos: &[A], kw: &[(&'static str, A)]) -> Case {
    Case {
        name,
        pos: pos.to_vec(),
        kw: kw.to_vec(),
    }
}

/// Deterministic values in `[lo, hi]`, none exactly zero.
fn values(n: usize, seed: f64, lo: f64, hi: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let u = ((i as f64 * 0.7311 + seed).sin() + 1.0) / 2.0;
            let v = lo + u * (hi - lo);
            if v == 0.0 { 0.125 } else { v }
        })
        .collect()
}

pub(crate) fn f32s(shape: &[usize], seed: f64, lo: f64, hi: f64) -> Tensor {
    let n = shape.iter().product();
    let v: Vec<f32> = values(n, seed, lo, hi)
        .into_iter()
        .map(|x| x as f32)
        .collect();
    Tensor::from_vec(v, shape).expect("shape fits")
}

pub(crate) fn i64s(shape: &[usize], seed: f64, lo: i64, hi: i64) -> Tensor {
    let n = shape.iter().product();
    let v: Vec<i64> = values(n, seed, lo as f64, hi as f64 + 0.999)
        .into_iter()
        .map(|x| x.floor() as i64)
        .collect();
    Tensor::from_vec(v, shape).expect("shape fits")
}

pub(crate) fn bools(shape: &[usize], seed: f64) -> Tensor {
    i64s(shape, seed, 0, 1).to_dtype(DType::Bool)
}

/// The input tensors cases refer to by index; `diff_cases::more_pool` continues it at 22.
fn pool() -> Vec<Tensor> {
    let mut special = vec![
        1.5f32,
        f32::NAN,
        -2.0,
        f32::INFINITY,
        0.5,
        f32::NEG_INFINITY,
    ];
    special.extend([3.0, -1.0, 2.0, 0.25, -0.75, 4.0]);
    let mut pool = vec![
        f32s(&[3, 4], 0.1, -2.0, 2.0),                          // 0
        f32s(&[3, 4], 1.3, -2.0, 2.0),                          // 1
        f32s(&[4], 2.2, -1.0, 1.0),                             // 2
        f32s(&[4, 5], 0.7, -1.0, 1.0),                          // 3
        i64s(&[3, 4], 0.4, 1, 6),                               // 4
        bools(&[3, 4], 0.9),                                    // 5
        f32s(&[2, 3, 4], 1.1, -1.0, 1.0),                       // 6
        f32s(&[2, 4, 5], 2.9, -1.0, 1.0),                       // 7
        f32s(&[3, 4], 0.3, 0.1, 2.0),                           // 8: positive
        f32s(&[3, 4], 0.5, -0.9, 0.9),                          // 9: inside (-1, 1)
        i64s(&[5], 1.7, 0, 3),                                  // 10: row indices of 4
        f32s(&[3], 0.2, -1.0, 1.0),                             // 11
        Tensor::scalar(0.75f32),                                // 12
        Tensor::from_vec(special, &[3, 4]).expect("12 values"), // 13: non-finite
        i64s(&[3, 4], 2.4, 0, 15),                              // 14
        bools(&[3, 4], 3.3),                                    // 15
        f32s(&[3, 5], 1.9, -1.0, 1.0),                          // 16
        f32s(&[4], 0.8, 0.5, 1.5),                              // 17: layer-norm weight
        f32s(&[4], 1.4, -0.5, 0.5),                             // 18: layer-norm bias
        f32s(&[5, 4], 2.6, -1.0, 1.0),                          // 19: linear weight
        f32s(&[5], 0.6, -1.0, 1.0),                             // 20: linear bias
        f32s(&[3, 1, 4], 1.6, -1.0, 1.0),                       // 21
    ];
    pool.extend(more_pool());
    pool
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for name in [
        "neg",
        "abs",
        "exp",
        "exp2",
        "expm1",
        "sin",
        "cos",
        "tan",
        "atan",
        "sinh",
        "cosh",
        "tanh",
        "sigmoid",
        "relu",
        "erf",
        "floor",
        "ceil",
        "trunc",
        "frac",
        "sign",
        "reciprocal",
        "square",
        "relu6",
        "silu",
        "mish",
    ] {
        v.push(c(name, &[T(0)], &[]));
    }
    for name in ["log", "log2", "log10", "log1p", "sqrt", "rsqrt"] {
        v.push(c(name, &[T(8)], &[]));
    }
    for name in ["asin", "acos"] {
        v.push(c(name, &[T(9)], &[]));
    }
    for name in ["isnan", "isinf", "isfinite"] {
        v.push(c(name, &[T(13)], &[]));
    }
    v.extend([
        c("round", &[T(0)], &[("decimals", I(1))]),
        c("logical_not", &[T(5)], &[]),
        c("bitwise_not", &[T(4)], &[]),
        c(
            "nan_to_num",
            &[T(13)],
            &[("nan", F(0.0)), ("posinf", F(9.0))],
        ),
        c("clamp", &[T(0)], &[("min", F(-0.5)), ("max", F(0.5))]),
        c("clip", &[T(0), F(-1.0), F(1.0)], &[]),
        c("leaky_relu", &[T(0), F(0.2)], &[]),
        c("elu", &[T(0)], &[("alpha", F(0.5))]),
        c("gelu", &[T(0)], &[("approximate", S("tanh"))]),
        c("softplus", &[T(0)], &[("beta", I(2))]),
        // Binary.
        c("add", &[T(0), T(1)], &[("alpha", F(0.5))]),
        c("sub", &[T(0), T(2)], &[]),
        c("mul", &[T(0), F(3.0)], &[]),
        c("div", &[T(0), T(8)], &[("rounding_mode", S("floor"))]),
        c("floor_divide", &[T(4), I(3)], &[]),
        c("remainder", &[T(0), F(1.5)], &[]),
        c("pow", &[T(8), F(1.5)], &[]),
        c("maximum", &[T(0), T(1)], &[]),
        c("minimum", &[T(0), T(1)], &[]),
        c("atan2", &[T(0), T(1)], &[]),
        c("where", &[T(5), T(0), T(1)], &[]),
        c("masked_fill", &[T(0), T(5), F(-1.0)], &[]),
        c("max", &[T(0), T(1)], &[]),
        c("min", &[T(0), T(1)], &[]),
    ]);
    for name in ["eq", "ne", "lt", "le", "gt", "ge"] {
        v.push(c(name, &[T(0), T(1)], &[]));
        v.push(c(name, &[T(0), F(0.5)], &[]));
    }
    for name in ["logical_and", "logical_or", "logical_xor"] {
        v.push(c(name, &[T(5), T(15)], &[]));
    }
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor"] {
        v.push(c(name, &[T(4), T(14)], &[]));
    }
    v.extend([
        // In place.
        c("add_", &[T(0), T(1)], &[("alpha", F(2.0))]),
        c("sub_", &[T(0), F(1.0)], &[]),
        c("mul_", &[T(0), T(2)], &[]),
        c("div_", &[T(0), T(8)], &[]),
        c("clamp_", &[T(0)], &[("min", F(0.0))]),
        c("copy_", &[T(0), T(2)], &[]),
        c("zero_", &[T(0)], &[]),
        c("fill_", &[T(0), F(3.0)], &[]),
        c("masked_fill_", &[T(0), T(5), F(9.0)], &[]),
        // Reductions.
        c("sum", &[T(0)], &[]),
        c(
            "sum",
            &[T(0), I(1)],
            &[("keepdim", B(true)), ("dtype", D(DType::Float64))],
        ),
        c("mean", &[T(0), L(&[0, 1])], &[]),
        c("prod", &[T(8), I(1)], &[]),
        c("amax", &[T(0), I(0)], &[]),
        c("amin", &[T(0)], &[("dim", L(&[1]))]),
        c("max", &[T(0)], &[]),
        c("max", &[T(0), I(1)], &[]),
        c("min", &[T(0), I(0)], &[("keepdim", B(true))]),
        c("argmax", &[T(0)], &[("dim", I(1))]),
        c("argmin", &[T(0)], &[]),
        c("var", &[T(0), I(1)], &[]),
        c("std", &[T(0)], &[("correction", I(0))]),
        c("logsumexp", &[T(0), I(1)], &[]),
        c("all", &[T(5)], &[]),
        c("all", &[T(5), I(1)], &[]),
        c("any", &[T(5)], &[("dim", I(0))]),
        c("softmax", &[T(0), I(-1)], &[]),
        c("log_softmax", &[T(0), I(1)], &[]),
        // Linear algebra.
        c("matmul", &[T(0), T(3)], &[]),
        c("mm", &[T(0), T(3)], &[]),
        c("bmm", &[T(6), T(7)], &[]),
        c(
            "addmm",
            &[T(16), T(0), T(3)],
            &[("beta", F(0.5)), ("alpha", F(2.0))],
        ),
        c("linear", &[T(0), T(19), T(20)], &[]),
        // Views and copies.
        c("view", &[T(0), L(&[4, 3])], &[]),
        c("view", &[T(0), I(2), I(6)], &[]),
        c("reshape", &[T(0), L(&[-1])], &[]),
        c("permute", &[T(6), L(&[2, 0, 1])], &[]),
        c("transpose", &[T(0), I(0), I(1)], &[]),
        c("t", &[T(0)], &[]),
        c("expand", &[T(2), L(&[3, 4])], &[]),
        c("select", &[T(0), I(1), I(2)], &[]),
        c("narrow", &[T(0), I(1), I(1), I(2)], &[]),
        c("unsqueeze", &[T(0), I(1)], &[]),
        c("squeeze", &[T(21)], &[]),
        c("unflatten", &[T(0), I(1), L(&[2, 2])], &[]),
        c("flatten", &[T(6)], &[("start_dim", I(1))]),
        c("as_strided", &[T(0), L(&[2, 2]), L(&[1, 2])], &[]),
        c("diagonal", &[T(0)], &[("offset", I(1))]),
        c("contiguous", &[T(0)], &[]),
        c("clone", &[T(0)], &[]),
        c("to", &[T(0), D(DType::Float64)], &[]),
        c("type", &[T(0), D(DType::Int32)], &[]),
        // Joining and splitting.
        c("cat", &[Tl(&[0, 1])], &[("dim", I(1))]),
        c("stack", &[Tl(&[0, 1])], &[]),
        c("split", &[T(0), I(2)], &[]),
        c("split", &[T(0), L(&[1, 3]), I(1)], &[]),
        c("chunk", &[T(0), I(2)], &[("dim", I(1))]),
        // Creation.
        c("zeros", &[L(&[2, 3])], &[("dtype", D(DType::Int32))]),
        c("ones", &[I(2), I(3)], &[]),
        c("empty", &[L(&[2])], &[]),
        c("full", &[L(&[2, 2]), F(1.5)], &[]),
        c("zeros_like", &[T(0)], &[]),
        c("ones_like", &[T(4)], &[]),
        c("empty_like", &[T(0)], &[]),
        c("full_like", &[T(0), I(7)], &[]),
        c("arange", &[I(2), I(10), I(3)], &[]),
        c("linspace", &[F(0.0), F(1.0), I(5)], &[]),
        c("eye", &[I(3)], &[("m", I(4))]),
        c("scalar_tensor", &[F(2.5)], &[]),
        c("rand", &[L(&[2, 3])], &[]),
        c("randn", &[I(4)], &[]),
        c("rand_like", &[T(0)], &[]),
        c("randn_like", &[T(0)], &[]),
        c("randint", &[I(10), L(&[5])], &[]),
        c("randint", &[I(2), I(5), L(&[3])], &[]),
        c("randperm", &[I(6)], &[]),
        // Neural-network functions.
        c("layer_norm", &[T(0), L(&[4]), T(17), T(18)], &[]),
        c("embedding", &[T(10), T(3)], &[]),
        c("dropout", &[T(0)], &[("p", F(0.5))]),
    ]);
    v.extend(more_cases());
    v
}

fn ivalue(a: A, pool: &[Tensor]) -> IValue {
    match a {
        T(i) => Value::Tensor(pool[i].deep_clone()),
        I(x) => Value::Int(x),
        F(x) => Value::Float(x),
        B(x) => Value::Bool(x),
        L(x) => Value::IntList(x.to_vec()),
        Tl(ix) => Value::TensorList(ix.iter().map(|&i| pool[i].deep_clone()).collect()),
        D(d) => Value::DType(d),
        S(s) => Value::Str(s.to_string()),
    }
}

/// Python source for an argument; tensors become globals `_a<k>` holding fresh copies.
fn source(a: A, py: &Py, pool: &[Tensor], next: &mut usize) -> String {
    let mut tensor = |i: usize| {
        let name = format!("_a{next}");
        *next += 1;
        py.set_tensor(&name, pool[i].deep_clone());
        name
    };
    match a {
        T(i) => tensor(i),
        I(x) => x.to_string(),
        F(x) => format!("{x:?}"),
        B(x) => if x { "True" } else { "False" }.to_string(),
        L(x) => format!("{x:?}"),
        Tl(ix) => {
            let names: Vec<String> = ix.iter().map(|&i| tensor(i)).collect();
            format!("[{}]", names.join(", "))
        }
        D(d) => format!("torch.{}", d.name()),
        S(s) => format!("'{s}'"),
    }
}

fn same(a: &Tensor, b: &Tensor, values: bool) -> bool {
    if a.dtype() != b.dtype() || a.shape() != b.shape() {
        return false;
    }
    !values
        || a.to_vec::<f64>()
            .iter()
            .zip(b.to_vec::<f64>())
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

const SEED: i64 = 1234;

/// Runs one case on one surface; `Err` describes a mismatch.
fn run(py: &Py, pool: &[Tensor], case: &Case, surface: Surface) -> Result<(), String> {
    let label = format!("{surface:?} {}({} args)", case.name, case.pos.len());
    let pos: Vec<IValue> = case.pos.iter().map(|&a| ivalue(a, pool)).collect();
    let kw: Vec<(String, IValue)> = case
        .kw
        .iter()
        .map(|&(k, a)| (k.to_string(), ivalue(a, pool)))
        .collect();
    rynamo_tensor::manual_seed(SEED as u64);
    let (op, bound) = registry::resolve(case.name, pos, kw).map_err(|e| format!("{label}: {e}"))?;
    let mut expected = registry::call(op, &bound).map_err(|e| format!("{label}: {e}"))?;
    let inplace = op.flags().contains(OpFlags::INPLACE);
    if inplace {
        let Value::Tensor(t) = &bound[0] else {
            return Err(format!("{label}: in-place op without a tensor self"));
        };
        expected = vec![t.clone()];
    }

    let mut next = 0;
    let mut args: Vec<String> = case
        .pos
        .iter()
        .map(|&a| source(a, py, pool, &mut next))
        .collect();
    args.extend(
        case.kw
            .iter()
            .map(|&(k, a)| format!("{k}={}", source(a, py, pool, &mut next))),
    );
    let call = match surface {
        Surface::Function => format!("torch.{}({})", case.name, args.join(", ")),
        Surface::NnFunctional => format!("F.{}({})", case.name, args.join(", ")),
        Surface::Method => {
            let rest = args.split_off(1);
            format!("{}.{}({})", args[0], case.name, rest.join(", "))
        }
    };
    let mut src = format!("torch.manual_seed({SEED})\n_r = {call}\n");
    if inplace {
        src.push_str("_same = _r is _a0\n");
    }
    py.out(&src);
    let got = if inplace {
        if !py.interp.eval::<bool>("_same").unwrap_or(false) {
            return Err(format!(
                "{label}: `{call}` did not return its self argument"
            ));
        }
        py.tensors("_a0")
    } else {
        py.tensors("_r")
    };
    let check_values = !matches!(op, Op::Empty | Op::EmptyLike | Op::NewEmpty);
    let ok = got.len() == expected.len()
        && got
            .iter()
            .zip(&expected)
            .all(|(g, e)| same(g, e, check_values));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{label}: `{call}` gave {got:?}, registry gave {expected:?}"
        ))
    }
}

#[test]
fn python_surfaces_match_the_registry() {
    let py = Py::exclusive();
    let pool = pool();
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for case in cases() {
        for surface in [Surface::Function, Surface::Method, Surface::NnFunctional] {
            let exposed = surface_table(surface).iter().any(|(n, _)| *n == case.name);
            let tensor_self = matches!(case.pos.first(), Some(T(_)));
            if !exposed || (surface == Surface::Method && !tensor_self) {
                continue;
            }
            covered.insert((format!("{surface:?}"), case.name));
            if let Err(e) = run(&py, &pool, &case, surface) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // Every op on every surface has a case (indexing has its own tests; the multi-tensor
    // optimizer ops, which return nothing and update lists of tensors, are compared bit for bit
    // with the single-tensor path by tests/python/train/foreach_equal.py).
    let elsewhere = [
        "_fused_adam_",
        "_fused_adamw_",
        "_fused_sgd_",
        "_fused_adagrad_",
    ];
    let mut missing = Vec::new();
    for surface in [Surface::Function, Surface::Method, Surface::NnFunctional] {
        for (name, _) in surface_table(surface) {
            let key = (format!("{surface:?}"), *name);
            let complex_elsewhere = crate::diff_complex::ELSEWHERE.contains(name);
            if !name.starts_with("__")
                && !elsewhere.contains(name)
                && !complex_elsewhere
                && !covered.contains(&key)
            {
                missing.push(format!("{surface:?} {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ops without a differential case: {missing:?}"
    );
}

#[test]
fn every_registry_op_with_a_python_flag_is_reachable() {
    let py = Py::new();
    // `torch.einsum` is a Python wrapper over the op (`torch/_einsum_autocast.py`: three or more
    // operands under autocast are contracted in pairs, as ATen does); it must still reach it.
    assert_eq!(
        py.out("print(torch._einsum_autocast._native_einsum is torch._C.einsum)")
            .trim(),
        "True"
    );
    let wrapped = ["einsum"];
    for &op in Op::ALL {
        let flags = op.flags();
        let name = op.py_name();
        if flags.contains(OpFlags::FUNCTION) && !wrapped.contains(&name) {
            assert_eq!(
                py.out(&format!("print(type(torch.{name}).__name__)"))
                    .trim(),
                "_OpFunction",
                "{name}"
            );
        }
        if flags.contains(OpFlags::NN_FUNCTIONAL) {
            assert_eq!(
                py.out(&format!("print(F.{name}.__module__)")).trim(),
                "torch.nn.functional",
                "{name}"
            );
        }
        if flags.contains(OpFlags::METHOD) && !name.starts_with("__") {
            assert_eq!(
                py.out(&format!("print(callable(torch.Tensor.{name}))"))
                    .trim(),
                "True",
                "{name}"
            );
        }
    }
}
