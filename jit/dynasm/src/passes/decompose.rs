//! Rewrites composite ops into the primitives the fuser lowers: softmax and log_softmax into
//! max / exp / sum / normalise (three phases of one row kernel), layer_norm into mean / variance /
//! affine, var and std into two reductions, f32 logsumexp into max / exp / sum / log, lerp /
//! addcmul / addcdiv and evaluation-mode batch_norm into pointwise nodes. The eager kernels'
//! evaluation order is kept (for example softmax multiplies by the reciprocal of the sum, as
//! eager does), so the decomposed graph's results are bitwise eager's, except logsumexp's (eager
//! computes it in f64).

use std::collections::HashMap;

use rynamo_graph::passes::PassCx;
use rynamo_graph::{Arg, Args, Graph, Op, Value, ValueId, registry};
use rynamo_tensor::{DType, Scalar, TensorOrScalar, layout::wrap_dims};

/// Appends nodes to a graph under construction, computing metas with the registry.
pub struct Rebuild {
    /// The new graph.
    pub g: Graph,
    /// Old value -> new value.
    pub map: HashMap<ValueId, ValueId>,
    next: usize,
}

impl Rebuild {
    /// A new graph with `old`'s inputs.
    pub fn new(old: &Graph) -> Rebuild {
        let mut g = Graph::new();
        let mut map = HashMap::new();
        for &i in old.inputs() {
            let info = old.value(i);
            map.insert(i, g.add_input(info.name.clone(), info.meta.clone()));
        }
        Rebuild { g, map, next: 0 }
    }

    /// Old args in new ids.
    pub fn args(&self, args: &[Arg]) -> Vec<Arg> {
        args.iter()
            .map(|a| {
                a.try_map(|v| Ok::<_, ()>(self.map[v]))
                    .expect("invariant: defined before use")
            })
            .collect()
    }

    /// Appends `op(args)` (new ids); `None` when the meta rule rejects it.
    pub fn call(&mut self, op: Op, args: Vec<Arg>) -> Option<ValueId> {
        let metas = registry::meta(op, &self.g.arg_metas(&args).ok()?).ok()?;
        let outs: Vec<ValueId> = metas
            .into_iter()
            .map(|m| {
                self.next += 1;
                self.g.add_value(format!("jit{}", self.next), m)
            })
            .collect();
        let first = *outs.first()?;
        self.g.push_node(op, args, outs);
        Some(first)
    }

    /// Copies an old node unchanged.
    pub fn copy(&mut self, old: &Graph, i: usize) {
        let n = &old.nodes()[i];
        let outs: Vec<ValueId> = n
            .outputs
            .iter()
            .map(|&o| {
                let info = old.value(o);
                let nv = self.g.add_value(info.name.clone(), info.meta.clone());
                self.map.insert(o, nv);
                nv
            })
            .collect();
        let args = self.args(&n.args);
        self.g.push_node(n.op, args, outs);
    }

    /// Finishes with `old`'s outputs.
    pub fn finish(mut self, old: &Graph) -> Graph {
        let outs = old.outputs().iter().map(|o| self.map[o]).collect();
        self.g.set_outputs(outs);
        self.g
    }
}

fn t(v: ValueId) -> Arg {
    Value::Tensor(v)
}

/// `sum`/`mean`/`amax` over `dims` with keepdim.
fn reduce(r: &mut Rebuild, op: Op, x: ValueId, dims: &[i64], keepdim: bool) -> Option<ValueId> {
    let mut args = vec![t(x), Value::IntList(dims.to_vec()), Value::Bool(keepdim)];
    if matches!(op, Op::Sum | Op::Mean) {
        args.push(Value::None);
    }
    r.call(op, args)
}

/// `x` as `dtype` (`x` itself when it already is).
fn cast(r: &mut Rebuild, x: ValueId, dtype: DType) -> Option<ValueId> {
    if r.g.value(x).meta.dtype == dtype {
        return Some(x);
    }
    r.call(Op::To, vec![t(x), Value::DType(dtype), Value::Bool(false)])
}

fn bin(r: &mut Rebuild, op: Op, a: Arg, b: Arg) -> Option<ValueId> {
    let mut args = vec![a, b];
    if matches!(op, Op::Add | Op::Sub) {
        args.push(Value::Scalar(Scalar::Int(1)));
    }
    r.call(op, args)
}

