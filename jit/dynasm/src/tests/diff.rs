//! Differential tests: every lowered op, dtype, broadcasting, views, non-contiguous inputs and
//! awkward sizes, JIT (both x86-64 paths, or NEON on AArch64) against the eager interpreter.

use rynamo_graph::{GraphBuilder, Op, Value, ValueId};
use rynamo_tensor::{DType, Scalar, Tensor, TensorMeta};

use super::common::*;

const SIZES: [usize; 10] = [0, 1, 7, 8, 9, 31, 33, 1023, 1025, 70_001];

/// f32 transcendentals: our bound (<= 3 ulp) plus libm's (1 ulp).
const TRANS: (f64, f64) = (5e-7, 1e-37);

fn data(n: usize, seed: u64, kind: u8) -> Vec<f32> {
    let base = randn(&[n], seed).to_vec::<f32>();
    base.into_iter()
        .map(|v| match kind {
            0 => v * 3.0,
            1 => v.abs() * 4.0 + 1e-3,
            _ => v * 0.9 / (1.0 + v.abs()),
        })
        .collect()
}

fn unary_graph(
    op: Op,
    dtype: DType,
    n: usize,
    extra: Vec<(String, Value<ValueId>)>,
) -> rynamo_graph::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(dtype, &[n]));
    let y = b.call_py(op, vec![Value::Tensor(x)], extra).unwrap();
    b.finish(y)
}

fn kw(k: &str, v: Value<ValueId>) -> Vec<(String, Value<ValueId>)> {
    vec![(k.to_string(), v)]
}

#[test]
fn unary_float_ops_all_sizes_and_float_dtypes() {
    use Op::*;
    type Case = (Op, u8, (f64, f64), Vec<(String, Value<ValueId>)>);
    let cases: Vec<Case> = vec![
        (Neg, 0, (0.0, 0.0), vec![]),
        (Abs, 0, (0.0, 0.0), vec![]),
        (Exp, 0, TRANS, vec![]),
        (Log, 1, TRANS, vec![]),
        (Sin, 0, TRANS, vec![]),
        (Cos, 0, TRANS, vec![]),
        (Tanh, 0, TRANS, vec![]),
        (Sigmoid, 0, TRANS, vec![]),
        (Erf, 0, TRANS, vec![]),
        (Sqrt, 1, (0.0, 0.0), vec![]),
        (Rsqrt, 1, (0.0, 0.0), vec![]),
        (Reciprocal, 0, (0.0, 0.0), vec![]),
        (Square, 0, (0.0, 0.0), vec![]),
        (Relu, 0, (0.0, 0.0), vec![]),
        (Relu6, 0, (0.0, 0.0), vec![]),
        (Floor, 0, (0.0, 0.0), vec![]),
        (Ceil, 0, (0.0, 0.0), vec![]),
        (Trunc, 0, (0.0, 0.0), vec![]),
        (Round, 0, (0.0, 0.0), vec![]),
        (Round, 0, (1e-6, 0.0), kw("decimals", Value::Int(2))),
        (Frac, 0, (0.0, 0.0), vec![]),
        (Sign, 0, (0.0, 0.0), vec![]),
        (Silu, 0, (2e-6, 1e-7), vec![]),
        (Gelu, 0, (2e-6, 1e-7), vec![]),
        (
            Gelu,
            0,
            (2e-6, 1e-7),
            kw("approximate", Value::Str("tanh".into())),
        ),
        (LeakyRelu, 0, (0.0, 0.0), vec![]),
        (Elu, 0, (0.0, 0.0), vec![]),
        (Softplus, 0, (1e-6, 1e-7), vec![]),
        (Mish, 0, (0.0, 0.0), vec![]),
        (Expm1, 0, (0.0, 0.0), vec![]),
        (Log1p, 1, (0.0, 0.0), vec![]),
        (Atan, 0, (0.0, 0.0), vec![]),
        (Asin, 2, (0.0, 0.0), vec![]),
        (NanToNum, 0, (0.0, 0.0), vec![]),
        (IsNan, 0, (0.0, 0.0), vec![]),
        (IsInf, 0, (0.0, 0.0), vec![]),
        (IsFinite, 0, (0.0, 0.0), vec![]),
        (LogicalNot, 0, (0.0, 0.0), vec![]),
    ];
    for (op, kind, tol, extra) in cases {
        for dtype in [DType::Float32, DType::Float64] {
            for (si, &n) in SIZES.iter().enumerate() {
                if n > 2000 && !matches!(op, Exp | Sin | Relu) {
                    continue;
                }
                let g = unary_graph(op, dtype, n, extra.clone());
                let x = Tensor::from_vec(data(n, si as u64, kind), &[n])
                    .unwrap()
                    .to_dtype(dtype);
                // f64 uses the same library calls as eager; only f32 transcendentals differ.
                let tol = if dtype == DType::Float64 {
                    (1e-15, 0.0)
                } else {
                    tol
                };
                check_graph(&g, &[x], tol.0, tol.1);
            }
        }
    }
}

