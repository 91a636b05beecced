//! Specs of views, joins and splits, rearranging copies and indexing ops.

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, IndexItem, Tensor};

use crate::inputs::{self, Domain};
use crate::spec::*;

fn x(c: &mut Ctx<'_>) -> Tensor {
    let sh = c.shape();
    let dt = c.dt;
    c.t(&sh, dt, Domain::Real)
}
fn x_min_rank(c: &mut Ctx<'_>, r: usize) -> Tensor {
    let sh = c.shape_r(r, 4);
    let dt = c.dt;
    c.t(&sh, dt, Domain::Real)
}
fn wrap(d: i64, n: usize) -> usize {
    d.rem_euclid(n.max(1) as i64) as usize
}
/// A random factorisation of `n` into up to 4 sizes, one of them maybe -1.
fn factor(c: &mut Ctx<'_>, n: usize) -> Vec<i64> {
    let mut left = n;
    let mut out = Vec::new();
    for _ in 0..c.rng.below(3) {
        let divs: Vec<usize> = (1..=left.max(1))
            .filter(|d| left == 0 || left.is_multiple_of(*d))
            .take(6)
            .collect();
        let d = c.pick(&divs);
        out.push(d as i64);
        left = left.checked_div(d).unwrap_or(0);
    }
    out.push(left as i64);
    if n > 0 && c.chance(0.3) {
        let k = c.rng.below(out.len());
        out[k] = -1;
    }
    c.rng.perm(out.len()).into_iter().map(|k| out[k]).collect()
}

