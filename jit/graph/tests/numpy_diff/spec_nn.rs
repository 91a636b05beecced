//! Specs of the neural-network ops (references written in float64 in `numpy_ref.py`).

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, Tensor};

use crate::inputs::{self, Domain, FLOAT_DTYPES};
use crate::spec::*;

fn ft(c: &mut Ctx<'_>, shape: &[usize]) -> Tensor {
    let dt = c.dt;
    c.t(shape, dt, Domain::Unit)
}
fn maybe(c: &mut Ctx<'_>, a: &mut Args, name: &'static str, shape: &[usize]) {
    if c.chance(0.6) {
        let v = ft(c, shape);
        a.push((name, t(v)));
    }
}

fn g_conv(c: &mut Ctx<'_>, nd: usize, str_pad: bool) -> Args {
    let g = c.pick(&[1, 1, 2]);
    let (cin, cout) = (g * (1 + c.rng.below(2)), g * (1 + c.rng.below(3)));
    let k: Vec<usize> = (0..nd).map(|_| 1 + c.rng.below(3)).collect();
    // At least the dilated kernel (dilation <= 2), so every case is a valid convolution.
    let sp: Vec<usize> = k.iter().map(|&k| 2 * k - 1 + c.rng.below(4)).collect();
    let mut xs = vec![cin];
    xs.extend(&sp);
    if c.chance(0.8) {
        xs.insert(0, 1 + c.rng.below(3));
    }
    let mut ws = vec![cout, cin / g];
    ws.extend(&k);
    let x = ft(c, &xs);
    let w = ft(c, &ws);
    let mut a = vec![("input", t(x)), ("weight", t(w))];
    maybe(c, &mut a, "bias", &[cout]);
    let list = |c: &mut Ctx<'_>, lo: i64, hi: i64| -> Vec<i64> {
        if c.chance(0.5) {
            vec![c.rng.range(lo, hi)]
        } else {
            (0..nd).map(|_| c.rng.range(lo, hi)).collect()
        }
    };
    let padding_same = str_pad && c.chance(0.5);
    if !padding_same {
        a.push(("stride", il(list(c, 1, 2))));
    }
    if str_pad {
        a.push(("padding", st(if padding_same { "same" } else { "valid" })));
    } else {
        a.push(("padding", il(list(c, 0, 1))));
    }
    a.push(("dilation", il(list(c, 1, 2))));
    a.push(("groups", i(g as i64)));
    a
}
fn g_conv1d(c: &mut Ctx<'_>) -> Args {
    g_conv(c, 1, false)
}
fn g_conv1d_pad(c: &mut Ctx<'_>) -> Args {
    g_conv(c, 1, true)
}
fn g_conv2d(c: &mut Ctx<'_>) -> Args {
    g_conv(c, 2, false)
}
fn g_conv2d_pad(c: &mut Ctx<'_>) -> Args {
    g_conv(c, 2, true)
}
fn img(c: &mut Ctx<'_>) -> Tensor {
    let mut sh = vec![1 + c.rng.below(3), 3 + c.rng.below(5), 3 + c.rng.below(5)];
    if c.chance(0.7) {
        sh.insert(0, 1 + c.rng.below(2));
    }
    let dt = c.dt;
    c.t(&sh, dt, Domain::Real)
}
fn g_max_pool(c: &mut Ctx<'_>) -> Args {
    let k = c.rng.range(1, 3);
    let d = c.rng.range(1, 2);
    let eff = d * (k - 1) + 1;
    let mut sh = vec![
        1 + c.rng.below(3),
        eff as usize + c.rng.below(4),
        eff as usize + c.rng.below(4),
    ];
    if c.chance(0.7) {
        sh.insert(0, 1 + c.rng.below(2));
    }
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    vec![
        ("self", t(x)),
        ("kernel_size", il(vec![k])),
        (
            "stride",
            il(if c.chance(0.4) {
                vec![]
            } else {
                vec![c.rng.range(1, 2)]
            }),
        ),
        ("padding", il(vec![c.rng.range(0, eff / 2)])),
        ("dilation", il(vec![d])),
        ("ceil_mode", b(c.chance(0.5))),
    ]
}
fn g_avg_pool(c: &mut Ctx<'_>) -> Args {
    let x = img(c);
    let (k0, k1) = (c.rng.range(1, 3), c.rng.range(1, 3));
    let mut a = vec![
        ("self", t(x)),
        ("kernel_size", il(vec![k0, k1])),
        (
            "stride",
            il(if c.chance(0.4) {
                vec![]
            } else {
                vec![c.rng.range(1, 2)]
            }),
        ),
        ("padding", il(vec![c.rng.range(0, k0.min(k1) / 2)])),
        ("ceil_mode", b(c.chance(0.5))),
        ("count_include_pad", b(c.chance(0.5))),
    ];
    if c.chance(0.2) {
        a.push(("divisor_override", i(3)));
    }
    a
}
fn g_adaptive(c: &mut Ctx<'_>) -> Args {
    let x = img(c);
    vec![
        ("self", t(x)),
        (
            "output_size",
            il(vec![c.rng.range(1, 4), c.rng.range(1, 4)]),
        ),
    ]
}
/// An NCHW image, up- or downsampled to a random size or by a scale factor (the sizes
/// `F.interpolate` computes from it), with or without `align_corners`.
fn g_upsample(c: &mut Ctx<'_>) -> Args {
    let sh = [
        1 + c.rng.below(2),
        1 + c.rng.below(3),
        1 + c.rng.below(6),
        1 + c.rng.below(6),
    ];
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let mut a = vec![("self", t(x))];
    if c.chance(0.5) {
        let s: f64 = c.pick(&[0.5, 1.5, 2.0, 3.0]);
        let size = |n: usize| ((n as f64 * s).floor() as i64).max(1);
        a.push(("output_size", il(vec![size(sh[2]), size(sh[3])])));
        a.push(("align_corners", b(c.chance(0.5))));
        a.push(("scales_h", f(s)));
        a.push(("scales_w", f(s)));
    } else {
        a.push((
            "output_size",
            il(vec![c.rng.range(1, 9), c.rng.range(1, 9)]),
        ));
        a.push(("align_corners", b(c.chance(0.5))));
    }
    a
}
/// An NCL signal resampled to a random length or by a scale factor.
fn g_upsample1d(c: &mut Ctx<'_>) -> Args {
    let sh = [1 + c.rng.below(2), 1 + c.rng.below(3), 1 + c.rng.below(8)];
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let mut a = vec![("self", t(x))];
    if c.chance(0.5) {
        let s: f64 = c.pick(&[0.5, 1.5, 2.0, 3.0]);
        a.push((
            "output_size",
            il(vec![((sh[2] as f64 * s).floor() as i64).max(1)]),
        ));
        a.push(("align_corners", b(c.chance(0.5))));
        a.push(("scales", f(s)));
    } else {
        a.push(("output_size", il(vec![c.rng.range(1, 12)])));
        a.push(("align_corners", b(c.chance(0.5))));
    }
    a
}
/// An NCDHW volume resampled to random sizes or by a scale factor.
fn g_upsample3d(c: &mut Ctx<'_>) -> Args {
    let sh = [
        1,
        1 + c.rng.below(2),
        1 + c.rng.below(4),
        1 + c.rng.below(4),
        1 + c.rng.below(4),
    ];
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let mut a = vec![("self", t(x))];
    if c.chance(0.5) {
        let s: f64 = c.pick(&[0.5, 1.5, 2.0]);
        let size = |n: usize| ((n as f64 * s).floor() as i64).max(1);
        a.push((
            "output_size",
            il(vec![size(sh[2]), size(sh[3]), size(sh[4])]),
        ));
        a.push(("align_corners", b(c.chance(0.5))));
        for k in ["scales_d", "scales_h", "scales_w"] {
            a.push((k, f(s)));
        }
    } else {
        let o: Vec<i64> = (0..3).map(|_| c.rng.range(1, 6)).collect();
        a.push(("output_size", il(o)));
        a.push(("align_corners", b(c.chance(0.5))));
    }
    a
}
fn g_batch_norm(c: &mut Ctx<'_>) -> Args {
    let ch = 1 + c.rng.below(3);
    let mut sh = vec![2 + c.rng.below(3), ch];
    sh.extend(inputs::shape(c.rng, 0, 2).into_iter().map(|d| d.max(1)));
    let x = ft(c, &sh);
    let training = c.chance(0.5);
    let stats = !training || c.chance(0.7);
    let mut a = vec![("input", t(x))];
    if stats {
        let rm = ft(c, &[ch]);
        let rv = inputs::contiguous(c.rng, &[ch], c.dt, Domain::Pos, false);
        a.push(("running_mean", t(rm.deep_clone())));
        a.push(("running_var", t(rv)));
    } else {
        a.push(("running_mean", Value::None));
        a.push(("running_var", Value::None));
    }
    maybe(c, &mut a, "weight", &[ch]);
    maybe(c, &mut a, "bias", &[ch]);
    a.push(("training", b(training)));
    a.push(("momentum", f(c.pick(&[0.1, 0.5]))));
    a
}
fn g_group_norm(c: &mut Ctx<'_>) -> Args {
    let g = 1 + c.rng.below(3);
    let ch = g * (1 + c.rng.below(2));
    let mut sh = vec![1 + c.rng.below(3), ch];
    sh.extend(inputs::shape(c.rng, 0, 2).into_iter().map(|d| d.max(1)));
    let x = ft(c, &sh);
    let mut a = vec![("input", t(x)), ("num_groups", i(g as i64))];
    maybe(c, &mut a, "weight", &[ch]);
    maybe(c, &mut a, "bias", &[ch]);
    a
}
fn g_layer_norm(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape_r(1, 4);
    let k = 1 + c.rng.below(sh.len());
    let ns: Vec<usize> = sh[sh.len() - k..].iter().map(|&d| d.max(1)).collect();
    let mut full = sh[..sh.len() - k].to_vec();
    full.extend(&ns);
    let x = ft(c, &full);
    let mut a = vec![
        ("input", t(x)),
        (
            "normalized_shape",
            il(ns.iter().map(|&d| d as i64).collect()),
        ),
    ];
    maybe(c, &mut a, "weight", &ns);
    maybe(c, &mut a, "bias", &ns);
    a
}
fn g_embedding(c: &mut Ctx<'_>) -> Args {
    let (n, d) = (1 + c.rng.below(6), c.rng.below(4));
    let w = ft(c, &[n, d]);
    let sh = inputs::shape(c.rng, 0, 2);
    let k: usize = sh.iter().product();
    let ix: Vec<i64> = (0..k).map(|_| c.rng.below(n) as i64).collect();
    vec![
        ("input", t(Tensor::from_vec(ix, &sh).expect("fits"))),
        ("weight", t(w)),
    ]
}
fn g_dropout(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    // The deterministic settings only; the random path is checked by the runtime's tests.
    if c.chance(0.5) {
        vec![("input", t(x)), ("p", f(0.3)), ("training", b(false))]
    } else {
        vec![("input", t(x)), ("p", f(0.0))]
    }
}
fn g_pad(c: &mut Ctx<'_>) -> Args {
    let mode = c.pick(&["constant", "constant", "reflect", "replicate", "circular"]);
    let k = 1 + c.rng.below(2);
    let rank = if mode == "constant" {
        k + c.rng.below(3)
    } else {
        k + 1 + c.rng.below(2)
    };
    let sh: Vec<usize> = (0..rank).map(|_| 2 + c.rng.below(4)).collect();
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let mut p = Vec::new();
    for d in 0..k {
        let n = sh[rank - 1 - d] as i64;
        let hi = if mode == "reflect" { n - 1 } else { n };
        let lo = if mode == "constant" { -1 } else { 0 };
        p.push(c.rng.range(lo, hi.min(3)));
        p.push(c.rng.range(lo, hi.min(3)));
    }
    let mut a = vec![("input", t(x)), ("pad", il(p)), ("mode", st(mode))];
    if mode == "constant" && c.chance(0.5) {
        a.push(("value", f(2.0)));
    }
    a
}
fn class_input(c: &mut Ctx<'_>) -> (Tensor, Vec<usize>) {
    let ncls = 1 + c.rng.below(4);
    let mut sh = vec![ncls];
    if c.chance(0.8) {
        sh.insert(0, c.rng.below(4));
        if c.chance(0.3) {
            sh.push(1 + c.rng.below(3));
        }
    }
    let dt = c.dt;
    (c.t(&sh, dt, Domain::Real), sh)
}
fn class_target(c: &mut Ctx<'_>, sh: &[usize], ignore: i64) -> Tensor {
    let cd = usize::from(sh.len() >= 2);
    let ncls = sh[cd];
    let mut tsh = sh.to_vec();
    tsh.remove(cd);
    let k: usize = tsh.iter().product();
    let v: Vec<i64> = (0..k)
        .map(|_| {
            if c.chance(0.15) {
                ignore
            } else {
                c.rng.below(ncls) as i64
            }
        })
        .collect();
    Tensor::from_vec(v, &tsh).expect("fits")
}
fn loss_tail(c: &mut Ctx<'_>, a: &mut Args, ncls: usize) {
    if c.chance(0.4) {
        let w = inputs::contiguous(c.rng, &[ncls], c.dt, Domain::Pos, false);
        a.push(("weight", t(w)));
    }
    a.push(("reduction", st(c.pick(&["mean", "sum", "none"]))));
}
fn g_cross_entropy(c: &mut Ctx<'_>) -> Args {
    let (x, sh) = class_input(c);
    let cd = usize::from(sh.len() >= 2);
    let prob = c.chance(0.3);
    let ignore = c.pick(&[-100, 1]);
    let target = if prob {
        let dt = c.dt;
        inputs::contiguous(c.rng, &sh, dt, Domain::Unit, false)
    } else {
        class_target(c, &sh, ignore)
    };
    let mut a = vec![("input", t(x)), ("target", t(target))];
    loss_tail(c, &mut a, sh[cd]);
    if !prob {
        a.push(("ignore_index", i(ignore)));
    }
    if c.chance(0.5) {
        a.push(("label_smoothing", f(c.pick(&[0.1, 0.25]))));
    }
    a
}
fn g_nll(c: &mut Ctx<'_>) -> Args {
    let (x, sh) = class_input(c);
    let cd = usize::from(sh.len() >= 2);
    let ignore = c.pick(&[-100, 0]);
    let target = class_target(c, &sh, ignore);
    let mut a = vec![("input", t(x)), ("target", t(target))];
    loss_tail(c, &mut a, sh[cd]);
    a.push(("ignore_index", i(ignore)));
    if c.chance(0.2) {
        a.push(("size_average", b(false)));
    }
    a
}
fn g_regression(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let ts = if c.chance(0.8) {
        sh.clone()
    } else {
        inputs::broadcastable(c.rng, &sh)
    };
    let td = if c.chance(0.8) { dt } else { c.dt2() };
    let y = c.t(&ts, td, Domain::Real);
    vec![
        ("input", t(x)),
        ("target", t(y)),
        ("reduction", st(c.pick(&["mean", "sum", "none"]))),
    ]
}
fn g_sdpa(c: &mut Ctx<'_>) -> Args {
    let (l, s, e, ev) = (
        1 + c.rng.below(4),
        1 + c.rng.below(4),
        1 + c.rng.below(4),
        1 + c.rng.below(3),
    );
    let gqa = c.chance(0.2);
    let (hq, hk) = if gqa { (4, 2) } else { (2, 2) };
    let batch = c.rng.below(3) > 0;
    let lead = |h: usize| if batch { vec![2, h] } else { vec![h] };
    let mk = |c: &mut Ctx<'_>, h: usize, a: usize, b_: usize| {
        let mut sh = lead(h);
        sh.extend([a, b_]);
        ft(c, &sh)
    };
    let q = mk(c, hq, l, e);
    let k = mk(c, hk, s, e);
    let v = mk(c, hk, s, ev);
    let mut a = vec![("query", t(q)), ("key", t(k)), ("value", t(v))];
    match c.rng.below(4) {
        0 => a.push(("is_causal", b(true))),
        1 => a.push((
            "attn_mask",
            t(inputs::contiguous(
                c.rng,
                &[l, s],
                DType::Bool,
                Domain::Real,
                false,
            )),
        )),
        2 => {
            let m = ft(c, &[l, s]);
            a.push(("attn_mask", t(m)));
        }
        _ => {}
    }
    if c.chance(0.3) {
        a.push(("scale", f(0.3)));
    }
    if gqa {
        a.push(("enable_gqa", b(true)));
    }
    a
}