#[test]
fn special_values_through_pointwise_ops() {
    let mut v = SPECIALS.to_vec();
    v.extend([1.0, -2.5, 88.0, -90.0, 1e30]);
    let n = v.len();
    for op in [
        "exp", "log", "sin", "cos", "tanh", "sigmoid", "erf", "relu", "abs", "neg", "sqrt",
        "floor", "sign",
    ] {
        let src = format!("graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n");
        check(
            &src,
            &[Tensor::from_vec(v.clone(), &[n]).unwrap()],
            TRANS.0,
            TRANS.1,
        );
    }
    let src = format!(
        "graph(%x: f32[{n}], %y: f32[{n}]):\n  %0: f32[{n}] = maximum(%x, %y)\n  %1: f32[{n}] = minimum(%x, %y)\n  %2: f32[{n}] = clamp(%x, -1.0, 1.0)\n  %3: f32[{n}] = clamp_min(%x, %y)\n  %4: f32[{n}] = clamp_max(%x, 0.25)\n  %5: f32[{n}] = fmod(%x, %y)\n  %6: f32[{n}] = hypot(%x, %y)\n  return (%0, %1, %2, %3, %4, %5, %6)\n"
    );
    let y: Vec<f32> = v.iter().rev().copied().collect();
    check(
        &src,
        &[
            Tensor::from_vec(v.clone(), &[n]).unwrap(),
            Tensor::from_vec(y, &[n]).unwrap(),
        ],
        0.0,
        0.0,
    );
}

#[test]
fn binary_ops_broadcasting_scalars_and_promotion() {
    let (a, b) = (randn(&[33, 1], 1), randn(&[1, 37], 2));
    for op in [
        "add",
        "sub",
        "mul",
        "div",
        "maximum",
        "minimum",
        "clamp_min",
        "clamp_max",
        "atan2",
        "pow",
        "remainder",
        "floor_divide",
        "fmod",
        "hypot",
    ] {
        let extra = if matches!(op, "add" | "sub") {
            ", alpha=1"
        } else {
            ""
        };
        let src = format!(
            "graph(%a: f32[33, 1], %b: f32[1, 37]):\n  %0: f32[33, 37] = {op}(%a, %b{extra})\n  return (%0)\n"
        );
        check(&src, &[a.clone(), b.clone()], 0.0, 0.0);
    }
    for op in ["eq", "ne", "lt", "le", "gt", "ge"] {
        let src = format!(
            "graph(%a: f32[33, 1], %b: f32[1, 37]):\n  %0: b8[33, 37] = {op}(%a, %b)\n  return (%0)\n"
        );
        check(&src, &[a.clone(), b.clone()], 0.0, 0.0);
    }
    // alpha, scalars on either side, int tensor with float scalar, f32 with f64 0-dim.
    let src = "graph(%a: f32[33, 1], %b: f32[1, 37]):\n  %0: f32[33, 37] = sub(%a, %b, alpha=2.5)\n  %1: f32[33, 1] = div(2.0, %a)\n  %2: f32[33, 37] = add(%0, %1, alpha=-1)\n  return (%2, %1)\n";
    check(src, &[a.clone(), b.clone()], 0.0, 0.0);
    let ints = Tensor::from_vec((0..37i64).map(|i| i * 7 - 100).collect(), &[37]).unwrap();
    let src = "graph(%i: i64[37], %f: f32[37]):\n  %0: f32[37] = mul(%i, 0.5)\n  %1: f32[37] = add(%0, %f, alpha=1)\n  %2: f32[37] = div(%i, 3)\n  %3: f64[37] = add(%f, %i, alpha=1)\n  return (%1, %2)\n";
    let src = src.replace("  %3: f64[37] = add(%f, %i, alpha=1)\n", "");
    check(&src, &[ints.clone(), randn(&[37], 3)], 0.0, 0.0);
    let d0 = Tensor::from_vec(vec![0.25f64], &[]).unwrap();
    let src = "graph(%f: f32[37], %d: f64[]):\n  %0: f32[37] = mul(%f, %d)\n  return (%0)\n";
    check(src, &[randn(&[37], 4), d0], 0.0, 0.0);
}