fn g_view(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = inputs::contiguous(c.rng, &sh, dt, Domain::Real, c.edges);
    let f = factor(c, x.numel());
    vec![("self", t(x)), ("size", il(f))]
}
fn g_reshape(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let f = factor(c, x.numel());
    vec![("self", t(x)), ("shape", il(f))]
}
fn g_permute(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let p: Vec<i64> = c.rng.perm(x.ndim()).into_iter().map(|d| d as i64).collect();
    vec![("self", t(x)), ("dims", il(p))]
}
fn g_transpose(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    vec![
        ("self", t(x)),
        ("dim0", i(c.dim(nd))),
        ("dim1", i(c.dim(nd))),
    ]
}
fn g_t(c: &mut Ctx<'_>) -> Args {
    let sh = inputs::shape(c.rng, 0, 2);
    let dt = c.dt;
    vec![("self", t(c.t(&sh, dt, Domain::Real)))]
}
fn g_expand(c: &mut Ctx<'_>) -> Args {
    let out = c.shape();
    let small = inputs::broadcastable(c.rng, &out);
    let dt = c.dt;
    let x = c.t(&small, dt, Domain::Real);
    let lead = out.len() - small.len();
    let sizes: Vec<i64> = out
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            if k >= lead && small[k - lead] == d && c.chance(0.3) {
                -1
            } else {
                d as i64
            }
        })
        .collect();
    vec![("self", t(x)), ("size", il(sizes))]
}
fn bound(c: &mut Ctx<'_>) -> Value<Tensor> {
    if c.chance(0.3) {
        Value::None
    } else {
        i(c.rng.range(-7, 7))
    }
}
fn g_slice(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let nd = x.ndim();
    vec![
        ("self", t(x)),
        ("dim", i(c.dim(nd))),
        ("start", bound(c)),
        ("end", bound(c)),
        ("step", i(c.rng.range(1, 3))),
    ]
}
fn g_select(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    let n = x.shape()[wrap(d, x.ndim())] as i64;
    let idx = c.rng.range(-n - 1, n);
    vec![("self", t(x)), ("dim", i(d)), ("index", i(idx))]
}
fn g_narrow(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    let n = x.shape()[wrap(d, x.ndim())] as i64;
    let start = c.rng.range(-n, n);
    let s0 = if start < 0 { start + n } else { start };
    let len = c.rng.range(0, (n - s0).max(0) + 1);
    vec![
        ("self", t(x)),
        ("dim", i(d)),
        ("start", i(start)),
        ("length", i(len)),
    ]
}
fn g_unsqueeze(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let n = x.ndim() as i64;
    vec![("self", t(x)), ("dim", i(c.rng.range(-n - 1, n)))]
}
fn g_squeeze(c: &mut Ctx<'_>) -> Args {
    let sh: Vec<usize> = (0..c.rng.below(5)).map(|_| c.pick(&[1, 1, 2, 3])).collect();
    let dt = c.dt;
    let x = c.t(&sh, dt, Domain::Real);
    let mut a = vec![("self", t(x))];
    if c.chance(0.5) && !sh.is_empty() {
        let k = 1 + c.rng.below(sh.len());
        let p: Vec<i64> = c.rng.perm(sh.len())[..k]
            .iter()
            .map(|&d| d as i64)
            .collect();
        a.push(("dim", il(p)));
    }
    a
}
fn g_unflatten(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    let n = x.shape()[wrap(d, x.ndim())];
    let f = factor(c, n);
    vec![("self", t(x)), ("dim", i(d)), ("sizes", il(f))]
}
fn g_flatten(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    let (a, b) = (c.dim(nd), c.dim(nd));
    let (s0, e0) = (wrap(a, nd), wrap(b, nd));
    let (s, e) = if s0 <= e0 { (a, b) } else { (b, a) };
    vec![("self", t(x)), ("start_dim", i(s)), ("end_dim", i(e))]
}
fn g_as_strided(c: &mut Ctx<'_>) -> Args {
    let n = 1 + c.rng.below(30);
    let dt = c.dt;
    let x = inputs::contiguous(c.rng, &[n], dt, Domain::Real, c.edges);
    loop {
        let r = c.rng.below(4);
        let size: Vec<i64> = (0..r).map(|_| c.rng.range(1, 3)).collect();
        let stride: Vec<i64> = (0..r).map(|_| c.rng.range(0, 3)).collect();
        let off = c.rng.range(0, 2);
        let last: i64 = size
            .iter()
            .zip(&stride)
            .map(|(s, t)| (s - 1) * t)
            .sum::<i64>()
            + off;
        if last < n as i64 {
            return vec![
                ("self", t(x)),
                ("size", il(size)),
                ("stride", il(stride)),
                ("storage_offset", i(off)),
            ];
        }
    }
}
fn g_diagonal(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 2);
    let nd = x.ndim();
    let d1 = c.rng.below(nd) as i64;
    let d2 = ((d1 as usize + 1 + c.rng.below(nd - 1)) % nd) as i64;
    vec![
        ("self", t(x)),
        ("offset", i(c.rng.range(-3, 3))),
        ("dim1", i(d1)),
        ("dim2", i(d2)),
    ]
}
fn g_x(c: &mut Ctx<'_>) -> Args {
    vec![("self", t(x(c)))]
}
fn g_x_m(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    vec![("self", t(c.tm(&sh, dt, Domain::Real)))]
}

