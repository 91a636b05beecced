//! Lowering graph nodes to loop-IR instructions: one function per op family, with PyTorch's type
//! promotion (the same `result_type`/`compute_dtype` rules the eager kernels use) made explicit as
//! casts, and the eager kernels' evaluation order kept so results agree to the last bit wherever
//! the operations are exact.

use std::collections::HashMap;

use rynamo_graph::{Args, Graph, Lowering, Node as GNode, Op, Value, ValueId};
use rynamo_tensor::expr::{Bin, Cmp, ENode, Expr, Un};
use rynamo_tensor::ops::pointwise::TensorOrScalar;
use rynamo_tensor::{BinaryOp, DType, Scalar, TensorMeta, result_type};

use crate::fuse::ty_of;
use crate::loop_ir::{BOp, Func1, Func2, Inst, Node, Ty, UOp, V};

/// A run-time constant value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstVal {
    /// f32.
    F32(f32),
    /// f64.
    F64(f64),
    /// i64.
    I64(i64),
    /// bool.
    Bool(bool),
}

impl ConstVal {
    /// The constant as `ty`, converting a Python scalar as the eager kernels do.
    pub fn from_scalar(s: Scalar, ty: Ty) -> ConstVal {
        match ty {
            Ty::F32 => ConstVal::F32(s.to_f64() as f32),
            Ty::F64 => ConstVal::F64(s.to_f64()),
            Ty::I64 => ConstVal::I64(s.to_i64()),
            Ty::Bool => ConstVal::Bool(s.to_bool()),
        }
    }
    fn key(self) -> (u8, u64) {
        match self {
            ConstVal::F32(v) => (0, u64::from(v.to_bits())),
            ConstVal::F64(v) => (1, v.to_bits()),
            ConstVal::I64(v) => (2, v as u64),
            ConstVal::Bool(v) => (3, u64::from(v)),
        }
    }
    /// Its type.
    pub fn ty(self) -> Ty {
        match self {
            ConstVal::F32(_) => Ty::F32,
            ConstVal::F64(_) => Ty::F64,
            ConstVal::I64(_) => Ty::I64,
            ConstVal::Bool(_) => Ty::Bool,
        }
    }
}

/// Why a node or kernel cannot be lowered.
pub type Unsupported = String;
type R<T> = Result<T, Unsupported>;

/// One phase body under construction, plus the kernel-wide constant table.
#[derive(Debug, Default)]
pub struct Body {
    /// Instructions.
    pub nodes: Vec<Node>,
    /// Kernel constants (shared by all phases).
    pub consts: Vec<ConstVal>,
    const_idx: HashMap<(u8, u64), u32>,
    cse: HashMap<Node, V>,
}

impl Body {
    /// Starts a new phase, keeping the constants.
    pub fn next_phase(&mut self) -> Vec<Node> {
        self.cse.clear();
        std::mem::take(&mut self.nodes)
    }
    /// Appends (or reuses) a node.
    pub fn push(&mut self, inst: Inst, ty: Ty) -> V {
        let n = Node { inst, ty };
        if let Some(&v) = self.cse.get(&n) {
            return v;
        }
        let v = self.nodes.len() as V;
        self.nodes.push(n);
        self.cse.insert(n, v);
        v
    }
    /// The type of a value.
    pub fn ty(&self, v: V) -> Ty {
        self.nodes[v as usize].ty
    }
    /// A constant.
    pub fn konst(&mut self, c: ConstVal) -> V {
        let next = self.consts.len() as u32;
        let idx = *self.const_idx.entry(c.key()).or_insert(next);
        if idx == next {
            self.consts.push(c);
        }
        self.push(Inst::Const(idx), c.ty())
    }
    fn f(&mut self, ty: Ty, v: f64) -> V {
        let c = match ty {
            Ty::F32 => ConstVal::F32(v as f32),
            Ty::F64 => ConstVal::F64(v),
            Ty::I64 => ConstVal::I64(v as i64),
            Ty::Bool => ConstVal::Bool(v != 0.0),
        };
        self.konst(c)
    }
    /// `v` converted to `to`.
    pub fn cast(&mut self, v: V, to: Ty) -> V {
        if self.ty(v) == to {
            v
        } else {
            self.push(Inst::Cast(v), to)
        }
    }
    fn bin(&mut self, op: BOp, a: V, b: V) -> V {
        let ty = if op.is_compare() {
            Ty::Bool
        } else {
            self.ty(a)
        };
        self.push(Inst::Binary(op, a, b), ty)
    }
    fn un(&mut self, op: UOp, a: V) -> V {
        let ty = if op == UOp::IsNan {
            Ty::Bool
        } else {
            self.ty(a)
        };
        self.push(Inst::Unary(op, a), ty)
    }
    fn sel(&mut self, c: V, a: V, b: V) -> V {
        let ty = self.ty(a);
        self.push(Inst::Select(c, a, b), ty)
    }
    fn call1(&mut self, f: Func1, a: V) -> V {
        let ty = self.ty(a);
        self.push(Inst::Call1(f, a), ty)
    }
    fn call2(&mut self, f: Func2, a: V, b: V) -> V {
        let ty = self.ty(a);
        self.push(Inst::Call2(f, a, b), ty)
    }
    /// Vectorised on f32, a library call on f64.
    fn math(&mut self, op: UOp, f: Func1, a: V) -> V {
        if self.ty(a) == Ty::F32 {
            self.un(op, a)
        } else {
            self.call1(f, a)
        }
    }
}