#[test]
fn int64_and_bool_pointwise() {
    let a = Tensor::from_vec(
        (0..1025i64).map(|i| (i * 7919) % 2001 - 1000).collect(),
        &[1025],
    )
    .unwrap();
    let b = Tensor::from_vec(
        (0..1025i64).map(|i| (i * 104_729) % 17 - 8).collect(),
        &[1025],
    )
    .unwrap();
    let src = "graph(%a: i64[1025], %b: i64[1025]):\n  %0: i64[1025] = add(%a, %b, alpha=3)\n  %1: i64[1025] = mul(%0, %b)\n  %2: i64[1025] = sub(%1, 7, alpha=1)\n  %3: i64[1025] = maximum(%2, %a)\n  %4: i64[1025] = minimum(%3, %b)\n  %5: i64[1025] = bitwise_xor(%4, %a)\n  %6: i64[1025] = bitwise_and(%5, 255)\n  %7: i64[1025] = neg(%6)\n  %8: i64[1025] = abs(%a)\n  %9: i64[1025] = sign(%b)\n  %10: i64[1025] = square(%b)\n  %11: i64[1025] = bitwise_not(%a)\n  %12: i64[1025] = relu(%a)\n  return (%7, %8, %9, %10, %11, %12)\n";
    check(src, &[a.clone(), b.clone()], 0.0, 0.0);
    let src = "graph(%a: i64[1025], %b: i64[1025]):\n  %0: i64[1025] = clamp_min(%a, %b)\n  %1: i64[1025] = clamp_max(%a, 3)\n  %2: f32[1025] = clamp_min(%a, 2.5)\n  return (%0, %1, %2)\n";
    let exe = check(src, &[a.clone(), b.clone()], 0.0, 0.0);
    assert!(!exe.dump().contains("eager"), "{}", exe.dump());
    let src = "graph(%a: i64[1025], %b: i64[1025]):\n  %0: b8[1025] = lt(%a, %b)\n  %1: b8[1025] = ge(%a, 0)\n  %2: b8[1025] = logical_and(%0, %1)\n  %3: b8[1025] = logical_or(%0, %1)\n  %4: b8[1025] = logical_xor(%2, %3)\n  %5: b8[1025] = bitwise_not(%4)\n  %6: i64[1025] = where(%5, %a, %b)\n  %7: f32[1025] = where(%2, 1.5, %a)\n  %8: b8[1025] = eq(%a, %b)\n  %9: b8[1025] = logical_not(%a)\n  %10: f32[1025] = add(%2, 0.5, alpha=1)\n  return (%4, %6, %7, %8, %9, %10)\n";
    check(src, &[a, b], 0.0, 0.0);
}

/// Integer `pow` with a tensor exponent is not lowered (its eager kernel runs between kernels), so
/// negative exponents give eager's truncated powers; `x ** 2` is lowered as a multiplication.
#[test]
fn int_pow_with_negative_tensor_exponents() {
    let a = Tensor::from_vec((0..1025i64).map(|i| i % 7 - 3).collect(), &[1025]).unwrap();
    let b = Tensor::from_vec((0..1025i64).map(|i| i % 9 - 4).collect(), &[1025]).unwrap();
    let src = "graph(%a: i64[1025], %b: i64[1025]):\n  %0: i64[1025] = pow(%a, %b)\n  %1: i64[1025] = pow(%a, 2)\n  %2: i64[1025] = add(%0, %1, alpha=1)\n  return (%2, %0)\n";
    check(src, &[a, b], 0.0, 0.0);
}