/// A random index expression for `x` (basic and advanced items).
fn index(c: &mut Ctx<'_>, x: &Tensor) -> Vec<IndexItem<Tensor>> {
    let mut items = Vec::new();
    let mut d = 0usize;
    let mut ell = false;
    while d < x.ndim() && items.len() < 6 {
        let n = x.shape()[d];
        match c.rng.below(9) {
            0 if n > 0 => {
                items.push(IndexItem::Int(c.rng.range(-(n as i64), n as i64 - 1)));
                d += 1;
            }
            1 => items.push(IndexItem::None),
            2 if !ell => {
                ell = true;
                items.push(IndexItem::Ellipsis);
                d = x.ndim() - c.rng.below(x.ndim() - d + 1).min(x.ndim() - d);
            }
            3 => items.push(IndexItem::Bool(c.chance(0.7))),
            4 if n > 0 => {
                let k = c.rng.below(4);
                let v: Vec<i64> = (0..k)
                    .map(|_| c.rng.range(-(n as i64), n as i64 - 1))
                    .collect();
                items.push(IndexItem::Tensor(Tensor::from_vec(v, &[k]).expect("1-D")));
                d += 1;
            }
            5 => {
                let m = inputs::contiguous(c.rng, &[n], DType::Bool, Domain::Real, false);
                items.push(IndexItem::Tensor(m));
                d += 1;
            }
            _ => {
                let o = |c: &mut Ctx<'_>| {
                    if c.chance(0.4) {
                        None
                    } else {
                        Some(c.rng.range(-6, 6))
                    }
                };
                let (start, stop) = (o(c), o(c));
                let step = if c.chance(0.5) {
                    None
                } else {
                    Some(c.rng.range(1, 3))
                };
                items.push(IndexItem::Slice { start, stop, step });
                d += 1;
            }
        }
        if c.chance(0.25) {
            break;
        }
    }
    items
}
fn g_getitem(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let idx = index(c, &x);
    vec![("self", t(x)), ("indices", Value::Index(idx))]
}
fn g_setitem(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.tm(&sh, dt, Domain::Real);
    let idx = index(c, &x);
    let value = match rynamo_tensor::ops::index::getitem(&x, &idx) {
        Ok(r) if c.chance(0.6) => {
            let vs = inputs::broadcastable(c.rng, r.shape());
            let vd = c.dt2();
            t(c.t(&vs, vd, Domain::CastSafe))
        }
        _ => {
            let vd = c.dt2();
            s(c.num(vd, Domain::CastSafe))
        }
    };
    vec![
        ("self", t(x)),
        ("indices", Value::Index(idx)),
        ("value", value),
    ]
}
fn g_to(c: &mut Ctx<'_>) -> Args {
    let target = c.pick(&DType::REAL);
    // Out-of-range float-to-int conversions are undefined in PyTorch (C++ casts): no edges.
    c.edges &= target.is_floating_point();
    let sh = c.shape();
    let dt = c.dt;
    let dom = if target.is_floating_point() {
        Domain::Real
    } else {
        Domain::CastSafe
    };
    let mut a = vec![
        ("self", t(c.t(&sh, dt, dom))),
        ("dtype", Value::DType(target)),
    ];
    if c.chance(0.3) {
        a.push(("copy", b(true)));
    }
    a
}
fn g_view_dtype(c: &mut Ctx<'_>) -> Args {
    // NumPy has no bfloat16 (the reference emulates it in float32) and would read any byte as a
    // bool (Rynamo refuses bytes other than 0 and 1): neither takes part.
    use DType::*;
    let dt = if matches!(c.dt, BFloat16 | Bool) {
        Float32
    } else {
        c.dt
    };
    let target = c.pick(&[UInt8, Int8, Int16, Int32, Int64, Float16, Float32, Float64]);
    let mut sh = c.shape();
    if sh.is_empty() {
        sh.push(1);
    }
    // Growing elements need the last dim to be a multiple of the size ratio.
    let ratio = (target.itemsize() / dt.itemsize()).max(1);
    let last = sh.len() - 1;
    sh[last] = (sh[last] / ratio).max(1) * ratio;
    let x = inputs::tensor(
        c.rng,
        &sh,
        dt,
        Domain::Real,
        c.edges,
        inputs::Layout::Contiguous,
    );
    vec![("self", t(x)), ("dtype", Value::DType(target))]
}
fn g_type(c: &mut Ctx<'_>) -> Args {
    let mut a = g_to(c);
    a.truncate(2);
    a
}
fn g_copy(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.tm(&sh, dt, Domain::Real);
    let ss = inputs::broadcastable(c.rng, &sh);
    let sd = c.dt2();
    vec![("self", t(x)), ("src", t(c.t(&ss, sd, Domain::CastSafe)))]
}
fn g_fill(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = c.tm(&sh, dt, Domain::Real);
    let vd = c.dt2();
    let v = if c.chance(0.3) {
        t(c.t(&[], vd, Domain::CastSafe))
    } else {
        s(c.num(vd, Domain::CastSafe))
    };
    vec![("self", t(x)), ("value", v)]
}