fn expand(r: &mut Rebuild, old: &Graph, i: usize) -> Option<ValueId> {
    let n = &old.nodes()[i];
    let a = Args(&n.args);
    let x = r.map[a.tensor(0).ok()?];
    let xm = r.g.value(x).meta.clone();
    if !xm.dtype.is_floating_point() || xm.shape.is_empty() {
        return None;
    }
    match n.op {
        Op::Softmax | Op::LogSoftmax => {
            let x = match a.opt_dtype(2).ok()? {
                Some(d) => cast(r, x, d)?,
                None => x,
            };
            let dim = vec![a.int(1).ok()?];
            let m = reduce(r, Op::Amax, x, &dim, true)?;
            let s1 = bin(r, Op::Sub, t(x), t(m))?;
            let e = r.call(Op::Exp, vec![t(s1)])?;
            let s = reduce(r, Op::Sum, e, &dim, true)?;
            if n.op == Op::Softmax {
                let inv = r.call(Op::Reciprocal, vec![t(s)])?;
                bin(r, Op::Mul, t(e), t(inv))
            } else {
                let ls = r.call(Op::Log, vec![t(s)])?;
                bin(r, Op::Sub, t(s1), t(ls))
            }
        }
        Op::LayerNorm => {
            let k = a.ints(1).ok()?.len() as i64;
            let dims: Vec<i64> = (-k..0).collect();
            let mean = reduce(r, Op::Mean, x, &dims, true)?;
            let d = bin(r, Op::Sub, t(x), t(mean))?;
            let sq = bin(r, Op::Mul, t(d), t(d))?;
            let var = reduce(r, Op::Mean, sq, &dims, true)?;
            let ve = bin(
                r,
                Op::Add,
                t(var),
                Value::Scalar(Scalar::Float(a.float(4).ok()?)),
            )?;
            let rstd = r.call(Op::Rsqrt, vec![t(ve)])?;
            let mut y = bin(r, Op::Mul, t(d), t(rstd))?;
            if let Some(w) = a.opt_tensor(2).ok()? {
                y = bin(r, Op::Mul, t(y), t(r.map[w]))?;
            }
            if let Some(b) = a.opt_tensor(3).ok()? {
                y = bin(r, Op::Add, t(y), t(r.map[b]))?;
            }
            Some(y)
        }
        Op::Var | Op::Std => {
            let dims: Vec<i64> = match a.opt_ints(1).ok()? {
                None | Some([]) => (0..xm.shape.len() as i64).collect(),
                Some(ds) => ds.to_vec(),
            };
            let wrapped = wrap_dims(&dims, xm.shape.len()).ok()?;
            let count: usize = wrapped.iter().map(|&d| xm.shape[d]).product();
            let unbiased = a.opt_bool(2).ok()?;
            let corr = a.opt_scalar(4).ok()?;
            if unbiased.is_some() && corr.is_some() {
                return None;
            }
            let c = corr
                .map(Scalar::to_f64)
                .or(unbiased.map(|u| f64::from(u8::from(u))))
                .unwrap_or(1.0);
            let keepdim = a.bool(3).ok()?;
            let mean = reduce(r, Op::Mean, x, &dims, true)?;
            let d = bin(r, Op::Sub, t(x), t(mean))?;
            let sq = bin(r, Op::Mul, t(d), t(d))?;
            let ss = reduce(r, Op::Sum, sq, &dims, keepdim)?;
            let div = (count as f64 - c).max(0.0);
            let var = r.call(
                Op::Div,
                vec![t(ss), Value::Scalar(Scalar::Float(div)), Value::None],
            )?;
            if n.op == Op::Std {
                r.call(Op::Sqrt, vec![t(var)])
            } else {
                Some(var)
            }
        }
        Op::Lerp | Op::Addcmul | Op::Addcdiv => ternary(r, n.op, &a, x, xm.dtype),
        Op::LogSumExp => logsumexp(r, &a, x, xm.dtype),
        Op::BatchNorm => batch_norm_eval(r, &a, x, &xm.shape, xm.dtype),
        _ => None,
    }
}

