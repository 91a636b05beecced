//! Specs of reductions, scans, orderings and matrix products.

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, Scalar, Tensor};

use crate::inputs::{self, Domain};
use crate::spec::*;

/// Random reduction dims of a rank-`nd` tensor: None, [], one dim, or several distinct ones.
fn dims(c: &mut Ctx<'_>, nd: usize) -> IValueOpt {
    match c.rng.below(5) {
        0 => None,
        1 if nd > 0 => Some(vec![]),
        2 | 3 if nd > 0 => Some(vec![c.dim(nd)]),
        _ if nd > 1 => {
            let p = c.rng.perm(nd);
            let k = 1 + c.rng.below(nd);
            Some(p[..k].iter().map(|&d| d as i64).collect())
        }
        _ => None,
    }
}
type IValueOpt = Option<Vec<i64>>;

fn x_of(c: &mut Ctx<'_>, dom: Domain) -> Tensor {
    let sh = c.shape();
    let dt = c.dt;
    c.t(&sh, dt, dom)
}

fn g_sum(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let mut a = vec![("self", t(x))];
    if let Some(d) = dims(c, nd) {
        a.push(("dim", il(d)));
    }
    a.push(("keepdim", b(c.chance(0.5))));
    if c.chance(0.3) {
        a.push((
            "dtype",
            Value::DType(c.pick(&[DType::Float64, DType::Float32, DType::Int64])),
        ));
    }
    a
}
fn g_dim_opt(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let mut a = vec![("self", t(x))];
    if c.chance(0.7) {
        a.push(("dim", i(c.dim(nd))));
    }
    a.push(("keepdim", b(c.chance(0.5))));
    a
}
fn g_prod(c: &mut Ctx<'_>) -> Args {
    let mut a = g_dim_opt(c);
    if c.chance(0.2) {
        a.push(("dtype", Value::DType(DType::Float64)));
    }
    a
}
fn g_amax(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let d = dims(c, nd).unwrap_or_default();
    vec![
        ("self", t(x)),
        ("dim", il(d)),
        ("keepdim", b(c.chance(0.5))),
    ]
}
fn x_only(c: &mut Ctx<'_>) -> Args {
    vec![("self", t(x_of(c, Domain::Real)))]
}
fn g_max_dim(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    vec![
        ("self", t(x)),
        ("dim", i(c.dim(nd))),
        ("keepdim", b(c.chance(0.5))),
    ]
}
fn g_var(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let mut a = vec![("self", t(x))];
    if let Some(d) = dims(c, nd) {
        a.push(("dim", il(d)));
    }
    if c.chance(0.3) {
        a.push(("unbiased", b(c.chance(0.5))));
    }
    if c.chance(0.4) {
        a.push(("correction", s(Scalar::Int(c.pick(&[0, 1, 2])))));
    }
    a.push(("keepdim", b(c.chance(0.5))));
    a
}
fn g_lse(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let d = dims(c, nd).unwrap_or_default();
    vec![
        ("self", t(x)),
        ("dim", il(d)),
        ("keepdim", b(c.chance(0.5))),
    ]
}
fn g_softmax(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let mut a = vec![("self", t(x)), ("dim", i(c.dim(nd)))];
    if c.chance(0.25) {
        a.push((
            "dtype",
            Value::DType(c.pick(&[DType::Float64, DType::Float32])),
        ));
    }
    a
}
fn g_norm(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Real);
    let nd = x.ndim();
    let p = c.pick(&[2.0, 1.0, f64::INFINITY, f64::NEG_INFINITY, 0.0, 3.0, 0.5]);
    let mut a = vec![("self", t(x)), ("p", s(Scalar::Float(p)))];
    if let Some(d) = dims(c, nd) {
        a.push(("dim", il(d)));
    }
    a.push(("keepdim", b(c.chance(0.5))));
    a
}
fn g_norm_str(c: &mut Ctx<'_>) -> Args {
    let mut a = g_norm(c);
    a[1] = ("p", st("fro"));
    a
}
fn g_count(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Small);
    let nd = x.ndim();
    let mut a = vec![("self", t(x))];
    if let Some(d) = dims(c, nd).filter(|d| !d.is_empty()) {
        a.push(("dim", il(d)));
    }
    a
}
fn g_cum(c: &mut Ctx<'_>) -> Args {
    let dtype = if c.chance(0.2) {
        Some(c.pick(&[DType::Float64, DType::Int64]))
    } else {
        None
    };
    // Float-to-int conversion of non-finite values is undefined in PyTorch: no edges then.
    c.edges &= dtype != Some(DType::Int64);
    let x = x_of(c, Domain::Unit);
    let nd = x.ndim();
    let mut a = vec![("self", t(x)), ("dim", i(c.dim(nd)))];
    if let Some(d) = dtype {
        a.push(("dtype", Value::DType(d)));
    }
    a
}
fn g_sort(c: &mut Ctx<'_>) -> Args {
    let x = x_of(c, Domain::Ints(-3, 3));
    let nd = x.ndim();
    let mut a = vec![
        ("self", t(x)),
        ("dim", i(c.dim(nd))),
        ("descending", b(c.chance(0.5))),
    ];
    if c.chance(0.3) {
        a.push(("stable", b(true)));
    }
    a
}
fn g_topk(c: &mut Ctx<'_>) -> Args {
    // Distinct values in a layout without repeated elements (no stride-0 dims): no ties.
    let sh = c.shape();
    let dt = c.dt;
    let x = c.tm(&sh, dt, Domain::Distinct);
    let nd = x.ndim();
    let d = c.dim(nd);
    let size = if nd == 0 {
        1
    } else {
        x.shape()[(d.rem_euclid(nd as i64)) as usize]
    };
    let k = c.rng.range(i64::from(nd == 0), size as i64);
    vec![
        ("self", t(x)),
        ("k", i(k)),
        ("dim", i(d)),
        ("largest", b(c.chance(0.5))),
    ]
}