fn dtype_mismatch(i: &Info<'_>) -> bool {
    let d = i.arg0();
    !d.is_floating_point()
        || i.args.iter().any(|(n, v)| {
            matches!(v, Value::Tensor(t) if t.dtype() != d && !matches!(*n, "target" | "attn_mask" | "running_mean" | "running_var" | "input" | "indices" ))
        })
}
fn pool_reject(i: &Info<'_>) -> bool {
    i.arg0() == DType::Bool
}
fn avg_reject(i: &Info<'_>) -> bool {
    !i.arg0().is_floating_point() && i.arg0() != DType::Int64
}
fn float_arg0(i: &Info<'_>) -> bool {
    !i.arg0().is_floating_point()
}
fn ce_reject(i: &Info<'_>) -> bool {
    float_arg0(i)
}
fn reg_reject(i: &Info<'_>) -> bool {
    !i.promoted.is_floating_point()
}
fn nll_reject(i: &Info<'_>) -> bool {
    float_arg0(i)
}

/// The spec of a neural-network op, if it is one.
pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let conv = |g, nd: &'static str| {
        Spec::new(g, nd)
            .out(arg0_rule)
            .reject(dtype_mismatch)
            .tol(4, 16.0)
            .dtypes(&FLOAT_DTYPES)
            .no_edges()
            .cases(16)
    };
    let sp = match op {
        Conv1d => conv(g_conv1d, "conv(input, weight, bias, stride, padding, dilation, groups, 1)")
            .scale("conv(np.abs(input), np.abs(weight), None if bias is None else np.abs(bias), stride, padding, dilation, groups, 1)"),
        Conv1dPadding => conv(g_conv1d_pad, "conv(input, weight, bias, stride, padding, dilation, groups, 1)")
            .scale("conv(np.abs(input), np.abs(weight), None if bias is None else np.abs(bias), stride, padding, dilation, groups, 1)"),
        Conv2d => conv(g_conv2d, "conv(input, weight, bias, stride, padding, dilation, groups, 2)")
            .scale("conv(np.abs(input), np.abs(weight), None if bias is None else np.abs(bias), stride, padding, dilation, groups, 2)"),
        Conv2dPadding => conv(g_conv2d_pad, "conv(input, weight, bias, stride, padding, dilation, groups, 2)")
            .scale("conv(np.abs(input), np.abs(weight), None if bias is None else np.abs(bias), stride, padding, dilation, groups, 2)"),
        MaxPool2d => Spec::new(g_max_pool, "max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)[0]")
            .cast(0)
            .out(arg0_rule)
            .reject(pool_reject),
        MaxPool2dWithIndices => Spec::new(g_max_pool, "max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule)
            .reject(pool_reject),
        AvgPool2d => Spec::new(g_avg_pool, "avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)")
            .out(arg0_rule)
            .reject(avg_reject)
            .tol(2, 4.0)
            .scale("avg_pool2d(np.abs(self), kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)"),
        AdaptiveAvgPool2d => Spec::new(g_adaptive, "adaptive_avg_pool2d(self, output_size)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(2, 4.0)
            .scale("adaptive_avg_pool2d(np.abs(self), output_size)"),
        UpsampleBilinear2d => Spec::new(g_upsample, "upsample_bilinear2d(self, output_size, align_corners, scales_h, scales_w)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(4, 4.0)
            .scale("upsample_bilinear2d(np.abs(self), output_size, align_corners, scales_h, scales_w)"),
        UpsampleLinear1d => Spec::new(g_upsample1d, "upsample_linear1d(self, output_size, align_corners, scales)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(4, 4.0)
            .scale("upsample_linear1d(np.abs(self), output_size, align_corners, scales)"),
        UpsampleTrilinear3d => Spec::new(g_upsample3d, "upsample_trilinear3d(self, output_size, align_corners, scales_d, scales_h, scales_w)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(4, 4.0)
            .scale("upsample_trilinear3d(np.abs(self), output_size, align_corners, scales_d, scales_h, scales_w)"),
        BatchNorm => Spec::new(g_batch_norm, "batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)")
            .out(arg0_rule)
            .reject(float_arg0)
            .mutated(&["running_mean", "running_var"])
            .tol(4, 16.0)
            .scale("bn_scale(input, running_mean, running_var, weight, bias, training, momentum, eps)")
            .dtypes(&FLOAT_DTYPES)
            .no_edges(),
        GroupNorm => Spec::new(g_group_norm, "group_norm(input, num_groups, weight, bias, eps)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(4, 16.0)
            .scale("norm_scale(input, weight, bias)")
            .dtypes(&FLOAT_DTYPES)
            .no_edges(),
        LayerNorm => Spec::new(g_layer_norm, "layer_norm(input, normalized_shape, weight, bias, eps)")
            .out(arg0_rule)
            .reject(float_arg0)
            .tol(4, 16.0)
            .scale("norm_scale(input, weight, bias)")
            .dtypes(&FLOAT_DTYPES)
            .no_edges(),
        Embedding => Spec::new(g_embedding, "np.take(weight, input, axis=0)")
            .cast(0)
            .castable(&["weight"])
            .out(|i: &Info<'_>| i.tensor("weight").map_or(DType::Float32, Tensor::dtype))
            .dtypes(&FLOAT_DTYPES),
        Dropout => Spec::new(g_dropout, "input.copy()").cast(0).out(arg0_rule),
        Pad => Spec::new(g_pad, "pad_ref(input, pad, mode, value)")
            .cast(2)
            .castable(&["input", "value"])
            .target(arg0_rule)
            .out(arg0_rule)
            .cases(24),
        CrossEntropy => Spec::new(g_cross_entropy, "cross_entropy(input, target, weight, ignore_index, reduction_of(reduction, size_average, reduce), label_smoothing)")
            .out(arg0_rule)
            .castable(&["input", "weight"])
            .reject(ce_reject)
            .tol(8, 16.0)
            .half_ulps(4)
            .scale("ce_scale(input, target, reduction_of(reduction, size_average, reduce))")
            .no_edges()
            .cases(24),
        NllLoss => Spec::new(g_nll, "nll(input, target, weight, ignore_index, reduction_of(reduction, size_average, reduce))")
            .out(arg0_rule)
            .castable(&["input", "weight"])
            .reject(nll_reject)
            .tol(8, 16.0)
            .half_ulps(4)
            .scale("ce_scale(input, target, reduction_of(reduction, size_average, reduce))")
            .no_edges(),
        MseLoss => Spec::new(g_regression, "regression(input, target, reduction_of(reduction, size_average, reduce), True)")
            .castable(&["input", "target"])
            .reject(reg_reject)
            .tol(4, 8.0)
            .scale("regression(np.abs(input), -np.abs(target), reduction_of(reduction, size_average, reduce), True)"),
        L1Loss => Spec::new(g_regression, "regression(input, target, reduction_of(reduction, size_average, reduce), False)")
            .castable(&["input", "target"])
            .reject(reg_reject)
            .tol(4, 8.0)
            .scale("regression(np.abs(input), -np.abs(target), reduction_of(reduction, size_average, reduce), False)"),
        ScaledDotProductAttention => Spec::new(g_sdpa, "sdpa(query, key, value, attn_mask, is_causal, scale, enable_gqa)")
            .out(arg0_rule)
            .castable(&["query", "key", "value"])
            .reject(float_arg0)
            .tol(8, 16.0)
            .scale("sdpa_scale(query, key, value, attn_mask, is_causal, scale, enable_gqa)")
            .dtypes(&FLOAT_DTYPES)
            .no_edges(),
        _ => return None,
    };
    Some(sp)
}