/// `lerp`, `addcmul` and `addcdiv` on f32 or f64 operands of one dtype, in eager's order
/// (`ops/ternary.rs`): `x + w * (end - x)` below `|w| = 0.5`, else `end - (end - x) * (1 - w)`;
/// `x + v * t1 * t2` and `x + v * t1 / t2`. Mixed or other dtypes keep the eager node: eager
/// converts the operands first and, for half types, computes in f32.
fn ternary(
    r: &mut Rebuild,
    op: Op,
    a: &Args<'_, ValueId>,
    x: ValueId,
    dt: DType,
) -> Option<ValueId> {
    if !matches!(dt, DType::Float32 | DType::Float64) {
        return None;
    }
    let same = |r: &Rebuild, v: ValueId| r.g.value(v).meta.dtype == dt;
    // A scalar as eager's kernel sees it: converted to the compute dtype.
    let in_dt = |s: Scalar| match (s, dt) {
        (Scalar::Int(_) | Scalar::Float(_), DType::Float32) => Some(s.to_f64() as f32 as f64),
        (Scalar::Int(_) | Scalar::Float(_), _) => Some(s.to_f64()),
        _ => None,
    };
    let f = |v: f64| Value::Scalar(Scalar::Float(v));
    let y = r.map[a.tensor(1).ok()?];
    if op == Op::Lerp {
        if !same(r, y) {
            return None;
        }
        let d = bin(r, Op::Sub, t(y), t(x))?;
        return match a.tensor_or_scalar(2).ok()? {
            TensorOrScalar::Scalar(s) => {
                let w = in_dt(s)?;
                if w.abs() < 0.5 {
                    let m = bin(r, Op::Mul, t(d), f(w))?;
                    bin(r, Op::Add, t(x), t(m))
                } else {
                    let one_minus = if dt == DType::Float32 {
                        (1.0 - w as f32) as f64
                    } else {
                        1.0 - w
                    };
                    let m = bin(r, Op::Mul, t(d), f(one_minus))?;
                    bin(r, Op::Sub, t(y), t(m))
                }
            }
            TensorOrScalar::Tensor(w) => {
                let w = r.map[w];
                if !same(r, w) {
                    return None;
                }
                let aw = r.call(Op::Abs, vec![t(w)])?;
                let low = r.call(Op::Lt, vec![t(aw), f(0.5)])?;
                let m = bin(r, Op::Mul, t(w), t(d))?;
                let near_x = bin(r, Op::Add, t(x), t(m))?;
                // `-w + 1` rounds as `1 - w` does (IEEE subtraction adds the negation).
                let nw = r.call(Op::Neg, vec![t(w)])?;
                let one_minus = bin(r, Op::Add, t(nw), f(1.0))?;
                let m = bin(r, Op::Mul, t(d), t(one_minus))?;
                let near_end = bin(r, Op::Sub, t(y), t(m))?;
                r.call(Op::Where, vec![t(low), t(near_x), t(near_end)])
            }
        };
    }
    let z = r.map[a.tensor(2).ok()?];
    if !same(r, y) || !same(r, z) {
        return None;
    }
    let v = in_dt(a.scalar(3).ok()?)?;
    let m = bin(r, Op::Mul, t(y), f(v))?;
    let q = if op == Op::Addcmul {
        bin(r, Op::Mul, t(m), t(z))?
    } else {
        r.call(Op::Div, vec![t(m), t(z), Value::None])?
    };
    bin(r, Op::Add, t(x), t(q))
}

/// f32 `logsumexp` as PyTorch's CPU kernel computes it, in f32 (eager here computes in f64):
/// `m = amax(x)`, shifted to 0 where infinite (so all `-inf` gives `-inf` and a `+inf` gives
/// `+inf`, not NaN), then `log(sum(exp(x - m))) + m`. It differs from eager by the vector exp and
/// log's ulps (`tests/logsumexp.rs`). f64 keeps eager's kernel: the JIT's f64 exp is a scalar
/// call, and eager's own f64 form, fused, measured 2x slower than eager on x[4096, 1024].
fn logsumexp(r: &mut Rebuild, a: &Args<'_, ValueId>, x: ValueId, dt: DType) -> Option<ValueId> {
    if dt != DType::Float32 {
        return None;
    }
    let dims = a.ints(1).ok()?.to_vec();
    let keepdim = a.bool(2).ok()?;
    let m = reduce(r, Op::Amax, x, &dims, true)?;
    let inf = r.call(Op::IsInf, vec![t(m)])?;
    let zero = Value::Scalar(Scalar::Float(0.0));
    let m = r.call(Op::Where, vec![t(inf), zero, t(m)])?;
    let d = bin(r, Op::Sub, t(x), t(m))?;
    let e = r.call(Op::Exp, vec![t(d)])?;
    let s = reduce(r, Op::Sum, e, &dims, keepdim)?;
    let l = r.call(Op::Log, vec![t(s)])?;
    let m = if keepdim {
        m
    } else if dims.is_empty() {
        r.call(Op::Squeeze, vec![t(m), Value::None])?
    } else {
        r.call(Op::Squeeze, vec![t(m), Value::IntList(dims)])?
    };
    bin(r, Op::Add, t(l), t(m))
}