/// Tensors that concatenate along a random dim.
fn g_cat(c: &mut Ctx<'_>) -> Args {
    let base = c.shape_r(1, 4);
    let d = c.dim(base.len());
    let dd = wrap(d, base.len());
    let k = 1 + c.rng.below(3);
    let mut ts = Vec::new();
    for _ in 0..k {
        let mut sh = base.clone();
        sh[dd] = c.rng.below(4);
        let dt = c.dt2();
        ts.push(c.t(&sh, dt, Domain::Real));
    }
    if c.chance(0.2) {
        let dt = c.dt;
        ts.insert(c.rng.below(ts.len() + 1), Tensor::zeros(&[0], dt));
    }
    vec![("tensors", Value::TensorList(ts)), ("dim", i(d))]
}
fn g_stack(c: &mut Ctx<'_>) -> Args {
    let base = c.shape_r(0, 3);
    let k = 1 + c.rng.below(3);
    let ts = (0..k)
        .map(|_| {
            let dt = c.dt2();
            c.t(&base, dt, Domain::Real)
        })
        .collect();
    let n = base.len() as i64 + 1;
    vec![
        ("tensors", Value::TensorList(ts)),
        ("dim", i(c.rng.range(-n, n - 1))),
    ]
}
fn g_split(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    let n = x.shape()[wrap(d, x.ndim())];
    let size = if n == 0 { 0 } else { c.rng.range(1, 4) };
    vec![("self", t(x)), ("split_size", i(size)), ("dim", i(d))]
}
fn g_split_sizes(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    let mut left = x.shape()[wrap(d, x.ndim())] as i64;
    let mut sizes = Vec::new();
    while left > 0 {
        let k = c.rng.range(0, left);
        sizes.push(k);
        left -= k;
    }
    sizes.push(left);
    vec![("self", t(x)), ("split_size", il(sizes)), ("dim", i(d))]
}
fn g_chunk(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    vec![
        ("self", t(x)),
        ("chunks", i(c.rng.range(1, 4))),
        ("dim", i(d)),
    ]
}
fn g_unbind(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 1);
    let d = c.dim(x.ndim());
    vec![("self", t(x)), ("dim", i(d))]
}
fn g_repeat(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let r: Vec<i64> = (0..x.ndim() + c.rng.below(3))
        .map(|_| c.rng.range(0, 3))
        .collect();
    vec![("self", t(x)), ("repeats", il(r))]
}
fn g_tile(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let r: Vec<i64> = (0..c.rng.below(x.ndim() + 2))
        .map(|_| c.rng.range(0, 3))
        .collect();
    vec![("self", t(x)), ("dims", il(r))]
}
fn g_flip(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    let k = c.rng.below(nd + 1);
    let d: Vec<i64> = c.rng.perm(nd)[..k].iter().map(|&d| d as i64).collect();
    vec![("self", t(x)), ("dims", il(d))]
}
fn g_roll(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    if nd == 0 || c.chance(0.3) {
        return vec![("self", t(x)), ("shifts", il(vec![c.rng.range(-7, 7)]))];
    }
    let k = 1 + c.rng.below(nd);
    let d: Vec<i64> = c.rng.perm(nd)[..k].iter().map(|&d| d as i64).collect();
    let s: Vec<i64> = (0..k).map(|_| c.rng.range(-7, 7)).collect();
    vec![("self", t(x)), ("shifts", il(s)), ("dims", il(d))]
}
fn g_tri(c: &mut Ctx<'_>) -> Args {
    let x = x_min_rank(c, 2);
    vec![("self", t(x)), ("diagonal", i(c.rng.range(-3, 3)))]
}
/// An int64 index tensor of `shape` with values in `[0, n)`.
fn idx(c: &mut Ctx<'_>, shape: &[usize], n: usize) -> Tensor {
    let k: usize = shape.iter().product();
    let v: Vec<i64> = (0..k).map(|_| c.rng.below(n.max(1)) as i64).collect();
    Tensor::from_vec(v, shape).expect("fits")
}
fn g_gather(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    let d = c.dim(nd);
    let dd = wrap(d, nd);
    let n = if nd == 0 { 1 } else { x.shape()[dd] };
    let ish: Vec<usize> = (0..nd)
        .map(|k| {
            if k == dd {
                if n == 0 { 0 } else { c.rng.below(5) }
            } else {
                c.rng.below(x.shape()[k] + 1)
            }
        })
        .collect();
    let ix = idx(c, &ish, n);
    vec![("self", t(x)), ("dim", i(d)), ("index", t(ix))]
}
/// A scatter index: per position, distinct targets along `dim` (no write conflicts).
fn scatter_idx(c: &mut Ctx<'_>, x: &Tensor, dd: usize, unique: bool) -> Tensor {
    let nd = x.ndim();
    if nd == 0 {
        return Tensor::from_vec(vec![0i64], &[]).expect("0-d");
    }
    let n = x.shape()[dd];
    let ish: Vec<usize> = (0..nd)
        .map(|k| {
            if k == dd {
                c.rng.below(n + 1)
            } else {
                c.rng.below(x.shape()[k] + 1)
            }
        })
        .collect();
    if !unique {
        return idx(c, &ish, n);
    }
    let ix = idx(c, &ish, n);
    // Replace each line along `dim` by a prefix of a permutation.
    let moved = ix.transpose(dd as i64, -1).expect("valid").contiguous();
    let len = ish[dd];
    let mut v = moved.to_vec::<i64>();
    for line in v.chunks_mut(len.max(1)) {
        let p = c.rng.perm(n);
        for (k, e) in line.iter_mut().enumerate() {
            *e = p[k] as i64;
        }
    }
    let back = Tensor::from_vec(v, moved.shape()).expect("same shape");
    back.transpose(dd as i64, -1).expect("valid").contiguous()
}
fn scatter_args(c: &mut Ctx<'_>, inplace: bool, value: bool, unique: bool) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    let x = if inplace {
        c.tm(&sh, dt, Domain::Real)
    } else {
        c.t(&sh, dt, Domain::Real)
    };
    let nd = x.ndim();
    let d = c.dim(nd);
    let dd = wrap(d, nd);
    let ix = scatter_idx(c, &x, dd, unique);
    let src_shape: Vec<usize> = ix.shape().iter().map(|&s| s + c.rng.below(2)).collect();
    let mut a = vec![("self", t(x)), ("dim", i(d)), ("index", t(ix))];
    if value {
        a.push(("value", s(c.num(dt, Domain::Real))));
    } else {
        a.push(("src", t(c.t(&src_shape, dt, Domain::Real))));
    }
    a
}
fn g_scatter(c: &mut Ctx<'_>) -> Args {
    let mut a = scatter_args(c, false, false, true);
    a.push(("reduce", c.pick(&[Value::None, st("add"), st("multiply")])));
    a
}
fn g_scatter_m(c: &mut Ctx<'_>) -> Args {
    scatter_args(c, true, false, true)
}
fn g_scatter_value(c: &mut Ctx<'_>) -> Args {
    let mut a = scatter_args(c, false, true, true);
    a.push(("reduce", c.pick(&[Value::None, st("add"), st("multiply")])));
    a
}
fn g_scatter_value_m(c: &mut Ctx<'_>) -> Args {
    scatter_args(c, true, true, true)
}
fn g_scatter_add(c: &mut Ctx<'_>) -> Args {
    scatter_args(c, false, false, false)
}
fn g_scatter_add_m(c: &mut Ctx<'_>) -> Args {
    scatter_args(c, true, false, false)
}
fn g_index_select(c: &mut Ctx<'_>) -> Args {
    let x = x(c);
    let nd = x.ndim();
    let d = c.dim(nd);
    let n = if nd == 0 { 1 } else { x.shape()[wrap(d, nd)] };
    let k = if nd == 0 {
        1
    } else if n == 0 {
        0
    } else {
        c.rng.below(5)
    };
    let mut ix = idx(c, &[k], n);
    if c.chance(0.3) {
        ix = ix.to_dtype(DType::Int32);
    }
    vec![("self", t(x)), ("dim", i(d)), ("index", t(ix))]
}
fn g_nonzero(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    vec![("self", t(c.t(&sh, dt, Domain::Ints(0, 1))))]
}
fn g_condition(c: &mut Ctx<'_>) -> Args {
    let sh = c.shape();
    let dt = c.dt;
    vec![("condition", t(c.t(&sh, dt, Domain::Ints(0, 1))))]
}
fn g_index_put(c: &mut Ctx<'_>) -> Args {
    let x = {
        let sh = c.shape_r(1, 3);
        let dt = c.dt;
        c.tm(&sh, dt, Domain::Real)
    };
    let k = 1 + c.rng.below(x.ndim());
    let bsh = vec![c.rng.below(4)];
    let ind: Vec<Tensor> = (0..k)
        .map(|d| {
            let n = x.shape()[d];
            if n == 0 {
                Tensor::zeros(&[0], DType::Int64)
            } else {
                idx(c, &bsh, n)
            }
        })
        .collect();
    let empty = ind.iter().any(|t| t.numel() == 0) || bsh[0] == 0;
    let mut rsh = if empty { vec![0] } else { bsh.clone() };
    rsh.extend_from_slice(&x.shape()[k..]);
    let vs = inputs::broadcastable(c.rng, &rsh);
    let dt = c.dt;
    let v = c.t(&vs, dt, Domain::Real);
    vec![
        ("self", t(x)),
        ("indices", Value::TensorList(ind)),
        ("values", t(v)),
        ("accumulate", b(c.chance(0.5))),
    ]
}