/// `clone` and `zeros_like` keep a transposed input's memory order (`preserve_format`): the JIT
/// stores through the clone's meta strides into a buffer laid out the same way, so the compiled
/// output has eager's strides and a kernel reading it back sees eager's values.
#[test]
fn clone_of_a_transposed_tensor_keeps_its_strides() {
    use rynamo_backend::Executable;
    let x = randn(&[33, 17], 6);
    let src = "graph(%x: f32[33, 17]):\n  %0: f32[17, 33]{1, 17} = t(%x)\n  %1: f32[17, 33]{1, 17} = clone(%0)\n  %2: f32[17, 33]{1, 17} = neg(%1)\n  %3: f32[17, 33]{1, 17} = zeros_like(%0)\n  %4: f32[17, 33]{1, 17} = add(%3, %1, alpha=1)\n  return (%1, %2, %4)\n";
    let exe = check(src, std::slice::from_ref(&x), 0.0, 0.0);
    let got = exe.run(&[x]).unwrap();
    assert_eq!(got[0].strides(), &[1, 17]);
    // Pointwise results follow their transposed inputs, as PyTorch's TensorIterator.
    assert_eq!(got[1].strides(), &[1, 17]);
    assert_eq!(got[2].strides(), &[1, 17]);
}

#[test]
fn where_masked_fill_clamp_and_casts() {
    let x = randn(&[9, 33], 5);
    let src = "graph(%x: f32[9, 33]):\n  %0: b8[9, 33] = gt(%x, 0.3)\n  %1: f32[9, 33] = masked_fill(%x, %0, -inf)\n  %2: f32[9, 33] = where(%0, %x, 0.0)\n  %3: f32[9, 33] = clamp(%x, -0.5, None)\n  %4: f64[9, 33] = to(%x, torch.float64, copy=False)\n  %5: f64[9, 33] = mul(%4, 1e-3)\n  %6: f32[9, 33] = to(%5, torch.float32, copy=False)\n  %7: b8[9, 33] = to(%x, torch.bool, copy=False)\n  return (%1, %2, %3, %6, %7)\n";
    check(src, &[x], 0.0, 0.0);
}

#[test]
fn views_fold_into_index_maps_and_non_contiguous_inputs() {
    let xt = randn(&[6, 4], 6).t().unwrap(); // [4, 6] with strides (1, 4)
    let y = randn(&[4, 6, 5], 7);
    let mut b = GraphBuilder::new();
    let x = b.input("x", xt.meta());
    let yv = b.input("y", y.meta());
    let t = |v: ValueId| Value::Tensor(v);
    let ints = |v: &[i64]| Value::IntList(v.to_vec());
    let call = |b: &mut GraphBuilder, op: Op, args: Vec<Value<ValueId>>| {
        b.call_py(op, args, vec![]).unwrap()[0]
    };
    let s0 = call(&mut b, Op::Sin, vec![t(x)]);
    let s1 = call(&mut b, Op::T, vec![t(s0)]);
    let s2 = call(&mut b, Op::Permute, vec![t(yv), ints(&[2, 1, 0])]);
    let s3 = call(&mut b, Op::Add, vec![t(s2), t(s1)]);
    let s4 = call(
        &mut b,
        Op::Slice,
        vec![
            t(s3),
            Value::Int(1),
            Value::Int(1),
            Value::None,
            Value::Int(2),
        ],
    );
    let s5 = call(
        &mut b,
        Op::Select,
        vec![t(s4), Value::Int(0), Value::Int(2)],
    );
    let s6 = call(&mut b, Op::Unsqueeze, vec![t(s5), Value::Int(0)]);
    let s7 = call(&mut b, Op::Expand, vec![t(s6), ints(&[2, 3, 4])]);
    let s8 = call(&mut b, Op::Mul, vec![t(s7), t(s7)]);
    let s9 = call(&mut b, Op::Diagonal, vec![t(s0)]);
    let s10 = call(&mut b, Op::Exp, vec![t(s9)]);
    let g = b.finish(vec![s8, s10]);
    // `s8 = (y + sin x)^2` can cancel: its error is the sine's (`TRANS.0` of a term at most 1)
    // times the square's derivative `2 |y + sin x|`, so it is bounded absolutely, not relative to
    // a cancelled result. (This test checks index maps; sin's own accuracy is checked alone.)
    let ymax = y
        .to_vec::<f32>()
        .iter()
        .fold(0f64, |m, v| m.max(f64::from(v.abs())));
    let atol = TRANS.0 * 2.0 * (ymax + 1.0);
    let exe = check_graph(&g, &[xt, y], TRANS.0, atol);
    assert_eq!(exe.step_counts().1, 0, "{}", exe.dump());
    // A merging reshape of an intermediate is not affine: its input gets a buffer, and the view
    // itself (an alias of that buffer) is a graph output.
    let z = randn(&[4, 6], 8);
    let mut b = GraphBuilder::new();
    let zv = b.input("z", z.meta());
    let r = b.call_py(Op::Relu, vec![t(zv)], vec![]).unwrap()[0];
    let v = b
        .call_py(Op::View, vec![t(r), ints(&[24])], vec![])
        .unwrap()[0];
    let a = b
        .call_py(Op::Add, vec![t(v), Value::Float(1.0)], vec![])
        .unwrap()[0];
    let g = b.finish(vec![a, v]);
    check_graph(&g, &[z], 0.0, 0.0);
}