/// `batch_norm` in evaluation mode (running statistics, nothing written) as eager computes it, in
/// f64: per channel `scale = w / sqrt(var + eps)` (`1 / sqrt` without a weight) and
/// `shift = b - mean * scale` (`0 - ...` without a bias), then `x * scale + shift` rounded to the
/// input dtype; exact operations in eager's order, so bitwise eager's. Training mode updates the
/// running statistics in place and keeps the eager node.
fn batch_norm_eval(
    r: &mut Rebuild,
    a: &Args<'_, ValueId>,
    x: ValueId,
    shape: &[usize],
    dt: DType,
) -> Option<ValueId> {
    if a.bool(5).ok()? || !matches!(dt, DType::Float32 | DType::Float64) || shape.len() < 2 {
        return None;
    }
    let operand = |r: &mut Rebuild, i: usize| -> Option<Option<ValueId>> {
        match a.opt_tensor(i).ok()? {
            Some(v) => Some(Some(cast(r, r.map[v], DType::Float64)?)),
            None => Some(None),
        }
    };
    let (mean, var) = (operand(r, 1)??, operand(r, 2)??);
    let (w, b) = (operand(r, 3)?, operand(r, 4)?);
    let ve = bin(
        r,
        Op::Add,
        t(var),
        Value::Scalar(Scalar::Float(a.float(7).ok()?)),
    )?;
    let sd = r.call(Op::Sqrt, vec![t(ve)])?;
    let scale = match w {
        Some(w) => r.call(Op::Div, vec![t(w), t(sd), Value::None])?,
        None => r.call(Op::Reciprocal, vec![t(sd)])?,
    };
    let ms = bin(r, Op::Mul, t(mean), t(scale))?;
    let b = match b {
        Some(b) => b,
        None => r.call(Op::ZerosLike, vec![t(ms), Value::None])?,
    };
    let shift = bin(r, Op::Sub, t(b), t(ms))?;
    // [c] -> [c, 1, ...]: broadcast over the dims after the channel.
    let per_channel: Vec<i64> = std::iter::once(shape[1] as i64)
        .chain(std::iter::repeat_n(1, shape.len() - 2))
        .collect();
    let scale = r.call(
        Op::View,
        vec![t(scale), Value::IntList(per_channel.clone())],
    )?;
    let shift = r.call(Op::View, vec![t(shift), Value::IntList(per_channel)])?;
    let x = cast(r, x, DType::Float64)?;
    let y = bin(r, Op::Mul, t(x), t(scale))?;
    let y = bin(r, Op::Add, t(y), t(shift))?;
    cast(r, y, dt)
}

/// The pass.
pub fn decompose(g: &mut Graph, _cx: &PassCx) {
    if !g.nodes().iter().any(|n| {
        matches!(
            n.op,
            Op::Softmax
                | Op::LogSoftmax
                | Op::LayerNorm
                | Op::Var
                | Op::Std
                | Op::Lerp
                | Op::Addcmul
                | Op::Addcdiv
                | Op::LogSumExp
                | Op::BatchNorm
        )
    }) {
        return;
    }
    let old = std::mem::take(g);
    let mut r = Rebuild::new(&old);
    for i in 0..old.nodes().len() {
        let n = &old.nodes()[i];
        let mark = r.g.nodes().len();
        match expand(&mut r, &old, i) {
            Some(v)
                if r.g.value(v).meta.dtype == old.value(n.outputs[0]).meta.dtype
                    && r.g.value(v).meta.shape == old.value(n.outputs[0]).meta.shape =>
            {
                r.map.insert(n.outputs[0], v);
            }
            _ => {
                // Roll back any partial expansion (its values, now unused, go at `compact`),
                // then copy the node as is.
                r.g.nodes_mut().truncate(mark);
                r.copy(&old, i);
            }
        }
    }
    let mut out = r.finish(&old);
    out.compact();
    *g = out;
}