fn float_reject_basis(i: &Info<'_>) -> bool {
    !i.basis().is_floating_point()
}
fn var_reject(i: &Info<'_>) -> bool {
    not_float(i)
        || (!matches!(i.get("unbiased"), None | Some(Value::None)) && i.get("correction").is_some())
}
fn all_rule(i: &Info<'_>) -> DType {
    if i.arg0() == DType::UInt8 {
        DType::UInt8
    } else {
        DType::Bool
    }
}
fn norm_reject(i: &Info<'_>) -> bool {
    !param_rule(i).is_floating_point()
}

// ---- matrix products -------------------------------------------------------------------------

fn mat(c: &mut Ctx<'_>, shape: &[usize], dt: DType) -> Tensor {
    c.t(shape, dt, Domain::Unit)
}
fn other_dt(c: &mut Ctx<'_>) -> DType {
    if c.chance(0.1) { c.dt2() } else { c.dt }
}
fn g_matmul(c: &mut Ctx<'_>) -> Args {
    let (n, k, p) = (1 + c.rng.below(5), c.rng.below(6), 1 + c.rng.below(5));
    let batch = inputs::shape(c.rng, 0, 2);
    let (mut sa, mut sb) = (batch.clone(), inputs::broadcastable(c.rng, &batch));
    match c.rng.below(4) {
        0 => (sa, sb) = (vec![k], vec![k]),
        1 => (sa, sb) = (vec![k], vec![k, p]),
        2 => (sa, sb) = (vec![n, k], vec![k]),
        _ => {
            sa.extend([n, k]);
            sb.extend([k, p]);
        }
    }
    let dt = c.dt;
    let od = other_dt(c);
    vec![("self", t(mat(c, &sa, dt))), ("other", t(mat(c, &sb, od)))]
}
fn g_mm(c: &mut Ctx<'_>) -> Args {
    let (n, k, p) = (c.rng.below(5), c.rng.below(6), c.rng.below(5));
    let dt = c.dt;
    let od = other_dt(c);
    vec![
        ("self", t(mat(c, &[n, k], dt))),
        ("mat2", t(mat(c, &[k, p], od))),
    ]
}
fn g_bmm(c: &mut Ctx<'_>) -> Args {
    let (bb, n, k, p) = (
        c.rng.below(3),
        1 + c.rng.below(4),
        c.rng.below(5),
        1 + c.rng.below(4),
    );
    let dt = c.dt;
    let od = other_dt(c);
    vec![
        ("self", t(mat(c, &[bb, n, k], dt))),
        ("mat2", t(mat(c, &[bb, k, p], od))),
    ]
}
fn beta_alpha(c: &mut Ctx<'_>, a: &mut Args) {
    let float = c.dt.is_floating_point();
    let v = |c: &mut Ctx<'_>| {
        if float {
            Scalar::Float(c.pick(&[1.0, 0.0, 0.5, -2.0]))
        } else {
            Scalar::Int(c.pick(&[1, 0, 2]))
        }
    };
    if c.chance(0.6) {
        a.push(("beta", s(v(c))));
    }
    if c.chance(0.6) {
        a.push(("alpha", s(v(c))));
    }
}
fn g_addmm(c: &mut Ctx<'_>) -> Args {
    let (n, k, p) = (1 + c.rng.below(4), c.rng.below(5), 1 + c.rng.below(4));
    let dt = c.dt;
    let ss = inputs::broadcastable(c.rng, &[n, p]);
    let mut a = vec![
        ("self", t(mat(c, &ss, dt))),
        ("mat1", t(mat(c, &[n, k], dt))),
        ("mat2", t(mat(c, &[k, p], dt))),
    ];
    beta_alpha(c, &mut a);
    a
}
fn g_baddbmm(c: &mut Ctx<'_>) -> Args {
    let (bb, n, k, p) = (
        1 + c.rng.below(3),
        1 + c.rng.below(4),
        c.rng.below(5),
        1 + c.rng.below(4),
    );
    let dt = c.dt;
    let ss = inputs::broadcastable(c.rng, &[bb, n, p]);
    let mut a = vec![
        ("self", t(mat(c, &ss, dt))),
        ("batch1", t(mat(c, &[bb, n, k], dt))),
        ("batch2", t(mat(c, &[bb, k, p], dt))),
    ];
    beta_alpha(c, &mut a);
    a
}
fn g_linear(c: &mut Ctx<'_>) -> Args {
    let (k, o) = (c.rng.below(5), 1 + c.rng.below(4));
    let mut sh = inputs::shape(c.rng, 0, 2);
    sh.push(k);
    let dt = c.dt;
    let mut a = vec![
        ("input", t(mat(c, &sh, dt))),
        ("weight", t(mat(c, &[o, k], dt))),
    ];
    if c.chance(0.6) {
        let bs = if c.chance(0.8) { vec![o] } else { vec![] };
        a.push(("bias", t(mat(c, &bs, dt))));
    }
    a
}
fn g_dot(c: &mut Ctx<'_>) -> Args {
    let k = c.rng.below(7);
    let dt = c.dt;
    let od = other_dt(c);
    vec![
        ("self", t(mat(c, &[k], dt))),
        ("tensor", t(mat(c, &[k], od))),
    ]
}
fn g_mv(c: &mut Ctx<'_>) -> Args {
    let (n, k) = (c.rng.below(5), c.rng.below(6));
    let dt = c.dt;
    vec![
        ("self", t(mat(c, &[n, k], dt))),
        ("vec", t(mat(c, &[k], dt))),
    ]
}
fn g_outer(c: &mut Ctx<'_>) -> Args {
    let (n, m) = (c.rng.below(5), c.rng.below(5));
    let dt = c.dt;
    let od = c.dt2();
    vec![("self", t(mat(c, &[n], dt))), ("vec2", t(mat(c, &[m], od)))]
}
/// Einsum equations with a shape builder per operand (sizes from `i, j, k, b`).
const EQS: &[(&str, &[&str])] = &[
    ("ij,jk->ik", &["ij", "jk"]),
    ("bij,bjk->bik", &["bij", "bjk"]),
    ("ij->ji", &["ij"]),
    ("ii->i", &["ii"]),
    ("ii", &["ii"]),
    ("i,j->ij", &["i", "j"]),
    ("ij->j", &["ij"]),
    ("bhqd,bhkd->bhqk", &["bhqd", "bhkd"]),
    ("...ij,...jk->...ik", &["bij", "jk"]),
    ("i,i->", &["i", "i"]),
    ("ij,ij->ij", &["ij", "ij"]),
    ("ijk->kji", &["ijk"]),
    ("abc,cd->abd", &["abc", "cd"]),
    ("ij,jk,kl->il", &["ij", "jk", "kl"]),
    ("ij", &["ij"]),
    ("bi,bi->b", &["bi", "bi"]),
];
fn g_einsum(c: &mut Ctx<'_>) -> Args {
    let (eq, shapes) = c.pick(EQS);
    let mut size = [0usize; 26];
    for s in size.iter_mut() {
        *s = 1 + c.rng.below(4);
    }
    let dt = c.dt;
    let ts: Vec<Tensor> = shapes
        .iter()
        .map(|sh| {
            let dims: Vec<usize> = sh.bytes().map(|b| size[(b - b'a') as usize]).collect();
            mat(c, &dims, dt)
        })
        .collect();
    vec![("equation", st(eq)), ("tensors", Value::TensorList(ts))]
}