fn is_float(t: Ty) -> bool {
    matches!(t, Ty::F32 | Ty::F64)
}

fn operand<'a>(g: &'a Graph, a: &Value<ValueId>) -> Option<TensorOrScalar<&'a TensorMeta>> {
    match a {
        Value::Tensor(v) => Some(TensorOrScalar::Tensor(&g.value(*v).meta)),
        Value::Scalar(s) => Some(TensorOrScalar::Scalar(*s)),
        _ => None,
    }
}

/// Whether [`lower_pointwise`] handles `n` (a dry run on placeholder operands).
pub fn pointwise_supported(g: &Graph, n: &GNode) -> bool {
    let mut b = Body::default();
    let mut load = |b: &mut Body, v: ValueId| -> R<V> {
        let ty = ty_of(g.value(v).meta.dtype).ok_or("dtype")?;
        Ok(b.push(Inst::Load(v.0), ty))
    };
    lower_pointwise(&mut b, g, n, &mut load).is_ok()
}

/// Lowers pointwise node `n`; `input(b, v)` yields its tensor operand `v` (already mapped to the
/// output index and broadcast).
pub fn lower_pointwise(
    b: &mut Body,
    g: &Graph,
    n: &GNode,
    input: &mut dyn FnMut(&mut Body, ValueId) -> R<V>,
) -> R<V> {
    let out = &g.value(n.outputs[0]).meta;
    let oty = ty_of(out.dtype).ok_or("output dtype")?;
    let mut arg = |b: &mut Body, i: usize, ty: Ty| -> R<V> {
        let v = match &n.args[i] {
            Value::Tensor(v) => input(b, *v)?,
            Value::Scalar(s) => b.konst(ConstVal::from_scalar(*s, ty)),
            _ => return Err(format!("argument {i} of {}", n.op)),
        };
        Ok(b.cast(v, ty))
    };
    // A float pointwise op's own scalar expression; integer and bool dtypes, and the ops with no
    // float arithmetic (predicates), keep the lowering below.
    if let Some(expr) = n.op.def().scalar
        && is_float(oty)
        && let Some(e) = expr(&n.args).map_err(|e| e.to_string())?
    {
        let r = lower_expr(b, &e, &mut arg, oty)?;
        return Ok(b.cast(r, oty));
    }
    let r = match n.op {
        Op::Contiguous | Op::Clone | Op::To | Op::Type => arg(b, 0, oty)?,
        Op::Where => {
            let c = arg(b, 0, Ty::Bool)?;
            let (x, y) = (arg(b, 1, oty)?, arg(b, 2, oty)?);
            b.sel(c, x, y)
        }
        Op::MaskedFill => {
            let x = arg(b, 0, oty)?;
            let m = arg(b, 1, Ty::Bool)?;
            let v = arg(b, 2, oty)?;
            b.sel(m, v, x)
        }
        Op::Clamp | Op::Clip | Op::ClampMin | Op::ClampMax => {
            // The argument positions of the bounds: `clamp_min`/`clamp_max` take one.
            let (lo, hi) = match n.op {
                Op::ClampMin => (Some(1), None),
                Op::ClampMax => (None, Some(1)),
                _ => (Some(1), Some(2)),
            };
            let given = |i: Option<usize>| i.filter(|&i| !matches!(n.args[i], Value::None));
            let (lo, hi) = (given(lo), given(hi));
            let ops: Vec<_> = std::iter::once(0)
                .chain(lo)
                .chain(hi)
                .filter_map(|i| operand(g, &n.args[i]))
                .collect();
            let c = ty_of(result_type(
                &ops.iter().map(|o| o.operand()).collect::<Vec<_>>(),
            ))
            .ok_or("clamp dtype")?;
            let mut x = arg(b, 0, c)?;
            if let Some(i) = lo {
                let lo = arg(b, i, c)?;
                x = b.bin(BOp::Max, x, lo);
            }
            if let Some(i) = hi {
                let hi = arg(b, i, c)?;
                x = b.bin(BOp::Min, x, hi);
            }
            b.cast(x, oty)
        }
        op if op.lowering() == Lowering::Creation => {
            let v = op
                .fill_value(&n.args)
                .ok_or_else(|| format!("{op} is not a constant fill"))?;
            b.konst(ConstVal::from_scalar(v, oty))
        }
        op if op.def().binary.is_some() => binary(b, g, n, &mut arg, oty)?,
        _ => {
            let Value::Tensor(x) = &n.args[0] else {
                return Err(format!("{} takes a tensor", n.op));
            };
            let xt = ty_of(g.value(*x).meta.dtype).ok_or("input dtype")?;
            unary(b, n, &mut arg, xt, oty)?
        }
    };
    Ok(b.cast(r, oty))
}