fn repeat_reject(i: &Info<'_>) -> bool {
    matches!(i.get("repeats"), Some(Value::IntList(r)) if r.len() < i.tensor("self").map_or(0, |t| t.ndim()))
}
fn cat_target(i: &Info<'_>) -> DType {
    i.promoted
}
fn value_rule(i: &Info<'_>) -> DType {
    i.arg0()
}

/// The spec of a view, shape, indexing or creation op, if it is one.
pub fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let native = |g, np: &'static str| Spec::new(g, np).cast(0).out(arg0_rule).cases(16);
    let sp = match op {
        View => native(g_view, "self.reshape(size)"),
        Reshape => native(g_reshape, "self.reshape(shape)"),
        Permute => native(g_permute, "np.transpose(self, dims)"),
        Transpose => native(g_transpose, "swapaxes(self, dim0, dim1)"),
        T => native(g_t, "self.T"),
        Expand => native(g_expand, "expand(self, size)"),
        Slice => native(g_slice, "slice_(self, dim, start, end, step)"),
        Select => native(g_select, "select(self, dim, index)"),
        Narrow => native(g_narrow, "narrow(self, dim, start, length)"),
        Unsqueeze => native(g_unsqueeze, "np.expand_dims(self, dim)"),
        Squeeze => native(g_squeeze, "squeeze(self, dim)"),
        Unflatten => native(g_unflatten, "unflatten(self, dim, sizes)"),
        Flatten => native(g_flatten, "flatten(self, start_dim, end_dim)"),
        AsStrided => native(g_as_strided, "as_strided(self, size, stride, storage_offset)"),
        Diagonal => native(g_diagonal, "np.diagonal(self, offset, dim1, dim2)"),
        Contiguous => native(g_x, "self"),
        Clone => native(g_x, "self.copy()"),
        GetItem => native(g_getitem, "getitem(self, indices)").cases(40),
        SetItem => native(g_setitem, "setitem(self, indices, value)")
            .cast(2)
            .castable(&["self", "value"])
            .target(value_rule)
            .inplace()
            .cases(40),
        To | Type => native(if op == To { g_to } else { g_type }, "to_dtype(self, dtype)").out(param_rule),
        ViewDtype => native(g_view_dtype, "view_dtype(self, dtype)").out(param_rule),
        Copy_ => native(g_copy, "np.broadcast_to(src, self.shape)")
            .cast(2)
            .target(value_rule)
            .inplace(),
        Zero_ => native(g_x_m, "np.zeros_like(self)").inplace(),
        Fill_ => native(g_fill, "np.full_like(self, value)")
            .cast(2)
            .target(value_rule)
            .inplace(),
        Cat => Spec::new(g_cat, "cat(tensors, dim)").cast(2).target(cat_target).out(promoted_rule),
        Stack => Spec::new(g_stack, "np.stack(tensors, axis=dim)").cast(2).target(cat_target).out(promoted_rule),
        Split => native(g_split, "split(self, split_size, dim)"),
        SplitSizes => native(g_split_sizes, "split_sizes(self, split_size, dim)"),
        Chunk => native(g_chunk, "chunk(self, chunks, dim)"),
        Unbind => native(g_unbind, "[np.take(self, k, axis=dim) for k in range(self.shape[dim])]"),
        Repeat => native(g_repeat, "np.tile(self, repeats)").reject(repeat_reject),
        Tile => native(g_tile, "np.tile(self, dims)"),
        Flip => native(g_flip, "np.flip(self, axis=tuple(dims))"),
        Roll => native(g_roll, "roll(self, shifts, dims)"),
        Tril => native(g_tri, "np.tril(self, diagonal)"),
        Triu => native(g_tri, "np.triu(self, diagonal)"),
        Gather => native(g_gather, "gather(self, dim, index)"),
        Scatter => native(g_scatter, "scatter(self, dim, index, src, reduce)").tol(1, 0.0),
        ScatterValue => native(g_scatter_value, "scatter(self, dim, index, to_dtype(np.asarray(value), out_dtype), reduce)")
            .target(value_rule)
            .tol(1, 0.0),
        ScatterAdd => native(g_scatter_add, "scatter(self, dim, index, src, 'add')").tol(1, 4.0).scale("scatter(np.abs(self.astype(np.float64)), dim, index, np.abs(src.astype(np.float64)), 'add')"),
        Scatter_ => native(g_scatter_m, "scatter(self, dim, index, src)").inplace(),
        ScatterValue_ => native(g_scatter_value_m, "scatter(self, dim, index, to_dtype(np.asarray(value), out_dtype))")
            .target(value_rule)
            .inplace(),
        ScatterAdd_ => native(g_scatter_add_m, "scatter(self, dim, index, src, 'add')").tol(1, 4.0).scale("scatter(np.abs(self.astype(np.float64)), dim, index, np.abs(src.astype(np.float64)), 'add')").inplace(),
        IndexSelect => native(g_index_select, "index_select(self, dim, index)"),
        Nonzero => native(g_nonzero, "np.argwhere(self)").out(long_rule),
        NonzeroNumpy => native(g_nonzero, "list(np.nonzero(np.atleast_1d(self)))").out(long_rule),
        WhereCond => native(g_condition, "list(np.nonzero(np.atleast_1d(condition)))").out(long_rule),
        IndexPut_ => native(g_index_put, "index_put(self, indices, values, accumulate)")
            .tol(1, 4.0)
            .scale("index_put(np.abs(self.astype(np.float64)), indices, np.abs(values.astype(np.float64)), accumulate)")
            .inplace(),
        _ => return None,
    };
    Some(sp)
}