fn mm_reject(i: &Info<'_>) -> bool {
    let mut dts = i.args.iter().filter_map(|(_, v)| match v {
        Value::Tensor(t) => Some(t.dtype()),
        Value::TensorList(ts) => ts.first().map(Tensor::dtype),
        _ => None,
    });
    let first = dts.next().unwrap_or(DType::Float32);
    first == DType::Bool || dts.any(|d| d != first)
}

/// Every dtype but bool (which cannot hold distinct values).
const NO_BOOL: [DType; 9] = [
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

const MM_SCALE: &str = "np.matmul(np.abs(self), np.abs(other))";

/// The spec of a reduction, scan, ordering or product, if it is one.
pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let sp = match op {
        Sum => Spec::new(g_sum, "red(np.sum, self, dim, keepdim)")
            .out(sum_rule)
            .scale("red(np.sum, np.abs(self), dim, keepdim)")
            .tol(1, 4.0)
            .big(),
        Mean => Spec::new(g_sum, "red(np.mean, self, dim, keepdim)")
            .out(param_rule)
            .reject(float_reject_basis)
            .scale("red(np.mean, np.abs(self), dim, keepdim)")
            .tol(1, 4.0)
            .big(),
        Prod => Spec::new(g_prod, "red(np.prod, self, dim, keepdim)")
            .out(sum_rule)
            .tol(8, 0.0),
        Amax => Spec::new(g_amax, "red(np.amax, self, dim, keepdim)")
            .cast(0)
            .out(arg0_rule)
            .big(),
        Amin => Spec::new(g_amax, "red(np.amin, self, dim, keepdim)")
            .cast(0)
            .out(arg0_rule),
        Max => Spec::new(x_only, "np.max(self)").cast(0).out(arg0_rule),
        Min => Spec::new(x_only, "np.min(self)").cast(0).out(arg0_rule),
        MaxDim => Spec::new(g_max_dim, "maxdim(self, dim, keepdim, True)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule),
        MinDim => Spec::new(g_max_dim, "maxdim(self, dim, keepdim, False)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule),
        Argmax => Spec::new(g_dim_opt, "argext(self, dim, keepdim, True)")
            .cast(0)
            .out(long_rule),
        Argmin => Spec::new(g_dim_opt, "argext(self, dim, keepdim, False)")
            .cast(0)
            .out(long_rule),
        Var => Spec::new(
            g_var,
            "red(np.var, self, dim, keepdim, ddof=ddof(unbiased, correction))",
        )
        .out(arg0_rule)
        .reject(var_reject)
        .scale("red(np.mean, sq_abs(self), dim, keepdim)")
        .tol(4, 16.0),
        Std => Spec::new(
            g_var,
            "red(np.std, self, dim, keepdim, ddof=ddof(unbiased, correction))",
        )
        .out(arg0_rule)
        .reject(var_reject)
        .scale("np.sqrt(red(np.mean, sq_abs(self), dim, keepdim))")
        .tol(4, 16.0),
        LogSumExp => Spec::new(g_lse, "lse(self, dim, keepdim)")
            .out(float_rule)
            .scale("absmax(self, dim, keepdim)")
            .tol(4, 4.0),
        All => Spec::new(g_dim_opt, "red(np.all, self, dim, keepdim)")
            .cast(0)
            .out(all_rule),
        Any => Spec::new(g_dim_opt, "red(np.any, self, dim, keepdim)")
            .cast(0)
            .out(all_rule),
        Softmax => Spec::new(g_softmax, "softmax(self, dim)")
            .out(param_rule)
            .reject(float_reject_basis)
            .scale("softmax_scale(self, dim)")
            .tol(4, 2.0)
            .big(),
        LogSoftmax => Spec::new(g_softmax, "softmax(self, dim, log=True)")
            .out(param_rule)
            .reject(float_reject_basis)
            .scale("np.broadcast_to(absmax(self, dim, True) + 1, self.shape)")
            .tol(4, 4.0),
        Norm => Spec::new(g_norm, "vnorm(self, p, dim, keepdim)")
            .out(param_rule)
            .reject(norm_reject)
            .tol(8, 0.0),
        NormStr => Spec::new(g_norm_str, "vnorm(self, 2, dim, keepdim)")
            .out(param_rule)
            .reject(norm_reject)
            .tol(8, 0.0),
        CountNonzero => Spec::new(g_count, "np.count_nonzero(self, axis=ax(dim))")
            .cast(0)
            .out(long_rule),
        Cumsum => Spec::new(g_cum, "cum(self, dim, False)")
            .out(sum_rule)
            .scale("cum(np.abs(self), dim, False)")
            .tol(1, 4.0),
        Cumprod => Spec::new(g_cum, "cum(self, dim, True)")
            .out(sum_rule)
            .tol(16, 0.0),
        Sort => Spec::new(g_sort, "sort(self, dim, descending)")
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule),
        Argsort => Spec::new(g_sort, "sort(self, dim, descending)[1]")
            .cast(0)
            .out(long_rule),
        Topk => Spec::new(g_topk, "topk(self, k, dim, largest)")
            .dtypes(&NO_BOOL)
            .cast(0)
            .out(arg0_rule)
            .extra(long_rule)
            .no_edges(),
        Matmul => mm_spec(g_matmul, "np.matmul(self, other)", MM_SCALE),
        Mm => mm_spec(g_mm, "self @ mat2", "np.abs(self) @ np.abs(mat2)"),
        Bmm => mm_spec(g_bmm, "self @ mat2", "np.abs(self) @ np.abs(mat2)"),
        Addmm => mm_spec(
            g_addmm,
            "addmm(self, mat1, mat2, beta, alpha)",
            "addmm(np.abs(self), np.abs(mat1), np.abs(mat2), abs(beta), abs(alpha))",
        ),
        Baddbmm => mm_spec(
            g_baddbmm,
            "addmm(self, batch1, batch2, beta, alpha)",
            "addmm(np.abs(self), np.abs(batch1), np.abs(batch2), abs(beta), abs(alpha))",
        ),
        Linear => mm_spec(
            g_linear,
            "linear(input, weight, bias)",
            "linear(np.abs(input), np.abs(weight), None if bias is None else np.abs(bias))",
        ),
        Dot => mm_spec(
            g_dot,
            "np.dot(self, tensor)",
            "np.dot(np.abs(self), np.abs(tensor))",
        ),
        Mv => mm_spec(g_mv, "self @ vec", "np.abs(self) @ np.abs(vec)"),
        Outer => Spec::new(g_outer, "np.outer(self, vec2)")
            .cast(2)
            .tol(1, 0.0),
        // Chained contractions round each intermediate to the operand dtype, as PyTorch.
        Einsum => mm_spec(
            g_einsum,
            "np.einsum(equation, *tensors)",
            "np.einsum(equation, *[np.abs(x) for x in tensors])",
        )
        .half_ulps(4),
        _ => return None,
    };
    Some(sp)
}

fn mm_spec(g: fn(&mut Ctx<'_>) -> Args, np: &'static str, scale: &'static str) -> Spec {
    Spec::new(g, np)
        .out(arg0_rule)
        .reject(mm_reject)
        .scale(scale)
        .tol(2, 16.0)
        .no_edges()
}