/// Lowers an op's scalar expression (`rynamo_tensor::expr`), computed in the output dtype `ty`
/// (floating point), as the eager kernel runs it: each primitive becomes the instruction (or
/// scalar call) that computes it the way eager's does.
fn lower_expr(b: &mut Body, e: &Expr, arg: &mut ArgFn<'_>, ty: Ty) -> R<V> {
    if !is_float(ty) {
        return Err(format!("an expression op computing in {ty:?}"));
    }
    let mut vals: Vec<V> = Vec::with_capacity(e.nodes.len());
    for node in &e.nodes {
        let at = |i: u32| vals[i as usize];
        let v = match *node {
            ENode::Arg(i) => arg(b, usize::from(i), ty)?,
            ENode::Const(c) => b.f(ty, c),
            ENode::Un(u, x) => {
                let x = at(x);
                match u {
                    Un::Neg => b.un(UOp::Neg, x),
                    Un::Abs => b.un(UOp::Abs, x),
                    Un::Sqrt => b.un(UOp::Sqrt, x),
                    Un::Exp => b.math(UOp::Exp, Func1::Exp, x),
                    Un::Ln => b.math(UOp::Log, Func1::Log, x),
                    Un::Tanh => b.math(UOp::Tanh, Func1::Tanh, x),
                    Un::Sin => b.math(UOp::Sin, Func1::Sin, x),
                    Un::Cos => b.math(UOp::Cos, Func1::Cos, x),
                    Un::Erf => b.math(UOp::Erf, Func1::Erf, x),
                    Un::Sigmoid => b.math(UOp::Sigmoid, Func1::Sigmoid, x),
                    Un::Floor => b.un(UOp::Floor, x),
                    Un::Ceil => b.un(UOp::Ceil, x),
                    Un::Trunc => b.un(UOp::Trunc, x),
                    Un::RoundEven => b.un(UOp::Round, x),
                    Un::Relu => b.un(UOp::Relu, x),
                }
            }
            ENode::Bin(op, x, y) => {
                let op = match op {
                    Bin::Add => BOp::Add,
                    Bin::Sub => BOp::Sub,
                    Bin::Mul => BOp::Mul,
                    Bin::Div => BOp::Div,
                    Bin::Min => BOp::Min,
                    Bin::Max => BOp::Max,
                };
                b.bin(op, at(x), at(y))
            }
            ENode::Cmp(c, x, y) => {
                let op = match c {
                    Cmp::Eq => BOp::Eq,
                    Cmp::Ne => BOp::Ne,
                    Cmp::Lt => BOp::Lt,
                    Cmp::Le => BOp::Le,
                    Cmp::Gt => BOp::Gt,
                    Cmp::Ge => BOp::Ge,
                };
                b.bin(op, at(x), at(y))
            }
            ENode::IsNan(x) => b.un(UOp::IsNan, at(x)),
            ENode::Or(x, y) => b.bin(BOp::Or, at(x), at(y)),
            ENode::Select(m, x, y) => b.sel(at(m), at(x), at(y)),
            ENode::Call(f, x) => b.call1(Func1::Extern(f), at(x)),
        };
        vals.push(v);
    }
    vals.last()
        .copied()
        .ok_or_else(|| "an empty expression".into())
}