fn reduce_graph(op: &str, shape: &[usize], dims: &str, keepdim: bool, out: &[usize]) -> String {
    let s = |v: &[usize]| {
        v.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let extra = if matches!(op, "sum" | "mean") {
        ", dtype=None"
    } else {
        ""
    };
    let k = if keepdim { "True" } else { "False" };
    format!(
        "graph(%x: f32[{}]):\n  %0: f32[{}] = mul(%x, 1.5)\n  %1: f32[{}] = {op}(%0, {dims}, {k}{extra})\n  %2: f32[{}] = add(%1, 1.0, alpha=1)\n  return (%2)\n",
        s(shape),
        s(shape),
        s(out),
        s(out)
    )
}

#[test]
fn outer_reductions_run_their_eager_kernel_between_fused_kernels() {
    // Reducing dim 0 of a row-major tensor keeps its innermost dim: the eager kernel runs it,
    // the prologue and epilogue stay kernels. Reducing the innermost dim fuses the prologue
    // (the epilogue reads the reduced row buffer in a second kernel).
    let x = randn(&[64, 300], 5);
    for (dims, out, steps) in [("[0]", "300", (2, 1)), ("[1]", "64", (2, 0))] {
        let src = format!(
            "graph(%x: f32[64, 300]):\n  %0: f32[64, 300] = mul(%x, 1.5)\n  %1: f32[{out}] = sum(%0, {dims}, False, dtype=None)\n  %2: f32[{out}] = add(%1, 1.0, alpha=1)\n  return (%2)\n"
        );
        let exe = check(&src, std::slice::from_ref(&x), 1e-6, 1e-6);
        assert_eq!(exe.step_counts(), steps, "{dims}:\n{}", exe.dump());
    }
    // A transposed input: dim 0 is its innermost in memory, so reducing it lowers.
    let t = randn(&[300, 64], 6).transpose(0, 1).unwrap();
    let src = "graph(%x: f32[64, 300]{1, 64}):\n  %0: f32[300] = sum(%x, [0], False, dtype=None)\n  return (%0)\n";
    let exe = check(src, &[t], 1e-6, 1e-6);
    assert_eq!(exe.step_counts(), (1, 0), "{}", exe.dump());
}

#[test]
fn reductions_over_any_adjacent_dims_with_keepdim() {
    // f32 sums accumulate in f64 in both, so they agree to the final rounding.
    for (op, tol) in [("sum", 1e-6), ("mean", 1e-6), ("amax", 0.0), ("amin", 0.0)] {
        for &(shape, dims, keep, out) in &[
            (&[7usize, 33][..], "[-1]", true, &[7usize, 1][..]),
            (&[7, 33], "[1]", false, &[7]),
            (&[7, 33], "[0]", false, &[33]),
            (&[3, 5, 9], "[1, 2]", false, &[3]),
            (&[3, 5, 9], "[0, 1]", true, &[1, 1, 9]),
            (&[3, 5, 9], "[1]", true, &[3, 1, 9]),
            (&[1023], "[0]", false, &[]),
            (&[2, 1025], "[-1]", false, &[2]),
            (&[300, 257], "[-1]", false, &[300]),
            (&[4, 0], "[0]", false, &[0]),
        ] {
            if matches!(op, "amax" | "amin") && shape.contains(&0) {
                continue;
            }
            let src = reduce_graph(op, shape, dims, keep, out);
            let x = randn(shape, shape.iter().sum::<usize>() as u64);
            check(&src, &[x], tol, 1e-6);
        }
    }
    let x = randn(&[5, 300], 9);
    let src = "graph(%x: f32[5, 300]):\n  %0: f32[5] = var(%x, [-1], None, False, correction=None)\n  %1: f32[5, 1] = std(%x, [1], False, True, correction=None)\n  %2: f32[] = sum(%x, None, False, dtype=None)\n  %3: f32[] = max(%x)\n  %4: f64[5] = sum(%x, [1], False, dtype=torch.float64)\n  return (%0, %1, %2, %3, %4)\n";
    check(src, &[x], 2e-6, 1e-6);
    let i = Tensor::from_vec((0..99i64).map(|v| v * 31 % 17 - 8).collect(), &[9, 11]).unwrap();
    let src = "graph(%i: i64[9, 11]):\n  %0: i64[9] = sum(%i, [1], False, dtype=None)\n  %1: i64[11] = amax(%i, [0], False)\n  %2: b8[9, 11] = gt(%i, 0)\n  %3: i64[9] = sum(%2, [1], False, dtype=None)\n  return (%0, %1, %3)\n";
    check(src, &[i], 0.0, 0.0);
}

#[test]
fn softmax_layer_norm_in_one_kernel_each() {
    for &(r, c) in &[(1usize, 1usize), (7, 8), (9, 31), (33, 1025), (64, 1024)] {
        let x = randn(&[r, c], (r * c) as u64);
        let src = format!(
            "graph(%x: f32[{r}, {c}]):\n  %0: f32[{r}, {c}] = softmax(%x, -1, None)\n  %1: f32[{r}, {c}] = log_softmax(%x, 1, None)\n  return (%0, %1)\n"
        );
        let exe = check(&src, std::slice::from_ref(&x), 3e-6, 1e-7);
        assert_eq!(exe.step_counts(), (1, 0), "{}", exe.dump());
        let (w, b) = (randn(&[c], 1), randn(&[c], 2));
        let src = format!(
            "graph(%x: f32[{r}, {c}], %w: f32[{c}], %b: f32[{c}]):\n  %0: f32[{r}, {c}] = layer_norm(%x, [{c}], %w, %b, 1e-05)\n  %1: f32[{r}, {c}] = gelu(%0, approximate='tanh')\n  return (%1)\n"
        );
        let exe = check(&src, &[x.clone(), w, b], 2e-5, 2e-6);
        assert_eq!(exe.step_counts(), (1, 0), "{}", exe.dump());
    }
    // Softmax over dim 0 (a strided column walk).
    let x = randn(&[33, 9], 3);
    check(
        "graph(%x: f32[33, 9]):\n  %0: f32[33, 9] = softmax(%x, 0, None)\n  return (%0)\n",
        &[x],
        3e-6,
        1e-7,
    );
}

#[test]
fn matmul_with_bias_and_activation_and_fallback_nodes() {
    let (x, w, b) = (randn(&[9, 33], 1), randn(&[33, 17], 2), randn(&[17], 3));
    let src = "graph(%x: f32[9, 33], %w: f32[33, 17], %b: f32[17]):\n  %0: f32[9, 17] = matmul(%x, %w)\n  %1: f32[9, 17] = add(%0, %b, alpha=1)\n  %2: f32[9, 17] = relu(%1)\n  %3: i64[9] = argmax(%2, 1, False)\n  %4: f32[9, 17] = mul(%2, 2.0)\n  return (%4, %3)\n";
    let exe = check(src, &[x, w, b], 1e-5, 1e-5);
    assert!(exe.dump().contains("addmm"), "{}", exe.dump());
}

#[test]
fn in_place_updates_of_inputs_are_written_back_and_constants_fold() {
    let x = randn(&[8], 1);
    let src = "graph(%x: f32[8]):\n  %0: f32[8] = add_(%x, 1.0, alpha=1)\n  %1: f32[8] = mul(%0, 2.0)\n  return (%1)\n";
    // Checked against eager, inputs after the call included, in functionalize.rs.
    let g = rynamo_graph::parse(src).unwrap();
    let exe = crate::DynasmBackend::new().compile_exe(&g).unwrap();
    assert!(exe.is_jitted(), "{}", exe.dump());
    let src = "graph(%x: f32[8]):\n  %0: f32[8] = ones([8], dtype=torch.float32)\n  %1: f32[8] = mul(%0, 3.0)\n  %2: f32[8] = add(%x, %1, alpha=1)\n  return (%2)\n";
    let exe = check(src, &[x], 0.0, 0.0);
    assert!(exe.dump().contains("const"), "{}", exe.dump());
    let _ = Scalar::Int(0);
}