/// `1/d` in `ty` when `d` (converted to `ty` as the kernels do) is a power of two whose
/// reciprocal is a normal number of `ty`.
fn exact_reciprocal(d: Scalar, ty: Ty) -> Option<ConstVal> {
    match ConstVal::from_scalar(d, ty) {
        ConstVal::F32(v) => {
            let r = 1.0 / v;
            let pow2 = v.is_normal() && v.abs().to_bits() & 0x007f_ffff == 0;
            (pow2 && r.is_normal()).then_some(ConstVal::F32(r))
        }
        ConstVal::F64(v) => {
            let r = 1.0 / v;
            let pow2 = v.is_normal() && v.abs().to_bits() & 0x000f_ffff_ffff_ffff == 0;
            (pow2 && r.is_normal()).then_some(ConstVal::F64(r))
        }
        ConstVal::I64(_) | ConstVal::Bool(_) => None,
    }
}

type ArgFn<'a> = dyn FnMut(&mut Body, usize, Ty) -> R<V> + 'a;

fn binary(b: &mut Body, g: &Graph, n: &GNode, arg: &mut ArgFn<'_>, oty: Ty) -> R<V> {
    use BinaryOp as B;
    let kind = n.op.def().binary.ok_or("binary")?;
    let (op, alpha) = kind(&n.args).map_err(|e| e.to_string())?;
    let (x, y) = (
        operand(g, &n.args[0]).ok_or("lhs")?,
        operand(g, &n.args[1]).ok_or("rhs")?,
    );
    let common = result_type(&[x.operand(), y.operand()]);
    let c = ty_of(op.compute_dtype(common).map_err(|e| e.to_string())?).ok_or("compute dtype")?;
    // Mirrors `pow_fast_path`: `x ** k` for a few k is a cheaper exact op in eager too. Float
    // `x ** 3` and `x ** 4` become multiplications, as PyTorch's CPU kernel (for 3) and inductor
    // do: within a few ulps of eager's `powf` (two or three roundings against libm's one) and
    // vectorised instead of a scalar call per element (tanh-GELU spelled `x ** 3`, say).
    if op == B::Pow
        && let (TensorOrScalar::Tensor(xm), TensorOrScalar::Scalar(e)) = (x, y)
        && common == xm.dtype
        && xm.dtype != DType::Bool
    {
        let e = e.to_f64();
        if e == 1.0 || e == 2.0 || (is_float(c) && [0.5, -1.0, 3.0, 4.0].contains(&e)) {
            let v = arg(b, 0, c)?;
            return Ok(match e {
                1.0 => v,
                2.0 => b.bin(BOp::Mul, v, v),
                3.0 => {
                    let sq = b.bin(BOp::Mul, v, v);
                    b.bin(BOp::Mul, sq, v)
                }
                4.0 => {
                    let sq = b.bin(BOp::Mul, v, v);
                    b.bin(BOp::Mul, sq, sq)
                }
                0.5 => b.un(UOp::Sqrt, v),
                _ => {
                    let one = b.f(c, 1.0);
                    b.bin(BOp::Div, one, v)
                }
            });
        }
    }
    // `x / 2^k` and `x * 2^-k` round the same real number, so they are bitwise equal (infinities,
    // NaNs, zeros and subnormal results included) while a multiplication is several times
    // cheaper; W8 of `benchmarks.md` scales attention scores by `/ 8`.
    if op == B::Div
        && let TensorOrScalar::Scalar(d) = y
        && let Some(inv) = exact_reciprocal(d, c)
    {
        let l = arg(b, 0, c)?;
        let k = b.konst(inv);
        return Ok(b.bin(BOp::Mul, l, k));
    }
    let (l, r) = (arg(b, 0, c)?, arg(b, 1, c)?);
    let fl = is_float(c);
    let v = match (op, c) {
        (B::Add | B::Sub, Ty::Bool) => {
            if op == B::Sub || !alpha.to_bool() {
                return if op == B::Sub {
                    Err("bool sub".into())
                } else {
                    Ok(l)
                };
            }
            b.bin(BOp::Or, l, r)
        }
        (B::Add | B::Sub, _) => {
            let al = alpha;
            let one = match al {
                Scalar::Int(1) => true,
                s => s.to_f64() == 1.0 && fl,
            };
            let r = if one {
                r
            } else {
                let k = b.konst(ConstVal::from_scalar(al, c));
                b.bin(BOp::Mul, k, r)
            };
            b.bin(if op == B::Add { BOp::Add } else { BOp::Sub }, l, r)
        }
        (B::Mul, Ty::Bool) => b.bin(BOp::And, l, r),
        (B::Mul, _) => b.bin(BOp::Mul, l, r),
        (B::Div, _) if fl => b.bin(BOp::Div, l, r),
        (B::DivTrunc, _) if fl => {
            let q = b.bin(BOp::Div, l, r);
            b.un(UOp::Trunc, q)
        }
        (B::DivFloor, _) if fl => b.call2(Func2::DivFloor, l, r),
        (B::Remainder, _) if fl => b.call2(Func2::Remainder, l, r),
        (B::Pow, _) if fl => b.call2(Func2::Pow, l, r),
        (B::Atan2, _) if fl => b.call2(Func2::Atan2, l, r),
        (B::Fmod, _) if fl => b.call2(Func2::Fmod, l, r),
        (B::Hypot, _) if fl => b.call2(Func2::Hypot, l, r),
        (B::Maximum, Ty::Bool) => b.bin(BOp::Or, l, r),
        (B::Minimum, Ty::Bool) => b.bin(BOp::And, l, r),
        (B::Maximum, _) => b.bin(BOp::Max, l, r),
        (B::Minimum, _) => b.bin(BOp::Min, l, r),
        (B::Eq, _) => b.bin(BOp::Eq, l, r),
        (B::Ne, _) => b.bin(BOp::Ne, l, r),
        (B::Lt, _) => b.bin(BOp::Lt, l, r),
        (B::Le, _) => b.bin(BOp::Le, l, r),
        (B::Gt, _) => b.bin(BOp::Gt, l, r),
        (B::Ge, _) => b.bin(BOp::Ge, l, r),
        (B::LogicalAnd | B::LogicalOr | B::LogicalXor, _) => {
            let (l, r) = (b.cast(l, Ty::Bool), b.cast(r, Ty::Bool));
            let bop = match op {
                B::LogicalAnd => BOp::And,
                B::LogicalOr => BOp::Or,
                _ => BOp::Xor,
            };
            b.bin(bop, l, r)
        }
        (B::BitwiseAnd, Ty::I64 | Ty::Bool) => b.bin(BOp::And, l, r),
        (B::BitwiseOr, Ty::I64 | Ty::Bool) => b.bin(BOp::Or, l, r),
        (B::BitwiseXor, Ty::I64 | Ty::Bool) => b.bin(BOp::Xor, l, r),
        _ => return Err(format!("{} on {c:?}", n.op)),
    };
    Ok(b.cast(v, oty))
}

/// The unary ops on integer and bool dtypes, and the float ops with no scalar expression: their
/// float arithmetic is the op's `OpDef::scalar` (`rynamo_tensor::kernels::unary_expr`), lowered
/// by [`lower_expr`] before this is reached. What stays here is what an expression over a float
/// compute type cannot say: exact integer arithmetic, bool identities, predicates (a bool result
/// from any input dtype), and `nan_to_num` (its default bounds are the output dtype's limits).
fn unary(b: &mut Body, n: &GNode, arg: &mut ArgFn<'_>, xt: Ty, oty: Ty) -> R<V> {
    let a = Args(&n.args);
    let e = |x: rynamo_graph::Error| x.to_string();
    let ft = oty;
    let float = is_float(ft);
    let v = match n.op {
        Op::Neg if !float && xt != Ty::Bool => {
            let x = arg(b, 0, oty)?;
            let z = b.f(oty, 0.0);
            b.bin(BOp::Sub, z, x)
        }
        Op::Abs if oty == Ty::I64 => {
            let x = arg(b, 0, oty)?;
            let z = b.f(oty, 0.0);
            let neg = b.bin(BOp::Sub, z, x);
            let lt = b.bin(BOp::Lt, x, z);
            b.sel(lt, neg, x)
        }
        Op::Relu | Op::Relu6 if !float && xt != Ty::Bool => {
            let x = arg(b, 0, oty)?;
            let z = b.f(oty, 0.0);
            let r = b.bin(BOp::Max, x, z);
            if n.op == Op::Relu6 {
                let six = b.f(oty, 6.0);
                b.bin(BOp::Min, r, six)
            } else {
                r
            }
        }
        Op::Floor | Op::Ceil | Op::Trunc | Op::Round | Op::NanToNum if !float => arg(b, 0, oty)?,
        Op::Sign if oty == Ty::I64 => {
            let x = arg(b, 0, oty)?;
            let (z, one, m1) = (b.f(oty, 0.0), b.f(oty, 1.0), b.f(oty, -1.0));
            let (gt, lt) = (b.bin(BOp::Gt, x, z), b.bin(BOp::Lt, x, z));
            let inner = b.sel(lt, m1, z);
            b.sel(gt, one, inner)
        }
        Op::Sign if oty == Ty::Bool => arg(b, 0, oty)?,
        Op::Square if !float && oty != Ty::Bool => {
            let x = arg(b, 0, oty)?;
            b.bin(BOp::Mul, x, x)
        }
        Op::LogicalNot => {
            let x = arg(b, 0, xt)?;
            let z = b.f(xt, 0.0);
            b.bin(BOp::Eq, x, z)
        }
        Op::BitwiseNot if matches!(oty, Ty::I64 | Ty::Bool) => {
            let x = arg(b, 0, oty)?;
            b.un(UOp::Not, x)
        }
        Op::IsNan | Op::IsInf | Op::IsFinite => {
            if !is_float(xt) {
                return Ok(b.f(Ty::Bool, f64::from(n.op == Op::IsFinite)));
            }
            let x = arg(b, 0, xt)?;
            if n.op == Op::IsNan {
                b.un(UOp::IsNan, x)
            } else {
                let ax = b.un(UOp::Abs, x);
                let inf = b.f(xt, f64::INFINITY);
                b.bin(if n.op == Op::IsInf { BOp::Eq } else { BOp::Lt }, ax, inf)
            }
        }
        Op::NanToNum if float => {
            let x = arg(b, 0, ft)?;
            let max = if ft == Ty::F32 {
                f64::from(f32::MAX)
            } else {
                f64::MAX
            };
            let nan = a.opt_float(1).map_err(e)?.unwrap_or(0.0);
            let pos = a.opt_float(2).map_err(e)?.unwrap_or(max);
            let neg = a.opt_float(3).map_err(e)?.unwrap_or(-max);
            let (cn, cp, cm) = (b.f(ft, nan), b.f(ft, pos), b.f(ft, neg));
            let (pinf, ninf) = (b.f(ft, f64::INFINITY), b.f(ft, f64::NEG_INFINITY));
            let isn = b.un(UOp::IsNan, x);
            let isp = b.bin(BOp::Eq, x, pinf);
            let ism = b.bin(BOp::Eq, x, ninf);
            let v = b.sel(ism, cm, x);
            let v = b.sel(isp, cp, v);
            b.sel(isn, cn, v)
        }
        _ => return Err(format!("{} on {xt:?} -> {oty:?}", n.op)),
    };
    Ok(v)
}
